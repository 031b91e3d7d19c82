"""Executing the tool calls of one assistant message.

One function, `execute_single_tool`, runs every call whatever the strategy:
unknown tools, unparseable or invalid arguments, raising tools, timeouts and
denying hooks all become error results the model can read. Results come back
in call order. On abort, calls that did not finish get an "aborted" result so
the history stays valid for a later run.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from tiller.errors import ToolError
from tiller.events import (
    MessageEnd,
    MessageStart,
    ToolExecutionEnd,
    ToolExecutionStart,
)
from tiller.loop.eager import gather_eagerly
from tiller.loop.hooks import Deny, ReplaceArguments, hook_failure_text, resolve
from tiller.loop.state import RunState
from tiller.loop.strategies import Batched, Sequential
from tiller.messages import (
    Message,
    TextContent,
    ToolCall,
    ToolResult,
    ToolResultContent,
    ToolResultMessage,
    without_surrogates,
)
from tiller.tools.base import ToolContext
from tiller.tools.function_tool import ArgumentsInvalid
from tiller.tools.invocation import invoke_tool

log = logging.getLogger("tiller.loop")

SKIPPED_TEXT = "Skipped due to queued user message."
HOOK_SKIPPED_TEXT = "Tool call skipped by before_tool_execution hook"
ABORTED_TEXT = "Tool call aborted: the run was cancelled before it finished."


@dataclass(slots=True)
class ToolExecutionResult:
    tool_results: list[ToolResultMessage]
    steering_messages: list[Message] | None = None


class ToolPhaseAborted(Exception):
    """The run was cancelled during tool execution; `results` has one result per call."""

    def __init__(self, results: list[ToolResultMessage]) -> None:
        super().__init__("tool execution aborted")
        self.results = results


async def execute_tool_calls(run: RunState, calls: Sequence[ToolCall]) -> ToolExecutionResult:
    """Run `calls` with the configured strategy. Raises `ToolPhaseAborted` on cancellation.

    An abort requested while the calls run (from a hook, a listener or a tool) takes
    effect at once: no call that has not started yet runs; each gets the aborted result.
    """
    slots: list[ToolResultMessage | None] = [None] * len(calls)
    nudges: list[str | None] = [None] * len(calls)
    if run.guard is not None:
        nudges = run.guard.record_calls(calls)
    try:
        steering = await _dispatch(run, calls, slots, nudges)
    except asyncio.CancelledError:
        if not run.cancel.cancelled:
            raise
        steering = None
    if run.cancel.cancelled:
        for i, result in enumerate(slots):
            if result is None:
                slots[i] = skip_tool_call(run, calls[i], ABORTED_TEXT)
        raise ToolPhaseAborted([r for r in slots if r is not None]) from None
    results = [r for r in slots if r is not None]
    return ToolExecutionResult(results, steering)


async def _dispatch(
    run: RunState,
    calls: Sequence[ToolCall],
    slots: list[ToolResultMessage | None],
    nudges: list[str | None],
) -> list[Message] | None:
    strategy = run.config.execution.tool_calls
    get_steering = run.config.get_steering_messages
    if isinstance(strategy, Sequential):
        size = 1
    elif isinstance(strategy, Batched):
        size = strategy.size
    else:
        size = len(calls)
    for start in range(0, len(calls), size):
        if run.cancel.cancelled:
            return None
        end = min(start + size, len(calls))
        await _execute_batch(run, calls, slots, nudges, start, end)
        if get_steering is not None:
            steering = list(get_steering())
            if steering:
                for i in range(end, len(calls)):
                    slots[i] = skip_tool_call(run, calls[i], SKIPPED_TEXT)
                return steering
    return None


async def _execute_batch(
    run: RunState,
    calls: Sequence[ToolCall],
    slots: list[ToolResultMessage | None],
    nudges: list[str | None],
    start: int,
    end: int,
) -> None:
    if end - start == 1:
        await execute_single_tool(run, calls[start], slots, start, nudges[start])
        return
    await gather_eagerly(
        execute_single_tool(run, calls[i], slots, i, nudges[i]) for i in range(start, end)
    )


def skip_tool_call(run: RunState, call: ToolCall, text: str) -> ToolResultMessage:
    """An error result for a call that was not run (steering, abort)."""
    result = _error([TextContent(text)])
    if run.listening():
        run.emit(
            ToolExecutionStart(tool_call_id=call.id, tool_name=call.name, arguments=call.arguments)
        )
        run.emit(
            ToolExecutionEnd(
                tool_call_id=call.id, tool_name=call.name, result=result, is_error=True
            )
        )
    return _result_message(run, call, result, True)


def _result_message(
    run: RunState, call: ToolCall, result: ToolResult, is_error: bool
) -> ToolResultMessage:
    message = ToolResultMessage(call.id, call.name, result.content, is_error, result.details)
    if run.listening():
        run.emit(MessageStart(message=message))
        run.emit(MessageEnd(message=message))
    return message


async def execute_single_tool(
    run: RunState,
    call: ToolCall,
    slots: list[ToolResultMessage | None],
    slot: int,
    nudge: str | None = None,
) -> ToolResultMessage | None:
    """Run one call and put its result message in `slots[slot]`.

    `nudge` (from the repetition guard) is appended to the result of a call that ran.

    Hooks that raise never escape: a raising `before_tool_execution` denies the call
    and a raising `after_tool_execution` (or update hook) turns the result into an
    error, each with the exception's text. Returns None when the run was aborted
    before the call started (the caller gives it the aborted result).
    """
    if run.cancel.cancelled:
        return None
    governance = run.config.governance
    arguments = call.arguments

    if governance.before_tool_execution is not None:
        denial = await _before_hook(run, call)
        if isinstance(denial, str):
            result = _error([TextContent(denial)])
            run.emit(
                ToolExecutionEnd(
                    tool_call_id=call.id, tool_name=call.name, result=result, is_error=True
                )
            )
            message = slots[slot] = _result_message(run, call, result, True)
            return message
        if denial is not None:
            arguments = denial
        if run.cancel.cancelled:  # the hook aborted the run: this call must not start
            return None

    if run.listening():
        run.emit(ToolExecutionStart(tool_call_id=call.id, tool_name=call.name, arguments=arguments))
    if run.cancel.cancelled:  # a listener of tool_execution_start aborted the run
        return None
    started = time.perf_counter()
    ctx = ToolContext(call.id, call.name, run.cancel, run.reporter)
    try:
        result, is_error = await _run_tool(run, call, arguments, ctx)
    except asyncio.CancelledError:
        if run.cancel.cancelled:
            result, is_error = _error([TextContent(ABORTED_TEXT)]), True
            _finish_events(run, call, result, is_error, started)
            slots[slot] = _result_message(run, call, result, is_error)
        raise
    finally:
        ctx.release()

    if (
        governance.before_tool_execution_update is not None
        or governance.after_tool_execution_update is not None
    ):  # only an update hook can have failed during the call
        hook_failure = run.reporter.take_hook_failure(call.id)
        if hook_failure is not None:
            result, is_error = _with_hook_failure(result, hook_failure), True
    if nudge is not None:
        result.content = [*result.content, TextContent(nudge)]
    _finish_events(run, call, result, is_error, started)
    if governance.after_tool_execution is not None:
        try:
            await resolve(governance.after_tool_execution(call.name, call.id, is_error))
        except Exception as exc:
            log.warning("after_tool_execution raised on %r; the call is an error", call.name)
            result = _with_hook_failure(result, hook_failure_text("after_tool_execution", exc))
            is_error = True
    message = slots[slot] = _result_message(run, call, result, is_error)
    return message


async def _before_hook(run: RunState, call: ToolCall) -> str | dict[str, Any] | None:
    """The before hook's verdict: a denial text, replacement arguments, or None to run."""
    hook = run.config.governance.before_tool_execution
    assert hook is not None
    try:
        verdict = await resolve(hook(call.name, call.id, call.arguments))
    except Exception as exc:
        log.warning("before_tool_execution raised on %r; the call is denied", call.name)
        return f"{HOOK_SKIPPED_TEXT}: {hook_failure_text('before_tool_execution', exc)}"
    if verdict is False or isinstance(verdict, Deny):
        reason = verdict.reason if isinstance(verdict, Deny) else ""
        return f"{HOOK_SKIPPED_TEXT}: {reason}" if reason else HOOK_SKIPPED_TEXT
    if isinstance(verdict, ReplaceArguments):
        return verdict.arguments
    return None


def _with_hook_failure(result: ToolResult, text: str) -> ToolResult:
    note = TextContent(f"[Error: the tool ran, but {text}]")
    return replace(result, content=[*result.content, note], is_error=True)


def _finish_events(
    run: RunState, call: ToolCall, result: ToolResult, is_error: bool, started: float
) -> None:
    if not run.listening():
        return
    run.emit(
        ToolExecutionEnd(
            tool_call_id=call.id,
            tool_name=call.name,
            result=result,
            is_error=is_error,
            child_loop_id=result.child_loop_id,
            duration_ms=(time.perf_counter() - started) * 1000,
        )
    )


async def _run_tool(
    run: RunState, call: ToolCall, arguments: dict[str, Any], ctx: ToolContext
) -> tuple[ToolResult, bool]:
    tool = run.tools.get(call.name)
    if tool is None:
        return _error([TextContent(f"Tool {call.name} not found")]), True
    if call.invalid_arguments is not None:
        return _error([TextContent(_invalid_json_text(call))]), True

    governance = run.config.governance
    timeout = tool.timeout_s
    try:
        invocation = invoke_tool(
            tool,
            arguments,
            ctx,
            policy=governance.tool_policy,
            dry_run=governance.dry_run,
            rollbacks=governance.rollbacks,
        )
        if timeout is None:
            result = await invocation
        else:
            async with asyncio.timeout(timeout):
                result = await invocation
    except TimeoutError:
        ctx.cancel.cancel("timeout")
        text = f"Tool {call.name!r} timed out after {timeout:g}s and was cancelled."
        return _error([TextContent(text)]), True
    except (ToolError, ArgumentsInvalid) as exc:
        return _error([TextContent(without_surrogates(str(exc)))]), True
    except Exception as exc:
        return _error([TextContent(without_surrogates(f"{type(exc).__name__}: {exc}"))]), True
    return _clean(result), result.is_error


def _error(content: list[ToolResultContent]) -> ToolResult:
    """A result the loop made for a call that failed: `is_error` as its event says."""
    return ToolResult(content, is_error=True)


def _clean(result: ToolResult) -> ToolResult:
    """The result with no lone surrogates in its texts (undecodable bytes, written out)."""
    content = result.content
    for i, block in enumerate(content):
        if isinstance(block, TextContent):
            text = without_surrogates(block.text)
            if text is not block.text:
                content = list(content) if content is result.content else content
                content[i] = TextContent(text)
    return result if content is result.content else replace(result, content=content)


def _invalid_json_text(call: ToolCall) -> str:
    raw = call.invalid_arguments or ""
    try:
        json.loads(raw)
        problem = "it is not a JSON object"
    except ValueError as exc:
        problem = str(exc)
    shown = raw if len(raw) <= 2000 else raw[:2000] + "…"
    return (
        f"The arguments for tool {call.name!r} are not valid JSON ({problem}). "
        f"Received: {shown}\nCall the tool again with one complete JSON object."
    )
