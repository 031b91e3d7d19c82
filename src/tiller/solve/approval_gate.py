"""The solver's gate: checkpoints and approvals kept in the store, decided by people.

At a checkpoint event, each checkpoint set on it whose condition holds fires: a
`notify` one is reported (`checkpoint_requested`) and the solve goes on; a
`pause` or `require_approval` one is stored as an approval request before anyone
is told, and the solve waits for the decision (or the timeout: the checkpoint's
own, else the solve's approval timeout). A step that needs a person is asked the
same way. Each request is named by where it was made (the event, the goal, the
plan's version and attempt, the step, the iteration), so a resumed solve that
comes to the same place again takes the decision already made there, or waits
for the request already open, instead of asking twice. Decisions come from
anywhere that reaches the store (`tiller approvals
approve ID`, the service): this process wakes at once for one made here, within
a second for one made elsewhere, and an approval that fell due while nothing ran
is timed out when the solve resumes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from enum import Enum
from typing import Any

from tiller.events import ApprovalDecided, CheckpointRequested, Event
from tiller.solve.checkpoints import Checkpoint, checkpoints_for
from tiller.solve.gate import Decision
from tiller.store import Approval, ApprovalStatus, Store

DECISIONS = {
    ApprovalStatus.APPROVED: Decision.APPROVED,
    ApprovalStatus.REJECTED: Decision.REJECTED,
    ApprovalStatus.TIMEOUT: Decision.TIMEOUT,
}
TEXT_LIMIT = 2_000


class ApprovalGate:
    def __init__(
        self,
        store: Store,
        solve_id: str,
        checkpoints: Sequence[Checkpoint],
        emit: Callable[[Event], None],
        *,
        loop_id: str,
        default_timeout_s: float | None,
    ) -> None:
        self.store = store
        self.solve_id = solve_id
        self.checkpoints = list(checkpoints)
        self.emit = emit
        self.loop_id = loop_id
        self.default_timeout_s = default_timeout_s
        # The last decision's edited plan, for the `plan_created` checkpoint.
        self.edited_plan: Any = None

    async def checkpoint(self, event: str, context: Mapping[str, Any]) -> Decision:
        for checkpoint in checkpoints_for(event, self.checkpoints):
            if not checkpoint.triggers(context):
                continue
            if not checkpoint.halts:
                self._requested(checkpoint, None, context)
                continue
            timeout = checkpoint.timeout
            return await self._ask(
                "checkpoint",
                event,
                {"checkpoint": checkpoint.to_data(), **plain(context)},
                self.default_timeout_s if timeout is None else timeout,
                checkpoint,
                f"{checkpoint.label}@{place(event, context)}",
            )
        return Decision.CONTINUE

    async def approval(self, reasons: list[str], context: Mapping[str, Any]) -> Decision:
        data = {"reasons": reasons, **plain(context)}
        key = place("step", context)
        return await self._ask("step", "before_step", data, self.default_timeout_s, None, key)

    async def _ask(
        self,
        kind: str,
        event: str,
        context: dict[str, Any],
        timeout_s: float | None,
        checkpoint: Checkpoint | None,
        key: str,
    ) -> Decision:
        earlier = await self._earlier(kind, key)
        if earlier is not None and earlier.decided:
            return self._decided(earlier)
        if earlier is not None:
            approval_id = earlier.id
        else:
            due = None if timeout_s is None else self.store.now() + timedelta(seconds=timeout_s)
            context = {**context, "key": key}
            approval_id = await self.store.approvals.request(
                self.solve_id, kind, event, context, due
            )
            self._requested(checkpoint, approval_id, context, event=event)
        decided = await self.store.approvals.wait(approval_id)
        return self._decided(decided)

    async def _earlier(self, kind: str, key: str) -> Approval | None:
        asked = await self.store.approvals.list(solve_id=self.solve_id, limit=10_000)
        same = [a for a in asked if a.kind == kind and a.context.get("key") == key]
        return same[-1] if same else None

    def _requested(
        self,
        checkpoint: Checkpoint | None,
        approval_id: str | None,
        context: Mapping[str, Any],
        *,
        event: str | None = None,
    ) -> None:
        self.emit(
            CheckpointRequested(
                solve_id=self.solve_id,
                checkpoint=str(checkpoint.event) if checkpoint is not None else (event or ""),
                mode=str(checkpoint.mode) if checkpoint is not None else "require_approval",
                approval_id=approval_id,
                context=plain(context),
                loop_id=self.loop_id,
            )
        )

    def _decided(self, approval: Approval) -> Decision:
        decision = DECISIONS.get(approval.status, Decision.TIMEOUT)
        self.edited_plan = approval.edited_plan if decision is Decision.APPROVED else None
        self.emit(
            ApprovalDecided(
                solve_id=self.solve_id,
                approval_id=approval.id,
                decision=decision.value,
                comment=approval.comment or "",
                loop_id=self.loop_id,
            )
        )
        return decision


def place(event: str, context: Mapping[str, Any]) -> str:
    """Where in the solve a request is made: the same place after a restart gives the
    same name."""
    parts = [event]
    goal = context.get("goal") or context.get("current_goal")
    if goal is not None:
        parts.append(f"goal={getattr(goal, 'id', goal)}")
    plan = context.get("plan")
    if plan is not None:
        parts.append(f"plan=v{getattr(plan, 'version', 0)}r{getattr(plan, 'attempt', 0)}")
    step = context.get("step")
    if step is not None:
        parts.append(f"step={getattr(step, 'index', step)}")
    if "iteration_count" in context:
        parts.append(f"iteration={context['iteration_count']}")
    if "tool" in context:
        arguments = json.dumps(plain(context.get("arguments")), sort_keys=True)
        digest = hashlib.sha256(arguments.encode()).hexdigest()[:12]
        parts.append(f"call={context['tool']}:{digest}")
    if context.get("interrupted"):
        parts.append("interrupted")
    return "/".join(parts)


def plain(value: Any) -> Any:
    """`value` as JSON data: objects by their `to_data()`, dataclasses by their fields,
    enums by their value, long texts cut."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, str):
        return value if len(value) <= TEXT_LIMIT else value[:TEXT_LIMIT] + "…"
    to_data = getattr(value, "to_data", None)
    if callable(to_data):
        return plain(to_data())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [plain(v) for v in value]
    return str(value)
