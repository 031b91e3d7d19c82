"""RollbackJournal: undo newest first, once each, failures reported without stopping."""

from __future__ import annotations

from tiller.tools.rollback import Rollback, RollbackJournal


def undo_into(log: list[str], name: str, fail: bool = False) -> Rollback:
    async def undo() -> None:
        if fail:
            raise OSError(f"cannot undo {name}")
        log.append(name)

    return Rollback(f"undo {name}", undo)


async def test_roll_back_runs_newest_first_and_empties_the_journal() -> None:
    log: list[str] = []
    journal = RollbackJournal()
    for name in ("a", "b", "c"):
        journal.record(f"id_{name}", "t", {"n": name}, undo_into(log, name))
    assert await journal.roll_back() == []
    assert log == ["c", "b", "a"]
    assert len(journal) == 0


async def test_roll_back_since_a_mark_keeps_earlier_entries() -> None:
    log: list[str] = []
    journal = RollbackJournal()
    journal.record("1", "t", {}, undo_into(log, "first"))
    mark = journal.mark()
    journal.record("2", "t", {}, undo_into(log, "second"))
    await journal.roll_back(since=mark)
    assert log == ["second"]
    assert [e.tool_call_id for e in journal.entries] == ["1"]


async def test_a_failing_rollback_does_not_stop_the_others() -> None:
    log: list[str] = []
    journal = RollbackJournal()
    journal.record("1", "t", {}, undo_into(log, "a"))
    journal.record("2", "t", {}, undo_into(log, "b", fail=True))
    failures = await journal.roll_back()
    assert log == ["a"]
    assert [(f.entry.tool_call_id, f.error) for f in failures] == [("2", "OSError: cannot undo b")]


async def test_a_rollback_applies_once() -> None:
    log: list[str] = []
    rollback = undo_into(log, "x")
    await rollback.apply()
    await rollback.apply()
    assert log == ["x"]
    assert rollback.applied


def test_for_call_and_forget() -> None:
    journal = RollbackJournal()
    rollback = undo_into([], "x")
    journal.record("call_1", "t", {}, rollback)
    assert journal.for_call("call_1") is rollback
    assert journal.for_call("other") is None
    journal.forget()
    assert len(journal) == 0
