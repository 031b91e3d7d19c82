"""Which parts of a request are the speaker's own, asking nothing of the assistant."""

from __future__ import annotations

import pytest

from tiller.models.local.own_parts import called_off, speakers_habit, speakers_plan


def test_a_change_called_off_or_left_to_the_speaker_is_their_own() -> None:
    for part, request in [
        ("Delete todo.md?", "Delete todo.md? No, not yet. Just show me what's in it."),
        ("Fix nothing yet", "Fix nothing yet. Which tests are in src/test_tally.py?"),
        ("write down nothing", "write down nothing, just tell me what todo.md says"),
        (
            "remove the done items (I'll do it)",
            "todo.md: remove the done items (I'll do it). What's left in it?",
        ),
        ("delete notes.txt", "delete notes.txt - actually no, show it to me first"),
        ("rename it", "rename it? hold off, what's in docs/"),
        (
            "Write me a funny question for a poll in my group chat.",
            "Write me a funny question for a poll in my group chat. I'll post it myself.",
        ),
    ]:
        assert called_off(part, request), request
        assert speakers_plan(part, request), request


def test_a_change_followed_by_its_own_words_is_not_called_off() -> None:
    for part, request in [
        # "No" as the text to write, after a colon, calls nothing off.
        (
            "please create docs/faq.md with the text",
            "please create docs/faq.md with the text: No questions yet.",
        ),
        ("Delete todo.md?", "Delete todo.md? Yes please."),
        ("add a line", "add a line: no smoking"),
        ("Set an alarm", "Set an alarm, not too loud"),
        ("Move the meeting", "Move the meeting, wait for Sam's reply first"),
        ("Post it to the group", "Post it to the group. I'll check it myself later"),
    ]:
        assert not called_off(part, request), request


def test_a_word_that_heads_news_is_no_instruction() -> None:
    request = "Update: the tests pass now. What's in notes.txt?"
    assert speakers_plan("Update", request)
    # An instruction heading what it does is still one.
    assert not speakers_plan("execute", "execute: python3 -m unittest discover -s src")
    assert not speakers_plan("Update", "Update the version in config.toml: 2.0")


def test_a_change_put_off_with_the_speaker_left_unsaid_is_their_own() -> None:
    request = "Need to edit the README eventually. Can you print lines 1 to 3 of README.md first?"
    assert speakers_plan("Need to edit the README eventually.", request)
    assert not speakers_plan("Can you print lines 1 to 3 of README.md first?", request)


@pytest.mark.parametrize(
    ("part", "habit"),
    [
        ("always get it wrong", True),
        ("I keep mixing them up", True),
        ("never done it before", True),
        ("never mind", False),
        ("keep the porch light on", False),
        ("never got order 114-7723981-0042", False),
        ("keeps skipping stitches", True),
        ("the printer keeps jamming", True),
        ("keeps the bread fresh", False),
    ],
)
def test_a_habit_the_speaker_tells_asks_for_nothing(part: str, habit: bool) -> None:
    assert speakers_habit(part) is habit


def test_what_the_speaker_fancies_or_is_deciding_beside_a_question_is_their_own() -> None:
    weather = "What's the weather doing in Oslo right now? Fancy a walk later."
    assert speakers_plan("Fancy a walk later.", weather)
    lisbon = "What's it like in Lisbon right now? Trying to decide whether I need a jumper."
    assert speakers_plan("Trying to decide whether I need a jumper.", lisbon)
    # Alone, with no question beside it, it may ask: "fancy a curry, any good places?"
    assert not speakers_plan("Fancy a walk later.", "Fancy a walk later.")
