"""Words that say when, and which parameters take them.

A request often says when as well as what: "the water at Tooting Bec Lido today",
"book a court at Victoria Park on Saturday at 9am". A small model copying values
puts "today" into the lido's name and "9am" into the day, so a free-text value
takes a word of time only when its parameter speaks of one, and of the kind it
speaks of: a day ("Day to play, e.g. Saturday") takes no clock time, a time of
day ("Start time, e.g. 18:00") takes no day. A parameter that speaks of both
("when to remind") takes either.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday"
_MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
# Days said by name or relative to now: "saturday(s)", "tomorrow", "14 june".
_RELATIVE_DAYS = "today tomorrow yesterday tonight weekend weekday weekdays"
DAY_WORDS = frozenset(
    [*_WEEKDAYS.split(), *(f"{d}s" for d in _WEEKDAYS.split()), *_RELATIVE_DAYS.split()]
)
MONTHS = frozenset(_MONTHS.split())
_ALSO_VERBS = frozenset({"may", "march"})
# Words that say when, but no day nor clock time: "now", "at the moment", "lately".
_WHEN_WORDS = frozenset(
    "now currently moment lately recently morning afternoon evening night time times".split()  # noqa: SIM905
)
# A clock time: "9am", "5:30pm", "18:00", "noon".
_CLOCK = re.compile(r"\d{1,2}(?:[:.]\d{2})?\s?(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}:\d{2}|noon|midnight")
_SPEAKS_OF_A_DAY = re.compile(r"\b(?:day|days|date|dates|when)\b", re.I)
_SPEAKS_OF_A_MONTH = re.compile(r"\bmonths?\b", re.I)
_SPEAKS_OF_A_CLOCK = re.compile(r"\b(?:time|times|hour|clock|when)\b", re.I)
# A day of the month: "1st" to "31st", not a "60th" birthday.
_ORDINAL = re.compile(r"(?:[12]?\d|3[01])(?:st|nd|rd|th)")


def is_clock_time(word: str) -> bool:
    return _CLOCK.fullmatch(word.lower()) is not None


def is_day(word: str) -> bool:
    """A day's name, a relative day, a month or a day of the month ("14th")."""
    low = word.lower()
    if low in _ALSO_VERBS:
        return word[:1].isupper()  # "in May", not "you may"
    return low in DAY_WORDS or low in MONTHS or _ORDINAL.fullmatch(low) is not None


def says_when(word: str) -> bool:
    return is_day(word) or is_clock_time(word) or word.lower() in _WHEN_WORDS


def speaks_of(name: str, schema: dict[str, Any]) -> tuple[bool, bool]:
    """Whether a parameter's name and description speak of a day, and of a clock time."""
    words = f"{name.replace('_', ' ')} {schema.get('description', '')}"
    return bool(_SPEAKS_OF_A_DAY.search(words)), bool(_SPEAKS_OF_A_CLOCK.search(words))


def not_for(name: str, schema: dict[str, Any], words: list[str]) -> frozenset[str]:
    """The request's words (lower case) that say when in a way the parameter does not take:
    any such word for a parameter that speaks of no time, a clock time for a day's, a day
    for a clock time's. "right" goes with "now", and a number with its month ("25
    december")."""
    day, clock = speaks_of(name, schema)
    if day and clock:
        return frozenset()
    out = set()
    dated = set(days_of_the_month(" ".join(words)))  # "25" of "25 december" is a day too
    for i, word in enumerate(words):
        if day:
            wrong = is_clock_time(word)
        elif clock:
            wrong = is_day(word) or word in dated
        else:
            wrong = (
                says_when(word)
                or word in dated
                or (word.lower() == "right" and words[i + 1 : i + 2] in (["now"], ["Now"]))
            )
        if wrong:
            out.add(word.lower())
    return frozenset(out)


_DAY_OF_MONTH = re.compile(
    rf"(?<![\w.])(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{'|'.join(sorted(MONTHS))})\b"
    rf"|\b(?:{'|'.join(sorted(MONTHS))})\s+(\d{{1,2}})(?:st|nd|rd|th)?(?![\w.])",
    re.I,
)


def days_of_the_month(request_text: str) -> list[str]:
    """The numbers the request writes as a day with its month ("9 May", "June 14th"): a
    date's, not a count."""
    return [m[1] or m[2] for m in _DAY_OF_MONTH.finditer(request_text) if is_day(_month(m[0]))]


def _month(found: str) -> str:
    return next(str(w) for w in re.findall(r"[A-Za-z]+", found) if w.lower() in MONTHS)


def said_when(
    name: str, schema: dict[str, Any], words: list[str], *, day_elsewhere: bool = False
) -> list[str]:
    """The request's phrases of the kind of time a parameter takes, each once: days for
    a day's ("Saturday", "next Friday", "9 May"), months for a month's ("in July"), clock
    times for a time's ("5:30pm"),
    and for one that takes both, a day said with a clock time ("friday 10am", "8pm on
    Sunday"), or only the clock time when another parameter of the tool takes the day
    (`day_elsewhere`); none when it takes neither, or the request says none."""
    day, clock = speaks_of(name, schema)
    if not day and not clock:
        # A month's: "Month of the visit, e.g. July" takes "July" of "in July".
        said = f"{name.replace('_', ' ')} {schema.get('description', '')}"
        if not _SPEAKS_OF_A_MONTH.search(said):
            return []
        return list(dict.fromkeys(w for w in words if w.lower() in MONTHS and is_day(w)))
    if clock and (not day or day_elsewhere):
        return list(dict.fromkeys(w for w in words if is_clock_time(w)))
    days = _day_phrases(words)
    if not clock:
        return list(dict.fromkeys(" ".join(words[a:b]) for a, b in days))
    both = []
    # A day said in the plural recurs ("on weekdays", "sundays"): it is no day of a time.
    for a, b in (span for span in days if not words[span[1] - 1].lower().endswith("s")):
        after = b + (b < len(words) and words[b].lower() == "at")
        before = a - (a > 0 and words[a - 1].lower() == "on")
        if after < len(words) and is_clock_time(words[after]):
            both.append(" ".join(words[a : after + 1]))
        elif before > 0 and is_clock_time(words[before - 1]):
            both.append(" ".join(words[before - 1 : b]))
    return list(dict.fromkeys(both))


def takes_a_day_elsewhere(name: str, properties: Any) -> bool:
    """Whether a parameter of the tool other than `name` takes a day and no clock time:
    the "date" beside a "time" that speaks of both ("Start time; omit for an all-day
    event"). A number of days ("days": 3) is no day."""
    if not isinstance(properties, Mapping):
        return False
    return any(
        other != name
        and isinstance(schema, dict)
        and schema.get("type") not in ("integer", "number")
        and speaks_of(other, schema) == (True, False)
        for other, schema in properties.items()
    )


def _day_phrases(words: list[str]) -> list[tuple[int, int]]:
    """Where the words say a day: a day's name, "next Friday", "9 May"."""
    spans: list[tuple[int, int]] = []
    start: int | None = None
    for i, word in enumerate(words):
        following = words[i + 1 : i + 2]
        if (
            is_day(word)
            or (
                word.isdigit() and any(w.lower() in MONTHS for w in (*words[i - 1 : i], *following))
            )
            or (word.lower() in ("next", "this") and bool(following) and is_day(following[0]))
        ):
            start = i if start is None else start
        elif start is not None:
            spans.append((start, i))
            start = None
    if start is not None:
        spans.append((start, len(words)))
    return spans
