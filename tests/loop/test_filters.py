"""The input filter chain."""

from __future__ import annotations

from tests.helpers import Recorder, config
from tiller.events import AgentEnd, InputRejected
from tiller.loop import Pass, Reject, Warn, agent_loop, apply_input_filters
from tiller.loop.filters import PassWithWarnings, Rejected
from tiller.loop.options import Governance
from tiller.messages import TextContent, UserMessage
from tiller.models import ScriptedModel


class NoSecrets:
    def filter(self, text: str) -> Pass | Warn | Reject:
        return Reject("contains a secret") if "password" in text else Pass()


def shouting(text: str) -> Pass | Warn | Reject:
    return Warn("the input is all capitals") if text.isupper() else Pass()


def test_first_reject_wins_and_discards_warnings() -> None:
    assert apply_input_filters([shouting, NoSecrets()], "hello") == Pass()
    assert apply_input_filters([shouting, NoSecrets()], "my password") == Rejected(
        "contains a secret"
    )
    assert apply_input_filters([shouting, lambda t: Reject("no")], "LOUD") == Rejected("no")


def test_warnings_accumulate_in_order() -> None:
    result = apply_input_filters([shouting, lambda t: Warn("second")], "LOUD")
    assert result == PassWithWarnings(["the input is all capitals", "second"])


async def test_a_rejected_input_leaves_history_untouched_and_still_ends() -> None:
    model = ScriptedModel(["never"])
    rec = Recorder()
    history = [UserMessage.of("earlier")]
    new = await agent_loop(
        "my password is hunter2",
        history,
        config(model, governance=Governance(input_filters=[NoSecrets()])),
        rec,
    )
    assert new == []
    assert model.requests == []
    assert rec.types == ["agent_start", "input_rejected", "agent_end"]
    assert rec.of(InputRejected)[0].reason == "contains a secret"
    stats = rec.of(AgentEnd)[0].stats
    assert stats.stopped_by == "input_rejected"


async def test_warnings_are_appended_to_the_last_prompt() -> None:
    model = ScriptedModel(["ok"])
    await agent_loop("HELLO", [], config(model, governance=Governance(input_filters=[shouting])))
    prompt = model.requests[0].messages[-1]
    assert isinstance(prompt, UserMessage)
    assert prompt.content == [
        TextContent("HELLO"),
        TextContent("[Warning: the input is all capitals]"),
    ]
