"""The request's words as a tool argument could use them.

Split on white space, in order, repeats kept, with outer punctuation removed
("notes.txt:" -> "notes.txt") but a file's leading dot kept (".gitignore"), unless
the words around it say it is a kind of file (".py files"). Words with characters
no argument can hold (quotes, braces, backslashes) are left out. "The readme" is the
project's README.md, as it is almost everywhere.
"""

from __future__ import annotations

import re

MAX_WORDS = 32  # request words (or numbers) a string may copy; the pattern grows with their square
OUTER_PUNCTUATION = "\"'“”‘’`«»()[]{}<>,;:!?."
UNUSABLE = re.compile(r'["\\{}^$\x00-\x1f]')
POSSESSIVE = re.compile(r"^(.+\w)(['’]s)$")


# Words a value of free text does not begin with: they join or ask, they name nothing.
GLUE = frozenset(
    """a an the and or but nor of in on at to for from by with about as into onto over under
    than then is are was were be been am do does did i me my you your it its we our they
    their he she his her this that these those there here what what's whats which who how
    when where why whether if please can could would will shall should may might also too
    just some any tell show give get let let's lets no not""".split()  # noqa: SIM905
)


# The project's readme, named without its extension: "show me the readme", "The README
# heading"; not readmes in general ("the README of a small tool", "README files").
THE_README = re.compile(
    r"\b(?:the|my|our|this|your) (readme)(?:['’]s)?\b(?!\.\w| (?:of|for|files?)\b)", re.I
)
_README = "README.md"


def request_words(text: str) -> list[str]:
    """The request's words as a value could use them: split on white space, outer
    punctuation removed ("notes.txt:" -> "notes.txt"), in order, repeats kept."""
    readme = THE_README.search(text)
    if readme:
        text = f"{text[: readme.start(1)]}{_README}{text[readme.end() :]}"
    raws = text.split()
    words = (
        (None if _names_a_kind(raws[max(i - 1, 0) : i], raws[i + 1 : i + 2]) else _dotfile(raw))
        or raw.strip(OUTER_PUNCTUATION)
        for i, raw in enumerate(raws)
    )
    return [word for word in words if word and not UNUSABLE.search(word)][:MAX_WORDS]


def _names_a_kind(before: list[str], after: list[str]) -> bool:
    """Whether the words around a dotted one say it is a kind of file (".py files", "a .md
    file"), not a file's name ("the .gitignore file")."""
    following = after[0].lower().strip(OUTER_PUNCTUATION) if after else ""
    if following in ("files", "extension", "extensions"):
        return True
    return following == "file" and bool(before) and before[0].lower() in _ANY_ONE


_ANY_ONE = frozenset({"a", "an", "any", "every", "each", "one"})


def _dotfile(raw: str) -> str | None:
    """A file whose name begins with a dot (".gitignore", ".env"), its dot kept."""
    name = raw.strip(OUTER_PUNCTUATION)
    opened = raw.lstrip(OUTER_PUNCTUATION.replace(".", ""))
    return f".{name}" if name and re.match(r"\.[A-Za-z]", opened) else None
