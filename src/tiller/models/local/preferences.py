"""Which of the candidates goes first, past the ranking: a file named to a tool that takes
a path, a code to the tool whose example is a code of its shape, a listed code to the
tool that lists it, the tool the request's verb names, and a named subject or money over
a generic verb. The chooser (`chooser.py`) applies them in its docstring's order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tiller.models.base import ToolSpec
from tiller.models.local.candidates import CHANGING_EFFECTS, changes, job_asked, names_a_file
from tiller.models.local.code_shapes import takes_a_mixed_code
from tiller.models.local.intent import asks_for_change
from tiller.models.local.parameter_kinds import Kind, may_be_negative, parameters, taken_off
from tiller.models.local.tool_relevance import summary
from tiller.models.local.tool_words import NAME_VERBS, begins_a_word, named_by_words
from tiller.models.local.value_choice import closed_choices
from tiller.models.local.verbs import job_of, request_verb, tool_jobs


def a_file_to_a_file_tool(request_text: str, ranked: list[ToolSpec]) -> list[ToolSpec]:
    """When the request names a file ("notes.txt"), the candidates that require a path,
    if any: a file named is the value the request is about, not a word to look for.
    Of those, a request that asks for a change ("in todo.md, tick off ...") goes to
    the ones that change files first."""
    if not names_a_file(request_text):
        return ranked
    takes = [
        t
        for t in ranked
        if any(p.required and p.kind is Kind.PATH for p in parameters(t.parameters))
    ]
    if asks_for_change(request_text):
        takes = sorted(takes, key=lambda t: t.effect not in CHANGING_EFFECTS)
    return takes or ranked


def a_code_to_a_code_tool(request_text: str, ranked: list[ToolSpec]) -> list[ToolSpec]:
    """When the request holds a code of letters and digits ("BA117"), the candidates
    with a parameter whose example is a code of that shape, if any: a code is the
    value the request is about, and a tool taking a city would take it as one."""
    takes = [
        t
        for t in ranked
        if any(
            p.kind is Kind.TEXT and takes_a_mixed_code(p.schema, request_text)
            for p in parameters(t.parameters)
        )
    ]
    return takes or ranked


def an_amount_off_to_a_counting_tool(request_text: str, ranked: list[ToolSpec]) -> list[ToolSpec]:
    """When an instruction takes an amount off something ("take 2 off the honey count"),
    the candidates whose number may be negative for what is taken away, first: a tool
    that finds the honey takes none of it off."""
    if not taken_off(request_text) or not asks_for_change(request_text):
        return ranked
    counting = [
        t
        for t in ranked
        if any(
            p.kind is Kind.NUMBER and may_be_negative(p.schema) for p in parameters(t.parameters)
        )
    ]
    return counting + [t for t in ranked if t not in counting]


def a_listed_code_to_its_tool(request_text: str, ranked: list[ToolSpec]) -> list[ToolSpec]:
    """When the request writes a code in capitals that is one of a candidate's closed
    values ("How much is that in USD?" and "(USD, GBP or JPY)"), those candidates first: a
    tool that takes any expression would take the request's numbers without it."""
    codes = set(re.findall(r"\b[A-Z]{2,}[A-Z0-9]*\b", request_text))
    listed = [
        t for t in ranked if any(codes & set(values) for values in closed_choices(t).values())
    ]
    return listed + [t for t in ranked if t not in listed]


def subject_over_verb(request_text: str, named: ToolSpec, ranked: Sequence[ToolSpec]) -> ToolSpec:
    """The tool the verb named, unless its name says a subject the request does not and
    another candidate's name says one it does: "set a timer" names `start_timer`, not
    `set_reminder`; "send an email" keeps `send_email` (its name says only a job); "add it
    to my log" names `log_workout` (a verb of its name, said as a thing), not
    `add_to_meal_plan`; "Log a 45 minute swim" keeps `log_workout`, as a pool's timetable
    changes nothing. Money the request speaks of is for a tool that takes an amount: one
    ranked above the verb's tool that takes none ("send £20 to the RNLI" is no email, "set
    up a monthly donation of 10 pounds" no reminder)."""
    job = job_asked(request_text)
    words = re.findall(r"[a-z]+", named.name.lower())
    own = [w for w in words if w not in NAME_VERBS and (job is None or job_of(w) != job)]
    said = {w.lower() for w in re.findall(r"[A-Za-z]+", request_text)}
    if names_a_file(request_text):
        said |= {"file", "files"}  # "write a tiny shell script scripts/hello.sh"
    # Money is for a tool that takes an amount: "send £20 to the RNLI" is no email.
    money = _MONEY.search(request_text) is not None and not any(
        p.kind is Kind.NUMBER for p in parameters(named.parameters)
    )
    # The verb its subject is made from names it: "remind me" and `set_reminder`.
    verbs_subject = job is not None and any(job_of(w) == job for w in words[1:])
    if not money and (verbs_subject or not own or any(begins_a_word(w, said) for w in own)):
        return named
    # A tool that does what the verb asks, changing things or only looking.
    others = [t for t in ranked if t is not named and changes(t) == changes(named)]
    # With money to handle, one ranked above it.
    above = [t for t in others if ranked.index(t) < ranked.index(named)] if money else []
    return (
        named_by_words(request_text, others)
        or named_as_a_thing(request_text, others)
        or next(iter(above), named)
    )


# An amount of money: "£20", "10 pounds", "50 euros".
_MONEY = re.compile(
    r"[£$€]\s?\d|\b\d+(?:[.,]\d+)?\s?(?:pounds?|quid|dollars?|euros?|bucks)\b", re.I
)
# A thing the request says is its own or names as known, in up to three words: "my log",
# "the diary", "my climbing log".
_A_THING = re.compile(r"\b(?:my|our|your|the)\s+(?=((?:[a-z]+\s+){0,2}[a-z]+))", re.I)


def named_as_a_thing(request_text: str, ranked: Sequence[ToolSpec]) -> ToolSpec | None:
    """The best-ranked tool a word of whose name the request says as a thing, verbs of the
    name included: "add it to my log" and `log_workout`, "in my climbing log" and
    `log_climb`."""
    things = {w.lower() for phrase in _A_THING.findall(request_text) for w in phrase.split()}
    for tool in ranked:
        if any(len(w) >= 3 and w in things for w in re.findall(r"[a-z]+", tool.name.lower())):
            return tool
    return None


def named_as_the_target(request_text: str, ranked: Sequence[ToolSpec]) -> ToolSpec | None:
    """For an instruction whose verb names no tool, the best-ranked changing tool a word
    of whose name it says as the thing the change goes to: "stick it in my log" and
    `log_fishing_catch`, "note down a trout in my fishing diary" (not the fishing
    permits a lookup gives)."""
    if not asks_for_change(request_text):
        return None
    return named_as_a_thing(request_text, [t for t in ranked if changes(t)])


def required_kinds(tool: ToolSpec) -> list[Kind]:
    return sorted(p.kind for p in parameters(tool.parameters) if p.required)


def named_by_verb(request_text: str, ranked: Sequence[ToolSpec]) -> ToolSpec | None:
    """The best-ranked tool that does the job the request's verb names ("show" -> read),
    or listing for a folder named without a verb ("whats in the data folder"): of
    several, one whose name, else whose description's first sentence, says the verb
    itself ("email Priya" -> `send_email`, not `send_sms`)."""
    job = job_asked(request_text)
    if job is None:
        return None
    verb = request_verb(request_text) or ""
    doing = [t for t in ranked if job in tool_jobs(t.name, t.description)]
    said = re.compile(rf"\b{re.escape(verb)}\b", re.I)
    by_name = [t for t in doing if verb in re.findall(r"[a-z]+", t.name.lower())]
    by_summary = [t for t in doing if verb and said.search(summary(t.description))]
    return next(iter(by_name or by_summary or doing), None)
