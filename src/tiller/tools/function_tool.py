"""`@tool`: a tool from a type-hinted function, sync or async.

The name is the function's, the description its docstring, and the argument
schema comes from the signature (`Annotated[int, Field(description=...)]` and
Google-style `Args:` sections are honoured). A parameter annotated `ToolContext`
receives the context and is hidden from the model. Arguments are validated with
pydantic before the call; sync functions run in a worker thread.

The pydantic model is built on first use, so decorating costs nothing at import.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import typing
from collections.abc import Callable
from typing import Any, overload

from tiller.errors import ConfigError
from tiller.messages import ToolResult
from tiller.tools.base import Tool, ToolContext, to_tool_result
from tiller.tools.effects import ToolEffect

_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters):\s*$", re.MULTILINE)
_SECTION_HEADER = re.compile(r"^\s*[A-Z][A-Za-z ]*:\s*$")


class ArgumentsInvalid(Exception):
    """Arguments that failed the schema; the text tells the model what to fix."""


class FunctionTool:
    """A `Tool` backed by a Python function."""

    def __init__(
        self,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        timeout_s: float | None = None,
        effect: ToolEffect | str | None = None,
    ) -> None:
        self.function = function
        # Undeclared tools count as acting externally (see `tiller.tools.effects`).
        self.effect = ToolEffect(effect) if effect is not None else None
        self._name = name or function.__name__
        summary, self._param_docs = _parse_docstring(inspect.getdoc(function) or "")
        self._description = description if description is not None else summary
        self._timeout_s = timeout_s
        self._is_async = inspect.iscoroutinefunction(function)
        self._built: tuple[type[Any], dict[str, Any], str | None] | None = None
        self._scalars: list[_Scalar] | None = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return self._description

    @property
    def timeout_s(self) -> float | None:
        return self._timeout_s

    @property
    def parameters(self) -> dict[str, Any]:
        return self._build()[1]

    def __repr__(self) -> str:
        return f"FunctionTool({self._name!r})"

    def _build(self) -> tuple[type[Any], dict[str, Any], str | None]:
        if self._built is None:
            self._built, self._scalars = _built_for(self._name, self.function, self._param_docs)
        return self._built

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Keyword arguments for the function, or `ArgumentsInvalid` saying what is wrong."""
        from pydantic import ValidationError

        model, _, _ = self._build()
        if self._scalars is not None:
            exact = _exact_scalars(self._scalars, arguments)
            if exact is not None:
                return exact
        try:
            validated = model.model_validate(arguments)
        except ValidationError as exc:
            raise ArgumentsInvalid(_describe_errors(self._name, exc)) from None
        return {key: getattr(validated, key) for key in type(validated).model_fields}

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        kwargs = self.validate(arguments)
        context_param = self._build()[2]
        if context_param is not None:
            kwargs[context_param] = ctx
        if self._is_async:
            value = await self.function(**kwargs)
        else:
            value = await asyncio.to_thread(self.function, **kwargs)
        return to_tool_result(value)


@overload
def tool(function: Callable[..., Any], /) -> FunctionTool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    timeout_s: float | None = None,
    effect: ToolEffect | str | None = None,
) -> Callable[[Callable[..., Any]], FunctionTool]: ...


def tool(
    function: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    timeout_s: float | None = None,
    effect: ToolEffect | str | None = None,
) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
    """Make a tool from a function: `@tool` or `@tool(name=..., timeout_s=..., effect="read")`.

    `effect` declares what it does ("read", "write_local", "external") for tool policies.
    """

    def wrap(fn: Callable[..., Any]) -> FunctionTool:
        return FunctionTool(
            fn, name=name, description=description, timeout_s=timeout_s, effect=effect
        )

    return wrap if function is None else wrap(function)


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The description (text before an `Args:` section) and per-parameter docs."""
    match = _ARGS_HEADER.search(doc)
    if match is None:
        return doc.strip(), {}
    summary = doc[: match.start()].strip()
    params: dict[str, str] = {}
    current: str | None = None
    for line in doc[match.end() :].splitlines():
        if not line.strip():
            continue
        if _SECTION_HEADER.match(line):
            break
        entry = re.match(r"^\s*(\*{0,2}\w+)\s*(\([^)]*\))?\s*:\s*(.*)$", line)
        if entry and (current is None or _indent(line) <= _indent_of_entries(doc, match.end())):
            current = entry.group(1).lstrip("*")
            params[current] = entry.group(3).strip()
        elif current is not None:
            params[current] = f"{params[current]} {line.strip()}".strip()
    return summary, params


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _indent_of_entries(doc: str, start: int) -> int:
    for line in doc[start:].splitlines():
        if line.strip():
            return _indent(line)
    return 0


_Built = tuple[tuple[type[Any], dict[str, Any], str | None], "list[_Scalar] | None"]
# Tools made again and again from one function (the built-in tools, one set per
# workspace) share its arguments model: building it is most of what making one costs.
_BUILT: dict[tuple[Any, ...], _Built] = {}


def _built_for(name: str, function: Callable[..., Any], param_docs: dict[str, str]) -> _Built:
    """The arguments model, schema and scalar signature of `function`, built once for
    every function of the same code, defaults, annotations and documentation."""
    key: tuple[Any, ...] | None
    try:
        key = (
            name,
            function.__code__,
            function.__defaults__,
            tuple((function.__kwdefaults__ or {}).items()),
            tuple(function.__annotations__.items()),
            tuple(param_docs.items()),
        )
        hash(key)
    except (AttributeError, TypeError):  # no code object, or a value that cannot be a key
        key = None
    built = _BUILT.get(key) if key is not None else None
    if built is None:
        built = _build_arguments_model(name, function, param_docs), _scalar_signature(function)
        if key is not None:
            _BUILT[key] = built
    return built


def _build_arguments_model(
    name: str, function: Callable[..., Any], param_docs: dict[str, str]
) -> tuple[type[Any], dict[str, Any], str | None]:
    from pydantic import ConfigDict, Field, create_model
    from pydantic.fields import FieldInfo

    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except Exception as exc:
        raise ConfigError(f"tool {name!r}: cannot resolve its type hints ({exc})") from exc

    fields: dict[str, Any] = {}
    context_param: str | None = None
    for param in inspect.signature(function).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ConfigError(f"tool {name!r}: *args and **kwargs cannot be described to a model")
        annotation = hints.get(param.name, Any)
        if annotation is ToolContext:
            context_param = param.name
            continue
        default = ... if param.default is param.empty else param.default
        doc = param_docs.get(param.name)
        if doc and not _has_description(annotation) and not isinstance(default, FieldInfo):
            fields[param.name] = (annotation, Field(default, description=doc))
        else:
            fields[param.name] = (annotation, default)

    model = create_model(f"{name}_arguments", __config__=ConfigDict(extra="forbid"), **fields)
    schema = model.model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    schema.setdefault("properties", {})
    return model, schema, context_param


_SCALARS = (int, float, str, bool)
_REQUIRED: Any = object()
_Scalar = tuple[str, type, Any]  # name, exact type, default (or _REQUIRED)


def _scalar_signature(function: Callable[..., Any]) -> list[_Scalar] | None:
    """The parameters, when all are plain int/float/str/bool with no constraints; else None.

    For such tools, arguments that already have exactly the right types need no pydantic
    round trip (they would validate to themselves); anything else goes through pydantic.
    """
    from pydantic.fields import FieldInfo

    hints = typing.get_type_hints(function, include_extras=True)
    scalars: list[_Scalar] = []
    for param in inspect.signature(function).parameters.values():
        annotation = hints.get(param.name, Any)
        if annotation is ToolContext:
            return None  # the context is injected by `execute`; keep one path for it
        if typing.get_origin(annotation) is typing.Annotated:
            base, *extras = typing.get_args(annotation)
            plain = all(
                isinstance(m, FieldInfo) and not m.metadata and m.is_required() for m in extras
            )
            if not plain:
                return None
            annotation = base
        if annotation not in _SCALARS or isinstance(param.default, FieldInfo):
            return None
        default = _REQUIRED if param.default is param.empty else param.default
        scalars.append((param.name, annotation, default))
    return scalars


def _exact_scalars(scalars: list[_Scalar], arguments: dict[str, Any]) -> dict[str, Any] | None:
    kwargs: dict[str, Any] = {}
    matched = 0
    for name, kind, default in scalars:
        value = arguments.get(name, _REQUIRED)
        if value is _REQUIRED:
            if default is _REQUIRED:
                return None
            kwargs[name] = default
        elif type(value) is kind:
            kwargs[name] = value
            matched += 1
        else:
            return None
    return kwargs if matched == len(arguments) else None


def _has_description(annotation: Any) -> bool:
    from pydantic.fields import FieldInfo

    if typing.get_origin(annotation) is not typing.Annotated:
        return False
    return any(isinstance(m, FieldInfo) and m.description for m in annotation.__metadata__)


def _describe_errors(tool_name: str, exc: Any) -> str:
    problems = []
    for err in exc.errors(include_url=False):
        where = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        problems.append(f"- {where}: {err['msg']} (got {err.get('input')!r})")
    return (
        f"Invalid arguments for tool {tool_name!r}:\n"
        + "\n".join(problems)
        + "\nFix the arguments to match the tool's schema and call it again."
    )


def as_tool(value: Tool | Callable[..., Any]) -> Tool:
    """`value` itself when it is a tool, else a plain function made into a `FunctionTool`."""
    # Duck-typed on purpose: a runtime Protocol check costs microseconds per tool per run.
    if callable(getattr(value, "execute", None)):
        return value  # type: ignore[return-value]
    return FunctionTool(value)  # type: ignore[arg-type]
