"""A parameter that takes a place, and whether a request names one.

A tool that looks something up for a town, a beach or a station is often the most
relevant tool for a question on its topic that names no place: "what should I keep in
the house for when the power goes out?", "does sunscreen still work a year past its
expiry date?". Copying words there gives `area: "house"`. A place is named by a
capitalised word inside a sentence ("at Whitstable"), a word after a word that says
where ("in malaga", "near leeds", "on westgate", "out of holyhead", "the nearest
defib to ludlow", "how high is ben nevis"), a word after "at the" ("at the airport"),
the request's first word ("brighton tides saturday?") or a code of letters and digits
("SW11"); "in the house", "for you", "at the moment", "in the first place" and a
capital letter alone ("band A") name none.

The other way round, a question that reads as general knowledge asks for a lookup when
it is about a place it names as that place is now: "Is it safe to swim at Whitstable
today?" is for a tool that reports a beach's water quality.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tiller.models.base import ToolSpec
from tiller.models.local.parameter_kinds import EXAMPLES, Kind, parameters
from tiller.models.local.request_words import GLUE, OUTER_PUNCTUATION
from tiller.models.local.time_words import says_when
from tiller.models.local.tool_words import topic_words

# Words of a parameter's name, or the first of its description, that say it takes a place.
_PLACE = frozenset(
    """town city place area location beach station port stop district region village
    suburb resort harbour county council borough""".split()  # noqa: SIM905
)
# Words after which a word names where: "in malaga", "near leeds", "at canal street",
# "the chemist on westgate"; not "to", which as often leads a verb ("going to rain").
_WHERE = frozenset("in at on near around from outside across via".split())  # noqa: SIM905
# After "at the", a word names where ("at the airport") unless it says when or how much.
_NOT_WHERE_AT_THE = frozenset("moment end start beginning least most same time latest".split())  # noqa: SIM905
_CODE = re.compile(r"(?=.*[A-Za-z])(?=.*\d)[A-Za-z0-9]{2,8}")
# A question how something is, its subject next: "how high is", "so how deep are".
_HOW_IS = re.compile(r"(?:so )?how (?:high|tall|far|deep|big|long|wide|busy) (?:is|are)", re.I)
# What is nearest to a place: "the nearest defib to ludlow", "closest chemist to the station".
_NEAREST = re.compile(r"\b(?:nearest|closest)\b", re.I)


def takes_a_place(name: str, schema: dict[str, Any]) -> bool:
    """Whether a parameter's name, or its description's first word, says it takes a place
    (`town`, `beach`, "Town or city, e.g. Malaga")."""
    description = str(schema.get("description", ""))
    named = set(re.findall(r"[a-z]+", name.lower()))
    first = re.findall(r"[a-z]+", description.lower())[:2]
    described = first[1:] if first[:1] == ["the"] else first[:1]
    return bool((named | set(described)) & _PLACE) and not _examples_name_no_place(description)


# Examples in a description: "e.g. lower back, hamstrings, neck", "such as 'Leeds'".


def _examples_name_no_place(description: str) -> bool:
    """Whether the examples a description gives are none of them a name ("Body area, e.g.
    lower back, hamstrings, neck"; "Code on the sign, e.g. 4521"): a place is a name,
    written with a capital ("e.g. Leeds", "e.g. Truro or BS3")."""
    examples = EXAMPLES.search(description)
    if examples is None:
        return False
    return not re.search(r"(?:^|[\s,'\"‘“(])[A-Z]", examples[1])


# Words that ask about now: a place's conditions now are looked up, not known.
_NOW = re.compile(
    r"\b(?:today|tonight|right now|now|at the moment|currently|this (?:morning|afternoon|"
    r"evening|weekend))\b",
    re.I,
)


def asks_about_a_place_now(schema: Any, request_text: str) -> bool:
    """Whether a request that might be general knowledge asks about a place it names as it
    is now, and a tool with `schema` takes a place: "Is it safe to swim at Whitstable
    today?" is for a beach's water quality, "is it safe to swim after eating?" is not."""
    return (
        _NOW.search(request_text) is not None
        and _requires_a_place(schema)
        and names_a_place(request_text)
    )


def _requires_a_place(schema: Any) -> bool:
    return any(
        p.required and p.kind is Kind.TEXT and takes_a_place(p.name, p.schema)
        for p in parameters(schema)
    )


def holds_its_place(tool: ToolSpec, request_text: str) -> bool:
    """Whether the request names a place, when `tool` requires one, or asks how things
    are now, which is looked up for a place however it is written ("how much snow has
    whistler got right now"). A word between "the" and the tool's own subject names its
    place: "when's the winchester farmers' market on" and `farmers_market`."""
    return (
        not _requires_a_place(tool.parameters)
        or names_a_place(request_text, subject=topic_words(tool.name).split())
        or _NOW.search(request_text) is not None
    )


# A name after "in", "near" or "around": "electrician jobs in Manchester".
_IN_A_NAMED_PLACE = re.compile(r"\b(?:in|near|around)\s+([A-Z][\w'’-]*)")


def names_a_town(request_text: str) -> bool:
    """Whether the request writes a capitalised name where something is ("in Bristol",
    "near Leeds"), which an optional place may take; not a day or a month ("in May")."""
    return any(not says_when(found[1]) for found in _IN_A_NAMED_PLACE.finditer(request_text))


def names_a_place(request_text: str, subject: Sequence[str] = ()) -> bool:
    """Whether the request names a place, as the module says, or a word between "the" and
    a word of `subject`."""
    raws = request_text.split()
    words = [raw.strip(OUTER_PUNCTUATION) for raw in raws]
    for i, word in enumerate(words):
        if not word or re.split(r"['’]", word.lower())[0] in GLUE or says_when(word):
            continue
        # "the winchester farmers' market", not "what makes water hard"
        after = words[i + 1].lower().rstrip("'’s") if i + 1 < len(words) else ""
        the = i > 0 and words[i - 1].lower() == "the"
        if the and after and any(len(w) >= 3 and after == w.rstrip("s") for w in subject):
            return True
        after_a_stop = i > 0 and raws[i - 1].rstrip("\"'”’)")[-1:] in ".!?:"
        if word[:1].isupper() and len(word) > 1 and i > 0 and not after_a_stop:
            return True
        if i == 0 or _CODE.fullmatch(word) or words[i - 1].lower() in _WHERE:
            return True
        before = [w.lower() for w in words[max(i - 2, 0) : i]]
        if before == ["at", "the"] and word.lower() not in _NOT_WHERE_AT_THE:
            return True
        if before == ["out", "of"]:  # "any ferries out of holyhead tmrw?"
            return True
        # What a question how high, far or deep asks of: "how high is ben nevis?"
        if _HOW_IS.fullmatch(" ".join(words[:i])):
            return True
        # "the nearest defib to ludlow market square"
        if words[i - 1].lower() == "to" and _NEAREST.search(" ".join(words[: i - 1])):
            return True
    return False
