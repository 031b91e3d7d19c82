"""Whole dates a request writes become YYYY-MM-DD for a parameter that takes that form."""

from __future__ import annotations

from typing import Any

from tiller.models.local.argument_schema import argument_schema
from tiller.models.local.dates import takes_an_iso_date, written_dates

ISO = {"type": "string", "description": "Date of birth, YYYY-MM-DD"}


def test_dates_written_any_way_are_written_iso() -> None:
    assert written_dates("born 5 may 1964, 38 NI years so far") == ["1964-05-05"]
    assert written_dates("When do I get my state pension? DOB 14/03/1968") == ["1968-03-14"]
    assert written_dates("my mum was born on 10 September 1960.") == ["1960-09-10"]
    assert written_dates("the 1st of March 2001") == ["2001-03-01"]
    assert written_dates("since July 19, 1985") == ["1985-07-19"]
    assert written_dates("paid on 2024-02-28") == ["2024-02-28"]


def test_slashes_are_read_day_first_unless_the_first_cannot_be_a_month() -> None:
    assert written_dates("03/04/1990") == ["1990-04-03"]
    assert written_dates("12/25/1990") == ["1990-12-25"]


def test_no_whole_date_no_iso_date() -> None:
    assert written_dates("on 9 May") == []  # no year
    assert written_dates("31/02/1990") == []  # no such day
    assert written_dates("version v1.2.2020") == []


def test_a_parameter_takes_an_iso_date_by_its_description_or_format() -> None:
    assert takes_an_iso_date(ISO)
    assert takes_an_iso_date({"type": "string", "format": "date"})
    assert not takes_an_iso_date({"type": "string", "description": "When, e.g. next Friday"})
    assert not takes_an_iso_date({"type": "integer", "description": "Year (YYYY-MM-DD)"})


def _date_pattern(schema: dict[str, Any], request: str) -> Any:
    whole = {
        "type": "object",
        "properties": {"date_of_birth": schema},
        "required": ["date_of_birth"],
    }
    return argument_schema(whole, request)["properties"]["date_of_birth"]


def test_the_grammar_takes_only_the_dates_written_in_iso() -> None:
    narrowed = _date_pattern(ISO, "Hi there, my mum was born on 10 September 1960.")
    assert narrowed["pattern"] == "^(1960-09-10)$"
    by_format = _date_pattern({"type": "string", "format": "date"}, "DOB 14/03/1968 please")
    assert by_format["pattern"] == "^(1968-03-14)$"
    assert "format" not in by_format
    assert "1960" not in _date_pattern(ISO, "born in September, when do I retire?")["pattern"]
