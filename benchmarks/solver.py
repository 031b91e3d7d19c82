"""The goal solver on the shop benchmark (`benchmarks/solver_tasks/`), three tiers. Prints JSON
with every figure and `all_bars_met`.

    .venv/bin/python -m benchmarks.solver [--skip-local] [--seeds 4] [--p 0.2] [--tasks ID,...]

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
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from tiller.events import CheckpointRequested, Escalation, Event, GoalSelected, StepFinished
from tiller.models.base import ModelRequest
from tiller.solve.bounds import ResourceBounds
from tiller.solve.checkpoints import Checkpoint
from tiller.solve.final_status import FinalStatus
from tiller.solve.solver import SolveOptions, Solver
from tiller.store import Lease, SolveBusyError, Store
from tiller.testing import FunctionModel, Reply, call

from .solver_tasks.baseline import pass_hat_k, run_baseline
from .solver_tasks.domain import EFFECTS, Domain
from .solver_tasks.faults import DEFAULT_P, STALL_FALLBACK, Faults
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


async def free_dead_lease(store: Store, solve_id: str) -> None:
    """Release the lease the killed child held (the store keeps a dead holder's lease until
    it expires, 30 s; the parent knows the holder is dead, as an operator would)."""
    try:
        lease = await store.leases.claim(solve_id, "probe", seconds=0.001)
    except SolveBusyError as busy:
        await store.leases.release(Lease(solve_id, str(busy.holder), busy.expires_at))
    else:
        await store.leases.release(lease)


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
        await free_dead_lease(store, record.id)
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
    tier3: dict[str, Any] = (
        {"skipped": True, "why": "--skip-local"} if args.skip_local else await run_local(tasks)
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
        tier3_local=tier3,
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


async def run_local(tasks: Sequence[Task]) -> dict[str, Any]:
    return {"skipped": True, "why": "the embedded-model tier is not implemented yet"}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--p", type=float, default=DEFAULT_P)
    parser.add_argument("--tasks", default="")
    parser.add_argument("--skip-local", action="store_true")
    parser.add_argument("--kill-seeds", type=int, nargs="*", default=list(range(1, 9)))
    args = parser.parse_args(argv)
    report = asyncio.run(main_async(args))
    json.dump(report, sys.stdout, indent=2, default=str)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
