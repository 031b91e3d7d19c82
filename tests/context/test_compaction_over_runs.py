"""Compaction over whole runs: the view sent turn after turn is stable and keeps the prompt.

Single calls of the compaction functions are covered elsewhere; these run the real
loop over many turns with a tight budget and look at every request it sent.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from tests.helpers import config
from tiller import tool
from tiller.context import ContextBudget
from tiller.context.compaction_levels import level1_truncate_tool_outputs
from tiller.events import AgentEnd
from tiller.loop import agent_loop
from tiller.loop.options import ContextOptions
from tiller.messages import Message, ToolResultMessage, UserMessage
from tiller.models import Reply, ScriptedModel, call


def _outputs(lines: list[int]) -> dict[int, str]:
    return {i: "\n".join(f"row {i}.{j} " + "x" * 20 for j in range(n)) for i, n in enumerate(lines)}


# 25 random runs: tool outputs of 1-400 lines, a tight budget, a small line cap.
RUNS = {
    "lines": st.lists(st.integers(1, 400), min_size=2, max_size=8),
    "max_context_tokens": st.integers(1_500, 20_000),
    "max_lines": st.integers(1, 60),
}
FEW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


async def _run(lines: list[int], max_context_tokens: int, max_lines: int) -> ScriptedModel:
    outputs = _outputs(lines)

    @tool
    async def dump(n: int) -> str:
        """Print a long listing."""
        return outputs[n]

    steps: list[Reply | str] = [Reply(calls=[call("dump", n=i)]) for i in range(len(lines))]
    steps.append("done")
    model = ScriptedModel(steps)
    ctx = ContextBudget(
        max_context_tokens=max_context_tokens, tool_output_max_lines=max_lines, keep_recent=4
    )
    rec: list[AgentEnd] = []
    await agent_loop(
        "list everything",
        [],
        config(model, [dump], context=ContextOptions(budget=ctx)),
        lambda e: rec.append(e) if isinstance(e, AgentEnd) else None,
    )
    assert rec[0].stats.stop_reason == "stop"
    return model


@FEW
@given(**RUNS)
async def test_a_tool_output_reads_the_same_in_every_request_once_truncated(
    lines: list[int], max_context_tokens: int, max_lines: int
) -> None:
    model = await _run(lines, max_context_tokens, max_lines)
    seen: dict[str, str] = {}
    for request in model.requests:
        for message in request.messages:
            if isinstance(message, ToolResultMessage) and "lines truncated" in message.text:
                first = seen.setdefault(message.tool_call_id, message.text)
                assert message.text == first, "a truncation marker was rewritten"


@FEW
@given(**RUNS)
async def test_compacting_a_view_that_was_sent_changes_nothing(
    lines: list[int], max_context_tokens: int, max_lines: int
) -> None:
    model = await _run(lines, max_context_tokens, max_lines)
    for request in model.requests:
        sent: list[Message] = list(request.messages)
        once = level1_truncate_tool_outputs(sent, max_lines)
        twice = level1_truncate_tool_outputs(once, max_lines)
        assert [m.text for m in twice] == [m.text for m in once]


async def test_the_prompt_stays_in_every_request_of_a_long_tool_run() -> None:
    model = await _run([300] * 12, 2_000, 40)
    for request in model.requests:
        users = [m for m in request.messages if isinstance(m, UserMessage)]
        assert any(m.text == "list everything" for m in users)
