"""How relevant each message is to the current topic: a pluggable scorer, lexical by default.

A scorer gets the query (the latest user message) and the texts of the
candidates, and returns one relevance in [0, 1] per candidate; it may be async
(an embedding model, say). Scoring all candidates in one call lets a lexical
scorer weigh words by how rare they are across the conversation.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Awaitable, Sequence
from typing import Protocol

_WORD = re.compile(r"\w+")


class RelevanceScorer(Protocol):
    def __call__(
        self, query: str, documents: Sequence[str]
    ) -> Sequence[float] | Awaitable[Sequence[float]]: ...


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class LexicalRelevance:
    """The share of the query's information a document covers: the IDF-weighted
    fraction of the query's words that occur in the document.

    Words are weighed by how rare they are across the candidates (smoothed
    inverse document frequency), so "file0.txt" counts for more than "the";
    query words found in no candidate say nothing about which one is relevant
    and are left out. Unlike a cosine of TF-IDF vectors, a long tool output that
    mentions the topic is not diluted by its length. Needs no model and is
    linear in the text.
    """

    name = "lexical"

    def __call__(self, query: str, documents: Sequence[str]) -> list[float]:
        query_terms = set(words(query))
        docs = [query_terms.intersection(words(d)) for d in documents]
        frequency: Counter[str] = Counter()
        for found in docs:
            frequency.update(found)
        n = len(docs)
        weight = {t: math.log((1 + n) / (1 + f)) + 1.0 for t, f in frequency.items()}
        whole = sum(weight.values())
        if not whole:
            return [0.0] * n
        return [sum(weight[t] for t in found) / whole for found in docs]
