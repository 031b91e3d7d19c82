"""The solver's own tool calls follow the governance: policy, hooks, dry runs, rollbacks."""

from __future__ import annotations

import asyncio
from typing import Any

from tiller import CancelToken, RollbackJournal, ToolPolicy, tool
from tiller.loop import Deny, ReplaceArguments
from tiller.loop.options import Governance
from tiller.solve.tool_calls import call_tool
from tiller.tools.effects import ToolEffect

done: list[str] = []


@tool(effect=ToolEffect.WRITE_LOCAL)
def save(text: str) -> str:
    """Save a text."""
    done.append(text)
    return f"saved {text}"


@tool
def broken() -> str:
    """Always fails."""
    raise RuntimeError("disk on fire")


@tool(timeout_s=0.05)
async def slow() -> str:
    """Takes too long."""
    await asyncio.sleep(5)
    return "never"


async def run(target: Any, arguments: dict[str, Any], governance: Governance, **kw: Any) -> Any:
    return await call_tool(target, arguments, governance, CancelToken(), **kw)


async def test_a_plain_call_runs_and_a_denied_one_does_not() -> None:
    done.clear()
    assert (await run(save, {"text": "a"}, Governance())).text == "saved a"
    denied = await run(save, {"text": "b"}, Governance(tool_policy=ToolPolicy(deny={"save"})))
    assert denied.is_error
    assert "deny list" in denied.text
    assert done == ["a"]


async def test_hooks_deny_or_rewrite_and_see_the_outcome() -> None:
    done.clear()
    seen: list[tuple[str, bool]] = []

    def before(name: str, call_id: str, arguments: dict[str, Any]) -> Any:
        if arguments["text"] == "secret":
            return Deny("not that")
        return ReplaceArguments({"text": arguments["text"].upper()})

    governance = Governance(
        before_tool_execution=before,
        after_tool_execution=lambda name, call_id, is_error: seen.append((name, is_error)),
    )
    assert (await run(save, {"text": "x"}, governance)).text == "saved X"
    refused = await run(save, {"text": "secret"}, governance)
    assert refused.is_error
    assert "not that" in refused.text
    assert done == ["X"]
    assert seen == [("save", False)]  # as in a run: a denied call never started


async def test_dry_runs_and_rollbacks() -> None:
    done.clear()
    dry = await run(save, {"text": "y"}, Governance(), dry_run=True)
    assert dry.is_error  # it writes and has no dry run of its own: it is not run
    assert "was not run" in dry.text
    assert done == []
    journal = RollbackJournal()
    await run(save, {"text": "z"}, Governance(rollbacks=journal))
    assert done == ["z"]


async def test_failures_and_timeouts_are_error_results() -> None:
    failed = await run(broken, {}, Governance())
    assert failed.is_error
    assert "disk on fire" in failed.text
    late = await run(slow, {}, Governance())
    assert late.is_error
    assert "timed out" in late.text


async def test_a_raising_after_hook_marks_the_result() -> None:
    def after(name: str, call_id: str, is_error: bool) -> None:
        raise OSError("audit log full")

    result = await run(save, {"text": "w"}, Governance(after_tool_execution=after))
    assert result.is_error
    assert "audit log full" in result.text
    assert "saved w" in result.text
