"""Tiller: a fast, trustworthy runtime for LLM agents.

The public API is re-exported here and loaded on first use, so `import tiller`
stays cheap: pydantic, provider SDKs and llama.cpp load only when needed.
Test doubles are in `tiller.testing`, input filters in `tiller.filters`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tiller._lazy import lazy_exports
from tiller._version import __version__

# The exports: names imported here load on first use (see `tiller._lazy`).
if TYPE_CHECKING:
    from tiller.agent import (
        Agent as Agent,
        RunFailedError as RunFailedError,
        RunResult as RunResult,
        SubAgentTool as SubAgentTool,
    )
    from tiller.cancellation import CancelToken as CancelToken
    from tiller.context import ContextBudget as ContextBudget
    from tiller.loop import (
        Batched as Batched,
        Deny as Deny,
        Limits as Limits,
        LoopConfig as LoopConfig,
        Parallel as Parallel,
        RepetitionPolicy as RepetitionPolicy,
        ReplaceArguments as ReplaceArguments,
        Sequential as Sequential,
        agent_loop as agent_loop,
        agent_loop_continue as agent_loop_continue,
    )
    from tiller.loop.options import (
        ContextOptions as ContextOptions,
        Execution as Execution,
        Governance as Governance,
    )
    from tiller.messages import (
        AssistantMessage as AssistantMessage,
        ExtensionMessage as ExtensionMessage,
        ImageContent as ImageContent,
        TextContent as TextContent,
        ThinkingContent as ThinkingContent,
        ToolCall as ToolCall,
        ToolResult as ToolResult,
        ToolResultMessage as ToolResultMessage,
        Usage as Usage,
        UserMessage as UserMessage,
    )
    from tiller.models import (
        FallbackModel as FallbackModel,
        FunctionModel as FunctionModel,
        Model as Model,
        ModelRequest as ModelRequest,
        ModelSettings as ModelSettings,
        RetryPolicy as RetryPolicy,
        ScriptedModel as ScriptedModel,
    )
    from tiller.tools import (
        FunctionTool as FunctionTool,
        MCPConnection as MCPConnection,
        Tool as Tool,
        ToolContext as ToolContext,
        tool as tool,
    )
    from tiller.tools.builtin import builtin_tools as builtin_tools
    from tiller.tools.effects import ToolEffect as ToolEffect
    from tiller.tools.policy import ToolPolicy as ToolPolicy
    from tiller.tools.rollback import Rollback as Rollback, RollbackJournal as RollbackJournal
    from tiller.tools.workspace import Workspace as Workspace

__getattr__, __dir__, _exports = lazy_exports(__name__, __file__)
__all__ = ["__version__", *_exports]
