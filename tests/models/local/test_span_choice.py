"""A free string's value chosen as the span of the request the model would copy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tiller.models import ToolSpec
from tiller.models.local.argument_schema import request_words
from tiller.models.local.span_choice import (
    ENDS,
    OPENING,
    best_span,
    chosen_spans,
    free_text_parameters,
    job_words,
    quoted_runs,
    span_prompt,
)
from tiller.models.local.tool_relevance import relevance_scorer
from tiller.models.local.weights import bundled_smollm2

STRING = {"type": "string"}


def tool(description: str, **properties: Any) -> ToolSpec:
    return ToolSpec("t", description, {"type": "object", "properties": properties})


def test_only_strings_free_of_any_constraint_are_chosen_as_spans() -> None:
    t = tool(
        "Book something.",
        city=STRING,
        path={"type": "string", "description": "Path of the file"},
        expression={"type": "string", "description": "An arithmetic expression"},
        unit={"type": "string", "enum": ["c", "f"]},
        code={"type": "string", "pattern": "^[A-Z]{3}$"},
        short={"type": "string", "maxLength": 5},
        count={"type": "integer"},
        flight={"type": "string", "description": "Flight number, e.g. BA117"},
    )
    assert free_text_parameters(t, "book BA117 to Paris") == ["city"]
    assert free_text_parameters(t, "book a flight to Paris") == ["city", "flight"]  # no code


def test_every_run_of_words_is_a_candidate_except_at_glue_and_job_words() -> None:
    """One scoring pass per first word; each length scored by the same pass."""
    passes: list[list[str]] = []

    def score(prompt: str, pieces: Sequence[str], ends: Sequence[str]) -> list[float]:
        assert prompt.startswith("Message: the weather in New York please")
        assert ends == ENDS
        passes.append(list(pieces))
        # the model "likes" exactly the span New York
        return [5.0 if pieces[0] == OPENING + "New" and k == 1 else 0.0 for k in range(len(pieces))]

    t = tool("Current weather for a city.", city=STRING)
    assert best_span(score, "the weather in New York please", t, "city") == "New York"
    firsts = [p[0] for p in passes]
    # not "the", "in", "please", nor "weather", which names the tool's job
    assert firsts == [OPENING + w for w in ("New", "York")]
    assert passes[0] == [OPENING + "New", " York", " please"]


def test_a_span_does_not_end_on_a_glue_word() -> None:
    def score(prompt: str, pieces: Sequence[str], ends: Sequence[str]) -> list[float]:
        return [float(k) for k in range(len(pieces))]  # longer is always likelier

    t = tool("Search the catalog.", query=STRING)
    assert best_span(score, "dune and the hobbit", t, "query") == "dune and the hobbit"
    assert best_span(score, "dune and the", t, "query") == "dune"
    assert best_span(score, "and the", t, "query") is None


def test_the_words_that_ask_are_not_candidates() -> None:
    seen: list[str] = []

    def score(prompt: str, pieces: Sequence[str], ends: Sequence[str]) -> list[float]:
        seen.append(pieces[0].strip(' "'))
        return [0.0] * len(pieces)

    best_span(score, "Search for dune", tool("Search the catalog.", query=STRING), "query")
    assert "Search" not in seen


def test_the_prompt_names_the_tool_and_the_parameter_with_its_description() -> None:
    t = tool("Send an email.", to={"type": "string", "description": "Recipient address."})
    prompt = span_prompt("email bo@x.org hi", t, "to", t.parameters["properties"]["to"])
    assert prompt == (
        "Message: email bo@x.org hi\nTool: Send an email.\n"
        "The to (Recipient address) to use, copied from the message:"
    )


def test_the_model_picks_the_place_not_the_words_around_it() -> None:
    scorer = relevance_scorer(bundled_smollm2())
    weather = tool("Current weather for a city.", city=STRING)
    air = tool("Air quality index for a city.", city=STRING)
    tides = tool("Tide times for a place.", place=STRING)
    choose = scorer.stopping_scores
    assert best_span(choose, "What's the weather like in New York?", weather, "city") == "New York"
    assert best_span(choose, "Paris: air quality and the weather please", air, "city") == "Paris"
    request = "When's high tide at St Ives today? Want to take the kids out on the beach"
    assert best_span(choose, request, tides, "place") == "St Ives"


def test_no_word_is_given_to_two_parameters() -> None:
    def score(prompt: str, pieces: Sequence[str], ends: Sequence[str]) -> list[float]:
        # both parameters like "17:00" best; the time likes it more
        first = pieces[0].strip(' "')
        bonus = 3.0 if "The time" in prompt else 1.0
        return [bonus if first == "17:00" and k == 0 else -float(k) for k in range(len(pieces))]

    t = tool("Set a reminder.", time=STRING, task=STRING)
    chosen = chosen_spans(score, "at 17:00 water plants", t, ["time", "task"])
    assert chosen == {"time": "17:00", "task": "water"}


def test_the_words_of_a_tools_job_come_from_its_name_and_description() -> None:
    t = ToolSpec("tide_times", "Tide times for a place.", {"type": "object"})
    assert job_words(t) == {"tide", "time", "place"}
    seen: list[str] = []

    def score(prompt: str, pieces: Sequence[str], ends: Sequence[str]) -> list[float]:
        seen.append(pieces[0].strip(' "'))
        return [0.0] * len(pieces)

    best_span(
        score, "brighton Tides saturday", tool("Tide times for a place.", place=STRING), "place"
    )
    assert seen == ["brighton", "saturday"]


def test_a_quoted_passage_is_a_candidate_whatever_its_words() -> None:
    request = "count the words in 'to be or not to be' please"
    words = request_words(request)
    assert [" ".join(words[a:b]) for a, b in quoted_runs(request, words)] == ["to be or not to be"]
    assert quoted_runs("i'm at today's market", request_words("i'm at today's market")) == set()

    def score(prompt: str, pieces: Sequence[str], ends: Sequence[str]) -> list[float]:
        return [float(k) for k in range(len(pieces))]  # longer is always likelier

    t = tool("Count the words of a text.", text=STRING)
    assert best_span(score, request, t, "text") == "to be or not to be"


def test_no_span_holds_a_word_of_the_tools_job() -> None:
    def score(prompt: str, pieces: Sequence[str], ends: Sequence[str]) -> list[float]:
        return [float(k) for k in range(len(pieces))]

    tides = tool("Tide times for a place.", place=STRING)
    assert best_span(score, "brighton tides saturday", tides, "place") == "brighton"
