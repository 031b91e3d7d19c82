"""Conditions: small expressions over a context, deciding whether a checkpoint fires.

A condition is a line of text such as

    iteration_count > 20
    "external" in step.effects
    plan.steps | length > 10 and goal.title | lower != "cleanup"

`parse_condition` reads it once into an immutable tree (`Condition`); evaluating
the tree can only read values from the context, compare them and do a little
arithmetic. Nothing in the text is ever run as Python.

Grammar, from the loosest binding to the tightest:

    condition  := or
    or         := and ("or" and)*
    and        := not ("and" not)*
    not        := "not" not | comparison
    comparison := sum [("==" | "!=" | "<" | "<=" | ">" | ">=" | "in" | "not" "in") sum]
    sum        := product (("+" | "-") product)*
    product    := negation (("*" | "/") negation)*
    negation   := "-" negation | filtered
    filtered   := postfix ("|" FILTER)*             FILTER: length, lower, upper
    postfix    := atom ("." WORD | "[" condition "]")*
    atom       := NUMBER | STRING | "true" | "false" | "null" | NAME
                | "(" condition ")" | "[" [condition ("," condition)* [","]] "]"

So `not a and b or c` reads as `((not a) and b) or c`, and `plan.steps | length > 10`
as `(plan.steps | length) > 10`. Comparisons do not chain: write `0 < x and x < 5`.
Numbers are `12`, `0.5`, `1e3`; strings take single or double quotes, with the
escapes `\\\\`, `\\'`, `\\"`, `\\n`, `\\t` and `\\r`; the keywords (`and`, `or`, `not`,
`in`, `true`, `false`, `null`) are lowercase and cannot be names, though they may
follow a dot (`step.not`). Spaces, tabs and line breaks between parts are ignored.

What each part means when evaluated:

- A name reads that key of the context. A name the context does not have is an
  error that names it (not null): a condition reading `step` where there is no
  step is a mistake that a quiet false would hide. A value that is present but
  empty is `null`, and `step_result != null and step_result.ok` tests for it.
- `a.b` reads key `b` of a mapping, or attribute `b` of any other object
  (dataclasses, pydantic models); a missing key or attribute is an error naming
  the path (`step.effect`). Attributes starting with `_` and methods cannot be read.
  `a[i]` reads item `i` of a list or string (a whole number; negative counts from
  the end) or key `i` of a mapping. An enum read from the context counts as its value.
- `==` and `!=` take any two values. Values of different kinds are unequal
  (`1 == "1"` and `true == 1` are false); numbers compare by value (`1 == 1.0`);
  lists and mappings compare item by item.
- `<`, `<=`, `>` and `>=` take two numbers or two strings; anything else is an error.
- `x in y` is true when `x` is a part of the string `y`, an item of the list or
  set `y`, or a key of the mapping `y`; `not in` is its opposite. Any other `y` is
  an error.
- `and`, `or` and `not` take true or false only (not numbers, lists or null);
  `and` and `or` read their right side only when the left does not decide.
- `+`, `-`, `*` and `/` take numbers only; `/` always gives a fraction, and
  dividing by zero is an error.
- `| length` counts a string, list, set or mapping; `| lower` and `| upper` change
  the case of a string.
- The whole condition must give true or false.

Every error found while evaluating is a `ConditionEvaluationError` whose message
says which part failed and why. Errors in the text are `ConditionSyntaxError`s,
raised by `parse_condition` with the line and column of the problem, what was
expected there, and the line with a caret under the spot.

The work is bounded: a condition is at most `MAX_CONDITION_LENGTH` characters and
nests at most `MAX_CONDITION_DEPTH` levels (brackets, operators applied to the
results of operators), so hostile text cannot exhaust the stack or the processor;
parsing takes time in proportion to the length of the text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tiller.solve.conditions.errors import (
    ConditionError,
    ConditionEvaluationError,
    ConditionSyntaxError,
)
from tiller.solve.conditions.evaluation import EvaluationFailure, evaluate, kind_of
from tiller.solve.conditions.parsing import MAX_CONDITION_DEPTH, MAX_CONDITION_LENGTH, Parser
from tiller.solve.conditions.tree import (
    FILTERS,
    KEYWORDS,
    Arithmetic,
    Attribute,
    Compare,
    Filter,
    Index,
    ListDisplay,
    Literal,
    Logical,
    Name,
    Negate,
    Node,
    Not,
)

__all__ = [
    "FILTERS",
    "KEYWORDS",
    "MAX_CONDITION_DEPTH",
    "MAX_CONDITION_LENGTH",
    "Arithmetic",
    "Attribute",
    "Compare",
    "Condition",
    "ConditionError",
    "ConditionEvaluationError",
    "ConditionSyntaxError",
    "Filter",
    "Index",
    "ListDisplay",
    "Literal",
    "Logical",
    "Name",
    "Negate",
    "Node",
    "Not",
    "parse_condition",
]


@dataclass(frozen=True)
class Condition:
    """A parsed condition: `text` as written and its `tree`. Two conditions are equal
    when their trees are, however they were spaced or bracketed; `str()` gives the
    tree's text with only the brackets it needs."""

    text: str = field(compare=False)
    tree: Node

    @property
    def names(self) -> tuple[str, ...]:
        """The context's keys that the condition reads, in the order they first appear."""
        found: dict[str, None] = {}
        pending = [self.tree]
        while pending:
            node = pending.pop()
            if isinstance(node, Name):
                found[node.name] = None
            pending.extend(reversed(node.children()))
        return tuple(found)

    def evaluate(self, context: Mapping[str, Any]) -> bool:
        """Whether the condition holds over `context` (names to values: plain data,
        dataclasses, pydantic models, any object with attributes). Raises
        `ConditionEvaluationError` saying what failed."""
        if not isinstance(context, Mapping):
            raise ConditionEvaluationError(
                f"a condition is evaluated over a mapping of names to values, not "
                f"{type(context).__name__} (condition: {self.text})"
            )
        try:
            result = evaluate(self.tree, context)
            if not isinstance(result, bool):
                raise EvaluationFailure(f"the condition gives {kind_of(result)}, not true or false")
        except EvaluationFailure as failure:
            raise ConditionEvaluationError(f"{failure} (condition: {self.text})") from None
        except RecursionError:
            raise ConditionEvaluationError(
                f"the values are nested too deeply to compare (condition: {self.text})"
            ) from None
        return result

    def __str__(self) -> str:
        return str(self.tree)


def parse_condition(text: str) -> Condition:
    """Parses `text` into a `Condition`, or raises `ConditionSyntaxError` with the
    line and column of the first problem, what was expected there, and a caret line.

        >>> parse_condition('"external" in step.effects').names
        ('step',)
    """
    if not isinstance(text, str):
        raise TypeError(f"a condition is text, not {type(text).__name__}")
    if len(text) > MAX_CONDITION_LENGTH:
        raise ConditionSyntaxError(
            text,
            MAX_CONDITION_LENGTH,
            f"a condition of at most {MAX_CONDITION_LENGTH} characters",
            f"{len(text)} characters",
        )
    if not text.strip():
        raise ConditionSyntaxError(text, len(text), "a condition", "nothing")
    return Condition(text, Parser(text).condition())
