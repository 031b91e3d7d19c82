"""Executing the tool calls of one assistant message (seed 002).

One function, `execute_single_tool`, runs every call whatever the strategy:
unknown tools, unparseable or invalid arguments, raising tools, timeouts and
denying hooks all become error results the model can read. Results come back
in call order. On abort, calls that did not finish get an "aborted" result so
the history stays valid for a later run.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tiller.errors import ToolError
from tiller.events import (
    MessageEnd,
    MessageStart,
    ToolExecutionEnd,
    ToolExecutionStart,
)
from tiller.loop.eager import gather_eagerly
from tiller.loop.hooks import Deny, ReplaceArguments, resolve
from tiller.loop.state import RunState
from tiller.loop.strategies import Batched, Sequential
from tiller.messages import Message, TextContent, ToolCall, ToolResult, ToolResultMessage
from tiller.tools.base import ToolContext
from tiller.tools.function_tool import ArgumentsInvalid
from tiller.tools.invocation import invoke_tool

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
    """Run `calls` with the configured strategy. Raises `ToolPhaseAborted` on cancellation."""
    slots: list[ToolResultMessage | None] = [None] * len(calls)
    try:
        steering = await _dispatch(run, calls, slots)
    except asyncio.CancelledError:
        if not run.cancel.cancelled:
            raise
        for i, result in enumerate(slots):
            if result is None:
                slots[i] = skip_tool_call(run, calls[i], ABORTED_TEXT)
        raise ToolPhaseAborted([r for r in slots if r is not None]) from None
    results = [r for r in slots if r is not None]
    return ToolExecutionResult(results, steering)


async def _dispatch(
    run: RunState, calls: Sequence[ToolCall], slots: list[ToolResultMessage | None]
) -> list[Message] | None:
    strategy = run.config.strategy
    get_steering = run.config.get_steering_messages
    if isinstance(strategy, Sequential):
        size = 1
    elif isinstance(strategy, Batched):
        size = strategy.size
    else:
        size = len(calls)
    for start in range(0, len(calls), size):
        end = min(start + size, len(calls))
        await _execute_batch(run, calls, slots, start, end)
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
    start: int,
    end: int,
) -> None:
    if end - start == 1:
        await execute_single_tool(run, calls[start], slots, start)
        return
    await gather_eagerly(execute_single_tool(run, calls[i], slots, i) for i in range(start, end))


def skip_tool_call(run: RunState, call: ToolCall, text: str) -> ToolResultMessage:
    """An error result for a call that was not run (steering, abort)."""
    run.emit(
        ToolExecutionStart(tool_call_id=call.id, tool_name=call.name, arguments=call.arguments)
    )
    result = ToolResult([TextContent(text)])
    run.emit(
        ToolExecutionEnd(tool_call_id=call.id, tool_name=call.name, result=result, is_error=True)
    )
    return _result_message(run, call, result, True)


def _result_message(
    run: RunState, call: ToolCall, result: ToolResult, is_error: bool
) -> ToolResultMessage:
    message = ToolResultMessage(call.id, call.name, result.content, is_error, result.details)
    run.emit(MessageStart(message=message))
    run.emit(MessageEnd(message=message))
    return message


async def execute_single_tool(
    run: RunState, call: ToolCall, slots: list[ToolResultMessage | None], slot: int
) -> ToolResultMessage:
    config = run.config
    arguments = call.arguments

    if config.before_tool_execution is not None:
        verdict = await resolve(config.before_tool_execution(call.name, call.id, arguments))
        if verdict is False or isinstance(verdict, Deny):
            reason = verdict.reason if isinstance(verdict, Deny) else ""
            text = f"{HOOK_SKIPPED_TEXT}: {reason}" if reason else HOOK_SKIPPED_TEXT
            result = ToolResult([TextContent(text)])
            run.emit(
                ToolExecutionEnd(
                    tool_call_id=call.id, tool_name=call.name, result=result, is_error=True
                )
            )
            message = slots[slot] = _result_message(run, call, result, True)
            return message
        if isinstance(verdict, ReplaceArguments):
            arguments = verdict.arguments

    run.emit(ToolExecutionStart(tool_call_id=call.id, tool_name=call.name, arguments=arguments))
    started = time.perf_counter()
    ctx = ToolContext(call.id, call.name, run.cancel, run.reporter)
    try:
        result, is_error = await _run_tool(run, call, arguments, ctx)
    except asyncio.CancelledError:
        if run.cancel.cancelled:
            result, is_error = ToolResult([TextContent(ABORTED_TEXT)]), True
            _finish_events(run, call, result, is_error, started)
            slots[slot] = _result_message(run, call, result, is_error)
        raise
    finally:
        ctx.release()

    if run.guard is not None:
        nudge = run.guard.record(call.name, arguments)
        if nudge is not None:
            result.content = [*result.content, TextContent(nudge)]
    _finish_events(run, call, result, is_error, started)
    if config.after_tool_execution is not None:
        await resolve(config.after_tool_execution(call.name, call.id, is_error))
    message = slots[slot] = _result_message(run, call, result, is_error)
    return message


def _finish_events(
    run: RunState, call: ToolCall, result: ToolResult, is_error: bool, started: float
) -> None:
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
        return ToolResult([TextContent(f"Tool {call.name} not found")]), True
    if call.invalid_arguments is not None:
        return ToolResult([TextContent(_invalid_json_text(call))]), True

    config = run.config
    timeout = tool.timeout_s
    try:
        invocation = invoke_tool(
            tool,
            arguments,
            ctx,
            policy=config.tool_policy,
            dry_run=config.dry_run,
            rollbacks=config.rollbacks,
        )
        if timeout is None:
            result = await invocation
        else:
            async with asyncio.timeout(timeout):
                result = await invocation
    except TimeoutError:
        ctx.cancel.cancel("timeout")
        text = f"Tool {call.name!r} timed out after {timeout:g}s and was cancelled."
        return ToolResult([TextContent(text)]), True
    except (ToolError, ArgumentsInvalid) as exc:
        return ToolResult([TextContent(str(exc))]), True
    except Exception as exc:
        return ToolResult([TextContent(f"{type(exc).__name__}: {exc}")]), True
    return result, result.is_error


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
