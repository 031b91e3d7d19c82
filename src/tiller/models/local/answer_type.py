"""What a "which" or "what" question asks for, and whether a tool speaks of it.

"Which river runs through Vienna?" names a place a school-terms tool takes, and
scored against the tool's description it fits as well as "term dates for Vienna".
But it asks for a river, and the tool's words never speak of rivers: no call it
could make answers the question. So a question that asks for a kind of thing
("which river", "what clothes should I pack", "what vaccines does a child need")
goes to a tool only when that thing is among the tool's own words: its name, its
description, its parameters' names, descriptions and values. Words that many tools
report under other names (a time, a day, a number) ask for nothing in particular, but
"what time does the chemist close" asks for opening hours, not for the time now, and
"where does the name Ben Nevis come from?" for an origin, "how far ..." for a distance.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tiller.models.base import ToolSpec
from tiller.models.local.clauses import parts_of
from tiller.models.local.explanations import asks_a_meaning
from tiller.models.local.intent import names_something_specific, without_lead_in
from tiller.models.local.parameter_kinds import parameters
from tiller.models.local.tool_words import checks_whether

# "which"/"what" and the words after it, up to the verb, pronoun or preposition that
# ends the thing asked for: "which [river] runs", "what [clothes] should I pack".
_ASKED = re.compile(r"\b(?:which|what)\s+((?:[a-z][\w-]*\s*){1,3})", re.I)
# A name's, before the thing: "what Spice Garden's hygiene rating is" asks for a rating
# (not "which one's cheaper", which is "one is").
_AFTER_WHOSE = re.compile(r"^(?:[A-Z][\w-]*\s+){0,2}[A-Z][\w-]*['’]s\s+((?:[a-z][\w-]*\s*){1,3})")
# A name of two capitalised words or more: "St Margaret's Church Hall".
_A_NAME = re.compile(r"[A-Z][\w'’-]*\s+[A-Z]")
_ENDS_THE_THING = frozenset(
    """a about after all am an and are as at be been before by can could did do does else
    for from had has have he her his how i if in into is it its kind me my of on or our
    out s she should so sort that the their them then there these they this those through
    to type us was we were what whats when where which who will with would you your""".split()  # noqa: SIM905
)
# Answers many tools give under other words: "what time does it close", "which day".
_ANY_TOOLS_ANSWER = frozenset(
    "time times day days date dates one ones number numbers thing things".split()  # noqa: SIM905
)
_SHARED_PREFIX = 5  # "vaccines" and "vaccinations" are one thing
_CLIPPED = 3  # "veg" for "vegetables"
# When a place opens or closes asks for its hours, not for the time now: "what time does
# the chemist on westgate close", "when is the louvre open?"
_OPENS_OR_CLOSES = re.compile(
    r"\b(?:what time|when)\b[^?]*\b(?:open|opens|close|closes|shut|shuts)\b", re.I
)
_HOURS = ("opening", "closing", "hours", "open", "close")
# Where something comes from asks for its origin: "Where does the name Ben Nevis come
# from?" is for a tool that gives origins, not one that takes hills.
_COMES_FROM = re.compile(r"\bwhere (?:did|does|do) .+ come from\b", re.I)
_ORIGIN = ("origin", "origins", "history", "etymology")
# How far asks for a distance: "How far away is the Andromeda galaxy?" is for a tool
# that gives distances, not one that takes a town.
_HOW_FAR = re.compile(r"\bhow far\b", re.I)
_DISTANCE = ("distance", "distances", "far", "miles", "kilometres", "km")
# A question put to others, which asks nothing of the tool: "a poll asking which Sunday
# works", "ask the family what they want".
_ASKING_OTHERS = re.compile(r"\b(?:asking|asks?)\b(?:\s+[\w']+){0,2}\s+$", re.I)
# How a question opens that asks for more than yes or no; "which of these are safe" asks
# yes or no of each.
_ASKS_MORE_THAN_WHETHER = re.compile(
    r"^(?:what|what's|whats|which(?! of)|who|whose|where|why|when|how(?! about))\b", re.I
)


def asked_for(clause: str) -> list[str]:
    """The words of the thing a which/what question in `clause` asks for ([] when it asks
    for none in particular)."""
    if asks_a_meaning(clause):
        return []  # "what petrichor means" asks about petrichor, not for one
    if _OPENS_OR_CLOSES.search(clause):
        return list(_HOURS)
    if _COMES_FROM.search(clause):
        return list(_ORIGIN)
    if _HOW_FAR.search(clause):
        return list(_DISTANCE)
    found: list[str] = []
    for match in _ASKED.finditer(clause):
        if _ASKING_OTHERS.search(clause[: match.start()]):
            continue  # "a poll asking which Sunday works" is the poll's question
        whose = _AFTER_WHOSE.match(clause[match.start(1) :])
        if whose is None and _A_NAME.match(match[1]):
            continue  # "what St Margaret's Church Hall charge" asks what a name does
        words = re.findall(r"[a-z][\w-]*", (whose or match)[1].lower())
        if words[1:2] == ["of"]:
            words = words[2:]  # "what kind of ..."
        thing = []
        for word in words:
            if word in _ENDS_THE_THING:
                break
            thing.append(word)
        if thing and not set(thing) & _ANY_TOOLS_ANSWER:
            found.extend(thing)
    return found


def speaks_of(tool: ToolSpec, asked: Iterable[str]) -> bool:
    """Whether a word of the thing asked for is one of the tool's own words, in the
    singular or the plural, shares a word's opening ("vaccines", "vaccinations"), or is
    a word cut short ("veg" for "vegetables")."""
    words = tool_vocabulary(tool)
    stems = {_singular(w) for w in words}
    openings = {w[:_SHARED_PREFIX] for w in words if len(w) >= _SHARED_PREFIX}
    return any(
        _singular(word) in stems
        or (len(word) >= _SHARED_PREFIX and word[:_SHARED_PREFIX] in openings)
        or _cut_short(word, words)
        for word in asked
    )


def _cut_short(word: str, words: set[str]) -> bool:
    """Whether `word` is the opening of a longer word of `words`, cut at a consonant
    ("veg", "info", "admin"), not a word of its own inside one ("tea" in "team")."""
    return (
        len(word) >= _CLIPPED
        and word[-1] not in "aeiouy"
        and any(w.startswith(word) and len(w) >= len(word) + 3 for w in words)
    )


def tool_vocabulary(tool: ToolSpec) -> set[str]:
    """Every word of a tool's name, description, parameters and values, lower case."""
    texts = [tool.name, tool.description]
    for parameter in parameters(tool.parameters):
        texts.append(parameter.name)
        texts.append(str(parameter.schema.get("description", "")))
        texts.extend(str(value) for value in parameter.schema.get("enum", ()))
    return set(re.findall(r"[a-z]+", " ".join(texts).lower()))


def _singular(word: str) -> str:
    for ending in ("ies", "es", "s"):
        if word.endswith(ending) and len(word) > len(ending) + 2:
            return word[: -len(ending)]
    return word


def answers_what_is_asked(request_text: str, tool: ToolSpec) -> bool:
    """False when every part of the request asks for a kind of thing and the tool speaks
    of none of them, or every part asks more than yes or no and the tool only checks
    whether something holds ("Which countries are in the Schengen area?" and a check
    whether a traveller needs a visa). A file or a code named is for a tool to look at,
    whatever is asked of it ("which port is set in config.toml?")."""
    parts = parts_of(request_text)
    if checks_whether(tool) and all(
        _ASKS_MORE_THAN_WHETHER.match(without_lead_in(part)) for part in parts
    ):
        return False
    if names_something_specific(request_text):
        return True
    asked = [asked_for(part) for part in parts]
    return not all(asked) or any(speaks_of(tool, thing) for thing in asked)
