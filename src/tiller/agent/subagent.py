"""`SubAgentTool`: a tool that hands a task to a child agent and returns its answer.

    researcher = SubAgentTool(
        "research",
        "Look something up and report back in a paragraph.",
        model="anthropic:claude-haiku-4-5",
        tools=[web_search],
        system_prompt="You research one question and answer it briefly.",
        execution=Execution(limits=Limits(max_turns=8)),
    )
    agent = Agent("anthropic:claude-sonnet-4-5", tools=[researcher])

Each call runs a fresh child loop (its own model, tools, prompt and options) on
the `task` argument, with no history of earlier calls. The child runs under the
governance of the run that called it, narrowed by its own `governance` if given
(`Governance.narrowed_by`): a parent's tool policy, hooks, input filters and dry
run reach every sub-agent below it, and a sub-agent can add rules but never lift
one. The child's events carry its own `loop_id` and the parent's as
`parent_loop_id`, and reach the parent's subscribers as they happen; the
parent's `tool_execution_end` names the child in `child_loop_id`. The result is
the child's final text. A child stopped early (a limit, a detected loop, a model
failure) returns all the text it wrote plus the stop marker, flagged as an
error. Cancelling the parent cancels the child.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from tiller.errors import ToolError
from tiller.events import AgentEnd, AgentEvent, RunStats
from tiller.loop.config import LoopConfig, loop_config
from tiller.loop.options import ContextOptions, Execution, Governance, governing
from tiller.loop.run import agent_loop
from tiller.messages import AssistantMessage, ExtensionMessage, Message, TextContent, ToolResult
from tiller.models.base import Model, ModelSettings
from tiller.tools.base import Tool, ToolContext

NO_ANSWER_TEXT = "(the sub-agent finished without writing an answer)"

TASK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "task": {
            "type": "string",
            "description": "The complete task for the sub-agent: it sees nothing else, so "
            "include every detail it needs.",
        }
    },
    "required": ["task"],
    "additionalProperties": False,
}


class SubAgentTool:
    """A `Tool` whose calls are runs of a child agent on the `task` argument."""

    def __init__(
        self,
        name: str,
        description: str,
        model: Model | str,
        *,
        tools: Sequence[Tool | Callable[..., Any]] = (),
        system_prompt: str | None = None,
        settings: ModelSettings | None = None,
        governance: Governance | None = None,
        context: ContextOptions | None = None,
        execution: Execution | None = None,
        timeout_s: float | None = None,
    ) -> None:
        self._name = name
        self._description = description
        # The child's own options; its governance is narrowed by its caller's per call.
        self.options = loop_config(
            model,
            tools=tools,
            system_prompt=system_prompt,
            settings=settings,
            governance=governance,
            context=context,
            execution=execution,
        )
        self._timeout_s = timeout_s

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return self._description

    @property
    def parameters(self) -> dict[str, Any]:
        return TASK_SCHEMA

    @property
    def timeout_s(self) -> float | None:
        return self._timeout_s

    def __repr__(self) -> str:
        return f"SubAgentTool({self._name!r}, model={self.options.model.name!r})"

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        task = arguments.get("task")
        if not isinstance(task, str) or not task.strip():
            raise ToolError(
                f"Tool {self._name!r} needs a non-empty string argument 'task' describing "
                "the work to hand over; call it again with one."
            )
        child_id = uuid.uuid4().hex[:16]
        finished: list[RunStats] = []

        def sink(event: AgentEvent) -> None:
            if isinstance(event, AgentEnd) and event.loop_id == child_id:
                finished.append(event.stats)
            ctx.forward_event(event)

        cancel = ctx.cancel
        config = self._config(child_id, ctx.loop_id)
        # The child runs as its own task, shielded, so that when this call is cancelled the
        # child is stopped through its token and still ends cleanly (turn_end, agent_end)
        # before the cancellation goes on.
        child = asyncio.ensure_future(agent_loop(task, (), config, sink, cancel))
        try:
            messages = await asyncio.shield(child)
        except asyncio.CancelledError:
            cancel.cancel("aborted")
            await asyncio.wait([child])
            raise
        stats = finished[-1] if finished else RunStats()
        return _result(messages, stats, child_id)

    def _config(self, loop_id: str, parent_loop_id: str | None) -> LoopConfig:
        own = self.options.governance
        parent = governing()
        return replace(
            self.options,
            governance=own if parent is None else parent.narrowed_by(own),
            loop_id=loop_id,
            parent_loop_id=parent_loop_id,
        )


def _result(messages: list[Message], stats: RunStats, child_id: str) -> ToolResult:
    texts = [m.text for m in messages if isinstance(m, AssistantMessage) and m.text]
    last = next((m for m in reversed(messages) if isinstance(m, AssistantMessage)), None)
    marker = next(
        (
            m
            for m in reversed(messages)
            if isinstance(m, ExtensionMessage) and m.kind == "run_stopped"
        ),
        None,
    )
    details = {
        "loop_id": child_id,
        "turns": stats.turns,
        "tool_calls": stats.tool_calls,
        "stop_reason": stats.stop_reason,
        "stopped_by": stats.stopped_by,
        "input_tokens": stats.usage.input_tokens,
        "output_tokens": stats.usage.output_tokens,
        "cost_usd": stats.usage.cost_usd,
    }
    if marker is not None:
        stop_text = marker.text
    elif stats.stop_reason in ("error", "aborted"):
        why = (last.error_message if last is not None else None) or stats.error or stats.stop_reason
        stop_text = f"[Sub-agent stopped: {why}]"
    else:
        answer = last.text if last is not None and last.text else NO_ANSWER_TEXT
        return ToolResult([TextContent(answer)], details, child_loop_id=child_id)
    # Stopped early: everything it wrote is the partial answer, then why it stopped.
    text = "\n\n".join([*texts, stop_text])
    return ToolResult([TextContent(text)], details, child_loop_id=child_id, is_error=True)
