"""`tiller chat` in a real terminal (tmux): typing, streaming, Ctrl-C, /steer, /save, /load."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.tmux_terminal import needs_tmux, terminal

pytestmark = needs_tmux

GATE_TOOL = '''
import asyncio
from pathlib import Path

from tiller import tool


@tool(effect="read")
async def wait_for_gate() -> str:
    """Wait until the test opens the gate."""
    gate = Path("gate")
    for _ in range(1200):
        if gate.exists():
            return "gate open"
        await asyncio.sleep(0.05)
    return "gate timeout"
'''


def script(folder: Path, steps: list[object]) -> str:
    (folder / "chat.json").write_text(json.dumps(steps))
    return "scripted:chat.json"


def test_a_conversation_with_save_load_cost_and_quit(tmp_path: Path) -> None:
    spec = script(tmp_path, ["The first answer.", "The **second** answer."])
    with terminal(["chat", "-m", spec], tmp_path) as term:
        term.wait_for_prompt()
        term.type_line("hello there")
        term.wait_for("The first answer.")
        term.wait_for_prompt()  # the run has ended
        term.type_line("/save one.json")
        term.wait_for("saved 2 messages to one.json")
        term.type_line("and again")
        term.wait_for("The second answer.")  # the Markdown, rendered: no asterisks
        assert "**second**" not in term.wait_for_prompt()
        term.type_line("/load one.json")
        term.wait_for("loaded 2 messages from one.json")
        term.type_line("/save two.json")
        term.wait_for("saved 2 messages to two.json")
        term.type_line("/cost")
        term.wait_for("0 in / 0 out tokens (0 total) over 2 runs · cost n/a")
        term.type_line("/quit")
        assert term.wait_for_exit() == 0
        screen = term.screen()
    saved = json.loads((tmp_path / "one.json").read_text())
    assert [m["role"] for m in saved["messages"]] == ["user", "assistant"]
    assert saved == json.loads((tmp_path / "two.json").read_text())
    assert "Traceback" not in screen


def test_ctrl_c_stops_a_slow_answer_and_the_session_goes_on(tmp_path: Path) -> None:
    slow = {"text": "tick " * 2000, "chunk_size": 5, "delay_s": 0.05}
    spec = script(tmp_path, [slow, "Back again."])
    with terminal(["chat", "-m", spec], tmp_path) as term:
        term.wait_for_prompt()
        term.type_line("talk for a long time")
        term.wait_for("tick tick")
        term.send("C-c")
        term.wait_for("· aborted")
        term.type_line("are you still there?")
        term.wait_for("Back again.")
        term.wait_for_prompt()
        assert term.exit_status() is None  # Ctrl-C stopped the answer, not the program
        term.type_line("/save after.json")
        term.wait_for("saved")
        term.wait_for_prompt()
        term.send("C-c")  # at an empty prompt: leave
        assert term.wait_for_exit() == 0
    messages = json.loads((tmp_path / "after.json").read_text())["messages"]
    assert messages[1]["stop_reason"] == "aborted"
    assert messages[2]["content"][0]["text"] == "are you still there?"


def test_steer_reaches_the_model_while_a_run_is_going(tmp_path: Path) -> None:
    (tmp_path / "gatetools.py").write_text(GATE_TOOL)
    spec = script(
        tmp_path,
        [
            {"calls": [{"name": "wait_for_gate", "arguments": {}}]},
            {"text": "Steered: going left.", "chunk_size": 4},
        ],
    )
    with terminal(["chat", "-m", spec, "--tool", "gatetools:wait_for_gate"], tmp_path) as term:
        term.wait_for_prompt()
        term.type_line("which way?")
        term.wait_for("→ wait_for_gate")  # the tool is running: the run is going
        term.type_line("/steer go left")
        term.wait_for("(steering: the model reads it before its next step)")
        (tmp_path / "gate").touch()
        term.wait_for("Steered: going left.")
        term.wait_for("↳ you: go left")
        assert "came after the answer ended" not in term.wait_for_prompt()
        term.type_line("/save steered.json")
        term.wait_for("saved")
        term.wait_for_prompt()
        term.send("C-d")
        assert term.wait_for_exit() == 0
    messages = json.loads((tmp_path / "steered.json").read_text())["messages"]
    assert [m["role"] for m in messages] == [
        "user",
        "assistant",
        "tool_result",
        "user",
        "assistant",
    ]
    assert messages[3]["content"][0]["text"] == "go left"


def test_ctrl_c_clears_a_typed_line_before_leaving(tmp_path: Path) -> None:
    spec = script(tmp_path, ["Only answer."])
    with terminal(["chat", "-m", spec], tmp_path) as term:
        term.wait_for_prompt()
        term.send("-l", "half a thought")
        term.wait_for("half a thought")
        term.send("C-c")  # clears the line, stays
        term.wait_for(lambda s: s.count("you›") == 2)
        assert term.exit_status() is None
        term.type_line("hello")
        term.wait_for("Only answer.")
        term.wait_for_prompt()
        term.send("C-c")  # empty prompt: leave
        assert term.wait_for_exit() == 0


def test_an_error_at_start_is_one_line(tmp_path: Path) -> None:
    with terminal(["chat", "-m", "warp:9"], tmp_path) as term:
        assert term.wait_for_exit() == 2
        screen = term.screen()
    lines = [line for line in screen.splitlines() if line.strip() and "Pane is dead" not in line]
    assert len(lines) == 1
    assert lines[0].startswith("error: unknown model provider 'warp'")
