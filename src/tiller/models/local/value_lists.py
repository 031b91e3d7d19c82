"""Several values of one shape listed for one request: "tickets 4418, 4502 and 5110".

A list of codes, numbers, phone numbers or postcodes, written the same way and joined by
commas and "and" ("on 07700 900123 and 07700 900789", "LS6 2AA and G12 8QQ", "the cards
ending 1142 & 9087"), asks the same thing of each: the request is read once per value,
with that value in the list's place. A value here holds a digit: lists of names ("Paris
and Oslo") are read as clauses (`clauses.py`).

Two values of one shape say one thing, not two, where a range or a sum joins them
("between 9 and 5", "add 19 and 23", "12 * 7 and 144 / 12"), and a quoted text is one
value.
"""

from __future__ import annotations

import re
from dataclasses import replace
from itertools import pairwise

from tiller.models.base import ToolSpec
from tiller.models.local.clauses import QUOTED
from tiller.models.local.code_shapes import CAPITALS, code_shapes, example_code, like_the_example
from tiller.models.local.dates import dates_written, takes_an_iso_date
from tiller.models.local.intent import ACTION_VERBS, asks_a_question
from tiller.models.local.parameter_kinds import (
    Kind,
    numbers_for,
    parameters,
    stated_with_its_unit,
)
from tiller.models.local.request_numbers import request_numbers
from tiller.models.local.subjects import Choice

# A value: a word that holds a digit ("4418", "PA-3318207", "#12", "LS6"), and the words
# of the same kind after it ("07700 900123", "G12 8QQ").
_TOKEN = r"#?(?:[A-Za-z]{1,4}-?)?\d[\w/-]*"
# After a word with a digit, capitals alone go on with it: "YR68 HGT" (not "AND").
_CAPITALS = r"(?!AND\b|OR\b)[A-Z]{2,4}\b"
_VALUE = rf"{_TOKEN}(?: (?:{_TOKEN}|{_CAPITALS})){{0,2}}"
# A note in brackets after a value goes with it: "302-1184 (faulty) and 302-1190 (not
# delivered)".
_NOTE = r"(?: \([^()\n]{1,40}\))?"
# Joined by commas, "and", "&", or as the lines of a list ("\n- G12 8QQ\n- PL20 6HB").
_JOIN = r"(?:,\s+and\s+|,\s+|\s+and\s+|\s*&\s*|\s*\n\s*(?:[-*•]\s+)?)"
_LIST = re.compile(rf"(?<![\w.#/*+^=-])({_VALUE}{_NOTE})((?:{_JOIN}{_VALUE}{_NOTE})+)(?![\w%])")
_ITEM = re.compile(rf"({_VALUE}){_NOTE}")
# What makes two numbers one thing: a range, a sum, a fraction, a measure of two.
_JOINED_BEFORE = re.compile(
    r"(?:\bbetween|\bfrom|\badd(?:\s+up)?|\bplus|\bsum of|\bmultiply|\btimes|\bdivide|"
    r"[-+*/×÷=^(])\s*$",
    re.I,
)
_JOINED_AFTER = re.compile(
    # A dash before words is no minus: "140 cm and 147 cm - what size for each?"
    r"^\s*(?:[+*/×÷=^)%]|-(?!\s+[A-Za-z])|(?:a )?(?:half|quarter)s?\b|percent\b|added\b|together\b|"
    r"combined\b|in total\b)",
    re.I,
)


# A dash or a star opening a line: "- G12 8QQ".
_BULLET = re.compile(r"(?:^|(?<=\n))\s*[-*•]\s*$")


def shape(value: str) -> str:
    """How a value is written, its runs of digits, small letters and capitals each told
    as one: "LS6 2AA" and "G12 8QQ" are both "A9 9A"."""
    digits = re.sub(r"\d+", "9", value)
    return re.sub(r"[A-Z]+", "A", re.sub(r"[a-z]+", "a", digits))


def listed_values(request_text: str) -> tuple[int, int, list[str]] | None:
    """The first list of two or more values of one shape in the request: where it starts and
    ends, and its values; None when there is none."""
    quoted = [m.span() for m in QUOTED.finditer(request_text)]
    for found in _LIST.finditer(request_text):
        start, end = found.span()
        items = list(_ITEM.finditer(found[0]))
        values = [m[0] for m in items]
        if len({shape(m[1]) for m in items}) != 1 or len({m[1] for m in items}) < 2:
            continue
        if any(a <= start < b for a, b in quoted):
            continue
        before = _BULLET.sub("", request_text[:start])  # a list's dash is no minus
        if _JOINED_BEFORE.search(before) or _JOINED_AFTER.match(request_text[end:]):
            continue
        return start, end, values
    return None


# A number before a plural: "two recipes", "3 sales".
_COUNTED = re.compile(r"\b([a-z]+|\d+) (?=[a-z-]{3,}s\b)", re.I)


def without_the_count(heading: str, count: int) -> str:
    """The heading of a list without the number that counts its entries, which is no value
    of any one of them: "Save two recipes for me: ..." -> "Save recipes for me: ..."."""
    for found in _COUNTED.finditer(heading):
        if request_numbers(found[1]) == [str(count)]:
            return heading[: found.start()] + heading[found.end() :]
    return heading


# What may join quoted values of a list: "'Nan's Welsh Cakes' and 'Quick Tomato Soup'".
_QUOTES_JOINED = re.compile(r"\s*(?:,|&|,?\s*(?:and|or))\s*")


def _listed_quotes(request_text: str, tool: ToolSpec) -> tuple[int, int, list[str]] | None:
    """Quoted passages listed one after another, for a tool that requires one free text
    and no list: "Save two recipes: 'Nan's Welsh Cakes' and 'Quick Tomato Soup'" saves
    each."""
    if any(p.required and p.schema.get("type") == "array" for p in parameters(tool.parameters)):
        return None
    texts = [
        p
        for p in parameters(tool.parameters)
        if p.required and p.kind is Kind.TEXT and "enum" not in p.schema
    ]
    if len(texts) != 1:
        return None
    found = list(QUOTED.finditer(request_text))
    run = found[:1]
    for before, after in pairwise(found):
        if _QUOTES_JOINED.fullmatch(request_text[before.end() : after.start()]):
            run.append(after)
        elif len(run) >= 2:
            break
        else:
            run = [after]
    if len(run) < 2:
        return None
    return run[0].start(), run[-1].end(), [m[0] for m in run]


def each_value(request_text: str, tool: ToolSpec) -> list[str]:
    """The request once per value of its list of values of one shape, or [] when it lists
    none: "check tickets 4418 and 4502" -> "check tickets 4418", "check tickets 4502".
    Numbers alone are one value each only for a tool that takes no two numbers at once
    (a range of lines, two operands) and no expression; and a tool that takes a list
    takes the values together ("a poll: the 12th, 19th or 26th?"), unless it requires one
    text and quoted passages are listed: its list is then another, optional, value
    ("ingredients" of a recipe whose titles are quoted)."""
    quotes = _listed_quotes(request_text, tool)
    if quotes is not None:
        start, end, values = quotes
        before = without_the_count(request_text[:start], len(values))
        return [f"{before}{value}{request_text[end:]}" for value in values]
    if _takes_a_list(tool):
        return []
    entries = _each_entry(request_text, tool)
    if entries:
        return entries
    dated = _each_date(request_text, tool)
    if dated:
        return dated
    listed = (
        _listed_with_the_same_word(request_text)
        or listed_values(request_text)
        or _listed_capital_codes(request_text, tool)
    )
    if listed is None:
        return []
    start, end, values = listed
    if all(v.isdigit() for v in values) and _takes_numbers_together(tool):
        return []
    return [f"{request_text[:start]}{value}{request_text[end:]}" for value in values]


# Values that each repeat the same word before or after their digits: a system's name
# ("RAL 9010 and RAL 6005") or a unit ("140 cm and 147 cm").
_SAME_WORD_BEFORE = re.compile(
    rf"(?<![\w-])([A-Za-z]{{2,10}}) {_TOKEN}(?:{_JOIN}\1 {_TOKEN})+(?![\w%])"
)
_SAME_WORD_AFTER = re.compile(
    rf"(?<![\w.#/*+^=-]){_TOKEN} ?([a-z]{{1,5}})\b(?:{_JOIN}{_TOKEN} ?\1\b)+"
)


def _listed_with_the_same_word(request_text: str) -> tuple[int, int, list[str]] | None:
    """A list whose values each write the same word with their digits, the word kept with
    each: "what are RAL 9010 and RAL 6005?", "My twins are 140 cm and 147 cm"; not where
    a range or a sum joins them ("from 9 am to 5 am")."""
    for pattern in (_SAME_WORD_BEFORE, _SAME_WORD_AFTER):
        for found in pattern.finditer(request_text):
            start, end = found.span()
            values = [v for v in re.split(_JOIN, found[0]) if v]
            if len(set(values)) < 2 or any(a <= start < b for a, b in _quoted(request_text)):
                continue
            if _JOINED_BEFORE.search(request_text[:start]) or _JOINED_AFTER.match(
                request_text[end:]
            ):
                continue
            return start, end, values
    return None


def _quoted(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in QUOTED.finditer(text)]


def _each_date(request_text: str, tool: ToolSpec) -> list[str]:
    """The request once per whole date it writes, the other dates left out, for a tool
    that takes one date as YYYY-MM-DD: "I was born 3 Dec 1970, he was born 19 July 1985"
    asks of each birthday. A tool that takes two dates (a start and an end) takes them
    together."""
    takes = [p for p in parameters(tool.parameters) if takes_an_iso_date(p.schema)]
    found = dates_written(request_text)
    if len(takes) != 1 or len({iso for *_, iso in found}) < 2:
        return []
    asked = []
    for keep in found:
        text = request_text
        for start, end, _ in reversed(found):
            if (start, end) != keep[:2]:
                text = f"{text[:start].rstrip()}{text[end:]}"
        asked.append(text)
    return list(dict.fromkeys(asked))


# A list after a heading: "Log two readings please: 5.9 fasting, and 7.7 after lunch".
_HEADED_LIST = re.compile(r"^(?P<head>[^:\n]{3,80}?):\s+(?P<entries>[^:\n]+?)\W*$")
# Between entries: a semicolon when the entries hold commas, else a comma or "and".
_ENTRY_BREAKS = (re.compile(r"\s*;\s*(?:and\s+)?"), re.compile(r",\s*(?:and\s+)?|\s+and\s+"))


def _each_entry(request_text: str, tool: ToolSpec) -> list[str]:
    """The request once per entry of the list after its heading, for a tool that takes
    several values: each entry holds a number or a code of its own and the values that go
    with it ("Order from Booker: 5 cases of milk, 8 cases of bread and 3 cases of eggs" ->
    "Order from Booker: 5 cases of milk", ...; "Stocktake corrections: batteries +15, bin
    bags -4"). Entries split at semicolons when there are any ("history - read chapter 3,
    due 2025-05-06; biology - ...")."""
    if len(parameters(tool.parameters)) < 2 or _quoted(request_text):
        return []
    found = _HEADED_LIST.match(request_text.strip())
    if found is None:
        return []
    breaks = _ENTRY_BREAKS[0] if ";" in found["entries"] else _ENTRY_BREAKS[1]
    entries = [e for e in breaks.split(found["entries"]) if e]
    if any(_a_clause_of_its_own(e) for e in entries):
        return []  # "Two things: donate £15 to Shelter, and remind me at 8pm ..."
    held = {_values_held(e, tool) for e in entries}
    if len(entries) < 2 or len(held) != 1 or not held.pop():
        return []  # "exercise 5B questions 1-12, due 2025-03-14" is one entry's values
    head = without_the_count(found["head"], len(entries))
    return [f"{head}: {entry}" for entry in entries]


# A verb and what it acts on: "donate £15", "remind me"; not "book club thursday 8pm".
_AN_INSTRUCTION = re.compile(
    r"^(\w+)\s+(?:me|us|him|her|them|it|an?|the|my|our|your|some|\d|[£$€])\b", re.I
)
# Where a sentence ends inside an entry: "level 3, row K. Then set a budget".
_SENTENCE_END = re.compile(r"[.!?]\s+\S")


def _a_clause_of_its_own(entry: str) -> bool:
    """Whether an entry is an instruction or a question of its own, or runs on into the next
    sentence, so the list is of clauses, not of entries: "donate £15 to Shelter", "what's
    on lines 2"."""
    instructs = _AN_INSTRUCTION.match(entry)
    return (
        (instructs is not None and instructs[1].lower() in ACTION_VERBS)
        or asks_a_question(entry)
        or _SENTENCE_END.search(entry) is not None
    )


def _values_held(entry: str, tool: ToolSpec) -> frozenset[str]:
    """The tool's parameters an entry writes a number, a whole date or a code for. A
    number written with a parameter's unit is that parameter's only: "40 litres on
    Monday" gives litres, not also the cost or the odometer reading."""
    held = set()
    numbers = [
        p
        for p in parameters(tool.parameters)
        if p.kind is Kind.NUMBER and numbers_for(p.schema, entry)
    ]
    with_units = [p for p in numbers if stated_with_its_unit(p, entry)]
    for p in parameters(tool.parameters):
        if p.kind is Kind.NUMBER:
            found = p in (with_units or numbers)
        elif takes_an_iso_date(p.schema):
            found = bool(dates_written(entry))
        else:
            found = p.kind is Kind.TEXT and like_the_example(p.schema, entry) is not None
        if found:
            held.add(p.name)
    return frozenset(held)


# Codes of capitals alone, listed: "KEF and FAO", "LHR, DUB and EDI".
_CAPITAL_CODES = re.compile(rf"\b([A-Z]{{2,5}})((?:{_JOIN}[A-Z]{{2,5}}\b)+)")


def _listed_capital_codes(request_text: str, tool: ToolSpec) -> tuple[int, int, list[str]] | None:
    """A list of codes of capitals alone, for a tool that takes one such code ("Three-letter
    IATA airport code, e.g. LHR" and "KEF and FAO - which airports are they"), each of the
    example's length; none when capitals alone are no code the tool takes."""
    lengths = {
        len(example_code(p.schema) or "")
        for p in parameters(tool.parameters)
        if p.kind is Kind.TEXT and code_shapes(p.schema) == [CAPITALS]
    }
    for found in _CAPITAL_CODES.finditer(request_text):
        values = re.findall(r"[A-Z]{2,5}", found[0])
        if len(set(values)) >= 2 and {len(v) for v in values} <= lengths:
            return found.start(), found.end(), values
    return None


def merged(asked: list[list[Choice]]) -> list[Choice]:
    """The choices made for each value, in order, each choice once: a clause the values do
    not touch ("and what's the weather in Paris") is asked once."""
    out: list[Choice] = []
    for choices in asked:
        at: list[int] = []  # where each of `choices` is in `out`
        for choice in choices:
            placed = replace(
                choice,
                continues=None if choice.continues is None else at[choice.continues],
                refers=None if choice.refers is None else at[choice.refers],
            )
            if placed not in out:
                out.append(placed)
            at.append(out.index(placed))
    return out


def _takes_a_list(tool: ToolSpec) -> bool:
    return any(p.schema.get("type") == "array" for p in parameters(tool.parameters))


def _takes_numbers_together(tool: ToolSpec) -> bool:
    kinds = [p.kind for p in parameters(tool.parameters)]
    return Kind.EXPRESSION in kinds or kinds.count(Kind.NUMBER) >= 2
