"""Content the toolbox server does not send: each kind still has a readable form."""

from __future__ import annotations

from mcp.types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent as WireImage,
    ResourceLink,
    TextContent,
)

from tiller.messages import ImageContent
from tiller.tools.mcp.results import EMPTY_RESULT_TEXT, to_tool_result
from tiller.truncation import truncation_marker


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


def test_long_text_keeps_its_head_and_tail_around_the_marker_across_blocks() -> None:
    first = "\n".join(f"a{n}" for n in range(1, 8))
    second = "\n".join(f"b{n}" for n in range(1, 8))
    result = to_tool_result(
        CallToolResult(
            content=[
                TextContent(type="text", text=first),
                WireImage(type="image", data="iVBORw==", mime_type="image/png"),
                TextContent(type="text", text=second),
            ]
        ),
        max_lines=4,
    )
    text, image = result.content
    assert getattr(text, "text", None) == "a1\na2" + truncation_marker(10) + "b6\nb7"
    assert isinstance(image, ImageContent)


def test_a_long_line_is_clipped_and_text_that_fits_is_untouched() -> None:
    line = "y" * 50
    result = to_tool_result(
        CallToolResult(content=[TextContent(type="text", text=line)]), max_line_chars=20
    )
    assert result.text == "y" * 20 + "… [30 more characters on this line]"
    fits = CallToolResult(
        content=[TextContent(type="text", text="a\nb"), TextContent(type="text", text="c")]
    )
    assert [getattr(b, "text", None) for b in to_tool_result(fits, max_lines=3).content] == [
        "a\nb",
        "c",
    ]


def test_huge_structured_content_is_shown_capped_and_kept_out_of_details() -> None:
    rows = [{"row": n} for n in range(1000)]
    result = to_tool_result(
        CallToolResult(content=[], structured_content={"rows": rows}),
        max_lines=2,
        max_line_chars=100,
    )
    assert result.text.endswith("more characters on this line]")
    assert result.details is not None
    assert "structured_content" not in result.details
    assert "over the" in result.details["structured_content_omitted"]
