"""A request that only tells how things are or how the speaker feels, asking nothing.

"had wayyy too much wine at my sister's wedding last night. head is pounding. never
again" and "ugh, the toaster I bought last week already stopped working. so annoying"
vent; they ask no question and give no instruction. A tool ranked high for their words
(the weather for "last night", a recall check for "the toaster") would answer what
nobody asked, so such a request is answered in text.

A request tells only when it opens with the speaker or what they speak of ("I've",
"my", "the toaster", "had ..."), every part after it is a statement or a short
exclamation ("never again", "so annoying"), one part at least says something is or
happened, and nothing in it asks: no question, no word of wanting or wondering, no
instruction, no sum, and nothing specific a tool could look at (a file or a code).
"""

from __future__ import annotations

import re

from tiller.models.local.intent import (
    SMALL_TALK,
    asks_a_sum,
    asks_for_change,
    clauses_of,
    names_something_specific,
)
from tiller.models.local.verbs import request_verb

# Where a telling opens: the speaker, their things, or what they did.
_OPENS_TELLING = re.compile(
    r"^(?:i|i['’]m|im|i['’]ve|ive|we|we['’]re|we['’]ve|my|our|the|it['’]s|its|it|"
    r"that['’]s|this|a|an|had|got|been|spent|so|no|never|what an?|"
    r"just (?:[a-z]+ed|bought|got|had|been|came|went))\b",
    re.I,
)
# Words that say something is or happened: "is pounding", "got declined", "hasn't" (or
# "hasnt", but not "current").
_IS_OR_HAPPENED = re.compile(
    r"\b(?:is|are|was|were|am|i['’]m|im|it['’]s|that['’]s|has|have|had|got|i['’]ve|"
    r"we['’]ve|hate|love|[a-z]{3,}ed)\b|\b[a-z]+n['’]t\b|\b(?:is|are|was|were|has|have|had|do|"
    r"does|did|ca|could|wo|would|should|ai)nt\b",
    re.I,
)
# Words that ask, wherever they are: a question word, wanting, wondering, asking for help.
_ASKING = re.compile(
    r"\b(?:what|whats|how|hows|why|where|which|who|whether|i wonder|wondering|curious|"
    r"looking (?:for|to)|after|trying to (?:find|work out|figure)|need|want|wanna|"
    r"would like|['’]d (?:like|love)|know|please|pls|help|recommend\w*|suggest\w*|"
    r"tell me|ideas?)\b",
    re.I,
)
# A question or an auxiliary opening a part: "is a visa needed", "can u report it".
_OPENS_A_QUESTION = re.compile(
    r"^(?:what\w*|how\w*|why|where\w*|when|which|who\w*|is|are|am|was|were|do|does|did|"
    r"can|could|will|would|should|shall|may|might|any)\b",
    re.I,
)
# A sound before what is told: "ugh,", "oh no".
_SOUND = re.compile(
    r"^(?:ugh+|argh+|ah+|oh+(?: no| dear)?|ow+|aw+|meh|sigh|wow|omg)\b[,!.]*\s*", re.I
)
_PIECE_BREAK = re.compile(r",\s+|\s+[-–—]\s+")
_EXCLAMATION_WORDS = 3  # "never again", "so annoying", "what a day"


def only_tells(request_text: str) -> bool:
    """Whether the request only tells how things are or how the speaker feels, perhaps
    asking after the assistant at the end ("... anyway, how's your day going?")."""
    request_text = SMALL_TALK.sub("", request_text.strip())
    if "?" in request_text or _ASKING.search(request_text):
        return False
    if asks_for_change(request_text) or request_verb(request_text) is not None:
        return False
    if asks_a_sum(request_text) or names_something_specific(request_text):
        return False
    pieces = [
        _SOUND.sub("", piece.strip())
        for clause in clauses_of(request_text)
        for piece in _PIECE_BREAK.split(clause)
    ]
    pieces = [p for p in pieces if p.strip(" ,.!")]
    return (
        bool(pieces)
        and _OPENS_TELLING.match(pieces[0]) is not None
        and all(_a_statement(p) for p in pieces)
        and any(_IS_OR_HAPPENED.search(p) for p in pieces)
    )


def _a_statement(piece: str) -> bool:
    """Whether a part tells rather than asks or instructs: it opens as a telling does, says
    something is or happened after its first word ("head is pounding"), or is a short
    exclamation with no name or number in it."""
    if _OPENS_A_QUESTION.match(piece):
        return False
    words = piece.split()
    if _OPENS_TELLING.match(piece) or _IS_OR_HAPPENED.search(" ".join(words[1:])):
        return True
    named = any(w[:1].isupper() or any(c.isdigit() for c in w) for w in words)
    return len(words) <= _EXCLAMATION_WORDS and not named
