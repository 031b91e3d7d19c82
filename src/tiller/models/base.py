"""The model seam: what the loop asks of any model, and what it gets back.

A model turns a `ModelRequest` into a stream: zero or more deltas (text,
thinking, tool-call argument fragments), then exactly one finished
`AssistantMessage` carrying usage and the stop reason. Failures are raised as
`tiller.errors.ModelError` subclasses; cancellation is asyncio cancellation.

A stream may also yield events (`tiller.events`), such as a circuit breaker's
`CircuitStateChanged`, anywhere before the final message: the loop emits them
as they are, stamped with the run's `loop_id`; they are not part of the reply.

A model that calls a server also has an `endpoint` property, its base URL:
circuit breakers are kept per provider and endpoint.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias, runtime_checkable

from tiller.events import AgentEvent, Delta
from tiller.messages import AssistantMessage, Message

StreamItem: TypeAlias = Delta | AssistantMessage | AgentEvent


@dataclass(slots=True)
class ToolSpec:
    """A tool as a model sees it: name, description, JSON schema of the arguments.

    `effect` is what the tool declared it does ("read", "write_local", "external"),
    or None when it declared nothing; providers that choose tools themselves (the
    local model) use it to keep changing tools away from requests to look.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    effect: str | None = None


# `ModelSettings.tool_choice` that makes the model call one of the offered tools.
ANY_TOOL = "required"


@dataclass(slots=True)
class ModelSettings:
    """How the model answers. `tool_choice`: None lets the model decide whether to call
    a tool; `"required"` makes it call one of the offered tools; a tool's name makes it
    call that tool (a structured answer handed in through a tool, say). Anthropic
    models with extended thinking on cannot be made to call a tool: they decide."""

    max_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    stop: list[str] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    tool_choice: str | None = None


@dataclass(slots=True)
class ModelRequest:
    """One call to a model. `messages` may include extension messages; providers skip them."""

    messages: Sequence[Message]
    system_prompt: str | None = None
    tools: Sequence[ToolSpec] = ()
    settings: ModelSettings = field(default_factory=ModelSettings)


@runtime_checkable
class Model(Protocol):
    """Anything that can stream an assistant message for a request."""

    @property
    def name(self) -> str: ...

    @property
    def provider(self) -> str: ...

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        """Yield deltas (and any events), then the finished `AssistantMessage` as the last item."""
        ...
