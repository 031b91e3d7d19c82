"""Models: the `Model` protocol, test models, retries, and the model registry."""

from tiller.models.base import Model, ModelRequest, ModelSettings, StreamItem, ToolSpec
from tiller.models.function import FunctionModel
from tiller.models.retry import RetryPolicy
from tiller.models.scripted import Fail, Reply, ScriptedModel, call

__all__ = [
    "Fail",
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
]
