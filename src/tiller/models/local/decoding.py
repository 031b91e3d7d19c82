"""Token-level work on a loaded llama.cpp model: tokens, room in the context, sampling.

Everything here blocks and must run in a worker thread while holding the
model's lock. A conversation's earlier turns are not evaluated again: the
key-value cache is reused for the prefix a prompt shares with the last one.

Output must not depend on what was asked before, and llama.cpp's results move
in the last bits with how a prompt is cut into batches. So the cache is reused
only in whole batches cut where a cold evaluation would cut them (multiples of
the batch size from the first token), and sampling starts from the same seed on
every request: a prompt gives the same tokens whether or not a similar prompt came
before it.
"""

from __future__ import annotations

import codecs
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tiller.errors import ContextOverflowError
from tiller.models.local.runtime import LoadedModel

REPEAT_PENALTY = 1.1
SEED = 20241  # any fixed value: llama.cpp reads 0 and -1 as "random"


@dataclass(slots=True, frozen=True)
class Sampling:
    temperature: float = 0.2
    top_p: float = 0.9
    top_k: int = 40
    repeat_penalty: float = REPEAT_PENALTY
    seed: int = SEED


@dataclass(slots=True)
class Decoded:
    text: str
    tokens: int
    finished: bool  # False: stopped by max_tokens (or cancellation)


class Decoder:
    def __init__(self, model: LoadedModel) -> None:
        import llama_cpp

        self._llama_cpp = llama_cpp
        self.model = model
        self.llama: Any = model.llama
        self.stop_tokens = self._stop_tokens()
        self._prompt_in_cache = 0  # tokens of the last prompt, evaluated in whole batches

    # ── tokens ──────────────────────────────────────────────────────────────

    def tokenize(self, text: str) -> list[int]:
        return list(
            self.llama.tokenize(
                text.encode("utf-8", "backslashreplace"), add_bos=False, special=True
            )
        )

    def room(self, prompt: list[int], wanted: int, minimum: int = 16) -> int:
        """How many tokens may be generated after `prompt` (at most `wanted`).

        Raises `ContextOverflowError` when not even `minimum` fit.
        """
        window = self.model.n_ctx
        free = window - len(prompt)
        if free < min(minimum, wanted):
            raise ContextOverflowError(
                f"prompt is too long: {len(prompt)} tokens leave no room to answer in "
                f"the model's context window of {window} tokens",
                provider="local",
                requested_tokens=len(prompt) + min(minimum, wanted),
                context_window=window,
            )
        return min(wanted, free)

    def _stop_tokens(self) -> set[int]:
        stops = {int(self.llama.token_eos())}
        for marker in ("<|im_end|>", "<|im_start|>", "<|endoftext|>", "<|eot_id|>"):
            ids = self.tokenize(marker)
            if len(ids) == 1:
                stops.add(ids[0])
        return stops

    # ── sampling ────────────────────────────────────────────────────────────

    def sample(
        self,
        prompt: list[int],
        *,
        max_tokens: int,
        sampling: Sampling,
        cancel: threading.Event,
        on_text: Callable[[str], None],
        grammar: Any = None,
        banned_first: list[int] | None = None,
        stop_texts: tuple[str, ...] = (),
        stop_repeated_lines: bool = False,
    ) -> Decoded:
        """Sample up to `max_tokens` after `prompt`, passing text to `on_text` as it decodes.

        Generation also ends where one of `stop_texts` appears, or with
        `stop_repeated_lines` where a line repeats an earlier one; neither is passed
        on, and text that might begin one is held back until that is decided.
        """
        max_tokens = self.room(prompt, max_tokens, minimum=1)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        filters: list[_TextFilter] = []  # innermost first
        if stop_repeated_lines:
            on_text = _RepeatedLineStop(on_text)
            filters.append(on_text)
        if stop_texts:
            on_text = _StopText(stop_texts, on_text)
            filters.append(on_text)
        processors = None
        if banned_first:
            processors = self._llama_cpp.LogitsProcessorList([_BanAtStart(banned_first)])
        pieces: list[str] = []
        count = 0
        finished = False
        self._keep_aligned_prefix(prompt)
        self.llama.set_seed(sampling.seed)
        generator = self.llama.generate(
            prompt,
            temp=sampling.temperature,
            top_p=sampling.top_p,
            top_k=sampling.top_k,
            repeat_penalty=sampling.repeat_penalty,
            grammar=grammar,
            logits_processor=processors,
        )
        try:
            for token in generator:
                if token in self.stop_tokens:
                    finished = True
                    break
                count += 1
                text = decoder.decode(self.llama.detokenize([token]))
                if text:
                    pieces.append(text)
                    on_text(text)
                    if any(f.stopped for f in filters):
                        finished = True
                        break
                if count >= max_tokens or cancel.is_set():
                    break
        finally:
            generator.close()
        self._prompt_in_cache = len(prompt)
        tail = decoder.decode(b"", final=True)
        if tail:
            pieces.append(tail)
            on_text(tail)
        for found in reversed(filters):  # outermost first: it passes text inwards
            found.flush()
        return Decoded(filters[0].passed if filters else "".join(pieces), count, finished)

    def _keep_aligned_prefix(self, prompt: list[int]) -> None:
        """Drop from the cache what a cold evaluation of `prompt` would batch differently."""
        llama = self.llama
        held = [int(t) for t in llama.input_ids[: min(llama.n_tokens, self._prompt_in_cache)]]
        keep = reusable_prefix(held, prompt, llama.n_batch)
        if keep < llama.n_tokens:
            llama._ctx.kv_cache_seq_rm(-1, keep, -1)
            llama.n_tokens = keep
        self._prompt_in_cache = min(self._prompt_in_cache, keep)


def reusable_prefix(held: list[int], prompt: list[int], batch: int) -> int:
    """How many cached tokens `prompt` can reuse and still be evaluated exactly as if
    cold: whole batches of what it shares with `held`, leaving at least its last
    token to evaluate (sampling needs that token's fresh logits)."""
    shared = 0
    for a, b in zip(held, prompt, strict=False):
        if a != b:
            break
        shared += 1
    return min(shared, len(prompt) - 1) // batch * batch


class _TextFilter(ABC):
    """Passes text on to `on_text` until it decides generation should stop."""

    def __init__(self, on_text: Callable[[str], None]) -> None:
        self.on_text = on_text
        self.passed = ""
        self.stopped = False

    @abstractmethod
    def __call__(self, text: str) -> None: ...

    @abstractmethod
    def flush(self) -> None:
        """Generation ended: pass on what is still held back, if it should be."""

    def _pass(self, text: str) -> None:
        if text:
            self.passed += text
            self.on_text(text)


class _RepeatedLineStop(_TextFilter):
    """Stops at a line that repeats an earlier one, holding back a line while it
    could still become one."""

    def __init__(self, on_text: Callable[[str], None]) -> None:
        super().__init__(on_text)
        self.lines: set[str] = set()
        self.line = ""  # the current line, of which `shown` characters are passed on
        self.shown = 0

    def __call__(self, text: str) -> None:
        if self.stopped:
            return
        self.line += text
        while "\n" in self.line:
            line, self.line = self.line.split("\n", 1)
            if line.strip() in self.lines:
                self.stopped = True
                return
            if line.strip():
                self.lines.add(line.strip())
            self._pass(line[self.shown :] + "\n")
            self.shown = 0
        if not self._could_repeat():
            self._pass(self.line[self.shown :])
            self.shown = len(self.line)

    def _could_repeat(self) -> bool:
        start = self.line.strip()
        return bool(start) and any(earlier.startswith(start) for earlier in self.lines)

    def flush(self) -> None:
        if not self.stopped and self.line.strip() not in self.lines:
            self._pass(self.line[self.shown :])
        self.line = ""
        self.shown = 0


class _StopText(_TextFilter):
    """Passes text on until a stop text appears, holding back what could be one's start."""

    def __init__(self, stops: tuple[str, ...], on_text: Callable[[str], None]) -> None:
        super().__init__(on_text)
        self.stops = stops
        self.pending = ""

    def __call__(self, text: str) -> None:
        if self.stopped:
            return
        self.pending += text
        found = [at for at in (self.pending.find(stop) for stop in self.stops) if at >= 0]
        if found:
            self.stopped = True
            self._pass(self.pending[: min(found)])
            self.pending = ""
            return
        keep = max(self._open_prefix(stop) for stop in self.stops)
        self._pass(self.pending[: len(self.pending) - keep])
        self.pending = self.pending[len(self.pending) - keep :]

    def _open_prefix(self, stop: str) -> int:
        """Length of the longest end of the pending text that begins `stop`."""
        for n in range(min(len(stop) - 1, len(self.pending)), 0, -1):
            if stop.startswith(self.pending[-n:]):
                return n
        return 0

    def flush(self) -> None:
        if not self.stopped:
            self._pass(self.pending)
        self.pending = ""


class _BanAtStart:
    """Forbids some tokens as the first sampled token (e.g. opening a tool call)."""

    def __init__(self, tokens: list[int]) -> None:
        self.tokens = tokens
        self.start: int | None = None

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        if self.start is None:
            self.start = len(input_ids)
        if len(input_ids) == self.start:
            scores[self.tokens] = -np.inf
        return scores
