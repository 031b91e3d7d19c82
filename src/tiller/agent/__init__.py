"""The stateful `Agent`, the `RunResult` of a run, and `SubAgentTool`."""

from tiller.agent.agent import Agent
from tiller.agent.result import RunFailedError, RunResult
from tiller.agent.subagent import SubAgentTool

__all__ = ["Agent", "RunFailedError", "RunResult", "SubAgentTool"]
