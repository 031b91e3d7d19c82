"""Deterministic text summaries: one line per message, in the spirit of compaction's level 2.

They need no model, so the summarising strategies work offline and give the
same view for the same history. A line keeps what a later turn is most likely
to need: what the user asked, what the assistant said or called (with its
arguments, which name files and queries), and what each tool returned first.
A summary met again (the view of a conversation summarised before) is carried
over line by line instead of being summarised a second time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

from tiller.context.strategies.base import CountTokens, text_tokens
from tiller.messages import (
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

TEXT_CHARS = 200  # compaction's level 2 keeps assistant texts of up to 200 characters
ARGUMENT_CHARS = 100
RESULT_CHARS = 120

# Headers of summaries: the LLM summary marker of `tiller.context.summary` and the
# window and hierarchical ones. The count lets a carried summary keep its tally.
_SUMMARY_HEADER = re.compile(
    r"^\[(?:Context summary of|Summary of) (\d+) (?:earlier )?messages?[^\]\n]*\]\n?"
)
# Compaction markers read as what they are, not as something the user said.
_COMPACTION_MARKERS = ("[Context compacted:", "[Summary]")
_SPACE = re.compile(r"\s+")


def clip(text: str, limit: int) -> str:
    """`text` on one line, cut to `limit` characters with an ellipsis."""
    text = _SPACE.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def carried_summary(message: Message) -> tuple[int, list[str]] | None:
    """(messages it covers, its lines) when `message` is a summary a strategy wrote."""
    if not isinstance(message, UserMessage):
        return None
    text = message.text
    match = _SUMMARY_HEADER.match(text)
    if match is None:
        return None
    body = text[match.end() :]
    return int(match.group(1)), [line for line in body.split("\n") if line.strip()]


def describe(message: Message) -> str | None:
    """One line saying what `message` was; None for messages with nothing to say."""
    if isinstance(message, UserMessage):
        text = clip(message.text, TEXT_CHARS)
        images = sum(1 for b in message.content if isinstance(b, ImageContent))
        if images:
            text = f"{text} [{images} image(s)]".strip()
        if text.startswith(_COMPACTION_MARKERS):
            return f"- {text}"
        return f"- User: {text}" if text else None
    if isinstance(message, AssistantMessage):
        parts = [clip(b.text, TEXT_CHARS) for b in message.content if isinstance(b, TextContent)]
        parts = [p for p in parts if p]
        parts += [f"[called {_call(b)}]" for b in message.content if isinstance(b, ToolCall)]
        return f"- Assistant: {' '.join(parts) if parts else '[Assistant response]'}"
    if isinstance(message, ToolResultMessage):
        return f"- Tool {message.tool_name} {_result(message)}"
    return None


def _call(call: ToolCall) -> str:
    args = call.invalid_arguments
    if args is None:
        args = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
    return f"{call.name} {clip(args, ARGUMENT_CHARS)}"


def _result(message: ToolResultMessage) -> str:
    outcome = "failed" if message.is_error else "returned"
    text = message.text
    lines = text.split("\n")
    first = next((line for line in lines if line.strip()), "")
    size = f" ({len(lines)} lines)" if len(lines) > 1 else ""
    images = sum(1 for b in message.content if isinstance(b, ImageContent))
    if not first:
        return f"{outcome} {images} image(s)" if images else f"{outcome} nothing"
    return f"{outcome}{size}: {clip(first, RESULT_CHARS)}"


def summary_lines(messages: Sequence[Message]) -> tuple[int, list[str]]:
    """(messages covered, one line per message), carrying earlier summaries over."""
    covered = 0
    lines: list[str] = []
    for message in messages:
        carried = carried_summary(message)
        if carried is not None:
            covered += carried[0]
            lines.extend(carried[1])
            continue
        covered += 1
        line = describe(message)
        if line is not None:
            lines.append(line)
    return covered, lines


def omitted_line(count: int) -> str:
    return f"- ({count} earlier lines left out)"


def newest_lines_within(
    header: str, lines: Sequence[str], room: int, tokens: Callable[[str], int], max_lines: int
) -> str | None:
    """`header` and as many of the newest `lines` as fit `room` tokens (and `max_lines`),
    with a line saying how many older ones were left out; None if not even the
    header fits. Lines are measured one by one, so this is linear in the text."""
    header_tokens = tokens(header)
    if header_tokens > room:
        return None
    kept: list[str] = []
    used = header_tokens
    reserve = tokens("\n" + omitted_line(len(lines)))
    for line in reversed(lines):
        if len(kept) >= max_lines:
            break
        cost = tokens("\n" + line)
        more_left = len(kept) + 1 < len(lines)
        if used + cost + (reserve if more_left else 0) > room:
            break
        kept.append(line)
        used += cost
    kept.reverse()
    omitted = len(lines) - len(kept)
    if omitted and used + reserve <= room:
        kept.insert(0, omitted_line(omitted))
    return "\n".join([header, *kept])


def summary_within(
    header: str,
    lines: Sequence[str],
    room: int,
    count: CountTokens,
    timestamp: int,
    max_lines: int,
) -> UserMessage | None:
    """A summary message of at most `room` tokens as `count` measures it, or None.

    Lines are measured one at a time; a tokenizer that does not add up exactly
    (tokens can merge across a line break) is caught by measuring the result and
    trying again with the overshoot taken off.
    """
    tokens = text_tokens(count)
    target = room - count(UserMessage([], timestamp))
    for _ in range(4):
        text = newest_lines_within(header, lines, target, tokens, max_lines)
        if text is None:
            return None
        message = UserMessage([TextContent(text)], timestamp)
        over = count(message) - room
        if over <= 0:
            return message
        target -= over
    return None
