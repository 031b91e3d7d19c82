"""The solving loop of one solve, and the record of its steps.

Each iteration: the resource bounds (a spent one escalates and stops the solve), the
`loop_iteration_start` checkpoint, the next goal (the ready goal of highest priority;
none left ends the loop), the `goal_selected` checkpoint, the goal's execution, the
`after_goal_execution` checkpoint, and the goal tree's update. A goal that waits for a
person (a question, a halted checkpoint, a refused approval) queues a follow-up in the
approvals and stops the solve as `waiting`.

A goal's execution: the depth bound; a plan (`plan_created` checkpoint; an edited plan
given with the approval replaces it); information gathered when the plan is not well
defined (in auto mode by running its first read-only step, else by asking the
questions); decomposition into sub-goals when it is too difficult; retrieved data
checked for provenance and age; a final check of its tools; the `pre_execution`
checkpoint; the plan carried out (`tiller.solve.execution`), retried only after
transient failures, with backoff; a review against the goal's acceptance criteria. A
passed review completes the goal and forwards its outputs to the goals that depend on
it (`post_review_passed` checkpoint). A failed one is analysed, the plan adjusted once
(or, when still too difficult, decomposed and handed to a person), carried out and
reviewed again.

Every step is written down before it runs; its outcome and the state that has it done
are saved together after (`StepRecorder`).
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from tiller.cancellation import CancelToken
from tiller.events import Escalation, Event, GoalSelected, PlanCreated, SolveEnd
from tiller.loop.options import Governance
from tiller.models.base import Model
from tiller.solve.approval_gate import ApprovalGate, plain
from tiller.solve.bounds import exceeded
from tiller.solve.execution import Workbench, execute_plan, is_transient
from tiller.solve.final_status import FinalStatus, final_status
from tiller.solve.framework import profile_of, select_mode
from tiller.solve.goal_proposal import construct_goal_tree
from tiller.solve.goals import Criterion, Goal, GoalStatus
from tiller.solve.options import SolveOptions
from tiller.solve.plans import Plan, StepStatus, create_plan
from tiller.solve.research import Document, as_context, research_problems
from tiller.solve.results import Result, Status, normalize_result
from tiller.solve.resumption import settle_interrupted_steps, take_answers
from tiller.solve.review import Review, review_goal
from tiller.solve.state import SolveState, SolveStatus, ToolStats
from tiller.solve.structured import StructuredOutputError
from tiller.solve.tool_calls import call_tool
from tiller.solve.understanding import first_probe, learning_by_doing, validate_understanding
from tiller.store import Lease, Store
from tiller.store.learning import LearningKind
from tiller.tools.base import Tool
from tiller.tools.effects import ToolEffect


class Solver(Protocol):
    """What the loop uses of the `Solver` that runs it."""

    model: Model
    store: Store
    tools: list[Tool]
    governance: Governance
    options: SolveOptions
    cancel: CancelToken

    def emit(self, event: Event) -> None: ...


HALTS = ("checkpoint_halt", "approval_not_granted", "stop_conditions_triggered")


class SolvingLoop:
    """One solve, run by this process: started or resumed, then goal by goal."""

    def __init__(
        self, solver: Solver, solve_id: str, state: SolveState, version: int, lease: Lease
    ) -> None:
        self.solver = solver
        self.lease = lease
        self.failed_in_a_row = 0
        self.trace: list[dict[str, Any]] = []
        self.solve_id = solve_id
        self.state = state
        self.version = version
        self.loop_id = f"solve-{solve_id[:12]}"
        self.gate = ApprovalGate(
            solver.store,
            solve_id,
            solver.options.checkpoints,
            solver.emit,
            loop_id=self.loop_id,
            default_timeout_s=state.bounds.approval_timeout_s,
        )
        self.bench = Workbench(
            solve_id=solve_id,
            model=solver.model,
            tools=solver.tools,
            mode=state.mode,
            governance=solver.governance,
            bounds=state.bounds,
            usage=state.usage,
            gate=self.gate,
            record=StepRecorder(self),
            emit=solver.emit,
            cancel=solver.cancel,
            loop_id=self.loop_id,
            ledger=state.ledger,
            rules=solver.options.rules,
        )

    # ── starting and resuming ───────────────────────────────────────────────

    async def start(self) -> FinalStatus:
        self.bench.tick()
        try:
            tree, answer = await construct_goal_tree(
                self.solver.model,
                self.state.objectives,
                context=await self._learned(),
                **self._asking(),
            )
        except StructuredOutputError as exc:
            self._spent(exc.usage)
            self._escalate("no_goal_tree", str(exc))
            return await self._finish(SolveStatus.FAILED, "no_goal_tree")
        self.state.tree = tree
        self._spent(answer.usage)
        if self.solver.options.mode is None:
            self.state.mode = select_mode(profile_of(tree, self.solver.tools))
        self.bench.mode = self.state.mode
        await self._save()
        return await self._loop()

    async def resume(self) -> FinalStatus:
        await self.solver.store.approvals.expire_overdue()
        await settle_interrupted_steps(self.solver.store, self.solve_id, self.state, self.gate)
        await take_answers(self.solver.store, self.state)
        self.state.status = SolveStatus.RUNNING
        self.state.stop_reason = None
        await self._save()
        return await self._loop()

    # ── the solving loop ────────────────────────────────────────────────────

    async def _loop(self) -> FinalStatus:
        state, tree = self.state, self.state.tree
        while tree.has_remaining():
            self.bench.tick()
            spent = exceeded(state.bounds, state.usage)
            if spent is not None:
                self._escalate(spent, f"used: {plain(state.usage)}")
                return await self._finish(SolveStatus.STOPPED, spent)
            context = {"goal_tree": tree, "iteration_count": state.usage.iterations}
            if (await self.gate.checkpoint("loop_iteration_start", context)).halts:
                return await self._finish(SolveStatus.STOPPED, "checkpoint_halt_loop_iteration")
            goal = tree.select_next()
            if goal is None:
                break
            self.solver.emit(
                GoalSelected(
                    solve_id=self.solve_id,
                    goal_id=goal.id,
                    title=goal.title,
                    iteration=state.usage.iterations,
                    loop_id=self.loop_id,
                )
            )
            if (await self.gate.checkpoint("goal_selected", {"current_goal": goal})).halts:
                return await self._finish(SolveStatus.STOPPED, "checkpoint_halt_goal_selected")
            goal.status = GoalStatus.ACTIVE
            state.current_goal = goal.id
            await self._save()
            result = normalize_result(await self._execute_goal(goal, 0))
            await self._flush_trace()
            if result.waits_for_a_person:
                goal.status = GoalStatus.WAITING
                goal.result = result
                await self._queue_follow_up(goal, result)
                return await self._finish(SolveStatus.WAITING, result.error or result.status)
            if result.status is Status.FAILURE:
                goal.status = GoalStatus.FAILED
                goal.result = result
                self.failed_in_a_row += 1
                await self._learn(
                    LearningKind.ROOT_CAUSE,
                    {"goal": goal.title, "error": result.error, "meta": plain(result.meta)},
                )
            decision = await self.gate.checkpoint(
                "after_goal_execution", {"current_goal": goal, "result": result}
            )
            if decision.halts:
                return await self._finish(SolveStatus.STOPPED, "checkpoint_halt_after_goal")
            if result.status is Status.SUCCESS:
                state.usage.last_progress_s = state.usage.elapsed_s
                self.failed_in_a_row = 0
            if self.failed_in_a_row >= self.solver.options.max_failed_goals:
                self._escalate(
                    "evaluations_failing", f"{self.failed_in_a_row} goals failed in a row"
                )
                state.usage.iterations += 1
                return await self._finish(SolveStatus.STOPPED, "evaluations_failing")
            state.usage.iterations += 1
            state.current_goal = None
            await self._save()
        if any(g.status is GoalStatus.FAILED for g in tree):
            return await self._finish(SolveStatus.FAILED, "a goal failed")
        if tree.has_remaining():
            return await self._finish(SolveStatus.STOPPED, "no goal can run")
        return await self._finish(SolveStatus.DONE, None)

    async def _execute_goal(self, goal: Goal, depth: int) -> Result:
        bounds = self.state.bounds
        if bounds.max_depth is not None and depth > bounds.max_depth:
            return Result(Status.STOP_AND_WAIT, error="max_depth_exceeded", meta={"goal": goal.id})
        plan = self.state.plans.get(goal.id)
        if plan is None:
            planned = await self._plan(goal)
            if isinstance(planned, Result):
                return planned
            plan = planned
            if (await self.gate.checkpoint("plan_created", {"goal": goal, "plan": plan})).halts:
                return Result(Status.STOP_AND_WAIT, error="checkpoint_halt_on_plan_created")
            edited = self.gate.edited_plan
            if edited:
                edited_version = self._next_plan_version(goal.id)
                plan = Plan.from_data({**edited, "goal_id": goal.id, "version": edited_version})
                await self._keep_plan(plan)
        if not plan.is_well_defined():
            gathered = await self._gather_information(goal, plan)
            if isinstance(gathered, Result):
                return gathered
            plan = gathered
        if plan.is_too_difficult(bounds.max_steps_per_plan):
            return await self._decompose(goal, plan, depth)
        researched = await self._research(goal, plan)
        if researched is not None:
            return researched
        final_check = self._final_check(plan)
        if final_check:
            return Result(Status.NEEDS_CLARIFICATION, data=final_check, error="human_tasks")
        context = {"goal": goal, "plan": plan, "constraints": plain(bounds)}
        if (await self.gate.checkpoint("pre_execution", context)).halts:
            return Result(Status.STOP_AND_WAIT, error="checkpoint_halt_pre_execution")
        result = await self._carry_out(plan, goal)
        if _halted(result):
            return Result(Status.STOP_AND_WAIT, error=result.error, meta=result.meta)
        review = await self._review(goal, plan) if result.status is Status.SUCCESS else None
        if review is not None and review.passed:
            return await self._complete(goal, result, review)
        if result.error == "looping" and result.meta.get("next") == "escalate":
            self._escalate("no_progress", f"goal {goal.id!r} keeps repeating the same step")
            return Result(Status.STOP_AND_WAIT, error="no_progress", meta=result.meta)
        # Analyse the failure, adjust the plan once, and try it.
        root_cause = _root_cause(result, review)
        self.state.ledger.replanned()
        await self._learn(LearningKind.ROOT_CAUSE, {"goal": goal.title, "cause": root_cause})
        adjusted = await self._plan(goal, failure=root_cause, previous=plan)
        if isinstance(adjusted, Result):
            return adjusted
        if adjusted.is_too_difficult(bounds.max_steps_per_plan):
            subgoals = [g.model_dump() for g in adjusted.subgoals]
            return Result(
                Status.NEEDS_CLARIFICATION,
                data={"decomposition": subgoals},
                error="still_too_difficult",
            )
        result = await self._carry_out(adjusted, goal)
        if _halted(result):
            return Result(Status.STOP_AND_WAIT, error=result.error, meta=result.meta)
        review = await self._review(goal, adjusted) if result.status is Status.SUCCESS else None
        if review is not None and review.passed:
            return await self._complete(goal, result, review)
        evidence = None if review is None else review.to_data()
        return Result(
            Status.FAILURE,
            error=result.error or "review_failed",
            meta={"review": evidence, **result.meta},
        )

    # ── the parts of a goal's execution ─────────────────────────────────────

    async def _plan(
        self, goal: Goal, *, failure: str = "", previous: Plan | None = None
    ) -> Plan | Result:
        context = await self._learned()
        if failure and previous is not None:
            context += (
                f"\nThe previous plan (version {previous.version}) failed: {failure}\n"
                f"It was: {plain([s.description for s in previous.steps])}"
            )
        try:
            plan, answer = await create_plan(
                self.solver.model,
                goal,
                self.solver.tools,
                policy=self.solver.governance.tool_policy,
                context=context,
                **self._asking(),
            )
        except StructuredOutputError as exc:
            self._spent(exc.usage)
            return Result(
                Status.FAILURE,
                error="no_valid_plan",
                meta={"problems": exc.problems, "detail": str(exc)},
            )
        self._spent(answer.usage)
        plan.version = self._next_plan_version(goal.id)
        await self._keep_plan(plan)
        return plan

    def _next_plan_version(self, goal_id: str) -> int:
        """Every plan of a goal gets a version of its own, also a plan made after a person
        answered, so nothing decided for an earlier plan is taken for it."""
        version = self.state.plan_versions.get(goal_id, 0) + 1
        self.state.plan_versions[goal_id] = version
        return version

    async def _keep_plan(self, plan: Plan) -> None:
        self.state.plans[plan.goal_id] = plan
        self.solver.emit(
            PlanCreated(
                solve_id=self.solve_id,
                goal_id=plan.goal_id,
                plan=plan.to_data(),
                loop_id=self.loop_id,
            )
        )
        await self._save()

    async def _gather_information(self, goal: Goal, plan: Plan) -> Plan | Result:
        """Auto mode: learn by doing (the plan's first tool step, when that is safe and
        reversible) and plan again with what it gave; otherwise, or when that does not
        settle it, ask the plan's questions."""
        if self.solver.options.auto:
            probe = first_probe(plan.steps)
            tool = self.bench.tool(probe.tool) if probe is not None else None
            attempt = None
            if probe is not None and tool is not None:
                stats = self.state.tool_stats.get(tool.name, ToolStats())
                attempt = learning_by_doing(probe, tool, stats.calls, stats.errors)
                for warning in attempt.warnings:
                    self._escalate("low_success_likelihood", warning)
            if probe is not None and tool is not None and attempt is not None and attempt.go:
                found = await call_tool(
                    tool, dict(probe.arguments or {}), self.solver.governance, self.solver.cancel
                )
                goal.inputs.setdefault("found", []).append(found.text[:2_000])
                again = await self._plan(goal, failure="", previous=plan)
                if isinstance(again, Plan) and again.is_well_defined():
                    return again
        questions = plan.questions or [
            f"What exactly should be done for {goal.title!r}? The plan could not say "
            "how to carry out: "
            + "; ".join(s.description for s in plan.steps if not (s.is_tool_call or s.instruction))
        ]
        return Result(
            Status.NEEDS_CLARIFICATION, data={"questions": questions}, error="needs_clarification"
        )

    async def _decompose(self, goal: Goal, plan: Plan, depth: int) -> Result:
        tree = self.state.tree
        if not tree.children(goal.id):
            if not plan.subgoals:
                return Result(
                    Status.NEEDS_CLARIFICATION,
                    data={
                        "questions": [
                            f"{goal.title!r} is too large for one plan: how should it be split?"
                        ]
                    },
                    error="too_difficult",
                )
            children = [
                Goal(
                    id=f"{goal.id}.{proposed.id}",
                    title=proposed.title,
                    description=proposed.description,
                    depends_on=tuple(f"{goal.id}.{d}" for d in proposed.depends_on),
                    value=proposed.value,
                    feasibility=proposed.feasibility,
                )
                for proposed in plan.subgoals
            ]
            for child, proposed in zip(children, plan.subgoals, strict=True):
                child.criteria = [Criterion(c.description) for c in proposed.acceptance_criteria]
            tree.add_subgoals(goal.id, children)
            await self._save()
        for child in tree.children(goal.id):
            if child.status is GoalStatus.DONE:
                continue
            child.status = GoalStatus.ACTIVE
            result = normalize_result(await self._execute_goal(child, depth + 1))
            if result.status is not Status.SUCCESS:
                child.status = (
                    GoalStatus.WAITING if result.waits_for_a_person else GoalStatus.FAILED
                )
                child.result = result
                return result
        outputs = {
            child.id: child.result.data if child.result else None
            for child in tree.children(goal.id)
        }
        tree.complete(goal.id, Result(Status.SUCCESS, data=outputs))
        await self._save()
        return Result(Status.SUCCESS, data=outputs)

    async def _research(self, goal: Goal, plan: Plan) -> Result | None:
        """Retrieved data checked for provenance and age, and the plan's backing recorded."""
        documents: list[Document] = []
        retriever = self.solver.options.retriever
        if retriever is not None:
            documents = list(await retriever(goal, plan))
            problems = research_problems(documents, self.solver.options.research)
            if problems:
                return Result(
                    Status.NEEDS_CLARIFICATION,
                    data={
                        "questions": [
                            f"The data for {goal.title!r} cannot be relied on: "
                            + "; ".join(problems)
                        ]
                    },
                    error="invalid_or_untrusted_rag",
                )
            goal.inputs["research"] = as_context(documents)[:4_000]
        examples = await self.solver.store.learning.latest(
            self.solver.options.workspace, LearningKind.EXAMPLE, n=20
        )
        understanding = validate_understanding(
            goal.title, (e.payload for e in examples if isinstance(e.payload, dict)), len(documents)
        )
        goal.inputs["understanding"] = understanding.to_data()
        return None

    def _final_check(self, plan: Plan) -> list[str]:
        """Steps the solve cannot do itself: human tasks."""
        tasks = []
        for step in plan.steps:
            if step.tool is not None and self.bench.tool(step.tool) is None:
                tasks.append(f"step {step.index}: {step.description} (needs {step.tool!r})")
        return tasks

    async def _carry_out(self, plan: Plan, goal: Goal) -> Result:
        bounds = self.state.bounds
        attempt = 0
        while True:
            result = await execute_plan(plan, goal, self.bench)
            if not is_transient(result) or attempt >= bounds.retry_limit:
                return result
            attempt += 1
            plan.attempt += 1
            await asyncio.sleep(bounds.retry_backoff_s * 2 ** (attempt - 1))
            for step in plan.steps:
                if step.status is StepStatus.FAILED:
                    step.status = StepStatus.PENDING

    async def _review(self, goal: Goal, plan: Plan) -> Review:
        evidence = "\n".join(
            f"step {s.index} ({s.description}): {s.output}"
            for s in plan.steps
            if s.status is StepStatus.DONE
        )
        review = await review_goal(
            goal,
            evidence,
            model=self.solver.model,
            tools=self.solver.tools,
            governance=self.solver.governance,
            **self._asking(),
        )
        self._spent(review.usage)
        return review

    async def _complete(self, goal: Goal, result: Result, review: Review) -> Result:
        done = Result(Status.SUCCESS, data=result.data, meta={"review": review.to_data()})
        self.state.tree.complete(goal.id, done)
        await self._learn(
            LearningKind.EXAMPLE,
            {"goal": goal.title, "plan": [s.description for s in self.state.plans[goal.id].steps]},
        )
        await self._save()
        context = {"goal": goal, "execution_result": result, "review_result": review}
        if (await self.gate.checkpoint("post_review_passed", context)).halts:
            return Result(Status.STOP_AND_WAIT, error="checkpoint_halt_post_review")
        return done

    # ── people, learning, saving ────────────────────────────────────────────

    async def _queue_follow_up(self, goal: Goal, result: Result) -> None:
        context = {
            "goal": plain(goal),
            "status": result.status.value,
            "error": result.error,
            "data": plain(result.data),
        }
        approval_id = await self.solver.store.approvals.request(
            self.solve_id,
            "follow_up",
            "needs_clarification"
            if result.status is Status.NEEDS_CLARIFICATION
            else "stop_and_wait",
            context,
        )
        self.state.follow_ups.append(
            {
                "approval_id": approval_id,
                "goal_id": goal.id,
                "status": result.status.value,
                "error": result.error,
                "data": plain(result.data),
            }
        )

    async def _learned(self) -> str:
        learning = self.solver.store.learning
        key = self.solver.options.workspace
        notes = await learning.latest(key, LearningKind.ROOT_CAUSE, n=5)
        examples = await learning.latest(key, LearningKind.EXAMPLE, n=3)
        lines = [f"- earlier failure: {plain(n.payload)}" for n in notes]
        lines += [f"- plan that worked: {plain(e.payload)}" for e in examples]
        return "\n".join(lines)

    async def _learn(self, kind: LearningKind, payload: dict[str, Any]) -> None:
        await self.solver.store.learning.append(self.solver.options.workspace, kind, plain(payload))

    async def _flush_trace(self) -> None:
        if self.trace:
            await self._learn(LearningKind.EPISODE, {"steps": self.trace})
            self.trace = []

    def _asking(self) -> dict[str, Any]:
        """What every question to the model takes: where its events go, the solve's
        cancellation, the loop its runs belong to, and the time left to the bound."""
        return {
            "emit": self.solver.emit,
            "cancel": self.solver.cancel,
            "parent_loop_id": self.loop_id,
            "time_left": self.bench.time_left(),
        }

    def _spent(self, usage: Any) -> None:
        self.state.usage.input_tokens += usage.input_tokens
        self.state.usage.output_tokens += usage.output_tokens
        if usage.cost_usd is None:
            self.state.usage.unpriced = self.state.usage.unpriced or usage.total_tokens > 0
        else:
            self.state.usage.cost_usd += usage.cost_usd

    def _escalate(self, reason: str, detail: str = "") -> None:
        self.state.escalations.append({"reason": reason, "detail": detail})
        self.solver.emit(
            Escalation(solve_id=self.solve_id, reason=reason, detail=detail, loop_id=self.loop_id)
        )

    async def _save(self) -> None:
        self.bench.tick()
        self.version = await self.solver.store.solves.save_state(
            self.solve_id,
            self.state.to_data(),
            version=self.version,
            status=self.state.status.value,
            lease=self.lease,
        )

    async def _finish(self, status: SolveStatus, reason: str | None) -> FinalStatus:
        self.state.status = status
        self.state.stop_reason = reason
        await self._save()
        final = final_status(self.solve_id, self.state)
        self.solver.emit(
            SolveEnd(
                solve_id=self.solve_id,
                status=status.value,
                final=final.to_data(),
                loop_id=self.loop_id,
            )
        )
        return final


class StepRecorder:
    """Each step written down before it runs and after it ends; the state saved after."""

    def __init__(self, run: SolvingLoop) -> None:
        self.run = run

    async def started(
        self, key: str, tool: str | None, effect: str | None, arguments: dict[str, Any] | None
    ) -> None:
        # A step an agent carries out may do anything its tools can: count it as acting.
        await self.run.solver.store.steps.step_started(
            self.run.solve_id,
            key,
            tool or "agent",
            effect or ToolEffect.EXTERNAL.value,
            plain(arguments or {}),
        )

    async def finished(self, key: str, outcome: dict[str, Any]) -> None:
        # The journal's outcome and the state that has the step done commit together: a
        # resume never finds one without the other.
        self._count(key, outcome)
        store = self.run.solver.store
        async with store.transaction():
            await store.steps.step_finished(self.run.solve_id, key, plain(outcome))
            await self.run._save()

    def _count(self, key: str, outcome: dict[str, Any]) -> None:
        goal_id, _, _ = key.partition("/")
        plan = self.run.state.plans.get(goal_id)
        tool = None
        if plan is not None:
            index = int(key.rsplit("/s", 1)[-1])
            tool = next((s.tool for s in plan.steps if s.index == index), None)
        stats = self.run.state.tool_stats.setdefault(tool or "agent", ToolStats())
        stats.calls += 1
        stats.errors += 0 if outcome.get("ok") else 1
        # The episodic trace is written once per goal (`SolvingLoop._flush_trace`), not per step.
        self.run.trace.append({"step": key, "tool": tool, "ok": outcome.get("ok")})


def _halted(result: Result) -> bool:
    return result.status is Status.FAILURE and (result.error or "").startswith(HALTS)


def _root_cause(result: Result, review: Review | None) -> str:
    if review is not None and not review.passed:
        return "; ".join(f"{o.criterion}: not met ({o.evidence[:200]})" for o in review.failures)
    reason = result.meta.get("reason") or result.meta.get("risks") or ""
    return f"{result.error} at step {result.meta.get('step')}: {reason}"
