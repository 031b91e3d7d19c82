"""`benchmarks/local_model.py --keep DIR`: a stopped evaluation resumes with the sets it
had not finished, and never takes a report made by other code or other files."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from benchmarks.local_model import KeptReports, TaskSet, load_set, load_tools, set_tool_files

from benchmarks import local_model

TEST4 = local_model.TASKS_DIR / "test4.jsonl"


def _args(keep: Path, **changes: Any) -> argparse.Namespace:
    values: dict[str, Any] = {"keep": keep, "tools": [], "details": False, "jobs": 1}
    values.update(changes)
    return argparse.Namespace(**values)


def _set(path: Path) -> TaskSet:
    return load_set(path, load_tools(set_tool_files(path)))


@pytest.fixture
def task_set(tmp_path: Path) -> TaskSet:
    path = tmp_path / "sets" / "mine.jsonl"
    path.parent.mkdir()
    shutil.copy(TEST4, path)
    return _set(path)


def test_a_kept_report_is_taken_only_while_the_set_is_unchanged(
    tmp_path: Path, task_set: TaskSet
) -> None:
    kept = KeptReports(tmp_path / "kept", _args(tmp_path / "kept"))
    assert kept.report(task_set) is None
    kept.keep(task_set, {"tasks": 48})
    assert kept.report(task_set) == {"tasks": 48}
    assert KeptReports(tmp_path / "kept", _args(tmp_path / "kept")).report(task_set) == {
        "tasks": 48
    }

    with task_set.path.open("a", encoding="utf-8") as out:
        out.write(TEST4.read_text(encoding="utf-8").splitlines()[0].replace('"id": "', '"id": "x'))
        out.write("\n")
    assert kept.report(_set(task_set.path)) is None


def test_a_report_made_with_other_settings_or_left_broken_is_run_again(
    tmp_path: Path, task_set: TaskSet
) -> None:
    KeptReports(tmp_path, _args(tmp_path)).keep(task_set, {"tasks": 48})
    assert KeptReports(tmp_path, _args(tmp_path, details=True)).report(task_set) is None

    (tmp_path / "mine.json").write_text('{"fingerprint": "', encoding="utf-8")
    assert KeptReports(tmp_path, _args(tmp_path)).report(task_set) is None
    assert not list(tmp_path.glob("*.partial"))


def test_only_the_sets_without_a_kept_report_are_run(
    tmp_path: Path, task_set: TaskSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    other_path = task_set.path.with_name("other.jsonl")
    shutil.copy(task_set.path, other_path)
    other = _set(other_path)
    args = _args(tmp_path / "kept")
    KeptReports(args.keep, args).keep(task_set, {"tasks": 48, "kept": True})
    ran: list[str] = []

    def run(s: TaskSet, with_details: bool) -> dict[str, Any]:
        ran.append(s.name)
        return {"tasks": len(s.tasks)}

    monkeypatch.setattr(local_model, "set_report", run)
    reports = local_model.set_reports([task_set, other], args)

    assert ran == ["other"]
    assert reports == {"mine": {"tasks": 48, "kept": True}, "other": {"tasks": 48}}
    kept = json.loads((tmp_path / "kept" / "other.json").read_text(encoding="utf-8"))
    assert kept["report"] == {"tasks": 48}
    assert local_model.set_reports([task_set, other], args) == reports
    assert ran == ["other"]
