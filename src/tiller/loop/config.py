"""Everything a loop run needs besides the messages."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from tiller.events import AgentEvent
from tiller.loop.options import ContextOptions, Execution, Governance
from tiller.messages import Message
from tiller.models.base import Model, ModelSettings
from tiller.models.registry import resolve_model
from tiller.tools.base import Tool, check_unique_names
from tiller.tools.function_tool import as_tool

# Called with each event of a run. A sink may also have a `listening()` method: while
# it returns something false the loop skips building the events no one would see
# (all but `agent_end`, and the rare ones that say why a run stopped).
EventSink: TypeAlias = Callable[[AgentEvent], None]
MessageSource: TypeAlias = Callable[[], Sequence[Message]]


@dataclass(slots=True, frozen=True)
class LoopConfig:
    """Configuration of one loop run: the model, its tools and prompt, and the run options.

    `governance`, `context` and `execution` are the option groups of
    `tiller.loop.options`. `get_steering_messages` is polled after tool calls and
    after each turn: what it returns goes in before the next model call, and
    remaining tool calls are skipped. `get_follow_up_messages` is polled only when
    the run would otherwise stop. `loop_id` names the run in its events (made up
    when None); `parent_loop_id` names the run that started it (a sub-agent's).
    """

    model: Model
    tools: Sequence[Tool] = ()
    system_prompt: str | None = None
    settings: ModelSettings = field(default_factory=ModelSettings)
    governance: Governance = field(default_factory=Governance)
    context: ContextOptions = field(default_factory=ContextOptions)
    execution: Execution = field(default_factory=Execution)
    get_steering_messages: MessageSource | None = None
    get_follow_up_messages: MessageSource | None = None
    loop_id: str | None = None
    parent_loop_id: str | None = None

    def __post_init__(self) -> None:
        check_unique_names(self.tools)


def loop_config(
    model: Model | str,
    *,
    tools: Sequence[Tool | Callable[..., Any]] = (),
    system_prompt: str | None = None,
    settings: ModelSettings | None = None,
    governance: Governance | None = None,
    context: ContextOptions | None = None,
    execution: Execution | None = None,
) -> LoopConfig:
    """A `LoopConfig` from what a program writes: a model or its name (`"openai:gpt-4.1"`),
    tools or plain functions, and None for any group left at its defaults."""
    return LoopConfig(
        model=resolve_model(model),
        tools=tuple(as_tool(t) for t in tools),
        system_prompt=system_prompt,
        settings=settings or ModelSettings(),
        governance=governance or _DEFAULT_GOVERNANCE,
        context=context or _DEFAULT_CONTEXT,
        execution=execution or _DEFAULT_EXECUTION,
    )


# The groups are frozen, so every agent left at the defaults can share one of each.
_DEFAULT_GOVERNANCE = Governance()
_DEFAULT_CONTEXT = ContextOptions()
_DEFAULT_EXECUTION = Execution()
