"""Parts that only give details of the call before them join it."""

from __future__ import annotations

from tiller.models import ToolSpec
from tiller.models.local.chooser import ToolChooser
from tiller.models.local.details import given, only_details_of
from tiller.models.local.subjects import Choice

from .test_chooser import Fixed

SYMPTOM = ToolSpec(
    "log_symptom",
    "Record a symptom in the health diary.",
    {
        "type": "object",
        "properties": {
            "symptom": {"type": "string", "description": "What you noticed, e.g. headache"},
            "severity": {"type": "integer", "minimum": 1, "maximum": 10},
        },
        "required": ["symptom"],
    },
    "write_local",
)
FIXTURE = ToolSpec(
    "add_club_fixture",
    "Add a match to the club's fixture list.",
    {
        "type": "object",
        "properties": {
            "opponent": {"type": "string", "description": "The other club's name"},
            "date": {"type": "string", "description": "Match date as YYYY-MM-DD"},
            "venue": {"type": "string", "enum": ["home", "away"]},
            "kick_off": {"type": "string", "description": "Start time as HH:MM"},
        },
        "required": ["opponent", "date"],
    },
    "write_local",
)
FIRING = ToolSpec(
    "book_kiln_firing",
    "Book pieces into a kiln firing.",
    {
        "type": "object",
        "properties": {
            "firing_type": {"type": "string", "enum": ["bisque", "glaze"]},
            "pieces": {"type": "integer", "minimum": 1},
        },
        "required": ["firing_type", "pieces"],
    },
    "write_local",
)
HOLIDAYS = ToolSpec(
    "public_holidays",
    "Public holidays of a country in a year.",
    {
        "type": "object",
        "properties": {"country": {"type": "string"}, "year": {"type": "integer"}},
        "required": ["country", "year"],
    },
    "read",
)
REMINDER = ToolSpec(
    "set_reminder",
    "Set a reminder.",
    {
        "type": "object",
        "properties": {"text": {"type": "string"}, "time": {"type": "string"}},
        "required": ["text", "time"],
    },
    "write_local",
)


def test_values_of_parameters_the_call_lacks_are_its_details() -> None:
    assert given(SYMPTOM, "severity 8") == {"severity"}
    assert only_details_of(SYMPTOM, "log a migraine", "severity 8")
    assert only_details_of(SYMPTOM, "a runny nose", "2 out of 10")
    match = "Add the match v Riverside Vets"
    assert only_details_of(FIXTURE, match, "home")
    assert only_details_of(FIXTURE, f"{match}, home", "12 Oct 2024")
    assert only_details_of(FIXTURE, f"{match}, home, 12 Oct 2024", "kick-off 14:30")


def test_a_part_that_gives_again_what_the_call_has_or_names_more_is_no_detail() -> None:
    # Another firing, another year: values the call already has ask again.
    assert not only_details_of(FIRING, "Book a bisque firing for 15 pieces", "a glaze one for 6")
    assert not only_details_of(HOLIDAYS, "Public holidays in Canada in 2025?", "And 2026?")
    # Words that are no value, unit or parameter name name something else.
    assert not only_details_of(SYMPTOM, "log a migraine", "a runny nose 2 out of 10")
    assert not only_details_of(SYMPTOM, "log a migraine", "peak-wise?")
    assert not only_details_of(FIXTURE, "Add the match v Riverside Vets", "the Under 14s")


def test_a_detail_joins_the_call_before_it_instead_of_making_one() -> None:
    scores = {"log_symptom": 0.5, "set_reminder": 0.4}
    chooser = ToolChooser(
        Fixed(scores, {"set a reminder at 14:00 to take another ibuprofen": {"set_reminder": 1}}),
        threshold=0.0,
    )
    found = chooser.choose(
        "log a migraine, severity 8, and set a reminder at 14:00 to take another ibuprofen",
        [SYMPTOM, REMINDER],
    )
    assert found == [
        Choice(SYMPTOM, "log a migraine, severity 8"),
        Choice(REMINDER, "set a reminder at 14:00 to take another ibuprofen"),
    ]
