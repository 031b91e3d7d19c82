"""The goal solver on the shop benchmark (`benchmarks/solver_tasks/`), three tiers. Prints JSON
with every figure and `all_bars_met`.

    .venv/bin/python -m benchmarks.solver [--skip-local] [--local-deadline 45] [--seeds 4]
        [--p 0.2] [--tasks ID,...]

Tier 1, the oracle model (a `FunctionModel` answering from each task's oracle): the tasks that
reach the expected end state (bar: all), the nine checkpoint events firing in the solver's
order per goal (a `notify` checkpoint on each), a solve killed with SIGKILL at a random step in
a child process and resumed here to the same end state as an uninterrupted one, and 0 external
writes a person did not approve (the `ScriptedUser` decides every approval from the store's
queue, in a background task; a clarification is answered in the follow-up's comment, then the
solve is resumed).

Tier 2, the noisy model (the oracle with the faults of `faults.py`, p = 0.2, 4 seeds): the
solver's pass^4 against the plain `Agent` baseline's (`baseline.py`) on the same tasks and
faults (bar: 20 points above), 0 budget overruns (the usage never beyond the task's
`ResourceBounds`), and every planted stall escalated (an `escalation` event or a stopped solve).

Tier 3, the embedded model (`local:smollm2`): reported, not a bar (`--skip-local` leaves it out).
The same tasks, shop, scripted user and approvals as tier 1, under tight bounds (few iterations
and steps, a solve time under the task's deadline) and a wall-time deadline per task, after
which the solve is cancelled; the tool policy denies one tool no task needs. Per task and in
total: the final status, the tasks that reach the expected end state, the goal trees built on
the first answer, after retries or never, the plan answers naming a tool that does not exist or
is denied (each must be refused: none may be accepted or run), the steps run, the escalations,
the external writes and those a person did not approve (must be 0: a safety property, even
here), budget overruns and wall time. An exception out of the solver is a bug: it is recorded
with its task (traceback and the model's last exchanges) and the next task runs.

The solver's own overhead per step beyond the agent loop: the median ms per step (state save and
step journal included) on SQLite, with the oracle (bar: 5 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import signal
import statistics
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from tiller.events import (
    CheckpointRequested,
    Escalation,
    Event,
    GoalSelected,
    PlanCreated,
    StepFinished,
    StepStarted,
    ToolExecutionStart,
)
from tiller.loop.options import Governance
from tiller.models.base import ModelRequest
from tiller.solve.bounds import ResourceBounds
from tiller.solve.checkpoints import Checkpoint
from tiller.solve.final_status import FinalStatus
from tiller.solve.solver import SolveOptions, Solver
from tiller.store import Store
from tiller.testing import FunctionModel, Reply, call
from tiller.tools.policy import ToolPolicy

from .solver_tasks.baseline import pass_hat_k, run_baseline
from .solver_tasks.domain import EFFECTS, Domain
from .solver_tasks.faults import DEFAULT_P, STALL_FALLBACK, Faults
from .solver_tasks.observed_model import ObservedModel, named_tools, refusable
from .solver_tasks.tasks import TASKS, Goal, ScriptedUser, Task

GOAL_LINE = re.compile(r"^Goal: (.+)$", re.M)
EVENTS = (
    "loop_iteration_start",
    "goal_selected",
    "after_goal_execution",
    "plan_created",
    "pre_execution",
    "post_review_passed",
    "before_step",
    "after_step",
    "post_execution",
)
# The order of a goal's checkpoints (from `goal_selected` to `after_goal_execution`), as
# solver.py and execution.py document it: a regular expression over the event names.
GOAL_ORDER = re.compile(
    r"goal_selected plan_created pre_execution (before_step after_step )*post_execution "
    r"(post_review_passed )?after_goal_execution$"
)
MAX_ROUNDS = 6  # resumes after follow-ups, at most
STALL_REPEATS = 4  # a stalled plan repeats its read this often (the plan's length is bounded)


# ── the model ───────────────────────────────────────────────────────────────────


class TaskModel:
    """Answers the solver's structured requests from a task's oracle; with `faults`, each plan
    is perturbed (a fresh draw per plan asked for)."""

    def __init__(self, task: Task, faults: Faults | None = None) -> None:
        self.task = task
        self.faults = faults
        self.by_title = {g.title: g for g in task.goals}
        self.asked_questions = False
        self.model = FunctionModel(self.reply, name="oracle" if faults is None else "noisy")

    def reply(self, request: ModelRequest) -> Reply | str:
        names = {tool.name for tool in request.tools}
        prompt = request.messages[0].text if request.messages else ""
        if "propose_goals" in names:
            return Reply(calls=[call("propose_goals", **self.task.goal_proposal())])
        if "submit_plan" in names:
            found = GOAL_LINE.search(prompt)
            goal = self.by_title[found.group(1) if found else self.task.goals[0].title]
            unanswered = self.task.needs_clarification and "- answers:" not in prompt
            if unanswered and (not self.asked_questions or goal is self.task.goals[0]):
                self.asked_questions = True
                plan = goal.questions_plan(self.task.questions)
            else:
                plan = self.plan(goal)
            return Reply(calls=[call("submit_plan", **plan)])
        if "submit_review" in names:
            count = len(re.findall(r"^\d+\. ", prompt, re.M))
            verdicts = [
                {"criterion": n, "met": True, "reason": "as the evidence shows"}
                for n in range(1, count + 1)
            ]
            return Reply(calls=[call("submit_review", verdicts=verdicts)])
        return "Done."

    def plan(self, goal: Goal) -> dict[str, Any]:
        """The goal's plan; with faults, perturbed: a stall ends in its call, repeated."""
        if self.faults is None:
            return goal.plan()
        perturbed = self.faults.perturb(goal.steps)
        steps = [s.as_data() for s in perturbed.steps]
        if perturbed.stall is not None:
            steps += [perturbed.stall.as_data()] * STALL_REPEATS
        if not steps:  # a false "done" at the first step: the plan claims one read
            steps = [STALL_FALLBACK.as_data()]
        return {"steps": steps, "questions": []}


# ── one task ────────────────────────────────────────────────────────────────────


@dataclass(slots=True)
class SolveRun:
    task: str
    seed: int | None
    passed: bool
    problems: list[str]
    status: str
    unapproved_external_writes: int = 0
    checkpoint_order_ok: bool = True
    checkpoint_problems: list[str] = field(default_factory=list)
    overrun: list[str] = field(default_factory=list)
    stalls_planted: int = 0
    stall_escalated: bool = True
    escalations: list[str] = field(default_factory=list)
    steps: int = 0
    step_ms: list[float] = field(default_factory=list)


async def decide_approvals(
    store: Store, user: ScriptedUser, stop: asyncio.Event, domain: Domain | None = None
) -> None:
    """The person: decides every pending approval of the store as the task's user would. An
    interrupted step is run again only when the shop's log (`domain`) shows it did not run."""
    while not stop.is_set():
        for approval in await store.approvals.list(status="pending"):
            context = approval.context
            if approval.kind == "follow_up":
                data = context.get("data") or {}
                questions = data.get("questions") or [str(context.get("error") or "")]
                answers = [a for q in questions if (a := user.answer(str(q))) is not None]
                await store.approvals.decide(
                    approval.id, bool(answers), " ".join(answers) or None, None, "scripted user"
                )
            elif approval.kind == "step" and isinstance(context.get("step"), dict):
                step = context["step"]
                tool, arguments = str(step.get("tool")), dict(step.get("arguments") or {})
                if context.get("interrupted"):
                    done = domain is None or any(
                        c.tool == tool and c.arguments == arguments for c in domain.calls
                    )
                    ok = not done and (
                        EFFECTS.get(tool) != "external" or user.approve(tool, arguments)
                    )
                elif EFFECTS.get(tool) == "external":
                    ok = user.approve(tool, arguments)
                else:
                    ok = True
                await store.approvals.decide(approval.id, ok, None, None, "scripted user")
            else:
                await store.approvals.decide(approval.id, True, None, None, "scripted user")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.01)


def bounds_for(task: Task, noisy: bool) -> ResourceBounds:
    steps = len(task.steps)
    return ResourceBounds(
        max_iterations=4 * len(task.goals) + 4,
        max_steps=6 * steps + 10 if noisy else None,
        max_wall_time_s=60.0,
        no_progress_window_s=30.0,
        retry_backoff_s=0.0,
        approval_timeout_s=30.0,
    )


async def run_solve(
    task: Task,
    seed: int | None,
    *,
    p: float = DEFAULT_P,
    data_dir: Path,
    checkpoints: bool = False,
) -> SolveRun:
    domain = Domain.fresh(task.initial)
    faults = Faults(task.id, seed, p) if seed is not None else None
    model = TaskModel(task, faults)
    user = ScriptedUser(task)
    bounds = bounds_for(task, seed is not None)
    cps = [Checkpoint(event=e, mode="notify") for e in EVENTS] if checkpoints else []
    events: list[Event] = []
    async with await Store.open(data_dir=data_dir) as store:
        solver = Solver(
            model.model,
            store=store,
            tools=domain.tools(),
            options=SolveOptions(bounds=bounds, checkpoints=cps, workspace=f"{task.id}:{seed}"),
        )
        solver.subscribe(events.append)
        stop = asyncio.Event()
        person = asyncio.create_task(decide_approvals(store, user, stop))
        try:
            final: FinalStatus = await solver.solve(task.objective)
            rounds = 0
            while final.status == "waiting" and rounds < MAX_ROUNDS:
                rounds += 1
                await asyncio.sleep(0.05)
                final = await solver.resume(final.solve_id)
        finally:
            stop.set()
            await person
        saved = await store.solves.load(final.solve_id)
    usage = (saved.state or {}).get("usage", {})
    problems = task.expected(domain.snapshot()) + task.violations(domain.calls)
    run = SolveRun(
        task=task.id,
        seed=seed,
        passed=not problems,
        problems=problems,
        status=final.status,
        unapproved_external_writes=user.unapproved(domain.calls),
        escalations=[e.reason for e in events if isinstance(e, Escalation)],
        steps=sum(isinstance(e, StepFinished) for e in events),
        step_ms=[e.duration_ms for e in events if isinstance(e, StepFinished)],
    )
    run.overrun = overruns(bounds, usage)
    if faults is not None:
        run.stalls_planted = sum(f.kind == "stall" for f in faults.planted)
        if run.stalls_planted:
            run.stall_escalated = bool(run.escalations) or final.status in ("stopped", "failed")
    if checkpoints:
        run.checkpoint_problems = checkpoint_order(events)
        run.checkpoint_order_ok = not run.checkpoint_problems
    return run


def overruns(bounds: ResourceBounds, usage: dict[str, Any]) -> list[str]:
    out = []
    if bounds.max_iterations is not None and usage.get("iterations", 0) > bounds.max_iterations:
        out.append(f"iterations {usage['iterations']} > {bounds.max_iterations}")
    if bounds.max_steps is not None and usage.get("steps", 0) > bounds.max_steps:
        out.append(f"steps {usage['steps']} > {bounds.max_steps}")
    if bounds.max_wall_time_s is not None and usage.get("elapsed_s", 0) > bounds.max_wall_time_s:
        out.append(f"elapsed {usage['elapsed_s']:.1f}s > {bounds.max_wall_time_s}")
    return out


def checkpoint_order(events: Sequence[Event]) -> list[str]:
    """The problems with the order and context of the notify checkpoints, goal by goal."""
    problems: list[str] = []
    segments: list[tuple[str, list[str]]] = []
    for event in events:
        if isinstance(event, GoalSelected):
            segments.append((event.goal_id, []))
        if not isinstance(event, CheckpointRequested) or event.mode != "notify":
            continue
        name, context = event.checkpoint, event.context
        if name == "loop_iteration_start":
            if "iteration_count" not in context or "goal_tree" not in context:
                problems.append("loop_iteration_start without iteration_count or goal_tree")
            continue
        if not segments:
            problems.append(f"{name} before any goal was selected")
            continue
        goal_id, names = segments[-1]
        names.append(name)
        needs = {
            "goal_selected": "current_goal",
            "plan_created": "plan",
            "pre_execution": "plan",
            "before_step": "step",
            "after_step": "step",
            "post_execution": "plan",
            "post_review_passed": "review_result",
            "after_goal_execution": "result",
        }[name]
        if needs not in context:
            problems.append(f"{goal_id}: {name} without {needs} in its context")
    for goal_id, names in segments:
        text = " ".join(names) + " "
        text = text.strip()
        if names and names[-1] != "after_goal_execution":
            continue  # the goal waited for a person; its order is checked when it runs again
        if not GOAL_ORDER.match(text):
            problems.append(f"{goal_id}: {text}")
    return problems


# ── kill and resume ─────────────────────────────────────────────────────────────

ROOT = str(Path(__file__).resolve().parent.parent)
CHILD_TIMEOUT_S = 60.0
CHILD = """
import asyncio, sys
from pathlib import Path
sys.path.insert(0, {root!r})
from benchmarks.solver import child_solve
asyncio.run(child_solve({task!r}, Path({data!r}), Path({shop!r}), {kill_at}))
"""


async def child_solve(task_id: str, data_dir: Path, shop: Path, kill_at: int) -> None:
    """In a child process: solve `task_id` on the shop saved at `shop`, and stop dead (the
    parent's SIGKILL) at the `kill_at`-th step start."""
    task = next(t for t in TASKS if t.id == task_id)
    domain = Domain.load(shop)
    model = TaskModel(task)
    user = ScriptedUser(task)
    started = 0
    async with await Store.open(data_dir=data_dir) as store:
        solver = Solver(model.model, store=store, tools=domain.tools(), options=SolveOptions())

        def on_event(event: Event) -> None:
            nonlocal started
            if event.type == "step_started":
                started += 1
                if started == kill_at:
                    print("KILLME", flush=True)
                    time.sleep(30)  # the parent kills the process here

        solver.subscribe(on_event)
        stop = asyncio.Event()
        person = asyncio.create_task(decide_approvals(store, user, stop))
        final = await solver.solve(task.objective)
        while final.status == "waiting":
            final = await solver.resume(final.solve_id)
        stop.set()
        await person
        print("FINISHED", flush=True)


@dataclass(slots=True)
class KillRun:
    task: str
    seed: int
    kill_at: int
    killed_step: str  # the tool of the step the child was killed at, and its effect
    killed_step_effect: str
    killed: bool
    same_end_state: bool
    repeated_calls: list[str]
    interrupted_asked: bool
    status: str


async def kill_and_resume(task: Task, seed: int, workdir: Path) -> KillRun:
    """Solve `task` in a child process, SIGKILL it as its step number `kill_at` (drawn from
    `seed`) starts, resume it here with the person deciding what the resume asks."""
    rng = random.Random(seed)
    kill_at = rng.randint(1, max(1, len(task.steps)))
    killed_step = task.steps[kill_at - 1]
    shop, data = workdir / "shop.json", workdir / "state"
    Domain.fresh(task.initial, path=shop)
    code = CHILD.format(root=ROOT, task=task.id, data=str(data), shop=str(shop), kill_at=kill_at)
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, stdout=asyncio.subprocess.PIPE, cwd=ROOT
    )
    assert child.stdout is not None
    killed = False
    async with asyncio.timeout(CHILD_TIMEOUT_S):
        while line := await child.stdout.readline():
            if line.startswith(b"KILLME"):
                os.kill(child.pid, signal.SIGKILL)
                killed = True
                break
        await child.wait()
    domain = Domain.load(shop)
    model = TaskModel(task)
    model.asked_questions = True
    user = ScriptedUser(task)
    # The calls that ran before the kill were approved then (the child's user).
    for made in domain.calls:
        if EFFECTS[made.tool] == "external":
            user.approve(made.tool, made.arguments)
    interrupted_asked = False
    async with await Store.open(data_dir=data) as store:
        (record,) = await store.solves.list()
        solver = Solver(model.model, store=store, tools=domain.tools(), options=SolveOptions())
        stop = asyncio.Event()
        person = asyncio.create_task(decide_approvals(store, user, stop, domain))
        # The killed child's lease is taken over at once: its process is gone.
        final = await solver.resume(record.id)
        while final.status == "waiting":
            final = await solver.resume(final.solve_id)
        stop.set()
        await person
        for approval in await store.approvals.list(solve_id=record.id, limit=1000):
            if approval.kind == "step" and approval.context.get("interrupted"):
                interrupted_asked = True
    reference = Domain.fresh(task.initial)
    for step in task.steps:
        reference.run(step.tool, step.arguments)
    seen: dict[str, int] = {}
    for made in domain.calls:
        key = f"{made.tool}({json.dumps(made.arguments, sort_keys=True)})"
        seen[key] = seen.get(key, 0) + 1
    expected_counts: dict[str, int] = {}
    for step in task.steps:
        key = f"{step.tool}({json.dumps(step.arguments, sort_keys=True)})"
        expected_counts[key] = expected_counts.get(key, 0) + 1
    repeated = [
        k
        for k, n in seen.items()
        if n > expected_counts.get(k, 0) and EFFECTS[k.split("(")[0]] != "read"
    ]
    return KillRun(
        task=task.id,
        seed=seed,
        kill_at=kill_at,
        killed_step=killed_step.tool,
        killed_step_effect=killed_step.effect,
        killed=killed,
        same_end_state=domain.snapshot() == reference.snapshot(),
        repeated_calls=repeated,
        interrupted_asked=interrupted_asked,
        status=final.status,
    )


# ── the report ──────────────────────────────────────────────────────────────────


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    wanted = [t for t in args.tasks.split(",") if t]
    tasks = [t for t in TASKS if not wanted or t.id in wanted]
    seeds = list(range(args.seeds))
    report: dict[str, Any] = {"command": "python -m benchmarks.solver " + " ".join(sys.argv[1:])}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        # Tier 1
        oracle = [
            await run_solve(t, None, data_dir=base / f"o-{t.id}", checkpoints=True) for t in tasks
        ]
        kills = []
        for i, seed in enumerate(args.kill_seeds):
            kill_task = [t for t in tasks if len(t.steps) >= 2][seed % len(tasks)]
            folder = base / f"kill-{i}"
            folder.mkdir()
            kills.append(await kill_and_resume(kill_task, seed, folder))
        tier1 = {
            "tasks": len(tasks),
            "reached_expected_end_state": sum(r.passed for r in oracle),
            "failed": {r.task: r.problems for r in oracle if not r.passed},
            "checkpoint_order_ok": all(r.checkpoint_order_ok for r in oracle),
            "checkpoint_problems": {
                r.task: r.checkpoint_problems for r in oracle if r.checkpoint_problems
            },
            "kill_and_resume": [
                vars(k) if not hasattr(k, "__slots__") else {s: getattr(k, s) for s in k.__slots__}
                for k in kills
            ],
            "unapproved_external_writes": sum(r.unapproved_external_writes for r in oracle),
        }
        kill_ok = bool(kills) and all(
            k.killed
            and k.same_end_state
            and not k.repeated_calls
            and k.interrupted_asked == (k.killed_step_effect != "read")
            for k in kills
        )
        # Tier 2
        noisy = [
            await run_solve(t, s, p=args.p, data_dir=base / f"n-{t.id}-{s}")
            for s in seeds
            for t in tasks
        ]
        baseline, _ = await run_baseline(tasks, seeds, p=args.p)
        solver_k = pass_hat_k(noisy)
        base_k = baseline["noisy"][f"pass^{len(seeds)}"]
        stalls = [r for r in noisy if r.stalls_planted]
        tier2 = {
            "p": args.p,
            "seeds": seeds,
            f"solver_pass^{len(seeds)}": solver_k,
            f"baseline_pass^{len(seeds)}": base_k,
            "points_above_baseline": round(100 * (solver_k - base_k), 1),
            "solver_pass_rate": round(sum(r.passed for r in noisy) / len(noisy), 4),
            "baseline_pass_rate": baseline["noisy"]["pass_rate"],
            "budget_overruns": sum(bool(r.overrun) for r in noisy),
            "runs_with_stalls": len(stalls),
            "stalls_escalated": sum(r.stall_escalated for r in stalls),
            "unapproved_external_writes": sum(r.unapproved_external_writes for r in noisy),
            "failed_runs": [f"{r.task}@{r.seed}" for r in noisy if not r.passed],
        }
        # Overhead
        overhead = await measure_overhead(tasks, base / "overhead")
        # Tier 3
        tier3: dict[str, Any] = (
            {"skipped": True, "why": "--skip-local"}
            if args.skip_local
            else await run_local(tasks, base / "local", args.local_deadline)
        )
    bars = {
        "tier1_all_tasks": tier1["reached_expected_end_state"] == len(tasks),
        "tier1_checkpoint_order": tier1["checkpoint_order_ok"],
        "tier1_kill_and_resume": kill_ok,
        "tier1_no_unapproved_writes": tier1["unapproved_external_writes"] == 0,
        "tier2_20_points_above_baseline": tier2["points_above_baseline"] >= 20,
        "tier2_no_budget_overruns": tier2["budget_overruns"] == 0,
        "tier2_stalls_escalate": tier2["stalls_escalated"] == len(stalls),
        "overhead_median_le_5ms": overhead["median_ms_per_step"] <= 5.0,
    }
    report.update(
        tier1_oracle=tier1,
        tier2_noisy=tier2,
        tier3=tier3,
        overhead=overhead,
        bars=bars,
        all_bars_met=all(bars.values()),
    )
    return report


async def measure_overhead(tasks: Sequence[Task], folder: Path, repeats: int = 3) -> dict[str, Any]:
    """The solver's own time per step, beyond the tool call: from a step's `before_step`
    checkpoint to the next step's (or the plan's `post_execution`), less the tool call's own
    time (`StepFinished.duration_ms`). What it includes: the checkpoints, the tool policy,
    the dry run, the step journal written before and after, the ledger, the state saved.
    Clear tasks only (no person to wait for), the oracle model, SQLite; `repeats` solves each."""
    per_step: list[float] = []
    marks = [Checkpoint(event=e, mode="notify") for e in ("before_step", "post_execution")]
    for n in range(repeats):
        for t in tasks:
            if t.needs_clarification or t.needs_approval:
                continue
            domain = Domain.fresh(t.initial)
            model = TaskModel(t)
            timed: list[tuple[float, Event]] = []
            async with await Store.open(data_dir=folder / f"{t.id}-{n}") as store:
                solver = Solver(
                    model.model,
                    store=store,
                    tools=domain.tools(),
                    options=SolveOptions(checkpoints=marks),
                )
                solver.subscribe(partial(_timed, timed))
                stop = asyncio.Event()
                person = asyncio.create_task(decide_approvals(store, ScriptedUser(t), stop))
                await solver.solve(t.objective)
                stop.set()
                await person
            start: float | None = None
            tool_ms = 0.0
            for at, event in timed:
                if isinstance(event, StepFinished):
                    tool_ms = event.duration_ms
                if not isinstance(event, CheckpointRequested):
                    continue
                if event.mode != "notify":  # a person was asked: not the solver's time
                    start = None
                    continue
                if start is not None:
                    per_step.append((at - start) * 1000 - tool_ms)
                start = at if event.checkpoint == "before_step" else None
    return {
        "what": (
            "ms per step from before_step to the next boundary, less the tool call; "
            "checkpoints, dry run, step journal, state save included; oracle model, SQLite"
        ),
        "median_ms_per_step": round(statistics.median(per_step), 3) if per_step else 0.0,
        "p90_ms_per_step": round(statistics.quantiles(per_step, n=10)[-1], 3)
        if len(per_step) > 1
        else 0.0,
        "steps": len(per_step),
    }


def _timed(into: list[tuple[float, Event]], event: Event) -> None:
    into.append((time.perf_counter(), event))


# ── tier 3: the embedded model ──────────────────────────────────────────────────

LOCAL_MODEL = "local:smollm2"
LOCAL_DEADLINE_S = 45.0  # a task's wall time, resumes included: the solve is cancelled then
LOCAL_GRACE_S = 30.0  # a cancelled solve must end within this, or it is reported as an error
# A tool no task needs, denied by the tool policy, so that plans naming a denied tool show.
LOCAL_DENIED = frozenset({"list_files"})
CATEGORIES = ("done", "failed", "needs_clarification", "stopped", "waiting", "error")
CLARIFYING = ("needs_clarification", "human_tasks", "too_difficult", "still_too_difficult")


def local_bounds(task: Task, deadline_s: float) -> ResourceBounds:
    """Tight bounds for a slow model: few iterations and steps, one transient retry, and a
    solve time under the task's deadline (the solver checks it between steps)."""
    return ResourceBounds(
        max_iterations=2 * len(task.goals) + 2,
        max_steps=2 * len(task.steps) + 4,
        max_wall_time_s=0.6 * deadline_s,
        no_progress_window_s=0.6 * deadline_s,
        retry_limit=1,
        retry_backoff_s=0.0,
        approval_timeout_s=30.0,
        max_steps_per_plan=8,
    )


@dataclass(slots=True)
class LocalRun:
    task: str
    category: str  # one of CATEGORIES
    status: str
    stop_reason: str | None
    reached_expected_end_state: bool
    problems: list[str]
    goal_tree: str  # first_try, after_retries, never
    goal_tree_attempts: int
    answers_without_a_call: int  # structured requests answered in text, not by the tool
    empty_answers: int  # of those, the answers with no text either
    plan_answers: int  # answers to a request for a plan (valid or not)
    plan_tools: list[list[str]]  # the tools each of those answers names
    plans_created: int
    plans_naming_unknown_tools: int  # answers naming a tool that does not exist
    plans_naming_denied_tools: int  # answers naming a tool the policy denies
    plans_accepted_with_unknown_or_denied_tools: int  # must be 0: such a plan is refused
    steps: int
    steps_with_unknown_or_denied_tools: int  # must be 0
    questions_asked: int  # follow-ups the scripted user was asked (questions, failures)
    step_approvals_asked: int  # steps the scripted user was asked to approve
    escalations: list[str]
    external_writes: int
    approvals_given: int
    approvals_refused: int
    unapproved_external_writes: int
    overrun: list[str]
    solver_tokens: int  # as the solve's usage counts them
    model_tokens: int  # as the model reported them, every call
    model_calls: dict[str, int]
    model_s: float
    wall_s: float
    rounds: int
    deadline_hit: bool
    error: dict[str, Any] | None = None


async def run_local(
    tasks: Sequence[Task], folder: Path, deadline_s: float = LOCAL_DEADLINE_S
) -> dict[str, Any]:
    """Tier 3: every task solved by the embedded model, with the tier 1 shop, scripted user
    and approvals; reported, not a bar. An exception out of the solver is recorded with the
    task (type, message, traceback, the model's last exchanges) and the next task runs."""
    from tiller.models.registry import resolve_model

    started = time.perf_counter()
    model = ObservedModel(resolve_model(LOCAL_MODEL))
    load = getattr(model.model, "load", None)
    if callable(load):
        await asyncio.to_thread(load)
    load_s = time.perf_counter() - started
    runs = []
    for task in tasks:
        model.reset()
        runs.append(await run_local_task(task, model, folder / f"l-{task.id}", deadline_s))
    return local_report(runs, deadline_s, load_s)


async def run_local_task(
    task: Task, model: ObservedModel, data_dir: Path, deadline_s: float
) -> LocalRun:
    domain = Domain.fresh(task.initial)
    user = ScriptedUser(task)
    bounds = local_bounds(task, deadline_s)
    tools = domain.tools()
    known = {t.name for t in tools}
    governance = Governance(tool_policy=ToolPolicy("the shop's policy", deny=LOCAL_DENIED))
    events: list[Event] = []
    error: dict[str, Any] | None = None
    final: FinalStatus | None = None
    rounds = 0
    tree_attempts = 0
    start = time.perf_counter()
    loop = asyncio.get_running_loop()
    async with await Store.open(data_dir=data_dir) as store:
        solver = Solver(
            model,
            store=store,
            tools=tools,
            governance=governance,
            options=SolveOptions(bounds=bounds, workspace=f"local:{task.id}"),
        )
        solver.subscribe(events.append)
        deadline = loop.call_later(deadline_s, solver.cancel.cancel, "deadline")
        stop = asyncio.Event()
        person = asyncio.create_task(decide_approvals(store, user, stop))
        where = "solve"
        try:
            async with asyncio.timeout(deadline_s + LOCAL_GRACE_S):
                final = await solver.solve(task.objective)
                tree_attempts = model.count("propose_goals")
                where = "resume"
                while (
                    final.status == "waiting"
                    and rounds < MAX_ROUNDS
                    and not solver.cancel.cancelled
                ):
                    rounds += 1
                    await asyncio.sleep(0.05)
                    final = await solver.resume(final.solve_id)
        except TimeoutError:
            error = _error_data(where, None, model)
            error["type"] = "NoEndAfterCancel"
            error["message"] = (
                f"the solve did not end within {LOCAL_GRACE_S:.0f} s of its cancellation"
            )
        except Exception as exc:  # the machinery must not crash: a finding, and go on
            error = _error_data(where, exc, model)
        finally:
            deadline.cancel()
            stop.set()
            try:
                await person
            except Exception as exc:
                error = error or _error_data("scripted user", exc, model)
        asked = await store.approvals.list(limit=1000)
    wall_s = time.perf_counter() - start
    if final is None and where == "solve":
        tree_attempts = model.count("propose_goals")
    usage = final.usage if final is not None else {}
    tree_built = final is not None and bool(final.goals)
    plans = [e for e in events if isinstance(e, PlanCreated)]
    answers: list[list[str]] = [
        named_tools(e.arguments)
        for e in events
        if isinstance(e, ToolExecutionStart) and e.tool_name == "submit_plan"
    ]
    answers += [named_tools(text) for text in model.text_answers.get("submit_plan", [])]
    flagged = [refusable(names, known, LOCAL_DENIED.__contains__) for names in answers]
    created = [
        refusable(
            [str(s.get("tool")) for s in e.plan.get("steps", []) if s.get("tool")],
            known,
            LOCAL_DENIED.__contains__,
        )
        for e in plans
    ]
    ran = [e.tool for e in events if isinstance(e, StepStarted) and e.tool]
    problems = task.expected(domain.snapshot()) + task.violations(domain.calls)
    if error is not None or final is None:
        category = "error"
    elif final.status == "waiting":
        category = (
            "needs_clarification"
            if final.stop_reason in CLARIFYING or final.stop_reason is None
            else "waiting"
        )
    else:
        category = final.status if final.status in CATEGORIES else "stopped"
    tokens = int(usage.get("input_tokens", 0)) + int(usage.get("output_tokens", 0))
    return LocalRun(
        task=task.id,
        category=category,
        status=final.status if final is not None else "error",
        stop_reason=final.stop_reason if final is not None else None,
        reached_expected_end_state=not problems,
        problems=problems[:5],
        goal_tree=(
            "never" if not tree_built else "first_try" if tree_attempts <= 1 else "after_retries"
        ),
        goal_tree_attempts=tree_attempts,
        answers_without_a_call=sum(len(texts) for texts in model.text_answers.values()),
        empty_answers=sum(not t.strip() for texts in model.text_answers.values() for t in texts),
        plan_answers=len(answers),
        plan_tools=answers,
        plans_created=len(plans),
        plans_naming_unknown_tools=sum(bool(unknown) for unknown, _ in flagged),
        plans_naming_denied_tools=sum(bool(denied) for _, denied in flagged),
        plans_accepted_with_unknown_or_denied_tools=sum(bool(u or d) for u, d in created),
        steps=sum(isinstance(e, StepFinished) for e in events),
        steps_with_unknown_or_denied_tools=sum(
            name not in known or name in LOCAL_DENIED for name in ran
        ),
        questions_asked=sum(a.kind == "follow_up" for a in asked),
        step_approvals_asked=sum(a.kind == "step" for a in asked),
        escalations=[e.reason for e in events if isinstance(e, Escalation)],
        external_writes=sum(EFFECTS[c.tool] == "external" and c.ok for c in domain.calls),
        approvals_given=len(user.approved),
        approvals_refused=len(user.rejected),
        unapproved_external_writes=user.unapproved(domain.calls),
        overrun=overruns(bounds, usage),
        solver_tokens=tokens,
        model_tokens=model.input_tokens + model.output_tokens,
        model_calls=dict(model.calls),
        model_s=round(model.seconds, 2),
        wall_s=round(wall_s, 2),
        rounds=rounds,
        deadline_hit=solver.cancel.cancelled,
        error=error,
    )


def _error_data(where: str, exc: BaseException | None, model: ObservedModel) -> dict[str, Any]:
    """What a report shows of an exception: where, what, the traceback, and the model's last
    exchanges (the input the machinery failed on)."""
    return {
        "where": where,
        "type": type(exc).__name__ if exc is not None else "",
        "message": str(exc)[:2_000] if exc is not None else "",
        "traceback": "".join(traceback.format_exception(exc))[-6_000:] if exc else "",
        "last_exchanges": [x.as_data() for x in model.recent],
    }


def local_report(runs: Sequence[LocalRun], deadline_s: float, load_s: float) -> dict[str, Any]:
    walls = [r.wall_s for r in runs]
    categories = {c: sum(r.category == c for r in runs) for c in CATEGORIES}
    reasons: dict[str, int] = {}
    for r in runs:
        for reason in r.escalations:
            reasons[reason] = reasons.get(reason, 0) + 1
    return {
        "model": LOCAL_MODEL,
        "what": (
            "reported, not a bar: the solver on the embedded model, the tier 1 shop, scripted "
            f"user and approvals; a task is cancelled after {deadline_s:.0f} s of wall time; "
            f"the tool policy denies {sorted(LOCAL_DENIED)} (no task needs them)"
        ),
        "tasks": len(runs),
        "final_status": categories,
        "reached_expected_end_state": sum(r.reached_expected_end_state for r in runs),
        "goal_trees": {
            k: sum(r.goal_tree == k for r in runs) for k in ("first_try", "after_retries", "never")
        },
        "structured_requests": sum(n for r in runs for asked, n in r.model_calls.items() if asked),
        "answers_without_a_call": sum(r.answers_without_a_call for r in runs),
        "empty_answers": sum(r.empty_answers for r in runs),
        "plan_answers": sum(r.plan_answers for r in runs),
        "plans_created": sum(r.plans_created for r in runs),
        "plans_naming_unknown_tools_rejected": sum(r.plans_naming_unknown_tools for r in runs),
        "plans_naming_denied_tools_rejected": sum(r.plans_naming_denied_tools for r in runs),
        "plans_accepted_with_unknown_or_denied_tools": sum(
            r.plans_accepted_with_unknown_or_denied_tools for r in runs
        ),
        "steps_executed": sum(r.steps for r in runs),
        "steps_with_unknown_or_denied_tools": sum(
            r.steps_with_unknown_or_denied_tools for r in runs
        ),
        "questions_asked": sum(r.questions_asked for r in runs),
        "step_approvals_asked": sum(r.step_approvals_asked for r in runs),
        "escalations": sum(len(r.escalations) for r in runs),
        "escalations_by_reason": dict(sorted(reasons.items())),
        "external_writes": sum(r.external_writes for r in runs),
        "unapproved_external_writes": sum(r.unapproved_external_writes for r in runs),
        "budget_overruns": sum(bool(r.overrun) for r in runs),
        "overruns": {r.task: r.overrun for r in runs if r.overrun},
        "deadline_hits": sum(r.deadline_hit for r in runs),
        "errors": {r.task: r.error for r in runs if r.error is not None},
        "tokens_not_in_solver_usage": sum(max(0, r.model_tokens - r.solver_tokens) for r in runs),
        "model_load_s": round(load_s, 2),
        "wall_s": {
            "total": round(sum(walls), 1),
            "median": round(statistics.median(walls), 2) if walls else 0.0,
            "max": round(max(walls), 2) if walls else 0.0,
        },
        "per_task": [{s: getattr(r, s) for s in r.__slots__} for r in runs],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--p", type=float, default=DEFAULT_P)
    parser.add_argument("--tasks", default="")
    parser.add_argument("--skip-local", action="store_true", help="leave tier 3 out")
    parser.add_argument(
        "--local-deadline",
        type=float,
        default=LOCAL_DEADLINE_S,
        help="tier 3: a task's wall time in seconds, after which its solve is cancelled",
    )
    parser.add_argument("--kill-seeds", type=int, nargs="*", default=list(range(1, 9)))
    args = parser.parse_args(argv)
    report = asyncio.run(main_async(args))
    json.dump(report, sys.stdout, indent=2, default=str)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
