"""`tiller solve` in a real terminal (tmux): the live goal tree, and approvals asked inline."""

from __future__ import annotations

from pathlib import Path

from tests.cli.cli_process import tiller
from tests.cli.test_solve_command import APPROVE_BEFORE_STEP
from tests.cli.tmux_terminal import needs_tmux, terminal

pytestmark = needs_tmux


def solve_in_terminal(folder: Path) -> list[str]:
    (folder / "work").mkdir()
    (folder / "checkpoints.toml").write_text(APPROVE_BEFORE_STEP)
    return [
        "solve",
        "Write the quarterly report",
        "-m",
        "test:solver_oracle",
        "--workspace",
        "work",
        "--checkpoints",
        "checkpoints.toml",
        "--data-dir",
        "state",
    ]


def test_an_approval_is_asked_inline_with_its_details_then_the_tree_shows_done(
    tmp_path: Path,
) -> None:
    with terminal(solve_in_terminal(tmp_path), tmp_path, test_models=True) as term:
        term.wait_for("approve, reject or show details? [a/r/d]")
        screen = term.screen()
        assert "checkpoint before_step 'look first'" in screen
        assert "step 1 [write_file]" in screen
        term.type_line("d")
        term.wait_for('"key":')  # the whole context, as JSON
        term.type_line("a")
        term.wait_for("comment (optional):")
        term.type_line("fine by me")
        assert term.wait_for_exit() == 0
        screen = term.screen()
    assert "✓ Write the report (report, done)" in screen  # the live tree's last state
    assert "comment (optional):" in screen  # the question stays above the tree
    assert (tmp_path / "work" / "report.md").read_text() == "Total: 42\n"
    listed = tiller("approvals", "list", "--all", "--data-dir", "state", cwd=tmp_path)
    assert "approved" in listed.stdout


def test_a_rejection_inline_leaves_the_solve_waiting_for_people(tmp_path: Path) -> None:
    with terminal(solve_in_terminal(tmp_path), tmp_path, test_models=True) as term:
        term.wait_for("approve, reject or show details? [a/r/d]")
        term.type_line("r")
        term.wait_for("comment (optional):")
        term.type_line("")
        assert term.wait_for_exit() == 4
        screen = term.screen()
    assert "Waiting for you" in screen
    assert not (tmp_path / "work" / "report.md").exists()
