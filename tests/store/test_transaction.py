"""`Store.transaction`: several store calls commit as one, or not at all."""

from __future__ import annotations

import asyncio

import pytest

from tiller.store import StaleStateError, Store
from tiller.tools.effects import ToolEffect


async def _started(store: Store) -> str:
    solve_id = await store.solves.create("x", {})
    await store.steps.step_started(solve_id, "g1/s1", "write", ToolEffect.WRITE_LOCAL, {})
    return solve_id


async def test_a_step_outcome_and_the_state_commit_together(store: Store) -> None:
    solve_id = await _started(store)
    async with store.transaction():
        await store.steps.step_finished(solve_id, "g1/s1", {"ok": True})
        # Reads inside the block see its writes.
        assert (await store.steps.get(solve_id, "g1/s1")).finished  # type: ignore[union-attr]
        await store.solves.save_state(solve_id, {"done": ["g1/s1"]}, version=0)
    entry = await store.steps.get(solve_id, "g1/s1")
    assert entry is not None
    assert entry.outcome == {"ok": True}
    assert (await store.solves.load(solve_id)).state == {"done": ["g1/s1"]}


async def test_a_failure_in_the_block_keeps_neither_write(store: Store) -> None:
    solve_id = await _started(store)

    async def both() -> None:
        async with store.transaction():
            await store.steps.step_finished(solve_id, "g1/s1", {"ok": True})
            await store.solves.save_state(solve_id, {"done": ["g1/s1"]}, version=7)

    with pytest.raises(StaleStateError):
        await both()
    entry = await store.steps.get(solve_id, "g1/s1")
    assert entry is not None
    assert not entry.finished
    record = await store.solves.load(solve_id)
    assert record.version == 0
    assert record.state is None


async def test_other_tasks_do_not_see_the_block_until_it_commits(store: Store) -> None:
    solve_id = await _started(store)
    seen: list[bool] = []
    inside = asyncio.Event()
    go_on = asyncio.Event()

    async def look() -> None:
        await inside.wait()
        entry = await store.steps.get(solve_id, "g1/s1")  # its own transaction
        seen.append(entry is not None and entry.finished)
        go_on.set()

    async def write() -> None:
        async with store.transaction():
            await store.steps.step_finished(solve_id, "g1/s1", {"ok": True})
            inside.set()
            await go_on.wait()

    await asyncio.gather(look(), write())
    assert seen == [False]
    assert (await store.steps.get(solve_id, "g1/s1")).finished  # type: ignore[union-attr]
