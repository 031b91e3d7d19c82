"""`@tool`: schema from signature and docstring, validation, sync and async, context."""

from __future__ import annotations

import asyncio
import threading
from typing import Annotated, Any, Literal

import pytest
from hypothesis import given, settings, strategies as st
from pydantic import BaseModel, Field, ValidationError

from tiller import ToolContext, tool
from tiller.cancellation import CancelToken
from tiller.errors import ConfigError
from tiller.messages import ImageContent, TextContent, ToolResult
from tiller.tools import ArgumentsInvalid, FunctionTool, Tool, to_tool_result


def ctx() -> ToolContext:
    return ToolContext("call_1", "t", CancelToken())


class Point(BaseModel):
    x: int
    y: int


@tool
def plot(
    point: Point,
    label: Annotated[str, Field(description="text next to the point")],
    color: Literal["red", "blue"] = "red",
    size: int = 3,
) -> str:
    """Plot a point on the chart.

    Args:
        point: where to put it.
        size: marker size in pixels,
            between 1 and 10.
    """
    return f"{label}@{point.x},{point.y} {color} {size}"


def test_name_description_and_schema() -> None:
    assert isinstance(plot, Tool)
    assert plot.name == "plot"
    assert plot.description == "Plot a point on the chart."
    schema = plot.parameters
    assert schema["type"] == "object"
    assert schema["required"] == ["point", "label"]
    assert schema["additionalProperties"] is False
    props = schema["properties"]
    assert props["label"] == {"description": "text next to the point", "type": "string"}
    assert props["color"]["enum"] == ["red", "blue"]
    assert props["size"]["description"] == "marker size in pixels, between 1 and 10."
    assert props["point"]["description"] == "where to put it."
    assert "Point" in schema["$defs"]


async def test_arguments_are_validated_and_coerced_into_models() -> None:
    result = await plot.execute({"point": {"x": 1, "y": 2}, "label": "A", "size": "4"}, ctx())
    assert result.text == "A@1,2 red 4"


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"label": "A"}, "point: Field required"),
        ({"point": {"x": 1, "y": 2}, "label": "A", "color": "green"}, "color: Input should be"),
        ({"point": {"x": "a", "y": 2}, "label": "A"}, "point.x: Input should be a valid integer"),
        ({"point": {"x": 1, "y": 2}, "label": "A", "extra": 1}, "extra: Extra inputs"),
    ],
)
async def test_invalid_arguments_say_what_is_wrong(
    arguments: dict[str, Any], expected: str
) -> None:
    with pytest.raises(ArgumentsInvalid) as info:
        await plot.execute(arguments, ctx())
    assert expected in str(info.value)
    assert "Fix the arguments" in str(info.value)


async def test_sync_tools_run_off_the_event_loop_thread() -> None:
    loop_thread = threading.get_ident()

    @tool
    def where() -> bool:
        """Which thread am I on?"""
        return threading.get_ident() == loop_thread

    assert (await where.execute({}, ctx())).text == "false"


async def test_async_tools_run_on_the_loop_and_get_the_context_hidden_from_the_schema() -> None:
    @tool(name="who", description="Says its call id.", timeout_s=2)
    async def whoami(ctx: ToolContext) -> str:
        await asyncio.sleep(0)
        return ctx.tool_call_id

    assert whoami.name == "who"
    assert whoami.timeout_s == 2
    assert whoami.parameters["properties"] == {}
    assert (await whoami.execute({}, ctx())).text == "call_1"


def test_variadic_parameters_are_refused_clearly() -> None:
    @tool
    def anything(*args: int) -> int:
        """Sum."""
        return sum(args)

    with pytest.raises(ConfigError, match=r"\*args and \*\*kwargs"):
        _ = anything.parameters


def test_plain_functions_can_be_wrapped() -> None:
    def double(n: int) -> int:
        """Double it."""
        return 2 * n

    assert FunctionTool(double).parameters["properties"] == {"n": {"type": "integer"}}


async def test_tools_made_again_from_one_function_each_keep_their_own_signature() -> None:
    """Tools made from one factory (as the built-in tools are, per workspace) share the
    work of reading the signature only where the signatures are the same."""

    def make(step: int, doc: str) -> FunctionTool:
        def move(n: int = step) -> int:
            return n + step

        move.__doc__ = doc
        return FunctionTool(move)

    small, large, documented = (
        make(1, "Move."),
        make(5, "Move."),
        make(1, "Move.\n\nArgs:\n    n: how far."),
    )
    assert small.parameters["properties"]["n"]["default"] == 1
    assert large.parameters["properties"]["n"]["default"] == 5
    assert documented.parameters["properties"]["n"]["description"] == "how far."
    assert "description" not in make(1, "Move.").parameters["properties"]["n"]
    assert await large.execute({}, ctx()) == to_tool_result(10)
    assert make(1, "Move.").parameters is small.parameters  # read once for both


@pytest.mark.parametrize(
    ("value", "content"),
    [
        ("text", [TextContent("text")]),
        (7, [TextContent("7")]),
        (True, [TextContent("true")]),
        (None, [TextContent("(no output)")]),
        ({"a": [1]}, [TextContent('{"a":[1]}')]),
        (Point(x=1, y=2), [TextContent('{"x":1,"y":2}')]),
        (ImageContent("AA==", "image/png"), [ImageContent("AA==", "image/png")]),
        (
            [TextContent("a"), ImageContent("AA==", "image/png")],
            [TextContent("a"), ImageContent("AA==", "image/png")],
        ),
    ],
)
def test_return_values_become_results(value: Any, content: list[Any]) -> None:
    assert to_tool_result(value).content == content


def test_a_tool_result_passes_through() -> None:
    result = ToolResult([TextContent("x")], details={"k": 1})
    assert to_tool_result(result) is result


@tool
def scalars(
    n: int,
    label: Annotated[str, Field(description="a label")],
    ratio: float = 0.5,
    flag: bool = False,
) -> str:
    """A tool whose arguments are plain scalars (validated on the fast path)."""
    return f"{n} {label} {ratio} {flag}"


@settings(max_examples=300)
@given(
    st.dictionaries(
        st.sampled_from(["n", "label", "ratio", "flag", "other"]),
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False)
        | st.text(max_size=3),
        max_size=5,
    )
)
def test_the_scalar_fast_path_agrees_with_pydantic(arguments: dict[str, Any]) -> None:
    model = scalars._build()[0]
    try:
        expected: dict[str, Any] | None = dict(model.model_validate(arguments))
    except ValidationError:
        expected = None
    try:
        got: dict[str, Any] | None = scalars.validate(arguments)
    except ArgumentsInvalid:
        got = None
    assert got == expected
    if got is not None and expected is not None:
        assert {k: type(v) for k, v in got.items()} == {k: type(v) for k, v in expected.items()}
