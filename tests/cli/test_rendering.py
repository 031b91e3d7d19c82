"""`TerminalRenderer`: plain output for pipes; Markdown and a spinner for terminals."""

from __future__ import annotations

import io
import json
import re
import time
from pathlib import Path

from rich.console import Console

from tests.cli.tmux_terminal import needs_tmux, terminal
from tiller import Agent, tool
from tiller.cli.rendering import TerminalRenderer, printable, run_summary
from tiller.events import (
    AgentEnd,
    AgentStart,
    CircuitState,
    CircuitStateChanged,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ModelLoading,
    RunStats,
    TextDelta,
    ToolExecutionEnd,
    ToolExecutionStart,
    TurnStart,
)
from tiller.messages import AssistantMessage, TextContent, ToolResult, Usage, UserMessage
from tiller.models import Reply, ScriptedModel, call


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def consoles(terminal: bool) -> tuple[Console, Console, io.StringIO, io.StringIO]:
    out_file, err_file = io.StringIO(), io.StringIO()
    out = Console(file=out_file, force_terminal=terminal, width=60, height=30)
    err = Console(file=err_file, force_terminal=terminal, width=60, height=30)
    return out, err, out_file, err_file


async def test_plain_output_when_not_a_terminal() -> None:
    out, err, out_file, err_file = consoles(terminal=False)
    model = ScriptedModel(
        [
            Reply("Let me add.", calls=[call("add", a=2, b=3)], chunk_size=3),
            Reply("The **sum** is 5.", chunk_size=4, usage=Usage(12, 6, cost_usd=0.0012)),
        ]
    )
    agent = Agent(model, tools=[add])
    renderer = TerminalRenderer(out, err)
    assert renderer.spinner is None
    assert renderer.markdown is False
    agent.subscribe(renderer)
    await agent.run("2+3?")
    assert out_file.getvalue() == "Let me add.\nThe **sum** is 5.\n"
    lines = err_file.getvalue().splitlines()
    assert lines[0] == '→ add({"a": 2, "b": 3})'
    assert lines[1].startswith("  ✓ add ")
    assert lines[1].endswith(" ms 5")
    assert lines[2].startswith("2 turns · 12 in / 6 out tokens · $0.0012 · ")
    assert lines[2].endswith(" · stop")


async def test_a_terminal_gets_the_answer_as_markdown() -> None:
    out, err, out_file, _ = consoles(terminal=True)
    agent = Agent(ScriptedModel([Reply("The **sum** is 5.", chunk_size=4)]))
    agent.subscribe(TerminalRenderer(out, err, spinner=False))
    await agent.run("2+3?")
    output = out_file.getvalue()
    streamed, _, rendered = output.partition("\r\x1b[2K")  # back to the row's start, blank it
    assert streamed == "The **sum** is 5."
    assert "**" not in rendered
    assert "\x1b[1m" in rendered  # bold


def test_the_spinner_shows_while_waiting_and_hides_for_text() -> None:
    out, err, _, err_file = consoles(terminal=True)
    renderer = TerminalRenderer(out, err, markdown=False)
    spinner = renderer.spinner
    assert spinner is not None
    try:
        renderer(AgentStart())
        renderer(TurnStart(turn=1))
        assert spinner.active
        renderer(ModelLoading(provider="local", model="smollm2"))
        assert spinner.active
        assert "loading smollm2…" in str(spinner._spinner.text)
        renderer(MessageUpdate(delta=TextDelta(0, "Hi")))
        assert not spinner.active
        renderer(ToolExecutionStart(tool_call_id="1", tool_name="add", arguments={}))
        assert spinner.active
        renderer(
            ToolExecutionEnd(
                tool_call_id="1", tool_name="add", result=ToolResult.of("5"), is_error=False
            )
        )
        assert not spinner.active
        renderer(TurnStart(turn=2))
        assert spinner.active
        renderer(AgentEnd(messages=[], stats=RunStats(turns=2)))
        assert not spinner.active
    finally:
        spinner.hide()
    assert "2 turns" in err_file.getvalue()


def test_steering_messages_are_shown_but_not_the_prompt() -> None:
    out, err, _, err_file = consoles(terminal=False)
    renderer = TerminalRenderer(out, err)
    renderer(AgentStart())
    renderer(MessageStart(message=UserMessage.of("the prompt")))
    renderer(TurnStart(turn=1))
    renderer(MessageStart(message=UserMessage.of("go left")))
    assert err_file.getvalue() == "↳ you: go left\n"


def test_control_characters_from_the_model_do_not_reach_the_terminal() -> None:
    assert printable("a\x1b[2Jb\x07c\rd\x9be\n\tf") == "a[2Jbcde\n\tf"
    out, err, out_file, _ = consoles(terminal=False)
    renderer = TerminalRenderer(out, err)
    renderer(MessageStart(message=AssistantMessage([], "stop")))
    renderer(MessageUpdate(delta=TextDelta(0, "\x1b]0;pwned\x07ok")))
    renderer(MessageEnd(message=AssistantMessage([TextContent("\x1b]0;pwned\x07ok")], "stop")))
    assert out_file.getvalue() == "]0;pwnedok"


def test_run_summary() -> None:
    stats = RunStats(usage=Usage(3, 4), turns=1, duration_ms=1500, stop_reason="aborted")
    assert run_summary(stats) == "1 turn · 3 in / 4 out tokens · n/a · 1.50s · aborted"


def test_run_summary_names_the_models_whose_price_is_unknown() -> None:
    stats = RunStats(
        usage=Usage(3, 4, cost_usd=None),
        turns=2,
        duration_ms=1500,
        unpriced_models=["openai:my-model"],
    )
    summary = run_summary(stats)
    assert summary == (
        "2 turns · 3 in / 4 out tokens · cost unknown for model openai:my-model · 1.50s · stop"
    )


@needs_tmux
def test_tiller_run_in_a_terminal_renders_markdown_at_the_end(tmp_path: Path) -> None:
    answer = "# Result\n\nThe **sum** is `5`.\n\n- checked\n- twice"
    (tmp_path / "md.json").write_text(json.dumps([{"text": answer, "chunk_size": 3}]))
    with terminal(["run", "add them", "-m", "scripted:md.json"], tmp_path) as term:
        assert term.wait_for_exit() == 0
        screen = term.wait_for("1 turn")
    assert "The sum is 5." in screen
    assert "• checked" in screen
    assert "**" not in screen
    assert "# Result" not in screen
    assert screen.index("Result") < screen.index("1 turn")


def test_circuit_breaker_changes_are_one_line_notes() -> None:
    err_file = io.StringIO()
    renderer = TerminalRenderer(Console(file=io.StringIO()), Console(file=err_file, width=200))

    def change(
        old: CircuitState, new: CircuitState, retry_at: float | None = None
    ) -> CircuitStateChanged:
        return CircuitStateChanged(
            provider="openai",
            endpoint="http://127.0.0.1:9/v1",
            old_state=old,
            new_state=new,
            reason="5 failures in a row",
            retry_at=retry_at,
        )

    renderer(change("closed", "open"))
    renderer(change("open", "half_open"))
    renderer(change("half_open", "closed"))
    renderer(change("closed", "open", retry_at=time.time() + 30))
    lines = err_file.getvalue().splitlines()
    assert lines[:3] == [
        "circuit open: openai at http://127.0.0.1:9/v1 is failing; calls to it fail fast",
        "circuit half-open: trying openai at http://127.0.0.1:9/v1 again",
        "circuit closed: openai at http://127.0.0.1:9/v1 answers again",
    ]
    assert re.fullmatch(r"circuit open: .* fail fast until \d\d:\d\d:\d\d", lines[3])


async def test_a_sub_agents_work_shows_as_indented_tool_calls_not_as_the_answer() -> None:
    from tiller import SubAgentTool

    out, err, out_file, err_file = consoles(terminal=False)
    child = ScriptedModel([Reply("child thinking", calls=[call("add", a=1, b=1)]), "child: 2"])
    helper = SubAgentTool("helper", "Delegate a task.", child, tools=[add])
    parent = ScriptedModel([Reply(calls=[call("helper", task="add 1 and 1")]), "It is 2."])
    agent = Agent(parent, tools=[helper])
    agent.subscribe(TerminalRenderer(out, err))
    await agent.run("go")
    assert out_file.getvalue() == "It is 2.\n"  # the child's text is not printed as an answer
    lines = err_file.getvalue().splitlines()
    assert lines[0].startswith("→ helper(")
    assert lines[1].startswith("    ↳ add(")
    assert lines[2].lstrip().startswith("✓ add")
    assert lines[3].startswith("  ✓ helper ")
    assert len([line for line in lines if " turns · " in line or " turn · " in line]) == 1


@needs_tmux
def test_a_terminal_loses_a_failed_attempts_text_when_the_model_is_asked_again(
    tmp_path: Path,
) -> None:
    with terminal(
        ["run", "hello", "-m", "test:retried_stream"], tmp_path, test_models=True
    ) as term:
        assert term.wait_for_exit() == 0
        screen = term.wait_for("1 turn")
    assert "The real answer." in screen
    assert "broken fragment" not in screen
    assert screen.count("retry ") == 4
