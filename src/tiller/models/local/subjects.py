"""Which parts of a request are calls of their own, and which name another subject for
the call before them.

The chooser (`chooser.ToolChooser.several_subjects`) decides each part of a request
(`clauses.parts_of`) on its own; these rules say what a part that decided a tool, or
none, adds to the calls already chosen: a call of its own, another subject for the
call it repeats ("start the tumble dryer and the robot vacuum"), or nothing ("How much
of each?", "Put it in my sleep diary"). The parts are shaped first (`request_parts.py`).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from tiller.models.base import ToolSpec
from tiller.models.local.argument_schema import fillable
from tiller.models.local.clauses import (
    FILLERS,
    new_words,
    refers_back,
    remarks,
    sets_the_scene,
)
from tiller.models.local.intent import (
    ACTION_VERBS,
    asks_a_sum,
    asks_for_change,
    leading_word,
)
from tiller.models.local.parameter_kinds import Kind, parameters
from tiller.models.local.places import holds_its_place
from tiller.models.local.request_numbers import request_numbers, written_expression
from tiller.models.local.request_words import GLUE, request_words
from tiller.models.local.tool_words import begins_a_word, named_by_words
from tiller.models.local.value_choice import closed_choices, said_values, says_only
from tiller.models.local.verbs import JOB_WORDS


@dataclass(frozen=True, slots=True)
class Choice:
    """A call to make: `tool`, its arguments filled from `text`.

    `continues` is the index of an earlier choice whose clause this one repeats for
    another subject, `refers` of one whose place this one's "there" means: its text
    is only known once that call's arguments are. `context` is the request as the call
    reads it, when that is not the whole request: one entry of a list, with the others
    left out, so a value another entry says ("5.9 fasting, and 7.7 after lunch") is not
    this call's."""

    tool: ToolSpec
    text: str
    continues: int | None = None
    refers: int | None = None
    context: str | None = field(default=None, compare=False)


def instructs(part: str, tool: ToolSpec) -> bool:
    """Whether a clause is an instruction (it opens with a verb of action or of a job)
    that holds the tool's required values."""
    lead = leading_word(part)
    return (lead in ACTION_VERBS or lead in JOB_WORDS) and fillable(tool.parameters, part)


_LISTED = 2  # values at least in a list after an instruction that names none


def each_labels_a_value(parts: list[str], tool: ToolSpec) -> bool:
    """Whether each part names a different parameter of `tool`, so the parts are the
    values of one call, labelled: "Pay for parking: location code 7730, three hours,
    registration KX19 LMN"; the first may be the instruction alone before a list of two
    or more ("request a refill of salbutamol 100mcg, 2 packs, to pick up at Lloyds
    Pharmacy"). Two parts that name the same one ask twice ("200 kWh on the standard
    tariff with 200 kWh on the green tariff"), and one part naming one is no list ("Set
    the kitchen to 20 and the living room to 21")."""
    named: set[str] = set()
    least = 2
    for at, part in enumerate(parts):
        said = {w.lower().removesuffix("s") for w in request_words(part)}
        these = {
            p.name
            for p in parameters(tool.parameters)
            if any(w.removesuffix("s") in said for w in re.findall(r"[a-z]{3,}", p.name.lower()))
        }
        if (at > 0 and not these) or these & named:
            return False
        least = least if these or at > 0 else _LISTED + 1
        named |= these
    return len(parts) >= least


def another_call(choices: list[Choice], tool: ToolSpec, part: str) -> bool:
    """Whether a clause that decided `tool` on its own asks for a call of its own.

    Context around a request decides a tool too ("I have a call at noon" after "what
    time is it in Seoul?"), so a second call to a tool already called needs a clause
    that asks a question of its own or, for a tool that takes a number, gives a number
    of its own; and arithmetic, which takes every number of the request in one
    expression, needs a clause with its own written expression. A clause without the
    tool's required values is no call of its own, but may name another subject."""
    if any(c.tool.name == tool.name and c.text.lower() == part.lower() for c in choices):
        return False
    if not fillable(tool.parameters, part):
        return False  # "the regular saver?" alone: another subject for the call before
    if any(c.tool.name == tool.name for c in choices) and (
        asks_of_the_place_before(tool, part) or asks_of_the_subject_before(part)
    ):
        return False
    kinds = {p.kind for p in parameters(tool.parameters) if p.required}
    if Kind.EXPRESSION in kinds:  # "45 / 9", "45 divided by 9"
        return written_expression(part) is not None or len(request_numbers(part)) >= 2
    if all(c.tool.name != tool.name for c in choices) or part.rstrip().endswith("?"):
        return True
    # A number for a tool that takes one, and other words than the clause before:
    # "10 km to miles and 3 km to feet", "2 kg to pounds, and 2 kg to ounces".
    earlier = next(c for c in reversed(choices) if c.tool.name == tool.name)
    return (
        Kind.NUMBER in kinds and bool(request_numbers(part)) and bool(new_words(earlier.text, part))
    )


def asks_of_the_place_before(tool: ToolSpec, part: str) -> bool:
    """Whether a question for a tool that takes a place names none, nor says "there": it
    asks of the place told before it ("Lights just went out here in Kendal. Is it a wider
    power cut or just us?"), in the same call."""
    words = [w.lower() for w in request_words(part)]
    opens_a_question = bool(words) and (words[0] in _YES_OR_NO or words[0] in _NOT_NAMES)
    return opens_a_question and not holds_its_place(tool, part) and not refers_back(part)


# Words after which a subject is named: "in seoul", "for the back door".
_NAMING = frozenset({"in", "at", "for", "from", "near", "on", "of", "to", "with"})


def asks_of_the_subject_before(part: str) -> bool:
    """Whether a question names no subject of its own: no name, number or quote, and no
    word after "in", "at", "for", ...: "I'd love a plot at Riverside allotments. Is there
    any space and what's the rent?" asks both of Riverside, and so does a question on the
    answer before it: "Is hollowaydogwalks.com free? If so how much a year?"."""
    words = request_words(_ON_THE_ANSWER.sub("", part))
    low = [w.lower() for w in words]
    if not low or (low[0] not in _YES_OR_NO and re.sub(r"['’]s$", "s", low[0]) not in _NOT_NAMES):
        return False
    named = any(
        w[:1].isupper() or any(c.isdigit() for c in w) or w[:1] in "'\"‘“" for w in words[1:]
    )
    after = [b for a, b in itertools.pairwise(low) if a in _NAMING]
    # "what time is it there?" asks of the place before, in a call of its own.
    return not named and not refers_back(part) and all(w in GLUE or w in _PRONOUNS for w in after)


# A question asked on the answer to the one before: "If so how much a year?"
_ON_THE_ANSWER = re.compile(
    r"^\s*(?:and\s+|but\s+)?if (?:so|not|yes|no|it (?:is|does|has|isn['’]t)|they (?:are|do)),?\s+",
    re.I,
)
# Words that stand for a thing named before: "What's it rated?"
_PRONOUNS = frozenset({"it", "they", "them", "that", "this"})


def asks_of_what_it_named(part: str) -> bool:
    """Whether a question asks about the thing named before it, as "it", and names nothing
    of its own: "Is Oppenheimer suitable for a 13 year old? What's it rated?" is one call.
    Besides words that join or ask, it says at most one word, neither a name nor a number
    ("is it raining in rome?" names a place of its own)."""
    words = [w.lower() for w in request_words(part)]
    if not _PRONOUNS & set(words):
        return False
    said = [
        w
        for w in request_words(part)
        if w.lower() not in GLUE | FILLERS | _NOT_NAMES | _ASKING_ABOUT
    ]
    return len(said) <= 1 and not any(w[:1].isupper() or any(c.isdigit() for c in w) for w in said)


def parallel(head: Choice, part: str) -> bool:
    """Whether a clause asks what `head` asked, about another subject: besides its new
    words, it says only words `head` said ("Lakers score? Maple Leafs score?"), if only
    the word its subject follows ("shortcuts for the emoji picker and for paste without
    formatting")."""
    new = new_words(head.text, part)
    said = request_words(part)
    kept = [w for w in said if w not in new and w.lower() not in FILLERS]
    before_its_subject = [
        w
        for w in said[:1]
        if w.lower() == "for" and "for" in map(str.lower, request_words(head.text))
    ]
    return bool(new) and bool(kept or before_its_subject)


# Words that make a part a question or an instruction of its own, not a name.
_NOT_NAMES = frozenset({"what", "whats", "how", "hows", "why", "when", "where", "who", "which"})
MAX_NAME_WORDS = 5


# Words that open a question asking yes or no: "is lavender toxic to dogs?"
_YES_OR_NO = frozenset(
    "is are was were do does did can could will would should shall has have".split()  # noqa: SIM905
)


def only_names(part: str) -> bool:
    """Whether a part only names something, with no question or instruction of its own:
    "and the wild robot" after "showtimes for oppenheimer" is another film to look up,
    "is lavender toxic to dogs?" is a question of its own."""
    words = [w.lower() for w in request_words(part) if w.lower() not in FILLERS]
    if words and words[0] in _YES_OR_NO and part.rstrip().endswith("?"):
        return False
    return 0 < len(words) <= MAX_NAME_WORDS and not any(
        w in _NOT_NAMES or w in ACTION_VERBS or w in JOB_WORDS for w in words
    )


def repeats_for_another_subject(head: Choice, tool: ToolSpec, part: str) -> bool:
    """Whether a part that decided `tool` on its own asks again what `head` asked, about
    another subject: it asks nothing of its own (no question word, no verb of its own), is
    said like `head` ("Set the kitchen to 20 and the living room to 21"), only names
    something ("And The Road?") or says a word of `head`'s tool's name ("add bread and 2
    lemons to the shopping list"), and says no word of `tool`'s name. Scored alone, a
    subject's words alone decide another tool ("the living room" -> a plant guide). A sum
    written out asks its own ("And work out 60 * 0.25 for me")."""
    if tool is head.tool or not takes_a_subject(head.tool, part) or asks_a_sum(part):
        return False
    named = set(re.findall(r"[a-z]+", head.tool.name.lower()))  # "list" of a shopping list
    words = [w.lower() for w in request_words(part) if w.lower() not in named]
    words += [re.sub(r"['’]s$", "", w) for w in words]  # "what's" asks as "what" does
    if any(w in _NOT_NAMES or w in ACTION_VERBS or w in JOB_WORDS for w in words):
        return False
    # An instruction of its own: "Book the car in ..., and ask Jake for £12".
    if asks_for_change(part) and leading_word(part) != leading_word(head.text):
        return False
    if named_by_words(part, [tool]) is not None or _opens_with_its_verb(tool, head.tool, part):
        return False
    return another_subject(head, part)


def _opens_with_its_verb(tool: ToolSpec, other: ToolSpec, part: str) -> bool:
    """Whether the part opens with the word `tool`'s name opens with, and `other`'s does
    not: "top up the Oyster with £30" and `top_up_travel_card`."""
    first = re.findall(r"[a-z]+", tool.name.lower())[:1]
    said = [w.lower() for w in request_words(part)[:1]]
    return bool(first) and said == first and re.findall(r"[a-z]+", other.name.lower())[:1] != first


def another_subject(head: Choice, part: str) -> bool:
    """Whether a part names another subject for `head`'s call: said like it, only a name,
    or with a word of its tool's name and no question of its own ("2 lemons to the
    shopping list", not "what are the tides like")."""
    if parallel(head, part) or only_names(part):
        return True
    asks = any(w.lower() in _NOT_NAMES for w in request_words(part))
    return not asks and named_by_words(part, [head.tool]) is not None


# How a part asks again about another subject: "Also how about in a cash isa?"
ASKING_AGAIN = re.compile(r"^(?:(?:and|also|so|ok|then)\s+)*(?:how|what)\s+about\s+", re.I)


def asked_again_of(part: str) -> str:
    """The subject a part asks the question before of again: what follows "what about",
    without a remark after a comma ("And what about cardboard, we get loads of deliveries."
    -> "cardboard", but "the MacBook, C02XK1ABJHD3" names it); the part itself when it asks
    nothing again."""
    again = ASKING_AGAIN.match(part)
    if again is None:
        return part
    subject = part[again.end() :]
    head, comma, rest = subject.partition(", ")
    return head if comma and (sets_the_scene(rest) or remarks(rest)) else subject


# Words that refer to subjects already named: "How much of each?"
_REFERRING = frozenset({"each", "both", "them", "those", "these", "either", "all"})
_ASKING_ABOUT = frozenset(
    """much many of for is are do does did i we you need cost about the a to check look up
    tell show give get find compare me""".split()  # noqa: SIM905
)


# Another thing of the kind the call before was about: "And a 6 kg one?", "another one
# for 20 minutes", "the North End one", "the one in Nottingham".
_ANOTHER_ONE = re.compile(
    r"\banother one\b|\b(?:a|an|the)\b[^,;.?!]{0,30}\bones?\W*$"
    r"|^(?:and |with )?the ones? (?:in|at|on|for|from|near|by)\b",
    re.I,
)


def another_of_the_same_kind(head: Choice, part: str) -> bool:
    """Whether a part asks the `head` call again about another thing of its kind, which it
    names or numbers ("And a 6 kg one?" after "How much should a 30 kg dog eat?"), not
    an instruction with a verb of its own ("remind me on Saturday to return the other
    ones" after "renew Lessons in Chemistry")."""
    if not _ANOTHER_ONE.search(part) or not new_words(head.text, part):
        return False
    lead = leading_word(part)
    if lead in ACTION_VERBS and lead != leading_word(head.text):
        return False
    return takes_a_subject(head.tool, part) or re.search(r"\d", part) is not None


def only_a_value_of(head: Choice, part: str) -> bool:
    """Whether a part says nothing but one of the tool's closed values, of a set the call
    before it says none of, so that call takes it: "every 8 weeks" in "Book the window
    cleaner for 22 Mill Lane on Tuesday, every 8 weeks, and remind me ...", which is no
    other visit; but "motorway" after "single carriageway" asks of another road."""
    said = " ".join(w.lower() for w in request_words(part) if w.lower() not in FILLERS)
    choices = closed_choices(head.tool)
    before = said_values(head.tool, head.text, choices)
    return any(
        says_only(value, name, said) and name not in before
        for name, values in choices.items()
        for value in values
    )


def only_refers_back(part: str) -> bool:
    """Whether a part only asks about what was named before ("How much of each?"): it
    says a word that refers back and nothing but question words besides; or says whom
    one of them is for ("one for me and one for my boyfriend"); or is only a word said on
    the way ("Oh" of "... recalled? Oh and the Kettlewise KT-200 too")."""
    if _FOR_WHOM.match(part.strip()):
        return True
    words = {w.lower() for w in request_words(part)} - FILLERS
    if words and words <= _INTERJECTIONS:
        return True
    return bool(words & _REFERRING) and words <= _REFERRING | _NOT_NAMES | _ASKING_ABOUT


# Words said on the way, which ask nothing alone: "Oh", and words that only say another
# thing follows ("..., and separately, what's ...").
_INTERJECTIONS = frozenset(
    """oh ooh ah aah um erm hmm yeah ok okay right so well and separately additionally
    besides secondly lastly finally plus anyway btw incidentally""".split()  # noqa: SIM905
)


# Whom one of the things asked for is for: "one for me", "the other for my boyfriend".
_FOR_WHOM = re.compile(
    r"^(?:and |but )?(?:one|the other(?: one)?|the (?:first|second)(?: one)?) (?:is )?for "
    r"(?:me|us|him|her|them|myself|(?:my|our|his|her|their) \w+(?: \w+)?|[A-Z]\w+)\W*$",
    re.I,
)


def asks_the_heads_question(head: ToolSpec, tool: ToolSpec, part: str) -> bool:
    """Whether a part that decided `tool` asks what the call before it does, with no values
    of its own: it says a word of the `head` tool's name and none of `tool`'s, and holds
    no value `head` requires ("10000 in the fixed account, how much interest?" and
    `savings_interest`). It is part of that call, not one of another tool."""
    return (
        tool is not head
        and named_by_words(part, [head]) is not None
        and named_by_words(part, [tool]) is None
        and not fillable(head.parameters, part)
    )


def takes_a_subject(tool: ToolSpec, part: str) -> bool:
    """Whether `part` may name a subject in place of the one a call to `tool` was about: the
    tool requires a free text or a path (a city, a file), or the part names a value of
    one of its closed sets ("start the tumble dryer and the robot vacuum"); not a number,
    nor an expression built from every number."""
    if any(p.required and p.kind in (Kind.TEXT, Kind.PATH) for p in parameters(tool.parameters)):
        return True
    return bool(said_values(tool, part, closed_choices(tool)))


# Words a part may add to a tool's name without naming a subject: "today's tides".
_WHEN = frozenset({"the", "a", "an", "today", "today's", "now", "tonight", "current", "currently"})


def asks_its_tool_of_the_same(tool: ToolSpec, part: str, head: Choice) -> bool:
    """Whether a part says only words of `tool`'s name ("the weather please" after "Paris:
    air quality"): it asks that tool about the subject of the `head` call, whose clause
    holds the values `tool` requires."""
    name = re.findall(r"[a-z]+", tool.name.lower())
    words = [w.lower() for w in request_words(part)]
    rest = [w for w in words if w not in FILLERS and w not in _WHEN]
    return (
        bool(rest)
        and all(any(begins_a_word(n, {w}) for n in name) for w in rest)
        and fillable(tool.parameters, head.text)
    )
