"""Several subjects in one request: where it splits, and how a short part continues."""

from __future__ import annotations

from tiller.models.local.clauses import continued, parts_of, stands_alone


def test_a_request_splits_where_a_clause_may_begin() -> None:
    assert parts_of("What time is it in Lisbon and in Seoul?") == [
        "What time is it in Lisbon",
        "in Seoul?",
    ]
    assert parts_of("What is 12*7, and what is the weather in Paris?") == [
        "What is 12*7",
        "what is the weather in Paris?",
    ]
    assert parts_of("Is it cold in Oslo? Also convert 20 euros to yen.") == [
        "Is it cold in Oslo?",
        "Also convert 20 euros to yen.",
    ]
    assert parts_of("Show notes.txt") == ["Show notes.txt"]  # a file name is not a sentence end


def test_short_parts_and_numbers_do_not_stand_alone() -> None:
    assert stands_alone("what is the weather in Paris")
    assert not stands_alone("in Seoul")
    assert not stands_alone("12, 7")
    assert not stands_alone("23.")


def test_a_short_part_puts_its_new_words_where_the_value_was() -> None:
    clause = "What time is it in Lisbon"
    assert continued(clause, {"city": "Lisbon"}, "in Seoul?") == "What time is it in Seoul"
    assert continued("Weather in Paris", {"city": "Paris"}, "Rome") == "Weather in Rome"


def test_a_part_that_cannot_continue_the_clause_gives_nothing() -> None:
    # A number joined by "and" belongs to the expression that already took it.
    assert continued("Add 19", {"expression": "19 + 23"}, "23") is None
    # Nothing new in the part.
    assert continued("What time is it in Lisbon", {"city": "Lisbon"}, "in Lisbon") is None
    # The value is not written in the clause, so there is nothing to put the part in place of.
    assert continued("What's 15% of 80", {"expression": "15 * 80 / 100"}, "of 90 too") is None
