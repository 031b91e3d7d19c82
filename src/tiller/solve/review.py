"""Reviewing a goal's execution against its acceptance criteria, with the evidence kept.

A criterion with a check is tested by running it:

- `command_succeeds` (`command`): the command runs with the solve's `shell` tool
  (in its sandbox, in the workspace) and must exit with status 0;
- `file_contains` (`path`, `text`): the file, read with the solve's `read_file`
  tool (confined to the workspace), must contain the text;
- `tool_answer` (`tool`, `arguments`, `text`): the tool's answer must not be an
  error and must contain the text.

Each check runs under the solve's governance, like any of its tool calls. A
criterion without a check, or whose check cannot run (its tool is not offered
or is denied), is judged by the model from the execution's evidence; the model
must give a verdict and a reason for each. The goal passes when every criterion
is met. Every outcome keeps its evidence: what the check saw, or the model's
reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from tiller.cancellation import CancelToken
from tiller.errors import ToolError
from tiller.loop.config import EventSink
from tiller.loop.options import Governance
from tiller.messages import Usage
from tiller.models.base import Model
from tiller.solve.goals import Criterion, Goal
from tiller.solve.structured import StructuredOutputError, ask_structured
from tiller.solve.tool_calls import call_tool
from tiller.tools.base import Tool

EVIDENCE_LIMIT = 2_000

JUDGE_INSTRUCTIONS = """You review whether work met its acceptance criteria.
For each numbered criterion, say whether the evidence shows it is met, and why, citing \
the evidence. If the evidence does not show it, it is not met."""


@dataclass(slots=True)
class Outcome:
    criterion: str
    met: bool
    evidence: str
    judged_by: str  # "check" or "model"

    def to_data(self) -> dict[str, Any]:
        return {
            "criterion": self.criterion,
            "met": self.met,
            "evidence": self.evidence,
            "judged_by": self.judged_by,
        }


@dataclass(slots=True)
class Review:
    outcomes: list[Outcome] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)  # what judging by the model spent

    @property
    def passed(self) -> bool:
        return all(outcome.met for outcome in self.outcomes)

    @property
    def failures(self) -> list[Outcome]:
        return [outcome for outcome in self.outcomes if not outcome.met]

    def to_data(self) -> dict[str, Any]:
        return {"passed": self.passed, "outcomes": [o.to_data() for o in self.outcomes]}


class Verdict(BaseModel):
    criterion: int = Field(ge=1)
    met: bool
    reason: str = Field(min_length=1)


class Judgement(BaseModel):
    verdicts: list[Verdict]


async def review_goal(
    goal: Goal,
    evidence: str,
    *,
    model: Model,
    tools: Sequence[Tool],
    governance: Governance,
    cancel: CancelToken | None = None,
    emit: EventSink | None = None,
    parent_loop_id: str | None = None,
    time_left: float | None = None,
) -> Review:
    """Test and judge every acceptance criterion of `goal`; `evidence` is what its
    execution produced (step outputs), for the model to judge from. A criterion the
    model gives no valid verdict on is not met (with why, as its evidence)."""
    cancel = cancel or CancelToken()
    by_name = {tool.name: tool for tool in tools}
    outcomes: dict[int, Outcome] = {}
    to_judge: list[tuple[int, Criterion, str]] = []
    for i, criterion in enumerate(goal.criteria):
        tested = await _run_check(criterion, by_name, governance, cancel)
        if isinstance(tested, Outcome):
            outcomes[i] = tested
        else:
            to_judge.append((i, criterion, tested))
    usage = Usage()
    if to_judge:
        try:
            judged, usage = await _judge(
                goal, evidence, to_judge, model, emit, cancel, parent_loop_id, time_left
            )
        except StructuredOutputError as exc:
            usage = exc.usage
            judged = {
                index: Outcome(criterion.description, False, f"no verdict: {exc}", "model")
                for index, criterion, _ in to_judge
            }
        outcomes.update(judged)
    return Review([outcomes[i] for i in range(len(goal.criteria))], usage)


async def _run_check(
    criterion: Criterion, tools: Mapping[str, Tool], governance: Governance, cancel: CancelToken
) -> Outcome | str:
    """The check's outcome, or why it cannot run (the model judges it instead)."""
    check = criterion.check
    if criterion.kind == "command_succeeds":
        tool_name, arguments = "shell", {"command": check.get("command", "")}
    elif criterion.kind == "file_contains":
        tool_name, arguments = "read_file", {"path": check.get("path", "")}
    elif criterion.kind == "tool_answer":
        tool_name, arguments = str(check.get("tool", "")), dict(check.get("arguments") or {})
    else:
        return ""
    tool = tools.get(tool_name)
    if tool is None:
        return f"(its check needs the tool {tool_name!r}, which this solve does not have)"
    if governance.tool_policy is not None:
        try:
            governance.tool_policy.check(tool, tool_name)
        except ToolError:
            return f"(its check needs the tool {tool_name!r}, which the tool policy denies)"
    result = await call_tool(tool, arguments, governance, cancel, dry_run=False)
    seen = result.text[:EVIDENCE_LIMIT]
    if criterion.kind == "command_succeeds":
        code = result.details.get("exit_code") if isinstance(result.details, dict) else None
        met = code == 0 and not result.is_error
        return Outcome(criterion.description, met, f"$ {arguments['command']}\n{seen}", "check")
    expected = str(check.get("text", ""))
    met = not result.is_error and expected in result.text
    label = f"{tool_name}({arguments})"
    return Outcome(criterion.description, met, f"{label} → {seen}", "check")


async def _judge(
    goal: Goal,
    evidence: str,
    criteria: list[tuple[int, Criterion, str]],
    model: Model,
    emit: EventSink | None,
    cancel: CancelToken,
    parent_loop_id: str | None,
    time_left: float | None,
) -> tuple[dict[int, Outcome], Usage]:
    listed = "\n".join(
        f"{n}. {criterion.description} {note}".rstrip()
        for n, (_, criterion, note) in enumerate(criteria, start=1)
    )
    prompt = f"Goal: {goal.title}\n\nCriteria:\n{listed}\n\nEvidence:\n{evidence[-8_000:]}"

    def covers_every_criterion(judgement: Judgement) -> None:
        given = {verdict.criterion for verdict in judgement.verdicts}
        missing = [n for n in range(1, len(criteria) + 1) if n not in given]
        if missing:
            raise ValueError(f"no verdict for criteria {missing}")

    answer = await ask_structured(
        model,
        Judgement,
        prompt,
        instructions=JUDGE_INSTRUCTIONS,
        tool_name="submit_review",
        tool_description="Hand in a verdict for each criterion.",
        check=covers_every_criterion,
        emit=emit,
        cancel=cancel,
        parent_loop_id=parent_loop_id,
        time_left=time_left,
    )
    verdicts = {verdict.criterion: verdict for verdict in answer.value.verdicts}
    judged = {
        index: Outcome(criterion.description, verdicts[n].met, verdicts[n].reason, "model")
        for n, (index, criterion, _) in enumerate(criteria, start=1)
    }
    return judged, answer.usage
