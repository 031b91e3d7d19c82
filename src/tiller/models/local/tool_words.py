"""What a tool's own words say it does: the verbs of its name and descriptions, and
whether it gives advice.

A request is tied to a tool by more than the model's relevance score when it says
what the tool's author wrote: "Log my mood" and `log_mood`, "Pay Sam" and a
recipient described as "Who to pay", "how often should I water my monstera?" and
"Care instructions ...: how often to water it". Only the tool's name, description
and parameters are read, so any tool that describes itself gets the same treatment.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tiller.models.base import ToolSpec
from tiller.models.local.intent import addressed_parts, leading_word, without_lead_in
from tiller.models.local.parameter_kinds import parameters
from tiller.models.local.request_words import GLUE, OUTER_PUNCTUATION, request_words
from tiller.models.local.tool_relevance import summary
from tiller.models.local.verbs import job_of

# Verbs tool names start with that name no job: `get_weather`, `check_inventory`.
NAME_VERBS = frozenset({"get", "fetch", "check", "lookup", "look", "do"})
# The jobs of looking, never of changing: "show", "list", "find".
_LOOKING_JOBS = frozenset(job_of(verb) for verb in ("read", "list", "search"))


# Words that open a question or a statement, never an instruction.
NOT_VERBS = frozenset(
    """a an and any are at can could did do does for how i if in is it my of on or should
    some that the there this to was were what whats when where which who why will with
    would you your""".split()  # noqa: SIM905 (a word list reads better as words)
)


def asks_its_action(request_text: str, tool: ToolSpec) -> bool:
    """Whether an instruction in the request opens with a verb the tool's own words say
    (`_own_verbs`: "Log my mood" and `log_mood`, "pay Ana" and "Who to pay"): a request
    to do what the tool does, whatever the verb. A noun where a verb would be ("just
    lines 2 to 3 of notes.txt") is no verb a tool's words say."""
    said = _own_verbs(tool)
    thing = _ITS_THING_ASKED.match(request_text.strip())
    if thing and _names_its_thing(thing[1].lower(), tool):
        return True  # "alarms please: 7:00 on weekdays" and `set_alarm`
    wanted = _ITS_THING_WANTED.search(request_text)
    if wanted and any(_names_its_thing(w, tool) for w in wanted[1].lower().split()):
        return True  # "and i need an alarm at 4:00", "I need a wheelchair accessible taxi"
    if sets_a_setting(request_text, tool):
        return True  # "ringer volume to 80 please" and `set_volume`
    if _gives_its_thing(request_text, tool):
        return True  # "leave a 5 star review for Dishoom" and `post_review`
    for part in addressed_parts(request_text):
        if says_its_initials(part.split()[:1], tool):
            return True  # "DND until 07:00 please" and `set_do_not_disturb`
        lead = leading_word(part)
        if len(lead) < 3 or lead in NOT_VERBS or lead in NAME_VERBS:
            continue
        if job_of(lead) in _LOOKING_JOBS:
            continue
        if any(w == lead or (len(lead) >= 4 and w.startswith(lead)) for w in said):
            return True
    return False


# A setting named and the value it goes to, with no verb: "ringer volume to 80 please",
# "night light on pls", "brightness 70%", "media volume all the way up".
_SETTING = re.compile(
    r"^(?P<setting>[a-z]+(?:\s+[a-z]+){0,2}?)\s+(?:(?:up |down )?(?:to|at)\s+(?:\d|max|min|full)|"
    # A bare number is a reference ("order 7719", "table 5"), a percentage a level.
    r"\d+\s*%(?![\w:.])|(?:on|off|up|down|all the way)\b)",
    re.I,
)


# Words of file tools that name no setting: "the config file on the server" sets nothing.
_NO_SETTING = frozenset(
    "file files path folder directory content contents text command message line lines name".split()  # noqa: SIM905
)


def sets_a_setting(request_text: str, tool: ToolSpec) -> bool:
    """Whether a part of the request names a setting of a changing tool and the value it
    goes to, with no verb: "ringer volume to 80 please" and `set_volume`, "night light on pls"
    and a `night_light` parameter. The setting is the tool's when its last word is a word
    of the tool's name, of a parameter's name or of its closed values ("ringtone down to
    10" and a `channel` of "ringtone"); a question sets nothing."""
    if tool.effect not in ("write_local", "external"):
        return False
    said = set(re.findall(r"[a-z]+", tool.name.lower())) - NAME_VERBS - {"set"}
    for p in parameters(tool.parameters):
        values = [v for v in p.schema.get("enum", ()) if isinstance(v, str)]
        said |= set(re.findall(r"[a-z]+", " ".join([p.name, *values]).lower()))
    said -= _NO_SETTING
    for part in addressed_parts(request_text):
        found = _SETTING.match(without_lead_in(part))
        if found is None:
            continue
        words = found["setting"].lower().split()
        if words[0] not in NOT_VERBS and words[-1] in said:
            return True
    return False


# A thing asked for by its name at the start, with "please", a colon or "needed": "alarms
# please: 7:00 on weekdays, 9:00 on weekends", "reminder: call mum at 5", "refunds needed
# on two orders".
_ITS_THING_ASKED = re.compile(
    r"^(?:an?\s+|some\s+|new\s+)?([a-z]{3,})\s*(?:(?:please|pls|plz)\W|:|needed\b|"
    # "Reviews to post: Bella Napoli 4 stars; ..."
    r"to (?:post|send|add|log|make|book|set|leave|file|submit)\s*:)",
    re.I,
)
# A verb of giving and the thing given: "leave a 5 star review for Dishoom", "give the
# café a review", "drop a note on the fridge list"; the thing ends its phrase.
_GIVING = re.compile(
    r"^(?:leave|give|write|post|put|drop|submit|add)\s+(?:(?:me|them|him|her|it)\s+)?"
    r"(?:[\w'’-]+\s+){0,2}?(?:an?|another|some|my|the|our)\s+(?:[\w'’-]+\s+){0,3}?"
    r"([a-z]{3,})(?=\s+(?:for|of|on|about|to|at|in|with|saying)\b|\s*[,.:;!?-]|\s*$)",
    re.I,
)


def _gives_its_thing(request_text: str, tool: ToolSpec) -> bool:
    """Whether an instruction gives the thing a changing tool is named for: "leave a 5
    star review for Dishoom Kings Cross" and `post_review`. A file is every file tool's
    thing, which the verbs of the jobs tell apart (`verbs.py`)."""
    if tool.effect not in ("write_local", "external"):
        return False
    for part in addressed_parts(request_text):
        found = _GIVING.match(without_lead_in(part))
        if found and found[1].lower() != "file" and _names_its_thing(found[1].lower(), tool):
            return True
    return False


# A thing the speaker says they need, at the start of a sentence or after "and", with up
# to two words before it: "i need an alarm at 4:00", "I need a wheelchair accessible
# taxi", "can I have a new alarm for 6?".
_ITS_THING_WANTED = re.compile(
    r"(?:^|[.!?]\s+|\band\s+|\balso\s+)"
    r"(?:(?:i|we)\s*(?:need|want|would like|['’]d like)|(?:can|could) (?:i|we) (?:get|have))"
    r"\s+(?:an?|another|some)\s+((?:[a-z]+\s+){0,2}[a-z]{3,})\b",
    re.I,
)


def _names_its_thing(word: str, tool: ToolSpec) -> bool:
    """Whether `word`, in the singular or the plural, is the last word of the tool's name:
    "alarms" and `set_alarm`, "reminder" and `set_reminder`."""
    last = re.findall(r"[a-z]+", tool.name.lower())[-1:]
    return bool(last) and word in (last[0], f"{last[0]}s", f"{last[0]}es")


def says_its_initials(words: Sequence[str], tool: ToolSpec) -> bool:
    """Whether one of `words`, written in capitals, is the initials of words of the tool's
    name that follow one another: "DND" and `set_do_not_disturb`, "ETA" and
    `estimated_time_of_arrival`."""
    name = re.findall(r"[a-z]+", tool.name.lower())
    initials = {
        "".join(w[0] for w in name[i:j]).upper()
        for i in range(len(name))
        for j in range(i + _INITIALS, len(name) + 1)
    }
    return any(w.strip(OUTER_PUNCTUATION) in initials for w in words if w.isupper())


_INITIALS = 3  # letters at least of a name's initials: "DND", not "PM" or "UK"


def own_words(tool: ToolSpec) -> list[str]:
    """The words of a tool's name, its description's first sentence and its parameters'
    descriptions, lower case."""
    return re.findall(r"[a-z]+", " ".join([tool.name, *_descriptions(tool)]).lower())


def _descriptions(tool: ToolSpec) -> list[str]:
    described = [summary(tool.description)]
    return described + [str(p.schema.get("description", "")) for p in parameters(tool.parameters)]


# Where a tool's words say a verb: the first word of a text ("Record money spent"), or a
# word after "to" ("Who to pay", "how often to water it").
_VERB_PLACE = re.compile(r"^\W*([a-z]+)|\bto ([a-z]+)")


def _own_verbs(tool: ToolSpec) -> set[str]:
    """The verbs a tool's own words say: its name's words, the first word of its
    description and of each parameter's, and a word after "to" in any of them."""
    found = set(re.findall(r"[a-z]+", tool.name.lower()))
    for text in _descriptions(tool):
        found |= {a or b for a, b in _VERB_PLACE.findall(text.lower())}
    return found


def by_its_own_verb(request_text: str, ranked: Sequence[ToolSpec]) -> ToolSpec | None:
    """The best-ranked tool whose own words say the verb the request's instruction opens
    with ("Pay Sam 12" -> the tool whose recipient is "Who to pay"), if any."""
    return next((t for t in ranked if asks_its_action(request_text, t)), None)


# How a description says its tool gives advice: "Care instructions for a houseplant",
# "How to get a particular kind of stain out", "how often to water it", but not "How much
# interest a sum would earn", which reports a value.
# A cause, or what tells two things apart, which no guide to doing something gives: "why
# does green tea go bitter?", "What's the difference between a fuse and a circuit breaker?"
_NOT_ADVICE = re.compile(
    r"why\b|what(?:'s|’s|s| is) (?:the|a) (?:\w+ )?difference\b|"
    # A record over everything, which no tool about one thing gives: "what's the busiest
    # airport in the world?"
    r"(?:what|which)(?:'s|’s|s| is| are| was| were)? (?:\w+ )?(?:the )?(?:\w+est|most \w+)\b"
    r"[^?]*\b(?:in the world|on earth|ever|of all time|in history)\b",
    re.I,
)
_ADVICE = re.compile(
    r"\bhow (?:\w+ ){0,2}to\b|\bwhat to do\b|\b(?:instructions|tips|advice|guides?|steps?)\b",
    re.I,
)
# What is recommended, which a question how much or how many should be taken asks:
# "Recommended daily intake of a vitamin" and "how much vitamin d should an adult be
# taking per day", not "is a Tesla a good first car?" and recommended tyre pressures.
_RECOMMENDS = re.compile(r"\b(?:recommended|recommendations?|guidance|guidelines)\b", re.I)
_ASKS_AN_AMOUNT = re.compile(r"\bhow (?:much|many)\b[^?]*\b(?:should|do|does)\b", re.I)
# A method or a recipe tells how to make something, which a question how to asks: "How do
# you make a negroni?", not "does shaking it make a difference to the drink?".
_METHOD = re.compile(r"\b(?:method|recipes?)\b", re.I)
_HOW_TO = re.compile(r"\bhow (?:(?:do|does|can|could|should|would) (?:i|you|we|one)|to)\b", re.I)
# The verb a question how to asks of: "how do you conjugate ..." -> "conjugate".
_HOW_TO_DO = re.compile(
    r"\bhow (?:(?:do|does|can|could|should|would) (?:i|you|we|one)|to) ([a-z]+)\b", re.I
)
# How long to do something asks for a time, which a description that reports one gives:
# "Boiling time for a dried pasta shape" answers "how long should I cook linguine?"; how
# long a thing is asks its length ("how long is a parkrun?").
_HOW_LONG = re.compile(
    r"\bhow long (?:do|does|should|shall|must|would|will|can|to)\b|\bhow long \w+ (?:take|takes)\b",
    re.I,
)
_REPORTS_A_TIME = re.compile(r"\b(?:time|times|duration)\b", re.I)
# How a description says its tool answers a yes or no question: it opens with the check
# ("Check whether a plant is poisonous to cats or dogs, and ..." answers "Are lilies
# poisonous to cats?"), up to a comma; not one that reports it among other things
# ("Battery level ..., and whether it is charging").
_WHETHER = re.compile(r"^\W*(?:\w+\s+){0,2}whether\b([^,;:(]*)", re.I)
# A description that reports what is usual ("Average last spring frost ..."), which a
# question on what usually holds asks for ("when does the first frost usually arrive").
_REPORTS_THE_USUAL = re.compile(r"\b(?:average|typical|usual)\b", re.I)
_ASKS_THE_USUAL = re.compile(r"\b(?:usually|typically|normally|generally|on average)\b", re.I)


def advising(request_text: str, tools: Sequence[ToolSpec]) -> list[ToolSpec]:
    """The tools that give advice on what a request for advice is about: a description
    that advises ("how often to water it", "tips", "what to do"), or reports what is usual
    when that is asked ("usually"), and a word of the request among the tool's own words
    or values ("water my monstera", "a silk blouse" and the fabric `silk`). Such a tool
    answers "how often should I water my monstera?". A tool that checks whether something
    holds answers a question whether it does (`_checks_what_is_asked`)."""
    if _NOT_ADVICE.match(request_text.strip()):
        return []
    said = _content_words(request_text)
    found = []
    usual = _ASKS_THE_USUAL.search(request_text) is not None
    for tool in tools:
        described = summary(tool.description)
        advises = (
            _ADVICE.search(described)
            or (_RECOMMENDS.search(described) and _ASKS_AN_AMOUNT.search(request_text))
            or (usual and _REPORTS_THE_USUAL.search(described))
            or (_METHOD.search(described) and _HOW_TO.search(request_text))
        )
        # "how long should I cook linguine?" asks the time `pasta_cooking_time` reports.
        how_long = _HOW_LONG.search(request_text) and _REPORTS_A_TIME.search(described)
        if how_long and (said & _words_and_values(tool) or _says_its_names_verb(said, tool)):
            found.append(tool)
            continue
        # "how do you conjugate tener?" asks what `verb_conjugation` does.
        how = _HOW_TO_DO.search(request_text)
        if how and _says_its_names_verb({how[1].lower()}, tool):
            found.append(tool)
            continue
        if not advises:
            if _checks_what_is_asked(request_text, said, tool):
                found.append(tool)
            continue
        if said & _words_and_values(tool):
            found.append(tool)
    return found + [t for t in tools if t not in found and names_one_of_its_kind(request_text, t)]


# A fact asked for that a tool may report: who made something, or when it came out.
_A_FACT = re.compile(
    r"\bwho (?:\w+ly )?(wrote|sang|performed|directed|painted|composed|produced|designed|"
    r"invented)\b|"
    r"\b(?:when|what year|which year) (?:did|was|were) [^?]+ (?:released|come out|came out)\b",
    re.I,
)
_FACT_WORDS = {"wrote": ("wrote", "writer", "written", "songwriter")}
_CAME_OUT = ("released", "release", "came out", "year")


def reports_the_fact(request_text: str, tool: ToolSpec) -> bool:
    """Whether the request asks who made something or when it came out and the tool's
    description says it reports that: "who wrote hallelujah?" and `song_credits` ("who
    wrote it, the year it came out"), a joke or a song asked about rather than for."""
    description = tool.description
    found = _A_FACT.search(request_text)
    if found is None:
        return False
    asked = found[1].lower() if found[1] else None
    words = _FACT_WORDS.get(asked, (asked,)) if asked else _CAME_OUT
    return any(re.search(rf"\b{re.escape(w)}\b", description, re.I) for w in words)


def _says_its_names_verb(said: set[str], tool: ToolSpec) -> bool:
    """Whether a word said begins a word of the tool's name: "cook" and `pasta_cooking_time`,
    "conjugate" and `verb_conjugation` (a verb's last "e" left off)."""
    stems = {word[:-1] if len(word) >= 6 and word.endswith("e") else word for word in said}
    return any(
        len(word) >= 4 and named.startswith(word)
        for word in stems
        for named in re.findall(r"[a-z]+", tool.name.lower())
    )


def says_its_words(request_text: str, tool: ToolSpec) -> bool:
    """Whether the request says one of a tool's own words or values, four letters or
    more and not a joining word: "for the marathon" and a race of `marathon`."""
    return bool(_content_words(request_text) & _words_and_values(tool))


def _content_words(request_text: str, shortest: int = 4) -> set[str]:
    said = {w.lower() for w in request_words(request_text)}
    return {w for w in said if len(w) >= shortest and w not in NOT_VERBS and w not in GLUE}


def _words_and_values(tool: ToolSpec) -> set[str]:
    values = [
        str(v).lower()
        for p in parameters(tool.parameters)
        for v in p.schema.get("enum", ())
        if isinstance(v, str)
    ]
    return {*own_words(tool), *values}


def checks_whether(tool: ToolSpec) -> bool:
    """Whether the tool's description opens with a check whether something holds, which
    answers yes or no."""
    return _WHETHER.match(summary(tool.description)) is not None


def _checks_what_is_asked(request_text: str, said: set[str], tool: ToolSpec) -> bool:
    """Whether the tool checks whether something holds ("Check whether a plant is poisonous
    to cats"), in words of the request: besides the tool's name ("poisonous" for "Are
    lilies poisonous to cats?", but not "scrabble" for a rule of the game), or any of them
    for a question asking yes or no ("can eggshells go in the compost?" and
    `compost_check`, "Whether something can go in a home compost bin")."""
    checked = _WHETHER.match(summary(tool.description))
    if not checked:
        return False
    words = set(re.findall(r"[a-z]+", checked[1].lower()))
    if not _ASKS_YES_OR_NO.search(request_text):
        words -= set(re.findall(r"[a-z]+", tool.name.lower()))
    return bool(said & words)


# A sentence asking yes or no: "can eggshells go in the compost?", "quick one - are tea
# bags ok to compost or do they have plastic in them?"
_ASKS_YES_OR_NO = re.compile(
    r"(?:^|[.?!-]\s+)(?:is|are|can|could|does|do|should|will|would|was)\b[^.?!]*\?", re.I
)


# How a description says its tool tells what a thing means: "Explain a care-label symbol".
_EXPLAINS = re.compile(
    r"^\W*(?:explains?|decodes?|interprets?)\b|^\W*what (?:a|an|each|the)\b[^.;,]*\bmeans\b", re.I
)


def explains_what_is_asked(request_text: str, tool: ToolSpec) -> bool:
    """Whether the tool tells what a kind of thing means and the request names that kind:
    "Explain a care-label symbol on clothing" answers "what does the symbol with a hand in
    a tub mean on my jumper label", but not what a word means."""
    described = summary(tool.description)
    if not _EXPLAINS.match(described):
        return False
    said = {w.removesuffix("s") for w in _content_words(request_text)}
    return bool(said & {w.removesuffix("s") for w in _summary_words(tool)} - {"explain", "mean"})


# "an F chord", "the G7 chord": an article, a name or code saying which one, a noun.
_ONE_OF_A_KIND = re.compile(r"\b(?:a|an|the)\s+([\w#+-]+)\s+([a-z]+)\b", re.I)


def names_one_of_its_kind(request_text: str, tool: ToolSpec) -> bool:
    """Whether the request names one of the things the tool's name says, by a word before
    it ("how do I play an F chord?" and `guitar_chord`): a question on how to do something
    with that one is for the tool, which knows it."""
    subjects = {w.removesuffix("s") for w in topic_words(tool.name).split() if len(w) >= 3}
    return any(
        found[2].lower().removesuffix("s") in subjects and _names_which(found[1])
        for found in _ONE_OF_A_KIND.finditer(request_text)
    )


def _names_which(word: str) -> bool:
    """A name or a code ("F", "Am7"), not a word that describes ("a new habit")."""
    return (word[:1].isupper() or any(c.isdigit() for c in word)) and word.lower() not in GLUE


def topic_words(name: str) -> str:
    """A tool's name without its verbs: `get_weather` -> "weather", `flight_status` ->
    "flight status"."""
    words = re.findall(r"[a-z]+", name.lower())
    return " ".join(w for w in words if job_of(w) is None and w not in NAME_VERBS)


def named_by_words(request_text: str, ranked: Sequence[ToolSpec]) -> ToolSpec | None:
    """The best-ranked tool whose name holds a word of the request ("weather in Oslo"
    -> `get_weather`, not `get_time`); short words and verbs in names do not count. A word
    a better-ranked tool's summary says as well tells neither apart: "book the council to
    collect an old fridge" keeps the tool that asks "the local council to collect large
    household items", not `council_tax_rates`."""
    said = {w.lower() for w in re.findall(r"[A-Za-z]+", request_text)}
    for at, tool in enumerate(ranked):
        words = {w for w in re.findall(r"[a-z]+", tool.name.lower()) if job_of(w) is None}
        # A word of the name that begins a word said: "packages", "tracking".
        named = [w for w in words if begins_a_word(w, said)]
        if says_its_initials(request_text.split(), tool):
            return tool
        if named:
            better = (t for t in ranked[:at] if _says_more_of(request_text, named, t, tool))
            return next(better, tool)
    return None


def _says_more_of(
    request_text: str, named: Sequence[str], tool: ToolSpec, named_tool: ToolSpec
) -> bool:
    """Whether a tool's summary says the words `named` and another word of the request
    besides ("Ask the local council to collect ..." for "book the council to collect an
    old fridge", not "Sunrise and sunset times" for "what time is it there?"), or more of
    the request's other words than the tool they name says: "Opening hours of the
    household recycling centre (the tip)" for "glasgow tip opening times", not `get_time`
    for its "times"."""
    words = _summary_words(tool)
    others = {w.rstrip("s") for w in _content_words(request_text, shortest=3)} - {
        w.rstrip("s") for w in named
    }
    if all(w.rstrip("s") in words for w in named) and others & words:
        return True
    return len(others & words) > len(others & _summary_words(named_tool))


def _summary_words(tool: ToolSpec) -> set[str]:
    return {w.lower().rstrip("s") for w in re.findall(r"[A-Za-z]+", summary(tool.description))}


def begins_a_word(word: str, said: set[str]) -> bool:
    """Whether a word said begins with `word`, four letters or more, or with its other
    spelling: "practised" and "practice", "licensed" and "licence"."""
    if len(word) < 4:
        return False
    stem = word[:-2] if len(word) >= 7 and word.endswith(("ce", "se", "ze")) else word
    return any(s.startswith(stem) for s in said)
