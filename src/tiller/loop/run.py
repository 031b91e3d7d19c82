"""`agent_loop` and `agent_loop_continue`: the agent loop as a function.

It takes the history and a `LoopConfig`, emits events to a sink, and returns
the messages the run added; the history passed in is never changed. Every
`turn_start` gets its `turn_end`, and `agent_end` fires however the run ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from tiller.cancellation import CancelToken
from tiller.context.view import ContextView
from tiller.errors import InvalidHistoryError, UsageError
from tiller.events import (
    AgentEnd,
    AgentStart,
    InputRejected,
    LoopDetected,
    MessageEnd,
    MessageStart,
    RunStats,
    TurnEnd,
    TurnStart,
)
from tiller.loop.config import EventSink, LoopConfig
from tiller.loop.filters import PassWithWarnings, Rejected, apply_input_filters
from tiller.loop.limits import UNLIMITED, exceeded_limit, run_stopped_marker, wall_time_marker
from tiller.loop.model_call import stream_assistant_response
from tiller.loop.options import govern
from tiller.loop.state import RunAborted, RunState
from tiller.loop.tool_execution import ToolPhaseAborted, execute_tool_calls
from tiller.messages import (
    AssistantMessage,
    ExtensionMessage,
    ImageContent,
    Message,
    TextContent,
    ToolResultMessage,
    UserMessage,
)

Prompt = str | Message | Sequence[Message]


async def agent_loop(
    prompt: Prompt,
    history: Sequence[Message],
    config: LoopConfig,
    emit: EventSink | None = None,
    cancel: CancelToken | None = None,
    view: ContextView | None = None,
) -> list[Message]:
    """Add `prompt` to `history` and run until the model stops. Returns the new messages.

    `view` carries the conversation's compaction blocks and token counts from run
    to run (the `Agent` keeps one); compactions made in this run are added to it.
    """
    prompts = as_prompt_messages(prompt)
    run = RunState(history, config, emit, cancel, view)
    return await _run(run, prompts)


async def agent_loop_continue(
    history: Sequence[Message],
    config: LoopConfig,
    emit: EventSink | None = None,
    cancel: CancelToken | None = None,
    view: ContextView | None = None,
) -> list[Message]:
    """Run from `history` as it is (it must end with a user message or tool results)."""
    last = next((m for m in reversed(history) if not isinstance(m, ExtensionMessage)), None)
    if last is None:
        raise InvalidHistoryError(
            "cannot continue from an empty history; start a run with agent_loop(prompt, ...)"
        )
    if isinstance(last, AssistantMessage):
        raise InvalidHistoryError(
            "cannot continue: the history ends with an assistant message, so there is "
            "nothing for the model to answer; add a user message and call agent_loop"
        )
    run = RunState(history, config, emit, cancel, view)
    return await _run(run, [])


def as_prompt_messages(prompt: Prompt) -> list[Message]:
    """The prompt as messages; an empty or blank prompt is a `UsageError`."""
    if isinstance(prompt, str):
        messages: list[Message] = [UserMessage([TextContent(prompt)])]
    elif isinstance(prompt, UserMessage | AssistantMessage | ToolResultMessage | ExtensionMessage):
        messages = [prompt]
    else:
        messages = list(prompt)
    if not any(_has_substance(m) for m in messages):
        raise UsageError("the prompt is empty: give the agent some text (or an image) to work on")
    return messages


def _has_substance(message: Message) -> bool:
    if not isinstance(message, UserMessage):
        return not isinstance(message, ExtensionMessage)
    return any(
        isinstance(b, ImageContent) or (isinstance(b, TextContent) and b.text.strip())
        for b in message.content
    )


async def _run(run: RunState, prompts: list[Message]) -> list[Message]:
    stats = run.stats
    if run.listening():
        run.emit(AgentStart())
    task = asyncio.current_task()
    cancelled_task = False
    finished = False

    def interrupt() -> None:
        # Cancel the loop's task only while it is suspended inside this run. When the
        # run cancels itself (a tool calls abort), try again once it has yielded; if it
        # never yields, its next checkpoint notices instead.
        nonlocal cancelled_task
        if finished or task is None or task.done():
            return
        if task is asyncio.current_task():
            asyncio.get_running_loop().call_soon(interrupt)
            return
        cancelled_task = True
        task.cancel()

    unregister = run.cancel.on_cancel(interrupt)
    ungovern = govern(run.config.governance)  # what sub-agents started by tools run under
    timer = None
    max_wall = run.config.execution.limits.max_wall_time_s
    if max_wall is not None:
        timer = asyncio.get_running_loop().call_later(
            max_wall, run.cancel.cancel, "max_wall_time_s"
        )
    try:
        if prompts and not _admit(run, prompts):
            return run.new_messages
        for message in prompts:
            _add(run, message)
        await _turns(run)
    except (asyncio.CancelledError, RunAborted):
        stats.stop_reason = "aborted"
        if not run.cancel.cancelled:  # the task itself was cancelled, from outside
            stats.stopped_by = "cancelled"
            raise
        if run.cancel.reason == "max_wall_time_s":
            stats.stopped_by = "max_wall_time_s"
            _add(run, wall_time_marker(max_wall or 0.0, run.elapsed_s()))
        else:
            stats.stopped_by = "aborted"
    except BaseException as exc:
        stats.stop_reason = "error"
        stats.error = f"{type(exc).__name__}: {exc}"
        raise
    finally:
        finished = True
        unregister()
        ungovern()
        if timer is not None:
            timer.cancel()
        if cancelled_task and task is not None:
            task.uncancel()
        _close_open_calls(run)
        stats.duration_ms = run.elapsed_s() * 1000
        run.emit(AgentEnd(messages=run.new_messages, stats=stats))
    return run.new_messages


def _close_open_calls(run: RunState) -> None:
    """Give each tool call of the last assistant message that has no result an error result.

    The normal paths never leave one open; this keeps the history valid for providers
    (every call answered exactly once) even when something unforeseen raised mid-run.
    """
    answered: set[str] = set()
    for message in reversed(run.new_messages):
        if isinstance(message, ToolResultMessage):
            answered.add(message.tool_call_id)
        elif isinstance(message, AssistantMessage):
            for call in message.tool_calls:
                if call.id not in answered:
                    text = (
                        f"Tool call not run: the run ended first ({run.stats.error or 'aborted'})."
                    )
                    _add(run, ToolResultMessage(call.id, call.name, [TextContent(text)], True))
            return
        elif not isinstance(message, ExtensionMessage):
            return


def _admit(run: RunState, prompts: list[Message]) -> bool:
    """Apply the input filter chain; False when the input was rejected."""
    filters = run.config.governance.input_filters
    if not filters:
        return True
    text = "\n".join(m.text for m in prompts if isinstance(m, UserMessage))
    verdict = apply_input_filters(filters, text)
    if isinstance(verdict, Rejected):
        run.stats.stopped_by = "input_rejected"
        run.stats.stop_reason = "error"
        run.stats.error = f"input rejected: {verdict.reason}"
        run.emit(InputRejected(reason=verdict.reason))
        return False
    if isinstance(verdict, PassWithWarnings):
        for i in range(len(prompts) - 1, -1, -1):
            last = prompts[i]
            if isinstance(last, UserMessage):
                notes = [TextContent(f"[Warning: {w}]") for w in verdict.warnings]
                prompts[i] = UserMessage([*last.content, *notes], last.timestamp)
                break
    return True


def _add(run: RunState, message: Message) -> None:
    run.append(message)
    if run.listening():
        run.emit(MessageStart(message=message))
        run.emit(MessageEnd(message=message))


async def _turns(run: RunState) -> None:
    config = run.config
    limits = None if config.execution.limits == UNLIMITED else config.execution.limits
    # Steering queued before the run goes in before its first model call.
    pending = _steering(config)
    while True:
        more_tool_calls = True
        while more_tool_calls or pending:
            if run.cancel.cancelled:
                raise RunAborted
            marker = None if limits is None else exceeded_limit(limits, run.stats, run.elapsed_s())
            if marker is not None:
                run.stats.stopped_by = marker.data["limit"]
                _add(run, marker)
                return
            more_tool_calls, pending = await _turn(run, pending)
            if run.stats.stop_reason in ("error", "aborted"):
                if run.stats.stop_reason == "aborted":
                    raise RunAborted
                return
            if run.guard is not None and run.guard.tripped is not None:
                _stop_for_repetition(run)
                return
            if not pending:
                pending = _steering(config)
        if config.get_follow_up_messages is not None:
            pending = list(config.get_follow_up_messages())
            if pending:
                continue
        return


def _steering(config: LoopConfig) -> list[Message]:
    source = config.get_steering_messages
    return [] if source is None else list(source())


async def _turn(run: RunState, pending: list[Message]) -> tuple[bool, list[Message]]:
    """One model call and its tool calls. Returns (had tool calls, steering messages)."""
    stats = run.stats
    stats.turns += 1
    turn = stats.turns
    if run.listening():
        run.emit(TurnStart(turn=turn))
    assistant: AssistantMessage | None = None
    results: list[ToolResultMessage] = []
    try:
        for message in pending:
            _add(run, message)
        await run.persist()
        assistant = await stream_assistant_response(run)
        run.append(assistant)
        _count_usage(stats, assistant)
        stats.stop_reason = assistant.stop_reason
        if assistant.stop_reason == "error":
            stats.error = assistant.error_message
            return False, []
        if assistant.stop_reason == "aborted":
            return False, []
        calls = assistant.tool_calls
        if not calls:
            return False, []
        stats.tool_calls += len(calls)
        await run.persist()
        try:
            executed = await execute_tool_calls(run, calls)
        except ToolPhaseAborted as aborted:
            results = aborted.results
            for result in results:
                run.append(result)
            raise RunAborted from None
        results = executed.tool_results
        for result in results:
            run.append(result)
        return True, executed.steering_messages or []
    finally:
        if run.listening():
            if assistant is None:
                model = run.config.model
                assistant = AssistantMessage(
                    [], "aborted", model=model.name, provider=model.provider
                )
            run.emit(TurnEnd(turn=turn, message=assistant, tool_results=results))


def _count_usage(stats: RunStats, assistant: AssistantMessage) -> None:
    usage = assistant.usage
    stats.usage = stats.usage + usage
    if usage.cost_usd is None and usage.total_tokens > 0:
        name = f"{assistant.provider}:{assistant.model}"
        if name not in stats.unpriced_models:
            stats.unpriced_models.append(name)


def _stop_for_repetition(run: RunState) -> None:
    assert run.guard is not None
    assert run.guard.tripped is not None
    name, arguments, repeats = run.guard.tripped
    run.stats.stopped_by = "loop_detected"
    run.emit(LoopDetected(tool_name=name, arguments=arguments, repeats=repeats))
    _add(
        run,
        run_stopped_marker(
            "loop_detected",
            f"tool {name!r} was called {repeats} times with the same arguments; "
            "the run looked stuck in a loop",
            tool_name=name,
            repeats=repeats,
        ),
    )
