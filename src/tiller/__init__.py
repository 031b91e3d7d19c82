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
    "SubAgentTool": "tiller.tools",
    "MCPConnection": "tiller.tools",
    "ToolResult": "tiller.messages",
    "builtin_tools": "tiller.tools.builtin",
    "Workspace": "tiller.tools.workspace",
    "ToolPolicy": "tiller.tools.policy",
    "ToolEffect": "tiller.tools.effects",
    "Rollback": "tiller.tools.rollback",
    "RollbackJournal": "tiller.tools.rollback",
    # models
    "Model": "tiller.models",
    "ModelRequest": "tiller.models",
    "ModelSettings": "tiller.models",
    "RetryPolicy": "tiller.models",
    "ScriptedModel": "tiller.models",
    "FunctionModel": "tiller.models",
    "FallbackModel": "tiller.models",
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
    from tiller.agent import (
        Agent as Agent,
    )
    from tiller.agent import (
        RunFailedError as RunFailedError,
    )
    from tiller.agent import (
        RunResult as RunResult,
    )
    from tiller.cancellation import CancelToken as CancelToken
    from tiller.context import ContextConfig as ContextConfig
    from tiller.loop import (
        Batched as Batched,
    )
    from tiller.loop import (
        Deny as Deny,
    )
    from tiller.loop import (
        Limits as Limits,
    )
    from tiller.loop import (
        LoopConfig as LoopConfig,
    )
    from tiller.loop import (
        Parallel as Parallel,
    )
    from tiller.loop import (
        Pass as Pass,
    )
    from tiller.loop import (
        Reject as Reject,
    )
    from tiller.loop import (
        RepetitionPolicy as RepetitionPolicy,
    )
    from tiller.loop import (
        ReplaceArguments as ReplaceArguments,
    )
    from tiller.loop import (
        Sequential as Sequential,
    )
    from tiller.loop import (
        Warn as Warn,
    )
    from tiller.loop import (
        agent_loop as agent_loop,
    )
    from tiller.loop import (
        agent_loop_continue as agent_loop_continue,
    )
    from tiller.messages import (
        AssistantMessage as AssistantMessage,
    )
    from tiller.messages import (
        ExtensionMessage as ExtensionMessage,
    )
    from tiller.messages import (
        ImageContent as ImageContent,
    )
    from tiller.messages import (
        TextContent as TextContent,
    )
    from tiller.messages import (
        ThinkingContent as ThinkingContent,
    )
    from tiller.messages import (
        ToolCall as ToolCall,
    )
    from tiller.messages import (
        ToolResult as ToolResult,
    )
    from tiller.messages import (
        ToolResultMessage as ToolResultMessage,
    )
    from tiller.messages import (
        Usage as Usage,
    )
    from tiller.messages import (
        UserMessage as UserMessage,
    )
    from tiller.models import (
        Fail as Fail,
    )
    from tiller.models import (
        FallbackModel as FallbackModel,
    )
    from tiller.models import (
        FunctionModel as FunctionModel,
    )
    from tiller.models import (
        Model as Model,
    )
    from tiller.models import (
        ModelRequest as ModelRequest,
    )
    from tiller.models import (
        ModelSettings as ModelSettings,
    )
    from tiller.models import (
        Reply as Reply,
    )
    from tiller.models import (
        RetryPolicy as RetryPolicy,
    )
    from tiller.models import (
        ScriptedModel as ScriptedModel,
    )
    from tiller.models import (
        call as call,
    )
    from tiller.tools import (
        FunctionTool as FunctionTool,
    )
    from tiller.tools import (
        MCPConnection as MCPConnection,
    )
    from tiller.tools import (
        SubAgentTool as SubAgentTool,
    )
    from tiller.tools import (
        Tool as Tool,
    )
    from tiller.tools import (
        ToolContext as ToolContext,
    )
    from tiller.tools import (
        tool as tool,
    )
    from tiller.tools.builtin import builtin_tools as builtin_tools
    from tiller.tools.effects import ToolEffect as ToolEffect
    from tiller.tools.policy import ToolPolicy as ToolPolicy
    from tiller.tools.rollback import Rollback as Rollback
    from tiller.tools.rollback import RollbackJournal as RollbackJournal
    from tiller.tools.workspace import Workspace as Workspace
