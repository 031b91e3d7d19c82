"""The JSON schema a small model's tool arguments are generated under.

llama.cpp turns a JSON schema into a grammar, so arguments always parse and
match the tool's schema. On top of the tool's own schema we narrow free-text
strings, because greedy decoding with a 135M model otherwise
- closes an empty string at once, or never closes one (so strings get bounds);
- "closes the JSON" inside a string, `17 * 23 }` (so no braces, quotes or line breaks);
- invents values: `file.txt` for "version.txt", `17 * 275` for "350 and 275".

So a free string is copied from the request's words (`free_text.py`): an unbroken
run of them, in order, that begins and ends with a word that names something, and
holds no word another part of the call takes (`taken_elsewhere`): the tool's own
name ("prices" is no town for `fuel_prices`), a value of one of its closed sets
("diesel"), a number a number parameter takes with that parameter's unit ("2.5 kg"
goes to `weight_kg`, not to `meat`), but not the day of a date ("14 August"). A
word that says when goes only to a parameter that speaks of that kind of time
(`time_words.py`): "today" is no part of a lido's name, a day's parameter takes a
day the request says and a clock time's a time ("thursday", "5:30pm").
The parameter named by a word of the tool's name (`council` of `council_tax_rates`)
takes a name the request writes inside a sentence, when it writes one and quotes
nothing ("Compare band D council tax in Leeds": "Leeds", not "Compare band"), and a
parameter that takes a place a part of the request does not name takes a name the
whole request writes ("moving to York. What are rents like there").
What a parameter takes is read from its schema and words (`parameter_kinds.py`),
and two kinds take something narrower than words:
- a path takes one of the request's path-like words whole;
- an arithmetic expression takes the request's numbers, in order, joined by
  operators and grouped by parentheses ("split 186 between 6" -> `186 / 6`;
  a percentage divides by 100). Copying words there gave `186, 6` and `3.2 km`.
Lists get at most `MAX_ITEMS` items unless the schema says how many, and an object
that declares no properties (free-form) is generated empty: with either left open,
greedy decoding adds items or invented keys without end. A number parameter takes one
of the request's numbers when it has any
("90 euros" -> 90, not 1.99) within the schema's bounds. Values the schema
already constrains (enum, pattern, format) are left to the schema. A free string
whose description gives a code as its example ("Ticker symbol, e.g. AAPL") takes
a request word of that shape when there is one ("NVDA", not "NVDA at the
moment"). An optional parameter whose
value the request does not hold is left out of the schema, so it cannot be
invented (`end_line: 123` for "show me notes.txt"), and an optional number the request
states with its unit ("for 10 minutes", "500mg" and `dose_mg`) is required, so it is
not left out either.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from tiller.models.local.claims import claimed_by_others, claimed_names
from tiller.models.local.clauses import QUOTED
from tiller.models.local.code_shapes import (
    BARE_NUMBER,
    CAPITALS,
    code_shapes,
    like_the_example,
)
from tiller.models.local.commands import written_command
from tiller.models.local.dates import dates_written, takes_an_iso_date, written_dates
from tiller.models.local.free_text import WORD_SEPARATOR, free_text_pattern, writes_a_name
from tiller.models.local.money import numbers_by_money
from tiller.models.local.parameter_kinds import (
    Kind,
    Parameter,
    kind_of,
    numbers_after_its_name,
    numbers_for,
    numbers_with_its_unit,
    offered,
    parameters,
    path_words,
    spanned,
    stated_with_its_unit,
    takes_a_command,
    takes_a_file,
    takes_a_written_number,
    within,
    written_numbers,
)
from tiller.models.local.places import names_a_place, names_a_town, takes_a_place
from tiller.models.local.regex_subset import in_order, literal, word_pattern
from tiller.models.local.request_numbers import request_numbers, written_expression
from tiller.models.local.request_words import MAX_WORDS, request_words
from tiller.models.local.time_words import (
    days_of_the_month,
    not_for,
    said_when,
    takes_a_day_elsewhere,
)

MAX_STRING = 200  # characters, for string arguments whose schema sets no maxLength
MAX_ITEMS = 3  # items, for arrays whose schema sets no maxItems
PLAIN_STRING_PATTERN = '^[^{}\\n"\\\\]{%d,%d}$'  # no braces, line breaks, quotes or backslashes
ALL_NUMBERS = 6  # an expression uses all of up to this many numbers from the request

_NOT_FOR_GRAMMAR = frozenset({"title", "description", "examples"})
_NAME_MAPS = frozenset({"properties", "$defs", "definitions", "patternProperties"})
_PERCENT = re.compile(r"%|\bper ?cent\b", re.I)
# A word named as a word: "the word Tuesday", "the phrase 'first release'", "the string
# main(". "The term" names one only in quotes ("the term 'lazy loading'", not "the term
# dates").
_A_NAMED_WORD = re.compile(
    r"\bthe (?:(?:word|phrase|string)\s+(?!(?:counts?|limit|for|of|in|is|that|which)\b)|term\s+"
    r"(?=[\"'“‘`]))(?:[\"'“‘`](?P<quoted>[^\"'”’`]+)[\"'”’`]|(?P<word>[^\s\"'”’`,.?!;:]+))",
    re.I,
)
# A parameter that holds a text to write or look for: "content", "Text to search for".
_TAKES_A_TEXT = re.compile(
    r"\b(?:content|contents|text|body|message|note|pattern|query|phrase|line|lines)\b", re.I
)


def _the_quote(request_text: str, taken: frozenset[str]) -> str | None:
    """The one passage the request quotes, when no other parameter takes it."""
    quotes = [m[0][1:-1].strip() for m in QUOTED.finditer(request_text)]
    quotes = [q for q in quotes if q and q.lower() not in taken]
    return quotes[0] if len(quotes) == 1 else None


_OPERATOR = " [-+*/] "


def argument_schema(
    schema: Any, request_text: str, *, tool_name: str = "", context: str = ""
) -> Any:
    """`schema` for llama.cpp's grammar converter, narrowed as the module says.
    `request_text` is the part of the request the call is for; `context` the whole
    request, which free text is copied from when the part holds none."""
    schema = stated_ones_required(without_unoffered(schema, request_text), request_text)
    taken = taken_elsewhere(schema, request_text, tool_name)
    subject = frozenset(re.findall(r"[a-z]+", tool_name.lower()))
    context = context if context != request_text else ""
    texts = [p for p in parameters(schema) if p.kind is Kind.TEXT and "enum" not in p.schema]
    source = _Source(
        request_text,
        taken,
        context,
        subject,
        mid_sentence(request_text, context),
        whole_quotes=len(texts) >= 2,
        claims=claimed_names(((p.name, p.schema) for p in texts), request_text)
        if len(texts) >= 2
        else {},
        properties=schema.get("properties") or {},
    )
    return _rewrite(schema, source, None)


@dataclass(frozen=True, slots=True)
class _Source:
    """Where values are copied from: the call's text, the words its free text does not
    hold, the whole request, and the words of the tool's name."""

    text: str
    taken: frozenset[str]
    context: str
    subject: frozenset[str] = frozenset()
    mid_sentence: bool = False  # the text is a part that begins inside a sentence
    # A quoted passage is one value, where another free text may take the rest: "Send a
    # postcard to Grandma saying 'Wish you were here, love Tom'" is not to Tom.
    whole_quotes: bool = False
    # The names each free text claims, which the call's other free texts do not copy.
    claims: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # The tool's parameters, to tell which of them take a day and no clock time.
    properties: Mapping[str, Any] = field(default_factory=dict)


def mid_sentence(part: str, request_text: str) -> bool:
    """Whether `part` of `request_text` begins inside one of its sentences: "The Substance
    rated?" of "what are Inside Out 2 and The Substance rated?", and an item of a list
    after a colon ("What are these rated: Toy Story 4, ...")."""
    at = request_text.find(part) if part and request_text else -1
    before = request_text[:at].rstrip().rstrip("\"'”’)")
    return at > 0 and before[-1:] not in (".", "!", "?", "")


def taken_elsewhere(schema: Any, request_text: str, tool_name: str) -> frozenset[str]:
    """The request's words (lower case) that a free-text value of this tool does not hold:
    the words of the tool's name ("prices" is no town for `fuel_prices`), a value of one of
    its closed sets ("diesel" goes to `fuel`), and a bare number when a number parameter
    takes the request's numbers ("2.5" goes to `weight_kg`, not to `meat`), with the words
    of that parameter's name ("kg"). A word of the name of a tool that takes no number is
    a name's when a number follows it ("radio 4" for `radio_frequency`)."""
    words = request_words(request_text)
    # A word of the name that a number follows, for a tool that takes no number, is part
    # of a name: "radio 4", "platform 9" (but "convert 200" for `convert_currency(amount)`).
    numbers_nothing = all(p.kind is not Kind.NUMBER for p in parameters(schema))
    numbering = {
        w.lower()
        for w, after in pairwise(words)
        if numbers_nothing and re.fullmatch(r"\d{1,3}", after)
    }
    named = [
        w for w in re.findall(r"[a-z]+", tool_name.lower()) if len(w) >= 4 and w not in numbering
    ]
    closed = {
        str(v).lower()
        for p in parameters(schema)
        for v in p.schema.get("enum", ())
        if isinstance(v, str)
    }
    numbered = [
        p.name
        for p in parameters(schema)
        if p.kind is Kind.NUMBER and numbers_for(p.schema, request_text)
    ]
    # A number's unit goes with it: "kg" for `weight_kg`.
    units = {w for name in numbered for w in re.findall(r"[a-z]+", name.lower())}

    dates = days_of_the_month(request_text)
    # A code shaped like another parameter's example ("Blue Monday V4 flash" and "Grade,
    # e.g. V3") and a whole date one takes ("revise for the quiz, due 2025-02-20") are
    # theirs, no part of a name.
    shapes = [
        shape
        for p in parameters(schema)
        if p.kind is Kind.TEXT
        for shape in code_shapes(p.schema)
        if shape is not CAPITALS
    ]
    dated = [
        w.lower()
        for start, end, _ in (
            dates_written(request_text)
            if any(takes_an_iso_date(p.schema) for p in parameters(schema))
            else []
        )
        for w in request_words(request_text[start:end])
    ]

    def taken(word: str) -> bool:
        low = word.lower()
        if low in closed or low in units or any(_sameword_pattern(low, n) for n in named):
            return True
        if low in dated or (
            any(c.isdigit() for c in word) and any(s.fullmatch(word) for s in shapes)
        ):
            return True
        # "14 August" is a date, its number no count for `remind_days_before`.
        return bool(numbered) and BARE_NUMBER.fullmatch(low) is not None and low not in dates

    return frozenset(w.lower() for w in words if taken(w))


def _sameword_pattern(word: str, named: str) -> bool:
    """Whether `word` is `named` or its plural or singular ("bike" and "bikes", "frequency"
    and "frequencies")."""
    return _singular(word) == _singular(named)


def _singular(word: str) -> str:
    return f"{word[:-3]}y" if word.endswith("ies") else word.removesuffix("s")


def without_unoffered(schema: Any, request_text: str, keep: frozenset[str] = frozenset()) -> Any:
    """`schema` without the optional top-level parameters the request holds no value for,
    but those in `keep`. An optional place is offered when the request names where
    something is ("jobs in Manchester")."""
    words = request_words(request_text)
    town = names_a_town(request_text)
    properties = schema.get("properties") if isinstance(schema, dict) else None

    def a_place_named(p: Parameter) -> bool:
        return town and p.kind is Kind.TEXT and takes_a_place(p.name, p.schema)

    dropped = {
        p.name
        for p in parameters(schema)
        if not p.required
        and p.name not in keep
        and not offered(
            p, request_text, words, day_elsewhere=takes_a_day_elsewhere(p.name, properties)
        )
        and not a_place_named(p)
    }
    if not dropped:
        return schema
    properties = {k: v for k, v in schema["properties"].items() if k not in dropped}
    return {**schema, "properties": properties, "additionalProperties": False}


def stated_ones_required(schema: Any, request_text: str) -> Any:
    """`schema` with the optional numbers the request states with their unit ("for 10
    minutes") or as the ends of a span ("lines 6-7") required: a small model leaves an
    optional key out as often as not."""
    stated = [
        p.name
        for p in parameters(schema)
        if not p.required
        and (
            stated_with_its_unit(p, request_text)
            or spanned(p.name, p.schema, request_text) is not None
        )
    ]
    if not stated:
        return schema
    return {**schema, "required": [*schema.get("required", ()), *stated]}


def fillable(schema: Any, request_text: str) -> bool:
    """Whether the request holds a value for every required parameter.

    Calling a tool whose required value the request lacks means inventing it:
    "any tips for saving money?" -> `convert_currency(amount=1)`."""
    words = request_words(request_text)
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return all(
        offered(p, request_text, words, day_elsewhere=takes_a_day_elsewhere(p.name, properties))
        for p in parameters(schema)
        if p.required
    )


def string_pattern(
    request_text: str,
    kind: Kind,
    taken: frozenset[str] = frozenset(),
    from_a_name: bool = False,
    mid_sentence: bool = False,
    whole_quotes: bool = False,
    place: bool = False,
    files_only: bool = False,
) -> str | None:
    """A pattern (llama.cpp's regex subset) for a free string parameter, or None; see
    `free_text_pattern` for `from_a_name`, `mid_sentence`, `whole_quotes` and `place`. A
    path that takes a file (`files_only`) takes a file the request names over a folder:
    "add a .gitignore that ignores __pycache__/" writes ".gitignore"."""
    words = request_words(request_text)
    if kind is Kind.PATH:
        paths = (files_only and path_words(words, files_only=True)) or path_words(words)
        if paths:
            return f"^({'|'.join(literal(w) for w in paths)})$"
    if kind is Kind.EXPRESSION:
        expression = _expression_pattern(request_text)
        if expression:
            return expression
    if kind is Kind.TEXT:
        runs = free_text_pattern(
            request_text,
            taken,
            from_a_name=from_a_name,
            mid_sentence=mid_sentence,
            whole_quotes=whole_quotes,
            place=place,
        )
        if runs:
            return runs
    if not words:
        return None
    return in_order([word_pattern(w) for w in words], WORD_SEPARATOR)


def _a_code(schema: dict[str, Any], source: _Source) -> str | None:
    """A code shaped like the parameter's example from the part, else, for a code with
    digits, from the whole request: "and another two hours at 6003 for the same car" pays
    for the car the request named before, but not for a part that writes a name of its own
    ("e.g. 'B1249'" and "... the A614? And what about Station Road?"). A code of capitals
    alone may be a name the part writes otherwise ("e.g. IKEA" and "... to Decathlon?
    What about IKEA?")."""
    own = like_the_example(schema, source.text)
    if own or not source.context or all(s is CAPITALS for s in code_shapes(schema)):
        return own
    # A part that writes a name of its own asks of it: "And what about Station Road?"
    words = request_words(source.text)
    opens_with_a_name = source.mid_sentence and bool(words) and words[0][:1].isupper()
    if opens_with_a_name or any(w[:1].isupper() for w in words[1:]):
        return None
    return like_the_example(schema, source.context)


def _a_written_number(name: str, schema: dict[str, Any], source: _Source) -> str | None:
    """A number of digit groups written whole, for a text parameter that says it holds a
    number and gives no example: "07700 900456", not "07700 900456, both keep ringing".
    From the part, else from the whole request ("Add Sam, number 07911 123456, then ...")."""
    if not takes_a_written_number(name, schema) or _other_codes(source.text):
        return None
    found = written_numbers(source.text)
    if not found and not any(c.isdigit() for c in source.text):
        found = [] if _other_codes(source.context) else written_numbers(source.context)
    return f"^({'|'.join(literal(n) for n in found)})$" if found else None


def _other_codes(text: str) -> bool:
    """Whether `text` writes a code of letters and digits ("JD014600006281"): a number
    the parameter takes may be written so, and digit groups alone are not all it holds."""
    return any(
        any(c.isdigit() for c in w) and any(c.isalpha() for c in w) for w in request_words(text)
    )


# A count of things at a price each: "12 guests at £18.50 a head", "3 nights at 85".
_A_COUNT_AT_A_PRICE = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?) (?:[a-z]+ ){1,2}(?:at|@) [£$€]?(\d+(?:\.\d+)?)\b", re.I
)


def _expression_pattern(request_text: str) -> str | None:
    written = written_expression(request_text)
    if written:
        return f"^{literal(written)}$"
    numbers = request_numbers(request_text)[:MAX_WORDS]
    if not numbers:
        return None
    priced = _A_COUNT_AT_A_PRICE.search(request_text)
    if priced and numbers == [priced[1], priced[2]]:
        # "12 guests at £18.50 a head" is a product, whatever a small model would add.
        return f"^{literal(priced[1])} [*] {literal(priced[2])}$"
    terms = [f"[(]?{literal(n)}[)]?" for n in numbers]
    if len(terms) > ALL_NUMBERS:
        return in_order(terms, _OPERATOR)
    percent = " / 100" if _PERCENT.search(request_text) else ""
    return f"^{_OPERATOR.join(terms)}{percent}$"


# An email address written out, and a parameter that says it takes one.
_EMAIL_ADDRESS = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+(?<!\.)")
_TAKES_AN_ADDRESS = re.compile(r"\be-?mail\b", re.I)


def _an_address(name: str, schema: dict[str, Any], source: _Source) -> str | None:
    """For free text that takes an email address, one the part writes, else one the whole
    request writes: "email priya@example.com to say ..." is not to "say"."""
    if not _TAKES_AN_ADDRESS.search(f"{name.replace('_', ' ')} {schema.get('description', '')}"):
        return None
    written = _EMAIL_ADDRESS.findall(source.text) or _EMAIL_ADDRESS.findall(source.context)
    unique = list(dict.fromkeys(written))
    return f"^({'|'.join(literal(a) for a in unique)})$" if unique else None


def _when(name: str, schema: dict[str, Any], source: _Source) -> str | None:
    """For free text that takes a day or a clock time, one the part says, else one the
    whole request says: "Free tent pitches at North Lees or Eskdale on Saturday?" asks of
    Saturday at each."""
    elsewhere = takes_a_day_elsewhere(name, source.properties)
    said = said_when(name, schema, request_words(source.text), day_elsewhere=elsewhere)
    if not said and source.context:
        said = said_when(name, schema, request_words(source.context), day_elsewhere=elsewhere)
    return f"^({'|'.join(literal(p) for p in said)})$" if said else None


def _copied(name: str | None, schema: dict[str, Any], source: _Source, kind: Kind) -> str | None:
    """Words of the request for a string; a word that says when only for a parameter that
    speaks of that kind of time ("today" is no part of a lido's name). Free text the part
    holds none of is copied from the whole request: "Going to India - what are the
    holidays there, and what's the emergency number?" says the country before the part."""

    def taken(text: str) -> frozenset[str]:
        others = claimed_by_others(source.claims, name)
        return (
            source.taken
            | others
            | (not_for(name, schema, request_words(text)) if name else frozenset())
        )

    if name is not None and kind is Kind.TEXT and takes_a_command(name, schema):
        # A command written out is run as written: "by running cp a.toml a.toml.bak".
        command = written_command(source.text) or written_command(source.context)
        if command:
            return f"^{literal(command)}$"
    named = _A_NAMED_WORD.search(source.text) if kind is Kind.TEXT else None
    if named and not source.whole_quotes:
        # The one text a tool takes is the word the request names as a word, whatever
        # it is: "search for the word Tuesday" (a day is otherwise no pattern's value).
        return f"^{literal(named['quoted'] or named['word'])}$"
    quoted = None if source.whole_quotes else _the_quote(source.text, taken(source.text))
    if (
        quoted
        and name is not None
        and kind is Kind.TEXT
        and _TAKES_A_TEXT.search(f"{name.replace('_', ' ')} {schema.get('description', '')}")
    ):
        # The one text a tool writes or looks for (it takes no other) is the passage the
        # request quotes: "Create CHANGELOG.md whose only line is '# Changelog'."
        return f"^{literal(quoted)}$"
    claimed = source.claims.get(name, ()) if name and kind is Kind.TEXT else ()
    if claimed:
        return f"^({'|'.join(literal(n) for n in claimed)})$"
    # A word that says when is the part's own still, for a value that is no time:
    # "rhymes for night? also for summer" asks for rhymes of "night"; and so is a short
    # word written as a name ("ukulele chords for Am").
    own_text = (
        kind is not Kind.TEXT
        or free_text_pattern(source.text, source.taken, mid_sentence=source.mid_sentence)
        or any(w[:1].isupper() and w != "I" for w in request_words(source.text)[1:])
    )
    # The thing a tool is about is a name when the request writes one: `council` of
    # `council_tax_rates` is "Leeds" in "Compare band D council tax in Leeds".
    from_a_name = name is not None and name.lower() in source.subject
    # A place the part does not name is the one the request named before it: "We're
    # moving to York. What are rents like there, and how much is the council tax?"
    if (
        name is not None
        and source.context
        and kind is Kind.TEXT
        and takes_a_place(name, schema)
        and not names_a_place(source.text)
        and writes_a_name(source.context, taken(source.context))
    ):
        return free_text_pattern(source.context, taken(source.context), from_a_name=True)
    if not own_text and source.context:
        said_elsewhere = free_text_pattern(
            source.context, taken(source.context), from_a_name=from_a_name
        )
        if said_elsewhere:
            return said_elsewhere
    return string_pattern(
        source.text,
        kind,
        taken(source.text),
        from_a_name,
        source.mid_sentence,
        source.whole_quotes,
        place=name is not None and kind is Kind.TEXT and takes_a_place(name, schema),
        files_only=name is not None
        and kind is Kind.PATH
        and takes_a_file(Parameter(name, schema, kind, False)),
    )


def _iso_dates(schema: dict[str, Any], source: _Source) -> str | None:
    """For a parameter that takes a date as YYYY-MM-DD, the whole dates the part writes,
    else the whole request, in that form: "born 5 may 1964" -> "1964-05-05"."""
    if not takes_an_iso_date(schema):
        return None
    dates = written_dates(source.text) or written_dates(source.context)
    return f"^({'|'.join(literal(d) for d in dates)})$" if dates else None


def _a_number_within(schema: dict[str, Any]) -> list[int | float]:
    """A number within the schema's bounds, for when the request has none: llama.cpp's
    grammar does not enforce bounds, and a number it writes freely may break them. The
    default when it fits them, else the lower bound, else the upper; none for a schema
    without bounds (any number fits) or with only exclusive ones."""
    whole = schema.get("type") == "integer"
    for key in ("default", "minimum", "maximum"):
        number = schema.get(key)
        if isinstance(number, bool) or not isinstance(number, int | float):
            continue
        if within(schema, number) and not (whole and not float(number).is_integer()):
            return [int(number) if whole else number]
    return []


def _free_form_object(schema: dict[str, Any]) -> bool:
    return (
        schema.get("type") == "object"
        and not schema.get("properties")
        and schema.get("additionalProperties", True) is not False
    )


def _rewrite(value: Any, source: _Source, name: str | None) -> Any:
    """Keys are dropped only where they are schema keywords, never as property names."""
    request_text = source.text
    if isinstance(value, list):
        return [_rewrite(v, source, None) for v in value]
    if not isinstance(value, dict):
        return value
    at = spanned(name, value, request_text) if name else None
    if at is not None:
        # "lines 6-7": the ends are the span's, whatever else the schema allows.
        return {"type": "integer", "enum": [at]}
    out: dict[str, Any] = {}
    dates = None
    if value.get("type") in ("number", "integer") and not ({"enum", "const"} & value.keys()):
        found = numbers_for(value, request_text)
        if name and found:
            # "£61.30, odometer says 58214": the money is the cost's, the rest the others';
            # "42.6 litres" is the litres' alone.
            found = numbers_by_money(name, value, request_text, found, source.properties)
            parameter = Parameter(name, value, Kind.NUMBER, False)
            own = numbers_with_its_unit(parameter, request_text) + numbers_after_its_name(
                parameter, request_text
            )
            found = [n for n in found if n in own] or found
        found = found or _a_number_within(value)
        if found:
            out["enum"] = found
    if value.get("type") == "string" and "enum" not in value:
        out["minLength"] = value.get("minLength", 1)
        out["maxLength"] = value.get("maxLength", MAX_STRING)
        dates = _iso_dates(value, source)
        if dates:
            out["pattern"] = dates
        elif "pattern" not in value and "format" not in value:
            # llama.cpp reads the length bounds from the pattern when there is one, so
            # words are copied only when the schema sets no bounds of its own.
            bounded = "minLength" in value or "maxLength" in value
            kind = kind_of(name, value) if name else Kind.TEXT
            text = kind is Kind.TEXT
            copied = None
            if not bounded:
                copied = (
                    (_a_code(value, source) if text else None)
                    or (_an_address(name, value, source) if name and text else None)
                    or (_a_written_number(name, value, source) if name and text else None)
                    or (_when(name, value, source) if name and text else None)
                    or _copied(name, value, source, kind)
                )
            out["pattern"] = copied or PLAIN_STRING_PATTERN % (out["minLength"], out["maxLength"])
    for key, item in value.items():
        if key in _NOT_FOR_GRAMMAR or (dates and key in ("pattern", "format")):
            continue  # the dates written replace how the schema says to write one
        if key in _NAME_MAPS and isinstance(item, dict):
            out[key] = {prop: _rewrite(sub, source, prop) for prop, sub in item.items()}
        else:
            out[key] = _rewrite(item, source, None)
    if _free_form_object(value):
        # No declared properties: the model would invent keys without end.
        out["additionalProperties"] = False
    if value.get("type") == "array" and "maxItems" not in value:
        out["maxItems"] = max(MAX_ITEMS, value.get("minItems", 0))
    return out
