"""Parts that only give details of the call before them.

A request split at its commas can leave a part that is no request of its own: "log a
migraine, severity 8, and set a reminder ...", "Add the match v Riverside Vets, home,
12 Oct 2024, kick-off 14:30". "severity 8" names nothing; it gives the migraine's
severity. Such a part belongs to the call before it, not to a call of its own.

A part is a detail when it gives values only for parameters the call's own text gives
none of, and says nothing besides them but the parameters' names, units and small
words. A part that gives a value the call already has asks again of another subject
("a glaze firing for six" after "a bisque firing for 15 pieces"; "And 2026?" after
"Public holidays in Canada in 2025?").
"""

from __future__ import annotations

import re

from tiller.models.base import ToolSpec
from tiller.models.local.dates import dates_written, takes_an_iso_date
from tiller.models.local.parameter_kinds import Kind, Parameter, numbers_for, parameters
from tiller.models.local.request_words import request_words
from tiller.models.local.time_words import (
    MONTHS,
    is_clock_time,
    is_day,
    said_when,
    takes_a_day_elsewhere,
)
from tiller.models.local.value_choice import closed_choices, said_values

# Words that join a detail to its value: "2 out of 10", "kick-off at 14:30".
_JOINING = frozenset("a an the of out at on by for to is and with in x".split())  # noqa: SIM905
# A unit written after its number: "4.4 kg", "30 mins".
_UNIT = re.compile(r"[a-z]{1,4}", re.I)


def given(tool: ToolSpec, text: str) -> frozenset[str]:
    """The parameters of `tool` that `text` gives a value of: a number in its bounds, a
    value of its closed set, a day, clock time or date of the kind it takes."""
    words = request_words(text)
    found = set(said_values(tool, text, closed_choices(tool)))
    properties = tool.parameters.get("properties")
    for parameter in parameters(tool.parameters):
        if _gives(parameter, text, words, takes_a_day_elsewhere(parameter.name, properties)):
            found.add(parameter.name)
    return frozenset(found)


def _gives(parameter: Parameter, text: str, words: list[str], day_elsewhere: bool) -> bool:
    if parameter.kind is Kind.NUMBER:
        return bool(numbers_for(parameter.schema, text))
    if parameter.kind in (Kind.TEXT, Kind.CONSTRAINED):
        when = said_when(parameter.name, parameter.schema, words, day_elsewhere=day_elsewhere)
        return bool(when) or (takes_an_iso_date(parameter.schema) and bool(dates_written(text)))
    return False


def only_details_of(tool: ToolSpec, text: str, part: str) -> bool:
    """Whether `part` only gives values of `tool`'s parameters that the call's `text`
    gives none of: "severity 8" after "log a migraine", "£399)" after "dishwasher
    (kitchen"."""
    giving = given(tool, part)
    if not giving or giving & given(tool, text):
        return False
    return not _other_words(tool, part)


def _other_words(tool: ToolSpec, part: str) -> list[str]:
    """The part's words that are none of a detail's: a number, a day, month or clock
    time, a closed value, a parameter's name, a unit after a number, a joining word."""
    names = {w for p in parameters(tool.parameters) for w in re.findall(r"[a-z]+", p.name.lower())}
    closed = {
        w
        for values in closed_choices(tool).values()
        for v in values
        for w in re.findall(r"\w+", v.lower())
    }
    known = names | closed | _JOINING | MONTHS
    other: list[str] = []
    previous = ""
    for word in request_words(part):
        pieces = [p for p in re.split(r"[-/]", word.lower()) if p]
        unit = bool(re.search(r"\d", previous)) and _UNIT.fullmatch(word) is not None
        previous = word
        if any(c.isdigit() for c in word) or is_day(word) or is_clock_time(word) or unit:
            continue
        if pieces and all(p in known for p in pieces):
            continue
        other.append(word)
    return other
