"""A request that only tells how things are or how the speaker feels asks nothing."""

from __future__ import annotations

import pytest

from tiller.models.base import ToolSpec
from tiller.models.local.candidates import candidates
from tiller.models.local.telling import only_tells


@pytest.mark.parametrize(
    "request_text",
    [
        "had wayyy too much wine at my sister's wedding last night. head is pounding. never again",
        "ugh, the toaster I bought last week already stopped working. so annoying",
        "ugh I'm on book 3 and only just realised I skipped book 2. no wonder nothing made sense",
        "I've been composting for a year now and the veg patch has never looked better.",
        "I'm in Leeds and it's chucking it down",
        "my card doesnt work. so annoying",
        # a story, then asking after the assistant
        "got food poisoning off a kebab once in 2009 and I still can't look at garlic sauce. "
        "anyway, how's your day going?",  # "doesn't" without its apostrophe
    ],
)
def test_a_vent_or_news_only_tells(request_text: str) -> None:
    assert only_tells(request_text)


@pytest.mark.parametrize(
    "request_text",
    [
        "Check the current weather in Oslo for me before I head out.",  # an instruction
        "i keep writing 'difficult' in my essay, give me some alternatives",
        "the street light on Foxhall Road has been out for a week, can u report it",
        "I'm flying out to Kenya next month, is a visa needed",  # a question without "?"
        "I'd love to know the time in Tokyo",  # wanting to know
        "my package hasn't arrived yet, tracking number 1Z999AA10123456784",  # a code
        "we spent 45 on dinner, log it",
        "it's 17 x 23",  # a sum
        "wat time is it in tokyo now",
        "Water the front lawn for 10 minutes and the flower beds for 25",
        "the current time in Lisbon",  # a thing asked for; "current" says nothing is
        "the recent results in Leeds",
    ],
)
def test_a_request_that_asks_or_instructs_does_not_only_tell(request_text: str) -> None:
    assert not only_tells(request_text)


def test_a_request_that_only_tells_has_no_candidate() -> None:
    weather = ToolSpec(
        "get_weather",
        "Current weather for a city.",
        {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "City name"}},
            "required": ["city"],
        },
    )
    vent = "had too much wine at my sister's wedding in Leeds last night. head is pounding"
    assert candidates(vent, [weather]) == []
    assert candidates("what's the weather in Leeds", [weather]) == [weather]
