"""Content the toolbox server does not send: each kind still has a readable form."""

from __future__ import annotations

from mcp.types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ResourceLink,
    TextContent,
)

from tiller.messages import ImageContent
from tiller.tools.mcp.results import EMPTY_RESULT_TEXT, to_tool_result


def test_audio_links_and_binary_resources_become_text_images_stay_images() -> None:
    result = to_tool_result(
        CallToolResult(
            content=[
                AudioContent(type="audio", data="AAAA", mime_type="audio/wav"),
                ResourceLink(
                    type="resource_link", name="report", uri="file:///r.pdf", description="Q3"
                ),
                EmbeddedResource(
                    type="resource",
                    resource=BlobResourceContents(
                        uri="file:///a.png", mime_type="image/png", blob="iVBORw=="
                    ),
                ),
                EmbeddedResource(
                    type="resource",
                    resource=BlobResourceContents(uri="file:///a.bin", blob="AAAAAAAA"),
                ),
            ]
        )
    )
    texts = [getattr(b, "text", None) for b in result.content]
    assert texts[0] == "[audio (audio/wav) not shown: 3 bytes]"
    assert texts[1] == "[resource link report <file:///r.pdf>: Q3]"
    assert result.content[2] == ImageContent("iVBORw==", "image/png")
    assert texts[3] == "[resource <file:///a.bin> (unknown type) not shown: 6 bytes]"
    assert not result.is_error


def test_structured_only_results_are_shown_as_json_and_empty_results_say_so() -> None:
    structured = to_tool_result(CallToolResult(content=[], structured_content={"n": 1}))
    assert structured.text == '{"n": 1}'
    assert structured.details == {"structured_content": {"n": 1}}
    empty = to_tool_result(CallToolResult(content=[], is_error=True))
    assert empty.text == EMPTY_RESULT_TEXT
    assert empty.is_error
    both = to_tool_result(
        CallToolResult(content=[TextContent(type="text", text="one")], structured_content={"n": 1})
    )
    assert both.text == "one"  # the server's own text stands for the structured value
