from __future__ import annotations

from tiller.models.local.decoding import _RepeatedLineStop, _StopText

STOPS = ("<tool_call>", "</tool_call>")


def _feed(pieces: list[str]) -> tuple[list[str], _StopText]:
    out: list[str] = []
    gate = _StopText(STOPS, out.append)
    for piece in pieces:
        gate(piece)
    gate.flush()
    return out, gate


def test_text_before_the_stop_is_passed_and_the_stop_never_is() -> None:
    out, gate = _feed(["The weather is ", "sunny. <", "tool", '_call> {"name"'])
    assert "".join(out) == "The weather is sunny. "
    assert gate.stopped
    assert gate.passed == "The weather is sunny. "


def test_a_lookalike_is_held_back_then_released() -> None:
    out, gate = _feed(["a <", "b and <tool", " x"])
    assert "".join(out) == "a <b and <tool x"
    assert not gate.stopped
    assert out[0] == "a "  # "<" waited until it was clearly not the stop text


def test_text_ending_in_a_possible_start_is_flushed() -> None:
    out, _ = _feed(["1 <"])
    assert "".join(out) == "1 <"


def test_the_earliest_of_several_stops_ends_the_text() -> None:
    out, gate = _feed(['It returned "Buy milk" </tool', "_call> <tool_call>"])
    assert "".join(out) == 'It returned "Buy milk" '
    assert gate.stopped


def _lines(pieces: list[str]) -> tuple[list[str], _RepeatedLineStop]:
    out: list[str] = []
    gate = _RepeatedLineStop(out.append)
    for piece in pieces:
        gate(piece)
        if gate.stopped:
            break
    gate.flush()
    return out, gate


def test_a_repeated_line_ends_the_text_and_is_never_passed() -> None:
    out, gate = _lines(
        ["The tool returned: 7\nThe ", "answer is: 7\n", "The answer", " is: 7\nmore"]
    )
    assert "".join(out) == "The tool returned: 7\nThe answer is: 7\n"
    assert gate.stopped
    assert gate.passed == "".join(out)


def test_a_line_is_held_only_while_it_could_repeat_an_earlier_one() -> None:
    out, gate = _lines(["It is 7.\nIt", " is 8", " now."])
    assert out == ["It is 7.\n", "It is 8", " now."]  # "It" waited; " is 8" set it apart
    assert not gate.stopped


def test_a_final_line_that_repeats_is_dropped_and_a_new_one_kept() -> None:
    assert "".join(_lines(["Yes.\nYes."])[0]) == "Yes.\n"
    assert "".join(_lines(["Yes.\n\nYe"])[0]) == "Yes.\n\nYe"  # blank lines are not repeats


def test_the_cache_is_reused_only_in_whole_batches_a_cold_evaluation_would_make() -> None:
    from tiller.models.local.decoding import reusable_prefix

    held = list(range(1300))
    assert reusable_prefix(held, held[:1100] + [-1] * 50, 512) == 1024
    assert reusable_prefix(held, [*held[:1000], -1], 512) == 512
    assert reusable_prefix(held, [*held[:511], -1], 512) == 0
    # The last token is always evaluated again: sampling needs its logits.
    assert reusable_prefix(held, held[:1024], 512) == 512
    assert reusable_prefix(held, held[:1025], 512) == 1024
    assert reusable_prefix([], [1, 2, 3], 512) == 0
