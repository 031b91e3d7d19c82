"""LLM summaries of the span a compaction drops.

A model (the agent's own unless one is given) reads the dropped messages as a
transcript and writes a summary that keeps decisions, facts, file names and
open tasks. The summary replaces the span in the view as one user message with
a fixed opening, so the marker is stable for provider prompt caches.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from tiller.messages import (
    AssistantMessage,
    ExtensionMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tiller.models.base import Model, ModelRequest, ModelSettings
from tiller.truncation import truncate_head_tail

SUMMARY_SYSTEM = (
    "You summarise part of a conversation between a user, an AI assistant and its tools, "
    "so the assistant can continue the work without the original messages."
)
SUMMARY_INSTRUCTIONS = (
    "Summarise the conversation above in short bullet points. Keep every decision made and "
    "why, facts learned (numbers, names, results of tools), file names and paths, commands "
    "run and what they did, errors met, and tasks or questions still open. Leave out "
    "greetings and repetition. Do not add anything that is not in the conversation."
)
SUMMARY_MARKER = "[Context summary of {count} earlier messages]"
TRANSCRIPT_TOOL_LINES = 40  # lines of each tool output shown to the summariser
TRANSCRIPT_MAX_CHARS = 60_000


class LLMSummarizer:
    """Summarises spans with `model` (None: the model of the run being compacted)."""

    def __init__(self, model: Model | str | None = None, *, max_tokens: int = 1024) -> None:
        if isinstance(model, str):
            from tiller.models.registry import resolve_model

            model = resolve_model(model)
        self.model = model
        self.max_tokens = max_tokens

    async def summarize(self, messages: Sequence[Message], default_model: Model) -> str:
        """The summary text; raises when the model fails or says nothing."""
        model = self.model or default_model
        request = ModelRequest(
            messages=[UserMessage.of(f"{transcript(messages)}\n\n{SUMMARY_INSTRUCTIONS}")],
            system_prompt=SUMMARY_SYSTEM,
            settings=ModelSettings(max_tokens=self.max_tokens, temperature=0.0),
        )
        final: AssistantMessage | None = None
        async for item in model.stream(request):
            if isinstance(item, AssistantMessage):
                final = item
        if final is None or final.stop_reason == "error":
            reason = final.error_message if final is not None else "no reply"
            raise RuntimeError(f"the summary model failed: {reason}")
        text = final.text.strip()
        if not text:
            raise RuntimeError("the summary model returned no text")
        return text


def summary_message(summary: str, count: int, timestamp: int) -> UserMessage:
    return UserMessage([TextContent(f"{SUMMARY_MARKER.format(count=count)}\n{summary}")], timestamp)


def transcript(messages: Sequence[Message]) -> str:
    """The messages as plain text a model can summarise; long tool output is cut."""
    lines: list[str] = []
    for message in messages:
        if isinstance(message, ExtensionMessage):
            continue
        if isinstance(message, UserMessage):
            lines.append(f"User: {_texts(message.content)}")
        elif isinstance(message, AssistantMessage):
            parts = []
            for block in message.content:
                if isinstance(block, TextContent) and block.text.strip():
                    parts.append(block.text.strip())
                elif isinstance(block, ToolCall):
                    args = block.invalid_arguments or json.dumps(block.arguments)
                    parts.append(f"[called {block.name} with {args}]")
                elif isinstance(block, ThinkingContent):
                    continue
            lines.append(f"Assistant: {' '.join(parts)}")
        elif isinstance(message, ToolResultMessage):
            outcome = "failed" if message.is_error else "returned"
            body = truncate_head_tail(_texts(message.content), TRANSCRIPT_TOOL_LINES)
            lines.append(f"Tool {message.tool_name} {outcome}: {body}")
    text = "\n".join(lines)
    if len(text) > TRANSCRIPT_MAX_CHARS:
        half = TRANSCRIPT_MAX_CHARS // 2
        text = f"{text[:half]}\n[... middle of the transcript left out ...]\n{text[-half:]}"
    return text


def _texts(content: Sequence[TextContent | ImageContent]) -> str:
    return " ".join(b.text if isinstance(b, TextContent) else "[image]" for b in content)
