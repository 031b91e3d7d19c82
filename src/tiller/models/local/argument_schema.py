"""The JSON schema a small model's tool arguments are generated under.

llama.cpp turns a JSON schema into a grammar, so arguments always parse and
match the tool's schema. On top of the tool's own schema we narrow free-text
strings, because greedy decoding with a 135M model otherwise
- closes an empty string at once, or never closes one (so strings get bounds);
- "closes the JSON" inside a string, `17 * 23 }` (so no braces, quotes or line breaks);
- invents values: `file.txt` for "version.txt", `17 * 275` for "350 and 275".

So a free string is an unbroken run of the words of the user's request, in the
request's order, each occurrence at most once: a copied passage stays the
passage, and greedy decoding cannot loop ("7.5, 2400, 7.5, 2400, ..."). A word
with a possessive may drop it ("tokyo's" -> "tokyo"). Free text begins with a
word that names something, not with a word that joins or asks ("the", "there",
"what"), unless it opens a quoted passage, follows a colon or is a title's "The",
and ends with one too ("Saturday", not "Saturday at"); it holds no word another
part of the call takes (`taken_elsewhere`), which ends a run: the
tool's own name ("prices" is no town for `fuel_prices`), a value of one of its
closed sets ("diesel"), a number a number parameter takes with that parameter's
unit ("2.5 kg" goes to `weight_kg`, not to `meat`), but not the day of a date
("14 August"); a quoted passage is kept whole. A name of capitalised words inside
a sentence ("Tooting Bec Lido", "BBC Two") is copied whole or not at all, its words
never taken elsewhere. A word that says when goes only to a parameter that speaks of
that kind of time (`time_words.py`): "today" is no part of a lido's name, a day's
parameter takes a day the request says and a clock time's a time ("thursday",
"5:30pm").
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
from dataclasses import dataclass
from typing import Any

from tiller.models.local.parameter_kinds import (
    Kind,
    kind_of,
    numbers_for,
    offered,
    parameters,
    path_words,
    stated_with_its_unit,
    within,
)
from tiller.models.local.request_numbers import request_numbers
from tiller.models.local.time_words import days_of_the_month, not_for, said_when

MAX_STRING = 200  # characters, for string arguments whose schema sets no maxLength
MAX_ITEMS = 3  # items, for arrays whose schema sets no maxItems
PLAIN_STRING_PATTERN = '^[^{}\\n"\\\\]{%d,%d}$'  # no braces, line breaks, quotes or backslashes
ALL_NUMBERS = 6  # an expression uses all of up to this many numbers from the request
MAX_WORDS = 32  # request words (or numbers) a string may copy; the pattern grows with their square

_NOT_FOR_GRAMMAR = frozenset({"title", "description", "examples"})
_NAME_MAPS = frozenset({"properties", "$defs", "definitions", "patternProperties"})
_OUTER_PUNCTUATION = "\"'“”‘’`«»()[]{}<>,;:!?."
_UNUSABLE = re.compile(r'["\\{}^$\x00-\x1f]')
_POSSESSIVE = re.compile(r"^(.+\w)(['’]s)$")
_EXPRESSION_RUN = re.compile(r"[(\d][-+*/()\d. ]*[\d)]")
_OPERATION = re.compile(r"[\d)]\s*[-+*/]\s*[(\d]")
_PERCENT = re.compile(r"%|\bper ?cent\b", re.I)
_WORD_SEPARATOR = "( |, )"
# "e.g. AAPL", "e.g. BA117": one example, a code of capitals and digits.
_LETTERS_AND_DIGITS = re.compile(r"(?=.*[A-Za-z])(?=.*[0-9])[A-Za-z0-9]+")
_CAPITALS = re.compile(r"[A-Z]+")
_CODE_EXAMPLE = re.compile(r"\be\.g\.,? ([A-Z0-9]*[A-Z0-9][A-Za-z0-9]*)(?=$|[.,;)\s])")
_OPERATOR = " [-+*/] "
# A number, with a unit written onto it or not: "2.5", "20", "1.5kg".
_BARE_NUMBER = re.compile(r"\d+(?:[.,]\d+)?[a-z]{0,3}")
_QUOTES = "\"'“”‘’`"


# Words a value of free text does not begin with: they join or ask, they name nothing.
GLUE = frozenset(
    """a an the and or but nor of in on at to for from by with about as into onto over under
    than then is are was were be been am do does did i me my you your it its we our they
    their he she his her this that these those there here what what's whats which who how
    when where why whether if please can could would will shall should may might also too
    just some any tell show give get let let's lets""".split()  # noqa: SIM905
)


def argument_schema(schema: Any, request_text: str, *, tool_name: str = "") -> Any:
    """`schema` for llama.cpp's grammar converter, narrowed as the module says."""
    schema = stated_ones_required(without_unoffered(schema, request_text), request_text)
    return _rewrite(schema, request_text, None, taken_elsewhere(schema, request_text, tool_name))


def taken_elsewhere(schema: Any, request_text: str, tool_name: str) -> frozenset[str]:
    """The request's words (lower case) that a free-text value of this tool does not hold:
    the words of the tool's name ("prices" is no town for `fuel_prices`), a value of one of
    its closed sets ("diesel" goes to `fuel`), and a bare number when a number parameter
    takes the request's numbers ("2.5" goes to `weight_kg`, not to `meat`), with the words
    of that parameter's name ("kg")."""
    words = request_words(request_text)
    named = [w for w in re.findall(r"[a-z]+", tool_name.lower()) if len(w) >= 4]
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

    def taken(word: str) -> bool:
        low = word.lower()
        if low in closed or low in units or any(_same_word(low, n) for n in named):
            return True
        # "14 August" is a date, its number no count for `remind_days_before`.
        return bool(numbered) and _BARE_NUMBER.fullmatch(low) is not None and low not in dates

    return frozenset(w.lower() for w in words if taken(w))


def _same_word(word: str, named: str) -> bool:
    """Whether `word` is `named` or its plural or singular ("bike" and "bikes")."""
    return word.removesuffix("s") == named.removesuffix("s")


def without_unoffered(schema: Any, request_text: str) -> Any:
    """`schema` without the optional top-level parameters the request holds no value for."""
    words = request_words(request_text)
    dropped = {
        p.name for p in parameters(schema) if not p.required and not offered(p, request_text, words)
    }
    if not dropped:
        return schema
    properties = {k: v for k, v in schema["properties"].items() if k not in dropped}
    return {**schema, "properties": properties, "additionalProperties": False}


def stated_ones_required(schema: Any, request_text: str) -> Any:
    """`schema` with the optional numbers the request states with their unit ("for 10
    minutes") required: a small model leaves an optional key out as often as not."""
    stated = [
        p.name
        for p in parameters(schema)
        if not p.required and stated_with_its_unit(p, request_text)
    ]
    if not stated:
        return schema
    return {**schema, "required": [*schema.get("required", ()), *stated]}


def fillable(schema: Any, request_text: str) -> bool:
    """Whether the request holds a value for every required parameter.

    Calling a tool whose required value the request lacks means inventing it:
    "any tips for saving money?" -> `convert_currency(amount=1)`."""
    words = request_words(request_text)
    return all(offered(p, request_text, words) for p in parameters(schema) if p.required)


def request_words(text: str) -> list[str]:
    """The request's words as a value could use them: split on white space, outer
    punctuation removed ("notes.txt:" -> "notes.txt"), in order, repeats kept."""
    raws = text.split()
    words = (
        (None if _names_a_kind(raws[max(i - 1, 0) : i], raws[i + 1 : i + 2]) else _dotfile(raw))
        or raw.strip(_OUTER_PUNCTUATION)
        for i, raw in enumerate(raws)
    )
    return [word for word in words if word and not _UNUSABLE.search(word)][:MAX_WORDS]


def _names_a_kind(before: list[str], after: list[str]) -> bool:
    """Whether the words around a dotted one say it is a kind of file (".py files", "a .md
    file"), not a file's name ("the .gitignore file")."""
    following = after[0].lower().strip(_OUTER_PUNCTUATION) if after else ""
    if following in ("files", "extension", "extensions"):
        return True
    return following == "file" and bool(before) and before[0].lower() in _ANY_ONE


_ANY_ONE = frozenset({"a", "an", "any", "every", "each", "one"})


def _dotfile(raw: str) -> str | None:
    """A file whose name begins with a dot (".gitignore", ".env"), its dot kept."""
    name = raw.strip(_OUTER_PUNCTUATION)
    opened = raw.lstrip(_OUTER_PUNCTUATION.replace(".", ""))
    return f".{name}" if name and re.match(r"\.[A-Za-z]", opened) else None


def written_expression(text: str) -> str | None:
    """The longest arithmetic expression written out in `text` ("(125 + 375) * 4"), if any."""
    found = [
        run.strip()
        for run in _EXPRESSION_RUN.findall(text)
        if _OPERATION.search(run) and run.count("(") == run.count(")")
    ]
    return max(found, key=len) if found else None


def string_pattern(
    request_text: str, kind: Kind, taken: frozenset[str] = frozenset()
) -> str | None:
    """A pattern (llama.cpp's regex subset) for a free string parameter, or None."""
    words = request_words(request_text)
    if kind is Kind.PATH:
        paths = path_words(words)
        if paths:
            return f"^({'|'.join(_literal(w) for w in paths)})$"
    if kind is Kind.EXPRESSION:
        expression = _expression_pattern(request_text)
        if expression:
            return expression
    if kind is Kind.TEXT:
        runs = _runs(_phrases(request_text, taken))
        if runs:
            return runs
    if not words:
        return None
    return _in_order([_word(w) for w in words], _WORD_SEPARATOR)


@dataclass(frozen=True, slots=True)
class _Word:
    text: str
    opens: bool  # a value of free text may begin with it
    quoted: bool
    starts_sentence: bool
    closes: bool  # punctuation follows it
    comma: bool  # a comma follows it
    ends: bool  # a value may end with it: no glue word ("Saturday at"), but in a passage


def _openers(request_text: str) -> list[_Word]:
    """The request's words, each with whether a value of free text may begin with it, and
    whether it is quoted. A value begins with no glue word ("the", "what", "in"), unless it
    opens a quoted passage or follows a colon ("count the words in 'to be or not to be'"),
    or is a title's "The" inside a sentence ("has The Hobbit"). A quoted passage is copied
    as written: no word of it is taken for another parameter."""
    found: list[_Word] = []
    after_colon = quoted = passage = False
    starts = True
    for raw in request_text.split():
        opens_quote = raw[0] in _QUOTES
        quoted = quoted or opens_quote
        word = raw.strip(_OUTER_PUNCTUATION)
        if word and not _UNUSABLE.search(word):
            opens = not _glue(word) or opens_quote or after_colon or (word == "The" and bool(found))
            closes = raw.rstrip(_QUOTES + ")")[-1:] in ",;:.!?"
            ends = not _glue(word) or quoted or passage
            comma = raw.rstrip(_QUOTES + ")").endswith(",")
            found.append(_Word(word, opens, quoted, starts, closes, comma, ends))
        after_colon = raw.endswith(":")
        starts = raw.rstrip(_QUOTES + ")")[-1:] in ".!?:"
        # After a colon, a passage runs to the sentence's end ("count the words: to be").
        passage = after_colon or (passage and not starts)
        if quoted and raw.rstrip(".,;:!?)")[-1:] in _QUOTES and (len(raw) > 1 or not opens_quote):
            quoted = False
    return found[:MAX_WORDS]


def _glue(word: str) -> bool:
    return word.lower() in GLUE or re.split(r"['’]", word.lower())[0] in GLUE


# Words as patterns, whether a value may begin and end with each, and what may follow it:
# a comma only where the request has one ("paris, france", not "cab, from, the grand").
_Phrase = list[tuple[str, bool, bool, str]]


def _phrases(request_text: str, taken: frozenset[str]) -> list[_Phrase]:
    """The runs of words a value of free text is copied from, each word a pattern with
    whether a value may begin and end with it. A word another part of the call takes ends
    a run (unless quoted), and a name of several capitalised words inside a sentence
    ("Tooting Bec Lido", "Paultons Park") is one word: copied whole, none of it taken
    elsewhere."""
    words = _openers(request_text)
    phrases: list[_Phrase] = [[]]
    i = 0
    while i < len(words):
        size = _name_size(words, i)
        word = words[i]
        after = _WORD_SEPARATOR if words[i + size - 1].comma else " "
        if size > 1:
            name = " ".join(_word(w.text) for w in words[i : i + size])
            phrases[-1].append((name, True, True, after))
        elif word.quoted or word.text.lower() not in taken:
            phrases[-1].append((_word(word.text), word.opens, word.ends, after))
        elif phrases[-1]:
            phrases.append([])
        i += size
    return [phrase for phrase in phrases if phrase]


def _name_size(words: list[_Word], start: int) -> int:
    """How many words from `start` make a name of capitalised words ("Alton Towers", "The
    Smiler"), 1 when they make none. A sentence's first word is capitalised by grammar, so
    it begins none, and punctuation ends one."""
    first = words[start]
    if first.starts_sentence or not first.text[:1].isupper():
        return 1
    if _glue(first.text) and first.text != "The":
        return 1
    end = start + 1
    while (
        end < len(words)
        and not words[end - 1].closes
        and not _POSSESSIVE.match(words[end - 1].text)  # "Infirmary's A&E": two things
        and words[end].text[:1].isupper()
        and not _glue(words[end].text)
        and not words[end].quoted
    ):
        end += 1
    return end - start if end - start > 1 else 1


def _runs(phrases: list[_Phrase]) -> str | None:
    """Any unbroken run of a phrase's words that begins and ends with words a value may
    begin and end with, or None when there is none.

    Each word's continuation nests the next one's, built from the phrase's end: O(n²) in
    size, as the regex subset has no back-references or rules."""
    branches: list[str] = []
    for phrase in phrases:
        from_here: list[str | None] = [None] * (len(phrase) + 1)
        for i in range(len(phrase) - 1, -1, -1):
            word, _, ends, separator = phrase[i]
            rest = from_here[i + 1]
            if rest is None:
                from_here[i] = word if ends else None
            else:
                more = f"{separator}{rest}"
                from_here[i] = f"{word}({more})?" if ends else f"{word}{more}"
        branches.extend(
            run for run, (_, opens, _, _) in zip(from_here, phrase, strict=False) if opens and run
        )
    return f"^({'|'.join(dict.fromkeys(branches))})$" if branches else None


def like_the_example(schema: dict[str, Any], request_text: str) -> str | None:
    """A pattern taking one of the request's words shaped like the code the parameter's
    description gives as its example ("Ticker symbol, e.g. AAPL": "NVDA", not "at the
    moment"), or None when it gives none or no word has its shape."""
    example = _CODE_EXAMPLE.search(str(schema.get("description", "")))
    if not example:
        return None
    code = example[1]
    if any(c.isdigit() for c in code) and any(c.isalpha() for c in code):
        shape = _LETTERS_AND_DIGITS  # "BA117", "1Z84X220": any mix, in any case
    elif code.isalpha() and code.isupper():
        shape = _CAPITALS  # "AAPL"
    else:
        return None
    found = [w for w in request_words(request_text) if len(w) >= 2 and shape.fullmatch(w)]
    return f"^({'|'.join(_literal(w) for w in dict.fromkeys(found))})$" if found else None


def takes_a_mixed_code(schema: dict[str, Any], request_text: str) -> bool:
    """Whether the parameter's example is a code of letters and digits ("e.g. BA117")
    and the request holds a word of that shape."""
    example = _CODE_EXAMPLE.search(str(schema.get("description", "")))
    if not example or not _LETTERS_AND_DIGITS.fullmatch(example[1]):
        return False
    return any(_LETTERS_AND_DIGITS.fullmatch(w) for w in request_words(request_text))


def _expression_pattern(request_text: str) -> str | None:
    written = written_expression(request_text)
    if written:
        return f"^{_literal(written)}$"
    numbers = request_numbers(request_text)[:MAX_WORDS]
    if not numbers:
        return None
    terms = [f"[(]?{_literal(n)}[)]?" for n in numbers]
    if len(terms) > ALL_NUMBERS:
        return _in_order(terms, _OPERATOR)
    percent = " / 100" if _PERCENT.search(request_text) else ""
    return f"^{_OPERATOR.join(terms)}{percent}$"


def _in_order(items: list[str], separator: str, opens: list[bool] | None = None) -> str:
    """Any run of `items` in their order, each at most once, joined by `separator`, and
    beginning with an item `opens` allows (any, without it).

    Written out once per first item, O(n²) in size: the regex subset has no
    back-references or rules."""
    branches = dict.fromkeys(
        first + "".join(f"({separator}{later})?" for later in items[i + 1 :])
        for i, first in enumerate(items)
        if opens is None or opens[i]
    )
    return f"^({'|'.join(branches)})$"


def _word(word: str) -> str:
    possessive = _POSSESSIVE.match(word)
    if possessive:
        return f"{_literal(possessive[1])}({_literal(possessive[2])})?"
    return _literal(word)


def _literal(word: str) -> str:
    # llama.cpp's converter reads `\` + one of []()|{}*+? as that character; a dot is
    # written as a class because `\.` is not an escape its grammar parser knows.
    out = []
    for char in word:
        if char == ".":
            out.append("[.]")
        elif char in "[]()|{}*+?":
            out.append("\\" + char)
        else:
            out.append(char)
    return "".join(out)


def _when(name: str, schema: dict[str, Any], request_text: str) -> str | None:
    """For free text that takes a day or a clock time, one the request says, if any."""
    said = said_when(name, schema, request_words(request_text))
    return f"^({'|'.join(_literal(p) for p in said)})$" if said else None


def _copied(
    name: str | None, schema: dict[str, Any], request_text: str, kind: Kind, taken: frozenset[str]
) -> str | None:
    """Words of the request for a string; a word that says when only for a parameter that
    speaks of that kind of time ("today" is no part of a lido's name)."""
    when = not_for(name, schema, request_words(request_text)) if name else frozenset()
    return string_pattern(request_text, kind, taken | when)


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


def _rewrite(
    value: Any, request_text: str, name: str | None, taken: frozenset[str] = frozenset()
) -> Any:
    """Keys are dropped only where they are schema keywords, never as property names."""
    if isinstance(value, list):
        return [_rewrite(v, request_text, None, taken) for v in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    if value.get("type") in ("number", "integer") and not ({"enum", "const"} & value.keys()):
        found = numbers_for(value, request_text) or _a_number_within(value)
        if found:
            out["enum"] = found
    if value.get("type") == "string" and "enum" not in value:
        out["minLength"] = value.get("minLength", 1)
        out["maxLength"] = value.get("maxLength", MAX_STRING)
        if "pattern" not in value and "format" not in value:
            # llama.cpp reads the length bounds from the pattern when there is one, so
            # words are copied only when the schema sets no bounds of its own.
            bounded = "minLength" in value or "maxLength" in value
            kind = kind_of(name, value) if name else Kind.TEXT
            text = kind is Kind.TEXT
            copied = None
            if not bounded:
                copied = (
                    (like_the_example(value, request_text) if text else None)
                    or (_when(name, value, request_text) if name and text else None)
                    or _copied(name, value, request_text, kind, taken)
                )
            out["pattern"] = copied or PLAIN_STRING_PATTERN % (out["minLength"], out["maxLength"])
    for key, item in value.items():
        if key in _NOT_FOR_GRAMMAR:
            continue
        if key in _NAME_MAPS and isinstance(item, dict):
            out[key] = {
                prop: _rewrite(sub, request_text, prop, taken) for prop, sub in item.items()
            }
        else:
            out[key] = _rewrite(item, request_text, None, taken)
    if _free_form_object(value):
        # No declared properties: the model would invent keys without end.
        out["additionalProperties"] = False
    if value.get("type") == "array" and "maxItems" not in value:
        out["maxItems"] = max(MAX_ITEMS, value.get("minItems", 0))
    return out
