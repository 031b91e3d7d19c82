"""What a later part of a request adds to the calls already chosen."""

from __future__ import annotations

from tiller.models.base import ToolSpec
from tiller.models.local.subjects import (
    Choice,
    another_of_the_same_kind,
    repeats_for_another_subject,
)

_TEXT = {"type": "string"}
RENEW = ToolSpec(
    "renew_library_loan",
    "Renew a library book.",
    {"type": "object", "properties": {"title": _TEXT}, "required": ["title"]},
    "external",
)
PORTION = ToolSpec(
    "dog_food_portion",
    "How much a dog should eat a day.",
    {"type": "object", "properties": {"weight_kg": {"type": "number"}}, "required": ["weight_kg"]},
    "read",
)


def test_another_one_asks_the_call_before_again() -> None:
    head = Choice(PORTION, "How much should a 30 kg dog eat?")
    assert another_of_the_same_kind(head, "And a 6 kg one?")


def test_an_instruction_with_its_own_verb_is_no_other_one_of_the_same_kind() -> None:
    head = Choice(RENEW, "Can u renew Lessons in Chemistry for another 2 weeks")
    part = "remind me on Saturday at 10am to return the other ones"
    assert not another_of_the_same_kind(head, part)
    again = Choice(RENEW, "renew Lessons in Chemistry")
    assert another_of_the_same_kind(again, "and renew the other one")


def test_a_question_of_its_own_is_no_repeat_for_another_subject() -> None:
    marks = ToolSpec(
        "hallmark_reader",
        "What the purity number stamped on gold or silver means.",
        {"type": "object", "properties": {"mark": _TEXT}, "required": ["mark"]},
        "read",
    )
    money = ToolSpec(
        "convert_currency",
        "Convert an amount of money to another currency.",
        {
            "type": "object",
            "properties": {"amount": {"type": "number"}, "currency": _TEXT},
            "required": ["amount", "currency"],
        },
        "read",
    )
    head = Choice(marks, "what's 585 mean?")
    # "what's" asks, as "what" does: the part asks a question of its own.
    assert not repeats_for_another_subject(head, money, "And what's 50 dollars in GBP")
    assert not repeats_for_another_subject(head, money, "And what is 50 dollars in GBP")
