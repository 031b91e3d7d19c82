"""Structured answers from a model: a pydantic model filled in through a tool call.

The model is offered a single tool whose parameters are the answer's JSON
schema, and its call's arguments are validated with pydantic. An answer that
does not validate (or that `check` refuses: a goal tree with a cycle, a plan
naming an unknown tool) goes back to the model as the call's error result, with
what was wrong, and the model tries again, up to `attempts` times in all. A
reply in plain text that holds a JSON object is accepted as well, since small
models often answer that way.

Each attempt is one run of the agent loop with a single model turn, so model
failures are retried as in any run, and the attempts' events (with the caller's
`parent_loop_id`) and usage reach the caller.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from tiller.cancellation import CancelToken
from tiller.errors import TillerError, ToolError
from tiller.events import AgentEnd, AgentEvent, RunStats
from tiller.loop.config import EventSink, LoopConfig
from tiller.loop.limits import Limits
from tiller.loop.options import Execution
from tiller.loop.run import agent_loop, agent_loop_continue
from tiller.messages import (
    AssistantMessage,
    Message,
    TextContent,
    ToolResult,
    Usage,
    UserMessage,
)
from tiller.models.base import Model, ModelSettings
from tiller.tools.base import ToolContext

Answer = TypeVar("Answer", bound=BaseModel)
Check = Callable[[Answer], None]

JSON_OBJECT = re.compile(r"\{.*\}", re.S)


class StructuredOutputError(TillerError):
    """The model gave no valid structured answer within its attempts."""

    def __init__(self, message: str, problems: list[str], usage: Usage | None = None) -> None:
        super().__init__(message)
        self.problems = problems
        self.usage = usage or Usage()  # what the failed attempts spent, to be counted


@dataclass(slots=True)
class StructuredAnswer(Generic[Answer]):
    value: Answer
    attempts: int
    usage: Usage = field(default_factory=Usage)
    messages: list[Message] = field(default_factory=list)


class SubmitTool(Generic[Answer]):
    """The tool through which the model hands in its answer."""

    def __init__(
        self,
        name: str,
        description: str,
        answer: type[Answer],
        check: Check[Answer] | None,
        schema: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.description = description
        self.parameters: dict[str, Any] = schema or answer.model_json_schema()
        self.timeout_s: float | None = None
        self.effect = "read"
        self._answer = answer
        self._check = check
        self.value: Answer | None = None
        self.problems: list[str] = []

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        self.accept(arguments)
        return ToolResult([TextContent("Accepted.")])

    def accept(self, arguments: object) -> Answer:
        """Validate and keep an answer; `ToolError` with every problem when it is not one."""
        try:
            value = self._answer.model_validate(arguments)
            if self._check is not None:
                self._check(value)
        except ValidationError as exc:
            self._refuse([_problem(error) for error in exc.errors()])
        except ValueError as exc:
            self._refuse([str(exc)])
        self.value = value
        return value

    def _refuse(self, problems: list[str]) -> None:
        self.problems = problems
        listed = "\n".join(f"- {p}" for p in problems)
        raise ToolError(
            f"The answer was not accepted:\n{listed}\n"
            f"Call {self.name} again with the whole answer, corrected."
        )


async def ask_structured(
    model: Model,
    answer: type[Answer],
    prompt: str,
    *,
    instructions: str,
    tool_name: str,
    tool_description: str,
    check: Check[Answer] | None = None,
    attempts: int = 3,
    settings: ModelSettings | None = None,
    emit: EventSink | None = None,
    cancel: CancelToken | None = None,
    parent_loop_id: str | None = None,
    time_left: float | None = None,
    schema: dict[str, Any] | None = None,
) -> StructuredAnswer[Answer]:
    """Ask `model` for an `answer` to `prompt`; `StructuredOutputError` when no attempt
    gives a valid one (its `problems` are the last attempt's). `time_left` (seconds)
    bounds all attempts together: a model call still running then is stopped.
    `schema` is what the model is shown instead of the answer's own JSON schema: a
    narrower one (the names it may choose from, say); the answer is still validated."""
    submit = SubmitTool(tool_name, tool_description, answer, check, schema)
    deadline = None if time_left is None else time.monotonic() + max(time_left, 0.0)
    config = LoopConfig(
        model=model,
        tools=[submit],
        system_prompt=instructions,
        # The answer is the tool's call: models that can be told to make it are.
        settings=_answering(settings or ModelSettings(), tool_name),
        execution=Execution(limits=Limits(max_turns=1)),
        parent_loop_id=parent_loop_id,
    )
    runs: list[RunStats] = []

    def sink(event: AgentEvent) -> None:
        if isinstance(event, AgentEnd):
            runs.append(event.stats)
        if emit is not None:
            emit(event)

    history: list[Message] = []
    for attempt in range(1, attempts + 1):
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            limits = Limits(max_turns=1, max_wall_time_s=left)
            config = replace(config, execution=Execution(limits=limits))
        if attempt == 1:
            history += await agent_loop(prompt, history, config, sink, cancel)
        else:
            history += await agent_loop_continue(history, config, sink, cancel)
        if submit.value is None:
            _accept_text_answer(submit, history)
        if submit.value is not None:
            usage = sum((stats.usage for stats in runs), Usage())
            return StructuredAnswer(submit.value, attempt, usage, history)
        if runs and runs[-1].stop_reason in ("error", "aborted"):
            break  # the model failed (after its retries), or the solve was cancelled
        if not _last_is_tool_result(history):
            history.append(UserMessage.of(_ask_again(submit)))
    last = runs[-1] if runs else None
    if (last is not None and last.stopped_by == "max_wall_time_s") or not runs:
        why = "the time for it ran out"
    elif last is not None and last.stop_reason == "error":
        why = f"the model call failed: {last.error}"
    else:
        why = "; ".join(submit.problems) or "it never called the tool"
    raise StructuredOutputError(
        f"the model gave no valid answer for {tool_name} in {len(runs)} attempt(s): {why}",
        submit.problems,
        sum((stats.usage for stats in runs), Usage()),
    )


# Room for a whole structured answer (a goal tree, a plan) when the caller sets none.
ANSWER_TOKENS = 1024


def _answering(settings: ModelSettings, tool_name: str) -> ModelSettings:
    return replace(settings, tool_choice=tool_name, max_tokens=settings.max_tokens or ANSWER_TOKENS)


def _accept_text_answer(submit: SubmitTool[Any], history: Sequence[Message]) -> None:
    """Take a JSON object the model wrote as text instead of calling the tool."""
    reply = next((m for m in reversed(history) if isinstance(m, AssistantMessage)), None)
    if reply is None or reply.tool_calls or not reply.text:
        return
    found = JSON_OBJECT.search(reply.text)
    if found is None:
        submit.problems = ["the reply was text, not a call of the tool"]
        return
    try:
        data = json.loads(found.group(0))
    except json.JSONDecodeError as exc:
        submit.problems = [f"the JSON in the reply does not parse: {exc}"]
        return
    # When it is refused, its problems are kept and told to the model on the next attempt.
    with contextlib.suppress(ToolError):
        submit.accept(data)


def _last_is_tool_result(history: Sequence[Message]) -> bool:
    last = next((m for m in reversed(history) if not _is_marker(m)), None)
    return last is not None and not isinstance(last, AssistantMessage | UserMessage)


def _is_marker(message: Message) -> bool:
    return getattr(message, "role", None) == "extension"


def _ask_again(submit: SubmitTool[Any]) -> str:
    problems = "\n".join(f"- {p}" for p in submit.problems) or "- no answer was given"
    return (
        f"Your answer was not accepted:\n{problems}\n"
        f"Answer by calling the tool {submit.name} with the whole answer."
    )


def _problem(error: Any) -> str:
    where = ".".join(str(part) for part in error.get("loc", ())) or "the answer"
    return f"{where}: {error.get('msg', 'invalid')}"
