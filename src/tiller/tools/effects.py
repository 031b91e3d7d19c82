"""What a tool does to the world, and whether it can show that without doing it.

A tool declares `effect` (an attribute): it only reads, writes locally (files
in its workspace), or acts externally (runs commands, calls services, anything
it cannot contain). A tool that declares nothing is taken to act externally:
permissions fail closed. A tool supports dry-run when it has a `dry_run`
method, and can be undone when it has `prepare_rollback` (see `rollback.py`).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from tiller.messages import ToolResult


class ToolEffect(StrEnum):
    READ = "read"
    WRITE_LOCAL = "write_local"
    EXTERNAL = "external"

    @property
    def phrase(self) -> str:
        """How a sentence says it: "'shell' acts externally"."""
        return _PHRASES[self]


_PHRASES = {
    ToolEffect.READ: "only reads",
    ToolEffect.WRITE_LOCAL: "writes locally",
    ToolEffect.EXTERNAL: "acts externally",
}


@runtime_checkable
class DryRunnable(Protocol):
    async def dry_run(self, arguments: dict[str, Any]) -> ToolResult:
        """Describe what `execute(arguments)` would do, changing nothing.

        Raises (e.g. `ToolError`) when the call would fail, with the same message.
        """
        ...


def effect_of(tool: object) -> ToolEffect:
    """The tool's declared effect; `EXTERNAL` when it declares none (fail closed)."""
    declared = getattr(tool, "effect", None)
    if declared is None:
        return ToolEffect.EXTERNAL
    return ToolEffect(declared)


def supports_dry_run(tool: object) -> bool:
    return callable(getattr(tool, "dry_run", None))
