"""`SubAgentTool`: a tool that hands a task to a child agent and returns its answer.

    researcher = SubAgentTool(
        "research",
        "Look something up and report back in a paragraph.",
        model="anthropic:claude-haiku-4-5",
        tools=[web_search],
        system_prompt="You research one question and answer it briefly.",
        limits=Limits(max_turns=8),
    )
    agent = Agent("anthropic:claude-sonnet-4-5", tools=[researcher])

Each call runs a fresh child loop (its own model, tools, prompt and limits) on the
`task` argument, with no history of earlier calls. The child's events carry its
own `loop_id` and the parent's as `parent_loop_id`, and reach the parent's
subscribers as they happen; the parent's `tool_execution_end` names the child in
`child_loop_id`. The result is the child's final text. A child stopped early (a
limit, a detected loop, a model failure) returns all the text it wrote plus the
stop marker, flagged as an error. Cancelling the parent cancels the child.

The child loop lives in a higher layer than tools, so it is imported on first call.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tiller.errors import ToolError
from tiller.events import AgentEnd, AgentEvent, RunStats
from tiller.messages import AssistantMessage, ExtensionMessage, Message, TextContent, ToolResult
from tiller.tools.base import Tool, ToolContext
from tiller.tools.function_tool import FunctionTool

if TYPE_CHECKING:
    from tiller.context.compaction_levels import ContextConfig
    from tiller.loop.config import LoopConfig
    from tiller.loop.limits import Limits
    from tiller.loop.repetition import RepetitionPolicy
    from tiller.loop.strategies import ExecutionStrategy
    from tiller.models.base import Model, ModelSettings
    from tiller.models.retry import RetryPolicy

_DEFAULT = object()  # "use the loop's default" for the repetition policy (None turns it off)
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
        strategy: ExecutionStrategy | None = None,
        limits: Limits | None = None,
        retry: RetryPolicy | None = None,
        repetition: RepetitionPolicy | object | None = _DEFAULT,
        context: ContextConfig | None = None,
        timeout_s: float | None = None,
    ) -> None:
        from tiller.models.registry import resolve_model

        self._name = name
        self._description = description
        self.model = resolve_model(model)
        self.tools: list[Tool] = [_as_tool(t) for t in tools]
        self.system_prompt = system_prompt
        self.settings = settings
        self.strategy = strategy
        self.limits = limits
        self.retry = retry
        self.repetition = repetition
        self.context = context
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
        return f"SubAgentTool({self._name!r}, model={self.model.name!r})"

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        from tiller.loop.run import agent_loop

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
        from tiller.loop.config import LoopConfig

        config = LoopConfig(
            model=self.model,
            tools=self.tools,
            system_prompt=self.system_prompt,
            context=self.context,
            loop_id=loop_id,
            parent_loop_id=parent_loop_id,
        )
        if self.settings is not None:
            config.settings = self.settings
        if self.strategy is not None:
            config.strategy = self.strategy
        if self.limits is not None:
            config.limits = self.limits
        if self.retry is not None:
            config.retry = self.retry
        if self.repetition is not _DEFAULT:
            config.repetition = self.repetition  # type: ignore[assignment]
        return config


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


def _as_tool(value: Tool | Callable[..., Any]) -> Tool:
    if callable(getattr(value, "execute", None)):
        return value  # type: ignore[return-value]
    return FunctionTool(value)  # type: ignore[arg-type]
