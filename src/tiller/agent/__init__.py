"""The stateful `Agent` and the `RunResult` of a run."""

from tiller.agent.agent import Agent
from tiller.agent.result import RunFailedError, RunResult

__all__ = ["Agent", "RunFailedError", "RunResult"]
