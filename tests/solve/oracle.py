"""A model that answers the solver's structured requests from a script: goals, then a plan
per goal (the next one each time the goal is planned), and verdicts."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from tiller.models.base import ModelRequest
from tiller.models.scripted import Step
from tiller.testing import FunctionModel, Reply, call

GOAL_LINE = re.compile(r"^Goal: (.+)$", re.M)


class Oracle:
    def __init__(
        self,
        goals: Sequence[dict[str, Any]],
        plans: Mapping[str, Sequence[dict[str, Any]]],
        *,
        verdict: bool = True,
    ) -> None:
        self.goals = list(goals)
        self.plans = {title: list(versions) for title, versions in plans.items()}
        self.verdict = verdict
        self.asked: list[str] = []
        self.model = FunctionModel(self.reply, name="oracle")

    def reply(self, request: ModelRequest) -> Step:
        names = {tool.name for tool in request.tools}
        prompt = request.messages[0].text if request.messages else ""
        if "propose_goals" in names:
            self.asked.append("goals")
            return Reply(calls=[call("propose_goals", goals=self.goals)])
        if "submit_plan" in names:
            found = GOAL_LINE.search(prompt)
            title = found.group(1) if found else ""
            self.asked.append(f"plan {title}")
            versions = self.plans[title]
            plan = versions.pop(0) if len(versions) > 1 else versions[0]
            return Reply(calls=[call("submit_plan", **plan)])
        if "submit_review" in names:
            self.asked.append("review")
            count = len(re.findall(r"^\d+\. ", prompt, re.M))
            verdicts = [
                {"criterion": n, "met": self.verdict, "reason": "as the evidence shows"}
                for n in range(1, count + 1)
            ]
            return Reply(calls=[call("submit_review", verdicts=verdicts)])
        self.asked.append("agent")
        return "Done."


def goal(goal_id: str, title: str, *depends_on: str, **criterion: Any) -> dict[str, Any]:
    check: dict[str, Any] = {"description": f"{title} is done"}
    if criterion:
        check["check"] = criterion
    return {
        "id": goal_id,
        "title": title,
        "depends_on": list(depends_on),
        "acceptance_criteria": [check],
        "value": 0.8,
        "feasibility": 0.9,
    }


def tool_step(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"description": f"{tool} {arguments}", "tool": tool, "arguments": arguments}
