"""Tool calling for small local models: decide, then pick the tool, then fill its arguments.

A 135M-parameter model does not reliably write a tool call on its own, so each
step is made as small and as constrained as it can be:

1. Score each tool by how much more likely the request is after its description
   than as a request answered without tools (`relevance.py`).
2. Call the best one when that score passes a threshold fitted on our
   development tasks, and the request holds what its required arguments need
   (a number, for a number or an arithmetic expression); otherwise try the
   next, and answer in text when none is left.
3. Generate the arguments in a prompt of their own ("fill in the arguments of
   this tool, copying from the message") under a llama.cpp grammar built from the
   tool's JSON schema, so they always parse and match the schema; free strings
   are built from the words of the request (`argument_schema.py`), and a value
   from a closed set is picked by likelihood beforehand (`value_choice.py`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from tiller.models.base import ToolSpec
from tiller.models.local.argument_schema import argument_schema, needs_numbers
from tiller.models.local.chat import ChatTemplate
from tiller.models.local.decoding import Decoder, Sampling
from tiller.models.local.request_numbers import request_numbers
from tiller.models.local.value_choice import Explain, choose_values, closed_choices, pinned

# Relevance (nats per request token) above which we call the tool, fitted on the
# 202 development tasks of `benchmarks/local_model.py`: the middle of the range
# where the weaker of our two bars (a tool called when needed >= 90%, text when
# none is >= 80%) is met by the widest margin; there 96% and 86%. Fitted on
# three of the four task sets, the fourth gave 91-100% and 69-100%. Below zero
# because the direct-answer descriptions are broad, so they explain a request
# needing a tool a little too.
DEFAULT_TOOL_THRESHOLD = -0.45
MAX_ARGUMENT_TOKENS = 256


@dataclass(slots=True)
class PlannedCall:
    name: str
    arguments_text: str
    tokens: int
    complete: bool  # False when max_tokens cut the arguments short


class Scorer(Protocol):
    def scores(self, request: str, tools: Sequence[ToolSpec]) -> list[tuple[str, float]]: ...


def choose_tool(
    scorer: Scorer, request_text: str, tools: Sequence[ToolSpec], threshold: float
) -> str | None:
    """The tool to call for `request_text`, or None to answer in text."""
    if not tools or not request_text.strip():
        return None
    by_name = {tool.name: tool for tool in tools}
    has_numbers = bool(request_numbers(request_text))
    for name, relevance in scorer.scores(request_text, tools):
        if relevance <= threshold:
            return None
        if has_numbers or not needs_numbers(by_name[name].parameters):
            return name
    return None


def argument_prompt(template: ChatTemplate, tool: ToolSpec, request_text: str) -> str:
    system = (
        f"You fill in the arguments of the tool {tool.name}: {tool.description.strip()} "
        "Reply with JSON. Copy the values from the user's message."
    )
    return template.render(
        [{"role": "system", "content": system}, {"role": "user", "content": request_text}]
    )


def fill_arguments(
    decoder: Decoder,
    template: ChatTemplate,
    request_text: str,
    tool: ToolSpec,
    *,
    explain: Explain,
    max_tokens: int,
    cancel: threading.Event,
    on_text: Callable[[str], None],
) -> PlannedCall:
    from llama_cpp.llama_grammar import LlamaGrammar

    choices = closed_choices(tool)
    parameters = tool.parameters
    if choices:
        parameters = pinned(parameters, choose_values(explain, request_text, choices))
    schema = json.dumps(argument_schema(parameters, request_text))
    grammar = LlamaGrammar.from_json_schema(schema, verbose=False)
    prompt = decoder.tokenize(argument_prompt(template, tool, request_text))
    decoded = decoder.sample(
        prompt,
        max_tokens=min(max_tokens, MAX_ARGUMENT_TOKENS),
        sampling=Sampling(
            temperature=0.0, repeat_penalty=1.0
        ),  # copying from the request is the point
        cancel=cancel,
        on_text=on_text,
        grammar=grammar,
    )
    return PlannedCall(tool.name, decoded.text, decoded.tokens, decoded.finished)
