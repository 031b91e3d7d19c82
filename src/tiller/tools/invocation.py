"""Running one tool call under the agent's tool policy, dry-run mode and rollback journal.

The loop's `execute_single_tool` calls `invoke_tool` instead of `tool.execute`,
so these rules hold whatever the execution strategy:

- the policy is checked first; a denied call raises `ToolPolicyDenied` and the
  tool does not run;
- in dry-run mode a tool with `dry_run` describes what it would do; a tool that
  only reads runs as usual (it changes nothing); any other tool is not run and
  the call fails saying so;
- with a journal, a reversible tool's rollback is prepared and recorded before
  the tool runs; if preparing fails, the tool does not run.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from tiller.errors import ToolError
from tiller.messages import TextContent, ToolResult
from tiller.tools.base import Tool, ToolContext
from tiller.tools.effects import ToolEffect, effect_of
from tiller.tools.policy import ToolCheck
from tiller.tools.rollback import RollbackJournal

DRY_RUN_PREFIX = "[dry run] "


def invoke_tool(
    tool: Tool,
    arguments: dict[str, Any],
    ctx: ToolContext,
    *,
    policy: ToolCheck | None = None,
    dry_run: bool = False,
    rollbacks: RollbackJournal | None = None,
) -> Awaitable[ToolResult]:
    """The call to await: `tool.execute` itself when no rule applies (no extra layer)."""
    if policy is None and not dry_run and rollbacks is None:
        return tool.execute(arguments, ctx)
    return _guarded(tool, arguments, ctx, policy, dry_run, rollbacks)


async def _guarded(
    tool: Tool,
    arguments: dict[str, Any],
    ctx: ToolContext,
    policy: ToolCheck | None,
    dry_run: bool,
    rollbacks: RollbackJournal | None,
) -> ToolResult:
    if policy is not None:
        policy.check(tool, ctx.tool_name)
    if dry_run:
        return await dry_run_tool(tool, arguments, ctx)
    if rollbacks is not None:
        prepare = getattr(tool, "prepare_rollback", None)
        if prepare is not None:
            rollback = await prepare(arguments)
            if rollback is not None:
                rollbacks.record(ctx.tool_call_id, ctx.tool_name, arguments, rollback)
    return await tool.execute(arguments, ctx)


async def dry_run_tool(tool: Tool, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """What the call would do, without doing it (see the module docstring for the rules)."""
    dry_run = getattr(tool, "dry_run", None)
    if dry_run is not None:
        result: ToolResult = await dry_run(arguments)
        return _prefixed(result)
    effect = effect_of(tool)
    if effect is ToolEffect.READ:
        return await tool.execute(arguments, ctx)
    raise ToolError(
        f"Dry run: {ctx.tool_name!r} was not run: it {effect.phrase} and has no dry run, "
        "so what it would do cannot be shown without doing it."
    )


def _prefixed(result: ToolResult) -> ToolResult:
    content = list(result.content)
    if content and isinstance(content[0], TextContent):
        content[0] = TextContent(DRY_RUN_PREFIX + content[0].text)
    else:
        content.insert(0, TextContent(DRY_RUN_PREFIX.strip()))
    return ToolResult(content, result.details, result.child_loop_id)
