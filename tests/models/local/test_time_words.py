from __future__ import annotations

from tiller.models.local.argument_schema import argument_schema
from tiller.models.local.request_words import request_words
from tiller.models.local.time_words import (
    days_of_the_month,
    is_clock_time,
    is_day,
    not_for,
    said_when,
    speaks_of,
    takes_a_day_elsewhere,
)

_DAY = {"type": "string", "description": "Day to play, e.g. Saturday or 14 June"}
_TIME = {"type": "string", "description": "Start time, e.g. 18:00"}
_PLACE = {"type": "string", "description": "Name of the lido, e.g. Tooting Bec Lido"}


def test_days_and_clock_times_are_told_apart() -> None:
    assert all(map(is_day, ["Saturday", "sundays", "tomorrow", "June", "14th", "May"]))
    assert not is_day("may")  # "you may", not the month
    assert not is_day("60th")  # a birthday, no day of the month
    assert not any(map(is_day, ["9am", "park", "Mayfair"]))
    assert all(map(is_clock_time, ["9am", "5:30pm", "18:00", "noon", "4 pm"]))
    assert not any(map(is_clock_time, ["Saturday", "2024", "9"]))


def test_a_parameter_speaks_of_a_day_a_clock_time_both_or_neither() -> None:
    assert speaks_of("date", _DAY) == (True, False)
    assert speaks_of("time", _TIME) == (False, True)
    assert speaks_of("when", {"type": "string"}) == (True, True)
    assert speaks_of("lido", _PLACE) == (False, False)


def test_words_that_say_when_go_only_to_a_parameter_about_that_kind_of_time() -> None:
    words = request_words("court at Victoria Park on Saturday at 9am, right now")
    assert not_for("venue", _PLACE, words) == {"saturday", "9am", "right", "now"}
    assert not_for("date", _DAY, words) == {"9am"}
    assert not_for("time", _TIME, words) == {"saturday"}
    assert not_for("when", {"type": "string"}, words) == set()
    # A number written with its month is the day of a date.
    words = request_words("countdown to christmas please, 25 december")
    assert not_for("event", _PLACE, words) == {"25", "december"}


def test_a_day_or_a_time_parameter_takes_one_the_request_says() -> None:
    words = request_words("book a court next Friday or on 9 May at noon")
    assert said_when("date", _DAY, words) == ["next Friday", "9 May"]
    assert said_when("time", _TIME, words) == ["noon"]
    assert said_when("lido", _PLACE, words) == []
    assert said_when("time", _TIME, request_words("book a court on Friday")) == []
    schema = {
        "type": "object",
        "properties": {"venue": _PLACE, "date": _DAY, "time": _TIME},
        "required": ["venue", "date", "time"],
    }
    out = argument_schema(schema, "beard trim thursday 5:30pm, whoever's free")["properties"]
    assert out["date"]["pattern"] == "^(thursday)$"
    assert out["time"]["pattern"] == "^(5:30pm)$"


def test_a_parameter_for_a_day_and_a_time_takes_a_day_said_with_a_clock_time() -> None:
    when = {"type": "string", "description": "When, e.g. 17:00 or tomorrow 9am"}
    assert said_when("time", when, request_words("set a reminder for friday 10am so i")) == [
        "friday 10am"
    ]
    words = request_words("book a court next Friday or on 9 May at noon")
    assert said_when("when", {"type": "string"}, words) == ["9 May at noon"]
    assert said_when("time", when, request_words("remind me at 8pm on Sunday")) == ["8pm on Sunday"]
    # When another parameter takes the day, this one takes the clock time.
    words = request_words("babysitter on Friday at 19:30")
    assert said_when("start_time", when, words, day_elsewhere=True) == ["19:30"]
    schema = {
        "type": "object",
        "properties": {
            "date": {"type": "string", "description": "Day or date, e.g. Friday"},
            "start_time": {"type": "string", "description": "When the sitter should arrive"},
        },
        "required": ["date", "start_time"],
    }
    out = argument_schema(schema, "babysitter on Friday at 19:30")["properties"]
    assert out["start_time"]["pattern"] == "^(19:30)$"
    assert takes_a_day_elsewhere("start_time", schema["properties"])
    assert not takes_a_day_elsewhere("date", schema["properties"])
    # A number of days is no day: the start time then takes the day said with it.
    counted = {
        "date": {"type": "integer", "description": "Days"},
        "start_time": {"type": "string", "description": "When the sitter should arrive"},
    }
    assert not takes_a_day_elsewhere("start_time", counted)
    # A day that recurs is none: "weekdays" is how often.
    assert said_when("time", when, request_words("an alarm at 7am on weekdays")) == []
    # A day or a clock time alone leaves the choice to the request's words.
    assert said_when("time", when, request_words("remind me at 14:00 to stretch")) == []
    assert said_when("time", when, request_words("remind me on Friday, early")) == []


def test_a_day_of_the_month_is_found_with_its_month() -> None:
    assert days_of_the_month("Priya on 9 May, Tom on November 23rd, 14th of June") == [
        "9", "23", "14"
    ]  # fmt: skip
    assert days_of_the_month("you may 5 times, 9 lives") == []


def test_a_parameter_for_a_month_takes_a_month_the_request_names() -> None:
    month = {"type": "string", "description": "Month of the visit, e.g. July"}
    assert said_when("month", month, request_words("dogs on the beach at Holkham in July?")) == [
        "July"
    ]
    assert said_when("month", month, request_words("we may go in march or in May")) == ["May"]
    assert said_when("beach", {"type": "string"}, request_words("Holkham in July")) == []
