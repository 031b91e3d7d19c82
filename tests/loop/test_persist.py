"""`Execution.persist`: a run's messages are handed over before each model call and
before each turn's tool calls run, each message once, in order."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from tests.helpers import config
from tiller import tool
from tiller.loop import agent_loop
from tiller.loop.options import Execution
from tiller.messages import AssistantMessage, Message, ToolResultMessage, UserMessage
from tiller.models import FunctionModel, Reply, ScriptedModel, call
from tiller.models.base import ModelRequest


class Saved:
    def __init__(self) -> None:
        self.batches: list[list[Message]] = []

    async def __call__(self, messages: Sequence[Message]) -> None:
        self.batches.append(list(messages))

    @property
    def messages(self) -> list[Message]:
        return [m for batch in self.batches for m in batch]


async def test_each_message_is_saved_once_before_what_depends_on_it() -> None:
    saved = Saved()
    seen_by_tool: list[int] = []
    seen_by_model: list[int] = []

    @tool
    def charge(amount: int) -> str:
        """Charge the card."""
        # The reply that asked for this call was saved before it runs.
        assert isinstance(saved.messages[-1], AssistantMessage)
        seen_by_tool.append(len(saved.messages))
        return f"charged {amount}"

    replies = iter([Reply(calls=[call("charge", amount=5)]), Reply("done")])

    def answer(request: ModelRequest) -> Reply:
        seen_by_model.append(len(saved.messages))
        # Everything the model is shown, bar the history given in, is saved already.
        assert saved.messages == list(request.messages)
        return next(replies)

    new = await agent_loop(
        "charge 5",
        [],
        config(FunctionModel(answer), [charge], execution=Execution(persist=saved)),
    )
    assert seen_by_model == [1, 3]  # the prompt; then the reply and its result too
    assert seen_by_tool == [2]
    assert saved.messages == new[: len(saved.messages)]
    assert [type(m) for m in saved.messages] == [UserMessage, AssistantMessage, ToolResultMessage]
    # The last reply is in what the run returns, for the caller to save.
    assert new[-1].text == "done"


async def test_a_save_that_fails_stops_the_run_before_the_tool_runs() -> None:
    ran: list[int] = []

    @tool
    def charge(amount: int) -> str:
        """Charge the card."""
        ran.append(amount)
        return "charged"

    calls = 0

    async def flaky(messages: Sequence[Message]) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise OSError("disk full")

    model = ScriptedModel([Reply(calls=[call("charge", amount=5)]), Reply("done")])
    run_config = config(model, [charge], execution=Execution(persist=flaky))
    with pytest.raises(OSError, match="disk full"):
        await agent_loop("charge 5", [], run_config)
    assert ran == []
