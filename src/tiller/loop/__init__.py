"""The agent loop: a function over (messages, config) that emits events."""

from tiller.loop.config import EventSink, LoopConfig
from tiller.loop.filters import InputFilter, Pass, Reject, Warn, apply_input_filters
from tiller.loop.hooks import Deny, ReplaceArguments
from tiller.loop.limits import Limits
from tiller.loop.repetition import RepetitionPolicy
from tiller.loop.run import agent_loop, agent_loop_continue
from tiller.loop.strategies import Batched, ExecutionStrategy, Parallel, Sequential

__all__ = [
    "Batched",
    "Deny",
    "EventSink",
    "ExecutionStrategy",
    "InputFilter",
    "Limits",
    "LoopConfig",
    "Parallel",
    "Pass",
    "Reject",
    "RepetitionPolicy",
    "ReplaceArguments",
    "Sequential",
    "Warn",
    "agent_loop",
    "agent_loop_continue",
    "apply_input_filters",
]
