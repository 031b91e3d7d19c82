from __future__ import annotations

import pytest

from tiller.errors import is_context_overflow_message


@pytest.mark.parametrize(
    "text",
    [
        "prompt is too long: 250000 tokens > 200000 maximum",  # Anthropic
        "Input is too long for requested model.",  # Bedrock
        "Your input exceeds the context window of this model.",  # OpenAI
        "context_length_exceeded",  # OpenAI error code
        "The input token count (1200000) exceeds the maximum number of tokens allowed",  # Gemini
        "This model's maximum prompt length is 131072 but the request contains 140000 tokens",
        "Please reduce the length of the messages or completion.",  # Groq
        "This endpoint's maximum context length is 8192 tokens.",  # OpenRouter
        "the request exceeds the available context size, try increasing it",  # llama.cpp
        "Trying to keep the first 9000 tokens when context the overflows. However, the model "
        "is loaded with context length of 4096; the number of tokens is greater than the "
        "context length",  # LM Studio
        "context length exceeded",
        "Too many tokens in the request",
        "token limit exceeded",
    ],
)
def test_each_providers_overflow_message_is_recognised(text: str) -> None:
    assert is_context_overflow_message(text)


@pytest.mark.parametrize(
    "text", ["rate limit exceeded", "invalid x-api-key", "overloaded_error", "internal error"]
)
def test_other_errors_are_not_overflow(text: str) -> None:
    assert not is_context_overflow_message(text)


def test_detect_context_overflow_knows_the_providers_phrases() -> None:
    from tiller.errors import ContextOverflowError, OverloadedError, detect_context_overflow
    from tiller.messages import AssistantMessage

    assert detect_context_overflow(ContextOverflowError("too long"))
    assert not detect_context_overflow(OverloadedError("busy"))
    in_stream = AssistantMessage([], "error", error_message="prompt is too long: 9 > 8")
    assert detect_context_overflow(in_stream)
    assert not detect_context_overflow(AssistantMessage([], "error", error_message="boom"))
    stopped = AssistantMessage([], "stop", error_message="prompt is too long")
    assert not detect_context_overflow(stopped)
