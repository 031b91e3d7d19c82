"""One model turn: build the request, stream the reply into events, retry what is retryable.

Never raises for a model failure: the reply then is an assistant message with
stop reason `error` (or `aborted` when the run was cancelled mid-stream),
carrying what had streamed so far, minus tool calls that never completed.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from tiller.context.compaction_levels import ContextBudget
from tiller.context.view_compaction import compact_view, newest_user_message
from tiller.errors import ContextOverflowError, ModelError, detect_context_overflow
from tiller.events import (
    ContextCompacted,
    Delta,
    Event,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    Retry,
)
from tiller.loop.state import RunAborted, RunState
from tiller.messages import (
    AssistantMessage,
    Content,
    ExtensionMessage,
    Message,
    StopReason,
    ToolCall,
)
from tiller.models.assembly import MessageAssembler
from tiller.models.base import ModelRequest


class _StreamFailed(Exception):
    def __init__(self, error: BaseException, partial: AssistantMessage) -> None:
        self.error = error
        self.partial = partial


async def stream_assistant_response(run: RunState) -> AssistantMessage:
    policy = run.config.execution.retry
    retries = 0
    overflow_retried = False
    while True:
        try:
            # An abort from a listener or hook (even one on this task, which cannot be
            # interrupted while it runs) stops the run before any request is sent,
            # a summary model's included.
            if run.cancel.cancelled:
                raise RunAborted
            try:
                view = await _view(run)
            except ContextOverflowError as too_large:  # the newest message cannot fit
                return _failed_before_sending(run, too_large)
            if run.cancel.cancelled:
                raise RunAborted
            message = await _stream_once(run, view)
            _calibrate(run, view, message)
            return message
        except _StreamFailed as failed:
            error, partial = failed.error, failed.partial
        if _is_overflow(error) and not overflow_retried:
            overflow_retried = True
            if await _shrink_view(run, error, partial):
                continue
        if policy.should_retry(error, retries):
            run.emit(MessageEnd(message=partial, attempt_failed=True))
            retries += 1
            run.stats.retries += 1
            delay = policy.delay_s(error, retries)
            assert isinstance(error, ModelError)
            run.emit(
                Retry(
                    attempt=retries,
                    max_attempts=policy.max_retries,
                    delay_s=delay,
                    error_kind=error.kind,
                    error_message=str(error),
                )
            )
            try:
                await asyncio.sleep(delay)
            except asyncio.CancelledError:
                if not run.cancel.cancelled:
                    raise
                aborted = _partial([], run, "aborted")
                run.emit(MessageStart(message=aborted))
                run.emit(MessageEnd(message=aborted))
                return aborted
            continue
        partial.error_message = _describe(error)
        run.emit(MessageEnd(message=partial))
        return partial


def _failed_before_sending(run: RunState, error: ModelError) -> AssistantMessage:
    message = _partial([], run, "error")
    message.error_message = _describe(error)
    run.emit(MessageStart(message=message))
    run.emit(MessageEnd(message=message))
    return message


def _describe(error: BaseException) -> str:
    if isinstance(error, ModelError):
        return f"{error.kind}: {error}"
    return f"{type(error).__name__}: {error}"


def _is_overflow(error: BaseException) -> bool:
    if isinstance(error, _InStreamError):
        return detect_context_overflow(error.message)
    return detect_context_overflow(error)


class _InStreamError(Exception):
    """A provider reported failure through a final message with stop reason `error`."""

    def __init__(self, message: AssistantMessage) -> None:
        super().__init__(message.error_message or "the model reported an error")
        self.message = message


async def _view(run: RunState) -> list[Message]:
    """The messages sent to the model: the history as its compaction blocks show it,
    compacted further (a new block, and an event) when it is over the budget."""
    configured = run.config.context.budget
    overflow = run.overflow_budget
    if configured is not None or overflow is not None:
        budget = _with_budget(configured, overflow)
        await _compact(run, budget)
        _check_newest_fits(run, budget.budget)
    return run.view.view(run.messages)


def _check_newest_fits(run: RunState, budget: int) -> None:
    """Raise `ContextOverflowError` when the message being answered cannot fit on its own.

    Compaction never drops it (the model would answer a question it never saw), so a
    message larger than the whole budget ends the run with an error that says so.
    """
    newest = newest_user_message(run.messages)
    if newest is None:
        return
    tokens = run.view.tokens(newest)
    if tokens <= budget:
        return
    raise ContextOverflowError(
        f"the newest message is about {tokens:,} tokens, but at most {budget:,} tokens of "
        "messages fit in the model's context window; shorten it (or send it in parts), "
        "or use a model with a larger context window",
        requested_tokens=tokens,
        context_window=budget,
    )


def _with_budget(config: ContextBudget | None, budget: int | None) -> ContextBudget:
    if config is None:
        assert budget is not None
        return ContextBudget(max_context_tokens=budget)
    if budget is None:
        return config
    return replace(config, max_context_tokens=min(config.budget, budget), system_prompt_tokens=0)


async def _compact(run: RunState, budget: ContextBudget) -> bool:
    before = run.view.view(run.messages)
    block = await compact_view(
        run.view,
        run.messages,
        budget,
        summarizer=budget.summarizer,
        model=run.config.model,
        strategy=run.config.context.strategy,
    )
    if block is None:
        return False
    run.stats.compactions += 1
    run.emit(
        ContextCompacted(
            method=block.method,
            messages_before=len(before),
            messages_after=len(block.messages),
            tokens_before=block.tokens_before,
            tokens_after=block.tokens_after,
            summary=block.summary,
        )
    )
    return True


async def _shrink_view(run: RunState, error: BaseException, partial: AssistantMessage) -> bool:
    """After an overflow, compact the view; False if nothing could shrink.

    When the provider said how many tokens were asked for and how many fit, the
    estimate is scaled by that ratio (with a 10% margin); otherwise the view is
    cut to three quarters of what was sent.
    """
    before = run.view.view_tokens(run.messages)
    ratio = 0.75
    if isinstance(error, ContextOverflowError):
        asked, window = error.requested_tokens, error.context_window
        if asked and window and asked > window:
            ratio = min(ratio, 0.9 * window / asked)
    run.overflow_budget = int(before * ratio)
    budget = _with_budget(run.config.context.budget, run.overflow_budget)
    if not await _compact(run, budget):
        return False
    run.emit(MessageEnd(message=partial, attempt_failed=True))
    return True


def _calibrate(run: RunState, view: list[Message], message: AssistantMessage) -> None:
    """Learn from the provider how far our token estimate is from its count.

    Only a budget reads the estimate. A run with one learns at once, as its next
    decision needs it; a run without one leaves the reply's usage with the counts
    (`MessageTokens.observe_later`), to be learnt from only if a later run with a
    budget, an overflow retry or a caller ever reads a count. So a run with no
    budget counts no tokens at all.
    """
    usage = message.usage
    reported = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
    if reported <= 0:
        return
    tokens = run.view.tokens
    if run.config.context.budget is None and run.overflow_budget is None:
        tokens.observe_later(view, reported, lambda: run.request_overhead_tokens(tokens.counter))
        return
    estimated = sum(map(tokens.raw, view)) + run.request_overhead_tokens(tokens.counter)
    tokens.observe(estimated, reported)


async def _stream_once(run: RunState, view: list[Message]) -> AssistantMessage:
    config = run.config
    model = config.model
    request = ModelRequest(
        messages=[m for m in view if not isinstance(m, ExtensionMessage)]
        if run.has_extensions
        else view,
        system_prompt=config.system_prompt,
        tools=run.tool_specs,
        settings=config.settings,
    )
    deltas: list[Delta] = []
    message: AssistantMessage | None = None
    started = False
    try:
        # Iterate to the end (the final message is the last item) so the stream's
        # generator finishes here rather than in an asyncgen finalizer task.
        async for item in model.stream(request):
            if isinstance(item, Event):  # news from the model's machinery, not the reply
                run.emit(item)
                continue
            if not started:
                started = True
                if run.listening():
                    run.emit(MessageStart(message=_empty(run)))
            if isinstance(item, AssistantMessage):
                message = item
            elif message is None:
                deltas.append(item)
                if run.listening():
                    run.emit(MessageUpdate(delta=item))
        if message is None:
            raise ModelError("the model stream ended without a final message")
    except asyncio.CancelledError:
        if not run.cancel.cancelled:
            raise
        message = _partial(deltas, run, "aborted")
        if not started:
            run.emit(MessageStart(message=message))
        run.emit(MessageEnd(message=message))
        return message
    except Exception as exc:
        # The caller ends the message: as a failed attempt if it tries again.
        partial = _partial(deltas, run, "error")
        partial.error_message = _describe(exc)
        if not started:
            run.emit(MessageStart(message=partial))
        raise _StreamFailed(exc, partial) from exc

    if message.stop_reason == "error":
        raise _StreamFailed(_InStreamError(message), message)
    if run.listening():
        run.emit(MessageEnd(message=message))
    return message


def _empty(run: RunState) -> AssistantMessage:
    """The assistant message as `message_start` announces it: nothing streamed yet."""
    model = run.config.model
    return AssistantMessage([], "stop", model=model.name, provider=model.provider)


def _partial(deltas: list[Delta], run: RunState, stop_reason: StopReason) -> AssistantMessage:
    """What had streamed so far; tool calls are dropped, as they never completed."""
    assembler = MessageAssembler()
    for delta in deltas:
        assembler.add(delta)
    content: list[Content] = [b for b in assembler.content() if not isinstance(b, ToolCall)]
    model = run.config.model
    return AssistantMessage(content, stop_reason, model=model.name, provider=model.provider)
