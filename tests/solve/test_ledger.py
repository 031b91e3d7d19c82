"""The progress ledger: looping, progressing, and re-planning then escalating after stalls."""

from __future__ import annotations

from tiller.solve.ledger import Next, ProgressLedger


def test_new_successful_steps_are_progress() -> None:
    ledger = ProgressLedger()
    first = ledger.record("s1", True, "read", {"path": "a"}, "text a")
    second = ledger.record("s2", True, "read", {"path": "b"}, "text b")
    assert (first.progressing, second.progressing) == (True, True)
    assert second.next is Next.CONTINUE
    assert ledger.stalls == 0


def test_the_same_call_with_the_same_answer_again_is_looping() -> None:
    ledger = ProgressLedger(loop_after=3)
    entries = [ledger.record(f"s{i}", True, "poll", {}, "not yet") for i in range(3)]
    assert [e.progressing for e in entries] == [True, False, False]
    assert [e.looping for e in entries] == [False, False, True]
    assert entries[-1].next is Next.REPLAN


def test_stalls_replan_then_escalate() -> None:
    ledger = ProgressLedger(stall_limit=2, replan_limit=1)
    ledger.record("a", False, "x", 1)
    assert ledger.record("b", False, "x", 2).next is Next.REPLAN
    ledger.replanned()
    assert ledger.record("c", False, "y", 1).next is Next.CONTINUE
    assert ledger.record("d", False, "y", 2).next is Next.ESCALATE


def test_the_ledger_survives_a_round_trip_through_data() -> None:
    ledger = ProgressLedger()
    ledger.record("a", True, "x")
    ledger.record("b", False, "x")
    again = ProgressLedger.from_data(ledger.to_data())
    assert again.to_data() == ledger.to_data()
    # and it goes on deciding the same way: the repeat is remembered
    assert again.record("c", True, "x").looping == ledger.record("c", True, "x").looping
