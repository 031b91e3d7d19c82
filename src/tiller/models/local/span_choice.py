"""A free string's value: the run of the request's words the model would copy.

Generated word by word under a grammar, a small model does not stop in time ("17:00,
dry cleaning" for a time, "Leeds to York" for a station) and takes words that name
another job ("air quality" for a city). Scored whole, a span is chosen far better: each
run of up to `MAX_SPAN_WORDS` words is scored by how likely the model finds it, quoted
and then closed, after "Message: ... Tool: ... The city to use, copied from the
message:". The closing quote is the model's judgement of where the value ends.

One pass per first word scores every length at once: the probability of a closing
quote after each word is read from the same batch. Spans neither start nor end with a
word that cannot be a value on its own ("the", "and", "to"), nor with a word that
names the tool's job ("weather" for `get_weather`: "weather in paris" is no city) or
holds one. A passage the request quotes is a candidate whatever its words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tiller.models.base import ToolSpec
from tiller.models.local.argument_schema import like_the_example, request_words
from tiller.models.local.parameter_kinds import Kind, parameters
from tiller.models.local.verbs import without_instruction

MAX_SPAN_WORDS = 8
OPENING = ' "'
ENDS = ('"', '".', '",', '"?')
# A passage in quotes: the opening quote not inside a word ("i'm"), the closing one
# not followed by a letter ("today's").
_QUOTED = re.compile(r"(?<!\w)['\"“‘]([^'\"“”‘’]+)['\"”’](?!\w)")
# Words that neither start nor end a value: articles, conjunctions, prepositions,
# pronouns, forms of "be" and the words of asking.
_GLUE = """a an the and or but nor of in on at to for from by with about as into onto over
    under than then is are was were be been am do does did i me my you your it its
    we our they their he she his her this that these those there here what what's
    whats which who how when where why whether if please can could would will shall
    should may might also too just some any tell show give get let let's lets"""
GLUE = frozenset(_GLUE.split())


@dataclass(frozen=True, slots=True)
class Span:
    score: float
    start: int  # the index of its first word among the request's
    end: int
    text: str


# (prefix, pieces, ends) -> for each k, log P(pieces[:k + 1], then an end | prefix)
StoppingScores = Callable[[str, Sequence[str], Sequence[str]], Sequence[float]]


def span_prompt(request_text: str, tool: ToolSpec, name: str, schema: dict[str, Any]) -> str:
    said = str(schema.get("description", "")).strip().rstrip(".")
    what = name.replace("_", " ") + (f" ({said})" if said else "")
    return (
        f"Message: {request_text.strip()}\nTool: {tool.description.strip()}\n"
        f"The {what} to use, copied from the message:"
    )


def free_text_parameters(tool: ToolSpec, request_text: str) -> list[str]:
    """The tool's top-level strings whose value is any text: no enum, pattern, format or
    length of their own, not a path or an expression, no code given as their example."""
    found = []
    for p in parameters(tool.parameters):
        schema = p.schema
        if p.kind is not Kind.TEXT or schema.get("type") != "string":
            continue
        if {"enum", "const", "pattern", "format", "minLength", "maxLength"} & schema.keys():
            continue
        if like_the_example(schema, request_text) is not None:
            continue
        found.append(p.name)
    return found


def scored_spans(score: StoppingScores, request_text: str, tool: ToolSpec, name: str) -> list[Span]:
    """Every run of the request's words that may be `name`'s value, with how likely the
    model copies it, likeliest first. The words that ask ("remind me") are no candidates."""
    text = without_instruction(request_text)
    words = request_words(text)
    schema = tool.parameters["properties"][name]
    prompt = span_prompt(request_text, tool, name, schema)
    job = job_words(tool)
    named = [_stem(w) in job for w in words]
    edge = [not _glue(w) and not n for w, n in zip(words, named, strict=True)]
    quoted = quoted_runs(text, words)
    found = []
    for start in range(len(words)):
        if not edge[start] and not any(q[0] == start for q in quoted):
            continue
        run = words[start : start + MAX_SPAN_WORDS]
        pieces = [OPENING + run[0], *(" " + w for w in run[1:])]
        for length, value in enumerate(score(prompt, pieces, ENDS), start=1):
            end = start + length
            plain = edge[start] and edge[end - 1] and not any(named[start:end])
            if plain or (start, end) in quoted:
                found.append(Span(value, start, end, " ".join(run[:length])))
    return sorted(found, key=lambda span: (-span.score, span.start, span.end))


def quoted_runs(text: str, words: Sequence[str]) -> set[tuple[int, int]]:
    """Where the passages the request quotes ('to be or not to be') lie among `words`,
    as (first, end) indices: a quoted passage is a value whatever words it holds."""
    found = set()
    for passage in _QUOTED.findall(text):
        inner = request_words(passage)
        for at in range(len(words) - len(inner) + 1):
            if inner and list(words[at : at + len(inner)]) == inner:
                found.add((at, at + len(inner)))
    return found


def job_words(tool: ToolSpec) -> set[str]:
    """The words that name the tool's job, from its name and description ("weather",
    "tide", "quality"): they ask for the tool and are not its value ("air quality" is
    no city, "brighton tides saturday" no place), so no span holds one unless quoted."""
    text = f"{tool.name.replace('_', ' ')} {tool.description}"
    return {_stem(w) for w in re.findall(r"[A-Za-z]+", text) if not _glue(w)}


def _glue(word: str) -> bool:
    return word.lower() in GLUE


def _stem(word: str) -> str:
    """Lower case, without a plural's or a possessive's "s": "Tides" -> "tide"."""
    word = word.lower().removesuffix("'s").removesuffix("’s")
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def best_span(score: StoppingScores, request_text: str, tool: ToolSpec, name: str) -> str | None:
    """The run of the request's words the model most likely copies as `name`, or None
    when every word is glue."""
    spans = scored_spans(score, request_text, tool, name)
    return spans[0].text if spans else None


def chosen_spans(
    score: StoppingScores, request_text: str, tool: ToolSpec, names: Sequence[str]
) -> dict[str, str]:
    """A span for each parameter, no word given to two: the likeliest pairing is taken
    first ("17:00" as the time), and the others choose among the words left ("pick up
    the dry cleaning" as the task, not "17:00" again)."""
    candidates = [
        (span, name) for name in names for span in scored_spans(score, request_text, tool, name)
    ]
    candidates.sort(key=lambda pair: (-pair[0].score, names.index(pair[1])))
    chosen: dict[str, str] = {}
    taken: set[int] = set()
    for span, name in candidates:
        words = set(range(span.start, span.end))
        if name in chosen or words & taken:
            continue
        chosen[name] = span.text
        taken |= words
    return chosen
