"""JSON codec for messages and events.

Every message, content block, delta and event becomes a plain JSON object
tagged by `role` (messages) or `type` (everything else) and decodes back to an
equal object. Nested values are decoded by the field that holds them.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import json
import types
import typing
from collections.abc import Callable
from typing import Any

from tiller.errors import InvalidHistoryError
from tiller.events import (
    EVENT_TYPES,
    AgentEvent,
    Delta,
    Event,
    RunStats,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from tiller.messages import (
    AssistantMessage,
    Content,
    ExtensionMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResult,
    ToolResultMessage,
    Usage,
    UserMessage,
)

_CONTENT: dict[str, type[Any]] = {
    "text": TextContent,
    "image": ImageContent,
    "thinking": ThinkingContent,
    "tool_call": ToolCall,
}
_MESSAGES: dict[str, type[Any]] = {
    "user": UserMessage,
    "assistant": AssistantMessage,
    "tool_result": ToolResultMessage,
    "extension": ExtensionMessage,
}
_DELTAS: dict[str, type[Any]] = {
    "text_delta": TextDelta,
    "thinking_delta": ThinkingDelta,
    "tool_call_delta": ToolCallDelta,
}


def to_data(value: Any) -> Any:
    """Turn a message, event or any nesting of them into JSON-able data."""
    kind = type(value)
    if kind in _AS_IS:
        return value
    encode = _ENCODERS.get(kind)
    if encode is None:
        encode = _ENCODERS[kind] = _encoder_for(kind)
    return encode(value)


# Every event and message of a run passes through `to_data`: each type's encoder is
# worked out once, not by asking `dataclasses` about every value again.
_AS_IS: frozenset[type[Any]] = frozenset({str, int, float, bool, type(None)})
_ENCODERS: dict[type[Any], Callable[[Any], Any]] = {}


def _encoder_for(kind: type[Any]) -> Callable[[Any], Any]:
    if dataclasses.is_dataclass(kind):
        names = tuple(f.name for f in dataclasses.fields(kind))
        tagged = issubclass(kind, Event)

        def encode_fields(value: Any) -> dict[str, Any]:
            data: dict[str, Any] = {"type": value.type} if tagged else {}
            for name in names:
                data[name] = to_data(getattr(value, name))
            return data

        return encode_fields
    if issubclass(kind, list | tuple):
        return lambda value: [to_data(v) for v in value]
    if issubclass(kind, dict):
        return lambda value: {k: to_data(v) for k, v in value.items()}
    return _as_is


def _as_is(value: Any) -> Any:
    return value


def _fields_of(value: Any) -> dict[str, Any]:
    """One level of a message or event for the JSON encoder, which encodes the rest."""
    kind = type(value)
    shallow = _SHALLOW.get(kind)
    if shallow is None:
        if not dataclasses.is_dataclass(kind):
            raise TypeError(f"a {kind.__name__} is not JSON data")
        shallow = _SHALLOW[kind] = _shallow_encoder_for(kind)
    return shallow(value)


def _shallow_encoder_for(kind: type[Any]) -> Callable[[Any], dict[str, Any]]:
    names = tuple(f.name for f in dataclasses.fields(kind))
    if issubclass(kind, Event):
        return lambda value: {"type": value.type, **{n: getattr(value, n) for n in names}}
    return lambda value: {n: getattr(value, n) for n in names}


_SHALLOW: dict[type[Any], Callable[[Any], dict[str, Any]]] = {}
_ENCODERS_BY_NAN = {
    allow_nan: json.JSONEncoder(
        ensure_ascii=False, allow_nan=allow_nan, separators=(",", ":"), default=_fields_of
    )
    for allow_nan in (True, False)
}


def _build(cls: type[Any], data: Any, skip: str, where: str = "") -> Any:
    """Decode `data` into `cls`, field by field.

    Records written by another version load: a missing field takes its default (or
    the empty value of its type), an unknown one is ignored. A value of the wrong
    type is an `InvalidHistoryError` naming the field.
    """
    what = where or cls.__name__
    if not isinstance(data, dict):
        raise InvalidHistoryError(f"{what}: expected an object, got {_shown(data)}")
    kwargs: dict[str, Any] = {}
    for spec in _field_specs(cls):
        name = spec.name
        if name == skip:
            continue
        path = f"{what}.{name}"
        if name not in data:
            if spec.required:
                kwargs[name] = _empty_value(name, spec.hint, path)
            continue
        raw = data[name]
        decode = _FIELD_DECODERS.get(name)
        if decode is not None and raw is not None:
            try:
                value = decode(raw)
            except InvalidHistoryError as exc:
                raise InvalidHistoryError(f"{path}: {exc}") from None
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                raise InvalidHistoryError(f"{path}: {exc}") from None
        else:
            value = raw
        if not _fits(value, spec.hint):
            raise InvalidHistoryError(
                f"{path}: expected {_hint_name(spec.hint)}, got {_shown(raw)}"
            )
        kwargs[name] = value
    return cls(**kwargs)


@dataclasses.dataclass(slots=True, frozen=True)
class _FieldSpec:
    name: str
    hint: Any
    required: bool


def _field_specs(cls: type[Any]) -> tuple[_FieldSpec, ...]:
    specs = _SPECS.get(cls)
    if specs is None:
        specs = _SPECS[cls] = _read_field_specs(cls)
    return specs


_SPECS: dict[type[Any], tuple[_FieldSpec, ...]] = {}


def _read_field_specs(cls: type[Any]) -> tuple[_FieldSpec, ...]:
    hints = typing.get_type_hints(cls)
    return tuple(
        _FieldSpec(
            f.name,
            hints[f.name],
            f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
        )
        for f in dataclasses.fields(cls)
    )


_EMPTY: dict[Any, Callable[[], Any]] = {
    list: list,
    dict: dict,
    str: str,
    int: int,
    float: float,
    bool: bool,
    Usage: Usage,
    RunStats: RunStats,
}


def _empty_value(name: str, hint: Any, path: str) -> Any:
    """The value a field missing from an older record takes, if one makes sense.

    Content is what a message or result is: a record without it is damaged, not old.
    """
    if name == "content":
        raise InvalidHistoryError(f"{path} is missing")
    args = typing.get_args(hint)
    if type(None) in args:
        return None
    make = _EMPTY.get(typing.get_origin(hint) or hint)
    if make is None:
        raise InvalidHistoryError(f"{path} is missing and has no default")
    return make()


def _fits(value: Any, hint: Any) -> bool:
    """A shallow type check: enough to catch a corrupt record, cheap enough to run often."""
    if hint is Any:
        return True
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return value in typing.get_args(hint)
    if origin is types.UnionType or origin is typing.Union:
        return any(_fits(value, arg) for arg in typing.get_args(hint))
    if origin is not None:
        hint = origin
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint in (collections.abc.Sequence, tuple):
        return isinstance(value, list | tuple)
    return isinstance(value, hint) if isinstance(hint, type) else True


def _hint_name(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _tagged(table: dict[str, type[Any]], tag: str, what: str) -> Callable[[dict[str, Any]], Any]:
    def decode(data: dict[str, Any]) -> Any:
        if not isinstance(data, dict):
            raise InvalidHistoryError(f"not a {what}: expected an object, got {_shown(data)}")
        try:
            cls = table[data[tag]]
        except (KeyError, TypeError):
            raise InvalidHistoryError(
                f"not a {what}: unknown or missing {tag!r} in {_shown(data)}"
            ) from None
        return _build(cls, data, skip="")

    return decode


content_from_data: Callable[[dict[str, Any]], Content] = _tagged(_CONTENT, "type", "content block")
message_from_data: Callable[[dict[str, Any]], Message] = _tagged(_MESSAGES, "role", "message")
delta_from_data: Callable[[dict[str, Any]], Delta] = _tagged(_DELTAS, "type", "delta")


def event_from_data(data: dict[str, Any]) -> AgentEvent:
    """Decode one event. Raises `InvalidHistoryError` (a `ValueError`) naming what is wrong."""
    if not isinstance(data, dict):
        raise InvalidHistoryError(f"not an event: expected an object, got {_shown(data)}")
    try:
        cls = EVENT_TYPES[data["type"]]
    except (KeyError, TypeError):
        raise InvalidHistoryError(
            f"not an event: unknown or missing 'type' in {_shown(data)}"
        ) from None
    event: AgentEvent = _build(cls, data, skip="type", where=data["type"])
    return event


_FIELD_DECODERS: dict[str, Callable[[Any], Any]] = {
    "content": lambda v: [content_from_data(b) for b in v],
    "usage": lambda v: _build(Usage, v, skip=""),
    "stats": lambda v: _build(RunStats, v, skip=""),
    "result": lambda v: _build(ToolResult, v, skip=""),
    "partial_result": lambda v: _build(ToolResult, v, skip=""),
    "message": message_from_data,
    "messages": lambda v: [message_from_data(m) for m in v],
    "tool_results": lambda v: [message_from_data(m) for m in v],
    "delta": delta_from_data,
}


def dumps(value: Any, *, allow_nan: bool = True) -> str:
    """Encode a message, event, or list of them as compact JSON: the text of
    `to_data(value)`, made in one pass without building its dicts and lists first.
    With `allow_nan=False`, a NaN or infinity is a `ValueError` (they are not JSON)."""
    return _ENCODERS_BY_NAN[allow_nan].encode(value)


def messages_from_json(text: str) -> list[Message]:
    data = json.loads(text)
    if not isinstance(data, list):
        raise ValueError("a saved history must be a JSON list of messages")
    return [message_from_data(m) for m in data]


def event_from_json(text: str) -> AgentEvent:
    return event_from_data(json.loads(text))
