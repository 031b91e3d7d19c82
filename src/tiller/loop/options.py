"""The run options, in three groups that say what they govern.

- `Governance`: what may reach the model and what its tools may do (input
  filters, the tool policy, dry runs, the rollback journal, the hooks around
  each tool call). A sub-agent runs under its parent's governance narrowed by
  its own (`Governance.narrowed_by`): it can add rules, never lift one.
- `ContextOptions`: how the history is kept within the model's context (the
  token budget with its compaction settings, and the session strategy).
- `Execution`: how a run proceeds (how one turn's tool calls run, the limits
  that stop it, retries of failed model calls, the repetition guard).

Each group is a frozen value, so one can be shared by many agents and changed
for one run with `dataclasses.replace`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from tiller.context.compaction_levels import ContextBudget
from tiller.context.strategies import ContextStrategy, resolve_strategy
from tiller.loop.filters import FilterLike
from tiller.loop.hooks import (
    AfterToolHook,
    AfterUpdateHook,
    BeforeToolHook,
    BeforeUpdateHook,
    BeforeVerdict,
    Deny,
    ReplaceArguments,
    resolve,
)
from tiller.loop.limits import Limits
from tiller.loop.repetition import RepetitionPolicy
from tiller.loop.strategies import ExecutionStrategy, Parallel
from tiller.messages import Message
from tiller.models.retry import RetryPolicy
from tiller.tools.policy import ToolCheck, all_of
from tiller.tools.rollback import RollbackJournal

# Saves a run's new messages where they outlive the process (`Execution.persist`).
Persist = Callable[[Sequence[Message]], Awaitable[None]]


@dataclass(slots=True, frozen=True)
class Governance:
    """What may reach the model and what its tools may do.

    `input_filters` check each new user message before the model sees it.
    `tool_policy` denies calls by tool name or effect; `dry_run` has tools
    describe what they would do instead of doing it; `rollbacks` records an undo
    action for each reversible call before it runs.
    `before_tool_execution(name, call_id, arguments)` may allow, deny or rewrite
    a call; `after_tool_execution(name, call_id, is_error)` sees each outcome;
    the two update hooks see (and may drop) the partial results a tool streams.
    """

    input_filters: Sequence[FilterLike] = ()
    tool_policy: ToolCheck | None = None
    dry_run: bool = False
    rollbacks: RollbackJournal | None = None
    before_tool_execution: BeforeToolHook | None = None
    after_tool_execution: AfterToolHook | None = None
    before_tool_execution_update: BeforeUpdateHook | None = None
    after_tool_execution_update: AfterUpdateHook | None = None

    def narrowed_by(self, own: Governance | None) -> Governance:
        """This governance with `own`'s rules added: what a sub-agent runs under.

        Every rule of both applies, the parent's first: a call runs only if both
        policies allow it and both `before_tool_execution` hooks let it through
        (the child's hook sees the arguments as the parent's left them); both
        after-hooks and update hooks are called; the input filters of both check
        the child's prompt; a dry run in either is a dry run. Reversible calls are
        recorded in the parent's rollback journal when it has one, so undoing the
        parent undoes what its sub-agents did; else in the child's.
        """
        if own is None:
            return self
        return Governance(
            input_filters=(*self.input_filters, *own.input_filters),
            tool_policy=all_of(self.tool_policy, own.tool_policy),
            dry_run=self.dry_run or own.dry_run,
            rollbacks=self.rollbacks if self.rollbacks is not None else own.rollbacks,
            before_tool_execution=_both_before(
                self.before_tool_execution, own.before_tool_execution
            ),
            after_tool_execution=_both_after(self.after_tool_execution, own.after_tool_execution),
            before_tool_execution_update=_both_before_update(
                self.before_tool_execution_update, own.before_tool_execution_update
            ),
            after_tool_execution_update=_both_after_update(
                self.after_tool_execution_update, own.after_tool_execution_update
            ),
        )


@dataclass(slots=True, frozen=True, init=False)
class ContextOptions:
    """How the history is kept within the model's context.

    `budget` sets the token budget and how the three compaction levels work
    within it (None: no budget, nothing is compacted unless the provider reports
    the context is full). `strategy` is a session strategy (`"sliding_window"`,
    `"sliding_window_with_summary"`, `"semantic_compression"`,
    `"hierarchical_summary"`, or an object from `tiller.context.strategies`) that
    builds the view sent to the model when the history is over the budget; a
    name becomes the strategy object here, so a misspelt one fails at once.
    """

    budget: ContextBudget | None
    strategy: ContextStrategy | None

    def __init__(
        self,
        budget: ContextBudget | None = None,
        strategy: ContextStrategy | str | None = None,
    ) -> None:
        object.__setattr__(self, "budget", budget)
        object.__setattr__(self, "strategy", resolve_strategy(strategy))


@dataclass(slots=True, frozen=True)
class Execution:
    """How a run proceeds.

    `tool_calls`: how one turn's tool calls run (`Parallel()`, `Sequential()`,
    `Batched(size)`). `limits`: turns, tool calls, tokens, cost and time after
    which the run stops. `retry`: how failed model calls are retried.
    `repetition`: the guard against a model repeating the same calls (None turns
    it off). `persist`: awaited with the messages the run added since its last call,
    before each model call and before each turn's tool calls run, so a run saved by it
    can go on from its last saved message after a crash (a durable service's store);
    what the run adds after its last turn is in the messages the run returns.
    """

    tool_calls: ExecutionStrategy = field(default_factory=Parallel)
    limits: Limits = field(default_factory=Limits)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    repetition: RepetitionPolicy | None = field(default_factory=RepetitionPolicy)
    persist: Persist | None = None


_GOVERNING: ContextVar[Governance | None] = ContextVar("tiller_governance", default=None)


def governing() -> Governance | None:
    """The governance of the run whose tool call is executing now (None outside a run).

    A tool that starts runs of its own (`SubAgentTool`) runs them under it, so a
    parent's rules reach its sub-agents and theirs, however deep.
    """
    return _GOVERNING.get()


def govern(governance: Governance) -> Callable[[], None]:
    """Make `governance` the one `governing()` returns in this task and the tasks it
    starts; returns the function that restores the previous one."""
    token = _GOVERNING.set(governance)
    return lambda: _GOVERNING.reset(token)


# ── hooks of a parent and a child, as one ──────────────────────────────────


def _both_before(
    first: BeforeToolHook | None, second: BeforeToolHook | None
) -> BeforeToolHook | None:
    if first is None or second is None:
        return first or second
    outer, inner = first, second

    async def both(name: str, call_id: str, arguments: dict[str, Any]) -> BeforeVerdict:
        verdict = await resolve(outer(name, call_id, arguments))
        if verdict is False or isinstance(verdict, Deny):
            return verdict
        if isinstance(verdict, ReplaceArguments):
            arguments = verdict.arguments
        inner_verdict = await resolve(inner(name, call_id, arguments))
        if inner_verdict is None or inner_verdict is True:
            return verdict  # the parent's rewrite, or its consent, stands
        return inner_verdict  # a denial, or the child's rewrite of what the parent passed

    return both


def _both_after(first: AfterToolHook | None, second: AfterToolHook | None) -> AfterToolHook | None:
    if first is None or second is None:
        return first or second
    outer, inner = first, second

    async def both(name: str, call_id: str, is_error: bool) -> None:
        try:
            await resolve(inner(name, call_id, is_error))
        finally:  # the parent's hook sees every outcome, whatever the child's did
            await resolve(outer(name, call_id, is_error))

    return both


def _both_before_update(
    first: BeforeUpdateHook | None, second: BeforeUpdateHook | None
) -> BeforeUpdateHook | None:
    if first is None or second is None:
        return first or second
    outer, inner = first, second

    def both(name: str, call_id: str, text: str) -> bool:
        return outer(name, call_id, text) and inner(name, call_id, text)

    return both


def _both_after_update(
    first: AfterUpdateHook | None, second: AfterUpdateHook | None
) -> AfterUpdateHook | None:
    if first is None or second is None:
        return first or second
    outer, inner = first, second

    def both(name: str, call_id: str, text: str) -> None:
        try:
            inner(name, call_id, text)
        finally:
            outer(name, call_id, text)

    return both
