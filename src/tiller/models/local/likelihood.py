"""log P(text | prefix) for one text after many prefixes, in one llama.cpp batch.

Tool choice asks the same question of every request: how likely is it after
each of a fixed set of prefixes (tool descriptions, direct-answer descriptions)?
The prefixes rarely change, so each is evaluated once and kept in the KV cache
as a sequence of its own. A request then costs one batch that holds its tokens
once per prefix, all decoded together; its cells are removed afterwards.

Scores move by up to ~0.05 nats a token with where in the cache a prefix's cells
lie, enough to flip a decision near its threshold. So `hold` fixes the layout:
the prefixes a decision needs are evaluated in order into an empty cache, unless
the cache already holds exactly those, and a score depends only on the request
and its prefixes, never on what was scored before.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

CONTEXT_CELLS = 2048  # KV cells shared by every sequence
MAX_SEQUENCES = 64
BATCH_TOKENS = 256  # llama.cpp keeps room for this many rows of logits

Tokens = tuple[int, ...]


@dataclass(slots=True)
class _Prefix:
    seq: int
    length: int
    next_token: np.ndarray[Any, Any]  # log-probabilities of the token after the prefix


class PrefixLikelihood:
    """Scores texts after prefixes kept in a llama.cpp context of their own."""

    def __init__(self, llama: Any, threads: int) -> None:
        import llama_cpp

        self._c = llama_cpp
        self._llama = llama  # owns the model, which must outlive this context
        params = llama_cpp.llama_context_default_params()
        params.n_ctx = CONTEXT_CELLS
        params.n_batch = params.n_ubatch = BATCH_TOKENS
        params.n_seq_max = MAX_SEQUENCES
        params.kv_unified = True  # any sequence may use any cell
        # Flash attention's half-precision sums move scores by ~0.05 nats a token.
        params.flash_attn_type = llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED
        params.n_threads = params.n_threads_batch = threads
        self._ctx = llama_cpp.llama_init_from_model(llama.model, params)
        if not self._ctx:
            raise RuntimeError("llama.cpp could not create the scoring context")
        self._memory = llama_cpp.llama_get_memory(self._ctx)
        self._batch = llama_cpp.llama_batch_init(BATCH_TOKENS, 0, 1)
        self._n_vocab = int(llama.n_vocab())
        self._prefixes: OrderedDict[Tokens, _Prefix] = OrderedDict()
        self._free = list(range(MAX_SEQUENCES))
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            if self._ctx:
                self._c.llama_batch_free(self._batch)
                self._c.llama_free(self._ctx)
                self._ctx = None

    def hold(self, prefixes: Sequence[Sequence[int]]) -> None:
        """Make the cache hold exactly `prefixes`, laid out as if evaluated first.

        Cheap when it already does (the same tools as the last decision)."""
        keys = list(dict.fromkeys(tuple(p) for p in prefixes))
        with self._lock:
            if not self._ctx:
                raise RuntimeError("the scoring context is closed")
            if list(self._prefixes) == keys:
                return
            self._c.llama_memory_clear(self._memory, True)
            self._prefixes.clear()
            self._free = list(range(MAX_SEQUENCES))
            for key in keys:
                self._held(key, protect=keys, room=0)

    def release(self, prefixes: Sequence[Sequence[int]]) -> None:
        """Drop `prefixes` from the cache, leaving the others where they are."""
        with self._lock:
            for key in dict.fromkeys(tuple(p) for p in prefixes):
                found = self._prefixes.pop(key, None)
                if found is not None:
                    self._c.llama_memory_seq_rm(self._memory, found.seq, -1, -1)
                    self._free.append(found.seq)

    def log_likelihoods(
        self, prefixes: Sequence[Sequence[int]], text: Sequence[int]
    ) -> list[float]:
        """log P(text | prefix) for each prefix, summed over the tokens of `text`."""
        if not text:
            return [0.0] * len(prefixes)
        if len(text) > BATCH_TOKENS:
            raise ValueError(f"text of {len(text)} tokens; at most {BATCH_TOKENS} can be scored")
        keys = [tuple(p) for p in prefixes]
        if any(not key for key in keys):
            raise ValueError("every prefix needs at least one token")
        found: dict[Tokens, float] = {}
        with self._lock:
            if not self._ctx:
                raise RuntimeError("the scoring context is closed")
            pending = list(dict.fromkeys(keys))
            per_batch = max(1, min(BATCH_TOKENS // len(text), MAX_SEQUENCES))
            while pending:
                group, pending = pending[:per_batch], pending[per_batch:]
                found.update(self._score_group(group, list(text)))
        return [found[key] for key in keys]

    # ── with the lock held ──────────────────────────────────────────────────

    def _score_group(self, group: list[Tokens], text: list[int]) -> dict[Tokens, float]:
        held = [self._held(key, protect=group, room=len(text) * len(group)) for key in group]
        scores = {key: float(p.next_token[text[0]]) for key, p in zip(group, held, strict=True)}
        if len(text) == 1:
            return scores
        batch = self._batch
        batch.n_tokens = 0
        for prefix in held:
            for j, token in enumerate(text):
                self._add(token, prefix.length + j, prefix.seq, output=j < len(text) - 1)
        try:
            self._decode()
            rows = self._outputs(len(held) * (len(text) - 1))
            rows = rows.reshape(len(held), len(text) - 1, self._n_vocab)
            picked = np.take_along_axis(rows, np.asarray(text[1:])[None, :, None], axis=2)[..., 0]
            totals = (picked - _log_norm(rows)).astype(np.float64).sum(axis=1)
        finally:
            for prefix in held:
                self._c.llama_memory_seq_rm(self._memory, prefix.seq, prefix.length, -1)
        for key, total in zip(group, totals, strict=True):
            scores[key] += float(total)
        return scores

    def _held(self, key: Tokens, *, protect: list[Tokens], room: int) -> _Prefix:
        """The prefix's sequence, evaluating it first if it is not in the cache."""
        prefix = self._prefixes.get(key)
        if prefix is not None:
            return prefix
        if len(key) > BATCH_TOKENS:
            raise ValueError(f"prefix of {len(key)} tokens; at most {BATCH_TOKENS} can be held")
        self._make_room(len(key) + room, protect)
        seq = self._free.pop()
        try:
            next_token = self._evaluate(key, seq)
        except Exception:
            self._c.llama_memory_seq_rm(self._memory, seq, -1, -1)
            self._free.append(seq)
            raise
        prefix = self._prefixes[key] = _Prefix(seq, len(key), next_token)
        return prefix

    def _evaluate(self, key: Tokens, seq: int) -> np.ndarray[Any, Any]:
        """Decode the prefix into sequence `seq`; the log-probabilities of what follows."""
        self._batch.n_tokens = 0
        for position, token in enumerate(key):
            self._add(token, position, seq, output=position == len(key) - 1)
        self._decode()
        row = self._outputs(1)[0]
        next_token: np.ndarray[Any, Any] = (row - _log_norm(row[None, :])[0]).astype(np.float64)
        return next_token

    def _make_room(self, cells: int, protect: list[Tokens]) -> None:
        """Room for `cells` more cells and a sequence. When there is not, every prefix
        but the protected ones is dropped and those are laid out again from the start
        of the cache. Dropping a prefix here and there instead left free cells enough
        in number, but llama.cpp found no place in them for the next batch."""
        used = sum(p.length for p in self._prefixes.values())
        if self._free and used + cells <= CONTEXT_CELLS:
            return
        kept = [(key, p) for key, p in self._prefixes.items() if key in protect]
        if sum(p.length for _, p in kept) + cells > CONTEXT_CELLS or len(kept) >= MAX_SEQUENCES:
            raise ValueError("the prefixes and text do not fit the scoring context")
        self._c.llama_memory_clear(self._memory, True)
        self._prefixes.clear()
        self._free = [seq for seq in range(MAX_SEQUENCES) if seq not in {p.seq for _, p in kept}]
        for key, prefix in kept:  # each keeps its sequence: callers may hold it already
            prefix.next_token = self._evaluate(key, prefix.seq)
            self._prefixes[key] = prefix

    def _add(self, token: int, position: int, seq: int, *, output: bool) -> None:
        batch = self._batch
        i = batch.n_tokens
        batch.token[i] = token
        batch.pos[i] = position
        batch.n_seq_id[i] = 1
        batch.seq_id[i][0] = seq
        batch.logits[i] = output
        batch.n_tokens = i + 1

    def _decode(self) -> None:
        code = self._c.llama_decode(self._ctx, self._batch)
        if code != 0:
            raise RuntimeError(f"llama.cpp could not decode the scoring batch (code {code})")

    def _outputs(self, count: int) -> np.ndarray[Any, Any]:
        """The logits of the last batch's `count` output tokens, in batch order.

        A view of llama.cpp's buffer: valid until the next decode."""
        pointer = self._c.llama_get_logits(self._ctx)
        flat = np.ctypeslib.as_array(pointer, shape=(count * self._n_vocab,))
        return flat.reshape(count, self._n_vocab)


def _log_norm(rows: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    peak = rows.max(axis=-1, keepdims=True)
    norm: np.ndarray[Any, Any] = peak + np.log(np.exp(rows - peak).sum(axis=-1, keepdims=True))
    return norm[..., 0]
