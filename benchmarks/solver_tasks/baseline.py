"""The plain-`Agent` baseline: each task run by a `tiller.Agent` whose model follows the
oracle as tool calls, with or without planted faults; the end state decides. Prints JSON.

    .venv/bin/python -m benchmarks.solver_tasks.baseline [--seeds 4] [--p 0.2]
        [--max-turns 40] [--tasks ID,...] [--details]

How a run goes (τ-bench style): the agent gets the task's objective, the shop's tools
and the policy as its system prompt. Its model (`FunctionModel`) replays the oracle's
actions (`faults.oracle_actions`, or `faults.noisy_actions` for a seed): a question
ends the agent's run, the scripted user answers it and the agent runs again (at most
`ROUNDS` answers); a tool call is made; the last word ends the run. The person the run
works for approves external actions through the agent's governance
(`before_tool_execution`): the ones the task asks for are approved, once each; any
other is denied and does not run. The task passes when the end state has no problem
(`Task.expected`) and no forbidden action ran (`Task.violations`).

Figures: `pass_rate` (passed runs / runs) and `pass^k` (the fraction of tasks that
pass on every one of the k seeds), without faults (`oracle`) and with them (`noisy`);
`unapproved_external_writes` (external actions that ran without the person's
approval: 0 by construction of the gate, counted all the same); the faults planted,
by kind, with how many of the runs they were planted in still passed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tiller import Agent
from tiller.loop.hooks import BeforeToolHook, BeforeVerdict, Deny
from tiller.loop.limits import Limits
from tiller.loop.options import Execution, Governance
from tiller.models.base import ModelRequest
from tiller.testing import FunctionModel, Reply, call

from .domain import EFFECTS, Domain
from .faults import DEFAULT_P, Action, CallTool, PlantedFault, Say, noisy_actions, oracle_actions
from .tasks import TASKS, ScriptedUser, Task

ROUNDS = 3  # answers the scripted user gives in one task, at most
MAX_TURNS = 40  # model calls in one agent run, at most

SYSTEM_PROMPT = "You are the support assistant of a small online shop.\n\n{policy}"


class OracleFollower:
    """A `FunctionModel`'s function: the next action of the stream, one per request. A
    stall repeats its call forever; past the end, it says it is done."""

    def __init__(self, actions: Sequence[Action]) -> None:
        self.actions: deque[Action] = deque(actions)

    def __call__(self, request: ModelRequest) -> Reply:
        if not self.actions:
            return Reply("Done.")
        action = self.actions[0]
        if isinstance(action, Say):
            self.actions.popleft()
            return Reply(action.text)
        if isinstance(action, CallTool):
            self.actions.popleft()
        return Reply(calls=[call(action.tool, dict(action.arguments))])


def approval_gate(user: ScriptedUser) -> BeforeToolHook:
    """Ask the person before any external action; a denied one does not run."""

    def before(name: str, call_id: str, arguments: dict[str, Any]) -> BeforeVerdict:
        if EFFECTS.get(name) != "external" or user.approve(name, arguments):
            return None
        return Deny("The person you work for did not approve this action. Do not retry it.")

    return before


@dataclass(slots=True)
class TaskRun:
    task: str
    seed: int | None  # None: no faults
    passed: bool
    problems: list[str]
    faults: list[PlantedFault] = field(default_factory=list)
    unapproved_external_writes: int = 0
    rejected_approvals: int = 0
    questions_answered: int = 0
    model_calls: int = 0
    stopped_by: str | None = None

    def to_data(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "seed": self.seed,
            "passed": self.passed,
            "problems": self.problems,
            "faults": [f"{f.kind} at step {f.position + 1}: {f.detail}" for f in self.faults],
            "unapproved_external_writes": self.unapproved_external_writes,
            "rejected_approvals": self.rejected_approvals,
            "questions_answered": self.questions_answered,
            "model_calls": self.model_calls,
            "stopped_by": self.stopped_by,
        }


async def run_task(
    task: Task, seed: int | None = None, *, p: float = DEFAULT_P, max_turns: int = MAX_TURNS
) -> TaskRun:
    """Run one task with a plain `Agent` (faults planted for `seed`; none when None)."""
    domain = Domain.fresh(task.initial)
    faults: list[PlantedFault] = []
    if seed is None:
        actions = oracle_actions(task)
    else:
        actions, faults = noisy_actions(task, seed, p)
    user = ScriptedUser(task)
    model = FunctionModel(OracleFollower(actions), name="oracle" if seed is None else "noisy")
    agent = Agent(
        model,
        tools=domain.tools(),
        system_prompt=SYSTEM_PROMPT.format(policy=task.policy),
        governance=Governance(before_tool_execution=approval_gate(user)),
        execution=Execution(limits=Limits(max_turns=max_turns)),
    )
    result = await agent.run(task.objective)
    answered = 0
    while answered < ROUNDS and result.stop_reason != "error":
        reply = user.answer(result.text)
        if reply is None:
            break
        answered += 1
        result = await agent.run(reply)
    problems = task.expected(domain.snapshot()) + task.violations(domain.calls)
    if result.stop_reason == "error":
        problems.append(f"the run failed: {result.error}")
    return TaskRun(
        task=task.id,
        seed=seed,
        passed=not problems,
        problems=problems,
        faults=faults,
        unapproved_external_writes=user.unapproved(domain.calls),
        rejected_approvals=len(user.rejected),
        questions_answered=answered,
        model_calls=len(model.requests),
        stopped_by=result.stopped_by,
    )


class Run(Protocol):
    """A run of a task: which task, and whether it passed."""

    @property
    def task(self) -> str: ...

    @property
    def passed(self) -> bool: ...


def pass_hat_k(runs: Sequence[Run]) -> float:
    """The fraction of tasks whose every run passed (pass^k over the runs' seeds)."""
    by_task: dict[str, bool] = {}
    for run in runs:
        by_task[run.task] = by_task.get(run.task, True) and run.passed
    return round(sum(by_task.values()) / len(by_task), 4) if by_task else 0.0


def _pass_rate(runs: Sequence[TaskRun]) -> float:
    return round(sum(r.passed for r in runs) / len(runs), 4) if runs else 0.0


def _group(task: Task) -> str:
    if task.needs_clarification:
        return "clarification"
    return "approval" if task.needs_approval else "clear"


async def run_baseline(
    tasks: Sequence[Task] = TASKS,
    seeds: Sequence[int] = (0, 1, 2, 3),
    *,
    p: float = DEFAULT_P,
    max_turns: int = MAX_TURNS,
) -> tuple[dict[str, Any], list[TaskRun]]:
    """Every task without faults, then with faults for each seed: the figures and the runs."""
    oracle = [await run_task(t, None, p=p, max_turns=max_turns) for t in tasks]
    noisy = [await run_task(t, s, p=p, max_turns=max_turns) for s in seeds for t in tasks]
    group_of = {t.id: _group(t) for t in tasks}
    groups = {
        name: pass_hat_k([r for r in noisy if group_of[r.task] == name])
        for name in ("clear", "approval", "clarification")
    }
    planted: Counter[str] = Counter()
    survived: Counter[str] = Counter()
    for run in noisy:
        for kind in {f.kind for f in run.faults}:
            planted[kind] += 1
            survived[kind] += run.passed
    report = {
        "agent": "plain tiller.Agent, FunctionModel following the oracle",
        "tasks": len(tasks),
        "p": p,
        "seeds": list(seeds),
        "max_turns": max_turns,
        "oracle": {
            "pass_rate": _pass_rate(oracle),
            "failed": [r.task for r in oracle if not r.passed],
        },
        "noisy": {
            "pass_rate": _pass_rate(noisy),
            f"pass^{len(seeds)}": pass_hat_k(noisy),
            f"pass^{len(seeds)}_by_group": groups,
            "runs_with_faults": sum(bool(r.faults) for r in noisy),
            "runs_with_faults_passed": sum(bool(r.faults) and r.passed for r in noisy),
            "faults_planted": sum(len(r.faults) for r in noisy),
            "runs_by_fault_kind": {k: planted[k] for k in sorted(planted)},
            "runs_passed_by_fault_kind": {k: survived[k] for k in sorted(planted)},
        },
        "unapproved_external_writes": sum(r.unapproved_external_writes for r in oracle + noisy),
        "forbidden_actions_run": sum(
            1 for r in oracle + noisy for problem in r.problems if " ran: " in problem
        ),
    }
    return report, oracle + noisy


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seeds", type=int, default=4, help="seeds 0..N-1 (default 4)")
    parser.add_argument("--p", type=float, default=DEFAULT_P, help="fault probability per step")
    parser.add_argument("--max-turns", type=int, default=MAX_TURNS)
    parser.add_argument("--tasks", default="", help="comma-separated task ids (default all)")
    parser.add_argument("--details", action="store_true", help="every run, with its problems")
    args = parser.parse_args(argv)
    wanted = [t for t in args.tasks.split(",") if t]
    unknown = sorted(set(wanted) - {t.id for t in TASKS})
    if unknown:
        parser.error(f"unknown task ids: {', '.join(unknown)}")
    tasks = [t for t in TASKS if not wanted or t.id in wanted]
    report, runs = asyncio.run(
        run_baseline(tasks, range(args.seeds), p=args.p, max_turns=args.max_turns)
    )
    if args.details:
        report["runs"] = [r.to_data() for r in runs]
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
