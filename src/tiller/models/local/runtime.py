"""Loading llama.cpp models once per process, with threads that degrade gracefully.

A model file is loaded lazily, on first use, and shared by every run in the
process. llama.cpp contexts are not thread-safe, so each loaded model has a lock
that serialises generations; callers hold it from a worker thread, never on the
event loop.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tiller.errors import ConfigError
from tiller.models.local.weights import INSTALL_HINT, checked_gguf

DEFAULT_CONTEXT = 8192

_cache: dict[tuple[str, int], LoadedModel] = {}
_vocabularies: dict[str, Any] = {}  # path -> vocabulary-only llama_cpp.Llama
_cache_lock = threading.Lock()


@dataclass(slots=True)
class LoadedModel:
    llama: Any  # llama_cpp.Llama
    lock: threading.Lock
    path: Path
    n_ctx: int


def decode_threads() -> int:
    """Threads for decoding: half the cores (at least one).

    Decoding a small model is memory-bound; with every core busy, one preempted
    thread stalls the rest at each barrier. Leaving a core free keeps a busy
    machine slow rather than stuck. `TILLER_LOCAL_THREADS` overrides.
    """
    configured = os.environ.get("TILLER_LOCAL_THREADS")
    if configured:
        try:
            return max(1, int(configured))
        except ValueError:
            raise ConfigError(
                f"TILLER_LOCAL_THREADS={configured!r} is not a whole number"
            ) from None
    return max(1, (os.cpu_count() or 2) // 2)


def _import_llama_cpp() -> Any:
    # Threads that wait passively yield the core instead of spinning, so another
    # process on the machine slows generation down instead of stalling it.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import llama_cpp
    except ImportError:
        raise ConfigError(f"the local provider needs llama-cpp-python; {INSTALL_HINT}") from None
    return llama_cpp


def load(path: str | Path, n_ctx: int | None = None) -> LoadedModel:
    """The model at `path`, loaded on first use and shared afterwards."""
    path = checked_gguf(path)
    key = (str(path.resolve()), n_ctx or 0)
    with _cache_lock:
        loaded = _cache.get(key)
        if loaded is None:
            loaded = _cache[key] = _load(path, n_ctx)
        return loaded


def is_loaded(path: str | Path, n_ctx: int | None = None) -> bool:
    """Whether `load(path, n_ctx)` would return at once."""
    key = (str(Path(path).resolve()), n_ctx or 0)
    with _cache_lock:
        return key in _cache


@atexit.register
def _close_all() -> None:
    # Free llama.cpp models before the interpreter tears down the modules they need.
    with _cache_lock:
        for loaded in _cache.values():
            with contextlib.suppress(Exception):
                loaded.llama.close()
        _cache.clear()
        for vocab in _vocabularies.values():
            with contextlib.suppress(Exception):
                vocab.close()
        _vocabularies.clear()


def _load(path: Path, n_ctx: int | None) -> LoadedModel:
    llama_cpp = _import_llama_cpp()
    threads = decode_threads()
    try:
        # llama.cpp prints to stderr while loading; keep the user's terminal clean.
        with contextlib.redirect_stderr(io.StringIO()):
            llama = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=n_ctx or DEFAULT_CONTEXT,
                n_threads=threads,
                n_threads_batch=max(threads, os.cpu_count() or 1),
                verbose=False,
            )
    except (ValueError, RuntimeError) as exc:
        raise ConfigError(f"llama.cpp could not load {str(path)!r}: {exc}") from exc
    return LoadedModel(llama, threading.Lock(), path, int(llama.n_ctx()))


def vocabulary(path: Path) -> Callable[[str], list[int]]:
    """A tokenizer for the model file: its vocabulary only, without the weights."""
    key = str(path.resolve())
    with _cache_lock:
        vocab = _vocabularies.get(key)
        if vocab is None:
            llama_cpp = _import_llama_cpp()
            with contextlib.redirect_stderr(io.StringIO()):
                vocab = llama_cpp.Llama(model_path=key, vocab_only=True, verbose=False)
            _vocabularies[key] = vocab

    def encode(text: str) -> list[int]:
        with _cache_lock:
            tokens: list[int] = vocab.tokenize(
                text.encode("utf-8", "backslashreplace"), add_bos=False, special=False
            )
        return tokens

    return encode
