"""Reviewing a goal: checks that run (command, file, tool answer), the rest judged by the model."""

from __future__ import annotations

from pathlib import Path

from tiller import ToolPolicy, builtin_tools, tool
from tiller.loop.options import Governance
from tiller.messages import Usage
from tiller.solve.goals import Criterion, Goal
from tiller.solve.review import review_goal
from tiller.testing import Reply, ScriptedModel, call


@tool
def stock(product: str) -> str:
    """Units in stock."""
    return f"{product}: 12 units"


def goal(*criteria: Criterion) -> Goal:
    return Goal("g", "Restock the shop", criteria=list(criteria))


async def test_checks_that_run_decide_their_criteria_with_the_evidence(tmp_path: Path) -> None:
    (tmp_path / "report.md").write_text("Total: 42\n")
    tools = [*builtin_tools(["read_file", "shell"], tmp_path), stock]
    review = await review_goal(
        goal(
            Criterion("report has the total", "file_contains", {"path": "report.md", "text": "42"}),
            Criterion(
                "report names a risk", "file_contains", {"path": "report.md", "text": "risk"}
            ),
            Criterion("the file exists", "command_succeeds", {"command": "test -f report.md"}),
            Criterion("no backup", "command_succeeds", {"command": "test -f backup.md"}),
            Criterion(
                "widgets in stock",
                "tool_answer",
                {"tool": "stock", "arguments": {"product": "widget"}, "text": "12 units"},
            ),
        ),
        "",
        model=ScriptedModel([]),  # nothing is left for the model to judge
        tools=tools,
        governance=Governance(),
    )
    assert [o.met for o in review.outcomes] == [True, False, True, False, True]
    assert not review.passed
    assert all(o.judged_by == "check" for o in review.outcomes)
    assert "Total: 42" in review.outcomes[0].evidence
    assert review.outcomes[3].evidence.startswith("$ test -f backup.md")
    assert "widget: 12 units" in review.outcomes[4].evidence


async def test_the_model_judges_the_rest_and_must_cover_every_criterion(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            Reply(
                calls=[
                    call("submit_review", verdicts=[{"criterion": 1, "met": True, "reason": "ok"}])
                ]
            ),
            Reply(
                calls=[
                    call(
                        "submit_review",
                        verdicts=[
                            {"criterion": 1, "met": True, "reason": "the email was sent"},
                            {"criterion": 2, "met": False, "reason": "no log line shows it"},
                        ],
                    )
                ]
            ),
        ]
    )
    denied = Governance(tool_policy=ToolPolicy("no-shell", deny={"shell"}))
    review = await review_goal(
        goal(
            Criterion("the customer was told"),
            Criterion("it was logged", "command_succeeds", {"command": "grep sent log.txt"}),
        ),
        "step 1: send_email → sent",
        model=model,
        tools=builtin_tools(["shell"], tmp_path),
        governance=denied,
    )
    assert [(o.met, o.judged_by) for o in review.outcomes] == [(True, "model"), (False, "model")]
    assert review.outcomes[1].evidence == "no log line shows it"
    assert "no verdict for criteria [2]" in model.requests[1].messages[-1].text
    assert "step 1: send_email → sent" in model.requests[0].messages[0].text


async def test_a_check_whose_tool_is_missing_goes_to_the_model() -> None:
    model = ScriptedModel(
        [
            Reply(
                calls=[
                    call("submit_review", verdicts=[{"criterion": 1, "met": True, "reason": "r"}])
                ]
            )
        ]
    )
    review = await review_goal(
        goal(Criterion("file", "file_contains", {"path": "a", "text": "b"})),
        "evidence",
        model=model,
        tools=[],
        governance=Governance(),
    )
    assert review.passed
    assert "needs the tool 'read_file'" in model.requests[0].messages[0].text


async def test_a_model_that_gives_no_verdict_leaves_the_criteria_unmet_and_counts_its_cost(
    tmp_path: Path,
) -> None:
    spent = Usage(input_tokens=50, output_tokens=5)
    model = ScriptedModel([Reply("it looks fine", usage=spent)] * 3)
    review = await review_goal(
        goal(Criterion("the tone is friendly")),
        "step 1: wrote a friendly note",
        model=model,
        tools=[],
        governance=Governance(),
    )
    assert not review.passed
    (outcome,) = review.outcomes
    assert outcome.judged_by == "model"
    assert outcome.evidence.startswith("no verdict: the model gave no valid answer")
    assert review.usage.input_tokens == 150
