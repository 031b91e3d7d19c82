"""Requests that name several subjects: "the time in Lisbon and in Seoul".

A request is split where one clause ends and another begins (sentence ends,
semicolons, "and", "also", "as well as", and the commas of a list that ends in
"and": "in Paris, Oslo and Tokyo", or that ends the request without one:
"in Paris, Oslo, Tokyo", or that a colon after a count opens: "these two: PK1, PK2"),
"vs" and "+" ("Paris: weather + air quality"), never inside quotes ("count the words in
'salt, pepper and oil'" is one text). Each part long enough to stand alone
is decided on its own, so "what's 12 * 7 and what's the weather in Paris?"
becomes two calls. A short part that only names another subject ("and in
Seoul", "and Rome") continues the clause before it: the same request, about
the new subject, made by putting the part's new words where the earlier
clause's argument value was ("What time is it in Lisbon" -> "What time is it
in Seoul"), or, when that value was picked rather than copied, the part in place
of the clause's words from the one it opens with ("convert 9 euros to dollars"
and "to pounds" -> "convert 9 euros to pounds").

A part that only tells something about the speaker ("I have three overripe
bananas. Could you find a banana bread recipe?") sets the scene for the request and
is no call of its own.

A clause that says "there" for the place an earlier clause named ("what's the
weather in Tokyo, and what time is it there?") is about that place: "there" is
replaced by the earlier call's value.

Arithmetic is not split: "add 19 and 23" is one expression, because its parts
are numbers joined by "and" (a part of numbers only continues the clause's
expression, which took them all).
"""

from __future__ import annotations

import re
from typing import Any

from tiller.models.local.claims import mapped, mapped_spans
from tiller.models.local.intent import asks_for_change, names_something_specific
from tiller.models.local.request_numbers import request_numbers, written_expression
from tiller.models.local.request_words import GLUE, request_words
from tiller.models.local.time_words import is_clock_time, is_day, says_when
from tiller.models.local.verbs import request_verb

MIN_CLAUSE_WORDS = 3  # fewer words only name a subject: "in Seoul", "and Rome"

_BREAK = re.compile(
    r"(?<=[?!])\s+|(?<=\w[.])\s+(?=[A-Z])|\s*;\s*|,?\s+(?:and also|as well as|"
    # Not a number's fraction: "two and a half pounds".
    r"and(?!\s+(?:a half|a quarter|three quarters)\b)|also|plus|then)\s+|"
    r"(?<=[A-Za-z])\s+(?:vs\.?|versus|\+)\s+(?=[A-Za-z])|"
    # A name compared with another: "in Westminster compared with Wandsworth", or the same
    # thing another way: "300 km by coach, compared with the same trip by car"
    r"\s+compared (?:with|to)\s+(?=(?-i:[A-Z]))|,?\s+compared (?:with|to)\s+(?=the same\b)|"
    r",\s+(?=(?:what|what's|how|is|are|and|also|tell|give|show|convert|set|send|"
    r"find|check|get)\b)"
    # Another question offered instead: "How much would 25 cost, or would 25 large ones"
    r"|,\s+or\s+(?=(?:would|will|is|are|does|do|should|can|could)\b)"
    # What the speaker thinks of it, after a comma: "..., I think one of them has lapsed".
    r"|,\s+(?=(?-i:I) (?:think|reckon|guess|believe|suppose|know|hope|doubt)\b)"
    # The items of a numbered list: "Two things. 1) ... 2) remind me at 17:00 ...".
    r"|(?:^|(?<=[.!?;:,\n]))\s*\(?\d{1,2}\)\s+"
    # Settings listed with their values: "brightness 70%, media volume 40%".
    r"|,\s+(?=[a-z]+(?:\s+[a-z]+){0,2}\s+(?:to\s+)?\d+\s*%(?:\s*[,.;!?]|\s*$))"
    # The commas of a list that ends in "and": "Paris, Oslo and Tokyo".
    r"|,\s+(?!please:)(?=[^,;.?!]{1,30}?(?:,\s|,?\s+and\s))",
    re.I,
)
# The last comma of a list without "and" that ends the request: "madrid, nairobi, lima",
# or that a colon after a count opens: "track these two: 7845, 9400".
_LIST_END = re.compile(
    r"(?:,|\b(?:two|three|four|both|these|those|following)\b[^,;:.?!]{0,30}:)"
    r"\s*[^,;:.?!\s][^,;:.?!]{0,39}(,\s+)[^,;:.?!]{1,40}?[.?!]*$",
    re.I,
)
# A list of two short items after a topic and a colon: "snow report: chamonix, zermatt",
# "add to my todo: buy stamps, call the plumber" (not after words that open a text: "set
# the title to: Tom, Jerry").
_TOPIC_LIST = re.compile(
    r"^((?:[\w'-]+ ){0,4}[\w'-]+):\s*(?:[\w'-]+ ){0,2}[\w'-]+(,\s+)(?:[\w'-]+ ){0,2}[\w'-]+[.?!]*$"
)
# "or" between two names asks about each: "handed in at Gatwick Airport or Edinburgh
# Waverley?", "sunny in Paris or in Lisbon?", "on the Northern or the Victoria line?" (a
# choice between them is asked for in words that ask to explain, which the whole request
# is read for first).
_NAMES_OR_NAMES = re.compile(r"\b[A-Z][\w'’-]*(\s+or\s+)(?=(?:(?:in|at|for|the)\s+)?[A-Z])")
_OPENS_A_TEXT = frozenset({"to", "with", "containing", "saying", "says", "reads", "that", "as"})
_SENDS_A_TEXT = frozenset(
    "text email mail message send tell write note post reply say ask dm".split()  # noqa: SIM905
)
# Two places in lower case joined by "or" that end a sentence: "any lost dogs reported in
# whitby or hove?" (not "in the morning or evening", "in paris or not").
_PLACES_OR_PLACES = re.compile(
    r"\b(?:in|at|near|around)\s+(?!(?:the|a|an|my|your|our|this|that)\b)[a-z][\w'’-]+"
    r"(\s+or\s+)(?!(?:the|a|an|not|so|more|less|else|other|somewhere|anywhere)\b)"
    r"(?:in\s+|at\s+)?[a-z][\w'’-]+(?=\s*(?:[?.!;]|$))"
)
# Two places or names, then which of them: "panto in york or cardiff - which one runs
# later?" asks about each; the question of which is left to the answer.
_WHICH_OF_TWO = re.compile(
    r"\b(?:in|at|for|from|on)\s+\w+(\s+or\s+)\w+(\s*[-–—,]\s*which\b.*)$", re.I
)
# A name of two names joined by "and" after "the": "the Kennet and Avon", "the Leeds and
# Liverpool" (a canal). Places and people go without "the": "in Leeds and Liverpool".
TWO_NAMES = r"[A-Z][\w'’-]* and [A-Z][\w'’-]*\b"
_NAME_OF_TWO = re.compile(rf"(?<=\bthe ){TWO_NAMES}")
# A quoted passage: opened after a space or the start, closed before a non-word.
QUOTED = re.compile(r"""(?:^|(?<=[\s:(]))(["'“‘`])[^"“”`]*?[”’"'`](?!\w)""")
# Words a short part adds without naming a subject: "and Rome, please", "and Oslo too".
FILLERS = frozenset(
    "please pls too also again thanks then as well now for me".split()  # noqa: SIM905
)
_NUMBERS_ONLY = re.compile(r"^[\d\s.,+*/()-]+$")
# Words for another thing of the kind named before, and what joins it: "And a 6 kg one?",
# "another one".
_THE_SAME_KIND = frozenset({"one", "ones", "another", "and"})
# A number, with its unit when written onto it: "25", "2.5", "500mg".
_A_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?[A-Za-z]{0,3}(?![\w.])")
# "there" for a place, not "is there", "are there" (nothing is referred to).
_THERE = re.compile(r"(?<!\bis )(?<!\bare )(?<!\bwas )(?<!\bwere )\bthere\b", re.I)


# "Compare A with B": what is compared, and where the other begins.
_COMPARE = re.compile(
    r"^(?:(?:please|pls|can you|could you|would you|can u)\s+)*compare\s+([^,;.?!]+?)"
    r"(\s+(?:with|to|against)\s+)",
    re.I,
)
# The other of two things compared as a single word that ends the clause: "oak with ash
# for me?".
_ONE_WORD_OTHER = re.compile(r"\w+(?:\s+(?:for me|please|pls))?\s*(?:[.?!]|$)", re.I)


def _compared(text: str) -> list[tuple[int, int]]:
    """Where the other of two things compared begins, when it is a name or says again a
    word the first says ("Compare 200 kWh on the standard tariff with 200 kWh on the green
    tariff"), or is one word after one word ("compare oak with ash for me?"), not a
    condition ("compare prices with VAT included")."""
    compared = _COMPARE.match(text)
    if not compared:
        return []
    after = text[compared.end() :]
    first = {w.lower() for w in re.findall(r"\w{3,}", compared[1])}
    again = first & {w.lower() for w in re.findall(r"\w{3,}", after)}
    one_word = len(compared[1].split()) == 1 and _ONE_WORD_OTHER.match(after)
    return [compared.span(2)] if again or one_word or re.match(r"[A-Z][a-z]", after) else []


# A condition, to the comma that ends it: "If the hall's £35 an hour and we need it for 6
# hours, what does that come to?" supposes both before it asks.
_CONDITION = re.compile(r"(?:^|(?<=[.?!]\s))if\b[^,.?!;]*,", re.I)


def parts_of(request_text: str) -> list[str]:
    """The request cut where one clause ends and another may begin, outside quotes,
    names of two names ("the Kennet and Avon") and conditions ("If A and B, ..."): at
    the end of a sentence, at "and", "also", "then", ..., at the commas of a list, and at
    "or" between two names or two things it asks which of."""
    text = request_text.strip()
    quoted = [found.span() for found in (*QUOTED.finditer(text), *_NAME_OF_TWO.finditer(text))]
    quoted += mapped_spans(text)
    quoted += [found.span() for found in _CONDITION.finditer(text)]
    cuts = [cut.span() for cut in _BREAK.finditer(text)]
    if (last := _LIST_END.search(text)) and last.span(1) not in cuts:
        cuts = sorted([*cuts, last.span(1)])
    if (topic := _TOPIC_LIST.match(text)) and _a_topic(topic[1]) and topic.span(2) not in cuts:
        cuts = sorted([*cuts, topic.span(2)])
    names = [m.span(1) for m in _NAMES_OR_NAMES.finditer(text) if m.start() > 0]
    names += [m.span(1) for m in _PLACES_OR_PLACES.finditer(text)]
    names += [span for m in _WHICH_OF_TWO.finditer(text) for span in (m.span(1), m.span(2))]
    cuts = sorted({*cuts, *names, *_compared(text)})
    parts, start = [], 0
    for begin_cut, end_cut in cuts:
        if not any(begin < begin_cut < end for begin, end in quoted):
            parts.append(text[start:begin_cut])
            start = end_cut
    parts.append(text[start:])
    return [p.strip(" ,") for p in parts if p and p.strip(" ,.?!")]


# A statement about the speaker that sets the scene ("I have three bananas", "I'm flying
# to Oslo on Friday"), not a request ("I need ...", "I'd like ..."), or about what is
# asked ("It's in config.toml", "it's been ages").
_SCENE = re.compile(
    r"^(?:i|i'm|i’m|im|i've|i’ve|ive|my|we|we're|we’re|we've|our|it's|it’s|it|"
    # What there is, and what the speaker did, said without "I": "There's a chance of
    # seeing the northern lights tonight", "Found holes in two of my wool jumpers", "got a
    # customer asking for both".
    r"there(?:['’]s| is| are| was| were)|found|noticed|spotted|bought|lost|broke|"
    r"finished|booked|planted|heard|got(?! any\b| to\b))\b"
    r"(?!['’]d\b|\s+(?:need|want|wanna|would|wonder|was wondering)\b)",
    re.I,
)


# What the speaker is doing, or has just done, said before what they ask: "taking my
# daughter to kenya, what vaccines does a child need", "Going backpacking in Peru in May.
# Which jabs ...?", "Off to Japan next week.", "just finished my run."
_DOING = re.compile(
    # Not a thing named by what it is for: "dialling codes for ireland", "opening times at".
    r"^(?:(?!(?:tracking|opening|closing|meaning|according|morning|evening)\b)[a-z]{2,}ing\b"
    r"(?! [a-z]{3,}s (?:for|in|of|at|on|near) (?!(?:the|a|an|my|our|your|his|her|their|"
    r"some|this|that|these|those)\b))|"
    r"off to\b|just (?:[a-z]{2,}ed|got|had|been|came|went|did|ran|woke|left|bought|made)\b)",
    re.I,
)
_WHEN = re.compile(r"^(?:before|after|when|while|once|until|as soon as) (?=i|we|you)\b", re.I)
# A question word, not a relative pronoun after a comma ("with my dad, who is mad about ...").
_ASKS = re.compile(
    r"\?|\b(?:what|whats|what's|how|why|whether|if)\b|(?<!, )\b(?:where|when|which|who)\b",
    re.I,
)


def leads_in(part: str) -> bool:
    """Whether a part only says what the speaker is doing ("Planning a London weekend") or
    when ("Before I get home"): it asks nothing, and the part after it asks about it."""
    text = part.strip()
    when = _WHEN.match(text)
    rest = text[when.end() :] if when else text
    return (
        bool(when or _DOING.match(text))
        and len(text.split()) >= MIN_CLAUSE_WORDS  # "beijing" is a place, not a doing
        and not _ASKS.search(rest)
        and not asks_for_change(rest)
        and not names_something_specific(rest)
        and ":" not in rest  # "Hosting dinner: salmon to start, lamb as the main." lists
    )


def _a_topic(words: str) -> bool:
    """Whether the words before a colon name what a list is of, rather than open a text:
    "set the title to:", "Text Marco:"."""
    said = words.lower().split()
    return said[-1] not in _OPENS_A_TEXT and said[0] not in _SENDS_A_TEXT


def sets_the_scene(part: str) -> bool:
    """Whether a part only tells something about the speaker or what is asked, or a value
    the question after it works with ("the toll is £9.70 each way"): no question, no
    request, no instruction after a remark ("it's dark, put the light on"). A sound before
    it is no word of it ("Ow, I just trod on a jellyfish")."""
    told = _SOUND.sub("", part.strip())
    return (
        bool(_SCENE.match(told) or _TELLS_A_VALUE.match(told))
        and not part.rstrip().endswith("?")
        and not asks_for_change(part)
    )


# What something is or costs, told: "the toll is £9.70 each way", "the bill was 96".
_TELLS_A_VALUE = re.compile(
    r"^the\s+(?:\w+\s+){0,3}?(?:is|was|are|were|costs?|comes? to)\s+[£$€]?\d", re.I
)
# A sound or a greeting that opens a sentence: "Ow,", "ugh", "oh no,", "hi,".
_SOUND = re.compile(
    r"^(?:ow+|ouch|ugh|argh|ah+|oh+(?: no| dear)?|aw+|oops|wow|phew|hi+|hey+|hello|hiya)\b"
    r"[,!.]*\s*",
    re.I,
)
# A remark beside what is asked, on the speaker or what is happening: "pale brit here,
# don't want to fry", "trying to work out if it's the storm", "it really stings".
# A statement that opens with "I", "my" or "we" sets the scene (`_SCENE`); these say
# where the speaker is ("pale brit here").
_ON_THE_SPEAKER = re.compile(r"\bhere\b", re.I)
# A request said of the speaker: "give me rhymes for blue", "I'd like", "we need".
_ASKS_FOR = re.compile(
    r"^\w+ (?:me|us)\b|\b(?:i|we)(?:['’]d| would| need| want| wanna)\b|\bplease\b", re.I
)
_OPENS_A_QUESTION = re.compile(
    r"^(?:what\w*|how\w*|why|where\w*|when|which|who\w*|is|are|am|was|were|do|does|did|"
    r"can|could|will|would|should|shall|may|might|have|has|any)\b",
    re.I,
)


def remarks(part: str) -> bool:
    """Whether a part only remarks on the speaker or on what is happening, or exclaims
    ("christmas cards time again!"), beside what the request asks: no question, no
    instruction, and nothing named (no name inside it, no number or code, no word after
    "in" or "at")."""
    text = part.strip()
    words = request_words(text)
    doing = _DOING.match(text) and len(words) >= MIN_CLAUSE_WORDS  # not "beijing"
    exclaims = text.endswith("!") and len(words) >= MIN_CLAUSE_WORDS
    on_the_speaker = _ON_THE_SPEAKER.search(text) or doing or _IT.match(text) or exclaims
    # Each sentence or comma's clause may open a question: "and whats my phone battery
    # at", "thinking of getting fish., what does a guppy need".
    opens = [_JOINED.sub("", piece) for piece in _PIECES.split(text)]
    return (
        bool(on_the_speaker)
        and "?" not in text
        and ":" not in text  # what a list is of: "rhymes for my song: moon"
        and not any(_OPENS_A_QUESTION.match(piece) for piece in opens)
        and not _ASKS_FOR.search(_JOINED.sub("", text))
        and not asks_for_change(text)
        and request_verb(text) is None
        and not names_something_specific(text)
        and not any(w[:1].isupper() or any(c.isdigit() for c in w) for w in words[1:])
        and not any(w.lower() in _WHERE for w in words[:-1])
    )


_IT = re.compile(r"^it\s+(?!is\b)[a-z]", re.I)
_PIECES = re.compile(r"[.,;!]+\s+")
_JOINED = re.compile(r"^(?:(?:and|also|so|but|then|plus),?\s+)+", re.I)
_WHERE = frozenset({"in", "at", "near", "around"})


def only_tells(part: str) -> bool:
    """Whether a part only names a place or a thing and says no more than when or where:
    "Brighton on Saturday.", not "the M25 anticlockwise" nor "give me some alternatives"."""
    words = request_words(part)
    return (
        bool(words)
        and words[0][:1].isupper()
        and words[0] != "I"
        and not _ASKS.search(part)
        and not asks_for_change(part)
        and request_verb(part) is None
        and all(w[:1].isupper() or w.lower() in _WHEN_OR_WHERE or says_when(w) for w in words)
    )


_WHEN_OR_WHERE = frozenset({"on", "in", "at", "for", "from", "to", "the", "and", "then"})


def asks(part: str) -> bool:
    """Whether a part asks a question: "Water?", "what jabs for morocco"."""
    return _ASKS.search(part) is not None


def stands_alone(part: str) -> bool:
    """Whether a part is a clause of its own rather than another subject for the last one."""
    if written_expression(part):
        return True  # "and 144 / 12": an expression of its own
    words = [w for w in request_words(part) if w.lower() not in FILLERS]
    return len(words) >= MIN_CLAUSE_WORDS and not _NUMBERS_ONLY.match(part)


def new_words(clause: str, part: str) -> list[str]:
    """The words `part` adds to `clause`: none when it is a bare number, which joined by
    "and" belongs to the clause's own expression or amount ("add 19 and 23")."""
    if _NUMBERS_ONLY.match(part):
        return []
    known = {w.lower().removesuffix("s") for w in request_words(clause)} | FILLERS
    new = [w for w in request_words(part) if w.lower().removesuffix("s") not in known]
    return new if any(not _NUMBERS_ONLY.match(w) for w in new) else []


def _after_glue(word: str, part: str) -> bool:
    """Whether `word` opens the part or follows a joining word ("for six"), not a name's
    word ("bbc four")."""
    words = [w.lower() for w in request_words(part)]
    at = words.index(word.lower()) if word.lower() in words else -1
    return at == 0 or (at > 0 and words[at - 1] in GLUE)


def continued(
    clause: str, arguments: dict[str, Any], part: str, closed: frozenset[str] = frozenset()
) -> str | None:
    """`clause` about the subject `part` names instead of its own, or None when it cannot
    be said: the part must add words, and the clause's argument value must be written in
    it to be replaced by them. `closed` are the tool's closed values (lower case). A part
    that writes a mapping of its own ("eml -> jo@example.com") holds its values itself."""
    if mapped(part) is not None:
        return part
    parallel = _written_alike(clause, part)
    if parallel is not None:
        return parallel
    new = new_words(clause, part)
    if not new:
        return None
    new = [w for w in new if w.lower() not in _THE_SAME_KIND]
    # The part's own number takes the place of the clause's: "Water the front lawn for
    # 10 minutes" and "the flower beds for 25", "a 30 kg dog" and "a 6 kg one".
    # A number may be spelled out: "a glaze firing for six" after "for 15 pieces"; not
    # one that goes on a name ("bbc four").
    found = {w: request_numbers(w) for w in new if w.isalpha() and _after_glue(w, part)}
    spelled = {w: numbers[0] for w, numbers in found.items() if len(numbers) == 1}
    numbers = [spelled.get(w, w) for w in new if _A_NUMBER.fullmatch(w) or w in spelled]
    written = _A_NUMBER.findall(clause)
    if numbers and len(numbers) == len(written):
        new = [w for w in new if not _A_NUMBER.fullmatch(w) and w not in spelled]
        for old, number in zip(written, numbers, strict=True):
            clause = re.sub(rf"(?<![\w.]){re.escape(old)}(?![\w.])", number, clause, count=1)
        if not new:
            return clause  # only the number is new: "another one for 20 minutes"
    if not new:
        return None
    said = _said_in_place(clause, arguments, part, new, closed)
    if said is not None:
        return said
    # A value picked from a closed set is not written: the part then replaces the
    # clause from the word it opens with ("convert 9 euros to dollars" + "to pounds").
    opening = request_words(part)[0].lower() if request_words(part) else ""
    at = [m.start() for m in re.finditer(rf"\b{re.escape(opening)}\b", clause, re.I)]
    if opening not in FILLERS and opening not in new and at:
        return f"{clause[: at[-1]]}{part.strip(' ,.?!')}"
    return None


# The words that give a clause its build, which its values fill: "10 crates of Coke from
# Bestway" is a number, a word, "of", a word, "from", a word.
_BUILD_WORDS = frozenset("a an the of in on at to for from by with into".split())  # noqa: SIM905
_BUILD_TOKEN = re.compile(r"[£$€]?\d[\d.,:]*[a-z%]*|[\w'’+-]+", re.I)


def _build(tokens: list[str]) -> list[str]:
    """How words are put together: their build words kept, a number as "#", and each run
    of other words as one "w"."""
    shape: list[str] = []
    for token in tokens:
        low = token.lower()
        kind = (
            low
            if low in _BUILD_WORDS
            else "#"
            if token[0].isdigit() or token[1:2].isdigit()
            else "w"
        )
        if kind != "w" or shape[-1:] != ["w"]:
            shape.append(kind)
    return shape


def _written_alike(clause: str, part: str) -> str | None:
    """`clause` with its end replaced by `part` when the part is built as that end is, with
    two values at least and a word that builds them: "Order 10 crates of Coke from Bestway"
    and "4 boxes of crisps from Booker" -> "Order 4 boxes of crisps from Booker". The
    clause keeps its first word, the verb."""
    tokens = _BUILD_TOKEN.findall(part)
    build = _build(tokens)
    values = [k for k in build if k in ("w", "#")]
    # It opens with its build ("4 boxes", "the living room"), not with words of its own
    # ("and also one at Finsbury Park").
    if len(values) < 2 or len(values) == len(build) or build[0] == "w":
        return None
    found = list(_BUILD_TOKEN.finditer(clause))
    for at in range(1, len(found)):
        if _build([m[0] for m in found[at:]]) == build:
            return f"{clause[: found[at].start()]}{part.strip(' ,.?!')}"
    return None


def _said_in_place(
    clause: str, arguments: dict[str, Any], part: str, new: list[str], closed: frozenset[str]
) -> str | None:
    """`clause` with its values written in it replaced by the part's new words: a day by
    its days, a clock time by its times ("on Saturday at 9am" and "on Sunday at 11am"), a
    value of a closed set by another of it ("roses for Grandma" and "sunflowers for
    Priya"), the first other value by the rest, with a name's capitalised word the clause
    also says ("Victoria Park" and "Finsbury Park"); None when no value is written in it."""
    days = [w for w in new if is_day(w)]
    clocks = [w for w in new if is_clock_time(w)]
    chosen = [w for w in new if _one_of(w, closed)]
    # "5 large letter second ones" says `large_second`, not `second` alone.
    chosen = _said_word_by_word(part, closed, chosen) or chosen
    spoken = {w for value in chosen for w in value.split()}
    # A parameter's name beside its value is no value: the "week" of "for next week";
    # but a word of a name is: the "Road" of "Station Road".
    named = {w for name in arguments for w in re.findall(r"[a-z]+", name.lower())}
    words = request_words(part)
    rest = [
        w
        for w in new
        if w not in days
        and w not in clocks
        and w not in spoken
        and (w.lower() not in named or _in_a_name(w, words))
    ]
    if rest and rest[-1] in words:
        after = words[words.index(rest[-1]) + 1 : words.index(rest[-1]) + 2]
        if after and rest[-1][:1].isupper() and after[0][:1].isupper() and after[0] not in new:
            rest.append(after[0])
    replaced = False
    for value in arguments.values():
        # The value as words of the clause: chord "G" is not the G of "Guitar"; a closed
        # value in any case ("coach" for `COACH`).
        case = re.I if isinstance(value, str) and _one_of(value, closed) else 0
        written = (
            re.compile(rf"(?<!\w){re.escape(value)}(?!\w)", case)
            if isinstance(value, str)
            else None
        )
        if written is None or not value.strip() or not written.search(clause):
            continue
        value_words = value.split()
        if chosen and _one_of(value, closed):
            found, chosen = chosen[:1], chosen[1:]
        elif days and all(is_day(w) for w in value_words):
            found, days = days, []
        elif clocks and all(is_clock_time(w) for w in value_words):
            found, clocks = clocks, []
        elif rest:
            found, rest = rest, []
        else:
            continue
        clause = written.sub(lambda _: " ".join(found), clause, count=1)  # noqa: B023
        replaced = True
    return clause if replaced else None


def _in_a_name(word: str, words: list[str]) -> bool:
    """Whether `word` is capitalised after a capitalised word: a later word of a name."""
    at = words.index(word) if word in words else 0
    return at > 0 and word[:1].isupper() and words[at - 1][:1].isupper()


def _said_word_by_word(part: str, closed: frozenset[str], values: list[str]) -> list[str]:
    """The words of `part` from the first to the last of a closed value of two or more
    words it says each of, one of them a value it says (`values`), as one value: "large
    letter second" says `large_second`, not `second`."""
    found: list[str] = []
    for value in closed:
        words = re.findall(r"[a-z0-9]+", value)
        said = [re.search(rf"(?<!\w){w}(?!\w)", part, re.I) for w in words]
        outgrown = any(v.lower() in words for v in values)
        if len(words) >= 2 and outgrown and None not in said:
            spans = [m.span() for m in said if m]
            found.append(part[min(a for a, _ in spans) : max(b for _, b in spans)])
    return sorted(found, key=len)[-1:]


def _one_of(word: str, closed: frozenset[str]) -> bool:
    low = word.lower()
    return low in closed or f"{low}s" in closed or low.removesuffix("s") in closed


def refers_back(part: str) -> bool:
    """Whether a part says "there" for a place named before it."""
    return _THERE.search(part) is not None


def resolved(part: str, clause: str, arguments: dict[str, Any]) -> str:
    """`part` with "there" replaced by the earlier call's value written in its `clause`
    ("what time is it there" after "weather in Tokyo" -> "what time is it Tokyo"), or,
    when it says no "there", with the value added ("the weather" after "Paris: air
    quality" -> "the weather in Paris")."""
    for value in arguments.values():
        if isinstance(value, str) and value.strip() and value.lower() in clause.lower():
            if refers_back(part):
                return _THERE.sub(value, part, count=1)
            return f"{part.rstrip(' ?.!')} in {value}"
    return part
