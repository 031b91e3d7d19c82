"""How well a request matches each tool, by embedding similarity.

The same GGUF file is loaded a second time in embedding mode (mean pooling) and
the request is compared with each tool's "name: description" by cosine
similarity. For SmolLM2-135M this picks the right tool far more often than
scoring tool names as continuations (see `benchmarks/local_model.py`).
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

EMBEDDING_CONTEXT = 512

_embedders: dict[str, Embedder] = {}
_embedders_lock = threading.Lock()


class Embedder:
    def __init__(self, path: Path) -> None:
        import llama_cpp

        with contextlib.redirect_stderr(io.StringIO()):
            self._llama: Any = llama_cpp.Llama(
                model_path=str(path),
                embedding=True,
                pooling_type=llama_cpp.LLAMA_POOLING_TYPE_MEAN,
                n_ctx=EMBEDDING_CONTEXT,
                n_threads=decode_threads(),
                verbose=False,
            )
        self._lock = threading.Lock()
        self._cache: dict[str, np.ndarray[Any, Any]] = {}

    def vector(self, text: str) -> np.ndarray[Any, Any]:
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        tokens = self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        if len(tokens) >= EMBEDDING_CONTEXT:  # only the start matters for relevance
            text = self._llama.detokenize(tokens[: EMBEDDING_CONTEXT - 8]).decode("utf-8", "ignore")
        with self._lock:
            raw = np.asarray(self._llama.embed(text), dtype=np.float64)
        if raw.ndim > 1:
            raw = raw.mean(axis=0)
        norm = float(np.linalg.norm(raw)) or 1.0
        vector: np.ndarray[Any, Any] = raw / norm
        if len(self._cache) < 1024:
            self._cache[text] = vector
        return vector

    def rank(self, request: str, tools: Sequence[ToolSpec]) -> list[tuple[str, float]]:
        """Tools with their similarity to `request`, most similar first."""
        query = self.vector(request)
        scored = [(t.name, float(query @ self.vector(f"{t.name}: {t.description}"))) for t in tools]
        return sorted(scored, key=lambda pair: pair[1], reverse=True)


@atexit.register
def _close_all() -> None:
    # Free llama.cpp models before the interpreter tears down the modules they need.
    with _embedders_lock:
        for found in _embedders.values():
            with contextlib.suppress(Exception):
                found._llama.close()
        _embedders.clear()


def embedder(path: Path) -> Embedder:
    key = str(path.resolve())
    with _embedders_lock:
        found = _embedders.get(key)
        if found is None:
            found = _embedders[key] = Embedder(path)
        return found
