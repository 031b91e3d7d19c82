"""Carrying out a plan, step by step, with the checks a person would want.

For each step, in this order:

1. the `before_step` checkpoint (a rejection or a timeout halts the plan);
2. the tool policy: a step whose tool is missing or denied is not run;
3. a dry run, when the tool has one and dry runs are on: a step whose dry run
   shows a risk (`tiller.solve.risk`) runs only if a person approves it, having
   seen the risks and the dry run (a refusal: `dry_run_risk_detected`);
4. a person's approval, when the step acts outside the machine, uses a tool that
   always needs approval, has a placeholder for an argument (its requirement is
   ambiguous), comes when most of a budget is spent, or was planned with low
   confidence; anything but an approval halts the plan;
5. the resource bounds: a spent bound halts the plan;
6. the step itself, written down before it runs and after it ends; a reversible
   call's undo is recorded before it runs and applied when the step fails;
7. the progress ledger, telemetry, a summary every N steps and after steps that
   act outside the machine, and the `after_step` checkpoint.

The `post_execution` checkpoint follows the last step. A step that already ran
(a resumed solve) is not run again. A step is a tool call the solver makes
itself in direct mode, or else an instruction carried out by an agent (a guarded
agent, or a planner with a worker sub-agent in team mode) under the solve's
governance, whose calls to tools that act outside the machine need approval too.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tiller.agent.subagent import SubAgentTool
from tiller.cancellation import CancelToken
from tiller.events import AgentEnd, Event, PlanSummary, RunStats, StepFinished, StepStarted
from tiller.loop.config import LoopConfig
from tiller.loop.hooks import BeforeVerdict, Deny
from tiller.loop.limits import Limits
from tiller.loop.options import Execution, Governance
from tiller.loop.run import agent_loop
from tiller.messages import AssistantMessage, ToolResult
from tiller.models.base import Model
from tiller.solve.bounds import ResourceBounds, SolveUsage, exceeded
from tiller.solve.framework import Mode
from tiller.solve.gate import Decision, Gate, StepRecord
from tiller.solve.goals import Goal
from tiller.solve.ledger import ProgressLedger
from tiller.solve.plans import Plan, Step, StepStatus
from tiller.solve.results import Result, Status
from tiller.solve.risk import RiskRules, risks
from tiller.solve.tool_calls import call_tool
from tiller.tools.base import Tool
from tiller.tools.effects import ToolEffect, effect_of

PLACEHOLDER = re.compile(r"^\s*(<[^>]*>|\?+|tbd|todo|unknown|\.\.\.)\s*$", re.I)
TRANSIENT = re.compile(
    r"RateLimitError|OverloadedError|NetworkError|rate.?limit|timed out|timeout|network", re.I
)
OUTPUT_LIMIT = 4_000
AGENT_TURNS = 8

STEP_INSTRUCTIONS = """You carry out one step of a plan with the tools you have.
Do exactly what the step says, then reply with what you did and what it produced."""
TEAM_INSTRUCTIONS = """You lead one step of a plan. Hand the work to the worker with a \
complete task, check what it reports, and reply with what was done and what it produced."""


@dataclass(slots=True, frozen=True)
class StepRules:
    """When a step needs a person, and what a dry run may show."""

    approval_required: frozenset[str] = frozenset()  # tools every call of which needs approval
    confidence_threshold: float = 0.5
    budget_alert_fraction: float = 0.8
    enable_dry_runs: bool = True
    risk: RiskRules = field(default_factory=RiskRules)
    summary_effects: frozenset[str] = frozenset({"external"})


@dataclass(slots=True)
class Workbench:
    """Everything carrying out a plan needs, shared by the solve's steps."""

    solve_id: str
    model: Model
    tools: Sequence[Tool]
    mode: Mode
    governance: Governance
    bounds: ResourceBounds
    usage: SolveUsage
    gate: Gate
    record: StepRecord
    emit: Callable[[Event], None]
    cancel: CancelToken
    loop_id: str
    ledger: ProgressLedger = field(default_factory=ProgressLedger)
    rules: StepRules = StepRules()
    clock: Callable[[], float] = time.monotonic
    _ticked: float | None = None

    def tick(self) -> None:
        """Add the time since the last tick to the solve's elapsed time."""
        now = self.clock()
        if self._ticked is not None:
            self.usage.elapsed_s += now - self._ticked
        self._ticked = now

    def time_left(self) -> float | None:
        """Seconds until the wall-time bound (None: no bound), so a model call that
        starts before it cannot run far past it."""
        self.tick()
        limit = self.bounds.max_wall_time_s
        return None if limit is None else max(limit - self.usage.elapsed_s, 0.0)

    def tool(self, name: str | None) -> Tool | None:
        return next((t for t in self.tools if t.name == name), None)


async def execute_plan(plan: Plan, goal: Goal, bench: Workbench) -> Result:
    """Carry out `plan`'s steps for `goal`; SUCCESS with each step's output, or FAILURE
    naming the step and why (`error`), with `meta["transient"]` when a retry may help."""
    for step in plan.steps:
        if step.status is StepStatus.DONE:
            continue  # it ran before the solve was interrupted
        halted = await _before(step, plan, goal, bench)
        if halted is not None:
            return halted
        failed = await _run(step, goal, plan, bench)
        if failed is not None:
            return failed
        context = {"plan": plan, "goal": goal, "step": step, "step_index": step.index}
        decision = await bench.gate.checkpoint(
            "after_step", {**context, "step_result": step.output}
        )
        if decision.halts:
            return _failure(step, "checkpoint_halt_after_step", decision=decision.value)
    decision = await bench.gate.checkpoint("post_execution", {"plan": plan, "goal": goal})
    if decision.halts:
        return Result(Status.FAILURE, error="checkpoint_halt_post_execution")
    outputs = {str(step.index): step.output for step in plan.steps}
    return Result(Status.SUCCESS, data=outputs)


async def _before(step: Step, plan: Plan, goal: Goal, bench: Workbench) -> Result | None:
    """Everything that may stop a step before it runs (steps 1 to 5 above)."""
    context = {"plan": plan, "goal": goal, "step": step, "step_index": step.index}
    decision = await bench.gate.checkpoint("before_step", context)
    if decision.halts:
        return _failure(step, "checkpoint_halt_before_step", decision=decision.value)
    tool = bench.tool(step.tool)
    if step.tool is not None:
        denial = _denial(tool, step.tool, bench.governance)
        if denial is not None:
            return _failure(step, "permission_denied", reason=denial)
    previewable = tool is not None and callable(getattr(tool, "dry_run", None))
    if previewable and step.is_tool_call and bench.rules.enable_dry_runs:
        assert tool is not None
        preview = await call_tool(
            tool, dict(step.arguments or {}), bench.governance, bench.cancel, dry_run=True
        )
        found = risks(step, preview.text, bench.rules.risk)
    else:
        found, preview = [], None
    reasons = verification_reasons(step, bench)
    reasons += [risk for risk in found if risk not in reasons]
    if reasons:
        asked = {**context, "reasons": reasons}
        if found and preview is not None:
            asked["dry_run"] = preview.text
        decision = await bench.gate.approval(reasons, asked)
        if decision is not Decision.APPROVED:
            if found and preview is not None:
                return _failure(
                    step,
                    "dry_run_risk_detected",
                    risks=found,
                    preview=preview.text,
                    decision=decision.value,
                )
            return _failure(step, "approval_not_granted", reasons=reasons, decision=decision.value)
    bench.tick()
    spent = exceeded(bench.bounds, bench.usage)
    if spent is not None:
        return _failure(step, "stop_conditions_triggered", escalation=spent)
    return None


def verification_reasons(step: Step, bench: Workbench) -> list[str]:
    """Why a person must approve the step before it runs ([] when no one must)."""
    reasons: list[str] = []
    if step.effect == ToolEffect.EXTERNAL.value:
        reasons.append("it acts outside this machine")
    if step.tool is not None and step.tool in bench.rules.approval_required:
        reasons.append(f"every call of {step.tool!r} needs approval")
    placeholders = [k for k, v in (step.arguments or {}).items() if _is_placeholder(v)]
    if placeholders:
        reasons.append(f"its requirement is ambiguous: no value for {', '.join(placeholders)}")
    alert = _budget_alert(bench.bounds, bench.usage, bench.rules.budget_alert_fraction)
    if alert:
        reasons.append(alert)
    if step.confidence is not None and step.confidence < bench.rules.confidence_threshold:
        reasons.append(f"it was planned with low confidence ({step.confidence:.2f})")
    return reasons


async def _run(step: Step, goal: Goal, plan: Plan, bench: Workbench) -> Result | None:
    """Run the step, with its record, events, ledger and rollback (steps 6 and 7)."""
    key = plan.step_key(step.index)
    journal = bench.governance.rollbacks
    mark = len(journal) if journal is not None else 0
    await bench.record.started(key, step.tool, step.effect, step.arguments)
    step.status = StepStatus.RUNNING
    bench.emit(
        StepStarted(
            solve_id=bench.solve_id,
            goal_id=goal.id,
            step_index=step.index,
            description=step.description,
            tool=step.tool,
            effect=step.effect,
            loop_id=bench.loop_id,
        )
    )
    started = time.perf_counter()
    output, ok, transient = await _carry_out(step, bench)
    duration_ms = (time.perf_counter() - started) * 1000
    step.status = StepStatus.DONE if ok else StepStatus.FAILED
    step.output = output if ok else None
    step.error = None if ok else output
    await bench.record.finished(key, {"ok": ok, "output": output[:OUTPUT_LIMIT]})
    bench.emit(
        StepFinished(
            solve_id=bench.solve_id,
            goal_id=goal.id,
            step_index=step.index,
            status=step.status.value,
            output=output[:OUTPUT_LIMIT],
            error=step.error,
            duration_ms=duration_ms,
            loop_id=bench.loop_id,
        )
    )
    bench.usage.steps += 1
    bench.tick()
    entry = bench.ledger.record(key, ok, step.tool, step.arguments, output)
    if ok and entry.progressing:
        bench.usage.last_progress_s = bench.usage.elapsed_s
    if not ok:
        if journal is not None and len(journal) > mark:
            await journal.roll_back(since=mark)
        return _failure(step, "step_failed", reason=output, transient=transient)
    if entry.looping:
        return _failure(step, "looping", next=entry.next.value)
    every = bench.bounds.summary_every_n
    if (every and step.index % every == 0) or step.effect in bench.rules.summary_effects:
        bench.emit(
            PlanSummary(
                solve_id=bench.solve_id,
                goal_id=goal.id,
                text=summarize(plan),
                loop_id=bench.loop_id,
            )
        )
    return None


async def _carry_out(step: Step, bench: Workbench) -> tuple[str, bool, bool]:
    """(output, succeeded, failure is transient) of one step."""
    tool = bench.tool(step.tool)
    if bench.mode is Mode.DIRECT_TOOLS and tool is not None and step.is_tool_call:
        result: ToolResult = await call_tool(
            tool, dict(step.arguments or {}), bench.governance, bench.cancel
        )
        text = result.text
        return text, not result.is_error, bool(result.is_error and TRANSIENT.search(text))
    return await _agent_step(step, bench)


async def _agent_step(step: Step, bench: Workbench) -> tuple[str, bool, bool]:
    governance = bench.governance.narrowed_by(
        Governance(before_tool_execution=_approval_hook(bench))
    )
    if bench.mode is Mode.TEAM:
        worker = SubAgentTool(
            "worker",
            "A worker with the tools; give it a complete task and it reports what it did.",
            bench.model,
            tools=bench.tools,
            system_prompt=STEP_INSTRUCTIONS,
        )
        tools: Sequence[Tool] = [worker]
        instructions = TEAM_INSTRUCTIONS
    else:
        tools, instructions = bench.tools, STEP_INSTRUCTIONS
    config = LoopConfig(
        model=bench.model,
        tools=tools,
        system_prompt=instructions,
        governance=governance,
        execution=Execution(
            limits=Limits(max_turns=AGENT_TURNS, max_wall_time_s=bench.time_left())
        ),
        parent_loop_id=bench.loop_id,
    )
    ends: list[RunStats] = []

    def sink(event: Any) -> None:
        if isinstance(event, AgentEnd) and event.parent_loop_id == bench.loop_id:
            ends.append(event.stats)
        bench.emit(event)

    new = await agent_loop(_step_prompt(step), [], config, sink, bench.cancel)
    stats = ends[-1] if ends else RunStats()
    _add_usage(bench.usage, stats)
    reply = next((m for m in reversed(new) if isinstance(m, AssistantMessage)), None)
    text = reply.text if reply is not None else ""
    if stats.stop_reason in ("error", "aborted") or stats.stopped_by is not None:
        why = stats.error or stats.stopped_by or stats.stop_reason
        return (
            f"{text}\n[the step's agent stopped: {why}]".strip(),
            False,
            bool(TRANSIENT.search(why)),
        )
    return text, True, False


def _approval_hook(bench: Workbench) -> Callable[[str, str, dict[str, Any]], Any]:
    async def needs_approval(name: str, call_id: str, arguments: dict[str, Any]) -> BeforeVerdict:
        tool = bench.tool(name)
        external = tool is not None and effect_of(tool) is ToolEffect.EXTERNAL
        if not external and name not in bench.rules.approval_required:
            return None
        reasons = [
            "it acts outside this machine" if external else f"every call of {name!r} needs approval"
        ]
        context = {"tool": name, "arguments": arguments, "reasons": reasons}
        decision = await bench.gate.approval(reasons, context)
        return None if decision is Decision.APPROVED else Deny(f"not approved ({decision.value})")

    return needs_approval


def summarize(plan: Plan) -> str:
    done = sum(1 for s in plan.steps if s.status is StepStatus.DONE)
    lines = [f"{done} of {len(plan.steps)} steps done."]
    for step in plan.steps:
        lines.append(f"{step.index}. [{step.status.value}] {step.description}")
    return "\n".join(lines)


def _step_prompt(step: Step) -> str:
    if step.instruction:
        return step.instruction
    return f"{step.description}\nUse {step.tool} with these arguments: {step.arguments}"


def _denial(tool: Tool | None, name: str, governance: Governance) -> str | None:
    if tool is None:
        return f"{name!r} is not one of this solve's tools"
    if governance.tool_policy is None:
        return None
    try:
        governance.tool_policy.check(tool, name)
    except Exception as exc:
        return str(exc)
    return None


def _is_placeholder(value: object) -> bool:
    return isinstance(value, str) and bool(PLACEHOLDER.match(value))


def _budget_alert(bounds: ResourceBounds, usage: SolveUsage, fraction: float) -> str | None:
    spent = [
        ("cost", usage.cost_usd, bounds.max_cost_usd),
        ("tokens", usage.tokens, bounds.max_tokens),
        ("time", usage.elapsed_s, bounds.max_wall_time_s),
    ]
    for name, used, limit in spent:
        if limit and used >= fraction * limit:
            return f"most of the {name} budget is spent ({used:g} of {limit:g})"
    return None


def _add_usage(usage: SolveUsage, stats: RunStats) -> None:
    usage.input_tokens += stats.usage.input_tokens
    usage.output_tokens += stats.usage.output_tokens
    if stats.usage.cost_usd is None:
        usage.unpriced = usage.unpriced or stats.usage.total_tokens > 0
    else:
        usage.cost_usd += stats.usage.cost_usd


def _failure(step: Step, error: str, **meta: Any) -> Result:
    return Result(Status.FAILURE, error=error, meta={"step": step.index, **meta})


def is_transient(result: Result) -> bool:
    return result.status is Status.FAILURE and bool(result.meta.get("transient"))
