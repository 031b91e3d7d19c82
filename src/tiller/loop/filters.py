"""The input filter chain: each filter passes, warns about, or rejects the prompt."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeAlias


@dataclass(slots=True, frozen=True)
class Pass:
    pass


@dataclass(slots=True, frozen=True)
class Warn:
    warning: str


@dataclass(slots=True, frozen=True)
class Reject:
    reason: str


FilterResult: TypeAlias = Pass | Warn | Reject


class InputFilter(Protocol):
    def filter(self, text: str) -> FilterResult: ...


FilterLike: TypeAlias = InputFilter | Callable[[str], FilterResult]


@dataclass(slots=True, frozen=True)
class PassWithWarnings:
    warnings: list[str]


@dataclass(slots=True, frozen=True)
class Rejected:
    reason: str


ChainResult: TypeAlias = Pass | PassWithWarnings | Rejected


def apply_input_filters(filters: Sequence[FilterLike], text: str) -> ChainResult:
    """Run every filter in order; the first rejection wins and discards earlier warnings.

    A filter that raises rejects the input (with the exception's text as the reason):
    a check that could not run is not a check that passed.
    """
    warnings: list[str] = []
    for f in filters:
        try:
            verdict = f.filter(text) if hasattr(f, "filter") else f(text)
        except Exception as exc:  # a guard that fails rejects: fail closed
            name = getattr(f, "__name__", type(f).__name__)
            return Rejected(f"input filter {name!r} raised {type(exc).__name__}: {exc}")
        if isinstance(verdict, Reject):
            return Rejected(verdict.reason)
        if isinstance(verdict, Warn):
            warnings.append(verdict.warning)
    if warnings:
        return PassWithWarnings(warnings)
    return Pass()
