"""Approvals: persisted before anyone is asked, decided once, waited for across processes."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from tests.store import other_process
from tiller.store import (
    ApprovalAlreadyDecided,
    ApprovalNotFound,
    ApprovalStatus,
    SolveNotFound,
    Store,
)

PLAN = {"steps": [{"tool": "write_file", "arguments": {"path": "a.txt"}}]}


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


async def test_a_request_is_stored_pending_with_its_context(store: Store) -> None:
    solve_id = await store.solves.create("x", {})
    due = store.now() + timedelta(minutes=5)
    approval_id = await store.approvals.request(solve_id, "checkpoint", "plan_created", PLAN, due)
    approval = await store.approvals.get(approval_id)
    assert (approval.solve_id, approval.kind, approval.event) == (
        solve_id,
        "checkpoint",
        "plan_created",
    )
    assert (approval.context, approval.status, approval.due_at) == (
        PLAN,
        ApprovalStatus.PENDING,
        due,
    )
    assert not approval.decided
    tool_call = await store.approvals.request(None, "tool_call", "before_step", {"tool": "shell"})
    assert (await store.approvals.get(tool_call)).solve_id is None


async def test_a_decision_is_kept_with_its_comment_plan_and_decider(store: Store) -> None:
    solve_id = await store.solves.create("x", {})
    first = await store.approvals.request(solve_id, "checkpoint", "plan_created", PLAN)
    second = await store.approvals.request(solve_id, "checkpoint", "pre_execution", {})
    edited: dict[str, list[str]] = {"steps": []}
    decided = await store.approvals.decide(first, True, "fewer steps", edited, "alice")
    assert (decided.status, decided.comment, decided.edited_plan, decided.decided_by) == (
        ApprovalStatus.APPROVED,
        "fewer steps",
        edited,
        "alice",
    )
    assert decided.decided_at is not None
    rejected = await store.approvals.decide(second, False, comment="too risky")
    assert rejected.status is ApprovalStatus.REJECTED
    assert [a.id for a in await store.approvals.list(solve_id=solve_id)] == [first, second]
    assert [a.id for a in await store.approvals.list(status="rejected")] == [second]
    assert await store.approvals.list(status=ApprovalStatus.PENDING) == []


async def test_a_decision_for_a_missing_or_decided_approval_is_refused(store: Store) -> None:
    with pytest.raises(ApprovalNotFound, match="no approval has the id 'nope'"):
        await store.approvals.decide("nope", True)
    with pytest.raises(ApprovalNotFound):
        await store.approvals.get("nope")
    approval_id = await store.approvals.request(None, "tool_call", "before_step", {})
    await store.approvals.decide(approval_id, False, "no", decided_by="alice")
    with pytest.raises(ApprovalAlreadyDecided, match="already rejected by alice") as raised:
        await store.approvals.decide(approval_id, True, "yes", decided_by="bob")
    assert raised.value.status == "rejected"
    kept = await store.approvals.get(approval_id)
    assert (kept.status, kept.comment, kept.decided_by) == (
        ApprovalStatus.REJECTED,
        "no",
        "alice",
    )


async def test_a_request_for_an_unknown_solve_is_refused(store: Store) -> None:
    with pytest.raises(SolveNotFound):
        await store.approvals.request("nope", "checkpoint", "plan_created", {})
    assert await store.approvals.list() == []


async def test_two_deciders_at_once_exactly_one_wins(url: str) -> None:
    stores = [await Store.open(url) for _ in range(3)]
    try:
        approval_id = await stores[0].approvals.request(None, "tool_call", "before_step", {})

        async def decide(n: int) -> str:
            try:
                await stores[n].approvals.decide(approval_id, n % 2 == 0, decided_by=f"d{n}")
            except ApprovalAlreadyDecided:
                return "refused"
            return f"d{n}"

        results = await asyncio.gather(*(decide(n) for n in range(3)))
        winners = [r for r in results if r != "refused"]
        assert len(winners) == 1
        assert (await stores[0].approvals.get(approval_id)).decided_by == winners[0]
    finally:
        for store in stores:
            await store.close()


async def test_a_decision_in_this_process_wakes_the_waiter_without_polling(url: str) -> None:
    # The waiting store polls only every minute: only the in-process signal can wake it.
    async with (
        await Store.open(url, poll_interval=60) as waiting,
        await Store.open(url) as deciding,
    ):
        approval_id = await waiting.approvals.request(None, "checkpoint", "before_step", {})
        waiter = asyncio.create_task(waiting.approvals.wait(approval_id))
        await asyncio.sleep(0.05)
        assert not waiter.done()
        await deciding.approvals.decide(approval_id, True, "go")
        decided = await asyncio.wait_for(waiter, 10)
        assert (decided.status, decided.comment) == (ApprovalStatus.APPROVED, "go")


async def test_a_decision_by_another_process_wakes_the_waiter_within_a_second(
    store: Store,
) -> None:
    url = store.database.url.render_as_string(hide_password=False)
    approval_id = await store.approvals.request(None, "checkpoint", "pre_execution", {})
    waiter = asyncio.create_task(store.approvals.wait(approval_id))
    decider = other_process.start("decide", url, approval_id, "yes", "carol")
    decided = await asyncio.wait_for(waiter, 60)
    woke = datetime.now(UTC)
    stdout, stderr = decider.communicate(timeout=60)
    assert decider.returncode == 0, stderr
    assert (decided.status, decided.decided_by) == (ApprovalStatus.APPROVED, "carol")
    assert decided.decided_at == datetime.fromisoformat(stdout.strip())
    assert woke - decided.decided_at < timedelta(seconds=1)


async def test_an_approval_times_out_at_its_due_time(store: Store) -> None:
    due = store.now() + timedelta(seconds=0.3)
    approval_id = await store.approvals.request(None, "checkpoint", "before_step", {}, due)
    timed_out = await asyncio.wait_for(store.approvals.wait(approval_id), 10)
    assert timed_out.status is ApprovalStatus.TIMEOUT
    assert (await store.approvals.get(approval_id)).status is ApprovalStatus.TIMEOUT
    with pytest.raises(ApprovalAlreadyDecided, match="already timeout"):
        await store.approvals.decide(approval_id, True)


async def test_the_callers_own_timeout_leaves_the_approval_pending(store: Store) -> None:
    approval_id = await store.approvals.request(None, "checkpoint", "before_step", {})
    waited = await store.approvals.wait(approval_id, timeout=0.2)
    assert waited.status is ApprovalStatus.PENDING
    assert (await store.approvals.get(approval_id)).status is ApprovalStatus.PENDING
    with pytest.raises(ApprovalNotFound):
        await store.approvals.wait("nope", timeout=0.1)


async def test_expire_overdue_times_out_only_what_is_due(url: str) -> None:
    clock = Clock()
    async with await Store.open(url, clock=clock) as store:
        t0 = clock.now
        soon = await store.approvals.request(None, "c", "e", {}, t0 + timedelta(minutes=1))
        later = await store.approvals.request(None, "c", "e", {}, t0 + timedelta(minutes=10))
        never = await store.approvals.request(None, "c", "e", {})
        decided = await store.approvals.request(None, "c", "e", {}, t0 + timedelta(minutes=1))
        await store.approvals.decide(decided, True)
        expired = await store.approvals.expire_overdue(t0 + timedelta(minutes=5))
        assert [a.id for a in expired] == [soon]
        assert expired[0].status is ApprovalStatus.TIMEOUT
        statuses = {a.id: a.status for a in await store.approvals.list()}
        assert statuses == {
            soon: ApprovalStatus.TIMEOUT,
            later: ApprovalStatus.PENDING,
            never: ApprovalStatus.PENDING,
            decided: ApprovalStatus.APPROVED,
        }


async def test_an_approval_that_fell_due_while_nothing_ran_times_out_on_the_next_open(
    url: str,
) -> None:
    clock = Clock()
    async with await Store.open(url, clock=clock) as store:
        solve_id = await store.solves.create("x", {})
        due = clock.now + timedelta(minutes=30)
        approval_id = await store.approvals.request(solve_id, "checkpoint", "plan_created", {}, due)
    clock.now += timedelta(hours=2)  # nothing ran meanwhile
    async with await Store.open(url, clock=clock) as store:
        approval = await store.approvals.get(approval_id)
        assert (approval.status, approval.decided_at) == (ApprovalStatus.TIMEOUT, clock.now)
        assert [a.id for a in await store.approvals.list(status="timeout")] == [approval_id]
