"""Content blocks, the four message kinds, usage and stop reasons.

These are the hot data of the runtime: plain slotted dataclasses, no validation
on construction. Validation happens at the boundaries (tool arguments, config,
HTTP bodies); the JSON codec lives in `tiller.codec`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

StopReason: TypeAlias = Literal["stop", "length", "tool_use", "error", "aborted", "refusal"]
STOP_REASONS: tuple[StopReason, ...] = ("stop", "length", "tool_use", "error", "aborted", "refusal")


def now_ms() -> int:
    """Milliseconds since the epoch: the timestamp every message carries."""
    return time.time_ns() // 1_000_000


# ── content blocks ──────────────────────────────────────────────────────────


@dataclass(slots=True)
class TextContent:
    text: str
    type: Literal["text"] = "text"


@dataclass(slots=True)
class ImageContent:
    """An image as base64 data plus its MIME type (`image/png`, ...)."""

    data: str
    mime_type: str
    type: Literal["image"] = "image"


@dataclass(slots=True)
class ThinkingContent:
    """Model reasoning. `signature` is the provider's opaque proof, sent back unchanged."""

    thinking: str
    signature: str | None = None
    redacted: bool = False
    type: Literal["thinking"] = "thinking"


@dataclass(slots=True)
class ToolCall:
    """A request from the model to run a tool.

    `invalid_arguments` holds the raw argument text when the model produced JSON
    that does not parse; the call then fails with an error result the model can read.
    """

    id: str
    name: str
    arguments: dict[str, Any]
    invalid_arguments: str | None = None
    type: Literal["tool_call"] = "tool_call"


Content: TypeAlias = TextContent | ImageContent | ThinkingContent | ToolCall
UserContent: TypeAlias = TextContent | ImageContent
ToolResultContent: TypeAlias = TextContent | ImageContent


# ── usage ───────────────────────────────────────────────────────────────────


@dataclass(slots=True)
class Usage:
    """Token counts of one model response (or a sum of them) and its cost.

    `cost_usd` is None when the price is unknown, never a made-up 0. A sum of usages
    has a cost only when every part that spent tokens had one: a known price plus an
    unknown one is unknown, never the known part presented as the whole.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = None

    @property
    def total_tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            _sum_costs(self, other),
        )


def _sum_costs(a: Usage, b: Usage) -> float | None:
    """A sum is only as known as its parts: one unknown price makes the total unknown.

    A usage that spent nothing (no tokens, no cost) adds nothing, known or not.
    """
    if a.cost_usd is None and a.total_tokens == 0:
        return b.cost_usd
    if b.cost_usd is None and b.total_tokens == 0:
        return a.cost_usd
    if a.cost_usd is None or b.cost_usd is None:
        return None
    return a.cost_usd + b.cost_usd


# ── messages ────────────────────────────────────────────────────────────────


@dataclass(slots=True)
class UserMessage:
    content: list[UserContent]
    timestamp: int = field(default_factory=now_ms)
    role: Literal["user"] = "user"

    @classmethod
    def of(cls, text: str) -> UserMessage:
        return cls([TextContent(text)])

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextContent))


@dataclass(slots=True)
class AssistantMessage:
    content: list[Content]
    stop_reason: StopReason
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    provider: str = ""
    error_message: str | None = None
    timestamp: int = field(default_factory=now_ms)
    role: Literal["assistant"] = "assistant"

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextContent))

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [b for b in self.content if isinstance(b, ToolCall)]


@dataclass(slots=True)
class ToolResultMessage:
    tool_call_id: str
    tool_name: str
    content: list[ToolResultContent]
    is_error: bool = False
    details: Any = None
    timestamp: int = field(default_factory=now_ms)
    role: Literal["tool_result"] = "tool_result"

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextContent))


@dataclass(slots=True)
class ExtensionMessage:
    """A message for people and UIs only; it is never sent to a model.

    `kind` names what it is (`run_stopped`, `note`, ...); `data` is any JSON value.
    """

    kind: str
    text: str = ""
    data: Any = None
    timestamp: int = field(default_factory=now_ms)
    role: Literal["extension"] = "extension"


Message: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage | ExtensionMessage
LlmMessage: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage


@dataclass(slots=True)
class ToolResult:
    """What a tool execution produced, before it becomes a `ToolResultMessage`.

    `details` is structured data for UIs and logs (not sent to the model);
    `child_loop_id` is set when the tool ran a sub-agent. `is_error` marks a
    result that reports a failure but still has content worth keeping (a
    sub-agent stopped by a limit, an MCP server's error result); raising
    `ToolError` is the simpler way to fail with a message.
    """

    content: list[ToolResultContent]
    details: Any = None
    child_loop_id: str | None = None
    is_error: bool = False

    @classmethod
    def of(cls, text: str) -> ToolResult:
        return cls([TextContent(text)])

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextContent))


def without_surrogates(text: str) -> str:
    """`text` with each lone surrogate written out (`\\xe9`, `\\udc00`).

    Bytes that are not UTF-8 reach Python strings as lone surrogates (file names,
    command output); no UTF-8 encoder, tokenizer or JSON file takes them, so text
    from outside goes through here before it enters a history.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join(_escaped_surrogate(c) if "\ud800" <= c <= "\udfff" else c for c in text)
    return text


def _escaped_surrogate(c: str) -> str:
    code = ord(c)
    if 0xDC80 <= code < 0xDD00:  # a byte carried by os.fsdecode / surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"
