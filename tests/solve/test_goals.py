"""The goal tree: checked dependencies, priority by value, feasibility and depth, the next goal."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from tiller.solve.goals import Criterion, Goal, GoalStatus, GoalTree, GoalTreeError
from tiller.solve.results import Result, Status


def goal(goal_id: str, *depends_on: str, value: float = 0.5, feasibility: float = 0.5) -> Goal:
    return Goal(
        goal_id, goal_id.title(), depends_on=depends_on, value=value, feasibility=feasibility
    )


def test_an_unknown_dependency_is_rejected_naming_it_and_the_goals() -> None:
    with pytest.raises(GoalTreeError, match=r"'b' depends on 'missing', which is not a goal"):
        GoalTree([goal("a"), goal("b", "missing")])


def test_a_cycle_is_rejected_showing_the_cycle() -> None:
    with pytest.raises(GoalTreeError, match=r"cycle.*'a' → 'c' → 'b' → 'a'"):
        GoalTree([goal("a", "c"), goal("b", "a"), goal("c", "b")])
    with pytest.raises(GoalTreeError, match=r"'self' → 'self'"):
        GoalTree([goal("self", "self")])


def test_a_duplicate_id_is_rejected_and_a_failed_add_changes_nothing() -> None:
    tree = GoalTree([goal("a")])
    with pytest.raises(GoalTreeError, match="two goals have the id 'a'"):
        tree.add([goal("b"), goal("a")])
    with pytest.raises(GoalTreeError, match="cycle"):
        tree.add([goal("x", "y"), goal("y", "x")])
    assert [g.id for g in tree] == ["a"]


def test_priority_weighs_value_feasibility_dependents_and_depth() -> None:
    tree = GoalTree(
        [
            goal("report", "data", value=0.9, feasibility=0.9),
            goal("data", value=0.3, feasibility=0.9),
            goal("nice", value=0.5, feasibility=0.6),
        ]
    )
    # data: 0.27 + 0.1 (report depends on it) = 0.37; report: 0.81 - 0.05 = 0.76; nice: 0.30
    assert tree.priority("data") == pytest.approx(0.37)
    assert tree.priority("report") == pytest.approx(0.76)
    assert [g.id for g in tree.prioritized()] == ["report", "data", "nice"]


def test_select_next_takes_the_best_goal_whose_dependencies_are_done() -> None:
    tree = GoalTree(
        [
            goal("report", "data", value=0.9, feasibility=0.9),
            goal("data", value=0.3, feasibility=0.9),
            goal("nice", value=0.5, feasibility=0.6),
        ]
    )
    first = tree.select_next()
    assert first is not None
    assert first.id == "data"
    tree.complete("data", Result(Status.SUCCESS, data={"rows": 3}))
    second = tree.select_next()
    assert second is not None
    assert second.id == "report"
    assert second.inputs == {"data": {"rows": 3}}  # what data produced, forwarded


def test_nothing_is_selected_when_all_is_done_or_blocked_by_a_failure() -> None:
    tree = GoalTree([goal("a"), goal("b", "a")])
    tree["a"].status = GoalStatus.FAILED
    assert tree.select_next() is None
    assert [g.id for g in tree.blocked()] == ["b"]
    assert tree.has_remaining()  # b is not done, but it can never run
    tree.complete("b", Result(Status.SUCCESS))
    assert not tree.has_remaining()


def test_sub_goals_sit_under_their_parent_and_are_not_selected_on_their_own() -> None:
    tree = GoalTree([goal("big", value=0.1)])
    tree["big"].status = GoalStatus.ACTIVE
    children = tree.add_subgoals("big", [goal("part1", value=1.0, feasibility=1.0)])
    assert children[0].parent == "big"
    assert tree.select_next() is None
    assert [g.id for g in tree.children("big")] == ["part1"]
    with pytest.raises(GoalTreeError, match="no goal 'nope'"):
        tree.add_subgoals("nope", [goal("x")])


def test_a_tree_survives_a_round_trip_through_data() -> None:
    tree = GoalTree(
        [
            Goal(
                "a",
                "A",
                criteria=[Criterion("exists", "file_contains", {"path": "a.txt", "text": "ok"})],
            ),
            goal("b", "a"),
        ]
    )
    tree.complete("a", Result(Status.SUCCESS, data="made", meta={"cost": 0.01}))
    again = GoalTree.from_data(tree.to_data())
    assert again.to_data() == tree.to_data()


@given(st.lists(st.lists(st.integers(0, 7), max_size=3), min_size=1, max_size=8))
def test_any_graph_is_accepted_exactly_when_it_has_no_cycle(edges: list[list[int]]) -> None:
    goals = [
        goal(f"g{i}", *(f"g{d}" for d in deps if d < len(edges))) for i, deps in enumerate(edges)
    ]
    acyclic = _topological(edges)
    if acyclic:
        tree = GoalTree(goals)
        # Completing goals in priority order, as they become ready, completes them all.
        while (chosen := tree.select_next()) is not None:
            tree.complete(chosen.id, Result(Status.SUCCESS))
        assert not tree.has_remaining()
    else:
        with pytest.raises(GoalTreeError, match="cycle"):
            GoalTree(goals)


def _topological(edges: list[list[int]]) -> bool:
    n = len(edges)
    deps = [{d for d in ds if d < n} for ds in edges]
    done: set[int] = set()
    progress = True
    while progress:
        progress = False
        for i in range(n):
            if i not in done and deps[i] <= done:
                done.add(i)
                progress = True
    return len(done) == n
