"""A parameter's value from a closed set, picked by the model as a noisy channel.

Under a grammar, greedy decoding takes whichever option's first token it likes
best, and a small model likes the first one listed: given the enum USD, GBP,
JPY on our first 14 currency tasks it answered USD 12 times, right 6 times
("100 euros in yen" -> USD). Scored the way tools are (`tool_relevance.py`), by how
likely the request is after "currency: JPY. Example requests:", 12 of those 14
were right, and 18 of all 21 currency tasks.

A value the request says outright ("my checking balance" and `checking`) is taken
without scoring, and so is one whose gloss in the tool's words it says ("miles
(mi), feet (ft) or metres (m)" and "3 km to feet"): the model does not know that
"ft" means feet, the author said so.

A closed set is a string enum of the schema, or, for a tool's only free string
parameter, the codes its description lists: "(USD, GBP or JPY)", but not codes it
gives as examples ("Road number, e.g. M25 or A1", "e.g. Classic FM or BBC Radio 4") nor
codes that describe a word after them ("the matching EU and US sizes"). A currency's
code is said by its name too ("dollars" for USD).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from tiller.models.base import ToolSpec

# Two or more upper-case codes in a list: "USD, GBP or JPY", "GET/POST".
_LISTED_CODES = re.compile(r"\b[A-Z][A-Z0-9]{1,9}(?:(?:, |,? or |,? and |/)[A-Z][A-Z0-9]{1,9})+\b")
_CODE = re.compile(r"[A-Z][A-Z0-9]{1,9}")
_SHORTENED = 5  # letters at least of a word a value only adds an ending to
# Currency codes by their names, which a small model does not tie to them ("100 euros to
# dollars" chose GBP): a dollar with no country is the US one.
_CURRENCY_NAMES = {
    "USD": r"(?<!canadian )(?<!australian )(?<!aussie )(?<!zealand )(?<!kong )(?<!singapore )"
    r"dollars?|bucks",
    "EUR": r"euros?",
    "GBP": r"pounds?(?: sterling)?|sterling|quid",
    "JPY": r"yen",
    "CNY": r"yuan|renminbi",
    "INR": r"rupees?",
    "CHF": r"swiss francs?",
    "CAD": r"canadian dollars?",
    "AUD": r"(?:australian|aussie) dollars?",
    "NZD": r"new zealand dollars?",
    "HKD": r"hong kong dollars?",
    "SGD": r"singapore dollars?",
    "MXN": r"mexican pesos?",
    "SEK": r"swedish kron(?:a|or)",
    "NOK": r"norwegian kron(?:e|er)",
    "DKK": r"danish kron(?:e|er)",
    "PLN": r"zloty|złoty",
    "TRY": r"(?:turkish )?lira",
    "THB": r"baht",
    "ZAR": r"rand",
    "AED": r"dirhams?",
    "KRW": r"korean won",
    "BRL": r"reais|brazilian real",
    "ILS": r"shekels?",
    "HUF": r"forints?",
    "CZK": r"(?:czech )?korun[ay]",
}
# Codes given as examples are not the only values: "Road number, e.g. M25 or A1", nor are
# any later in the sentence ("e.g. Classic FM or BBC Radio 4").
_FOR_EXAMPLE = re.compile(r"(?:\be\.?g\.?|\bfor example|\bsuch as|\blike)[,:]?\s*$", re.I)
_EXAMPLES_BEGUN = re.compile(r"\be\.g\.|\bfor example\b|\bsuch as\b", re.I)
_SENTENCE_END = re.compile(r"(?<!e\.g)\.\s|[;!?]\s")
# Codes that a word follows describe it, they are no values: "the matching EU and US
# sizes", "its FM/AM frequencies".
_DESCRIBES = re.compile(r" [a-z]")


def closed_choices(tool: ToolSpec) -> dict[str, list[str]]:
    """The tool's top-level string parameters that take one of a few values, with them."""
    properties: dict[str, Any] = tool.parameters.get("properties", {})
    found: dict[str, list[str]] = {}
    free: list[str] = []
    for name, schema in properties.items():
        if not isinstance(schema, dict) or schema.get("type") != "string":
            continue
        enum = schema.get("enum")
        if isinstance(enum, list):
            options = [v for v in enum if isinstance(v, str)]
            if len(options) == len(enum) and len(options) > 1:
                found[name] = options
        elif not ({"pattern", "format", "const"} & schema.keys()):
            free.append(name)
    if len(free) == 1:
        description = f"{properties[free[0]].get('description', '')} {tool.description}"
        listed = next(
            (
                m
                for m in _LISTED_CODES.finditer(description)
                if not _examples(description, m.start())
                and not _DESCRIBES.match(description, m.end())
            ),
            None,
        )
        if listed:
            found[free[0]] = list(dict.fromkeys(_CODE.findall(listed[0])))
    return found


def _examples(description: str, at: int) -> bool:
    """Whether the codes at `at` are examples: after "e.g." in their sentence."""
    before = description[:at]
    sentence = _SENTENCE_END.split(before)[-1]
    return bool(_FOR_EXAMPLE.search(before) or _EXAMPLES_BEGUN.search(sentence))


def said_values(tool: ToolSpec, request_text: str, choices: dict[str, list[str]]) -> dict[str, str]:
    """The values the request says, in the singular or the plural, or whose gloss in the
    tool's words ("feet (ft)") it says, the one said first when it says several, not the
    default when it says another, nor one whose words are some of another's it says
    word by word."""
    properties: dict[str, Any] = tool.parameters.get("properties", {})
    said = request_text.lower()
    chosen: dict[str, str] = {}
    for name, options in choices.items():
        words = f"{tool.description} {properties.get(name, {}).get('description', '')}"
        found: list[tuple[int, str]] = []
        for value in options:
            outright = _said_outright(value, name, request_text) or said_in_its_own_words(
                value, options, request_text
            )
            if outright:
                found.append((outright.start(), value))
            spelled = _CURRENCY_NAMES.get(value)
            named = re.search(rf"(?<![\w-])(?:{spelled})(?!\w)", said) if spelled else None
            if named:
                found.append((named.start(), value))
            for gloss in re.findall(rf"([A-Za-z]+) \({re.escape(value)}\)", words):
                stem = gloss.lower().removesuffix("s")
                at = re.search(rf"\b{re.escape(stem)}s?\b", said)
                if len(stem) >= 3 and at:
                    found.append((at.start(), value))
        # "large letter second class" says `large_second`, not `second` alone.
        whole = [
            (m.start(), v)
            for v in options
            if (m := _said_word_by_word(v, request_text))
            and not any(_words(o) == _words(v) for o in options if o != v)  # "km_to_miles"
        ]
        found = [f for f in [*found, *whole] if not any(_words(f[1]) < _words(v) for _, v in whole)]
        # "any EE signal": a value said besides the default is the one meant.
        default = properties.get(name, {}).get("default")
        meant = [f for f in found if f[1] != default] or found
        if meant:
            chosen[name] = min(meant)[1]
    return chosen


def said_in(
    tool: ToolSpec, text: str, context: str, choices: dict[str, list[str]]
) -> dict[str, str]:
    """The values `text` says, and for the closed sets it says none of, those the whole
    request (`context`) says: "I'm with Vodafone." holds for each question after it."""
    said = said_values(tool, text, choices)
    if not context or context == text:
        return said
    return {**said_values(tool, context, choices), **said}


def _said_outright(value: str, parameter: str, request_text: str) -> re.Match[str] | None:
    """Where the request says `value`. A letter alone is said in capitals or after a word of
    the parameter's name ("band C", "band c"), not as a word ("buy a band C terrace")."""
    if len(value) == 1 and value.isalpha():
        named = "|".join(re.escape(w) for w in re.findall(r"[a-z]+", parameter.lower()))
        written = rf"(?<!\w){re.escape(value.upper())}(?!\w)"
        after_its_name = rf"(?i:\b(?:{named})\s+{re.escape(value)}(?!\w))" if named else written
        return re.search(f"{written}|{after_its_name}", request_text)
    said = request_text.lower()
    return (
        re.search(rf"(?<!\w){_one_or_many(value)}(?!\w)", said)
        or _said_shortened(value, said)
        or _said_as_a_month(value, said)
    )


_MONTHS = frozenset(
    "january february march april may june july august september october november december".split()  # noqa: SIM905
)


def says_only(value: str, parameter: str, text: str) -> bool:
    """Whether `text` says `value` and nothing else: "motorway", "nov" for november."""
    found = _said_outright(value, parameter, text)
    return found is not None and found[0].strip(".") == text.strip().lower()


def _said_as_a_month(value: str, said: str) -> re.Match[str] | None:
    """Where the request says a month `value` by its usual abbreviation ("jan, july and
    nov", "sept")."""
    low = value.lower()
    if low not in _MONTHS:
        return None
    short = "sept|sep" if low == "september" else low[:3]
    return re.search(rf"(?<!\w)(?:{short})\.?(?!\w)", said)


def _said_shortened(value: str, said: str) -> re.Match[str] | None:
    """Where the request says a word `value` only adds an ending to ("the electric" for
    `electricity`, "nat" no word for `national`: the word has five letters at least)."""
    low = value.lower()
    if not low.isalpha() or len(low) < _SHORTENED + 1:
        return None
    ends = "|".join(re.escape(low[:cut]) for cut in range(len(low) - 1, len(low) - 4, -1))
    found = re.search(rf"(?<!\w)(?:{ends})(?!\w)", said)
    return found if found and len(found[0]) >= _SHORTENED else None


def said_in_its_own_words(
    value: str, options: Sequence[object], request_text: str
) -> re.Match[str] | None:
    """Where the request says the words of `value` no other option has, when there are two
    or more of them: "when towing a caravan" says "car towing caravan" of car, van, lorry;
    or the one word of four letters or more that sets a value of several words apart
    ("7.7 after lunch" says `after_meal` of `before_meal` and `after_meal`)."""
    others = {w for o in options if o != value for w in re.findall(r"[a-z0-9]+", str(o).lower())}
    words = re.findall(r"[a-z0-9]+", value.lower())
    own = [w for w in words if w not in others]
    if len(own) < 2 and not (len(words) >= 2 and len(own) == 1 and len(own[0]) >= 4):
        return None
    said = [re.search(rf"(?<!\w){_one_or_many(w)}(?!\w)", request_text.lower()) for w in own]
    return None if None in said else min(said, key=lambda m: m.start() if m else 0)


def _said_word_by_word(value: str, request_text: str) -> re.Match[str] | None:
    """Where the request says each word of a value of two or more, in any order and
    with others between ("large letter second class" and `large_second`)."""
    words = _words(value)
    if len(words) < 2:
        return None
    said = [re.search(rf"(?<!\w){_one_or_many(w)}(?!\w)", request_text.lower()) for w in words]
    return None if None in said else min(said, key=lambda m: m.start() if m else 0)


def _words(value: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z0-9]+", value.lower()))


def _one_or_many(value: str) -> str:
    """A pattern for `value` said in the singular or the plural ("food bank", "food banks")."""
    low = value.lower()
    stem = low.removesuffix("s")
    # Not "news", "bus" or "glass": their "s" is no plural.
    if len(stem) < 3 or not stem[-1].isalpha() or stem[-1] in "suw":
        return re.escape(low)
    return f"{re.escape(stem)}s?"


def value_prefix(parameter: str, value: str) -> str:
    return f"{parameter}: {value}. Example requests:"


def pinned(schema: dict[str, Any], values: dict[str, str]) -> dict[str, Any]:
    """`schema` with each parameter in `values` allowed only its chosen value."""
    properties = dict(schema.get("properties", {}))
    for name, value in values.items():
        properties[name] = {"type": "string", "enum": [value]}
    return {**schema, "properties": properties}


def required_when_said(schema: dict[str, Any], said: dict[str, str]) -> dict[str, Any]:
    """`schema` with the parameters whose value the request says required: "it's a film"
    asks for `kind: film`, and a small model leaves an optional key out as often as not."""
    required = list(schema.get("required", ()))
    missing = [name for name in said if name not in required]
    return {**schema, "required": [*required, *missing]} if missing else schema


Explain = Callable[[str, Sequence[str]], Sequence[float]]  # log P(request | each prefix)


def choose_values(
    explain: Explain,
    request_text: str,
    choices: dict[str, list[str]],
    named: dict[str, str] | None = None,
) -> dict[str, str]:
    """For each parameter, the value whose prefix best explains `request_text`."""
    chosen: dict[str, str] = {}
    for name, options in choices.items():
        if named and name in named:
            chosen[name] = named[name]
            continue
        scores = explain(request_text, [value_prefix(name, v) for v in options])
        chosen[name] = options[max(range(len(options)), key=lambda i: scores[i])]
    return chosen
