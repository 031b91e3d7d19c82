"""Everything observable about a run, as events.

Events are the one observation channel: UIs, logs, traces, metrics and
persistence all subscribe to them. Each has a snake_case `type` tag (its wire
name) and the `loop_id` of the loop that emitted it; a sub-agent's loop also
carries `parent_loop_id`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias

from tiller.messages import (
    AssistantMessage,
    Message,
    StopReason,
    ToolResult,
    ToolResultMessage,
    Usage,
)

# ── streaming deltas (what a model stream yields before its final message) ──


@dataclass(slots=True)
class TextDelta:
    index: int
    text: str
    type: Literal["text_delta"] = "text_delta"


@dataclass(slots=True)
class ThinkingDelta:
    index: int
    thinking: str
    signature: str | None = None
    type: Literal["thinking_delta"] = "thinking_delta"


@dataclass(slots=True)
class ToolCallDelta:
    """A fragment of a tool call's argument JSON; `id` and `name` come with the first one."""

    index: int
    arguments: str
    id: str | None = None
    name: str | None = None
    type: Literal["tool_call_delta"] = "tool_call_delta"


Delta: TypeAlias = TextDelta | ThinkingDelta | ToolCallDelta


# ── run statistics ──────────────────────────────────────────────────────────


@dataclass(slots=True)
class RunStats:
    """Totals of one run, carried by `agent_end`.

    `stopped_by` names what ended the run early (`max_turns`, `loop_detected`,
    `input_rejected`, ...), None when the model simply finished. `unpriced_models`
    names each `provider:model` whose price is unknown and that spent tokens in the
    run; when it is not empty the run's `cost_usd` is None.
    """

    usage: Usage = field(default_factory=Usage)
    turns: int = 0
    tool_calls: int = 0
    compactions: int = 0
    retries: int = 0
    duration_ms: float = 0.0
    stop_reason: StopReason = "stop"
    stopped_by: str | None = None
    error: str | None = None
    unpriced_models: list[str] = field(default_factory=list)

    @property
    def cost_usd(self) -> float | None:
        return self.usage.cost_usd


# ── events ──────────────────────────────────────────────────────────────────


@dataclass(slots=True, kw_only=True)
class Event:
    """Base of all events. The loop stamps `loop_id` (and `parent_loop_id`) when it emits."""

    type: ClassVar[str]
    loop_id: str = ""
    parent_loop_id: str | None = None


@dataclass(slots=True, kw_only=True)
class AgentStart(Event):
    type: ClassVar[str] = "agent_start"


@dataclass(slots=True, kw_only=True)
class AgentEnd(Event):
    type: ClassVar[str] = "agent_end"
    messages: list[Message]
    stats: RunStats


@dataclass(slots=True, kw_only=True)
class TurnStart(Event):
    type: ClassVar[str] = "turn_start"
    turn: int


@dataclass(slots=True, kw_only=True)
class TurnEnd(Event):
    type: ClassVar[str] = "turn_end"
    turn: int
    message: AssistantMessage
    tool_results: list[ToolResultMessage]


@dataclass(slots=True, kw_only=True)
class MessageStart(Event):
    type: ClassVar[str] = "message_start"
    message: Message


@dataclass(slots=True, kw_only=True)
class MessageUpdate(Event):
    type: ClassVar[str] = "message_update"
    delta: Delta


@dataclass(slots=True, kw_only=True)
class MessageEnd(Event):
    """A message is complete.

    `attempt_failed` is True for a model reply that failed and was retried (or sent
    again after compacting the context): it never enters the history. The history a
    run adds is, in order, the `message` of each of its loop's `message_end` events
    whose `attempt_failed` is False (see `tiller.events.rebuild_messages`).
    """

    type: ClassVar[str] = "message_end"
    message: Message
    attempt_failed: bool = False


@dataclass(slots=True, kw_only=True)
class ToolExecutionStart(Event):
    type: ClassVar[str] = "tool_execution_start"
    tool_call_id: str
    tool_name: str
    arguments: dict[str, Any]


@dataclass(slots=True, kw_only=True)
class ToolExecutionUpdate(Event):
    type: ClassVar[str] = "tool_execution_update"
    tool_call_id: str
    tool_name: str
    partial_result: ToolResult


@dataclass(slots=True, kw_only=True)
class ToolExecutionEnd(Event):
    type: ClassVar[str] = "tool_execution_end"
    tool_call_id: str
    tool_name: str
    result: ToolResult
    is_error: bool
    child_loop_id: str | None = None
    duration_ms: float = 0.0


@dataclass(slots=True, kw_only=True)
class Progress(Event):
    type: ClassVar[str] = "progress"
    tool_call_id: str
    tool_name: str
    text: str


@dataclass(slots=True, kw_only=True)
class InputRejected(Event):
    type: ClassVar[str] = "input_rejected"
    reason: str


@dataclass(slots=True, kw_only=True)
class LoopDetected(Event):
    type: ClassVar[str] = "loop_detected"
    tool_name: str
    arguments: dict[str, Any]
    repeats: int


@dataclass(slots=True, kw_only=True)
class ContextCompacted(Event):
    type: ClassVar[str] = "context_compacted"
    method: str
    messages_before: int
    messages_after: int
    tokens_before: int
    tokens_after: int
    summary: str | None = None


@dataclass(slots=True, kw_only=True)
class Retry(Event):
    type: ClassVar[str] = "retry"
    attempt: int
    max_attempts: int
    delay_s: float
    error_kind: str
    error_message: str


CircuitState: TypeAlias = Literal["closed", "open", "half_open"]


@dataclass(slots=True, kw_only=True)
class CircuitStateChanged(Event):
    """A provider endpoint's circuit breaker changed state.

    `failures` is the count of health failures in a row when it changed; `retry_at`
    (Unix time, seconds) is when an open circuit lets a trial call through, None otherwise.
    A model stream yields this event and the loop emits it with the run's `loop_id`.
    """

    type: ClassVar[str] = "circuit_state_changed"
    provider: str
    endpoint: str
    old_state: CircuitState
    new_state: CircuitState
    reason: str
    failures: int = 0
    retry_at: float | None = None


@dataclass(slots=True, kw_only=True)
class ModelLoading(Event):
    """A model is being loaded into this process before it can answer (the embedded
    model's first use). Its reply follows in the same turn; UIs show a spinner."""

    type: ClassVar[str] = "model_loading"
    provider: str
    model: str


# ── the goal solver's events (a solve reports these beside its runs' events) ──


@dataclass(slots=True, kw_only=True)
class SolveStart(Event):
    """A solve began (`resumed`: went on from where it stopped), its record saved."""

    type: ClassVar[str] = "solve_start"
    solve_id: str
    objectives: list[str] = field(default_factory=list)
    resumed: bool = False


@dataclass(slots=True, kw_only=True)
class GoalSelected(Event):
    type: ClassVar[str] = "goal_selected"
    solve_id: str
    goal_id: str
    title: str
    iteration: int


@dataclass(slots=True, kw_only=True)
class PlanCreated(Event):
    type: ClassVar[str] = "plan_created"
    solve_id: str
    goal_id: str
    plan: dict[str, Any]


@dataclass(slots=True, kw_only=True)
class CheckpointRequested(Event):
    """A checkpoint fired; `approval_id` is set when the solve waits for a decision."""

    type: ClassVar[str] = "checkpoint_requested"
    solve_id: str
    checkpoint: str  # the event it is set on: before_step, plan_created, ...
    mode: str
    approval_id: str | None = None
    context: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True, kw_only=True)
class ApprovalDecided(Event):
    type: ClassVar[str] = "approval_decided"
    solve_id: str
    approval_id: str
    decision: str  # approved, rejected or timeout
    comment: str = ""


@dataclass(slots=True, kw_only=True)
class StepStarted(Event):
    type: ClassVar[str] = "step_started"
    solve_id: str
    goal_id: str
    step_index: int
    description: str
    tool: str | None = None
    effect: str | None = None


@dataclass(slots=True, kw_only=True)
class StepFinished(Event):
    type: ClassVar[str] = "step_finished"
    solve_id: str
    goal_id: str
    step_index: int
    status: str
    output: str = ""
    error: str | None = None
    duration_ms: float = 0.0


@dataclass(slots=True, kw_only=True)
class PlanSummary(Event):
    """Where a plan stands: sent every N steps and at checkpoint steps."""

    type: ClassVar[str] = "plan_summary"
    solve_id: str
    goal_id: str
    text: str


@dataclass(slots=True, kw_only=True)
class Escalation(Event):
    type: ClassVar[str] = "escalation"
    solve_id: str
    reason: str
    detail: str = ""


@dataclass(slots=True, kw_only=True)
class SolveEnd(Event):
    type: ClassVar[str] = "solve_end"
    solve_id: str
    status: str
    final: dict[str, Any] = field(default_factory=dict)


SolveEvent: TypeAlias = (
    SolveStart
    | GoalSelected
    | PlanCreated
    | CheckpointRequested
    | ApprovalDecided
    | StepStarted
    | StepFinished
    | PlanSummary
    | Escalation
    | SolveEnd
)

AgentEvent: TypeAlias = (
    AgentStart
    | AgentEnd
    | TurnStart
    | TurnEnd
    | MessageStart
    | MessageUpdate
    | MessageEnd
    | ToolExecutionStart
    | ToolExecutionUpdate
    | ToolExecutionEnd
    | Progress
    | InputRejected
    | LoopDetected
    | ContextCompacted
    | Retry
    | CircuitStateChanged
    | ModelLoading
)

EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        AgentStart,
        AgentEnd,
        TurnStart,
        TurnEnd,
        MessageStart,
        MessageUpdate,
        MessageEnd,
        ToolExecutionStart,
        ToolExecutionUpdate,
        ToolExecutionEnd,
        Progress,
        InputRejected,
        LoopDetected,
        ContextCompacted,
        Retry,
        CircuitStateChanged,
        ModelLoading,
        SolveStart,
        GoalSelected,
        PlanCreated,
        CheckpointRequested,
        ApprovalDecided,
        StepStarted,
        StepFinished,
        PlanSummary,
        Escalation,
        SolveEnd,
    )
}


def rebuild_messages(events: Iterable[AgentEvent], loop_id: str | None = None) -> list[Message]:
    """The messages a run added, rebuilt from its events: equal to `agent_end.messages`.

    They are the `message_end` messages of the run's own loop (`loop_id`, by default
    that of the first event), in order, leaving out failed attempts; a sub-agent's
    events carry another loop id and are skipped.
    """
    messages: list[Message] = []
    for event in events:
        if loop_id is None:
            loop_id = event.loop_id
        if isinstance(event, MessageEnd) and event.loop_id == loop_id and not event.attempt_failed:
            messages.append(event.message)
    return messages
