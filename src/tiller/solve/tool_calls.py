"""One tool call made by the solver itself (a direct step, an acceptance check).

It goes through the same rules as a model's call in a run: the governance's
tool policy, dry runs, the rollback journal and the hooks around the call; a
tool that raises, is denied or times out gives an error result, never an
exception.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from tiller.cancellation import CancelToken
from tiller.errors import ToolError
from tiller.loop.hooks import Deny, ReplaceArguments, resolve
from tiller.loop.options import Governance
from tiller.messages import TextContent, ToolResult
from tiller.tools.base import Tool, ToolContext, to_tool_result
from tiller.tools.invocation import dry_run_tool, invoke_tool


async def call_tool(
    tool: Tool,
    arguments: dict[str, Any],
    governance: Governance,
    cancel: CancelToken,
    *,
    dry_run: bool | None = None,
) -> ToolResult:
    """Run `tool` with `arguments` under `governance` (`dry_run` overrides its setting)."""
    call_id = f"solve_{uuid.uuid4().hex[:12]}"
    ctx = ToolContext(call_id, tool.name, cancel)
    hook = governance.before_tool_execution
    try:
        if hook is not None:
            verdict = await resolve(hook(tool.name, call_id, arguments))
            if verdict is False or isinstance(verdict, Deny):
                reason = verdict.reason if isinstance(verdict, Deny) else ""
                return _error(f"the call was denied by a hook{': ' + reason if reason else ''}")
            if isinstance(verdict, ReplaceArguments):
                arguments = verdict.arguments
        if dry_run is True:
            if governance.tool_policy is not None:
                governance.tool_policy.check(tool, tool.name)
            result = await dry_run_tool(tool, arguments, ctx)
        else:
            invocation = invoke_tool(
                tool,
                arguments,
                ctx,
                policy=governance.tool_policy,
                dry_run=governance.dry_run if dry_run is None else dry_run,
                rollbacks=governance.rollbacks,
            )
            timeout = tool.timeout_s
            async with asyncio.timeout(timeout):
                result = to_tool_result(await invocation)
    except TimeoutError:
        ctx.cancel.cancel("timeout")
        result = _error(f"{tool.name!r} timed out after {tool.timeout_s:g}s")
    except ToolError as exc:
        result = _error(str(exc))
    except Exception as exc:
        result = _error(f"{type(exc).__name__}: {exc}")
    finally:
        ctx.release()
    after = governance.after_tool_execution
    if after is not None:
        try:
            await resolve(after(tool.name, call_id, result.is_error))
        except Exception as exc:
            note = TextContent(f"[Error: the tool ran, but the after-hook raised: {exc}]")
            result = ToolResult([*result.content, note], result.details, is_error=True)
    return result


def _error(text: str) -> ToolResult:
    return ToolResult([TextContent(text)], is_error=True)
