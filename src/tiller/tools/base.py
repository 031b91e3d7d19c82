"""The `Tool` protocol, `ToolContext`, and turning a tool's return value into a result."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

from tiller.cancellation import CancelToken
from tiller.errors import ConfigError
from tiller.events import AgentEvent
from tiller.messages import ImageContent, TextContent, ToolResult


class ToolReporter(Protocol):
    """Where a running tool's partial results and progress go (the loop provides it)."""

    @property
    def loop_id(self) -> str:
        """The id of the loop running the tool."""
        ...

    def update(self, ctx: ToolContext, partial: ToolResult) -> None: ...

    def progress(self, ctx: ToolContext, text: str) -> None: ...

    def forward(self, event: AgentEvent) -> None:
        """Pass an event of a nested loop to the run's subscribers, unchanged."""
        ...


class ToolContext:
    """What a running tool may know and do besides its arguments.

    `cancel` is set when the run is aborted or the tool times out; long work
    should check it. `on_update` streams a partial result (a
    `tool_execution_update` event); `on_progress` reports a line of progress.
    Both are safe to call from a worker thread.
    """

    __slots__ = ("_cancel", "_parent", "_reporter", "tool_call_id", "tool_name")

    def __init__(
        self,
        tool_call_id: str,
        tool_name: str,
        parent_cancel: CancelToken,
        reporter: ToolReporter | None = None,
    ) -> None:
        self.tool_call_id = tool_call_id
        self.tool_name = tool_name
        self._parent = parent_cancel
        self._cancel: CancelToken | None = None
        self._reporter = reporter

    @property
    def cancel(self) -> CancelToken:
        """This call's cancel token (a child of the run's), made on first use."""
        if self._cancel is None:
            self._cancel = self._parent.child()
        return self._cancel

    def on_update(self, partial: ToolResult | str) -> None:
        if self._reporter is not None:
            result = ToolResult([TextContent(partial)]) if isinstance(partial, str) else partial
            self._reporter.update(self, result)

    def on_progress(self, text: str) -> None:
        if self._reporter is not None:
            self._reporter.progress(self, text)

    @property
    def loop_id(self) -> str | None:
        """The id of the loop running this call (None outside a loop): a sub-agent's parent."""
        return self._reporter.loop_id if self._reporter is not None else None

    def forward_event(self, event: AgentEvent) -> None:
        """Pass an event of a nested loop (a sub-agent's) to the run's subscribers.

        The event keeps its own `loop_id` and `parent_loop_id`, so UIs can nest it.
        """
        if self._reporter is not None:
            self._reporter.forward(event)

    def release(self) -> None:
        """Called by the loop when the call is over: stop following the run's token."""
        if self._cancel is not None:
            self._cancel.detach()


@runtime_checkable
class Tool(Protocol):
    """Anything the loop can offer to a model and execute."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def parameters(self) -> dict[str, Any]:
        """JSON schema of the arguments object."""
        ...

    @property
    def timeout_s(self) -> float | None: ...

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Run the tool. Raise (e.g. `ToolError`) to fail the call with a message."""
        ...


def to_tool_result(value: Any) -> ToolResult:
    """Normalise what a tool returned: text, images, content blocks, or JSON-able data."""
    kind = type(value)
    if kind is str:
        return ToolResult([TextContent(value)])
    if kind is int or kind is float:
        return ToolResult([TextContent(str(value))])
    if isinstance(value, ToolResult):
        return value
    if isinstance(value, str):
        return ToolResult([TextContent(value)])
    if isinstance(value, TextContent | ImageContent):
        return ToolResult([value])
    if (
        isinstance(value, list)
        and value
        and all(isinstance(v, TextContent | ImageContent) for v in value)
    ):
        return ToolResult(list(value))
    if isinstance(value, bool | int | float):
        return ToolResult(
            [TextContent(str(value).lower() if isinstance(value, bool) else str(value))]
        )
    if value is None:
        return ToolResult([TextContent("(no output)")])
    from pydantic_core import to_json  # lazily: keeps `import tiller` light

    return ToolResult([TextContent(to_json(value, fallback=str).decode())])


def check_unique_names(tools: Iterable[Tool]) -> None:
    """Refuse two tools with one name: the model could reach only one of them, silently."""
    seen: set[str] = set()
    for tool in tools:
        if tool.name in seen:
            raise ConfigError(
                f"two tools are named {tool.name!r}; the model could call only one of them. "
                "Rename one (a FunctionTool takes name=...) or leave one out"
            )
        seen.add(tool.name)
