from __future__ import annotations

from tiller.events import TextDelta, ThinkingDelta, ToolCallDelta
from tiller.messages import TextContent, ThinkingContent, ToolCall
from tiller.models.assembly import MessageAssembler, parse_tool_call


def test_blocks_are_kept_in_index_order_and_fragments_joined() -> None:
    a = MessageAssembler()
    a.add(ToolCallDelta(2, '{"q": "x', id="c1", name="search"))
    a.add(ThinkingDelta(0, "let me "))
    a.add(TextDelta(1, "Sear"))
    a.add(ThinkingDelta(0, "think", signature="sig"))
    a.add(ToolCallDelta(2, 'y"}'))
    a.add(TextDelta(1, "ching"))
    message = a.finish("tool_use", model="m", provider="p")
    assert message.content == [
        ThinkingContent("let me think", "sig"),
        TextContent("Searching"),
        ToolCall("c1", "search", {"q": "xy"}),
    ]


def test_argument_text_that_is_not_a_json_object_is_kept_as_invalid() -> None:
    assert parse_tool_call("c", "f", '{"a": ') == ToolCall("c", "f", {}, '{"a": ')
    assert parse_tool_call("c", "f", "[1, 2]") == ToolCall("c", "f", {}, "[1, 2]")
    assert parse_tool_call("c", "f", "  ") == ToolCall("c", "f", {})
