"""Which parts of a request ask something of the assistant, and which are the speaker's own.

A request that asks to see a file may also say what the speaker will do with it ("What's
the version in config.toml? I need to write it into my release notes"), a change they put
off ("I want to fix the usage message at some point") or a note for themselves ("note to
self: fix empty-line handling later"). Those words of changing ask nothing of the
assistant, and a tool that changes files must not be called for them.
"""

from __future__ import annotations

import re


def speakers_plan(part: str, request_text: str) -> bool:
    """Whether a part of the request says what the speaker will do, beside a question
    ("What's in config.toml? I need to write it into my notes"; alone, "I need to delete
    notes.txt" asks for it), or a change the speaker puts off ("I want to fix the usage
    message at some point", "I'd like to change it eventually"), calls off or does
    themselves (`called_off`), or notes for themselves ("note to self: fix empty-line
    handling later"); or a word of changing that only labels what follows ("Update: the
    tests pass now.")."""
    if _NOTE_TO_SELF.match(part) or called_off(part, request_text) or _a_label(part, request_text):
        return True
    put_off = _PUT_OFF.search(part) and not _ADDRESSED.search(part)
    if put_off and (_FIRST_PERSON.match(part) or _NOTE_TO_SELF.match(request_text)):
        return True
    return "?" in request_text and not part.rstrip().endswith("?") and bool(_OWN_PLAN.match(part))


# A change put off to some later time: "at some point", "later", "eventually".
_PUT_OFF = re.compile(
    r"\b(?:at some point|later(?: on)?|eventually|one day|some ?day|down the line|"
    r"in the future)\b",
    re.I,
)
# A note the speaker makes for themselves: "note to self:", "reminder to myself".
_NOTE_TO_SELF = re.compile(r"^\W*(?:note|reminder|memo) to (?:self|myself)\b", re.I)
# Words that ask it of the assistant: "can you fix it later", "remind me later".
_ADDRESSED = re.compile(r"\b(?:you|u|remind|please|pls)\b", re.I)
# Words a clause may open with before its subject: "and I'll", "so we".
_JOINERS = r"^(?:(?:and|so|but|then|also|ok|just)\s+)*"
_FIRST_PERSON = re.compile(
    _JOINERS + r"(?:i|i['’]d|i['’]m|i['’]ll|i would|we|"
    r"we['’]d|we['’]ll|we would|"
    # The speaker left unsaid: "Need to edit the README eventually."
    r"(?:need|want|have|got|plan|mean) to|gotta|gonna)\b",
    re.I,
)


# The speaker's own plan: "I need to write it up", "and I'll send it to Sam", "gonna paste it";
# not a request put politely ("I'd like you to ...", "I would like ...").
_OWN_PLAN = re.compile(
    _JOINERS + r"(?:i(?:['’]m| am) (?:going|gonna) to|i (?:need|have|want|got|plan|mean) to|"
    r"i(?:['’]ll| will| must| should)|i(?:['’]ve| have) got to|gonna|"
    # what the speaker would like or is weighing up: "Fancy a walk later.", "Trying to
    # decide whether I need a jumper"
    r"(?:i |we )?fancy|(?:i['’]m |i am |we['’]re )?trying to (?:decide|work out|figure out))\b",
    re.I,
)


def called_off(part: str, request_text: str) -> bool:
    """Whether the change a part names is called off or left to the speaker: "Delete
    todo.md? No, not yet.", "fix nothing yet", "remove the done items (I'll do it)",
    "Write me a question for a poll ... I'll post it myself."."""
    if _NOTHING.match(part) or _DOES_IT_THEMSELVES.search(part):
        return True
    at = request_text.find(part)
    after = request_text[at + len(part) :] if at >= 0 else ""
    return bool(after) and _CALLS_IT_OFF.match(after) is not None


# A change to nothing: "fix nothing yet", "write down nothing", "touch none of it".
_NOTHING = re.compile(r"^\w+(?: (?:down|up|out|in|over))? (?:nothing|none)\b", re.I)
# The speaker doing it: "(I'll do it)", "I can do that myself".
_DOES_IT_THEMSELVES = re.compile(
    r"\bi(?:['’]ll| will| can| am going to|['’]m going to|['’]m gonna) do (?:it|that|this|them)\b",
    re.I,
)
# What follows a change and calls it off: "No, not yet.", "not now", "hold off", "wait".
_CALLS_IT_OFF = re.compile(
    r"^[\s?.!,;)—–-]*(?:no(?=\s*[,.!]|\s*$|\s+(?:not|don|wait|thanks))|nope|nah|"
    r"not (?:yet|now|today|just yet)|hold off|wait\b(?! for)|"
    r"never ?mind|scratch that|actually,? (?:no|don['’]?t)|"
    r"i(?:['’]ll| will| can) do (?:it|that|this|them)|"
    # "I'll post it myself", "I can send that one myself"; not "I'll check it myself".
    r"i(?:['’]ll| will| can) (?!check|look|read|see|review|test)\w+ (?:it|that|this|them)"
    r"(?: \w+)? (?:myself|ourselves))\b",
    re.I,
)


def _a_label(part: str, request_text: str) -> bool:
    """Whether the part is a word heading news after its colon ("Update: ...", "Edit: ...")."""
    word = part.strip()
    return (
        _LABELS.fullmatch(word) is not None
        and re.search(rf"(?:^|[.!?]\s+){re.escape(word)}:\s", request_text) is not None
    )


# Words that head news rather than ask for a change: "Update: the tests pass now."
_LABELS = re.compile(r"update|edit|correction|fyi|ps|news|status", re.I)


# The speaker's habit: "I always forget", "always get it wrong", "I keep mixing them up",
# "never done it before" (not "never mind", nor "keep the lights on"), or a thing's.
_HABIT = re.compile(
    r"^(?:(?:and|but|so)\s+)?(?:i\s+|we\s+)?(?:(?:always|never|usually|constantly)\s+"
    r"(?!mind\b)[a-z]+|keep [a-z]+ing\b)|"
    # A thing's: "keeps skipping stitches", "it keeps crashing".
    r"^(?:(?:and|but|so)\s+)?(?:(?:it|he|she|they|the \w+)\s+)?keeps [a-z]+ing\b",
    re.I,
)
# A code or a number, which a tool could be asked about: "never got order 114-7723981".
_A_VALUE = re.compile(r"\d")


def speakers_habit(part: str) -> bool:
    """Whether a part only tells a habit of the speaker's, which asks for nothing: "When do
    the clocks change in Australia and in New Zealand? ... always get it wrong"."""
    return _HABIT.match(part.strip()) is not None and _A_VALUE.search(part) is None
