"""Requests that name several subjects: "the time in Lisbon and in Seoul".

A request is split where one clause ends and another begins (sentence ends,
semicolons, "and", "also", "as well as"). Each part long enough to stand alone
is decided on its own, so "what's 12 * 7 and what's the weather in Paris?"
becomes two calls. A short part that only names another subject ("and in
Seoul", "and Rome") continues the clause before it: the same request, about
the new subject, made by putting the part's new words where the earlier
clause's argument value was ("What time is it in Lisbon" -> "What time is it
in Seoul").

Arithmetic is not split: "add 19 and 23" is one expression, because its parts
are numbers joined by "and" (a part of numbers only continues the clause's
expression, which took them all).
"""

from __future__ import annotations

import re
from typing import Any

from tiller.models.local.argument_schema import request_words, written_expression

MIN_CLAUSE_WORDS = 3  # fewer words only name a subject: "in Seoul", "and Rome"

_BREAK = re.compile(
    r"(?<=[?!])\s+|(?<=\w[.])\s+(?=[A-Z])|\s*;\s*|,?\s+(?:and also|as well as|and|also|plus|"
    r"then)\s+|,\s+(?=(?:what|what's|how|is|are|and|also|tell|give|show|convert|set|send|"
    r"find|check|get)\b)",
    re.I,
)
# Words a short part adds without naming a subject: "and Rome, please", "and Oslo too".
_FILLERS = frozenset({"please", "too", "also", "thanks", "then", "as", "well", "now"})
_NUMBERS_ONLY = re.compile(r"^[\d\s.,+*/()-]+$")


def parts_of(request_text: str) -> list[str]:
    """The request cut where one clause ends and another may begin."""
    return [p.strip(" ,") for p in _BREAK.split(request_text.strip()) if p and p.strip(" ,.?!")]


def stands_alone(part: str) -> bool:
    """Whether a part is a clause of its own rather than another subject for the last one."""
    if written_expression(part):
        return True  # "and 144 / 12": an expression of its own
    return len(request_words(part)) >= MIN_CLAUSE_WORDS and not _NUMBERS_ONLY.match(part)


def new_words(clause: str, part: str) -> list[str]:
    """The words `part` adds to `clause`: none when it is a bare number, which joined by
    "and" belongs to the clause's own expression or amount ("add 19 and 23")."""
    if _NUMBERS_ONLY.match(part):
        return []
    known = {w.lower() for w in request_words(clause)} | _FILLERS
    new = [w for w in request_words(part) if w.lower() not in known]
    return new if any(not _NUMBERS_ONLY.match(w) for w in new) else []


def continued(clause: str, arguments: dict[str, Any], part: str) -> str | None:
    """`clause` about the subject `part` names instead of its own, or None when it cannot
    be said: the part must add words, and the clause's argument value must be written in
    it to be replaced by them."""
    new = new_words(clause, part)
    if not new:
        return None
    for value in arguments.values():
        if isinstance(value, str) and value.strip() and value in clause:
            return clause.replace(value, " ".join(new), 1)
    return None
