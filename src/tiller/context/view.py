"""The non-destructive context view: the full history stays, compaction adds blocks.

History is kept exactly as it happened. Each compaction writes a
`CompactionBlock`: "the first `upto` messages of the history are seen as
`messages`", with the history spans it summarised, truncated or dropped, its
method and summary. The view sent to a model is the latest block's messages
followed by the history after it. Undoing a compaction removes its block; the
view is then derived from the block before it (or from the raw history).

Because a compaction starts from the current view, its kept messages are the
very objects of that view, in order, and marker texts are fixed: a provider's
prompt cache keeps its prefix.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tiller.codec import message_from_data, to_data
from tiller.context.compaction_levels import CountMessage
from tiller.context.token_counters import MessageTokens
from tiller.errors import InvalidHistoryError
from tiller.messages import Message


@dataclass(slots=True)
class CompactionBlock:
    upto: int  # history[:upto] is seen as `messages`
    messages: list[Message]
    method: str  # "level1".."level3", "llm_summary", or a session strategy's name
    spans: list[tuple[int, int]]  # history ranges [start, end) summarised, cut or dropped
    summary: str | None = None
    tokens_before: int = 0
    tokens_after: int = 0
    created_at: float = field(default_factory=time.time)


class ContextView:
    """History + compaction blocks -> the messages a model sees. One per conversation."""

    __slots__ = ("blocks", "tokens")

    def __init__(
        self, blocks: Sequence[CompactionBlock] = (), tokens: MessageTokens | None = None
    ) -> None:
        self.blocks: list[CompactionBlock] = list(blocks)
        self.tokens = tokens or MessageTokens()

    def current(self, history: Sequence[Message]) -> CompactionBlock | None:
        """The block in force: the latest one that still fits the history."""
        for block in reversed(self.blocks):
            if block.upto <= len(history):
                return block
        return None

    def view_tokens(self, history: Sequence[Message]) -> int:
        """Tokens of `view(history)` without building it; new history messages are
        counted once (a history that only grew is not recounted)."""
        block = self.current(history)
        if block is None:
            return self.tokens.tail_total(history)
        return self.tokens.total(block.messages) + self.tokens.tail_total(history, block.upto)

    def view(self, history: Sequence[Message]) -> list[Message]:
        block = self.current(history)
        if block is None:
            return list(history)
        return [*block.messages, *history[block.upto :]]

    def record(
        self,
        history: Sequence[Message],
        compacted: list[Message],
        method: str,
        *,
        summary: str | None = None,
        count: CountMessage | None = None,
        tokens_before: int | None = None,
    ) -> CompactionBlock:
        """Write a block saying the whole current history is seen as `compacted`."""
        count = count or self.tokens
        kept = {id(m) for m in compacted}
        block = CompactionBlock(
            upto=len(history),
            messages=list(compacted),
            method=method,
            spans=_spans_not_kept(history, kept),
            summary=summary,
            tokens_before=tokens_before
            if tokens_before is not None
            else sum(map(count, self.view(history))),
            tokens_after=sum(map(count, compacted)),
        )
        self.blocks.append(block)
        return block

    def undo(self, block: CompactionBlock | None = None) -> CompactionBlock:
        """Remove `block` (the latest by default); the view reverts to the one before it."""
        if not self.blocks:
            raise InvalidHistoryError("there is no compaction to undo")
        target = block if block is not None else self.blocks[-1]
        try:
            index = next(i for i, b in enumerate(self.blocks) if b is target)
        except StopIteration:
            raise InvalidHistoryError("that compaction block is not in this view") from None
        return self.blocks.pop(index)

    def clear(self) -> None:
        self.blocks.clear()

    # ── saving ──────────────────────────────────────────────────────────────

    def to_data(self, history: Sequence[Message]) -> list[dict[str, Any]]:
        """The blocks as JSON-able data; messages of the history are saved as references."""
        index = {id(m): i for i, m in enumerate(history)}
        out = []
        for block in self.blocks:
            messages: list[Any] = [
                {"ref": index[id(m)]} if id(m) in index else {"message": to_data(m)}
                for m in block.messages
            ]
            out.append(
                {
                    "upto": block.upto,
                    "messages": messages,
                    "method": block.method,
                    "spans": [list(span) for span in block.spans],
                    "summary": block.summary,
                    "tokens_before": block.tokens_before,
                    "tokens_after": block.tokens_after,
                    "created_at": block.created_at,
                }
            )
        return out

    @classmethod
    def from_data(cls, data: Any, history: Sequence[Message]) -> ContextView:
        """Blocks saved by `to_data`, re-attached to `history` (raises on bad data)."""
        if not isinstance(data, list):
            raise ValueError("compactions must be a list")
        blocks = []
        for raw in data:
            upto = int(raw["upto"])
            if not 0 <= upto <= len(history):
                raise ValueError(f"a compaction covers {upto} messages; the history has fewer")
            messages: list[Message] = []
            for item in raw["messages"]:
                if "ref" in item:
                    messages.append(history[int(item["ref"])])
                else:
                    messages.append(message_from_data(item["message"]))
            blocks.append(
                CompactionBlock(
                    upto=upto,
                    messages=messages,
                    method=str(raw["method"]),
                    spans=[(int(a), int(b)) for a, b in raw.get("spans", [])],
                    summary=raw.get("summary"),
                    tokens_before=int(raw.get("tokens_before", 0)),
                    tokens_after=int(raw.get("tokens_after", 0)),
                    created_at=float(raw.get("created_at", 0.0)),
                )
            )
        return cls(blocks)


def _spans_not_kept(history: Sequence[Message], kept: set[int]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start: int | None = None
    for i, message in enumerate(history):
        if id(message) in kept:
            if start is not None:
                spans.append((start, i))
                start = None
        elif start is None:
            start = i
    if start is not None:
        spans.append((start, len(history)))
    return spans
