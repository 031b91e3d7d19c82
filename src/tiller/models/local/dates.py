"""Calendar dates a request writes, for a parameter that takes them as YYYY-MM-DD.

A tool that documents its date as ISO 8601 ("Date of birth, YYYY-MM-DD", or `"format":
"date"`) gets the date the request writes in that form, whatever way it was written:
"born 5 may 1964" -> "1964-05-05", "DOB 14/03/1968" -> "1968-03-14", "July 19, 1985" ->
"1985-07-19". Only whole dates count: "on 9 May" has no year to write, and is left to the
words the request says. Numbers written with slashes are read day first, as in Britain,
unless the first cannot be a day's month ("12/25/1990" is December).
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

_MONTH_NUMBERS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = rf"(?P<month>{'|'.join(sorted(_MONTH_NUMBERS, key=len, reverse=True))})\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:1[89]|20)\d\d)"
_DATE = re.compile(
    r"(?<![\w/.-])(?:"
    rf"(?P<iso>\d{{4}}-\d{{2}}-\d{{2}})"
    r"|(?P<a>\d{1,2})[/.](?P<b>\d{1,2})[/.](?P<y>(?:1[89]|20)\d\d)"
    rf"|{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}"
    rf"|{_MONTH.replace('month', 'month2')}\s+{_DAY.replace('day', 'day2')},?\s+"
    rf"{_YEAR.replace('year', 'year2')}"
    r")(?![\w/-])",
    re.I,
)
# How a description says its date is written: "YYYY-MM-DD", "ISO 8601 date".
_ISO_SAID = re.compile(r"\bYYYY-MM-DD\b|\bISO[ -]?8601\b", re.I)


def takes_an_iso_date(schema: dict[str, Any]) -> bool:
    """Whether a string parameter takes a date written YYYY-MM-DD."""
    if schema.get("type") != "string" or "enum" in schema:
        return False
    said = f"{schema.get('description', '')} {schema.get('pattern', '')}"
    return schema.get("format") == "date" or _ISO_SAID.search(said) is not None


def dates_written(text: str) -> list[tuple[int, int, str]]:
    """Each whole date `text` writes: where it starts and ends, and it as YYYY-MM-DD."""
    found = []
    for match in _DATE.finditer(text):
        iso = _as_iso(match)
        if iso is not None:
            found.append((match.start(), match.end(), iso))
    return found


def written_dates(text: str) -> list[str]:
    """The whole dates `text` writes, as YYYY-MM-DD, each once, in order."""
    return list(dict.fromkeys(iso for _, _, iso in dates_written(text)))


def _as_iso(match: re.Match[str]) -> str | None:
    if match["iso"]:
        year, month, day = (int(n) for n in match["iso"].split("-"))
    elif match["y"]:
        first, second, year = int(match["a"]), int(match["b"]), int(match["y"])
        day, month = (second, first) if first <= 12 < second else (first, second)
    elif match["year"]:
        day, month, year = int(match["day"]), _month(match["month"]), int(match["year"])
    else:
        day, month, year = int(match["day2"]), _month(match["month2"]), int(match["year2"])
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None  # "31/02/1990" is no date


def _month(name: str) -> int:
    return _MONTH_NUMBERS[name.lower().rstrip(".")]
