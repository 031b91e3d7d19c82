"""Tool relevance scored by the embedded model itself (noisy-channel likelihood gain)."""

from __future__ import annotations

from tiller.models import ToolSpec
from tiller.models.local.tool_relevance import relevance_scorer, summary, tool_prefix
from tiller.models.local.weights import bundled_smollm2

STRING = {"type": "string"}
TOOLS = [
    ToolSpec(
        "calculator",
        "Evaluate an arithmetic expression such as 17 * 23.",
        {"type": "object", "properties": {"expression": STRING}},
    ),
    ToolSpec(
        "get_weather",
        "Current weather for a city.",
        {"type": "object", "properties": {"city": STRING}},
    ),
    ToolSpec(
        "read_file",
        "Read a text file from the working directory.",
        {"type": "object", "properties": {"path": STRING}},
    ),
]


def test_the_tool_that_explains_the_request_ranks_first() -> None:
    scorer = relevance_scorer(bundled_smollm2())
    assert scorer.scores("Is it raining in Tokyo?", TOOLS)[0][0] == "get_weather"
    assert scorer.scores("What is 99 * 99?", TOOLS)[0][0] == "calculator"
    assert scorer.scores("Show me the contents of version.txt", TOOLS)[0][0] == "read_file"


def test_the_scorer_is_shared_and_scores_are_repeatable() -> None:
    scorer = relevance_scorer(bundled_smollm2())
    assert relevance_scorer(bundled_smollm2()) is scorer
    assert scorer.scores("Compute 1024 / 16.", TOOLS) == scorer.scores("Compute 1024 / 16.", TOOLS)


def test_a_tool_is_described_by_name_parameters_and_description() -> None:
    assert tool_prefix(TOOLS[1]) == (
        "Tool get_weather(city): Current weather for a city. Example requests:"
    )
    bare = ToolSpec("ping", "", {"type": "object", "properties": {}})
    assert tool_prefix(bare) == "Tool ping(): Example requests:"


def test_a_score_does_not_depend_on_what_was_scored_before() -> None:
    """Where a prefix lies in the cache moves scores in the last bits; the scorer lays
    the cache out the same way for the same tools whatever came before."""
    scorer = relevance_scorer(bundled_smollm2())
    request = "Is it raining in Tokyo today?"
    first = scorer.scores(request, TOOLS)
    for i in range(24):  # other tools, enough of them to fill and reuse the cache
        others = [
            ToolSpec(f"tool_{i}_{j}", f"Tool number {j} of set {i} does task {i * j}.", {})
            for j in range(4)
        ]
        scorer.scores(f"request {i} about task {i * 3}", others)
        scorer.log_likelihoods(f"value {i}", [f"unit: U{i}. Example requests:"])
    assert scorer.scores(request, TOOLS) == first


def test_the_topic_of_a_request_tells_tools_that_take_a_city_apart() -> None:
    scorer = relevance_scorer(bundled_smollm2())
    weather, time = scorer.about("how hot is it in Paris today?", ["weather", "time"])
    assert weather > time
    weather, time = scorer.about("what's the time in Tokyo", ["weather", "time"])
    assert time > weather


def test_a_topic_does_not_depend_on_what_was_asked_before() -> None:
    scorer = relevance_scorer(bundled_smollm2())
    request = "how warm is it in Lisbon?"
    scorer.scores(request, TOOLS)
    first = scorer.about(request, ["weather", "time"])
    for i in range(12):
        scorer.scores(f"request {i} about task {i * 3}", TOOLS)
        scorer.about(f"request {i} about task {i * 3}", ["weather", "time", f"task {i}"])
        scorer.log_likelihoods(f"value {i}", [f"unit: U{i}. Example requests:"])
    scorer.scores(request, TOOLS)
    assert scorer.about(request, ["weather", "time"]) == first


def test_a_descriptions_first_sentence_runs_past_an_example() -> None:
    described = "First aid for an injury, e.g. a burn or a nosebleed: what to do. More."
    assert summary(described) == "First aid for an injury, e.g. a burn or a nosebleed: what to do."
    assert summary("Convert units, i.e. metres to feet. Also more.") == (
        "Convert units, i.e. metres to feet."
    )
