"""Free text copied from the request, as a pattern for the grammar.

A free string is an unbroken run of the words of the user's request, in the
request's order, each occurrence at most once: a copied passage stays the
passage, and greedy decoding cannot loop ("7.5, 2400, 7.5, 2400, ..."). A word
with a possessive may drop it ("tokyo's" -> "tokyo"). Free text begins with a
word that names something, not with a word that joins or asks ("the", "there",
"what"), unless it opens a quoted passage, follows a colon or is a title's "The",
and ends with one too ("Saturday", not "Saturday at"); a comma comes only where
the request has one, and in a place after a name only before another ("Paris, France",
not "Durham, ideally"). A word another part of the call takes ends a run, but a
quoted passage is kept whole, and a name in quotes is copied whole. A name of
capitalised words inside a sentence ("Tooting Bec Lido", "BBC Two") is copied whole
or not at all, its words never taken elsewhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from tiller.models.local.regex_subset import word_pattern
from tiller.models.local.request_words import (
    GLUE,
    MAX_WORDS,
    OUTER_PUNCTUATION,
    POSSESSIVE,
    UNUSABLE,
)
from tiller.models.local.time_words import says_when

WORD_SEPARATOR = "( |, )"
_QUOTED_NAME = 3  # words at most of a name written in quotes
_QUOTES = "\"'“”‘’`"


def free_text_pattern(
    request_text: str,
    taken: frozenset[str],
    *,
    from_a_name: bool = False,
    mid_sentence: bool = False,
    whole_quotes: bool = False,
    place: bool = False,
) -> str | None:
    """A pattern for any run of the request's words a value of free text may be, or None
    when there is none; `taken` are words (lower case) another part of the call takes.
    With `from_a_name`, only the runs that begin with a name written inside a sentence,
    when the request writes one and quotes nothing: "Compare band D council tax in Leeds"
    gives "Leeds", not "Compare band", and "what are Inside Out 2 and ..." still "Inside
    Out 2".
    `mid_sentence`: the text is a part that begins inside a sentence of the request, so
    its first word is capitalised as a name is ("... and The Substance rated?").
    `whole_quotes`: a quoted passage is copied whole or not at all.
    `place`: the value is a place, whose name a comma ends but before another name."""
    phrases = _phrases(request_text, taken, mid_sentence, whole_quotes, place)
    # A quoted passage is what such a request is about: "translate 'good morning' into
    # Spanish".
    if from_a_name and not any(word.quoted for word in _openers(request_text, mid_sentence)):
        phrases = _names(phrases) or phrases
    return _runs(phrases)


def writes_a_name(request_text: str, taken: frozenset[str]) -> bool:
    """Whether the request writes a name inside a sentence that no other part of the call
    takes ("moving to York")."""
    return bool(_names(_phrases(request_text, taken, mid_sentence=False)))


def _names(phrases: list[_Phrase]) -> list[_Phrase]:
    """Each name written inside a sentence, with what goes on with it: a number ("Inside Out
    2"), another name ("Queen's Gambit"), or a word that joins one to another ("Old Man of
    Coniston", "Ticket to Ride"), each a place it may end. A name ends where its capitals
    do, not at a sentence's end ("Royal Commonwealth Pool? My two love the inflatables")."""
    found: list[_Phrase] = []
    for phrase in phrases:
        for at, word in enumerate(phrase):
            if not word.name:
                continue
            name = [replace(word, opens=True, ends=True)]
            rest = phrase[at + 1 :]
            while rest and name[-1].after == " ":
                joined = rest[0].text in _JOINS_A_NAME and len(rest) > 1 and rest[1].name
                if joined and rest[0].after == " ":
                    name += [replace(rest[0], opens=False, ends=False)]
                    rest = rest[1:]
                elif not (rest[0].name or _NUMBERS_A_NAME.fullmatch(rest[0].text)):
                    break
                name.append(replace(rest[0], opens=False, ends=True))
                rest = rest[1:]
            found.append(name)
    return found


# Who does what the next word says: "do I boil", "can you find", "we need".
_DOERS = frozenset({"i", "you", "u", "we"})

# A number that goes on with a name, perhaps with its unit: "Inside Out 2", "Kew Gardens 50p".
_NUMBERS_A_NAME = re.compile(r"\d{1,4}(?:p|th|st|nd|rd)?|£\d{1,4}")

# Words inside a name of several: "Old Man of Coniston", "Ticket to Ride".
_JOINS_A_NAME = frozenset({"of", "to", "the", "upon", "de", "la", "du"})


@dataclass(frozen=True, slots=True)
class _Word:
    text: str
    opens: bool  # a value of free text may begin with it
    quoted: bool
    starts_sentence: bool
    closes: bool  # punctuation follows it
    comma: bool  # a comma follows it
    ends: bool  # a value may end with it: no glue word ("Saturday at"), but in a passage
    closes_quote: bool = False  # a quote mark closes a quoted passage after it


def _openers(request_text: str, mid_sentence: bool = False) -> list[_Word]:
    """The request's words, each with whether a value of free text may begin with it, and
    whether it is quoted. A value begins with no glue word ("the", "what", "in") and no
    verb after "I" or "you" ("do I boil penne"), unless it opens a quoted passage or
    follows a colon ("count the words in 'to be or not to be'"), or is a title's "The"
    inside a sentence ("has The Hobbit"). A quoted passage is copied as written: no word
    of it is taken for another parameter."""
    found: list[_Word] = []
    after_colon = quoted = passage = after_a_doer = False
    starts = not mid_sentence
    for raw in request_text.split():
        opens_quote = raw[0] in _QUOTES
        quoted = quoted or opens_quote
        word = raw.strip(OUTER_PUNCTUATION)
        if word and not UNUSABLE.search(word):
            # A word after "I" or "you" is what they do, no thing: "how long do I boil penne".
            thing = not _glue(word) and not after_a_doer
            opens = thing or opens_quote or after_colon or (word == "The" and bool(found))
            closes = raw.rstrip(_QUOTES + ")")[-1:] in ",;:.!?"
            ends = not _glue(word) or quoted or passage
            comma = raw.rstrip(_QUOTES + ")").endswith(",")
            shut = raw.rstrip(".,;:!?)")[-1:] in _QUOTES and (len(raw) > 1 or not opens_quote)
            found.append(_Word(word, opens, quoted, starts, closes, comma, ends, quoted and shut))
        after_colon = raw.endswith(":")
        after_a_doer = raw.lower() in _DOERS
        # A word after a colon is capitalised as a name is, not by grammar ("rated: Toy
        # Story 4"), so it may begin one.
        starts = raw.rstrip(_QUOTES + ")")[-1:] in ".!?"
        # After a colon, a passage runs to the sentence's end ("count the words: to be").
        passage = after_colon or (passage and not starts)
        if quoted and raw.rstrip(".,;:!?)")[-1:] in _QUOTES and (len(raw) > 1 or not opens_quote):
            quoted = False
    return found[:MAX_WORDS]


def _glue(word: str) -> bool:
    return word.lower() in GLUE or re.split(r"['’]", word.lower())[0] in GLUE


@dataclass(frozen=True, slots=True)
class _Copyable:
    """A word (or a name of several) as a pattern, whether a value may begin and end with
    it, what may follow it (a comma only where the request has one: "paris, france", not
    "cab, from, the grand"), and whether it is a name written inside a sentence."""

    pattern: str
    opens: bool
    ends: bool
    after: str
    name: bool
    text: str = ""  # the word in lower case, as written


_Phrase = list[_Copyable]


def _phrases(
    request_text: str,
    taken: frozenset[str],
    mid_sentence: bool,
    whole_quotes: bool = False,
    place: bool = False,
) -> list[_Phrase]:
    """The runs of words a value of free text is copied from, each word a pattern with
    whether a value may begin and end with it. A word another part of the call takes ends
    a run (unless quoted), and a name of several capitalised words inside a sentence
    ("Tooting Bec Lido", "Paultons Park") is one word: copied whole, none of it taken
    elsewhere, unless `taken` holds the whole name."""
    words = _openers(request_text, mid_sentence)
    phrases: list[_Phrase] = [[]]
    i = 0
    while i < len(words):
        size = _quote_size(words, i)
        # A few words in quotes are a name ("the 'kids Oyster' card"), copied whole; not
        # after a quote mark that opens none ("'s max_files set").
        named = size <= _QUOTED_NAME and words[i + size - 1].closes_quote
        size = size if whole_quotes or named else 1
        quote = size > 1
        size = (
            size
            if quote
            else max(_name_size(words, i, taken), _numbered_name_size(words, i, taken))
        )
        word = words[i]
        after = WORD_SEPARATOR if words[i + size - 1].comma else " "
        if quote:
            run = words[i : i + size]
            pattern = "".join(
                word_pattern(w.text) + (", " if w.comma else " ") for w in run[:-1]
            ) + word_pattern(run[-1].text)
            text = " ".join(w.text for w in run).lower()
            phrases[-1].append(_Copyable(pattern, True, True, after, False, text))
        elif size > 1:
            pattern = " ".join(word_pattern(w.text) for w in words[i : i + size])
            text = " ".join(w.text for w in words[i : i + size]).lower()
            if text not in taken:
                phrases[-1].append(_Copyable(pattern, True, True, after, True, text))
            elif phrases[-1]:
                phrases.append([])
        elif word.quoted or word.text.lower() not in taken:
            pattern = word_pattern(word.text)
            name = _written_as_a_name(word)
            copy = _Copyable(pattern, word.opens, word.ends, after, name, word.text.lower())
            phrases[-1].append(copy)
        elif phrases[-1]:
            phrases.append([])
        i += size
        # "Harrogate CC's next match": what a name owns is no part of the name, but "St
        # John's Wood" goes on.
        last = words[i - 1]  # "where's" owns nothing
        owner = POSSESSIVE.match(last.text) and not last.quoted and not _glue(last.text)
        if owner and phrases[-1] and i < len(words) and not words[i].text[:1].isupper():
            phrases.append([])
        # A place's name goes on after a comma only into another name: "Paris, France",
        # not "Durham, ideally".
        named = place and last.text[:1].isupper() and not last.quoted
        if last.comma and named and i < len(words) and not words[i].text[:1].isupper():
            phrases.append([])
    return [phrase for phrase in phrases if phrase]


def _quote_size(words: list[_Word], start: int) -> int:
    """How many words from `start` make a quoted passage it opens, 1 when it opens none."""
    if not words[start].quoted or (start > 0 and words[start - 1].quoted):
        return 1
    end = start + 1
    while end < len(words) and words[end].quoted:
        end += 1
    return end - start


def _numbered_name_size(words: list[_Word], start: int, taken: frozenset[str]) -> int:
    """How many words from `start` make a number and the name of several capitalised words
    it numbers ("3 Park Lane"), 1 when they make none or a number parameter takes it."""
    first = words[start]
    if not re.fullmatch(r"\d{1,4}", first.text) or first.text in taken or first.closes:
        return 1
    size = _name_size(words, start + 1, taken) if start + 1 < len(words) else 1
    return 1 + size if size > 1 else 1


def _name_size(words: list[_Word], start: int, taken: frozenset[str] = frozenset()) -> int:
    """How many words from `start` make a name of capitalised words ("Alton Towers", "The
    Smiler"), 1 when they make none. A sentence's first word is capitalised by grammar, so
    it begins none, and punctuation ends one, as does a code another parameter takes
    ("Blue Monday V4" and a grade "e.g. V3")."""
    first = words[start]
    if first.starts_sentence or not first.text[:1].isupper():
        return 1
    if _glue(first.text) and first.text != "The":
        return 1
    if _two_names_after_the(words, start):
        return 3
    end = start + 1
    while (
        end < len(words)
        and not words[end - 1].closes
        and not POSSESSIVE.match(words[end - 1].text)  # "Infirmary's A&E": two things
        and words[end].text[:1].isupper()
        and not _glue(words[end].text)
        and not words[end].quoted
        and not (words[end].text.lower() in taken and any(c.isdigit() for c in words[end].text))
    ):
        end += 1
    return end - start if end - start > 1 else 1


def _two_names_after_the(words: list[_Word], start: int) -> bool:
    """Whether two names joined by "and" after "the" begin at `start`: "the Kennet and
    Avon" is one (as in `clauses.parts_of`)."""
    return (
        0 < start < len(words) - 2
        and words[start - 1].text.lower() == "the"
        and words[start + 1].text == "and"
        and not words[start].closes
        and not words[start + 1].closes
        and words[start + 2].text[:1].isupper()
    )


def _written_as_a_name(word: _Word) -> bool:
    """Whether a word is capitalised inside a sentence, as a name is ("in Leeds"), and is
    no word that joins, a letter or a short word in capitals ("band D", "the A&Es") or a
    day ("on Sunday")."""
    return (
        word.text[:1].isupper()
        and not _ACRONYM.fullmatch(word.text)
        and not word.starts_sentence
        and not _glue(word.text)
        and not says_when(word.text)
    )


_ACRONYM = re.compile(r"[A-Z&]{1,5}(?:['’]?s)?")


def _runs(phrases: list[_Phrase]) -> str | None:
    """Any unbroken run of a phrase's words that begins and ends with words a value may
    begin and end with, or None when there is none.

    Each word's continuation nests the next one's, built from the phrase's end: O(n²) in
    size, as the regex subset has no back-references or rules."""
    branches: list[str] = []
    for phrase in phrases:
        from_here: list[str | None] = [None] * (len(phrase) + 1)
        for i in range(len(phrase) - 1, -1, -1):
            word = phrase[i]
            rest = from_here[i + 1]
            if rest is None:
                from_here[i] = word.pattern if word.ends else None
            else:
                more = f"{word.after}{rest}"
                from_here[i] = f"{word.pattern}({more})?" if word.ends else f"{word.pattern}{more}"
        branches.extend(
            run for run, word in zip(from_here, phrase, strict=False) if word.opens and run
        )
    return f"^({'|'.join(dict.fromkeys(branches))})$" if branches else None
