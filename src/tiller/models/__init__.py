"""Models: the `Model` protocol, test models, retries, circuit breakers, fallbacks, and
the model registry."""

from tiller.models.base import Model, ModelRequest, ModelSettings, StreamItem, ToolSpec
from tiller.models.circuit_breaker import (
    CircuitBreaker,
    CircuitBreakerSettings,
    circuit_breakers,
    with_circuit_breaker,
)
from tiller.models.fallback import FallbackModel
from tiller.models.function import FunctionModel
from tiller.models.registry import register_provider, resolve_model
from tiller.models.retry import RetryPolicy
from tiller.models.scripted import Fail, Reply, ScriptedModel, call

__all__ = [
    "CircuitBreaker",
    "CircuitBreakerSettings",
    "Fail",
    "FallbackModel",
    "FunctionModel",
    "Model",
    "ModelRequest",
    "ModelSettings",
    "Reply",
    "RetryPolicy",
    "ScriptedModel",
    "StreamItem",
    "ToolSpec",
    "call",
    "circuit_breakers",
    "register_provider",
    "resolve_model",
    "with_circuit_breaker",
]
