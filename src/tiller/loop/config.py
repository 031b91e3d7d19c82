"""Everything a loop run needs besides the messages."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

from tiller.context.compaction_levels import ContextConfig
from tiller.context.strategies import ContextStrategy, resolve_strategy
from tiller.events import AgentEvent
from tiller.loop.filters import FilterLike
from tiller.loop.hooks import AfterToolHook, AfterUpdateHook, BeforeToolHook, BeforeUpdateHook
from tiller.loop.limits import Limits
from tiller.loop.repetition import RepetitionPolicy
from tiller.loop.strategies import ExecutionStrategy, Parallel
from tiller.messages import Message
from tiller.models.base import Model, ModelSettings
from tiller.models.retry import RetryPolicy
from tiller.tools.base import Tool, check_unique_names
from tiller.tools.policy import ToolPolicy
from tiller.tools.rollback import RollbackJournal

EventSink: TypeAlias = Callable[[AgentEvent], None]
MessageSource: TypeAlias = Callable[[], Sequence[Message]]


@dataclass(slots=True)
class LoopConfig:
    """Configuration of one loop run.

    `get_steering_messages` is polled after tool calls and after each turn: what it
    returns goes in before the next model call, and remaining tool calls are skipped.
    `get_follow_up_messages` is polled only when the run would otherwise stop.
    `tool_policy` denies calls by tool name or effect; `dry_run` has tools describe
    what they would do instead of doing it; `rollbacks` records an undo action for
    each reversible call before it runs (see `tiller.tools.invocation`).
    `context_strategy` is a session strategy (`"sliding_window"`,
    `"sliding_window_with_summary"`, `"semantic_compression"`,
    `"hierarchical_summary"`, or an object from `tiller.context.strategies`) that
    builds the view sent to the model when the history is over the budget; a
    name becomes the strategy object when the config is made.
    """

    model: Model
    tools: Sequence[Tool] = ()
    system_prompt: str | None = None
    settings: ModelSettings = field(default_factory=ModelSettings)
    strategy: ExecutionStrategy = field(default_factory=Parallel)
    limits: Limits = field(default_factory=Limits)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    repetition: RepetitionPolicy | None = field(default_factory=RepetitionPolicy)
    context: ContextConfig | None = None
    context_strategy: ContextStrategy | str | None = None
    input_filters: Sequence[FilterLike] = ()
    before_tool_execution: BeforeToolHook | None = None
    after_tool_execution: AfterToolHook | None = None
    before_tool_execution_update: BeforeUpdateHook | None = None
    after_tool_execution_update: AfterUpdateHook | None = None
    get_steering_messages: MessageSource | None = None
    get_follow_up_messages: MessageSource | None = None
    tool_policy: ToolPolicy | None = None
    dry_run: bool = False
    rollbacks: RollbackJournal | None = None
    loop_id: str | None = None
    parent_loop_id: str | None = None

    def __post_init__(self) -> None:
        # Resolve a strategy's name now, so a misspelt one fails before the run starts.
        self.context_strategy = resolve_strategy(self.context_strategy)
        check_unique_names(self.tools)
