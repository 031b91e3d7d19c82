"""The goal tree: what a solve must achieve, in what order, and how far it has come.

Each `Goal` has acceptance criteria, the goals it depends on, and the model's
estimates of its value (how much completing it yields) and feasibility (how
likely it is to succeed), both between 0 and 1. A tree is checked when it is
built and whenever goals are added: every id unique, every dependency a known
goal, no cycle (the error shows the cycle).

Priority (`GoalTree.priority`) is

    value × feasibility + 0.1 × (goals that depend on it, directly or not)
                        − 0.05 × (length of its longest chain of prerequisites)

so valuable, feasible goals come first, a goal that unblocks many others is
pulled forward, and a goal with a long chain of prerequisites waits. Ties keep
the order the goals were given in. `select_next` picks the goal of highest
priority that is pending and whose dependencies are all done.

Sub-goals (from decomposing a goal that is too difficult) sit in the tree under
their parent so that a person sees them; the parent's execution drives them, so
`select_next` only picks top-level goals.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from tiller.solve.results import Result

UNBLOCK_WEIGHT = 0.1
DEPTH_PENALTY = 0.05


class GoalTreeError(ValueError):
    """A goal tree that cannot be solved as given: a duplicate id, an unknown
    dependency, or a cycle."""


class GoalStatus(StrEnum):
    PENDING = "pending"
    ACTIVE = "active"
    DONE = "done"
    FAILED = "failed"
    WAITING = "waiting"  # stopped for a person: an approval, a question


@dataclass(slots=True)
class Criterion:
    """One acceptance criterion: what must be true, and optionally a check that can
    be run (`kind`: `command_succeeds`, `file_contains` or `tool_answer`, with its
    fields in `check`). A criterion without a check is judged by the model."""

    description: str
    kind: str | None = None
    check: dict[str, Any] = field(default_factory=dict)

    def to_data(self) -> dict[str, Any]:
        return {"description": self.description, "kind": self.kind, "check": self.check}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Criterion:
        return cls(data["description"], data.get("kind"), dict(data.get("check") or {}))


@dataclass(slots=True)
class Goal:
    id: str
    title: str
    description: str = ""
    depends_on: tuple[str, ...] = ()
    criteria: list[Criterion] = field(default_factory=list)
    value: float = 0.5
    feasibility: float = 0.5
    parent: str | None = None
    status: GoalStatus = GoalStatus.PENDING
    result: Result | None = None
    # What the goals it depends on produced, forwarded when they completed.
    inputs: dict[str, Any] = field(default_factory=dict)

    def to_data(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "description": self.description,
            "depends_on": list(self.depends_on),
            "criteria": [c.to_data() for c in self.criteria],
            "value": self.value,
            "feasibility": self.feasibility,
            "parent": self.parent,
            "status": self.status.value,
            "result": None if self.result is None else self.result.to_data(),
            "inputs": self.inputs,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Goal:
        result = data.get("result")
        return cls(
            id=data["id"],
            title=data["title"],
            description=data.get("description", ""),
            depends_on=tuple(data.get("depends_on") or ()),
            criteria=[Criterion.from_data(c) for c in data.get("criteria") or ()],
            value=float(data.get("value", 0.5)),
            feasibility=float(data.get("feasibility", 0.5)),
            parent=data.get("parent"),
            status=GoalStatus(data.get("status", "pending")),
            result=None if result is None else Result.from_data(result),
            inputs=dict(data.get("inputs") or {}),
        )


class GoalTree:
    """Goals by id, in the order they were given, with their dependencies checked."""

    __slots__ = ("_goals",)

    def __init__(self, goals: Iterable[Goal] = ()) -> None:
        self._goals: dict[str, Goal] = {}
        self.add(goals)

    # ── building ────────────────────────────────────────────────────────────

    def add(self, goals: Iterable[Goal]) -> None:
        """Add goals; nothing is added unless the whole tree stays valid."""
        merged = dict(self._goals)
        for goal in goals:
            if not goal.id.strip():
                raise GoalTreeError(f"goal {goal.title!r} has an empty id")
            if goal.id in merged:
                raise GoalTreeError(f"two goals have the id {goal.id!r}; give each its own")
            merged[goal.id] = goal
        _check(merged)
        self._goals = merged

    def add_subgoals(self, parent: str, goals: Iterable[Goal]) -> list[Goal]:
        """Add `goals` as sub-goals of `parent` (a goal that was decomposed)."""
        self[parent]
        children = [_with_parent(goal, parent) for goal in goals]
        self.add(children)
        return children

    # ── reading ─────────────────────────────────────────────────────────────

    def __getitem__(self, goal_id: str) -> Goal:
        try:
            return self._goals[goal_id]
        except KeyError:
            raise GoalTreeError(f"there is no goal {goal_id!r}") from None

    def __contains__(self, goal_id: object) -> bool:
        return goal_id in self._goals

    def __iter__(self) -> Iterator[Goal]:
        return iter(self._goals.values())

    def __len__(self) -> int:
        return len(self._goals)

    def children(self, parent: str) -> list[Goal]:
        return [g for g in self._goals.values() if g.parent == parent]

    # ── ordering and choosing ───────────────────────────────────────────────

    def priority(self, goal_id: str) -> float:
        """The goal's score (see the module docstring); higher runs first."""
        goal = self[goal_id]
        dependents = len(self._dependents_of(goal_id))
        depth = self._prerequisite_depth(goal_id)
        return goal.value * goal.feasibility + UNBLOCK_WEIGHT * dependents - DEPTH_PENALTY * depth

    def prioritized(self) -> list[Goal]:
        """Every goal, highest priority first; ties in the order given."""
        order = {goal_id: i for i, goal_id in enumerate(self._goals)}
        return sorted(self._goals.values(), key=lambda g: (-self.priority(g.id), order[g.id]))

    def select_next(self) -> Goal | None:
        """The pending top-level goal of highest priority whose dependencies are all
        done, or None when no goal can run now."""
        for goal in self.prioritized():
            if goal.parent is None and goal.status is GoalStatus.PENDING and self.ready(goal):
                return goal
        return None

    def ready(self, goal: Goal) -> bool:
        return all(self._goals[d].status is GoalStatus.DONE for d in goal.depends_on)

    def has_remaining(self) -> bool:
        """Whether any top-level goal is still to be done (pending, active or waiting)."""
        return any(
            g.parent is None and g.status not in (GoalStatus.DONE, GoalStatus.FAILED)
            for g in self._goals.values()
        )

    def blocked(self) -> list[Goal]:
        """Pending goals that can never run because a prerequisite failed."""
        failed = {g.id for g in self._goals.values() if g.status is GoalStatus.FAILED}
        return [
            g
            for g in self._goals.values()
            if g.status is GoalStatus.PENDING and failed & self._prerequisites_of(g.id)
        ]

    # ── progress ────────────────────────────────────────────────────────────

    def complete(self, goal_id: str, result: Result) -> None:
        """Mark the goal done and give what it produced to the goals that depend on it."""
        goal = self[goal_id]
        goal.status = GoalStatus.DONE
        goal.result = result
        for other in self._goals.values():
            if goal_id in other.depends_on:
                other.inputs[goal_id] = result.data

    def to_data(self) -> list[dict[str, Any]]:
        return [goal.to_data() for goal in self._goals.values()]

    @classmethod
    def from_data(cls, data: list[dict[str, Any]]) -> GoalTree:
        return cls(Goal.from_data(item) for item in data)

    # ── the dependency graph ────────────────────────────────────────────────

    def _dependents_of(self, goal_id: str) -> set[str]:
        found: set[str] = set()
        frontier = [goal_id]
        while frontier:
            current = frontier.pop()
            for other in self._goals.values():
                if current in other.depends_on and other.id not in found:
                    found.add(other.id)
                    frontier.append(other.id)
        return found

    def _prerequisites_of(self, goal_id: str) -> set[str]:
        found: set[str] = set()
        frontier = list(self._goals[goal_id].depends_on)
        while frontier:
            current = frontier.pop()
            if current not in found:
                found.add(current)
                frontier.extend(self._goals[current].depends_on)
        return found

    def _prerequisite_depth(self, goal_id: str) -> int:
        depends_on = self._goals[goal_id].depends_on
        if not depends_on:
            return 0
        return 1 + max(self._prerequisite_depth(d) for d in depends_on)


def _with_parent(goal: Goal, parent: str) -> Goal:
    goal.parent = parent
    return goal


def _check(goals: dict[str, Goal]) -> None:
    for goal in goals.values():
        for dependency in goal.depends_on:
            if dependency not in goals:
                known = ", ".join(repr(g) for g in goals) or "none"
                raise GoalTreeError(
                    f"goal {goal.id!r} depends on {dependency!r}, which is not a goal "
                    f"(the goals are: {known})"
                )
    cycle = _find_cycle(goals)
    if cycle:
        raise GoalTreeError(
            "the goals depend on each other in a cycle, so none of them could start: "
            + " → ".join(repr(g) for g in cycle)
        )


def _find_cycle(goals: dict[str, Goal]) -> list[str]:
    """One dependency cycle as a path that returns to its start, or [] when there is none."""
    done: set[str] = set()
    for start in goals:
        if start in done:
            continue
        path: list[str] = []
        on_path: set[str] = set()
        stack: list[tuple[str, Iterator[str]]] = [(start, iter(goals[start].depends_on))]
        path.append(start)
        on_path.add(start)
        while stack:
            node, deps = stack[-1]
            step = next(deps, None)
            if step is None:
                stack.pop()
                path.pop()
                on_path.discard(node)
                done.add(node)
            elif step in on_path:
                return [*path[path.index(step) :], step]
            elif step not in done:
                stack.append((step, iter(goals[step].depends_on)))
                path.append(step)
                on_path.add(step)
    return []
