"""builtin_tools(): opt-in by name; through an agent, refusals are error results the model reads."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tiller import Agent
from tiller.errors import ConfigError
from tiller.loop.options import Governance
from tiller.messages import ToolResultMessage
from tiller.models import Reply, ScriptedModel, call
from tiller.tools.builtin import BUILTIN_TOOLS, builtin_tools
from tiller.tools.effects import ToolEffect, effect_of, supports_dry_run
from tiller.tools.policy import ToolPolicy
from tiller.tools.rollback import Reversible, RollbackJournal


def test_tools_are_made_by_name_in_order_once(root: Path) -> None:
    tools = builtin_tools(["shell", "read_file", " shell", ""], root)
    assert [t.name for t in tools] == ["shell", "read_file"]
    assert [t.name for t in builtin_tools(BUILTIN_TOOLS, root)] == list(BUILTIN_TOOLS)


def test_an_unknown_name_lists_the_known_ones(root: Path) -> None:
    with pytest.raises(ConfigError, match=r"unknown built-in tool 'rm'; the built-in tools are: "):
        builtin_tools(["rm"], root)


def test_declared_effects_dry_run_and_rollback(root: Path) -> None:
    tools = {t.name: t for t in builtin_tools(BUILTIN_TOOLS, root)}
    assert {n: effect_of(t) for n, t in tools.items()} == {
        "read_file": ToolEffect.READ,
        "write_file": ToolEffect.WRITE_LOCAL,
        "edit_file": ToolEffect.WRITE_LOCAL,
        "list_files": ToolEffect.READ,
        "search": ToolEffect.READ,
        "shell": ToolEffect.EXTERNAL,
    }
    assert {n for n, t in tools.items() if supports_dry_run(t)} == {"write_file", "edit_file"}
    assert {n for n, t in tools.items() if isinstance(t, Reversible)} == {
        "write_file",
        "edit_file",
    }


async def test_refusals_reach_the_model_as_error_results(root: Path) -> None:
    model = ScriptedModel(
        [
            Reply(
                calls=[
                    call("read_file", path="../outside/secret.txt"),
                    call("read_file", path="missing.txt"),
                    call("shell", command="echo hi"),
                ]
            ),
            Reply("done"),
        ]
    )
    policy = ToolPolicy("no-commands", deny_effects={"external"})
    agent = Agent(
        model,
        tools=builtin_tools(["read_file", "shell"], root),
        governance=Governance(tool_policy=policy),
    )
    result = await agent.run("go")
    escaped, missing, denied = [m for m in result.messages if isinstance(m, ToolResultMessage)]
    assert escaped.is_error
    assert "leaves the workspace with '..'" in escaped.text
    assert missing.is_error
    assert "No file 'missing.txt'" in missing.text
    assert denied.is_error
    assert denied.text.startswith("Tool call denied by tool policy 'no-commands'")


async def test_an_agent_run_can_be_rolled_back(root: Path) -> None:
    (root / "notes.txt").write_text("draft\n")
    model = ScriptedModel(
        [
            Reply(
                calls=[
                    call("edit_file", path="notes.txt", old_text="draft", new_text="final"),
                    call("write_file", path="new/readme.md", content="# hi\n"),
                ]
            ),
            Reply("done"),
        ]
    )
    journal = RollbackJournal()
    agent = Agent(
        model,
        tools=builtin_tools(["edit_file", "write_file"], root),
        governance=Governance(rollbacks=journal),
    )
    await agent.run("go")
    assert (root / "notes.txt").read_text() == "final\n"
    assert (root / "new" / "readme.md").exists()
    assert await journal.roll_back() == []
    assert (root / "notes.txt").read_text() == "draft\n"
    assert not (root / "new").exists()


async def test_a_tool_denied_by_name_does_not_run(root: Path) -> None:
    model = ScriptedModel(
        [Reply(calls=[call("write_file", path="a.txt", content="x")]), Reply("done")]
    )
    policy = ToolPolicy("no-writes", deny={"write_file"})
    agent = Agent(
        model, tools=builtin_tools(["write_file"], root), governance=Governance(tool_policy=policy)
    )
    result = await agent.run("go")
    (denied,) = [m for m in result.messages if isinstance(m, ToolResultMessage)]
    assert denied.is_error
    assert "tool policy 'no-writes'" in denied.text
    assert "'write_file' is on its deny list" in denied.text
    assert not (root / "a.txt").exists()


async def test_a_dry_run_shows_the_edits_and_changes_nothing(root: Path) -> None:
    (root / "notes.txt").write_text("draft\n")
    model = ScriptedModel(
        [
            Reply(
                calls=[
                    call("edit_file", path="notes.txt", old_text="draft", new_text="final"),
                    call("write_file", path="new.txt", content="hello\n"),
                    call("read_file", path="notes.txt"),
                ]
            ),
            Reply("done"),
        ]
    )
    tools = builtin_tools(["edit_file", "write_file", "read_file"], root)
    agent = Agent(model, tools=tools, governance=Governance(dry_run=True))
    result = await agent.run("go")
    edit, write, read = [m for m in result.messages if isinstance(m, ToolResultMessage)]
    assert "-draft" in edit.text
    assert "+final" in edit.text
    assert "new.txt" in write.text
    assert "draft" in read.text  # reading tools run as usual
    assert (root / "notes.txt").read_text() == "draft\n"
    assert not (root / "new.txt").exists()


async def test_names_that_are_not_utf8_never_put_a_surrogate_in_a_result(root: Path) -> None:
    # A name with byte 0xE9 (latin-1 'é') listed, read back by the name shown, written, and
    # a missing one: every result the model gets is plain UTF-8 text.
    (root / os.fsdecode(b"caf\xe9.txt")).write_bytes(b"caf\xe9 au lait\n")
    model = ScriptedModel(
        [
            Reply(
                calls=[
                    call("list_files"),
                    call("read_file", path="caf\\xe9.txt"),
                    call("write_file", path="caf\\xe9-2.txt", content="ok\n"),
                    call("read_file", path="gone\\xff.txt"),
                ]
            ),
            Reply("done"),
        ]
    )
    agent = Agent(model, tools=builtin_tools(["list_files", "read_file", "write_file"], root))
    result = await agent.run("go")
    listed, read, written, missing = [
        m for m in result.messages if isinstance(m, ToolResultMessage)
    ]
    assert listed.text == "caf\\xe9.txt"
    assert read.text.startswith("caf\ufffd au lait\n")
    assert written.text == "Wrote 3 bytes (1 line) to 'caf\\xe9-2.txt' (new file)."
    assert missing.is_error
    assert "No file 'gone\\xff.txt'" in missing.text
    for message in (listed, read, written, missing):
        json.dumps(message.text, ensure_ascii=False).encode("utf-8")
    assert sorted(os.listdir(os.fsencode(root))) == [b"caf\xe9-2.txt", b"caf\xe9.txt"]
