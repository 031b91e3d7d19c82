"""Retrieved data: trusted sources and age; and a plan's backing and learning by doing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tiller import tool
from tiller.solve.plans import Step
from tiller.solve.research import Document, ResearchRules, research_problems
from tiller.solve.understanding import learning_by_doing, validate_understanding
from tiller.tools.effects import ToolEffect

NOW = datetime(2026, 11, 23, tzinfo=UTC)


def doc(source: str, days_old: float) -> Document:
    return Document(source, "text", NOW - timedelta(days=days_old))


def test_untrusted_or_stale_data_is_refused_with_every_reason() -> None:
    rules = ResearchRules(trusted_sources=frozenset({"wiki"}), max_age_s=7 * 86_400)
    assert research_problems([doc("wiki", 1)], rules, NOW) == []
    assert research_problems([], rules, NOW) == ["nothing was retrieved"]
    assert research_problems([doc("forum", 1), doc("wiki", 30)], rules, NOW) == [
        "'forum' is not a trusted source",
        "'wiki' is 30.0 days old (at most 7.0 allowed)",
    ]
    assert research_problems([doc("anything", 999)], ResearchRules(), NOW) == []


def test_a_plan_is_backed_by_similar_worked_examples_or_trusted_documents() -> None:
    examples = [{"goal": "Write the quarterly report"}, {"goal": "Email Ann"}]
    assert validate_understanding("Write the annual report", examples, 0).worked_examples == 1
    assert not validate_understanding("Restock cables", examples, 0).backed
    assert validate_understanding("Restock cables", examples, 2).backed


@tool(effect=ToolEffect.READ)
def peek(path: str) -> str:
    """Read."""
    return path


@tool(effect=ToolEffect.WRITE_LOCAL)
def scribble(path: str) -> str:
    """Write, with no undo."""
    return path


@tool(effect=ToolEffect.EXTERNAL)
def mail(to: str) -> str:
    """Mail."""
    return to


def step(name: str, effect: str) -> Step:
    return Step(1, "s", tool=name, arguments={"path": "a"}, effect=effect)


def test_learning_by_doing_only_runs_safe_reversible_steps_and_warns_on_bad_odds() -> None:
    assert learning_by_doing(step("peek", "read"), peek, 0, 0).go
    assert not learning_by_doing(step("mail", "external"), mail, 0, 0).go
    assert not learning_by_doing(step("scribble", "write_local"), scribble, 0, 0).go
    risky_odds = learning_by_doing(step("peek", "read"), peek, calls=5, errors=5)
    assert risky_odds.go  # it only reads: low-risk and bounded, so it runs with a warning
    assert risky_odds.warnings == ("'peek' succeeded in 0 of 5 calls before",)
