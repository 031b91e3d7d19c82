"""An MCP `CallToolResult` as a Tiller `ToolResult`.

Text and images pass through; audio, resource links and embedded resources
become text a model can read (an embedded image resource stays an image).
Structured content goes in `details` and, when the server sent no text, as
JSON text too. `isError` results become error results with their content.
Text is capped like the shell tool's output: the first and last lines kept
around the truncation marker, long lines clipped, so a server that returns
megabytes cannot flood the model's context.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tiller.messages import ImageContent, TextContent, ToolResult, ToolResultContent
from tiller.tools.builtin.output_capture import HeadTailCapture

if TYPE_CHECKING:
    from mcp.types import CallToolResult

EMPTY_RESULT_TEXT = "(the MCP tool returned no content)"
# A result's text is capped as the shell tool caps its output (its defaults).
MAX_OUTPUT_LINES = 200
MAX_LINE_CHARS = 2000


def to_tool_result(
    result: CallToolResult,
    *,
    max_lines: int = MAX_OUTPUT_LINES,
    max_line_chars: int = MAX_LINE_CHARS,
) -> ToolResult:
    content: list[ToolResultContent] = []
    for block in result.content:
        content.extend(_block(block))
    structured = result.structured_content
    details: dict[str, Any] | None = None
    if structured is not None:
        as_json = json.dumps(structured, ensure_ascii=False, default=str)
        if not any(isinstance(b, TextContent) for b in content):
            content.append(TextContent(as_json))
        budget = max_lines * max_line_chars
        if len(as_json) <= budget:
            details = {"structured_content": structured}
        else:  # kept out of events and stored history, as its text is kept from the model
            details = {
                "structured_content_omitted": (
                    f"{len(as_json)} characters of JSON, over the {budget} a result keeps"
                )
            }
    if not content:
        content.append(TextContent(EMPTY_RESULT_TEXT))
    content = capped(content, max_lines, max_line_chars)
    return ToolResult(content, details, is_error=bool(result.is_error))


def capped(
    content: list[ToolResultContent], max_lines: int, max_line_chars: int
) -> list[ToolResultContent]:
    """`content` with its text cut as the shell tool cuts its output: at most `max_lines`
    lines in all (the first and last kept around the truncation marker), each at most
    `max_line_chars` characters. Text blocks that were cut become one, where the first
    was; other blocks keep their places. Unchanged when it fits."""
    texts = [block.text for block in content if isinstance(block, TextContent)]
    whole = "\n".join(texts)
    capture = HeadTailCapture(max_lines, max_line_chars)
    capture.feed(whole)
    kept = capture.text()
    if kept == whole:
        return content
    first = next(i for i, block in enumerate(content) if isinstance(block, TextContent))
    others = [block for block in content if not isinstance(block, TextContent)]
    return [*others[:first], TextContent(kept), *others[first:]]


def _block(block: Any) -> list[ToolResultContent]:
    kind = getattr(block, "type", None)
    if kind == "text":
        return [TextContent(block.text)]
    if kind == "image":
        return [ImageContent(block.data, block.mime_type)]
    if kind == "audio":
        return [TextContent(f"[audio ({block.mime_type}) not shown: {_size(block.data)}]")]
    if kind == "resource_link":
        about = f": {block.description}" if block.description else ""
        return [TextContent(f"[resource link {block.name} <{block.uri}>{about}]")]
    if kind == "resource":
        resource = block.resource
        mime = resource.mime_type or "unknown type"
        text = getattr(resource, "text", None)
        if text is not None:
            return [TextContent(f"[resource <{resource.uri}> ({mime})]\n{text}")]
        if resource.mime_type and resource.mime_type.startswith("image/"):
            return [ImageContent(resource.blob, resource.mime_type)]
        return [
            TextContent(f"[resource <{resource.uri}> ({mime}) not shown: {_size(resource.blob)}]")
        ]
    return [TextContent(f"[content of type {kind!r} not shown]")]


def _size(base64_data: str) -> str:
    return f"{len(base64_data) * 3 // 4} bytes"
