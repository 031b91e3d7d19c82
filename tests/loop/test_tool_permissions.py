"""Tool policy, dry-run mode and rollback journal, through `execute_single_tool`."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

from tests.helpers import Recorder, config
from tiller import Agent, ToolContext, ToolResult, tool
from tiller.errors import ToolError
from tiller.events import ToolExecutionEnd
from tiller.loop import agent_loop
from tiller.loop.options import Governance
from tiller.messages import ToolResultMessage
from tiller.models import Reply, ScriptedModel, call
from tiller.tools.effects import ToolEffect
from tiller.tools.policy import ToolPolicy
from tiller.tools.rollback import Rollback, RollbackJournal


class Counter:
    """A reversible, dry-runnable tool that writes locally: adds to a shared total."""

    name = "bump"
    description = "Add n to the total."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"n": {"type": "integer"}},
    }
    timeout_s = None
    effect = ToolEffect.WRITE_LOCAL

    def __init__(self) -> None:
        self.total = 0
        self.runs = 0

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        self.runs += 1
        self.total += arguments["n"]
        return ToolResult.of(f"total {self.total}")

    async def dry_run(self, arguments: dict[str, Any]) -> ToolResult:
        return ToolResult.of(f"would add {arguments['n']} to {self.total}")

    async def prepare_rollback(self, arguments: dict[str, Any]) -> Rollback:
        if arguments["n"] < 0:
            raise ToolError("negative amounts cannot be undone; not run")
        before = self.total

        async def undo() -> None:
            self.total = before

        return Rollback(f"total back to {before}", undo)


ran: list[str] = []


@tool(effect="read")
def peek() -> str:
    """Look at something."""
    ran.append("peek")
    return "seen"


@tool
def launch() -> str:
    """Does something outside (declares no effect)."""
    ran.append("launch")
    return "launched"


def results(messages: list[Any]) -> list[ToolResultMessage]:
    return [m for m in messages if isinstance(m, ToolResultMessage)]


async def run(calls: list[Any], tools: list[Any], **kw: Any) -> tuple[list[Any], Recorder]:
    model = ScriptedModel([Reply(calls=calls), Reply("done")])
    rec = Recorder()
    new = await agent_loop("go", [], config(model, tools, **kw), rec)
    model.assert_complete()
    return new, rec


async def test_denied_calls_become_error_results_naming_the_policy() -> None:
    ran.clear()
    policy = ToolPolicy("read-only", allow_effects={"read"})
    new, rec = await run(
        [call("peek"), call("launch")], [peek, launch], governance=Governance(tool_policy=policy)
    )
    allowed, denied = results(new)
    assert (allowed.is_error, allowed.text) == (False, "seen")
    assert denied.is_error
    assert denied.text.startswith(
        "Tool call denied by tool policy 'read-only': 'launch' acts externally, "
        "and the policy allows only: read."
    )
    assert ran == ["peek"]  # the denied tool never ran
    ends = {e.tool_name: e.is_error for e in rec.of(ToolExecutionEnd)}
    assert ends == {"peek": False, "launch": True}


async def test_dry_run_describes_runs_reads_and_refuses_the_rest() -> None:
    ran.clear()
    counter = Counter()
    new, _ = await run(
        [call("bump", n=2), call("peek"), call("launch")],
        [counter, peek, launch],
        governance=Governance(dry_run=True),
    )
    bumped, peeked, launched = results(new)
    assert (bumped.is_error, bumped.text) == (False, "[dry run] would add 2 to 0")
    assert counter.runs == 0
    assert counter.total == 0
    assert (peeked.is_error, peeked.text) == (False, "seen")
    assert launched.is_error
    assert "'launch' was not run: it acts externally and has no dry run" in launched.text
    assert ran == ["peek"]


async def test_rollbacks_are_recorded_before_the_tool_runs_and_undo_it() -> None:
    counter = Counter()
    journal = RollbackJournal()
    new, _ = await run(
        [call("bump", n=2, id="c1"), call("bump", n=3, id="c2")],
        [counter],
        governance=Governance(rollbacks=journal),
    )
    assert counter.total == 5
    assert [(e.tool_call_id, e.arguments) for e in journal.entries] == [
        ("c1", {"n": 2}),
        ("c2", {"n": 3}),
    ]
    assert not any(r.is_error for r in results(new))
    assert await journal.roll_back() == []
    assert counter.total == 0


async def test_a_rollback_that_cannot_be_prepared_stops_the_call() -> None:
    counter = Counter()
    journal = RollbackJournal()
    new, _ = await run([call("bump", n=-1)], [counter], governance=Governance(rollbacks=journal))
    (result,) = results(new)
    assert result.is_error
    assert "cannot be undone" in result.text
    assert counter.runs == 0
    assert len(journal) == 0


async def test_without_a_journal_nothing_is_prepared() -> None:
    counter = Counter()
    await run([call("bump", n=-1)], [counter])  # prepare_rollback would refuse this
    assert counter.total == -1


async def test_agent_passes_policy_dry_run_and_journal_to_each_run() -> None:
    counter = Counter()
    journal = RollbackJournal()
    model = ScriptedModel(
        [Reply(calls=[call("bump", n=1)]), Reply("ok"), Reply(calls=[call("bump", n=4)]), Reply("")]
    )
    agent = Agent(model, tools=[counter], governance=Governance(rollbacks=journal))
    await agent.run("one")
    agent.governance = replace(
        agent.governance, tool_policy=ToolPolicy("frozen", deny_effects={"write_local"})
    )
    result = await agent.run("two")
    denied = results(result.messages)[0]
    assert denied.is_error
    assert "tool policy 'frozen'" in denied.text
    assert counter.total == 1
    assert len(journal) == 1

    dry = Agent(ScriptedModel([Reply(calls=[call("bump", n=9)]), Reply("")]), tools=[counter])
    dry.governance = Governance(dry_run=True)
    result = await dry.run("three")
    assert results(result.messages)[0].text == "[dry run] would add 9 to 1"
    assert counter.total == 1
