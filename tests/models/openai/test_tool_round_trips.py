"""Tool calls through a real `Agent` on both OpenAI protocols: the server answers
correctly only if each result came back under the id of the call it answers."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.helpers import Recorder
from tests.models.openai.conftest import FAST_RETRY
from tests.models.openai.wire import WIRES, Call, Wire
from tests.servers.openai_api import OpenAIServer, Recorded, Stream
from tiller import Agent, tool
from tiller.events import ToolExecutionEnd
from tiller.loop.options import Execution

pytestmark = pytest.mark.parametrize("wire", WIRES, ids=lambda w: w.name)


@tool
def vault(key: str) -> str:
    """Read a secret from the vault.

    Args:
        key: Which secret.
    """
    return f"secret-of-{key}"


def answer_from_results(wire: Wire, expected: dict[str, str]) -> Callable[[Recorded], Stream]:
    """A plan that reads the tool results out of the request, by call id."""

    def plan(recorded: Recorded) -> Stream:
        found = {call_id: wire.tool_output(recorded.body, call_id) for call_id in expected}
        if found != expected:
            return wire.text(f"WRONG: got {found}")
        return wire.text(" and ".join(found[call_id] or "" for call_id in expected))

    return plan


async def test_tool_round_trip_with_the_right_call_id(wire: Wire, server: OpenAIServer) -> None:
    server.add(
        wire.calls(Call("call_Zq81", "vault", ('{"ke', 'y": "al', 'pha"}')), text="Looking."),
        answer_from_results(wire, {"call_Zq81": "secret-of-alpha"}),
    )
    bot = Agent(wire.model(server), tools=[vault], execution=Execution(retry=FAST_RETRY))
    events = Recorder()
    bot.subscribe(events)
    result = await bot.run("What is the alpha secret?")
    assert result.text == "secret-of-alpha"
    (end,) = events.of(ToolExecutionEnd)
    assert (end.tool_call_id, end.is_error) == ("call_Zq81", False)
    assert wire.replayed_arguments(server.requests[1].body, "call_Zq81") == '{"key": "alpha"}'


async def test_parallel_calls_answer_in_order_under_their_own_ids(
    wire: Wire, server: OpenAIServer
) -> None:
    server.add(
        wire.calls(
            Call("call_A", "vault", ('{"key":', ' "one"}')),
            Call("call_B", "vault", ('{"key": "t', 'wo"}')),
        ),
        answer_from_results(wire, {"call_A": "secret-of-one", "call_B": "secret-of-two"}),
    )
    bot = Agent(wire.model(server), tools=[vault], execution=Execution(retry=FAST_RETRY))
    result = await bot.run("Both secrets?")
    assert result.text == "secret-of-one and secret-of-two"
    body = server.requests[1].body
    outputs = (
        [m for m in body["messages"] if m["role"] == "tool"]
        if wire.name == "chat"
        else [i for i in body["input"] if i.get("type") == "function_call_output"]
    )
    ids = [o.get("tool_call_id") or o.get("call_id") for o in outputs]
    assert ids == ["call_A", "call_B"]


async def test_a_wrong_id_would_be_noticed(wire: Wire, server: OpenAIServer) -> None:
    """The plan above is a real check: a result under another id gets the WRONG answer."""
    server.add(
        wire.calls(Call("call_real", "vault", ('{"key": "x"}',))),
        answer_from_results(wire, {"call_other": "secret-of-x"}),
    )
    bot = Agent(wire.model(server), tools=[vault], execution=Execution(retry=FAST_RETRY))
    assert (await bot.run("x")).text.startswith("WRONG")
