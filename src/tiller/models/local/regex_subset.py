"""Patterns in the regex subset llama.cpp turns into a grammar.

It has no back-references or rules, so "any run of these words in order" is written
out in full, and only some escapes are known to its parser.
"""

from __future__ import annotations

from tiller.models.local.request_words import POSSESSIVE


def in_order(items: list[str], separator: str) -> str:
    """Any run of `items` in their order, each at most once, joined by `separator`.

    Written out once per first item, O(n²) in size: the regex subset has no
    back-references or rules."""
    branches = dict.fromkeys(
        first + "".join(f"({separator}{later})?" for later in items[i + 1 :])
        for i, first in enumerate(items)
    )
    return f"^({'|'.join(branches)})$"


def word_pattern(word: str) -> str:
    """`word` as written, a possessive optional ("tokyo's" or "tokyo")."""
    possessive = POSSESSIVE.match(word)
    if possessive:
        return f"{literal(possessive[1])}({literal(possessive[2])})?"
    return literal(word)


def literal(word: str) -> str:
    # llama.cpp's converter reads `\` + one of []()|{}*+? as that character; a dot is
    # written as a class because `\.` is not an escape its grammar parser knows.
    out = []
    for char in word:
        if char == ".":
            out.append("[.]")
        elif char in "[]()|{}*+?":
            out.append("\\" + char)
        else:
            out.append(char)
    return "".join(out)
