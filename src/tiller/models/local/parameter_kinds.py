"""What kind of value a tool parameter takes, read from its JSON schema and words.

A small model fills arguments by copying from the request, so the argument
rules need to know what a parameter holds: a number, a file path, an
arithmetic expression, one of a closed set, or free text. The JSON schema says
most of it (`type`, `enum`, `format`); the rest is in the words the tool's
author chose for the parameter's name and description ("File path relative to
the workspace root", "expression"). Only words about the *value* are read, never
a particular tool's name, so any tool that describes its parameters gets the
same treatment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from tiller.models.local.code_shapes import DOTTED, takes_a_dotted_name
from tiller.models.local.dates import dates_written, takes_an_iso_date
from tiller.models.local.request_numbers import request_numbers
from tiller.models.local.request_words import request_words
from tiller.models.local.time_words import days_of_the_month, said_when, speaks_of
from tiller.models.local.value_choice import said_in_its_own_words


class Kind(StrEnum):
    NUMBER = "number"  # number or integer
    BOOLEAN = "boolean"
    CLOSED = "closed"  # an enum or const
    CONSTRAINED = "constrained"  # a string with its own pattern or format
    PATH = "path"  # a file or directory name
    EXPRESSION = "expression"  # arithmetic built from the request's numbers
    TEXT = "text"  # free text, copied from the request


@dataclass(frozen=True, slots=True)
class Parameter:
    name: str
    schema: dict[str, Any]
    kind: Kind
    required: bool


# In a parameter's name; its description must say more than "file" ("the content of the file").
_PATH_NAME = re.compile(r"\b(path|file ?name|file|directory|folder|dir)s?\b", re.I)
_PATH_DESCRIPTION = re.compile(r"\b(path|file ?name|directory|folder)s?\b", re.I)
_FILE_WORD = re.compile(r"\bfiles?\b", re.I)
_DIRECTORY_WORD = re.compile(r"\b(directory|directories|folders?|dir)\b", re.I)
# Arithmetic, not a "regular expression".
_EXPRESSION_WORDS = re.compile(
    r"\b(arithmetic|(?<!regular )expression|expr|formula|equation|calculation|math)s?\b", re.I
)
_FOLDER_NOUNS = frozenset({"folder", "directory", "dir"})
# Words beside "folder" that are not its name: "this folder", "the folder called".
_NOT_A_NAME = (
    frozenset(
        """a an the this that my our your its current same each every which what
    in of for called named and or to is are with""".split()  # noqa: SIM905
    )
    | _FOLDER_NOUNS
)
# A word of the request that names a file: "notes.txt", "src/app.py", "./build", "~/x".
_PATH_LIKE = re.compile(r"\w[./\\]\w|^[./~*]|\w[/\\]$")
# A word with dots that names no file: a version or an amount ("1.5", "v3.11.2",
# "$4.50"), an abbreviation ("e.g", "a.m").
NO_FILE_NAME = re.compile(r"^[$€£]?v?\d+(?:\.\d+)+%?$|^[a-z](?:\.[a-z])+\.?$", re.I)


def parameters(tool_parameters: Any) -> list[Parameter]:
    """The top-level parameters of a tool's JSON schema, each with its kind."""
    if not isinstance(tool_parameters, dict):
        return []
    properties = tool_parameters.get("properties")
    if not isinstance(properties, dict):
        return []
    required = set(tool_parameters.get("required") or ())
    return [
        Parameter(name, schema, kind_of(name, schema), name in required)
        for name, schema in properties.items()
        if isinstance(schema, dict)
    ]


def kind_of(name: str, schema: dict[str, Any]) -> Kind:
    """The kind of value the parameter `name` with `schema` takes."""
    if "enum" in schema or "const" in schema:
        return Kind.CLOSED
    kinds = _types(schema)
    if kinds & {"number", "integer"} and "string" not in kinds:
        return Kind.NUMBER
    if kinds == {"boolean"}:
        return Kind.BOOLEAN
    if "pattern" in schema or "format" in schema:
        return Kind.CONSTRAINED
    # The examples are values, not what kind they are: "School subject, e.g. maths".
    description = EXAMPLES.sub("", str(schema.get("description", "")))
    if _EXPRESSION_WORDS.search(f"{name.replace('_', ' ')} {description}"):
        return Kind.EXPRESSION
    if _PATH_NAME.search(name.replace("_", " ")) or _PATH_DESCRIPTION.search(
        str(schema.get("description", ""))
    ):
        return Kind.PATH
    return Kind.TEXT


def _types(schema: dict[str, Any]) -> set[str]:
    """The JSON types a schema allows besides null (`anyOf` of types included)."""
    found: set[str] = set()
    kind = schema.get("type")
    if isinstance(kind, str):
        found.add(kind)
    elif isinstance(kind, list):
        found.update(k for k in kind if isinstance(k, str))
    for option in schema.get("anyOf") or schema.get("oneOf") or ():
        if isinstance(option, dict):
            found |= _types(option)
    found.discard("null")
    return found


def path_words(words: list[str], *, files_only: bool = False) -> list[str]:
    """The words that look like file names, each once, in order; with `files_only`,
    not those that name a directory ("src/", "the docs folder")."""
    found = [
        w
        for w in words
        if (
            _PATH_LIKE.search(w)
            and not NO_FILE_NAME.match(w)
            and not (files_only and w.endswith("/"))
        )
        or _names_a_file_without_a_dot(w)
    ]
    return list(dict.fromkeys(found if files_only else [*found, *folder_words(words)]))


def _names_a_file_without_a_dot(word: str) -> bool:
    """A file named by convention without an extension: "a LICENSE file", "the Makefile"
    ("a TOML file" is a kind of file)."""
    return _NO_EXTENSION.fullmatch(word) is not None


_NO_EXTENSION = re.compile(
    r"(?:Make|Docker|Gem|Proc|Vagrant|Pip|Brew|Jenkins)file|LICENSE|COPYING|NOTICE|AUTHORS|"
    r"CHANGELOG|CONTRIBUTING|CODEOWNERS|SECURITY|INSTALL"
)


def folder_words(words: list[str]) -> list[str]:
    """The words a request names as folders: "src/", and the word beside "folder" or
    "directory" ("the docs folder", "directory src"), not "this folder"."""
    named = [w for w in words if w.endswith("/") and len(w) > 1]
    for at, word in enumerate(words):
        if word.lower() in _FOLDER_NOUNS:
            beside = [words[i] for i in (at - 1, at + 1) if 0 <= i < len(words)]
            named += [w for w in beside if w.lower() not in _NOT_A_NAME and w.isascii()]
    return list(dict.fromkeys(named))


def says_a_folder(words: list[str]) -> bool:
    """Whether a request speaks of a folder: "this folder", "the src directory", "data/"."""
    return any(w.lower() in _FOLDER_NOUNS for w in words) or bool(folder_words(words))


_SAYS_A_COMMAND = re.compile(r"\bcommand|\bcmd\b", re.I)


def takes_a_command(name: str, schema: dict[str, Any]) -> bool:
    """Whether a text parameter's name or description says it holds a command to run."""
    return bool(_SAYS_A_COMMAND.search(f"{name.replace('_', ' ')} {schema.get('description', '')}"))


def takes_a_file(parameter: Parameter) -> bool:
    """Whether a path parameter's words say a file, not a directory ("File path ...")."""
    words = f"{parameter.name.replace('_', ' ')} {parameter.schema.get('description', '')}"
    return bool(_FILE_WORD.search(words)) and not _DIRECTORY_WORD.search(words)


def numbers_for(schema: dict[str, Any], request_text: str) -> list[int | float]:
    """The request's numbers a number (or integer) parameter may take, each once: of its
    type, and within its bounds; not a day of the month written with its month ("9 May")."""
    kind = schema.get("type")
    found: list[int | float] = []
    # The numbers of a day of the month and of a whole date ("2025-04-02") are no count.
    dates = days_of_the_month(request_text) + [
        n
        for start, end, _ in dates_written(request_text)
        for n in request_numbers(request_text[start:end])
    ]
    negated = taken_off(request_text) if may_be_negative(schema) else []
    for text in request_numbers(request_text):
        if text in dates:
            dates.remove(text)
            continue
        number = float(text)
        if text in negated:
            negated.remove(text)
            number = -number  # "take 2 off the count" changes it by -2
        if number.is_integer():
            found.append(int(number))
        elif kind == "number":
            found.append(number)
    # "Two jars got smashed - take 2 off": the amount is the one taken off.
    found = [n for n in found if n <= 0 or -n not in found]
    return [n for n in dict.fromkeys(found) if within(schema, n)]


# An amount said as taken away: "take 2 off the honey count", "and 5 off the bread",
# "minus 3", "remove 4".
_TAKEN_OFF = re.compile(
    r"(?<![\w.+-])(\d+(?:\.\d+)?) (?:\w+ )?off\b(?! (?:work|duty|sick))|"
    r"\b(?:minus|remove|subtract|less) (\d+(?:\.\d+)?)\b",
    re.I,
)


def taken_off(request_text: str) -> list[str]:
    """The numbers the request says are taken away, as written."""
    return [a or b for a, b in _TAKEN_OFF.findall(request_text)]


def may_be_negative(schema: dict[str, Any]) -> bool:
    """Whether a number parameter says it takes negative values for what is taken away
    ("Number of units to add (positive) or remove (negative)")."""
    low = schema.get("minimum")
    if isinstance(low, int | float) and low >= 0:
        return False
    return re.search(r"\bnegative\b", str(schema.get("description", "")), re.I) is not None


def within(schema: dict[str, Any], number: float) -> bool:
    """Whether `number` meets the schema's bounds (a bound that is not a number is ignored)."""

    def bound(key: str) -> float | None:
        found = schema.get(key)
        return found if isinstance(found, int | float) and not isinstance(found, bool) else None

    low, high = bound("minimum"), bound("maximum")
    above, below, step = bound("exclusiveMinimum"), bound("exclusiveMaximum"), bound("multipleOf")
    return (
        (low is None or number >= low)
        and (high is None or number <= high)
        and (above is None or number > above)
        and (below is None or number < below)
        and (not step or (number / step).is_integer())
    )


def offered(
    parameter: Parameter, request_text: str, words: list[str], *, day_elsewhere: bool = False
) -> bool:
    """Whether the request holds a value for `parameter`, so it need not be invented.

    A number needs a number in the request within its bounds ("three bananas" is no
    value for a minimum of 5 minutes), an expression two numbers or one with what to work
    out from it, a path a word that looks like a file's name and is no call
    ("str.splitlines()"), an optional boolean its own name's words ("ignore case"), an
    optional closed set one of its values named; a required boolean, a required closed set
    and a constrained string are left to their schemas ("yes, I'm coming" says
    `attending`). Free text can always be copied when it is required; when it is
    optional nothing marks which words would be its value, so it is offered only when it
    takes a day or a clock time and the request says one (`time_words.said_when`, told
    whether another parameter takes the day: `day_elsewhere`), or a
    date written YYYY-MM-DD and the request writes a whole date.
    """
    if parameter.kind is Kind.NUMBER:
        if spanned(parameter.name, parameter.schema, request_text) is not None:
            return True
        if not parameter.required and measured_in(parameter.name):
            # "warn_at_percent" takes no "£90", "ticket_minutes" no "Level 2"; "odometer
            # says 58214" gives `odometer_miles` its number.
            return stated_with_its_unit(parameter, request_text) or bool(
                numbers_after_its_name(parameter, request_text)
            )
        found = numbers_for(parameter.schema, request_text)
        if _STARTS.search(parameter.name):
            # "the first five lines" counts from the start; it says no start line.
            found = [n for n in found if n not in _counts_from_the_start(request_text)]
        elif _ENDS.search(parameter.name):
            # "from line 5 onwards" says where it starts, and no end.
            found = [n for n in found if n not in _said_as_a_start(request_text)]
        return bool(found)
    if parameter.kind is Kind.EXPRESSION:
        # A sum takes two numbers, or one and what to work out from it ("£96 a year. How
        # much is that per month?"): "We pay £120 a year and still can't park" is none.
        numbers = request_numbers(request_text)
        return len(numbers) >= 2 or (
            bool(numbers) and _ONE_NUMBER_SUM.search(request_text) is not None
        )
    if parameter.kind is Kind.PATH:
        # A call written out is no file: "how is str.splitlines() different ...?"
        unnamed = [w for w in words if f"{w}(" not in request_text]
        return bool(path_words(unnamed, files_only=takes_a_file(parameter)))
    if parameter.kind is Kind.BOOLEAN:
        # A required yes or no is the schema's to pick ("yes, I'm coming" -> attending).
        named = parameter.name.replace("_", " ").lower()
        return parameter.required or named in request_text.lower()
    if parameter.kind is Kind.TEXT:
        # An optional day or time is offered when the request says one of its kind.
        return bool(words) and (
            parameter.required
            or bool(said_when(parameter.name, parameter.schema, words, day_elsewhere=day_elsewhere))
            # "delivered on 2025-04-02" for a date written YYYY-MM-DD
            or (takes_an_iso_date(parameter.schema) and bool(dates_written(request_text)))
            or (
                takes_a_written_number(parameter.name, parameter.schema)
                and bool(written_numbers(request_text))
            )
        )
    if parameter.kind is Kind.CLOSED and not parameter.required:
        values = parameter.schema.get("enum") or [parameter.schema.get("const")]
        return any(
            str(v).lower() in request_text.lower()
            or said_in_its_own_words(str(v), values, request_text) is not None
            for v in values
            if v is not None
        )
    return True


# The examples a description gives: "Full UK postcode, e.g. SW1A 1AA", "e.g. M25 or A1".
EXAMPLES = re.compile(r"\b(?:e\.?g\.?|for example|such as)[,:]?\s*(.+)$", re.I)
_EXAMPLE_BREAK = re.compile(r"\s*(?:,|;|\bor\b)\s*")
# A word of a code: capitals, digits and dashes ("SW1A", "20-00-00", "XYZ").
_CODE_WORD = re.compile(r"[A-Z0-9][A-Z0-9/-]*")
# A value that may be a name or a place: "Road number or street name", "a street,
# landmark, postcode or town".
# A title is a name too: "Petition title or reference number" takes "Save Ashton Court Woods".
_MAY_BE_A_NAME = re.compile(
    r"\b(?:names?|titles?|street|town|city|village|landmark|place|area)\b", re.I
)


# A text parameter that says it holds a number, given no example: "Phone number".
_A_NUMBER_SAID = re.compile(r"\b(?:numbers?|digits?|\d+-digit)\b", re.I)


def takes_a_code(parameter: Parameter) -> bool:
    """Whether a free text parameter takes a code, written with digits: each example its
    description gives is capitals and digits, with a digit ("Full UK postcode, e.g. SW1A
    1AA", "Six-digit sort code, e.g. 20-00-00", "Road number, e.g. M25 or A1"); not a
    day or a time ("Start time, e.g. 19:00"), nor a value that may be a name or a place
    ("Road number or street name, e.g. B1249"). Given no example, a parameter that says
    it holds a number ("The phone number to block") takes one."""
    description = str(parameter.schema.get("description", ""))
    if _MAY_BE_A_NAME.search(description) or any(speaks_of(parameter.name, parameter.schema)):
        return False
    found = EXAMPLES.search(description)
    if found is None:
        return takes_a_written_number(parameter.name, parameter.schema)
    examples = [e.strip(" .'\"‘’“”") for e in _EXAMPLE_BREAK.split(found[1])]
    examples = [e for e in examples if e]
    return bool(examples) and all(
        any(c.isdigit() for c in e) and all(_CODE_WORD.fullmatch(w) for w in e.split())
        for e in examples
    )


def takes_a_written_number(name: str, schema: dict[str, Any]) -> bool:
    """Whether a text parameter that gives no example says it holds a number: "The phone
    number to block", "The 15-digit microchip number"; not "Contact name or number"."""
    description = str(schema.get("description", ""))
    if EXAMPLES.search(description) or _MAY_BE_A_NAME.search(description):
        return False
    return _A_NUMBER_SAID.search(f"{name.replace('_', ' ')} {description}") is not None


# A word of a number written in groups: "07700 900456", "+44 161 496 0732".
_DIGIT_GROUP = re.compile(r"\+?\d+")
_MIN_DIGITS = 3  # fewer are a count or a day ("table 5"), no number to look up


def written_numbers(request_text: str) -> list[str]:
    """The numbers the request writes as runs of digit groups, each run whole and ending
    at a stop: "block 07700 900456 and 07700 900789, both keep ringing" writes two."""
    runs: list[str] = []
    run: list[str] = []
    for raw in [*request_text.split(), ""]:
        bare = raw.strip(".,;:!?()[]\"'")
        if _DIGIT_GROUP.fullmatch(bare):
            run.append(bare)
            if not raw.rstrip(")]\"'").endswith((".", ",", ";", ":", "!", "?")):
                continue
        if sum(c.isdigit() for c in "".join(run)) >= _MIN_DIGITS:
            runs.append(" ".join(run))
        run = []
    return list(dict.fromkeys(runs))


# What a sum of one number asks: "how much is that per month?", "the square root of 144",
# "then add 8".
_ONE_NUMBER_SUM = re.compile(
    r"\bhow (?:much|many)\b|\bsquare root\b|\bsqrt\b|\bsquared\b|\bcubed\b|\bfactorial\b|"
    r"\bhalf\b|\bdouble\b|\btriple\b|\bper\b|%|\bpercent\b|"
    # Arithmetic on a number worked out before: "multiply 6 and 7, then add 8".
    r"\b(?:add|plus|minus|subtract|take away|times|multiply|multiplied|divide|divided)\b",
    re.I,
)


def holds_its_codes(schema: Any, request_text: str) -> bool:
    """Whether the request writes a word with a digit, when the schema requires a code
    (`takes_a_code`): "How are UK postcodes structured?" has no postcode to look up. Read
    on the whole request, as a part may ask what another part gives the code for ("Is my
    washing machine still under warranty? The serial number is WM8823410."). A parameter
    whose examples are names joined by dots ("e.g. example.co.uk") needs a word of that
    shape: "name ideas for a little bakery" has no domain to check."""
    required = [p for p in parameters(schema) if p.required and p.kind is Kind.TEXT]
    if any(takes_a_dotted_name(p.schema) for p in required) and not any(
        DOTTED.fullmatch(w) for w in request_words(request_text)
    ):
        return False
    codes = [p for p in required if takes_a_code(p)]
    return not codes or any(c.isdigit() for c in request_text)


# A parameter where something starts: `start_line`, `from_line`, `offset`.
_STARTS = re.compile(r"start|from|begin|offset", re.I)
# A count from the start: "the first five lines", "top 3".
_FROM_THE_START = re.compile(r"\b(?:first|top)\s+(\d+|[a-z]+(?:[- ][a-z]+)?)\b", re.I)


# A parameter where something ends: `end_line`, `to_line`, `until`, `stop`.
_ENDS = re.compile(r"end|until|stop|(?:^|_)to(?:_|$)", re.I)
# A number said as where something starts: "from line 5", "starting at 12", "line 5 onwards".
_A_START = re.compile(
    r"\b(?:from|starting (?:at|from|with)|beginning (?:at|from|with)|after)\s+"
    r"(?:(?:line|row|page|item|number|no\.?)\s+)?(\d+)\b(?!\s*(?:to|-|–|through|until|till)\b)|"
    r"\b(\d+)\s*(?:onwards?|and (?:on|onwards?|after|beyond|below))\b",
    re.I,
)


def _said_as_a_start(request_text: str) -> list[float]:
    return [float(found[1] or found[2]) for found in _A_START.finditer(request_text)]


_NUMBER_TYPES = ("number", "integer")
# A span of lines, rows or pages the request names: "lines 6-7", "lines 2 through 4",
# "from line 3 to line 5", "lines 2 and 3", "line 4" (one line, so it starts and ends there).
_SPAN = re.compile(
    r"\b(?:line|row|page)s?\s+(\d+)(?:\s*(?:-|–|to|through|thru|until|till|and)\s*"
    r"(?:(?:line|row|page)s?\s+)?(\d+))?\b",
    re.I,
)


def spanned(name: str, schema: dict[str, Any], request_text: str) -> int | None:
    """Where the one span the request names starts, for a number parameter where something
    starts (`start_line`), or where it ends, for one where something ends (`end_line`):
    "lines 6-7" is 6 and 7, "line 4" 4 and 4. None when the request names no span or more
    than one, and for the end when it says only where the span starts ("from line 5",
    "line 5 onwards")."""
    branches = [schema, *schema.get("anyOf", ()), *schema.get("oneOf", ())]
    numbers = [b for b in branches if isinstance(b, dict) and b.get("type") in _NUMBER_TYPES]
    if not numbers:
        return None
    spans = [(int(found[1]), found[2]) for found in _SPAN.finditer(request_text)]
    if len(spans) != 1:
        return None
    start, end = spans[0]
    if _STARTS.search(name):
        value = start
    elif _ENDS.search(name) and (end is not None or start not in _said_as_a_start(request_text)):
        value = int(end) if end is not None else start
    else:
        return None
    return value if within(numbers[0], value) else None


def _counts_from_the_start(request_text: str) -> list[float]:
    return [
        float(n)
        for found in _FROM_THE_START.finditer(request_text)
        for n in request_numbers(found[1])
    ]


# Units a number parameter's name may be measured in: `ticket_minutes`, `warn_at_percent`.
_UNITS = frozenset(
    """seconds secs minutes mins hours hrs days weeks months years percent pct mg ml kg
    km miles litres liters grams metres meters""".split()  # noqa: SIM905
)


# Units written short after a number: "30g", "2h", "20 mins".
_ABBREVIATED = {"g": "gram", "h": "hour", "hr": "hour", "min": "minute", "sec": "second"}


def measured_in(name: str) -> str | None:
    """The unit a number parameter's name says it is measured in, if any."""
    words = re.findall(r"[a-z]+", name.lower())
    return next((w for w in words if w in _UNITS), None)


# A number and the word written after it: "10 minutes", "500mg", "2.5 kg".
_NUMBER_AND_WORD = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)?)\s?([A-Za-z]+)")


def stated_with_its_unit(parameter: Parameter, request_text: str) -> bool:
    """Whether the request writes a number with a word of the parameter's name or
    description after it ("for 10 minutes" and "how long to water (1-120 minutes)",
    "500mg" and `dose_mg`): the value is asked for, not merely present."""
    if parameter.kind is not Kind.NUMBER or not numbers_for(parameter.schema, request_text):
        return False
    if "percent" in _units_of(parameter) and re.search(r"\d\s?%", request_text):
        return True  # "warn me at 80%"
    return bool(numbers_with_its_unit(parameter, request_text))


def numbers_with_its_unit(parameter: Parameter, request_text: str) -> list[float]:
    """The numbers the request writes with a word of the parameter's name or description
    after them: "42.6 litres of diesel" for `litres`, not the odometer's "58214"."""
    units = _units_of(parameter)
    found = []
    for number in _NUMBER_AND_WORD.finditer(request_text):
        said = number[2].lower().removesuffix("s")
        said = _ABBREVIATED.get(said, said)
        if said in units or (len(said) >= 3 and any(u.startswith(said) for u in units)):
            found.append(float(number[1].replace(",", ".")))
    return found


def numbers_after_its_name(parameter: Parameter, request_text: str) -> list[float]:
    """The numbers the request writes just after a word of the parameter's name that is
    no unit: "odometer says 58214" for `odometer_miles`, "severity 8" for `severity`."""
    words = [w for w in parameter.name.lower().split("_") if len(w) >= 4 and w not in _UNITS]
    if not words:
        return []
    after = re.compile(
        rf"\b(?:{'|'.join(map(re.escape, words))})s?\b(?:\s+(?:says|is|was|at|of|reads|reading|"
        r"now|on))?\s+(\d+(?:\.\d+)?)(?!\w|\.\d)",
        re.I,
    )
    return [float(found[1]) for found in after.finditer(request_text)]


def _units_of(parameter: Parameter) -> set[str]:
    """The words of a parameter's name and description that may follow its number."""
    described = f"{parameter.name} {parameter.schema.get('description', '')}"
    return {w.removesuffix("s") for w in re.findall(r"[a-z]+", described.lower()) if len(w) >= 2}
