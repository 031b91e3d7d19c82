"""An MCP `CallToolResult` as a Tiller `ToolResult`.

Text and images pass through; audio, resource links and embedded resources
become text a model can read (an embedded image resource stays an image).
Structured content goes in `details` and, when the server sent no text, as
JSON text too. `isError` results become error results with their content.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tiller.messages import ImageContent, TextContent, ToolResult, ToolResultContent

if TYPE_CHECKING:
    from mcp.types import CallToolResult

EMPTY_RESULT_TEXT = "(the MCP tool returned no content)"


def to_tool_result(result: CallToolResult) -> ToolResult:
    content: list[ToolResultContent] = []
    for block in result.content:
        content.extend(_block(block))
    structured = result.structured_content
    if structured is not None and not any(isinstance(b, TextContent) for b in content):
        content.append(TextContent(json.dumps(structured, ensure_ascii=False, default=str)))
    if not content:
        content.append(TextContent(EMPTY_RESULT_TEXT))
    details: dict[str, Any] | None = None
    if structured is not None:
        details = {"structured_content": structured}
    return ToolResult(content, details, is_error=bool(result.is_error))


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
