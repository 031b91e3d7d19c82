"""Sub-agents run under their parent's governance, narrowed by their own, however deep."""

from __future__ import annotations

import inspect
from typing import Any, ClassVar

import pytest

from tiller import Agent, Governance, RollbackJournal, SubAgentTool, ToolPolicy, tool
from tiller.events import AgentEvent, InputRejected
from tiller.filters import Pass, Reject
from tiller.loop import Deny, Limits, ReplaceArguments
from tiller.loop.options import Execution
from tiller.messages import TextContent, ToolResult, ToolResultMessage
from tiller.testing import Reply, ScriptedModel, call
from tiller.tools.rollback import Rollback

ran: list[str] = []


@tool
def shell(command: str) -> str:
    """Run a command."""
    ran.append(command)
    return f"ran {command}"


@tool
def peek(path: str) -> str:
    """Read a file."""
    ran.append(f"peek {path}")
    return f"contents of {path}"


def results(messages: list[Any]) -> list[ToolResultMessage]:
    return [m for m in messages if isinstance(m, ToolResultMessage)]


def grandchild_calling(*calls: Any, tools: list[Any], **grandchild: Any) -> SubAgentTool:
    """A child whose only tool is a grandchild that makes `calls`."""
    grand = SubAgentTool(
        "grandchild",
        "Does the work.",
        ScriptedModel([Reply(calls=list(calls)), "grandchild done"]),
        tools=tools,
        **grandchild,
    )
    return SubAgentTool(
        "child",
        "Delegates.",
        ScriptedModel([Reply(calls=[call("grandchild", task="work")]), "child done"]),
        tools=[grand],
    )


def parent(child: SubAgentTool, governance: Governance | None = None) -> Agent:
    model = ScriptedModel([Reply(calls=[call("child", task="delegate")]), "parent done"])
    return Agent(model, tools=[child], governance=governance)


@pytest.fixture(autouse=True)
def _clear() -> None:
    ran.clear()


async def test_a_parents_denial_and_hook_reach_a_grandchild() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    def audit(name: str, call_id: str, arguments: dict[str, Any]) -> None:
        seen.append((name, arguments))

    events: list[AgentEvent] = []
    agent = parent(
        grandchild_calling(
            call("shell", command="rm -rf /"), call("peek", path="a"), tools=[shell, peek]
        ),
        Governance(tool_policy=ToolPolicy("no-shell", deny={"shell"}), before_tool_execution=audit),
    )
    agent.subscribe(events.append)
    result = await agent.run("go")

    assert result.text == "parent done"
    assert ran == ["peek a"]  # the shell call never ran, three levels down
    grand_results = [
        e.result.text
        for e in events
        if getattr(e, "tool_name", None) == "shell" and hasattr(e, "result")
    ]
    assert len(grand_results) == 1
    assert "tool policy 'no-shell'" in grand_results[0]
    # The parent's hook saw every call at every level, with its arguments.
    assert [name for name, _ in seen] == ["child", "grandchild", "shell", "peek"]
    assert seen[2][1] == {"command": "rm -rf /"}


async def test_a_parents_hook_can_deny_or_rewrite_a_grandchilds_call() -> None:
    def guard(name: str, call_id: str, arguments: dict[str, Any]) -> Any:
        if name == "shell":
            return Deny("no commands today")
        if name == "peek":
            return ReplaceArguments({"path": "safe.txt"})
        return None

    agent = parent(
        grandchild_calling(
            call("shell", command="ls"), call("peek", path="secret"), tools=[shell, peek]
        ),
        Governance(before_tool_execution=guard),
    )
    await agent.run("go")
    assert ran == ["peek safe.txt"]


async def test_a_child_can_narrow_its_parents_governance_but_never_widen_it() -> None:
    # The child's own policy denies what the parent allows: denied.
    narrowing = grandchild_calling(
        call("peek", path="a"),
        tools=[peek],
        governance=Governance(tool_policy=ToolPolicy("child-no-peek", deny={"peek"})),
    )
    await parent(narrowing).run("go")
    assert ran == []

    # The child's own policy allows what the parent denies: still denied.
    widening = grandchild_calling(
        call("shell", command="ls"),
        tools=[shell],
        governance=Governance(tool_policy=ToolPolicy("allow-shell", allow={"shell"})),
    )
    await parent(widening, Governance(tool_policy=ToolPolicy("no-shell", deny={"shell"}))).run("go")
    assert ran == []

    # A child's dry_run=False does not undo a parent's dry run.
    dry = grandchild_calling(
        call("shell", command="ls"), tools=[shell], governance=Governance(dry_run=False)
    )
    await parent(dry, Governance(dry_run=True)).run("go")
    assert ran == []


async def test_both_hooks_apply_the_parents_first() -> None:
    order: list[str] = []

    def outer(name: str, call_id: str, arguments: dict[str, Any]) -> Any:
        order.append(f"parent {name}")
        return ReplaceArguments({"path": arguments["path"] + ".parent"}) if name == "peek" else None

    def inner(name: str, call_id: str, arguments: dict[str, Any]) -> Any:
        order.append(f"child {name} {arguments.get('path')}")
        return ReplaceArguments({"path": arguments["path"] + ".child"})

    after: list[str] = []
    child = grandchild_calling(
        call("peek", path="x"),
        tools=[peek],
        governance=Governance(
            before_tool_execution=inner,
            after_tool_execution=lambda name, call_id, is_error: after.append(f"child {name}"),
        ),
    )
    agent = parent(
        child,
        Governance(
            before_tool_execution=outer,
            after_tool_execution=lambda name, call_id, is_error: after.append(f"parent {name}"),
        ),
    )
    await agent.run("go")
    assert ran == ["peek x.parent.child"]
    assert order[-2:] == ["parent peek", "child peek x.parent"]
    assert after[:2] == ["child peek", "parent peek"]


async def test_a_parents_input_filters_check_a_sub_agents_task() -> None:
    class NoSecrets:
        def filter(self, text: str) -> Pass | Reject:
            return Reject("mentions a secret") if "secret" in text else Pass()

    helper = SubAgentTool("helper", "Helps.", ScriptedModel(["never"]))
    model = ScriptedModel([Reply(calls=[call("helper", task="the secret plan")]), "done"])
    events: list[AgentEvent] = []
    agent = Agent(model, tools=[helper], governance=Governance(input_filters=[NoSecrets()]))
    agent.subscribe(events.append)
    result = await agent.run("plan it")  # the parent's own prompt passes
    assert [e.reason for e in events if isinstance(e, InputRejected)] == ["mentions a secret"]
    assert results(result.messages)[0].is_error


async def test_a_sub_agents_reversible_calls_go_in_the_parents_journal() -> None:
    undone: list[str] = []

    class Note:
        name = "note"
        description = "Write a note."
        parameters: ClassVar = {"type": "object", "properties": {"text": {"type": "string"}}}
        timeout_s = None
        effect = "write_local"

        async def execute(self, arguments: dict[str, Any], ctx: Any) -> ToolResult:
            ran.append(arguments["text"])
            return ToolResult([TextContent("noted")])

        async def prepare_rollback(self, arguments: dict[str, Any]) -> Rollback:
            async def forget() -> None:
                undone.append(arguments["text"])

            return Rollback(f"forget {arguments['text']}", forget)

    journal = RollbackJournal()
    own = RollbackJournal()
    child = grandchild_calling(
        call("note", text="hello"), tools=[Note()], governance=Governance(rollbacks=own)
    )
    await parent(child, Governance(rollbacks=journal)).run("go")
    assert ran == ["hello"]
    assert len(journal) == 1
    assert len(own) == 0
    await journal.roll_back()
    assert undone == ["hello"]


async def test_a_run_can_replace_an_option_group_for_that_run_only() -> None:
    model = ScriptedModel(
        [Reply(calls=[call("peek", path="a")]), Reply(calls=[call("peek", path="b")]), "done"]
    )
    agent = Agent(model, tools=[peek])
    short = await agent.run("one", execution=Execution(limits=Limits(max_turns=1)))
    assert short.stats.stopped_by == "max_turns"
    assert agent.execution.limits == Limits()  # the agent's own options are unchanged
    later = await agent.run("two")
    assert later.text == "done"


def test_an_agent_takes_a_handful_of_parameters_and_the_option_groups() -> None:
    parameters = inspect.signature(Agent).parameters
    assert len(parameters) <= 8
    assert {"governance", "context", "execution"} <= set(parameters)
