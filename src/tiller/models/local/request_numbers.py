"""The numbers in a request, as Python would write them.

Digits as people write them ("-3", "4.50", "€60", "18,000" -> 18000, "x4" -> 4) and
English number words ("forty" -> 40, "seven hundred and twelve" -> 712,
"eighty-nine" -> 89), in the order they appear. Tool arguments that are numbers
or arithmetic take their values from here, so a small model copies a number
rather than inventing one.
"""

from __future__ import annotations

import re

# A run of digits, operators and parentheses, and an operation inside one.
_EXPRESSION_RUN = re.compile(r"[(\d][-+*/()\d. ]*[\d)]")
_OPERATION = re.compile(r"[\d)]\s*[-+*/]\s*[(\d]")

_UNITS = {
    word: value
    for value, word in enumerate(
        ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
         "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
         "seventeen", "eighteen", "nineteen")
    )
}  # fmt: skip
_TENS = {
    word: 10 * value
    for value, word in enumerate(
        ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"), start=2
    )
}
_SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
# Which kind of word may follow which; anything else starts a new number.
_FOLLOWS: dict[str, set[str | None]] = {
    "unit": {None, "tens", "hundred", "scale", "and"},
    "tens": {None, "hundred", "scale", "and"},
    "hundred": {None, "unit"},  # "a hundred" is 100
    "scale": {None, "unit", "tens", "hundred"},
    "and": {"hundred", "scale"},
}
# A number in digits (not the "1.2" of "v1.2"), a count after "x" ("x4 cups"), or a word.
_TOKEN = re.compile(r"(?<![\w.])(?:[x×](?=\d))?-?\d+(?:,\d{3})*(?:\.\d+)?|[A-Za-z]+")
# The second word of a code of letters and digits is no number: the "3" of "LS6 3QT".
_CODE_END = re.compile(r"[A-Z]{2}\b")
_CODE_START = re.compile(r"\b(?=[A-Z0-9]*[A-Z])(?=[A-Z0-9]*[0-9])[A-Z0-9]{2,5} $")


def request_numbers(text: str) -> list[str]:
    numbers: list[str] = []
    spelled = _Spelled()
    for found in _TOKEN.finditer(text):
        token = found[0]
        if spelled.take(token.lower()):
            continue
        if spelled.value is not None:
            numbers.append(str(spelled.value))
        spelled = _Spelled()
        if spelled.take(token.lower()):
            continue
        if token[-1].isdigit() and not _code_end(text, found):
            numbers.append(token.lstrip("x×").replace(",", ""))
    if spelled.value is not None:
        numbers.append(str(spelled.value))
    return numbers


def _code_end(text: str, found: re.Match[str]) -> bool:
    return bool(_CODE_END.match(text, found.end()) and _CODE_START.search(text, 0, found.start()))


class _Spelled:
    """A number being read from words, one word at a time: "seven hundred and twelve"."""

    def __init__(self) -> None:
        self.total = 0
        self.current = 0
        self.last: str | None = None

    @property
    def value(self) -> int | None:
        return None if self.last is None else self.total + self.current

    def take(self, word: str) -> bool:
        """Add `word` to the number if it continues it."""
        kind = _kind(word)
        if kind is None or self.last not in _FOLLOWS[kind]:
            return False
        if kind == "unit" and self.last == "tens" and _UNITS[word] >= 10:
            return False  # "twenty twelve" is two numbers
        if kind in ("unit", "tens"):
            self.current += _UNITS.get(word, 0) + _TENS.get(word, 0)
        elif kind == "hundred":
            self.current = max(self.current, 1) * 100
        elif kind == "scale":
            self.total += max(self.current, 1) * _SCALES[word]
            self.current = 0
        self.last = kind
        return True


def _kind(word: str) -> str | None:
    if word in _UNITS:
        return "unit"
    if word in _TENS:
        return "tens"
    if word == "hundred":
        return "hundred"
    if word in _SCALES:
        return "scale"
    return "and" if word == "and" else None


def written_expression(text: str) -> str | None:
    """The longest arithmetic expression written out in `text` ("(125 + 375) * 4"), if any."""
    found = [
        run.strip()
        for run in _EXPRESSION_RUN.findall(text)
        if _OPERATION.search(run) and run.count("(") == run.count(")")
    ]
    return max(found, key=len) if found else None
