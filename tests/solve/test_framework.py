"""How a solve carries out its plans follows complexity, collaboration and safety."""

from __future__ import annotations

import pytest

from tiller import tool
from tiller.solve.framework import Level, Mode, TaskProfile, profile_of, select_mode
from tiller.solve.goals import Goal, GoalTree
from tiller.tools.effects import ToolEffect


@pytest.mark.parametrize(
    ("complexity", "collaboration", "safety", "mode"),
    [
        (Level.HIGH, True, Level.LOW, Mode.TEAM),
        (Level.HIGH, True, Level.HIGH, Mode.TEAM),
        (Level.HIGH, False, Level.HIGH, Mode.DIRECT_TOOLS),
        (Level.MEDIUM, False, Level.HIGH, Mode.GUARDED_AGENT),
        (Level.MEDIUM, True, Level.LOW, Mode.DIRECT_TOOLS),
        (Level.LOW, True, Level.HIGH, Mode.DIRECT_TOOLS),
    ],
)
def test_the_rule(complexity: Level, collaboration: bool, safety: Level, mode: Mode) -> None:
    assert select_mode(TaskProfile(complexity, collaboration, safety)) is mode


def test_a_mode_can_be_forced() -> None:
    profile = TaskProfile(Level.HIGH, True, Level.HIGH)
    assert select_mode(profile, forced=Mode.DIRECT_TOOLS) is Mode.DIRECT_TOOLS


@tool(effect=ToolEffect.READ)
def look(path: str) -> str:
    """Look."""
    return path


@tool(effect=ToolEffect.WRITE_LOCAL)
def save(path: str) -> str:
    """Save."""
    return path


@tool(effect=ToolEffect.EXTERNAL)
def mail(to: str) -> str:
    """Mail."""
    return to


def test_a_profile_from_the_tree_and_the_tools() -> None:
    small = GoalTree([Goal("a", "A")])
    assert profile_of(small, [look]) == TaskProfile(Level.LOW, False, Level.LOW)
    big = GoalTree([Goal(f"g{i}", "G") for i in range(6)])
    assert profile_of(big, [look, save, mail]) == TaskProfile(Level.HIGH, True, Level.HIGH)
    medium = GoalTree([Goal(f"g{i}", "G") for i in range(4)])
    profile = profile_of(medium, [look, mail])
    assert select_mode(profile) is Mode.GUARDED_AGENT
