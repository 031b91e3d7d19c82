"""Building the `Agent` a command runs, from its command-line options."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tiller.models.defaults import default_model_spec

if TYPE_CHECKING:
    from tiller.agent import Agent
    from tiller.messages import Message
    from tiller.models.base import Model
    from tiller.tools.base import Tool


@dataclass(slots=True)
class AgentSetup:
    """Everything but the model and the history: kept when `/model` switches models."""

    tools: list[Tool] = field(default_factory=list)
    system_prompt: str | None = None
    max_turns: int | None = None

    @classmethod
    def from_options(
        cls, tool_specs: Sequence[str], system_prompt: str | None, max_turns: int | None
    ) -> AgentSetup:
        from tiller.cli.tool_loading import load_tool

        return cls([load_tool(t) for t in tool_specs], system_prompt, max_turns)

    def build(self, model: str | Model | None, history: Sequence[Message] = ()) -> Agent:
        """An agent on `model` (the default model when None) continuing `history`."""
        from tiller.agent import Agent
        from tiller.loop.limits import Limits

        return Agent(
            model or default_model_spec(),
            tools=self.tools,
            system_prompt=self.system_prompt,
            limits=Limits(max_turns=self.max_turns),
            history=history,
        )
