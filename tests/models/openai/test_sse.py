"""SSE decoding from raw bytes, however the network splits them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from hypothesis import given, settings, strategies as st

from tiller.models.openai.sse import sse_events

BODY = (
    "event: response.created\r\n"
    'data: {"type": "response.created"}\r\n'
    "\r\n"
    ": a comment the server sends to keep the connection alive\n"
    'data: {"text": "ünïcödé 🌍"}\n'
    "\n"
    "data: first line\n"
    "data: second line\n"
    "id: 7\n"
    "\n"
    "data: [DONE]\n"
    "\n"
    "data:no space after the colon"
).encode()

EXPECTED = [
    ("response.created", '{"type": "response.created"}'),
    ("", '{"text": "ünïcödé 🌍"}'),
    ("", "first line\nsecond line"),
    ("", "[DONE]"),
    ("", "no space after the colon"),
]


async def _chunks(data: bytes, cuts: list[int]) -> AsyncIterator[bytes]:
    start = 0
    for cut in [*sorted(set(cuts)), len(data)]:
        if cut > start:
            yield data[start:cut]
            start = cut


def _decode(data: bytes, cuts: list[int]) -> list[tuple[str, str]]:
    async def run() -> list[tuple[str, str]]:
        return [event async for event in sse_events(_chunks(data, cuts))]

    return asyncio.run(run())


def test_one_chunk() -> None:
    assert _decode(BODY, []) == EXPECTED


def test_one_byte_at_a_time() -> None:
    assert _decode(BODY, list(range(len(BODY)))) == EXPECTED


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=len(BODY) - 1), max_size=40))
def test_any_split_gives_the_same_events(cuts: list[int]) -> None:
    assert _decode(BODY, cuts) == EXPECTED
