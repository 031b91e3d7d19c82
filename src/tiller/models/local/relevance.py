"""How well a request fits each tool, scored by the model itself as a noisy channel.

For each tool we ask how much more likely the request becomes once the model
has read the tool's description:

    relevance(tool) = log P(request | "<description> Example question for <name>:")
                    - log P(request | "Example question:")

A tool that explains the request ("Is it raining in Tokyo?" after "Current
weather for a city.") raises its likelihood a lot; small talk is barely moved.
Scoring the request (the channel direction) rather than the tool name suits
small models: they are better at "does this text follow?" than at choosing.
On our calibration tasks this beat mean-pooled embeddings (which ranked
weather questions as small talk) and log P(`<tool_call>`) (see
`benchmarks/local_model.py`).

The same GGUF file is opened a second time with logits for every position and
a small context; the weights are memory-mapped, so the copy costs little.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tiller.models.base import ToolSpec
from tiller.models.local.runtime import decode_threads

SCORING_CONTEXT = 256
MAX_REQUEST_TOKENS = 64  # the opening of a request says what it is about
MAX_DESCRIPTION_CHARS = 400  # keeps prefix + request inside SCORING_CONTEXT
NEUTRAL_PREFIX = "Example question:"

_scorers: dict[str, RelevanceScorer] = {}
_scorers_lock = threading.Lock()


def tool_prefix(tool: ToolSpec) -> str:
    description = tool.description.strip()[:MAX_DESCRIPTION_CHARS]
    return f"{description} Example question for {tool.name.replace('_', ' ')}:"


class RelevanceScorer:
    def __init__(self, path: Path) -> None:
        import llama_cpp

        with contextlib.redirect_stderr(io.StringIO()):
            self._llama: Any = llama_cpp.Llama(
                model_path=str(path),
                logits_all=True,
                n_ctx=SCORING_CONTEXT,
                n_batch=SCORING_CONTEXT,
                n_threads=decode_threads(),
                verbose=False,
            )
        self._lock = threading.Lock()

    def _tokens(self, text: str) -> list[int]:
        tokens: list[int] = self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        return tokens

    def log_likelihood(self, prefix: list[int], text: list[int]) -> float:
        """log P(text | prefix), summed over the tokens of `text`."""
        with self._lock:
            self._llama.reset()
            self._llama.eval(prefix + text)
            rows = np.asarray(self._llama.scores[len(prefix) - 1 : len(prefix) + len(text) - 1])
        peak = rows.max(axis=1, keepdims=True)
        log_norm = peak[:, 0] + np.log(np.exp(rows - peak).sum(axis=1))
        return float((rows[np.arange(len(text)), text] - log_norm).sum())

    def scores(self, request: str, tools: Sequence[ToolSpec]) -> list[tuple[str, float]]:
        """Each tool with its relevance to `request`, most relevant first."""
        text = self._tokens(" " + request.strip())[:MAX_REQUEST_TOKENS]
        if not text:
            return [(t.name, 0.0) for t in tools]
        baseline = self.log_likelihood(self._tokens(NEUTRAL_PREFIX), text)
        scored = [
            (
                tool.name,
                self.log_likelihood(self._tokens(tool_prefix(tool)), text) - baseline,
            )
            for tool in tools
        ]
        return sorted(scored, key=lambda pair: pair[1], reverse=True)


@atexit.register
def _close_all() -> None:
    # Free llama.cpp models before the interpreter tears down the modules they need.
    with _scorers_lock:
        for found in _scorers.values():
            with contextlib.suppress(Exception):
                found._llama.close()
        _scorers.clear()


def relevance_scorer(path: Path) -> RelevanceScorer:
    key = str(path.resolve())
    with _scorers_lock:
        found = _scorers.get(key)
        if found is None:
            found = _scorers[key] = RelevanceScorer(path)
        return found
