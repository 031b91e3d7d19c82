"""A run does no work for features that are off: no token counting without a reader
of the count, no events without a listener."""

from __future__ import annotations

from typing import Any

from tests.helpers import CountingCounter, Recorder, config
from tiller import Agent, tool
from tiller.context import ContextBudget, ContextView, MessageTokens
from tiller.events import AgentEnd, AgentEvent, ContextCompacted, ToolExecutionEnd
from tiller.loop import agent_loop
from tiller.loop.options import ContextOptions
from tiller.messages import (
    AssistantMessage,
    Message,
    TextContent,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from tiller.models import Reply, ScriptedModel, call

USAGE = Usage(input_tokens=5_000, output_tokens=10)


class TokenizingModel(ScriptedModel):
    """A scripted model with its own tokenizer, which the counts would use."""

    def __init__(self, steps: list[Any]) -> None:
        super().__init__(steps)
        self.tokenizer_calls = 0

    def count_tokens(self, text: str) -> int:
        self.tokenizer_calls += 1
        return max(1, len(text) // 4)


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def tool_turns(turns: int) -> list[Any]:
    steps: list[Any] = [
        Reply(calls=[call("add", a=i, b=1), call("add", a=i, b=2)], usage=USAGE)
        for i in range(turns)
    ]
    return [*steps, Reply("done", usage=USAGE)]


def long_history(pairs: int) -> list[Message]:
    history: list[Message] = []
    for i in range(pairs):
        history.append(UserMessage.of(f"question {i} " + "words " * 20))
        history.append(AssistantMessage([TextContent(f"answer {i}")], "stop"))
    return history


async def test_a_run_without_a_budget_counts_no_tokens() -> None:
    counter = CountingCounter()
    view = ContextView(tokens=MessageTokens(counter))
    model = ScriptedModel(tool_turns(3))
    new = await agent_loop("add them", [], config(model, [add]), view=view)
    assert new[-1].text == "done"
    assert counter.calls == 0


async def test_an_agent_without_a_budget_never_asks_the_models_tokenizer() -> None:
    model = TokenizingModel(tool_turns(3))
    agent = Agent(model, tools=[add], history=long_history(50))
    result = await agent.run("add them")
    assert result.text == "done"
    assert model.tokenizer_calls == 0


async def test_usage_reported_without_a_budget_still_decides_a_later_budget() -> None:
    """The provider said the history is twice what we estimate; a later run with a
    budget the estimate fits (but the reported size does not) compacts."""
    history = long_history(20)
    estimate = MessageTokens().total(history)
    model = ScriptedModel(
        [Reply("first", usage=Usage(input_tokens=estimate * 2, output_tokens=1)), "second"]
    )
    agent = Agent(model, history=history)
    await agent.run("one")  # no budget: the usage is only noted
    events: list[AgentEvent] = []
    agent.subscribe(events.append)
    budget = ContextOptions(budget=ContextBudget(max_context_tokens=int(estimate * 1.5)))
    await agent.run("two", context=budget)
    assert [e for e in events if isinstance(e, ContextCompacted)]
    assert agent.context_view.tokens.observed == 1


async def test_a_budgeted_run_still_counts() -> None:
    counter = CountingCounter()
    view = ContextView(tokens=MessageTokens(counter))
    model = ScriptedModel(tool_turns(2))
    options = ContextOptions(budget=ContextBudget(max_context_tokens=100_000))
    await agent_loop("add them", [], config(model, [add], context=options), view=view)
    assert counter.calls > 0


class QuietSink(Recorder):
    """A sink that says no one listens."""

    def listening(self) -> bool:
        return False


async def test_a_sink_no_one_listens_to_gets_only_agent_end() -> None:
    sink = QuietSink()
    new = await agent_loop("add them", [], config(ScriptedModel(tool_turns(2)), [add]), sink)
    assert sink.types == ["agent_end"]
    (end,) = sink.of(AgentEnd)
    assert end.messages == new
    assert end.stats.tool_calls == 4


async def test_a_listener_subscribed_during_a_run_hears_what_follows() -> None:
    heard: list[AgentEvent] = []

    @tool
    async def listen() -> str:
        """Start listening."""
        agent.subscribe(heard.append)
        return "listening"

    agent = Agent(
        ScriptedModel([Reply(calls=[call("listen")]), *tool_turns(1)]), tools=[listen, add]
    )
    result = await agent.run("go")
    assert result.text == "done"
    ends = [e for e in heard if isinstance(e, ToolExecutionEnd)]
    assert [e.tool_name for e in ends] == ["listen", "add", "add"]
    assert heard[-1].type == "agent_end"
    assert isinstance(agent.messages[2], ToolResultMessage)
    assert agent.messages[2].content == [TextContent("listening")]
