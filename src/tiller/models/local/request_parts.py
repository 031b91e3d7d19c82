"""How a request's parts are shaped before each decides a call.

`chooser.ToolChooser.several_subjects` takes the request's parts (`clauses.parts_of`)
and, before deciding any, joins an instruction to what it acts on ("Only got 5 hours of
sleep. Put it in my sleep diary") and a part that only says what the speaker is doing to
the question about it, gives each thing listed the value said to hold for each ("with
£10 each"), drops the parts that set the scene or remark, and asks a question put of
"both" or "their" of each name told before it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tiller.models.local.clauses import (
    FILLERS,
    TWO_NAMES,
    asks,
    leads_in,
    only_tells,
    parts_of,
    remarks,
    sets_the_scene,
    stands_alone,
)
from tiller.models.local.intent import (
    ACTION_VERBS,
    asks_a_question,
    asks_for_change,
    leading_word,
    without_given_values,
    without_lead_in,
)
from tiller.models.local.request_words import GLUE, request_words
from tiller.models.local.time_words import says_when
from tiller.models.local.verbs import JOB_WORDS

# An instruction whose object is a pronoun: "put it in my sleep diary", "log them".
_ON_WHAT_CAME_BEFORE = re.compile(r"^\w+ (?:it|them)\b", re.I)


def acts_on_what_came_before(part: str) -> bool:
    """Whether a part is an instruction on what the part before it said ("Only got 5
    hours of sleep. Put it in my sleep diary"): one request, not two subjects."""
    lead = leading_word(part)
    return (lead in ACTION_VERBS or lead in JOB_WORDS) and bool(
        _ON_WHAT_CAME_BEFORE.match(without_lead_in(part))
    )


def joined_to_what_they_are_about(parts: list[str]) -> list[str]:
    """The parts, each instruction on what the part before it said joined to that part
    ("took a cetirizine", "can you log it": "Only got 5 hours of sleep. Put it in my sleep
    diary" is one request), and each part that only says what the speaker is doing joined
    to the part after it, which asks about it ("taking my daughter to kenya", "what
    vaccines does a child need"), unless that part only names another subject; a part
    giving a labelled value of the instruction before it ("Front: what do mitochondria
    do?") joins that instruction."""
    joined: list[str] = []
    lead = ""
    for at, part in enumerate(parts):
        if joined and not lead and acts_on_what_came_before(part):
            joined[-1] = _joined(joined[-1], part)
            continue
        if (
            joined
            and not lead
            and without_given_values(f"{joined[-1]} {part}") != (f"{joined[-1]} {part}")
        ):
            joined[-1] = _joined(joined[-1], part)  # "Front: ..." is the instruction's value
            continue
        if lead and not any(asks(p) or stands_alone(p) for p in parts[at:]):
            # Only other subjects follow, no question: "stargazing tonight in keswick,
            # inverness and whitby" asks for each, it leads into nothing.
            joined.append(lead)
            lead = ""
        # What a part asks ends the lead, even where joining it reads otherwise
        # ("Going on a road trip!, Which charity shops ...").
        own = part
        part = _joined(lead, part) if lead else part
        lead = part if leads_in(part) and not asks(own) else ""
        if not lead:
            joined.append(part)
    if lead and joined:  # said last, about the part before: "..., planning a trip"
        joined[-1] = _joined(joined[-1], lead)
    return [*joined, lead] if lead and not joined else joined


# A value each of the things listed before it is given: "with £10 each", "for 4 each".
_GIVEN_EACH = re.compile(r"\s+((?:with|for|at|of|to|by) [^,;.?!]+?),? each\W*$", re.I)
_SENTENCE_END = re.compile(r"[.?!]\s")


def each_given_the_same(parts: list[str], request_text: str) -> list[str]:
    """The parts, each of the last sentence's given the value its last part says each
    takes: "Top up the 'Oyster' card and the 'kids Oyster' card with £10 each" tops up
    each card with £10."""
    given = _GIVEN_EACH.search(parts[-1]) if len(parts) >= 2 else None
    if given is None:
        return parts
    at = request_text.rfind(parts[-1])
    sentence = max((m.end() for m in _SENTENCE_END.finditer(request_text, 0, at)), default=0)
    value = given[1]
    return [
        f"{part.rstrip(' ,')} {value}" if request_text.find(part, sentence) >= 0 else part
        for part in parts[:-1]
    ] + [f"{parts[-1][: given.start()]} {value}"]


def without_the_scene(parts: list[str]) -> list[str]:
    """The parts that ask something: not one that sets the scene ("I have three bananas"),
    nor a remark (`remarks`: "pale brit here, don't want to fry"), nor another subject
    said after one ("We're in Cardiff on Friday and Brighton on
    Saturday") unless a part asks of each."""
    # "I have a 20 kg dog and a 2 kg rabbit, how much food does each need?": the
    # subjects told are what is asked of.
    each = any(_EACH.search(part) for part in parts)
    kept: list[str] = []
    scene = False
    before = ""
    for part in parts:
        scene = (
            (sets_the_scene(part) and not (kept and kept[-1] == before and told_of(before, part)))
            or remarks(part)
            or (scene and not each and (only_tells(part) or goes_on(before, part)))
        )
        if not scene:
            kept.append(part)
        before = part
    return kept


def told_of(instruction: str, part: str) -> bool:
    """Whether a part about the speaker's own thing, in the sentence of an instruction, is
    another thing the instruction is for, told as the first was: "Add countdowns for Mia's
    birthday on 4 July and our holiday on 20 August"."""
    return (
        asks_for_change(instruction)
        and instruction.rstrip()[-1:] not in ".?!"
        and _OWN_THING.match(part) is not None
        and bool(_shape_words(" ".join(request_words(part)[1:])) & _shape_words(instruction))
    )


# The speaker's own thing: "our holiday", "my dentist".
_OWN_THING = re.compile(r"^(?:my|our)\s+\w+", re.I)


def _shape_words(text: str) -> set[str]:
    """The words that join a part's things, which a part told as it was says again ("on")."""
    return ({w.lower() for w in request_words(text)} & GLUE) - FILLERS


def goes_on(before: str, part: str) -> bool:
    """Whether a part goes on with the sentence of the part before it, which set the scene,
    and tells more of it: "I'm flying to Tokyo tonight and haven't packed yet.", "I've got a
    flight at 2 and need to get out to Heathrow." It neither asks nor asks for a change,
    and begins in lower case, after no full stop."""
    return (
        before.rstrip()[-1:] not in (".", "!", "?")
        and part[:1].islower()
        and "?" not in part
        and not asks(part)
        and not asks_for_change(part)
    )


_EACH = re.compile(r"\b(?:each|both|either|all of them|them all)\b", re.I)

# A name inside a sentence: capitalised words ("Atlanta", "Leighton Moss"), not "I".
_NAME = re.compile(r"(?<![.?!:]\s)(?<!^)\b(?!I\b)[A-Z][\w'’-]*(?: (?!I\b)[A-Z][\w'’-]*)*")
# "the Leeds and Liverpool" is one name, which keeps its "the".
_NAMED = re.compile(rf"\bthe {TWO_NAMES}|{_NAME.pattern}")
# "those" or "these" said for the things before: "What do those mean?", "how much are these?"
_EACH_WORD = re.compile(
    r"\b(?:each|both|either|their)\b(?! of\b)|"
    r"\b(?:those|these)\b(?=\s+(?:mean|means|stand for|cost|costs|do|does)\b|\s*\W*$)",
    re.I,
)


def asked_of_each(request_text: str, closed: Sequence[Sequence[str]] = ()) -> list[str]:
    """The question asked of each of the names told before it, one per name, or []:
    "We're moving from Atlanta to Minneapolis. Frost dates for both?" asks "Frost dates
    for Atlanta?" and "Frost dates for Minneapolis?"; "their", and "those" or "these" said
    for the things themselves ("One lamp takes E14 and another E27. What do those mean?"),
    ask it of each as "both" does ("... Harrogate and my nephew for Sedbergh. When are
    their next matches?"). The
    names are those told before the question's clause, not those of an earlier question
    ("Is it sunny in Paris or in Lisbon? Check both"), and not a day or a month; without
    two names, amounts of one unit are what is asked of ("I had 250 ml at breakfast and
    another 330 ml at lunch, can you log both?"), and without those, values of one
    parameter's closed set (`closed`: "i've got blue and grey plugs, what drill bit for
    each")."""
    text = request_text.strip()
    parts = parts_of(text)
    for at, part in enumerate(parts):
        each = _EACH_WORD.search(part)
        if at == 0 or each is None:
            continue
        head, _, question = part[: each.start()].rpartition(", ")
        if _names_its_own(question) or any(asks_a_question(p) for p in parts[:at]):
            continue
        before = text[: text.find(part) + len(head)]
        names = [m[0] for m in _NAMED.finditer(before) if not says_when(m[0])]
        names = list(dict.fromkeys(names)) if len(set(names)) >= 2 else _amounts(before)
        names = names if len(names) >= 2 else _closed_values_said(before, closed)
        if len(names) >= 2:
            rest = part[each.end() :]
            return [f"{question}{name}{rest}" for name in names]
    return []


def _closed_values_said(text: str, closed: Sequence[Sequence[str]]) -> list[str]:
    """The values of the first closed set of which the text says two or more, in the
    order said; none when the text writes numbers, which go with each value ("a 20 kg dog
    and a 2 kg rabbit")."""
    if re.search(r"\d", text):
        return []
    for options in closed:
        at = {}
        for value in options:
            found = re.search(rf"\b{re.escape(value)}\b", text, re.I)
            if found:
                at[found.start()] = found[0]
        if len(at) >= 2:
            return [at[start] for start in sorted(at)]
    return []


# An amount with its unit: "250 ml", "1.5kg".
_AMOUNT = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s?([A-Za-z]{1,5})\b")


def _amounts(text: str) -> list[str]:
    """The amounts `text` tells, when there are two or more, all of one unit, each a thing
    of its own ("250 ml at breakfast"), not the measure of a thing named after it ("a 20 kg
    dog")."""
    found = [m for m in _AMOUNT.finditer(text) if _next_word(text, m.end()) in GLUE | {""}]
    units = {m[1].lower() for m in found}
    return [m[0] for m in found] if len(found) >= 2 and len(units) == 1 else []


def _next_word(text: str, at: int) -> str:
    after = re.match(r"\s*([A-Za-z]*)", text[at:])
    return after[1].lower() if after else ""


def _names_its_own(question: str) -> bool:
    """Whether a question names a subject of its own: a name, not a short word in capitals
    for what it asks ("How strong is the UV in each today?")."""
    return any(not _ACRONYM.fullmatch(m[0]) for m in _NAME.finditer(question))


_ACRONYM = re.compile(r"[A-Z]{2,4}")


def _joined(first: str, second: str) -> str:
    return f"{first}, {second}"
