"""How a solve runs, besides its model and tools: `SolveOptions`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tiller.solve.bounds import ResourceBounds
from tiller.solve.checkpoints import Checkpoint
from tiller.solve.execution import StepRules
from tiller.solve.framework import Mode
from tiller.solve.research import ResearchRules, Retriever


@dataclass(slots=True)
class SolveOptions:
    """How a solve runs, besides its model and tools."""

    bounds: ResourceBounds = field(default_factory=ResourceBounds)
    checkpoints: Sequence[Checkpoint] = ()
    mode: Mode | None = None  # None: chosen from the goal tree and the tools
    auto: bool = False  # gather missing information by doing, instead of asking
    rules: StepRules = field(default_factory=StepRules)
    workspace: str = "default"  # what learning is kept under
    # Documents a goal's work relies on, checked for provenance and age before it runs.
    retriever: Retriever | None = None
    research: ResearchRules = field(default_factory=ResearchRules)
    # Consecutive failed goals after which the solve stops (evaluations failing
    # without correction).
    max_failed_goals: int = 2
