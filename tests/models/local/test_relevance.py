"""Tool relevance scored by the embedded model itself (noisy-channel likelihood gain)."""

from __future__ import annotations

from tiller.models import ToolSpec
from tiller.models.local.relevance import relevance_scorer, tool_prefix
from tiller.models.local.tool_choice import DEFAULT_TOOL_THRESHOLD, choose_tool
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


def test_small_talk_gets_text_and_a_clear_request_gets_its_tool() -> None:
    scorer = relevance_scorer(bundled_smollm2())
    assert choose_tool(scorer, "Hello! How are you?", TOOLS, DEFAULT_TOOL_THRESHOLD) is None
    assert choose_tool(scorer, "Who wrote Hamlet?", TOOLS, DEFAULT_TOOL_THRESHOLD) is None
    chosen = choose_tool(scorer, "What's the weather in Paris?", TOOLS, DEFAULT_TOOL_THRESHOLD)
    assert chosen == "get_weather"


def test_the_scorer_is_shared_and_scores_are_repeatable() -> None:
    scorer = relevance_scorer(bundled_smollm2())
    assert relevance_scorer(bundled_smollm2()) is scorer
    assert scorer.scores("Compute 1024 / 16.", TOOLS) == scorer.scores("Compute 1024 / 16.", TOOLS)


def test_no_tools_or_no_text_means_no_call() -> None:
    scorer = relevance_scorer(bundled_smollm2())
    assert choose_tool(scorer, "What is 2 + 2?", [], DEFAULT_TOOL_THRESHOLD) is None
    assert choose_tool(scorer, "   ", TOOLS, DEFAULT_TOOL_THRESHOLD) is None


def test_a_tool_is_described_by_name_parameters_and_description() -> None:
    assert tool_prefix(TOOLS[1]) == (
        "Tool get_weather(city): Current weather for a city. Example requests:"
    )
    bare = ToolSpec("ping", "", {"type": "object", "properties": {}})
    assert tool_prefix(bare) == "Tool ping(): Example requests:"


class _Fixed:
    """Scores fixed in advance, best first, to test the rule apart from the model."""

    def __init__(self, scores: list[tuple[str, float]]) -> None:
        self._scores = scores

    def scores(self, request: str, tools: object) -> list[tuple[str, float]]:
        return self._scores


def test_a_tool_whose_numbers_the_request_lacks_is_passed_over() -> None:
    def needing(name: str, parameter: str, kind: str) -> ToolSpec:
        schema = {"properties": {parameter: {"type": kind}}, "required": [parameter]}
        return ToolSpec(name, "", schema)

    tools = [
        needing("convert_currency", "amount", "number"),
        needing("calculator", "expression", "string"),
        needing("get_weather", "city", "string"),
    ]
    scorer = _Fixed([("convert_currency", 0.5), ("calculator", 0.4), ("get_weather", 0.3)])
    assert choose_tool(scorer, "convert 20 euros", tools, 0.0) == "convert_currency"
    assert choose_tool(scorer, "convert twenty euros", tools, 0.0) == "convert_currency"
    # Without a number the next tool that can be filled is called, if relevant enough.
    assert choose_tool(scorer, "is cash better than a card?", tools, 0.0) == "get_weather"
    assert choose_tool(scorer, "is cash better than a card?", tools, 0.35) is None
