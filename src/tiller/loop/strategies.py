"""How the tool calls of one assistant message are executed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias


@dataclass(slots=True, frozen=True)
class Sequential:
    """One at a time; steering is checked after each tool."""


@dataclass(slots=True, frozen=True)
class Parallel:
    """All calls concurrently (the default); steering is checked when all are done."""


@dataclass(slots=True, frozen=True)
class Batched:
    """Groups of `size` concurrently; steering is checked between groups."""

    size: int

    def __post_init__(self) -> None:
        if self.size < 1:
            raise ValueError(f"Batched(size={self.size}): size must be at least 1")


ExecutionStrategy: TypeAlias = Sequential | Parallel | Batched
