"""What the Anthropic provider sends: checked on the server that received it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.models.anthropic.conftest import API_KEY
from tests.models.anthropic.streams import TIME, WEATHER, ask, collect
from tests.servers.anthropic_api import AnthropicAPI, Reply, Text
from tiller.errors import ConfigError
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
from tiller.models.anthropic import AnthropicModel, anthropic_model
from tiller.models.base import ModelRequest, ModelSettings
from tiller.models.registry import resolve_model

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9aw"
    + "AAAABJRU5ErkJggg=="
)
EPHEMERAL = {"type": "ephemeral"}


def _history() -> list[Message]:
    """A conversation with every kind of message and block the provider must convert."""
    return [
        UserMessage(
            [
                TextContent("What is in this picture, and the weather there?"),
                ImageContent(PNG, "image/png"),
            ]
        ),
        AssistantMessage(
            [
                ThinkingContent("A lighthouse; check the weather.", "sig-1"),
                ThinkingContent("", "REDACTED-BLOB", redacted=True),
                ThinkingContent("unsigned thoughts from another provider"),
                TextContent("Checking."),
                ToolCall("toolu_w", "get_weather", {"city": "Brest"}),
                ToolCall("call.t:1", "get_time", {"city": "Brest"}),
            ],
            "tool_use",
        ),
        ExtensionMessage("note", "shown to people only"),
        ToolResultMessage(
            "toolu_w", "get_weather", [TextContent("Rain, 12°C"), ImageContent(PNG, "image/png")]
        ),
        ToolResultMessage("call.t:1", "get_time", [TextContent("no such city")], is_error=True),
        UserMessage.of("Answer in French."),
    ]


async def test_a_conversation_becomes_alternating_api_messages(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    api.script(Reply([Text("Il pleut.")]))

    request = ModelRequest(_history(), tools=[WEATHER, TIME])
    _, message = await collect(model, request)

    assert message.text == "Il pleut."  # the server found nothing to refuse
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
    assert api.requests[0].messages == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is in this picture, and the weather there?"},
                {**image, "cache_control": EPHEMERAL},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "thinking",
                    "thinking": "A lighthouse; check the weather.",
                    "signature": "sig-1",
                },
                {"type": "redacted_thinking", "data": "REDACTED-BLOB"},
                {"type": "text", "text": "Checking."},
                {
                    "type": "tool_use",
                    "id": "toolu_w",
                    "name": "get_weather",
                    "input": {"city": "Brest"},
                },
                {
                    "type": "tool_use",
                    "id": "call_t_1",
                    "name": "get_time",
                    "input": {"city": "Brest"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_w",
                    "content": [{"type": "text", "text": "Rain, 12°C"}, image],
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "call_t_1",
                    "content": [{"type": "text", "text": "no such city"}],
                    "is_error": True,
                },
                {"type": "text", "text": "Answer in French.", "cache_control": EPHEMERAL},
            ],
        },
    ]


async def test_cache_breakpoints_on_system_last_tool_and_last_two_user_messages(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    api.script(Reply([Text("ok")]))
    history: list[Message] = [
        UserMessage.of("first"),
        AssistantMessage([TextContent("one")], "stop"),
        UserMessage.of("second"),
        AssistantMessage([TextContent("two")], "stop"),
        UserMessage.of("third"),
    ]

    await collect(model, ModelRequest(history, system_prompt="Be brief.", tools=[WEATHER, TIME]))

    body = api.requests[0].body
    assert body["system"] == [{"type": "text", "text": "Be brief.", "cache_control": EPHEMERAL}]
    assert ["cache_control" in t for t in body["tools"]] == [False, True]
    marked = [
        block["text"]
        for message in body["messages"]
        for block in message["content"]
        if "cache_control" in block
    ]
    assert marked == ["second", "third"]


async def test_prompt_caching_can_be_turned_off(api: AnthropicAPI) -> None:
    api.script(Reply([Text("ok")]))
    claude = AnthropicModel(
        "claude-sonnet-4-5", api_key=API_KEY, base_url=api.url, prompt_caching=False
    )
    try:
        await collect(claude, ask("hi", tools=[WEATHER], system="Be brief."))
    finally:
        await claude.aclose()

    body = api.requests[0].body
    assert body["system"] == "Be brief."
    assert "cache_control" not in str(body)


async def test_settings_and_thinking_go_into_the_body(api: AnthropicAPI) -> None:
    api.script(Reply([Text("ok")]), Reply([Text("ok")]))
    claude = AnthropicModel("claude-sonnet-4-5", api_key=API_KEY, base_url=api.url, thinking=2048)
    request = ask("hi")
    request.settings = ModelSettings(
        temperature=1.0, top_p=0.9, stop=["END"], extra={"metadata": {"user_id": "u-7"}}
    )
    try:
        await collect(claude, request)
        await collect(claude, ask("hi"))
    finally:
        await claude.aclose()

    first, second = (r.body for r in api.requests)
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert first["max_tokens"] == 8192 + 2048
    assert first["temperature"] == 1.0
    assert first["top_p"] == 0.9
    assert first["stop_sequences"] == ["END"]
    assert first["metadata"] == {"user_id": "u-7"}
    assert "temperature" not in second
    assert "metadata" not in second


async def test_empty_messages_are_dropped_and_neighbours_merged(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    api.script(Reply([Text("ok")]))
    history: list[Message] = [
        UserMessage.of("first"),
        AssistantMessage([], "aborted"),  # a run aborted before anything streamed
        UserMessage([TextContent(""), TextContent("second")]),
    ]

    await collect(model, ModelRequest(history))

    assert api.requests[0].messages == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "first"},
                {"type": "text", "text": "second", "cache_control": EPHEMERAL},
            ],
        }
    ]


async def test_an_empty_tool_result_is_sent_without_content(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    api.script(Reply([Text("ok")]))
    history: list[Message] = [
        UserMessage.of("Clear the cache."),
        AssistantMessage([ToolCall("toolu_c", "clear_cache", {})], "tool_use"),
        ToolResultMessage("toolu_c", "clear_cache", [TextContent("")], is_error=True),
    ]

    await collect(model, ModelRequest(history))

    assert api.requests[0].messages[-1]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_c",
            "is_error": True,
            "cache_control": EPHEMERAL,
        }
    ]


def test_a_missing_api_key_says_how_to_set_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)

    with pytest.raises(ConfigError, match="set ANTHROPIC_API_KEY"):
        AnthropicModel("claude-sonnet-4-5")
    with pytest.raises(ConfigError, match="set ANTHROPIC_API_KEY"):
        resolve_model("anthropic:claude-sonnet-4-5")


async def test_the_key_and_base_url_come_from_the_environment(
    api: AnthropicAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
    api.script(Reply([Text("from env")]))
    claude = AnthropicModel("claude-sonnet-4-5")
    try:
        _, message = await collect(claude, ask("hi"))
    finally:
        await claude.aclose()

    assert claude.endpoint == api.url
    assert message.text == "from env"
    assert api.requests[0].api_key == API_KEY


async def test_resolved_from_a_model_string(api: AnthropicAPI) -> None:
    api.script(Reply([Text("resolved")]))
    claude = resolve_model(
        "anthropic:claude-sonnet-4-5", base_url=api.url + "/", api_key=API_KEY, timeout=30.0
    )

    _, message = await collect(claude, ask("hi"))

    assert (claude.name, claude.provider) == ("claude-sonnet-4-5", "anthropic")
    assert getattr(claude, "endpoint") == api.url  # noqa: B009  (what breakers key on)
    assert message.text == "resolved"


@pytest.mark.parametrize(
    ("options", "complaint"),
    [
        ({"temprature": 0.5}, "unknown option"),
        ({"thinking": 100}, "at least 1024"),
        ({"thinking": "lots"}, "token budget or 'adaptive'"),
        ({"thinking": 4096, "max_tokens": 4096}, "more than the thinking budget"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], complaint: str) -> None:
    with pytest.raises(ConfigError, match=complaint):
        anthropic_model("claude-sonnet-4-5", api_key=API_KEY, **options)


def test_options_given_as_none_are_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    claude = anthropic_model("claude-sonnet-4-5", api_key=API_KEY, base_url=None, timeout=None)

    assert claude.endpoint == "https://api.anthropic.com"
    assert claude.max_tokens == 8192


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        (None, None),
        ("required", {"type": "any"}),
        ("get_time", {"type": "tool", "name": "get_time"}),
    ],
)
async def test_tool_choice_is_sent_as_the_api_spells_it(
    api: AnthropicAPI, model: AnthropicModel, choice: str | None, sent: object
) -> None:
    api.script(Reply([Text("ok")]))
    request = ModelRequest(
        [UserMessage.of("time?")], tools=[WEATHER, TIME], settings=ModelSettings(tool_choice=choice)
    )
    await collect(model, request)
    assert api.requests[0].body.get("tool_choice") == sent
