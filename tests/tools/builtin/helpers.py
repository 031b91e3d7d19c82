"""Calling tools from plain (sync) tests: the files they touch can then be checked directly."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from tiller.cancellation import CancelToken
from tiller.messages import ToolResult
from tiller.tools.base import Tool, ToolContext

T = TypeVar("T")


def context(name: str = "t") -> ToolContext:
    return ToolContext("call_1", name, CancelToken())


def run(tool: Tool, **arguments: Any) -> ToolResult:
    return asyncio.run(tool.execute(arguments, context(tool.name)))


def text(tool: Tool, **arguments: Any) -> str:
    return run(tool, **arguments).text


def wait(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)
