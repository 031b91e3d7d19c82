"""Building the goal tree from the model's proposal, with invalid trees sent back."""

from __future__ import annotations

from typing import Any

import pytest

from tiller.solve.goal_proposal import construct_goal_tree
from tiller.solve.structured import StructuredOutputError
from tiller.testing import Reply, ScriptedModel, call


def proposed(goal_id: str, *depends_on: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": goal_id,
        "title": goal_id.replace("_", " "),
        "depends_on": list(depends_on),
        "acceptance_criteria": [{"description": f"{goal_id} is done"}],
        **fields,
    }


async def test_the_proposal_becomes_a_checked_and_prioritized_tree() -> None:
    goals = [
        proposed("write_report", "gather_data", value=0.9, feasibility=0.8),
        proposed(
            "gather_data",
            acceptance_criteria=[
                {
                    "description": "the data file exists",
                    "check": {"kind": "file_contains", "path": "data.csv", "text": "total"},
                }
            ],
        ),
    ]
    model = ScriptedModel([Reply(calls=[call("propose_goals", goals=goals)])])
    tree, answer = await construct_goal_tree(model, ["Write the quarterly report"])
    assert [g.id for g in tree] == ["write_report", "gather_data"]
    assert tree["write_report"].depends_on == ("gather_data",)
    check = tree["gather_data"].criteria[0]
    assert (check.kind, check.check) == ("file_contains", {"path": "data.csv", "text": "total"})
    chosen = tree.select_next()
    assert chosen is not None
    assert chosen.id == "gather_data"
    assert answer.attempts == 1
    assert "Write the quarterly report" in model.requests[0].messages[0].text


async def test_a_cyclic_or_dangling_proposal_is_sent_back_with_the_problem() -> None:
    model = ScriptedModel(
        [
            Reply(calls=[call("propose_goals", goals=[proposed("a", "b"), proposed("b", "a")])]),
            Reply(calls=[call("propose_goals", goals=[proposed("a", "nowhere")])]),
            Reply(calls=[call("propose_goals", goals=[proposed("a")])]),
        ]
    )
    tree, answer = await construct_goal_tree(model, ["do a"])
    assert [g.id for g in tree] == ["a"]
    assert answer.attempts == 3
    assert "cycle" in model.requests[1].messages[-1].text
    assert "'nowhere', which is not a goal" in model.requests[2].messages[-1].text


async def test_a_model_that_never_proposes_a_valid_tree_is_a_clear_error() -> None:
    bad = Reply(calls=[call("propose_goals", goals=[proposed("a", value=7)])])
    model = ScriptedModel([bad, bad])
    with pytest.raises(StructuredOutputError, match="less than or equal to 1"):
        await construct_goal_tree(model, ["do a"], attempts=2)
