from __future__ import annotations

from typing import Any

from tiller.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from tiller.models import ModelRequest, ToolSpec
from tiller.models.local.chat import ANSWER_FROM_RESULT, TOOL_CALL_OPEN, chat_messages

WEATHER = ToolSpec("get_weather", "Current weather for a city.", {"type": "object"})


def test_a_tool_result_is_a_turn_that_asks_for_an_answer_from_it() -> None:
    call = ToolCall("c1", "get_weather", {"city": "Oslo"})
    request = ModelRequest(
        [
            UserMessage.of("What's the weather in Oslo?"),
            AssistantMessage([call], "tool_use"),
            ToolResultMessage("c1", "get_weather", [TextContent("snow, -3°C")]),
        ],
        tools=[WEATHER],
    )
    turns = chat_messages(request, offer_tools=False)
    assert [t["role"] for t in turns] == ["system", "user", "assistant", "user"]
    assert TOOL_CALL_OPEN in turns[2]["content"]
    assert '"city": "Oslo"' in turns[2]["content"]
    said = turns[3]["content"]
    assert said == f"The tool get_weather returned: snow, -3°C\n{ANSWER_FROM_RESULT}"
    assert "get_weather" not in turns[0]["content"]  # no tools offered after a result


def test_a_failed_tool_says_so() -> None:
    request = ModelRequest(
        [
            UserMessage.of("Read a.txt"),
            ToolResultMessage("c1", "read_file", [TextContent("no such file")], is_error=True),
        ]
    )
    assert chat_messages(request, offer_tools=False)[-1]["content"].startswith(
        "The tool read_file failed: no such file"
    )


def test_the_results_of_one_turns_calls_are_one_turn_that_asks_once() -> None:
    calls: list[Any] = [
        ToolCall("c1", "get_time", {"city": "Lisbon"}),
        ToolCall("c2", "get_time", {"city": "Seoul"}),
    ]
    request = ModelRequest(
        [
            UserMessage.of("What time is it in Lisbon and in Seoul?"),
            AssistantMessage([*calls], "tool_use"),
            ToolResultMessage("c1", "get_time", [TextContent("14:05")]),
            ToolResultMessage("c2", "get_time", [TextContent("22:05")]),
            UserMessage.of("Thanks!"),
        ]
    )
    turns = chat_messages(request, offer_tools=False)
    assert [t["role"] for t in turns] == ["system", "user", "assistant", "user", "user"]
    lines = ["The tool get_time returned: 14:05", "The tool get_time returned: 22:05"]
    assert turns[3]["content"] == "\n".join([*lines, ANSWER_FROM_RESULT])
    assert turns[4]["content"] == "Thanks!"
