"""What the Anthropic provider makes of a streamed response, on the real wire."""

from __future__ import annotations

import pytest

from tests.models.anthropic.streams import TIME, WEATHER, ask, asked, collect, sent
from tests.servers.anthropic_api import (
    AnthropicAPI,
    RedactedThinking,
    Reply,
    Text,
    Thinking,
    ToolUse,
)
from tiller.events import TextDelta, ThinkingDelta, ToolCallDelta
from tiller.messages import TextContent, ThinkingContent, ToolCall, Usage
from tiller.models.anthropic import AnthropicModel
from tiller.models.pricing import cost_usd

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")


async def test_text_in_many_small_deltas(api: AnthropicAPI, model: AnthropicModel) -> None:
    text = "The quick brown fox jumps over the lazy dog. " * 20
    api.script(Reply([Text(text, piece=3)], usage={"input_tokens": 20, "output_tokens": 180}))

    deltas, message = await collect(model, ask("Say the pangram twenty times"))

    assert len(deltas) == len(text) // 3 + (1 if len(text) % 3 else 0)
    assert all(isinstance(d, TextDelta) and d.index == 0 for d in deltas)
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == text
    assert message.content == [TextContent(text)]
    assert message.stop_reason == "stop"
    assert (message.provider, message.model) == ("anthropic", "claude-sonnet-4-5")
    assert message.usage.input_tokens == 20
    assert message.usage.output_tokens == 180
    sent = api.requests[0]
    assert sent.body["stream"] is True
    assert sent.body["model"] == "claude-sonnet-4-5"
    assert sent.messages == [
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "Say the pangram twenty times",
                    "cache_control": {"type": "ephemeral"},
                }
            ],
        }
    ]
    assert sent.api_key == "test-key"
    assert "anthropic-version" in sent.headers


async def test_bytes_split_inside_utf8_characters(api: AnthropicAPI, model: AnthropicModel) -> None:
    text = "Grüße aus Köln — 東京 🚀 naïve café"
    api.script(Reply([Text(text, piece=2)], split_utf8=True))

    deltas, message = await collect(model, ask("Greet me"))

    assert api.utf8_splits > 5  # the server really cut inside characters
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == text
    assert message.text == text
    assert [sent(r) for r in api.requests] == [asked("Greet me")]


async def test_one_tool_call_with_fragmented_arguments(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    fragments = ['{"ci', 'ty": "Par', "is, Fr", 'ance"', "}"]
    api.script(
        Reply(
            [Text("Let me check."), ToolUse("toolu_01", "get_weather", fragments)],
            stop_reason="tool_use",
        )
    )

    deltas, message = await collect(model, ask("Weather in Paris?", tools=[WEATHER]))

    calls = [d for d in deltas if isinstance(d, ToolCallDelta)]
    assert calls[0] == ToolCallDelta(1, "", id="toolu_01", name="get_weather")
    assert [c.arguments for c in calls[1:]] == fragments
    assert message.stop_reason == "tool_use"
    assert message.content == [
        TextContent("Let me check."),
        ToolCall("toolu_01", "get_weather", {"city": "Paris, France"}),
    ]
    tools = api.requests[0].body["tools"]
    assert tools == [
        {
            "name": "get_weather",
            "description": "The weather in a city.",
            "input_schema": WEATHER.parameters,
            "cache_control": {"type": "ephemeral"},
        }
    ]


async def test_parallel_tool_calls(api: AnthropicAPI, model: AnthropicModel) -> None:
    api.script(
        Reply(
            [
                ToolUse.of("toolu_a", "get_weather", {"city": "Oslo"}, piece=4),
                ToolUse.of("toolu_b", "get_time", {"city": "Lima"}, piece=4),
                ToolUse("toolu_c", "get_time", []),  # no arguments streamed at all
            ],
            stop_reason="tool_use",
        )
    )

    deltas, message = await collect(
        model, ask("Weather in Oslo, time in Lima", tools=[WEATHER, TIME])
    )

    assert {d.index for d in deltas if isinstance(d, ToolCallDelta)} == {0, 1, 2}
    assert message.tool_calls == [
        ToolCall("toolu_a", "get_weather", {"city": "Oslo"}),
        ToolCall("toolu_b", "get_time", {"city": "Lima"}),
        ToolCall("toolu_c", "get_time", {}),
    ]
    assert [t["name"] for t in api.requests[0].body["tools"]] == ["get_weather", "get_time"]
    assert "cache_control" not in api.requests[0].body["tools"][0]
    assert "cache_control" in api.requests[0].body["tools"][1]


async def test_malformed_tool_json_is_kept_whole_as_invalid(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    fragments = ['{"city": "Par', 'is", "units": ', "celsius}"]
    api.script(Reply([ToolUse("toolu_bad", "get_weather", fragments)], stop_reason="tool_use"))

    _, message = await collect(model, ask("Weather?", tools=[WEATHER]))

    (call,) = message.tool_calls
    assert call.arguments == {}
    assert call.invalid_arguments == "".join(fragments)


async def test_thinking_with_signature(api: AnthropicAPI, model: AnthropicModel) -> None:
    api.script(Reply([Thinking("Two plus two is four.", "sig-EqQkCkYIARgC", piece=5), Text("4")]))

    deltas, message = await collect(model, ask("2+2?"))

    thinking = [d for d in deltas if isinstance(d, ThinkingDelta)]
    assert "".join(d.thinking for d in thinking) == "Two plus two is four."
    assert thinking[-1].signature == "sig-EqQkCkYIARgC"
    assert message.content == [
        ThinkingContent("Two plus two is four.", "sig-EqQkCkYIARgC"),
        TextContent("4"),
    ]


async def test_redacted_thinking_is_kept_not_shown(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    api.script(Reply([RedactedThinking("EmwKAhgBEgy3va3pzix/LafPsn4a"), Text("Done.")]))

    deltas, message = await collect(model, ask("Think privately"))

    assert [type(d) for d in deltas] == [TextDelta]
    assert message.content == [
        ThinkingContent("", "EmwKAhgBEgy3va3pzix/LafPsn4a", redacted=True),
        TextContent("Done."),
    ]


@pytest.mark.parametrize(
    ("anthropic_reason", "tiller_reason"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("model_context_window_exceeded", "length"),
        ("refusal", "refusal"),
    ],
)
async def test_stop_reasons(
    api: AnthropicAPI, model: AnthropicModel, anthropic_reason: str, tiller_reason: str
) -> None:
    api.script(Reply([Text("Partial answer")], stop_reason=anthropic_reason))

    _, message = await collect(model, ask("Go"))

    assert message.stop_reason == tiller_reason
    assert message.text == "Partial answer"
    assert [sent(r) for r in api.requests] == [asked("Go")]


async def test_max_tokens_cuts_a_tool_call_whose_arguments_stay_visible(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    api.script(
        Reply([ToolUse("toolu_1", "get_weather", ['{"city": "Ber'])], stop_reason="max_tokens")
    )
    request = ask("Weather?", tools=[WEATHER])
    request.settings.max_tokens = 16

    _, message = await collect(model, request)

    assert message.stop_reason == "length"
    assert message.tool_calls[0].invalid_arguments == '{"city": "Ber'
    assert api.requests[0].body["max_tokens"] == 16


async def test_refusal_says_why(api: AnthropicAPI, model: AnthropicModel) -> None:
    api.script(
        Reply(
            [],
            stop_reason="refusal",
            stop_details={"type": "refusal", "category": "cyber", "explanation": "malware"},
        )
    )

    _, message = await collect(model, ask("Write ransomware"))

    assert message.stop_reason == "refusal"
    assert message.content == []
    assert message.error_message == "the model declined to answer (category: cyber): malware"
    assert [sent(r) for r in api.requests] == [asked("Write ransomware")]


async def test_cache_usage_and_cost(api: AnthropicAPI, model: AnthropicModel) -> None:
    usage = {
        "input_tokens": 50,
        "cache_read_input_tokens": 10_000,
        "cache_creation_input_tokens": 2_000,
        "output_tokens": 300,
    }
    api.script(Reply([Text("Cached.")], usage=usage))

    _, message = await collect(model, ask("Again", system="A long, stable system prompt."))

    expected = Usage(50, 300, 10_000, 2_000)
    assert message.usage.input_tokens == 50
    assert message.usage.output_tokens == 300
    assert message.usage.cache_read_tokens == 10_000
    assert message.usage.cache_write_tokens == 2_000
    # claude-sonnet-4-5: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million
    assert message.usage.cost_usd == pytest.approx(
        (50 * 3 + 300 * 15 + 10_000 * 0.30 + 2_000 * 3.75) / 1e6
    )
    assert message.usage.cost_usd == cost_usd("anthropic", "claude-sonnet-4-5", expected)
    assert [sent(r) for r in api.requests] == [asked("Again")]
    system = api.requests[0].body["system"]
    assert [(b["text"], b["cache_control"]) for b in system] == [
        ("A long, stable system prompt.", {"type": "ephemeral"})
    ]


async def test_unknown_model_has_no_cost(api: AnthropicAPI) -> None:
    api.script(Reply([Text("Hi")]))
    claude = AnthropicModel("claude-future-9", api_key="test-key", base_url=api.url)
    try:
        _, message = await collect(claude, ask("Hi"))
    finally:
        await claude.aclose()

    assert message.usage.output_tokens == 7
    assert message.usage.cost_usd is None


async def test_pause_turn_is_continued_with_the_paused_content(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    api.script(
        Reply([Text("Searching the web")], stop_reason="pause_turn"),
        Reply([Text("Found it: 42.")], usage={"input_tokens": 30, "output_tokens": 5}),
    )

    deltas, message = await collect(model, ask("Find the answer"))

    assert [d.index for d in deltas] == [0, 1]
    assert message.content == [TextContent("Searching the web"), TextContent("Found it: 42.")]
    assert message.stop_reason == "stop"
    assert message.usage.input_tokens == 12 + 30
    assert message.usage.output_tokens == 7 + 5
    first, second = api.requests
    assert second.messages[:-1] == first.messages
    assert second.messages[-1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Searching the web"}],
    }


async def test_a_turn_still_paused_after_the_continuations_ends_as_length(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    api.script(*[Reply([Text(f"step {n}")], stop_reason="pause_turn") for n in range(9)])

    _, message = await collect(model, ask("Research forever"))

    assert message.stop_reason == "length"
    assert message.text == "".join(f"step {n}" for n in range(9))
    assert len(api.requests) == 9
    assert api.remaining == 0
    last = api.requests[-1].messages[-1]
    assert last["role"] == "assistant"
    assert [b["text"] for b in last["content"]] == [f"step {n}" for n in range(8)]


async def test_event_types_added_later_are_skipped(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    api.script(
        Reply(
            [Text("fine")],
            extra_events=[("annotation_added", {"type": "annotation_added", "note": "x"})],
        )
    )

    deltas, message = await collect(model, ask("Hi"))

    assert [type(d) for d in deltas] == [TextDelta]
    assert message.text == "fine"
