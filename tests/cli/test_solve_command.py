"""`tiller solve`, `tiller approvals` and `tiller solves`, run as real subprocesses on a
temporary data directory, with the solver oracle of `cli_models` (and once on the
embedded model)."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.cli.cli_process import clean_env, tiller, tiller_command

ORACLE = ("-m", "test:solver_oracle")
OBJECTIVE = "Write the quarterly report"
APPROVE_BEFORE_STEP = """
[[checkpoints]]
name = "look first"
event = "before_step"
mode = "require_approval"
timeout = "2m"
"""
WAITING_LINE = re.compile(r"waiting for approval ([0-9a-f]{32})")


@pytest.fixture
def place(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir()
    (tmp_path / "checkpoints.toml").write_text(APPROVE_BEFORE_STEP)
    return tmp_path


def store_options(place: Path) -> list[str]:
    return ["--data-dir", str(place / "state")]


def solve_args(place: Path, *more: str) -> list[str]:
    return [
        "solve",
        OBJECTIVE,
        *ORACLE,
        "--workspace",
        str(place / "work"),
        *store_options(place),
        *more,
    ]


def cli(place: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return tiller(*args, *store_options(place), cwd=place, test_models=True)


def start_solve(place: Path, *more: str) -> subprocess.Popen[str]:
    """`tiller solve` in the background, stdin not a terminal."""
    return subprocess.Popen(
        [*tiller_command(test_models=True), *solve_args(place, *more)],
        cwd=place,
        env=clean_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def pending_approval(place: Path, process: subprocess.Popen[str]) -> str:
    """The id of the approval the solve waits for, from `tiller approvals list`."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        listed = cli(place, "approvals", "list")
        assert listed.returncode == 0, listed.stderr
        found = re.findall(r"^([0-9a-f]{32})\s+pending", listed.stdout, re.M)
        if found:
            return str(found[0])
        assert process.poll() is None, process.communicate()
        time.sleep(0.2)
    raise AssertionError("the solve asked for no approval")


def finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=60)
    return process.returncode, out, err


def test_a_solve_runs_to_done_and_prints_its_final_status_as_json(place: Path) -> None:
    out = tiller(*solve_args(place, "--json"), cwd=place, test_models=True)
    assert out.returncode == 0, out.stderr
    final = json.loads(out.stdout)
    assert final["status"] == "done"
    assert [(g["id"], g["status"]) for g in final["goals"]] == [("report", "done")]
    assert final["goals"][0]["evidence"][0]["met"] is True
    assert (place / "work" / "report.md").read_text() == "Total: 42\n"
    assert "step 1 [write_file]" in out.stderr  # one line per event off a terminal


def test_markdown_is_the_default_output(place: Path) -> None:
    out = tiller(*solve_args(place), cwd=place, test_models=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("# Solve ")
    assert ": done" in out.stdout.splitlines()[0]
    assert "- **Write the report** (`report`): done" in out.stdout


def test_a_solve_waits_for_an_approval_decided_from_another_process(place: Path) -> None:
    process = start_solve(place, "--checkpoints", "checkpoints.toml", "--json")
    approval = pending_approval(place, process)
    assert not (place / "work" / "report.md").exists()  # nothing ran before the decision
    shown = cli(place, "approvals", "show", approval)
    assert shown.returncode == 0, shown.stderr
    assert "before_step" in shown.stdout
    assert "write_file" in shown.stdout
    decided = cli(place, "approvals", "approve", approval, "--comment", "looks right")
    assert decided.returncode == 0, decided.stderr
    assert decided.stdout.startswith(f"Approved {approval}")
    code, out, err = finish(process)
    assert code == 0, err
    assert json.loads(out)["status"] == "done"
    assert f"tiller approvals approve {approval} --data-dir" in err  # how to decide it
    assert (place / "work" / "report.md").read_text() == "Total: 42\n"
    listed = cli(place, "approvals", "list", "--all")
    assert re.search(rf"^{approval}\s+approved", listed.stdout, re.M)


def test_a_rejected_step_stops_the_solve_waiting_for_people(place: Path) -> None:
    process = start_solve(place, "--checkpoints", "checkpoints.toml")
    approval = pending_approval(place, process)
    rejected = cli(place, "approvals", "reject", approval, "--comment", "not yet")
    assert rejected.returncode == 0, rejected.stderr
    assert rejected.stdout.startswith(f"Rejected {approval}")
    code, out, err = finish(process)
    assert code == 4, err  # waiting for people
    assert ": waiting" in out.splitlines()[0]
    assert "## Waiting for you" in out
    assert not (place / "work" / "report.md").exists()
    solve_id = re.search(r"^# Solve ([0-9a-f]{32})", out, re.M)
    assert solve_id is not None
    assert f"tiller solves resume {solve_id[1]}" in err

    listed = cli(place, "solves", "list")
    assert re.search(rf"^{solve_id[1]}\s+waiting\s", listed.stdout, re.M), listed.stdout
    shown = cli(place, "solves", "show", solve_id[1], "--json")
    assert shown.returncode == 0, shown.stderr
    status = json.loads(shown.stdout)
    assert status["status"] == "waiting"
    (follow_up,) = status["follow_ups"]
    pending = cli(place, "approvals", "list")
    assert re.search(rf"^{follow_up['approval_id']}\s+pending", pending.stdout, re.M)
    markdown = cli(place, "solves", "show", solve_id[1])
    assert markdown.stdout.startswith(f"# Solve {solve_id[1]}: waiting")


def test_an_interrupted_solve_resumes_with_a_decision_made_while_it_was_down(
    place: Path,
) -> None:
    process = start_solve(place, "--checkpoints", "checkpoints.toml", "--json")
    approval = pending_approval(place, process)
    process.send_signal(signal.SIGINT)
    code, out, err = finish(process)
    assert code == 130, err
    solve_id = re.search(r"tiller solves resume ([0-9a-f]{32})", err)
    assert solve_id is not None, err
    assert out == ""
    assert cli(place, "approvals", "approve", approval).returncode == 0
    assert not (place / "work" / "report.md").exists()
    # The settings came back with the solve (model, workspace, tools, checkpoints).
    resumed = tiller(
        "solves",
        "resume",
        solve_id[1],
        "--json",
        *store_options(place),
        cwd=place,
        test_models=True,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "done"
    assert (place / "work" / "report.md").read_text() == "Total: 42\n"
    shown = cli(place, "solves", "show", solve_id[1])
    assert ": done" in shown.stdout.splitlines()[0]


def test_deciding_an_unknown_or_decided_approval_is_one_line_and_changes_nothing(
    place: Path,
) -> None:
    unknown = cli(place, "approvals", "approve", "0" * 32)
    assert unknown.returncode == 2
    assert unknown.stderr.startswith("error: no approval has the id")
    assert unknown.stderr.strip().count("\n") == 0, unknown.stderr

    process = start_solve(place, "--checkpoints", "checkpoints.toml", "--json")
    approval = pending_approval(place, process)
    assert cli(place, "approvals", "reject", approval, "--comment", "no").returncode == 0
    finish(process)
    for verb in ("approve", "reject"):
        again = cli(place, "approvals", verb, approval, "--comment", "changed my mind")
        assert again.returncode == 2
        assert again.stderr.startswith(f"error: approval '{approval}' is already rejected")
        assert again.stderr.strip().count("\n") == 0, again.stderr
        assert "Traceback" not in again.stderr
    shown = json.loads(cli(place, "approvals", "show", approval, "--json").stdout)
    assert (shown["status"], shown["comment"]) == ("rejected", "no")


def test_unknown_solves_and_bad_options_are_one_line(place: Path) -> None:
    for args in (["solves", "show", "f" * 32], ["solves", "resume", "f" * 32]):
        out = cli(place, *args)
        assert out.returncode == 2, out.stderr
        assert out.stderr.startswith("error: no solve has the id"), out.stderr
    (place / "bad.toml").write_text('[[checkpoints]]\nevent = "before_lunch"\nmode = "pause"\n')
    out = tiller(*solve_args(place, "--checkpoints", "bad.toml"), cwd=place, test_models=True)
    assert out.returncode == 2
    assert "unknown event 'before_lunch'" in out.stderr
    assert out.stderr.strip().count("\n") == 0, out.stderr
    empty = cli(place, "solves", "list")
    assert empty.returncode == 0
    assert empty.stdout.strip() == "No solves."
    assert cli(place, "approvals", "list").stdout.strip() == "No pending approvals."


def test_help_documents_the_exit_statuses(place: Path) -> None:
    for args in (["solve", "--help"], ["solves", "resume", "--help"]):
        out = tiller(*args, cwd=place)
        assert out.returncode == 0
        text = " ".join(out.stdout.split())
        assert "4 waiting for people" in text
        assert "3 stopped" in text


def test_a_solve_on_the_embedded_model_runs_to_a_documented_status(place: Path) -> None:
    """The 135M model plans poorly: only that the whole solve runs is checked."""
    (place / "work" / "notes.txt").write_text("buy milk\n")
    out = subprocess.run(
        [
            *tiller_command(),
            "solve",
            "Write a file hello.txt that says hello",
            "--workspace",
            str(place / "work"),
            "--max-steps",
            "3",
            "--approval-timeout",
            "2",
            "--json",
            *store_options(place),
        ],
        cwd=place,
        env=clean_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode in (0, 1, 3, 4), out.stderr
    final = json.loads(out.stdout)
    assert final["status"] in ("done", "failed", "stopped", "waiting")
    assert "Traceback" not in out.stderr


def test_a_solve_another_process_runs_cannot_be_resumed_here(place: Path) -> None:
    process = start_solve(place, "--checkpoints", "checkpoints.toml", "--json")
    approval = pending_approval(place, process)
    solve_id = cli(place, "approvals", "show", approval, "--json")
    busy = cli(place, "solves", "resume", json.loads(solve_id.stdout)["solve_id"])
    assert busy.returncode == 2
    assert "is being run by" in busy.stderr
    assert busy.stderr.strip().count("\n") == 0, busy.stderr
    assert cli(place, "approvals", "approve", approval).returncode == 0
    code, out, err = finish(process)
    assert code == 0, err
    assert json.loads(out)["status"] == "done"


def test_an_unknown_model_or_tool_is_one_line_before_anything_is_stored(place: Path) -> None:
    for args in (("-m", "local:smolm2"), ("--tools", "read_file,teleport")):
        out = tiller("solve", OBJECTIVE, *args, *store_options(place), cwd=place, test_models=True)
        assert out.returncode == 2, out.stderr
        assert out.stderr.startswith("error: ")
        assert out.stderr.strip().count("\n") == 0, out.stderr
    assert cli(place, "solves", "list").stdout.strip() == "No solves."
