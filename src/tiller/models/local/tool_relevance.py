"""How well a request fits each tool, scored by the model itself as a noisy channel.

For each tool we ask how likely the request is once the model has read the
tool's description, against how likely it is as a request an assistant answers
by itself, per token of the request:

    relevance(tool) = (log P(request | "Tool <name>(<parameters>): <description>
                                          Example requests:")
                       - log P(request | direct answer)) / len(request)

P(request | direct answer) is the mean likelihood after five descriptions of
what an assistant does by itself (chat, general knowledge, writing, advice,
explanations), each written as a tool. Against that competing explanation a
greeting stays below a tool however short it is; dividing by the length puts a
two-word greeting and a long question on one scale. Scoring the request (the
channel direction) rather than the tool name suits small models: they are
better at "does this text follow?" than at choosing. On the 202 development
tasks of `benchmarks/local_model.py` this beat plain descriptions on both sides,
a single neutral prefix, mean-pooled embeddings and log P(`<tool_call>`).

Relevance tells a tool apart from answering in text, but tells apart poorly
tools that take the same values: "how hot is it in Paris" is as likely after
"The current local time in a city" as after "Current weather for a city". For
those the model is asked the other way round, what the request is about
(`about`): how much likelier the tool's name words ("weather", "time") are
after "Question: <request> This question is about the" than after a neutral
question. A small model knows that heat and umbrellas are weather far better
than it matches a request to a description.

The same GGUF file is opened a second time for a scoring context of its own
(`likelihood.py`); the weights are memory-mapped, so the copy costs little.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import math
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tiller.models.base import ToolSpec
from tiller.models.local.likelihood import PrefixLikelihood
from tiller.models.local.runtime import decode_threads

# A sentence ends at a stop, not at the stop of "e.g." or "i.e." inside it.
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)[.;!?](\s|$)")
MAX_REQUEST_TOKENS = 64  # the opening of a request says what it is about
MAX_DESCRIPTION_CHARS = 400  # a prefix stays well inside one scoring batch
# What an assistant does without tools, written as tools in the same form as the
# real ones, so the wording of a tool prefix favours neither side; a mixture, so
# no one kind of request has to fit a single description.
DIRECT_ANSWER_PREFIXES = (
    "Tool chat(message): Small talk, greetings, thanks and goodbyes. Example requests:",
    "Tool answer(question): Answer a general knowledge question. Example requests:",
    "Tool write(request): Write a poem, story, message or other text. Example requests:",
    "Tool advise(question): Give advice, opinions, recommendations or ideas. Example requests:",
    "Tool explain(topic): Explain a concept or how something works. Example requests:",
)

TOPIC_FORM = "Question: {}\nThis question is about the"
NEUTRAL_QUESTION = "hello"

_scorers: dict[str, RelevanceScorer] = {}
_scorers_lock = threading.Lock()


def tool_prefix(tool: ToolSpec) -> str:
    """The prefix a request is scored after, for example
    "Tool get_weather(city): Current weather for a city. Example requests:".

    Of the wordings tried, naming the tool and its parameters and asking for
    requests in the plural made the fewest errors on the development tasks. Only
    the description's first sentence is used: what a tool is for comes first, and
    the details after it (limits, formats, what it skips) made requests of every
    kind likelier alike, and tools were told apart less well."""
    parameters = ", ".join(tool.parameters.get("properties", {}))
    head = f"Tool {tool.name}({parameters}):"
    return " ".join(part for part in (head, summary(tool.description), "Example requests:") if part)


def summary(description: str) -> str:
    """The first sentence of a description (all of its first paragraph if it has none)."""
    paragraph = " ".join(description.strip().split("\n\n")[0].split())[:MAX_DESCRIPTION_CHARS]
    end = _SENTENCE_END.search(paragraph)
    return paragraph[: end.start() + 1] if end else paragraph


class RelevanceScorer:
    def __init__(self, path: Path) -> None:
        import llama_cpp

        with contextlib.redirect_stderr(io.StringIO()):
            # Its own context is unused and small: this object is the model and tokenizer.
            self._llama: Any = llama_cpp.Llama(model_path=str(path), n_ctx=64, verbose=False)
        self._likelihood = PrefixLikelihood(self._llama, decode_threads())
        self._direct = [self._tokens(p) for p in DIRECT_ANSWER_PREFIXES]  # the same every time

    def close(self) -> None:
        self._likelihood.close()
        self._llama.close()

    def _tokens(self, text: str) -> list[int]:
        tokens: list[int] = self._llama.tokenize(
            text.encode("utf-8", "backslashreplace"), add_bos=False, special=False
        )
        return tokens

    def log_likelihoods(self, request: str, prefixes: Sequence[str]) -> list[float]:
        """log P(request | prefix) for each prefix, the request cut as `scores` cuts it."""
        text = self._tokens(" " + request.strip())[:MAX_REQUEST_TOKENS]
        return self._likelihood.log_likelihoods([self._tokens(p) for p in prefixes], text)

    def about(self, request: str, subjects: Sequence[str]) -> list[float]:
        """How much likelier each subject ("weather") is as the topic of `request` than of
        a neutral question, in nats."""
        asked = self._tokens(TOPIC_FORM.format(request.strip()))
        neutral = self._tokens(TOPIC_FORM.format(NEUTRAL_QUESTION))
        found = []
        for subject in subjects:
            told, base = self._likelihood.log_likelihoods(
                [asked, neutral], self._tokens(" " + subject)
            )
            found.append(told - base)
        # The tools' prefixes stay as they were laid out: the next decision starts from
        # the same cache whatever was asked here.
        self._likelihood.release([asked, neutral])
        return found

    def scores(self, request: str, tools: Sequence[ToolSpec]) -> list[tuple[str, float]]:
        """Each tool with its relevance to `request` (nats per token), most relevant first."""
        text = self._tokens(" " + request.strip())[:MAX_REQUEST_TOKENS]
        if not text:
            return [(t.name, 0.0) for t in tools]
        prefixes = [*self._direct, *(self._tokens(tool_prefix(tool)) for tool in tools)]
        self._likelihood.hold(prefixes)
        found = self._likelihood.log_likelihoods(prefixes, text)
        direct, per_tool = found[: len(self._direct)], found[len(self._direct) :]
        baseline = _log_mean_exp(direct)
        scored = [
            (tool.name, (value - baseline) / len(text))
            for tool, value in zip(tools, per_tool, strict=True)
        ]
        return sorted(scored, key=lambda pair: pair[1], reverse=True)


def _log_mean_exp(values: Sequence[float]) -> float:
    peak = max(values)
    return peak + math.log(sum(math.exp(v - peak) for v in values) / len(values))


@atexit.register
def _close_all() -> None:
    # Free llama.cpp models before the interpreter tears down the modules they need.
    with _scorers_lock:
        for found in _scorers.values():
            with contextlib.suppress(Exception):
                found.close()
        _scorers.clear()


def relevance_scorer(path: Path) -> RelevanceScorer:
    key = str(path.resolve())
    with _scorers_lock:
        found = _scorers.get(key)
        if found is None:
            found = _scorers[key] = RelevanceScorer(path)
        return found
