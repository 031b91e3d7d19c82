"""`LocalModel`: a GGUF chat model run in-process with llama.cpp.

Generation runs in a worker thread while holding the model's lock, so the
event loop (other runs, the UI) stays live; deltas cross back to the loop as
they are decoded. Cancelling the stream stops generation at the next token.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from tiller.errors import ConfigError
from tiller.events import ModelLoading, TextDelta, ToolCallDelta
from tiller.messages import (
    AssistantMessage,
    ExtensionMessage,
    Message,
    StopReason,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from tiller.models.base import ANY_TOOL, ModelRequest, StreamItem, ToolSpec
from tiller.models.local import runtime
from tiller.models.local.argument_schema import fillable
from tiller.models.local.arguments import fill_arguments
from tiller.models.local.chat import (
    TOOL_CALL_CLOSE,
    TOOL_CALL_OPEN,
    ChatTemplate,
    chat_messages,
)
from tiller.models.local.chooser import DEFAULT_TOOL_THRESHOLD, ToolChooser
from tiller.models.local.clauses import continued, resolved
from tiller.models.local.decoding import REPEAT_PENALTY, Decoder, Sampling
from tiller.models.local.subjects import Choice
from tiller.models.local.tool_relevance import relevance_scorer
from tiller.models.local.value_choice import closed_choices
from tiller.models.local.weights import bundled_smollm2, checked_gguf
from tiller.models.registry import refuse_options

DEFAULT_MAX_TOKENS = 512
DEFAULT_TEMPERATURE = 0.2
_DONE = object()


class LocalModel:
    """A local GGUF model. `LocalModel()` is the embedded SmolLM2-135M-Instruct."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        name: str | None = None,
        n_ctx: int | None = None,
        tool_threshold: float = DEFAULT_TOOL_THRESHOLD,
    ) -> None:
        self.path = checked_gguf(path) if path is not None else bundled_smollm2()
        self._name = name or (self.path.stem if path is not None else "smollm2")
        self.n_ctx = n_ctx
        self.tool_threshold = tool_threshold
        self._decoder: Decoder | None = None
        self._template: ChatTemplate | None = None
        self._vocabulary: Callable[[str], list[int]] | None = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def provider(self) -> str:
        return "local"

    @property
    def context_window(self) -> int:
        return self._load()[0].model.n_ctx

    def _load(self) -> tuple[Decoder, ChatTemplate]:
        if self._decoder is None or self._template is None:
            loaded = runtime.load(self.path, self.n_ctx)
            self._decoder = Decoder(loaded)
            template = loaded.llama.metadata.get("tokenizer.chat_template")
            self._template = ChatTemplate(template)
        return self._decoder, self._template

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` by this model's own tokenizer (for exact context budgets).

        Needs only the vocabulary, loaded on first use in ~0.1 s, not the weights.
        """
        if self._vocabulary is None:
            self._vocabulary = runtime.vocabulary(self.path)
        return len(self._vocabulary(text))

    def load(self) -> None:
        """Load the model now (it otherwise loads on first use). Blocking."""
        self._load()

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        if self._decoder is None and not runtime.is_loaded(self.path, self.n_ctx):
            yield ModelLoading(provider="local", model=self._name)  # a spinner's cue
        loop = asyncio.get_running_loop()
        mailbox = _Mailbox(loop)
        cancel = threading.Event()

        def work() -> None:
            try:
                mailbox.push(self._generate(request, cancel, mailbox.push))
            except BaseException as exc:  # handed to the event loop and raised there
                mailbox.push(exc)
            finally:
                mailbox.push(_DONE)

        worker = loop.run_in_executor(None, work)
        try:
            while True:
                for item in await mailbox.take():
                    if item is _DONE:
                        return
                    if isinstance(item, BaseException):
                        raise item
                    yield item
        finally:
            cancel.set()
            if not worker.done():
                # Let the worker finish its current token without blocking the loop.
                worker.add_done_callback(lambda _: None)

    # ── in the worker thread ────────────────────────────────────────────────

    def _generate(
        self, request: ModelRequest, cancel: threading.Event, push: Callable[[Any], None]
    ) -> AssistantMessage:
        decoder, template = self._load()
        max_tokens = request.settings.max_tokens or DEFAULT_MAX_TOKENS
        after_tool = _last_is_tool_result(request.messages)
        # After a tool result the answer should restate it, not improvise: greedy
        # unless the caller chose a temperature, and no penalty for repeating the
        # result's words, which are in the prompt.
        default_temperature = 0.0 if after_tool else DEFAULT_TEMPERATURE
        sampling = Sampling(
            temperature=request.settings.temperature
            if request.settings.temperature is not None
            else default_temperature,
            top_p=request.settings.top_p if request.settings.top_p is not None else 0.9,
            repeat_penalty=1.0 if after_tool else REPEAT_PENALTY,
        )
        offer_tools = bool(request.tools) and not after_tool
        prompt = decoder.tokenize(template.render(chat_messages(request, offer_tools=offer_tools)))
        max_tokens = decoder.room(prompt, max_tokens)
        request_text = _request_text(request.messages) if request.tools else ""
        chooser = ToolChooser(relevance_scorer(self.path), self.tool_threshold)

        with decoder.model.lock:
            forced = _forced_tool(request)
            if forced is not None:  # the caller decided: no choosing, only the arguments
                choices = [Choice(forced, request_text)]
            elif request_text and not after_tool:
                choices = chooser.choose(request_text, request.tools)
            else:
                choices = _retry_after_error(chooser, request_text, request)
            if not choices and request.settings.tool_choice == ANY_TOOL and request.tools:
                best = chooser.rank(request_text, request.tools)[0][0]
                choices = [Choice(best, request_text)]
            if choices:
                return self._tool_calls(
                    decoder, choices, prompt, max_tokens, cancel, push, request_text
                )
            banned = decoder.tokenize(TOOL_CALL_OPEN)[:1] if request.tools else None
            decoded = decoder.sample(
                prompt,
                max_tokens=max_tokens,
                sampling=sampling,
                cancel=cancel,
                on_text=lambda text: push(TextDelta(0, text)),
                banned_first=banned,
                # Restating a result greedily can loop line by line: "The result is: 7".
                stop_repeated_lines=after_tool,
                # The model's own tool-call syntax ends a text reply: calls are made
                # only through the chooser.
                stop_texts=(TOOL_CALL_OPEN, TOOL_CALL_CLOSE) if request.tools else (),
            )
            if request_text and not after_tool and not decoded.text.strip():
                choices = chooser.when_text_is_empty(request_text, request.tools)
                if choices:
                    return self._tool_calls(
                        decoder, choices, prompt, max_tokens, cancel, push, request_text
                    )
        stop: StopReason = "stop" if decoded.finished else "length"
        content = [TextContent(decoded.text.strip())] if decoded.text.strip() else []
        return self._message(content, stop, len(prompt), decoded.tokens)

    def _tool_calls(
        self,
        decoder: Decoder,
        choices: list[Choice],
        prompt: list[int],
        max_tokens: int,
        cancel: threading.Event,
        push: Callable[[Any], None],
        request_text: str = "",
    ) -> AssistantMessage:
        """Fill each choice's arguments, streaming them as tool-call deltas, in order. A
        value of a closed set said anywhere in `request_text` ("I'm with Vodafone. The
        signal in Tobermory and in Glencoe?") holds for a call whose own text says none."""
        template = self._load()[1]
        explain = relevance_scorer(self.path).log_likelihoods
        calls: list[ToolCall] = []
        made: list[dict[str, Any] | None] = []  # arguments by choice, None if not made
        texts: list[str] = []  # the text each choice's arguments were filled from
        tokens = 0
        for choice in choices:
            text = choice.text
            if choice.continues is not None:
                head = made[choice.continues]
                closed = frozenset(
                    str(v).lower() for vs in closed_choices(choice.tool).values() for v in vs
                )
                before = choices[choice.continues].text
                found = continued(before, head, text, closed) if head else None
                if found is None:
                    made.append(None)
                    texts.append(text)
                    continue
                text = found
            elif choice.refers is not None:
                earlier = made[choice.refers]
                if earlier:
                    text = resolved(text, texts[choice.refers], earlier)
            if calls and not fillable(choice.tool.parameters, text):
                # A later clause holds no value for a required parameter ("and some
                # beef" after "roast 2 kg of chicken"): its call would invent one.
                made.append(None)
                texts.append(text)
                continue
            call_id, name = f"call_{uuid.uuid4().hex[:12]}", choice.tool.name
            filled = fill_arguments(
                decoder,
                template,
                text,
                choice.tool,
                explain=explain,
                context=choice.context or request_text,
                max_tokens=max_tokens,
                cancel=cancel,
                on_text=_call_deltas(push, len(calls), call_id, name),
            )
            tokens += filled.tokens
            if not filled.complete:
                if calls:  # keep the calls that are whole
                    break
                # The grammar could not finish within max_tokens: say so rather than
                # pass on arguments that are not valid JSON.
                return self._message([], "length", len(prompt), max_tokens)
            call = _parsed_call(call_id, name, filled.text)
            if any(_same_call(call, made_call) for made_call in calls):
                made.append(None)  # the same call twice gives nothing new
                texts.append(text)
                continue
            calls.append(call)
            made.append(call.arguments if call.invalid_arguments is None else None)
            texts.append(text)
        return self._message(list(calls), "tool_use", len(prompt), tokens)

    def _message(
        self, content: list[Any], stop: StopReason, input_tokens: int, output_tokens: int
    ) -> AssistantMessage:
        usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens, cost_usd=0.0)
        return AssistantMessage(content, stop, usage, model=self._name, provider="local")


class _Mailbox:
    """Carries items from the generating thread to the event loop.

    The loop is woken once per batch, not once per token: while it is busy, new
    tokens collect and consecutive text is merged into one delta. This keeps the
    decoding thread from waiting on the GIL behind the loop at every token.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._lock = threading.Lock()
        self._items: list[Any] = []
        self._waiter: asyncio.Future[None] | None = None
        self._wake_pending = False

    def push(self, item: Any) -> None:
        with self._lock:
            last = self._items[-1] if self._items else None
            if (
                isinstance(item, TextDelta)
                and isinstance(last, TextDelta)
                and last.index == item.index
            ):
                self._items[-1] = TextDelta(last.index, last.text + item.text)
            else:
                self._items.append(item)
            if self._wake_pending:
                return
            self._wake_pending = True
        self._loop.call_soon_threadsafe(self._wake)

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def take(self) -> list[Any]:
        while True:
            with self._lock:
                if self._items:
                    items, self._items = self._items, []
                    self._wake_pending = False
                    return items
                self._wake_pending = False
            self._waiter = self._loop.create_future()
            with self._lock:
                ready = bool(self._items)
            if not ready:
                await self._waiter
            self._waiter = None


def _llm_messages(messages: Any) -> list[Message]:
    return [m for m in messages if not isinstance(m, ExtensionMessage)]


def _last_is_tool_result(messages: Any) -> bool:
    llm = _llm_messages(messages)
    return bool(llm) and isinstance(llm[-1], ToolResultMessage)


def _forced_tool(request: ModelRequest) -> ToolSpec | None:
    """The tool `tool_choice` makes the model call: the one named, or with `"required"`
    the only tool offered (with several, the chooser picks, and when it would pick none
    the best-ranked tool is called)."""
    choice = request.settings.tool_choice
    if not choice or not request.tools:
        return None
    if choice == ANY_TOOL:
        return request.tools[0] if len(request.tools) == 1 else None
    return next((tool for tool in request.tools if tool.name == choice), None)


def _request_text(messages: Any) -> str:
    """The text of the user's last message ("" if there is none)."""
    for message in reversed(_llm_messages(messages)):
        if isinstance(message, UserMessage):
            return message.text
    return ""


def _retry_after_error(
    chooser: ToolChooser, request_text: str, request: ModelRequest
) -> list[Choice]:
    """One more tool turn when the first tool turn after the request failed and its
    error names another tool to use ("use list_files"); none after that."""
    llm = _llm_messages(request.messages)
    since = list(itertools.takewhile(lambda m: not isinstance(m, UserMessage), reversed(llm)))
    turns = sum(isinstance(m, AssistantMessage) for m in since)
    failed = [m for m in since if isinstance(m, ToolResultMessage) and m.is_error]
    if not request_text or turns != 1 or not failed:
        return []
    error = failed[-1]
    return chooser.after_error(error.text, error.tool_name, request_text, request.tools)


def _call_deltas(
    push: Callable[[Any], None], index: int, call_id: str, name: str
) -> Callable[[str], None]:
    """Streams a call's arguments as deltas; the first also carries its id and name."""
    first = True

    def on_text(piece: str) -> None:
        nonlocal first
        push(
            ToolCallDelta(index, piece, id=call_id if first else None, name=name if first else None)
        )
        first = False

    return on_text


def _same_call(a: ToolCall, b: ToolCall) -> bool:
    """Whether two calls ask the same thing: one tool, the same arguments (strings
    compared without case)."""

    def key(call: ToolCall) -> str:
        return json.dumps(call.arguments, sort_keys=True).lower()

    return a.name == b.name and a.invalid_arguments is None and key(a) == key(b)


def _parsed_call(call_id: str, name: str, arguments_text: str) -> ToolCall:
    try:
        # strict=False: llama.cpp's string rule can let a raw control character through.
        arguments = json.loads(arguments_text, strict=False)
    except ValueError:
        arguments = None
    if isinstance(arguments, dict):
        return ToolCall(call_id, name, arguments)
    # The loop turns this into an error result the model can read.
    return ToolCall(call_id, name, {}, invalid_arguments=arguments_text)


def local_model(spec: str, **options: Any) -> LocalModel:
    """Registry factory: `local:smollm2` or `local:PATH.gguf`."""
    refuse_options("local", options)
    if spec in KNOWN_NAMES:
        return LocalModel()
    if not Path(spec).expanduser().exists() and not _looks_like_a_path(spec):
        import difflib

        close = difflib.get_close_matches(spec.lower(), KNOWN_NAMES, n=1, cutoff=0.5)
        hint = f"did you mean local:{close[0]}? " if close else ""
        raise ConfigError(
            f"unknown local model {spec!r}; {hint}known names: "
            f"{', '.join(f'local:{n}' for n in KNOWN_NAMES)}, or give the path of a .gguf "
            "file (local:/path/to/model.gguf)"
        )
    return LocalModel(spec)


# Names of the embedded model (`local:NAME`); anything else is a GGUF file's path.
KNOWN_NAMES = ("smollm2", "default")


def _looks_like_a_path(spec: str) -> bool:
    return "/" in spec or "\\" in spec or spec.lower().endswith(".gguf") or spec.startswith("~")
