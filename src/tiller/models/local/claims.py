"""The names a free-text parameter claims, so that another free text of the same call
does not copy them.

A call with two free texts ("medicine" and "pharmacy") lets greedy decoding copy the
most name-like words of the request into both: "Order my repeat sertraline 50mg from
Boots High Street" gave the pharmacy as the medicine too. A name is one parameter's
when it holds a word of that parameter's name ("Well Pharmacy" for `pharmacy`), when
that word follows it ("my Karaoke playlist" for `playlist`), or when it follows the
word the parameter's description ends its verb with ("Pharmacy to collect from" and
"from Boots High Street"), and so is what follows that word and a colon ("task:
revise for the quiz"). It takes one of the names it claims, and the other free texts
leave them out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

# Capitalised words inside a sentence, with "-" or "'" inside ("Co-op Pharmacy", "Boots
# High Street"); a sentence's first word is capitalised anyway ("Email Bob ...").
_NAME = re.compile(r"(?<![.?!:]\s)(?<!^)\b(?!I\b)[A-Z][\w'’-]*(?: (?!I\b)[A-Z][\w'’-]*)*")
# A description whose verb ends with its preposition: "Pharmacy to collect from",
# "Address to send it to", "Shop to pick up at".
_STRANDED = re.compile(r"\b[a-z]+ (?:it |them )?(from|to|at|in|with|into|onto)\s*(?:[,.;(]|$)")
_MIN_NAME_WORD = 4  # letters of a parameter's name word a name must hold ("pharmacy")


def claimed_names(
    texts: Iterable[tuple[str, dict[str, Any]]], request_text: str
) -> dict[str, tuple[str, ...]]:
    """For each free-text parameter (name, schema), the request's names it claims; a
    mapping the request writes (`mapped`) gives each of two texts its side."""
    texts = list(texts)
    pair = mapped(request_text)
    if pair is not None and len(texts) == 2:
        first, second = (name for name, _ in texts)
        targets = [n for n, schema in texts if _preposition(str(schema.get("description", "")))]
        source, target = (second, first) if targets == [first] else (first, second)
        return {source: (pair[0],), target: (pair[1],)}
    names = [(m.start(), m[0], m.end()) for m in _NAME.finditer(request_text)]
    claims: dict[str, tuple[str, ...]] = {}
    for name, schema in texts:
        own = {
            w.removesuffix("s")
            for w in re.findall(r"[a-z]+", name.lower())
            if len(w) >= _MIN_NAME_WORD
        }
        described = str(schema.get("description", ""))
        after = _preposition(described)
        maker = bool((own | set(re.findall(r"[a-z]+", described.lower()))) & _MAKERS)
        words: list[str] = []
        for start, found, end in names:
            before = request_text[:start]
            holds_its_name = any(w.lower().removesuffix("s") in own for w in found.split())
            named_by_it = _word_after(request_text, end) in own  # "my Karaoke playlist"
            follows = after is not None and re.search(rf"\b{after}\s+$", before, re.I)
            made_by = maker and re.search(r"\bby\s+$", before) is not None
            if (
                holds_its_name
                or named_by_it
                or follows
                or made_by
                or _did_it(described, request_text, start, end)
            ):
                words.append(found)
        # A value labelled with the parameter's name: "a chemistry task: revise for the
        # quiz, due 2025-02-20" for `task`.
        for word in own:
            labelled = re.search(rf"\b{word}s?:\s+([^,;.?!\n]+)", request_text, re.I)
            if labelled:
                words.insert(0, labelled[1].strip())
        if words:
            claims[name] = tuple(dict.fromkeys(words))
    return claims


# Who makes a work, named after "by": "Blue Lines by Massive Attack" for `artist`.
_MAKERS = frozenset(
    "artist band author writer composer director performer singer maker brand designer".split()  # noqa: SIM905
)
# A description that asks who did something: "Who won", "Who scored".
_WHO_DID = re.compile(r"^\W*who ([a-z]+)\W*$", re.I)


def _did_it(described: str, request_text: str, start: int, end: int) -> bool:
    """Whether the name at `start`..`end` did what the description asks who did: "Who
    won" and "won by Sam", "Mum won Rummikub"."""
    who = _WHO_DID.match(described)
    if who is None:
        return False
    verb = re.escape(who[1])
    return (
        re.search(rf"\b{verb} by\s+$", request_text[:start], re.I) is not None
        or re.match(rf"\s+{verb}\b", request_text[end:], re.I) is not None
    )


def claimed_by_others(claims: Mapping[str, tuple[str, ...]], name: str | None) -> frozenset[str]:
    """The names (lower case) the other free texts claim, which `name` does not copy."""
    return frozenset(n.lower() for other, names in claims.items() if other != name for n in names)


# Words of a parameter's name that name no thing: `from_address`, `until_date`.
_NO_THING = frozenset({"from", "into", "onto", "with", "until", "after", "before", "over"})


def _word_after(request_text: str, end: int) -> str:
    found = re.match(r"\s+([a-z]+)", request_text[end:])
    word = found[1].removesuffix("s") if found else ""
    return "" if word in _NO_THING else word


def _preposition(description: str) -> str | None:
    stranded = _STRANDED.search(description)
    return stranded[1] if stranded else None


# What one thing becomes, written as a mapping: "brb -> be right back", "make ty expand to:
# Thank you so much", "when i type addr it fills in 42 Larch Close". The other side ends
# with the request, at "; ", ", and " or a full stop after more than an initial ("Dr A.
# Okafor, Ward 7B. Also ...").
_THE_REST = r"(?P<to>.+?)\s*(?=;\s|,\s+(?:and|also)\b|(?<!\b[A-Z])\.\s|[.!]?\s*$)"
_MAPPINGS = (
    re.compile(rf"(?P<from>[^\s:]+)\s*(?:->|=>|→)\s*{_THE_REST}"),
    re.compile(
        rf"\b(?:type|typing|enter|write)\s+(?P<from>\S+)\s+(?:it\s+)?"
        rf"(?:fills? in|expands? (?:in)?to|turns? into|becomes?)\s*:?\s*{_THE_REST}",
        re.I,
    ),
    re.compile(rf"\b(?P<from>\S+)\s+(?:to )?expand(?:s|ed)? (?:in)?to\s*:?\s*{_THE_REST}", re.I),
)


def mapped_spans(request_text: str) -> list[tuple[int, int]]:
    """Where each mapping the request writes says what a thing becomes: no clause ends
    inside it ("when i type addr it fills in 42 Larch Close, Didsbury, M20 6TL")."""
    return [m.span("to") for pattern in _MAPPINGS for m in pattern.finditer(request_text)]


def mapped(request_text: str) -> tuple[str, str] | None:
    """The one mapping the request writes, what is written and what it becomes: "Add a
    shortcut: brb -> be right back" -> ("brb", "be right back")."""
    for pattern in _MAPPINGS:
        found = list(pattern.finditer(request_text))
        if len(found) == 1:
            return found[0]["from"].strip("'\"‘’“”"), found[0]["to"].strip("'\"‘’“”")
    return None
