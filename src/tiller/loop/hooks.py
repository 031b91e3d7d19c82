"""Hooks around each tool execution, and what `before_tool_execution` may answer.

`before_tool_execution(name, call_id, arguments)` returns True/None to allow,
False or `Deny(reason)` to skip the call with an error result, or
`ReplaceArguments(arguments)` to run it with other arguments. Hooks may be
sync or async.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeAlias, TypeVar


@dataclass(slots=True, frozen=True)
class Deny:
    reason: str = ""


@dataclass(slots=True, frozen=True)
class ReplaceArguments:
    arguments: dict[str, Any]


BeforeVerdict: TypeAlias = bool | Deny | ReplaceArguments | None
T = TypeVar("T")
MaybeAwaitable: TypeAlias = T | Awaitable[T]

BeforeToolHook: TypeAlias = Callable[[str, str, dict[str, Any]], MaybeAwaitable[BeforeVerdict]]
AfterToolHook: TypeAlias = Callable[[str, str, bool], MaybeAwaitable[None]]
BeforeUpdateHook: TypeAlias = Callable[[str, str, str], bool]
AfterUpdateHook: TypeAlias = Callable[[str, str, str], None]


async def resolve(value: MaybeAwaitable[T]) -> T:
    if inspect.isawaitable(value):
        return await value
    return value


def hook_failure_text(hook: str, exc: BaseException) -> str:
    """How a result says that a hook raised: the hook's name and the exception."""
    return f"the {hook} hook raised {type(exc).__name__}: {exc}"
