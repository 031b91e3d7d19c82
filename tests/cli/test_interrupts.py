"""Ctrl-C while a synchronous tool runs: the CLI stops at once, without a traceback.

A synchronous tool runs in a worker thread that Python cannot stop; the CLI stops
waiting for it, says so, and leaves without joining it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.tmux_terminal import needs_tmux, terminal

pytestmark = needs_tmux

BLOCKING_TOOL = '''
import time

from tiller import tool


@tool(effect="read")
def block() -> str:
    """Wait a long time."""
    time.sleep(300)
    return "done"
'''
# Far less than the tool's 300 s, and far more than leaving should ever take.
BOUND_S = 60.0


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "slowtools.py").write_text(BLOCKING_TOOL)
    return tmp_path


def test_ctrl_c_during_a_sync_tool_ends_tiller_run(workdir: Path) -> None:
    args = ["run", "go", "-m", "test:slow_sync_tool", "--tool", "slowtools:block"]
    with terminal(args, workdir, test_models=True) as term:
        term.wait_for("→ block(")
        term.send("C-c")
        assert term.wait_for_exit(timeout=BOUND_S) == 130
        screen = term.screen()
    assert "interrupted" in screen
    assert "block was still running (a synchronous tool cannot be interrupted)" in screen
    assert "Traceback" not in screen


def test_ctrl_c_during_a_sync_tool_keeps_the_chat_and_quitting_does_not_wait(
    workdir: Path,
) -> None:
    args = ["chat", "-m", "test:slow_sync_tool", "--tool", "slowtools:block"]
    with terminal(args, workdir, test_models=True) as term:
        term.wait_for_prompt()
        term.type_line("go")
        term.wait_for("→ block(")
        term.send("C-c")
        term.wait_for("· aborted")
        term.wait_for("block is still running")
        term.wait_for_prompt()
        term.type_line("/quit")
        assert term.wait_for_exit(timeout=BOUND_S) == 0
        screen = term.screen()
    assert "tiller left without waiting for it" in screen
    assert "Traceback" not in screen


def test_three_ctrl_c_never_show_a_threading_traceback(workdir: Path) -> None:
    args = ["run", "go", "-m", "test:slow_sync_tool", "--tool", "slowtools:block"]
    with terminal(args, workdir, test_models=True) as term:
        term.wait_for("→ block(")
        term.send("C-c")
        term.send("C-c")
        term.send("C-c")
        assert term.wait_for_exit(timeout=BOUND_S) == 130
        screen = term.screen()
    assert "Traceback" not in screen
    assert "threading" not in screen
