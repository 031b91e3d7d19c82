"""How a solve carries out its plans: a team, a guarded agent, or direct tool steps.

- `Mode.TEAM`: a planner agent hands each step to worker sub-agents, for work that
  is complex and needs several kinds of expertise.
- `Mode.GUARDED_AGENT`: one agent carries out each step, under the solve's
  governance, for work of some complexity where safety matters most.
- `Mode.DIRECT_TOOLS`: the solver makes each step's tool call itself, with no
  model in between (the lowest abstraction, and the most predictable).

`select_mode` follows one rule: complex work that needs collaboration gets a
team; work of medium complexity with high safety needs gets a guarded agent;
everything else runs as direct tool steps. A caller can force a mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from tiller.solve.goals import GoalTree
from tiller.tools.base import Tool
from tiller.tools.effects import ToolEffect, effect_of


class Mode(StrEnum):
    TEAM = "team"
    GUARDED_AGENT = "guarded_agent"
    DIRECT_TOOLS = "direct_tools"


class Level(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


@dataclass(slots=True, frozen=True)
class TaskProfile:
    complexity: Level
    collaboration: bool
    safety: Level


def select_mode(profile: TaskProfile, forced: Mode | None = None) -> Mode:
    if forced is not None:
        return forced
    if profile.complexity is Level.HIGH and profile.collaboration:
        return Mode.TEAM
    if profile.complexity is Level.MEDIUM and profile.safety is Level.HIGH:
        return Mode.GUARDED_AGENT
    return Mode.DIRECT_TOOLS


def profile_of(tree: GoalTree, tools: Sequence[Tool]) -> TaskProfile:
    """A task's profile from its goal tree and its tools.

    Complexity by the number of goals (up to 2 low, up to 5 medium, more high);
    collaboration when the tools span reading, local writes and external actions
    together; safety high when any tool acts outside the machine.
    """
    count = len(tree)
    complexity = Level.LOW if count <= 2 else Level.MEDIUM if count <= 5 else Level.HIGH
    effects = {effect_of(tool) for tool in tools}
    safety = Level.HIGH if ToolEffect.EXTERNAL in effects else Level.LOW
    return TaskProfile(complexity, collaboration=len(effects) >= 3, safety=safety)
