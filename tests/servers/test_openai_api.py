"""The fake OpenAI server speaks what the official SDK understands, streaming and not."""

from __future__ import annotations

from openai import AsyncOpenAI

from tests.servers.openai_api import ChatStream, OpenAIServer, ResponsesStream


async def test_chat_stream_and_completion_parse_with_the_official_sdk() -> None:
    chat = (
        ChatStream()
        .text("Hel", "lo")
        .tool_call(0, "call_1", "add")
        .tool_args(0, '{"a": 1, ', '"b": 2}')
        .finish("tool_calls")
        .usage(11, 4, cached=3)
    )
    with OpenAIServer([chat.stream(), chat.stream()]) as server:
        client = AsyncOpenAI(base_url=server.url, api_key="k", max_retries=0)
        chunks = [
            c
            async for c in await client.chat.completions.create(
                model="gpt-4.1", messages=[{"role": "user", "content": "hi"}], stream=True
            )
        ]
        completion = await client.chat.completions.create(
            model="gpt-4.1", messages=[{"role": "user", "content": "hi"}]
        )
        await client.close()
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "Hello"
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.prompt_tokens == 11
    message = completion.choices[0].message
    assert message.content == "Hello"
    assert message.tool_calls is not None
    call = message.tool_calls[0]
    assert call.type == "function"
    assert call.id == "call_1"
    assert call.function.arguments == '{"a": 1, "b": 2}'
    assert completion.choices[0].finish_reason == "tool_calls"
    assert server.bodies[1].get("stream") is None


async def test_responses_stream_and_response_parse_with_the_official_sdk() -> None:
    responses = (
        ResponsesStream()
        .reasoning(["Thinking"])
        .message("Hi", " there")
        .function_call("call_7", "add", '{"a": 1}')
        .completed(20, 5, cached=2)
    )
    with OpenAIServer([responses.stream(), responses.stream()]) as server:
        client = AsyncOpenAI(base_url=server.url, api_key="k", max_retries=0)
        events = [
            e async for e in await client.responses.create(model="gpt-5", input="hi", stream=True)
        ]
        final = await client.responses.create(model="gpt-5", input="hi")
        await client.close()
    kinds = [e.type for e in events]
    assert kinds[0] == "response.created"
    assert kinds[-1] == "response.completed"
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert final.output_text == "Hi there"
    assert final.usage is not None
    assert final.usage.input_tokens_details.cached_tokens == 2
    assert [item.type for item in final.output] == ["reasoning", "message", "function_call"]
