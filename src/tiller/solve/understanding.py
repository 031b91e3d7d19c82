"""Whether a plan is backed by more than the model's own understanding, and learning by
doing when information is missing.

`validate_understanding`: a plan is backed when worked examples (plans that
achieved similar goals before, from the solve's learning) or trusted retrieved
documents support it. An unbacked plan still runs, and the final status says so.

`learning_by_doing`: when a plan lacks information and the solve may find it by
itself, it runs the smallest step that could tell it something, but only a step
that is safe (it does not act outside the machine) and reversible (it only reads,
or its tool can undo it). A tool that has mostly failed before gets a warning;
then the step runs only if it is low-risk (it only reads) and bounded (it has a
time limit or only reads), else the attempt is abandoned.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tiller.solve.plans import Step
from tiller.tools.base import Tool

VERY_LOW_SUCCESS = 0.2
MIN_CALLS_TO_JUDGE = 3


@dataclass(slots=True, frozen=True)
class Understanding:
    worked_examples: int
    trusted_documents: int

    @property
    def backed(self) -> bool:
        return self.worked_examples > 0 or self.trusted_documents > 0

    def to_data(self) -> dict[str, Any]:
        return {
            "worked_examples": self.worked_examples,
            "trusted_documents": self.trusted_documents,
            "backed": self.backed,
        }


def validate_understanding(
    goal_title: str, examples: Iterable[dict[str, Any]], trusted_documents: int
) -> Understanding:
    """Count the worked examples whose goal shares a word of three letters or more."""
    words = _words(goal_title)
    similar = sum(1 for e in examples if words & _words(str(e.get("goal", ""))))
    return Understanding(similar, trusted_documents)


@dataclass(slots=True, frozen=True)
class Attempt:
    go: bool
    warnings: tuple[str, ...] = ()


def learning_by_doing(step: Step, tool: Tool, calls: int, errors: int) -> Attempt:
    """Whether to run `step` to learn from it; `calls`/`errors` are its tool's record."""
    reads = step.effect == "read"
    reversible = reads or callable(getattr(tool, "prepare_rollback", None))
    if step.effect == "external" or not reversible:
        return Attempt(False, ("it is not both safe and reversible",))
    if calls >= MIN_CALLS_TO_JUDGE and (calls - errors) / calls <= VERY_LOW_SUCCESS:
        warning = f"{tool.name!r} succeeded in {calls - errors} of {calls} calls before"
        bounded = reads or tool.timeout_s is not None
        if not reads or not bounded:
            return Attempt(False, (warning, "it is not low-risk and bounded, so it is not run"))
        return Attempt(True, (warning,))
    return Attempt(True)


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) >= 3}


def first_probe(steps: Sequence[Step]) -> Step | None:
    """The plan's first step that is a whole tool call: the smallest step to learn from."""
    return next((s for s in steps if s.is_tool_call), None)
