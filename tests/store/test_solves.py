"""Solves: created, their state saved with a version that must match, loaded, listed."""

from __future__ import annotations

import math

import pytest

from tiller.store import (
    InvalidDocumentError,
    SolveNotFound,
    StaleStateError,
    Store,
)


async def test_a_solve_is_created_at_version_0_and_saved_step_by_step(store: Store) -> None:
    solve_id = await store.solves.create("tidy the docs", {"auto": True, "max_steps": 5})
    record = await store.solves.load(solve_id)
    assert (record.objective, record.options, record.status) == (
        "tidy the docs",
        {"auto": True, "max_steps": 5},
        "pending",
    )
    assert (record.version, record.state) == (0, None)
    v1 = await store.solves.save_state(solve_id, {"step": 1}, version=0, status="running")
    v2 = await store.solves.save_state(solve_id, {"step": 2, "goals": [{"id": "g1"}]}, version=v1)
    record = await store.solves.load(solve_id)
    assert (v1, v2, record.version) == (1, 2, 2)
    assert record.state == {"step": 2, "goals": [{"id": "g1"}]}
    assert record.status == "running"
    assert record.updated_at >= record.created_at


async def test_a_stale_writer_gets_a_clear_error_and_writes_nothing(store: Store) -> None:
    solve_id = await store.solves.create("race", {})
    first = await store.solves.load(solve_id)
    second = await store.solves.load(solve_id)
    await store.solves.save_state(solve_id, {"by": "first"}, version=first.version)
    with pytest.raises(StaleStateError, match="at state version 1, not 0") as raised:
        await store.solves.save_state(solve_id, {"by": "second"}, version=second.version)
    assert (raised.value.expected, raised.value.actual) == (0, 1)
    assert "Load the solve again" in str(raised.value)
    record = await store.solves.load(solve_id)
    assert (record.state, record.version) == ({"by": "first"}, 1)


async def test_two_stores_saving_the_same_version_at_once_one_wins(url: str) -> None:
    async with await Store.open(url) as a, await Store.open(url) as b:
        solve_id = await a.solves.create("race", {})
        results: list[int | None] = []
        for store, who in ((a, "a"), (b, "b")):
            try:
                results.append(await store.solves.save_state(solve_id, {"by": who}, version=0))
            except StaleStateError:
                results.append(None)
        assert results == [1, None]
        assert (await b.solves.load(solve_id)).state == {"by": "a"}


async def test_an_unknown_solve_is_named(store: Store) -> None:
    with pytest.raises(SolveNotFound, match="no solve has the id 'nope'"):
        await store.solves.load("nope")
    with pytest.raises(SolveNotFound):
        await store.solves.save_state("nope", {}, version=0)
    with pytest.raises(SolveNotFound):
        await store.solves.set_status("nope", "done")


async def test_a_state_that_is_not_json_is_refused_before_anything_is_written(
    store: Store,
) -> None:
    solve_id = await store.solves.create("x", {})
    with pytest.raises(InvalidDocumentError, match="cannot be stored as JSON"):
        await store.solves.save_state(solve_id, {"bad": {1, 2}}, version=0)
    with pytest.raises(InvalidDocumentError, match="cannot be stored as JSON"):
        await store.solves.save_state(solve_id, {"bad": math.nan}, version=0)
    with pytest.raises(InvalidDocumentError, match="must be a JSON object"):
        await store.solves.save_state(solve_id, [1, 2], version=0)  # type: ignore[arg-type]
    assert (await store.solves.load(solve_id)).version == 0


async def test_list_is_newest_first_paged_and_filtered_by_status(store: Store) -> None:
    ids = [await store.solves.create(f"solve {n}", {}) for n in range(5)]
    await store.solves.set_status(ids[1], "done")
    await store.solves.set_status(ids[3], "done")
    listed = await store.solves.list()
    assert [s.id for s in listed] == ids[::-1]
    first = await store.solves.list(limit=2)
    second = await store.solves.list(limit=2, before=first[-1].id)
    third = await store.solves.list(limit=2, before=second[-1].id)
    assert [s.id for s in [*first, *second, *third]] == ids[::-1]
    assert [s.id for s in await store.solves.list(status="done")] == [ids[3], ids[1]]
    assert await store.solves.list(status="failed") == []
