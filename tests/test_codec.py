"""Every message and event round-trips through JSON to an equal object."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from tiller.codec import (
    dumps,
    event_from_data,
    event_from_json,
    message_from_data,
    messages_from_json,
    to_data,
)
from tiller.events import (
    EVENT_TYPES,
    AgentEnd,
    AgentStart,
    CircuitStateChanged,
    ContextCompacted,
    InputRejected,
    LoopDetected,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ModelLoading,
    Progress,
    Retry,
    RunStats,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    TurnEnd,
    TurnStart,
)
from tiller.messages import (
    STOP_REASONS,
    AssistantMessage,
    ExtensionMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResult,
    ToolResultMessage,
    Usage,
    UserMessage,
)

text = st.text(max_size=30)
ids = st.text(alphabet="abcdef0123456789_", min_size=1, max_size=12)
json_scalar = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | text
json_value = st.recursive(
    json_scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)
json_object = st.dictionaries(text, json_value, max_size=4)

text_block = st.builds(TextContent, text)
image_block = st.builds(
    ImageContent, st.text(alphabet="AQIDBA==", max_size=16), st.just("image/png")
)
thinking_block = st.builds(ThinkingContent, text, st.none() | text, st.booleans())
tool_call = st.builds(ToolCall, ids, ids, json_object, st.none() | text)
usage = st.builds(
    Usage,
    st.integers(0, 10**6),
    st.integers(0, 10**6),
    st.integers(0, 10**6),
    st.integers(0, 10**6),
    st.none() | st.floats(0, 100, allow_nan=False),
)
timestamps = st.integers(0, 2**45)

user_message = st.builds(UserMessage, st.lists(text_block | image_block, max_size=3), timestamps)
assistant_message = st.builds(
    AssistantMessage,
    st.lists(text_block | image_block | thinking_block | tool_call, max_size=4),
    st.sampled_from(STOP_REASONS),
    usage,
    text,
    text,
    st.none() | text,
    timestamps,
)
tool_result_message = st.builds(
    ToolResultMessage,
    ids,
    ids,
    st.lists(text_block | image_block, max_size=3),
    st.booleans(),
    json_value,
    timestamps,
)
extension_message = st.builds(ExtensionMessage, ids, text, json_value, timestamps)
message = user_message | assistant_message | tool_result_message | extension_message
tool_result = st.builds(
    ToolResult, st.lists(text_block | image_block, max_size=2), json_value, st.none() | ids
)
delta = (
    st.builds(TextDelta, st.integers(0, 5), text)
    | st.builds(ThinkingDelta, st.integers(0, 5), text, st.none() | text)
    | st.builds(ToolCallDelta, st.integers(0, 5), text, st.none() | ids, st.none() | ids)
)
stats = st.builds(
    RunStats,
    usage,
    st.integers(0, 99),
    st.integers(0, 99),
    st.integers(0, 9),
    st.integers(0, 9),
    st.floats(0, 1e6, allow_nan=False),
    st.sampled_from(STOP_REASONS),
    st.none() | text,
    st.none() | text,
)
loop = {"loop_id": ids, "parent_loop_id": st.none() | ids}

event = st.one_of(
    st.builds(AgentStart, **loop),
    st.builds(AgentEnd, messages=st.lists(message, max_size=3), stats=stats, **loop),
    st.builds(TurnStart, turn=st.integers(1, 50), **loop),
    st.builds(
        TurnEnd,
        turn=st.integers(1, 50),
        message=assistant_message,
        tool_results=st.lists(tool_result_message, max_size=2),
        **loop,
    ),
    st.builds(MessageStart, message=message, **loop),
    st.builds(MessageUpdate, delta=delta, **loop),
    st.builds(MessageEnd, message=message, **loop),
    st.builds(ToolExecutionStart, tool_call_id=ids, tool_name=ids, arguments=json_object, **loop),
    st.builds(
        ToolExecutionUpdate, tool_call_id=ids, tool_name=ids, partial_result=tool_result, **loop
    ),
    st.builds(
        ToolExecutionEnd,
        tool_call_id=ids,
        tool_name=ids,
        result=tool_result,
        is_error=st.booleans(),
        child_loop_id=st.none() | ids,
        duration_ms=st.floats(0, 1e5, allow_nan=False),
        **loop,
    ),
    st.builds(Progress, tool_call_id=ids, tool_name=ids, text=text, **loop),
    st.builds(InputRejected, reason=text, **loop),
    st.builds(
        LoopDetected, tool_name=ids, arguments=json_object, repeats=st.integers(1, 9), **loop
    ),
    st.builds(
        ContextCompacted,
        method=ids,
        messages_before=st.integers(0, 999),
        messages_after=st.integers(0, 999),
        tokens_before=st.integers(0, 10**6),
        tokens_after=st.integers(0, 10**6),
        summary=st.none() | text,
        **loop,
    ),
    st.builds(
        Retry,
        attempt=st.integers(1, 9),
        max_attempts=st.integers(1, 9),
        delay_s=st.floats(0, 60, allow_nan=False),
        error_kind=ids,
        error_message=text,
        **loop,
    ),
    st.builds(
        CircuitStateChanged,
        provider=ids,
        endpoint=text,
        old_state=st.sampled_from(["closed", "open", "half_open"]),
        new_state=st.sampled_from(["closed", "open", "half_open"]),
        reason=text,
        failures=st.integers(0, 99),
        retry_at=st.none() | st.floats(0, 2e9, allow_nan=False),
        **loop,
    ),
    st.builds(ModelLoading, provider=ids, model=text, **loop),
)


@settings(max_examples=300)
@given(message)
def test_messages_round_trip(value: Any) -> None:
    data = json.loads(dumps(value))
    assert data["role"] == value.role
    assert message_from_data(data) == value


@settings(max_examples=300)
@given(event)
def test_events_round_trip(value: Any) -> None:
    encoded = dumps(value)
    data = json.loads(encoded)
    assert data["type"] == value.type
    assert event_from_json(encoded) == value


@settings(max_examples=300)
@given(message | event)
def test_dumps_gives_the_text_of_to_data_in_one_pass(value: Any) -> None:
    expected = json.dumps(to_data(value), ensure_ascii=False, separators=(",", ":"))
    assert dumps(value) == expected
    assert dumps([value, value]) == f"[{expected},{expected}]"


def test_dumps_refuses_what_is_not_json_data() -> None:
    with pytest.raises(TypeError, match="object is not JSON data"):
        dumps(ToolResult([TextContent("x")], details=object()))
    nan = Usage(cost_usd=float("nan"))
    assert dumps(nan).count("NaN") == 1
    with pytest.raises(ValueError, match="Out of range float"):
        dumps(nan, allow_nan=False)


def test_every_event_type_is_covered_and_snake_case() -> None:
    assert set(EVENT_TYPES) == {
        "agent_start",
        "agent_end",
        "turn_start",
        "turn_end",
        "message_start",
        "message_update",
        "message_end",
        "tool_execution_start",
        "tool_execution_update",
        "tool_execution_end",
        "progress",
        "input_rejected",
        "loop_detected",
        "context_compacted",
        "retry",
        "circuit_state_changed",
        "model_loading",
        "solve_start",
        "goal_selected",
        "plan_created",
        "checkpoint_requested",
        "approval_decided",
        "step_started",
        "step_finished",
        "plan_summary",
        "escalation",
        "solve_end",
    }


def test_a_history_round_trips_as_a_list() -> None:
    history = [
        UserMessage.of("hi"),
        AssistantMessage([ToolCall("c1", "f", {"x": [1]})], "tool_use", Usage(1, 2)),
        ToolResultMessage("c1", "f", [TextContent("ok")]),
    ]
    assert messages_from_json(dumps(history)) == history
    assert to_data(history)[1]["content"][0]["type"] == "tool_call"


@pytest.mark.parametrize(
    "bad",
    [{"role": "wizard"}, {"content": []}, {"type": "nonsense", "loop_id": "x"}],
)
def test_unknown_tags_are_a_clear_error(bad: dict[str, Any]) -> None:
    decode = event_from_data if "type" in bad else message_from_data
    with pytest.raises(ValueError, match="unknown or missing"):
        decode(bad)


# ── records written by another version, and damaged ones ────────────────────


def test_an_event_missing_a_field_loads_with_defaults() -> None:
    event = event_from_data({"type": "agent_end", "messages": []})
    assert isinstance(event, AgentEnd)
    assert event.stats == RunStats()
    start = event_from_data({"type": "tool_execution_start", "tool_call_id": "c1"})
    assert isinstance(start, ToolExecutionStart)
    assert (start.tool_name, start.arguments) == ("", {})


def test_unknown_fields_are_ignored() -> None:
    event = event_from_data({"type": "turn_start", "turn": 2, "shiny_new_field": [1, 2]})
    assert isinstance(event, TurnStart)
    assert event.turn == 2
    message = message_from_data({"role": "user", "content": [], "mood": "happy"})
    assert message.role == "user"


def test_old_stats_and_usage_load_with_defaults() -> None:
    data = {"type": "agent_end", "messages": [], "stats": {"turns": 3, "usage": {}}}
    event = event_from_data(data)
    assert isinstance(event, AgentEnd)
    assert event.stats.turns == 3
    assert event.stats.unpriced_models == []


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"type": "turn_start", "turn": "three"}, "turn_start.turn"),
        ({"type": "turn_end", "turn": 1, "tool_results": []}, "turn_end.message"),
        ({"type": "agent_end", "messages": "none"}, "agent_end.messages"),
        ({"type": "agent_end", "messages": [{"role": "user"}]}, "content"),
        ({"type": "message_end", "message": {"role": "robot"}}, "message_end.message"),
        ({"type": "agent_end", "stats": {"turns": None}}, "agent_end.stats"),
        ({"type": "agent_end", "stats": [1]}, "agent_end.stats"),
    ],
)
def test_an_invalid_record_is_a_clear_error_naming_the_field(
    data: dict[str, Any], field: str
) -> None:
    from tiller.errors import InvalidHistoryError

    with pytest.raises(InvalidHistoryError, match=field.replace(".", r"\.")):
        event_from_data(data)


@pytest.mark.parametrize("data", [None, [], "agent_end", {"type": 3}, {"type": "nope"}])
def test_something_that_is_not_an_event_is_refused_clearly(data: Any) -> None:
    from tiller.errors import InvalidHistoryError

    with pytest.raises(InvalidHistoryError, match="not an event"):
        event_from_data(data)
