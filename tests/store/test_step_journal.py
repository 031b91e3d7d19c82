"""The step journal: written before a step runs and after; interrupted steps listed."""

from __future__ import annotations

import pytest

from tiller.store import SolveNotFound, StepJournalError, Store
from tiller.tools.effects import ToolEffect


async def test_a_started_step_without_a_finish_is_interrupted(store: Store) -> None:
    solve_id = await store.solves.create("x", {})
    await store.steps.step_started(solve_id, "g1/s1", "read_file", ToolEffect.READ, {"path": "a"})
    await store.steps.step_finished(solve_id, "g1/s1", {"content": "hello"})
    await store.steps.step_started(solve_id, "g1/s2", "grep", "read", {"pattern": "x"})
    await store.steps.step_started(solve_id, "g1/s3", "shell", "external", {"command": "make"})
    interrupted = await store.steps.interrupted_steps(solve_id)
    assert [(s.step_key, s.tool, s.effect) for s in interrupted] == [
        ("g1/s2", "grep", ToolEffect.READ),
        ("g1/s3", "shell", ToolEffect.EXTERNAL),
    ]
    assert interrupted[1].arguments == {"command": "make"}
    assert not interrupted[1].finished
    steps = await store.steps.steps(solve_id)
    assert [s.step_key for s in steps] == ["g1/s1", "g1/s2", "g1/s3"]
    assert steps[0].finished
    assert steps[0].outcome == {"content": "hello"}


async def test_an_interrupted_step_run_again_counts_attempts(store: Store) -> None:
    solve_id = await store.solves.create("x", {})
    await store.steps.step_started(solve_id, "s", "read_file", "read", {"path": "a"})
    again = await store.steps.step_started(solve_id, "s", "read_file", "read", {"path": "a"})
    assert again.attempts == 2
    await store.steps.step_finished(solve_id, "s", "done")
    assert await store.steps.interrupted_steps(solve_id) == []
    entry = await store.steps.get(solve_id, "s")
    assert entry is not None
    assert (entry.attempts, entry.outcome) == (2, "done")


async def test_a_finished_step_is_never_started_again(store: Store) -> None:
    solve_id = await store.solves.create("x", {})
    await store.steps.step_started(solve_id, "s", "write_file", "write_local", {"path": "a"})
    await store.steps.step_finished(solve_id, "s", {"ok": True})
    with pytest.raises(StepJournalError, match=r"already finished .* must not run again"):
        await store.steps.step_started(solve_id, "s", "write_file", "write_local", {"path": "a"})
    with pytest.raises(StepJournalError, match="its first outcome is kept"):
        await store.steps.step_finished(solve_id, "s", {"ok": False})
    entry = await store.steps.get(solve_id, "s")
    assert entry is not None
    assert (entry.attempts, entry.outcome) == (1, {"ok": True})


async def test_out_of_order_entries_are_refused(store: Store) -> None:
    solve_id = await store.solves.create("x", {})
    with pytest.raises(StepJournalError, match="never started"):
        await store.steps.step_finished(solve_id, "s", {})
    with pytest.raises(SolveNotFound):
        await store.steps.step_started("nope", "s", "read_file", "read", {})
    with pytest.raises(ValueError, match="not a valid ToolEffect"):
        await store.steps.step_started(solve_id, "s", "read_file", "sometimes", {})
    assert await store.steps.steps(solve_id) == []
    assert await store.steps.get(solve_id, "s") is None
