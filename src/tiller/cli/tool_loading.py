"""Loading a user's tools named on the command line as `module:function`."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from tiller.errors import ConfigError
from tiller.tools.base import Tool
from tiller.tools.function_tool import FunctionTool


def load_tool(spec: str) -> Tool:
    """The tool at `module:attribute` (a `@tool` function, a `Tool`, or a plain function)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigError(f"--tool {spec!r}: expected MODULE:FUNCTION, e.g. mytools:search")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"--tool {spec!r}: cannot import module {module_name!r} ({exc})") from exc
    value: Any = module
    for part in attr.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise ConfigError(f"--tool {spec!r}: {module_name} has no attribute {attr!r}") from None
    if isinstance(value, Tool):
        return value
    if callable(value):
        return FunctionTool(value)
    raise ConfigError(f"--tool {spec!r}: {attr!r} is neither a tool nor a function")
