"""Loading the tools named on the command line: `module:function` and built-ins by name."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence, Set
from dataclasses import dataclass
from typing import Any, Literal

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


def load_builtin_tools(
    specs: Sequence[str],
    workspace: str | None,
    *,
    taken: Set[str] = frozenset(),
    shell: ShellChoices | None = None,
) -> list[Tool]:
    """The built-in tools named in `specs` (each comma-separated), confined to `workspace`."""
    names = [name.strip() for spec in specs for name in spec.split(",") if name.strip()]
    if not names:
        if workspace is not None:
            raise ConfigError(
                "--workspace is for built-in tools: add --tools, e.g. --tools read_file"
            )
        return []
    from tiller.tools.builtin import builtin_tools

    for name in names:
        if name in taken:
            raise ConfigError(f"--tools {name}: a --tool of that name is already loaded")
    from tiller.tools.builtin.sandbox import Sandbox

    shell = shell or ShellChoices()
    sandbox: Sandbox | Literal[False] = (
        False if shell.unsandboxed else Sandbox(network=shell.network)
    )
    try:
        return builtin_tools(
            names,
            workspace or os.getcwd(),
            shell_sandbox=sandbox,
            shell_env_allow=shell.env_allow,
        )
    except ConfigError as exc:
        if "shell" in names and "bubblewrap" in str(exc):
            raise ConfigError(f"{exc} (from the command line: --unsandboxed-shell)") from None
        raise


@dataclass(frozen=True, slots=True)
class ShellChoices:
    """How the command line asked the built-in `shell` to run commands."""

    unsandboxed: bool = False
    network: bool = False
    env_allow: tuple[str, ...] = ()
