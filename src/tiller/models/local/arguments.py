"""Filling a chosen tool's arguments with the model, under a grammar.

The arguments are generated in a prompt of their own ("fill in the arguments of
this tool, copying from the message") under a llama.cpp grammar built from the
tool's JSON schema, so they always parse and match the schema. Free strings are
built from the words of the request (`argument_schema.py`), and a value from a
closed set is picked by likelihood beforehand (`value_choice.py`); one the request says
("it's a film") is required. A call for one part of a request is filled from that part;
free text the part holds none of ("and what's the emergency number?") is copied from
the whole request, which the prompt then shows.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace

from tiller.models.base import ToolSpec
from tiller.models.local.argument_schema import argument_schema, without_unoffered
from tiller.models.local.chat import ChatTemplate
from tiller.models.local.decoding import Decoder, Sampling
from tiller.models.local.value_choice import (
    Explain,
    choose_values,
    closed_choices,
    pinned,
    required_when_said,
    said_in,
    said_values,
)
from tiller.models.local.verbs import without_instruction

MAX_ARGUMENT_TOKENS = 256


@dataclass(slots=True)
class FilledArguments:
    text: str
    tokens: int
    complete: bool  # False when max_tokens cut the arguments short


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
    context: str = "",
    max_tokens: int,
    cancel: threading.Event,
    on_text: Callable[[str], None],
) -> FilledArguments:
    from llama_cpp.llama_grammar import LlamaGrammar

    # Optional parameters the request says nothing about are left out first, so a
    # value from a closed set is not picked for one either; but a value the whole request
    # says holds for each of its parts ("put chilli on monday and stir fry on tuesday,
    # both for dinner").
    elsewhere = frozenset(said_values(tool, context, closed_choices(tool))) if context else None
    offered = without_unoffered(tool.parameters, request_text, elsewhere or frozenset())
    tool = replace(tool, parameters=offered)
    choices = closed_choices(tool)
    parameters = tool.parameters
    if choices:
        named = said_in(tool, request_text, context, choices)
        parameters = pinned(parameters, choose_values(explain, request_text, choices, named))
        parameters = required_when_said(parameters, named)
    # Values come from what the request is about, not from the words that ask for it.
    about = without_instruction(request_text)
    own = argument_schema(parameters, about, tool_name=tool.name)
    schema = argument_schema(parameters, about, tool_name=tool.name, context=context)
    # Free text copied from the whole request is shown it, to be chosen from it.
    shown = request_text if schema == own else context
    grammar = LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
    prompt = decoder.tokenize(argument_prompt(template, tool, shown))
    decoded = decoder.sample(
        prompt,
        max_tokens=min(max_tokens, MAX_ARGUMENT_TOKENS),
        # Greedy and without a repeat penalty: copying from the request is the point.
        sampling=Sampling(temperature=0.0, repeat_penalty=1.0),
        cancel=cancel,
        on_text=on_text,
        grammar=grammar,
    )
    return FilledArguments(decoded.text, decoded.tokens, decoded.finished)
