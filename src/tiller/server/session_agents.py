"""What a session's runs execute with: its model, its tools in its own workspace, its
prompt and context strategy, and which tool calls wait for a person's approval."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tiller.loop.options import ContextOptions
from tiller.models.base import Model
from tiller.models.registry import resolve_model
from tiller.store.sessions import Session
from tiller.tools.base import Tool
from tiller.tools.builtin import builtin_tools
from tiller.tools.effects import ToolEffect, effect_of


@dataclass(frozen=True, slots=True)
class ApprovalRule:
    """Calls of these tools, or of tools with these effects, wait for an approval."""

    tools: frozenset[str] = frozenset()
    effects: frozenset[ToolEffect] = frozenset({ToolEffect.EXTERNAL})

    def needs_approval(self, tool: Tool | None, name: str) -> bool:
        if name in self.tools:
            return True
        effect = effect_of(tool) if tool is not None else ToolEffect.EXTERNAL
        return effect in self.effects


# A session that keeps its whole history (compacted only when the model's context is full).
FULL_HISTORY = "full"


def context_options(session: Session) -> ContextOptions:
    """The session's context strategy: `full`, or a registered strategy's name."""
    name = session.context_strategy
    return ContextOptions(strategy=None if name == FULL_HISTORY else name)


class SessionAgents:
    """Builds each session's model and tools; models are made once per model name."""

    def __init__(self, workspaces: Path, default_model: Model, default_name: str) -> None:
        self.workspaces = workspaces
        self._models: dict[str, Model] = {default_name: default_model}

    def model(self, name: str) -> Model:
        found = self._models.get(name)
        if found is None:
            found = self._models[name] = resolve_model(name)
        return found

    def workspace(self, session: Session) -> Path:
        """The session's own folder: its tools see nothing outside it."""
        folder = self.workspaces / session.id
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def tools(self, session: Session) -> list[Tool]:
        return builtin_tools(session.tools, self.workspace(session))
