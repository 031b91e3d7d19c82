"""Test doubles and guards for code built on Tiller.

`ScriptedModel` and `FunctionModel` stand in for a real model in tests;
`block_network_models()` makes any network-backed model raise.
"""

from tiller.models.function import FunctionModel
from tiller.models.guard import block_network_models, ensure_network_allowed
from tiller.models.scripted import Fail, Reply, ScriptedModel, call

__all__ = [
    "Fail",
    "FunctionModel",
    "Reply",
    "ScriptedModel",
    "block_network_models",
    "call",
    "ensure_network_allowed",
]
