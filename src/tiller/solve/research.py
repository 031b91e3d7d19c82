"""Retrieved data a goal's work relies on, checked before anything runs on it.

A solve may be given a retriever: for a goal and its plan, it returns documents,
each with where it came from (`source`) and when it was last known to be true
(`as_of`). The data is valid when there is some, every document comes from a
trusted source (when the solve names trusted sources), and none is older than
the solve's `max_age_s`. Invalid data stops the goal with a question for a
person rather than letting the work run on it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tiller.solve.goals import Goal
    from tiller.solve.plans import Plan


@dataclass(slots=True, frozen=True)
class Document:
    source: str
    text: str
    as_of: datetime


Retriever = Callable[["Goal", "Plan"], Awaitable[Sequence[Document]]]


@dataclass(slots=True, frozen=True)
class ResearchRules:
    trusted_sources: frozenset[str] = frozenset()  # empty: every source is trusted
    max_age_s: float | None = None


def research_problems(
    documents: Sequence[Document], rules: ResearchRules, now: datetime | None = None
) -> list[str]:
    """Why the retrieved data cannot be relied on ([] when it can)."""
    if not documents:
        return ["nothing was retrieved"]
    now = now or datetime.now(UTC)
    problems: list[str] = []
    for document in documents:
        if rules.trusted_sources and document.source not in rules.trusted_sources:
            problems.append(f"{document.source!r} is not a trusted source")
        age = (now - document.as_of).total_seconds()
        if rules.max_age_s is not None and age > rules.max_age_s:
            problems.append(
                f"{document.source!r} is {age / 86_400:.1f} days old "
                f"(at most {rules.max_age_s / 86_400:.1f} allowed)"
            )
    return problems


def as_context(documents: Sequence[Document]) -> str:
    return "\n\n".join(f"[{d.source}, as of {d.as_of:%Y-%m-%d}]\n{d.text}" for d in documents)
