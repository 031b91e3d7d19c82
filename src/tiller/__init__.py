"""Tiller: a fast, trustworthy runtime for LLM agents.

The public API is re-exported here and loaded on first use, so `import tiller`
stays cheap: pydantic, provider SDKs and llama.cpp load only when needed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from tiller._version import __version__

_EXPORTS: dict[str, str] = {
    # agent
    "Agent": "tiller.agent",
    "RunResult": "tiller.agent",
    "RunFailedError": "tiller.agent",
    # loop
    "LoopConfig": "tiller.loop",
    "agent_loop": "tiller.loop",
    "agent_loop_continue": "tiller.loop",
    "Sequential": "tiller.loop",
    "Parallel": "tiller.loop",
    "Batched": "tiller.loop",
    "Limits": "tiller.loop",
    "RepetitionPolicy": "tiller.loop",
    "Deny": "tiller.loop",
    "ReplaceArguments": "tiller.loop",
    "Pass": "tiller.loop",
    "Warn": "tiller.loop",
    "Reject": "tiller.loop",
    # tools
    "tool": "tiller.tools",
    "Tool": "tiller.tools",
    "FunctionTool": "tiller.tools",
    "ToolContext": "tiller.tools",
    "ToolResult": "tiller.messages",
    # models
    "Model": "tiller.models",
    "ModelRequest": "tiller.models",
    "ModelSettings": "tiller.models",
    "RetryPolicy": "tiller.models",
    "ScriptedModel": "tiller.models",
    "FunctionModel": "tiller.models",
    "Reply": "tiller.models",
    "Fail": "tiller.models",
    "call": "tiller.models",
    # context
    "ContextConfig": "tiller.context",
    # messages
    "UserMessage": "tiller.messages",
    "AssistantMessage": "tiller.messages",
    "ToolResultMessage": "tiller.messages",
    "ExtensionMessage": "tiller.messages",
    "TextContent": "tiller.messages",
    "ImageContent": "tiller.messages",
    "ThinkingContent": "tiller.messages",
    "ToolCall": "tiller.messages",
    "Usage": "tiller.messages",
    # cancellation
    "CancelToken": "tiller.cancellation",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tiller' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:
    from tiller.agent import Agent, RunFailedError, RunResult
    from tiller.cancellation import CancelToken
    from tiller.context import ContextConfig
    from tiller.loop import (
        Batched,
        Deny,
        Limits,
        LoopConfig,
        Parallel,
        Pass,
        Reject,
        RepetitionPolicy,
        ReplaceArguments,
        Sequential,
        Warn,
        agent_loop,
        agent_loop_continue,
    )
    from tiller.messages import (
        AssistantMessage,
        ExtensionMessage,
        ImageContent,
        TextContent,
        ThinkingContent,
        ToolCall,
        ToolResult,
        ToolResultMessage,
        Usage,
        UserMessage,
    )
    from tiller.models import (
        Fail,
        FunctionModel,
        Model,
        ModelRequest,
        ModelSettings,
        Reply,
        RetryPolicy,
        ScriptedModel,
        call,
    )
    from tiller.tools import FunctionTool, Tool, ToolContext, tool
