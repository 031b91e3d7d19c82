from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tiller.errors import ConfigError, NetworkError, RateLimitError, UsageError
from tiller.events import TextDelta, ThinkingDelta, ToolCallDelta
from tiller.messages import AssistantMessage, ThinkingContent, ToolCall, Usage, UserMessage
from tiller.models import Fail, FunctionModel, ModelRequest, Reply, ScriptedModel, call
from tiller.models.registry import resolve_model


async def collect(model: Any, request: ModelRequest | None = None) -> list[Any]:
    request = request or ModelRequest([UserMessage.of("hi")])
    return [item async for item in model.stream(request)]


async def test_a_reply_streams_in_chunks_then_the_message() -> None:
    model = ScriptedModel([Reply("hello world", thinking="hmm", chunk_size=4, usage=Usage(3, 4))])
    items = await collect(model)
    *deltas, message = items
    assert deltas == [
        ThinkingDelta(0, "hmm"),
        TextDelta(1, "hell"),
        TextDelta(1, "o wo"),
        TextDelta(1, "rld"),
    ]
    assert isinstance(message, AssistantMessage)
    assert message.content[0] == ThinkingContent("hmm")
    assert message.text == "hello world"
    assert message.stop_reason == "stop"
    assert message.usage == Usage(3, 4)
    assert (message.model, message.provider) == ("scripted", "scripted")


async def test_tool_calls_stream_argument_fragments() -> None:
    model = ScriptedModel([Reply(calls=[call("f", id="c1", x=1, y="é")], chunk_size=5)])
    *deltas, message = await collect(model)
    assert all(isinstance(d, ToolCallDelta) for d in deltas)
    assert deltas[0].id == "c1"
    assert deltas[0].name == "f"
    assert all(d.id is None for d in deltas[1:])
    assert json.loads("".join(d.arguments for d in deltas)) == {"x": 1, "y": "é"}
    assert message.content == [ToolCall("c1", "f", {"x": 1, "y": "é"})]
    assert message.stop_reason == "tool_use"


async def test_it_records_requests_and_reports_leftover_steps() -> None:
    model = ScriptedModel(["a", "b"])
    request = ModelRequest([UserMessage.of("q")], system_prompt="s")
    await collect(model, request)
    assert model.requests == [request]
    with pytest.raises(AssertionError, match="1 unused step"):
        model.assert_complete()
    await collect(model)
    model.assert_complete()
    with pytest.raises(UsageError, match="no step left for request #3"):
        await collect(model)


async def test_failures_before_and_during_the_stream() -> None:
    model = ScriptedModel(
        [
            Fail(RateLimitError("429", retry_after=2)),
            Reply("abc", chunk_size=1, fail=NetworkError("cut")),
        ]
    )
    with pytest.raises(RateLimitError):
        await collect(model)
    seen: list[Any] = []

    async def consume() -> None:
        async for item in model.stream(ModelRequest([])):
            seen.append(item)

    with pytest.raises(NetworkError):
        await consume()
    assert seen == [TextDelta(0, "a"), TextDelta(0, "b"), TextDelta(0, "c")]


async def test_function_model_sync_and_async() -> None:
    def echo(request: ModelRequest) -> str:
        return "echo: " + request.messages[-1].text

    async def tools(request: ModelRequest) -> Reply:
        return Reply(calls=[call("f", n=len(request.messages))])

    *_, message = await collect(FunctionModel(echo))
    assert message.text == "echo: hi"
    *_, message = await collect(FunctionModel(tools))
    assert message.tool_calls[0].arguments == {"n": 1}


def test_scripted_model_from_a_json_file(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(
        json.dumps(
            [
                {"calls": [{"name": "add", "arguments": {"a": 1}}]},
                {"fail": {"kind": "overloaded", "message": "busy"}},
                "done",
            ]
        )
    )
    model = resolve_model(f"scripted:{script}")
    assert isinstance(model, ScriptedModel)
    assert model.remaining == 3


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("gpt", "not of the form PROVIDER:NAME"),
        ("warp:drive", "unknown model provider 'warp'"),
        ("scripted:/nonexistent/x.json", "cannot read the model script"),
    ],
)
def test_bad_model_strings_are_clear(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        resolve_model(spec)


def test_a_malformed_script_is_clear(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        resolve_model(f"scripted:{bad}")
    bad.write_text('{"a": 1}')
    with pytest.raises(ConfigError, match="JSON list of steps"):
        resolve_model(f"scripted:{bad}")
