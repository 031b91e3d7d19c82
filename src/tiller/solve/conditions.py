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

import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence, Set
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any, Final, TypeVar

from tiller.errors import ConfigError

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

MAX_CONDITION_LENGTH: Final = 2000
MAX_CONDITION_DEPTH: Final = 32

FILTERS: Final = ("length", "lower", "upper")
KEYWORDS: Final = frozenset({"and", "or", "not", "in", "true", "false", "null"})
COMPARISONS: Final = ("==", "!=", "<", "<=", ">", ">=", "in", "not in")

# Binding strength, loosest first; the printer brackets a part that binds more
# loosely than its place needs.
_OR, _AND, _NOT, _COMPARE, _SUM, _PRODUCT, _NEGATE, _FILTER, _POSTFIX, _ATOM = range(1, 11)

_N = TypeVar("_N", bound="Node")

# What a caret line shows of a long line, either side of the caret.
_EXCERPT = 40


class ConditionError(ConfigError, ValueError):
    """A condition that cannot be read, or that failed when evaluated."""


class ConditionSyntaxError(ConditionError):
    """A condition's text does not follow the grammar.

    `line` and `column` (both from 1) locate the problem, `expected` says what
    could have stood there and `found` what did; the message ends with the line of
    text and a caret under the spot."""

    def __init__(self, text: str, offset: int, expected: str, found: str, hint: str = "") -> None:
        self.text = text
        self.offset = offset
        self.expected = expected
        self.found = found
        before = text[:offset]
        self.line = before.count("\n") + 1
        start = before.rfind("\n") + 1
        end = text.find("\n", offset)
        self.column = offset - start + 1
        where = (
            f"line {self.line}, column {self.column}" if "\n" in text else f"column {self.column}"
        )
        problem = f"expected {expected}, found {found} at {where}"
        if hint:
            problem += f" ({hint})"
        excerpt, caret = _caret(text[start : len(text) if end < 0 else end], offset - start)
        super().__init__(f"{problem}\n  {excerpt}\n  {caret}")


class ConditionEvaluationError(ConditionError):
    """A condition could not be evaluated over a context: a name or path it reads is
    missing, or a value is of a kind its operator does not take."""


def _caret(line: str, at: int) -> tuple[str, str]:
    """The line, cut to about 80 characters around `at`, and a caret under `at`."""
    first = max(0, at - _EXCERPT)
    shown = line[first : at + _EXCERPT]
    prefix = "…" if first else ""
    suffix = "…" if at + _EXCERPT < len(line) else ""
    # Keep tabs so that the caret lines up under text that has them.
    pad = "".join(c if c == "\t" else " " for c in prefix + shown[: at - first])
    return prefix + shown + suffix, pad + "^"


# ── The tree ───────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Node:
    """A part of a parsed condition. `str(node)` prints it back as text that parses
    to an equal tree."""

    def children(self) -> tuple[Node, ...]:
        """The nodes directly inside this one, in the order they are written."""
        found: list[Node] = []
        for part in fields(self):
            value = getattr(self, part.name)
            if isinstance(value, Node):
                found.append(value)
            elif isinstance(value, tuple):
                found.extend(value)
        return tuple(found)

    def __str__(self) -> str:
        return _print(self)[0]


@dataclass(frozen=True)
class Literal(Node):
    """A number, string, `true`, `false` or `null` written in the text."""

    value: bool | int | float | str | None

    # `true` is not `1` and `1` is not `1.0`: the kind of the value counts.
    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Literal)
            and type(self.value) is type(other.value)
            and self.value == other.value
        )

    def __hash__(self) -> int:
        return hash((type(self.value), self.value))


@dataclass(frozen=True)
class Name(Node):
    """A key of the context."""

    name: str


@dataclass(frozen=True)
class Attribute(Node):
    """`target.name`: a key of a mapping, or an attribute of an object."""

    target: Node
    name: str


@dataclass(frozen=True)
class Index(Node):
    """`target[index]`: an item of a list or string, or a key of a mapping."""

    target: Node
    index: Node


@dataclass(frozen=True)
class ListDisplay(Node):
    """`[a, b, …]`: a list written in the text."""

    items: tuple[Node, ...]


@dataclass(frozen=True)
class Filter(Node):
    """`operand | name`: one of `FILTERS` applied to a value."""

    operand: Node
    name: str


@dataclass(frozen=True)
class Negate(Node):
    """`-operand`, of a number."""

    operand: Node


@dataclass(frozen=True)
class Arithmetic(Node):
    """`left op right` with `op` one of `+ - * /`, on numbers."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Compare(Node):
    """`left op right` with `op` one of `COMPARISONS`."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Not(Node):
    """`not operand`, of true or false."""

    operand: Node


@dataclass(frozen=True)
class Logical(Node):
    """`a and b and …` or `a or b or …` (`op` is `"and"` or `"or"`), at least two operands."""

    op: str
    operands: tuple[Node, ...]


# ── Printing ───────────────────────────────────────────────────────────────────

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _print(node: Node) -> tuple[str, int]:
    """The node's text and how tightly it binds."""
    match node:
        case Literal(value=None):
            return "null", _ATOM
        case Literal(value=bool() as flag):
            return ("true" if flag else "false"), _ATOM
        case Literal(value=str() as text):
            return '"' + "".join(_ESCAPES.get(c, c) for c in text) + '"', _ATOM
        case Literal(value=number):
            return repr(number), _ATOM
        case Name(name=name):
            return name, _ATOM
        case Attribute(target=target, name=name):
            return f"{_part(target, _POSTFIX)}.{name}", _POSTFIX
        case Index(target=target, index=index):
            return f"{_part(target, _POSTFIX)}[{_part(index, _OR)}]", _POSTFIX
        case ListDisplay(items=items):
            return "[" + ", ".join(_part(item, _OR) for item in items) + "]", _ATOM
        case Filter(operand=operand, name=name):
            return f"{_part(operand, _FILTER)} | {name}", _FILTER
        case Negate(operand=operand):
            return "-" + _part(operand, _NEGATE), _NEGATE
        case Arithmetic(op=op, left=left, right=right):
            strength = _SUM if op in "+-" else _PRODUCT
            return f"{_part(left, strength)} {op} {_part(right, strength + 1)}", strength
        case Compare(op=op, left=left, right=right):
            return f"{_part(left, _SUM)} {op} {_part(right, _SUM)}", _COMPARE
        case Not(operand=operand):
            return "not " + _part(operand, _NOT), _NOT
        case Logical(op=op, operands=operands):
            strength = _OR if op == "or" else _AND
            return f" {op} ".join(_part(o, strength + 1) for o in operands), strength
    raise TypeError(f"not a condition node: {node!r}")


def _part(node: Node, needed: int) -> str:
    text, strength = _print(node)
    return text if strength >= needed else f"({text})"


# ── Reading the text ───────────────────────────────────────────────────────────


@dataclass(frozen=True)
class _Token:
    kind: str  # number, string, name, keyword, op, end
    text: str  # as written
    offset: int
    value: int | float | str | None = None

    def describe(self) -> str:
        if self.kind == "end":
            return "the end of the condition"
        if self.kind == "string":
            return "a string"
        if self.kind == "number":
            return f"the number {self.text}"
        return f"'{self.text}'"


_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPERATORS = (
    "==",
    "!=",
    "<=",
    ">=",
    "<",
    ">",
    "+",
    "-",
    "*",
    "/",
    "|",
    ".",
    "[",
    "]",
    "(",
    ")",
    ",",
)
_STRING_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "t": "\t", "r": "\r"}
_PYTHON_WORDS = {"True": "true", "False": "false", "None": "null"}
_MISTAKES = {
    "&&": "write 'and'",
    "||": "write 'or'",
    "&": "write 'and'",
    "!": "write 'not'",
    "=": "write '==' to compare",
}


def _tokens(text: str) -> list[_Token]:
    found: list[_Token] = []
    at = 0
    while at < len(text):
        char = text[at]
        if char in " \t\r\n":
            at += 1
            continue
        for mistake, hint in _MISTAKES.items():
            if text.startswith(mistake, at) and not text.startswith(("==", "!="), at):
                raise ConditionSyntaxError(text, at, "an operator or a value", f"'{mistake}'", hint)
        if number := _NUMBER.match(text, at):
            end = number.end()
            if end < len(text) and (text[end].isalnum() or text[end] == "_"):
                word = _WORD.match(text, end)
                bad = text[at : word.end() if word else end + 1]
                raise ConditionSyntaxError(text, at, "a number", f"'{bad}'")
            written = number.group()
            value: int | float
            if any(c in written for c in ".eE"):
                value = float(written)
                if not math.isfinite(value):
                    raise ConditionSyntaxError(
                        text, at, "a number of at most about 1.8e308", f"'{written}'"
                    )
            else:
                value = int(written)
            found.append(_Token("number", written, at, value))
            at = end
        elif word := _WORD.match(text, at):
            written = word.group()
            kind = "keyword" if written in KEYWORDS else "name"
            found.append(_Token(kind, written, at, written))
            at = word.end()
        elif char in "'\"":
            at = _string(text, at, found)
        elif operator := next((o for o in _OPERATORS if text.startswith(o, at)), None):
            found.append(_Token("op", operator, at))
            at += len(operator)
        else:
            shown = f"'{char}'" if char.isprintable() else repr(char)
            raise ConditionSyntaxError(text, at, "an operator or a value", shown)
    found.append(_Token("end", "", len(text)))
    return found


def _string(text: str, start: int, found: list[_Token]) -> int:
    """Reads the string opening at `start` into `found`; returns where it ends."""
    quote = text[start]
    chars: list[str] = []
    at = start + 1
    while at < len(text):
        char = text[at]
        if char == quote:
            found.append(_Token("string", text[start : at + 1], start, "".join(chars)))
            return at + 1
        if char == "\\":
            escaped = text[at + 1 : at + 2]
            if escaped not in _STRING_ESCAPES:
                shown = f"'\\{escaped}'" if escaped else "'\\' at the end of the condition"
                raise ConditionSyntaxError(
                    text, at, "one of the escapes \\\\ \\' \\\" \\n \\t \\r", shown
                )
            chars.append(_STRING_ESCAPES[escaped])
            at += 2
            continue
        chars.append(char)
        at += 1
    raise ConditionSyntaxError(
        text,
        len(text),
        f"{quote} to close the string that opens at column {_column(text, start)}",
        "the end of the condition",
    )


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.at = 0
        self.nesting = 0
        self.depths: dict[int, int] = {}  # id(node) → its depth, while parsing

    # Tokens.

    def peek(self, ahead: int = 0) -> _Token:
        return self.tokens[min(self.at + ahead, len(self.tokens) - 1)]

    def advance(self) -> _Token:
        token = self.peek()
        self.at += 1
        return token

    def accept(self, kind: str, text: str) -> _Token | None:
        token = self.peek()
        if token.kind == kind and token.text == text:
            self.at += 1
            return token
        return None

    def expect(self, text: str, what: str) -> None:
        if self.accept("op", text) is None:
            raise self.error(what)

    def error(self, expected: str, token: _Token | None = None, hint: str = "") -> Exception:
        token = token or self.peek()
        return ConditionSyntaxError(self.text, token.offset, expected, token.describe(), hint)

    # Bounds: how deep the parser recurses, and how deep the tree grows.

    @contextmanager
    def nested(self, token: _Token) -> Iterator[None]:
        self.nesting += 1
        if self.nesting > MAX_CONDITION_DEPTH:
            raise self.too_deep(token)
        yield
        self.nesting -= 1

    def too_deep(self, token: _Token) -> Exception:
        return ConditionSyntaxError(
            self.text,
            token.offset,
            f"at most {MAX_CONDITION_DEPTH} levels of nesting",
            "a part nested more deeply",
        )

    def node(self, node: _N, token: _Token) -> _N:
        depth = 1 + max((self.depths[id(child)] for child in node.children()), default=0)
        if depth > MAX_CONDITION_DEPTH:
            raise self.too_deep(token)
        self.depths[id(node)] = depth
        return node

    # The grammar, loosest binding first.

    def condition(self) -> Node:
        node = self.or_()
        if self.peek().kind != "end":
            raise self.error("an operator or the end of the condition")
        return node

    def or_(self) -> Node:
        return self.logical("or", self.and_)

    def and_(self) -> Node:
        return self.logical("and", self.not_)

    def logical(self, op: str, operand: Callable[[], Node]) -> Node:
        first = self.peek()
        operands: list[Node] = [operand()]
        while self.accept("keyword", op):
            operands.append(operand())
        if len(operands) == 1:
            return operands[0]
        return self.node(Logical(op, tuple(operands)), first)

    def not_(self) -> Node:
        token = self.peek()
        if self.accept("keyword", "not"):
            with self.nested(token):
                return self.node(Not(self.not_()), token)
        return self.comparison()

    def comparison_operator(self) -> str | None:
        token = self.peek()
        if token.kind == "op" and token.text in COMPARISONS:
            return token.text
        if token.kind == "keyword" and token.text == "in":
            return "in"
        if token.text == "not" and self.peek(1).text == "in" and self.peek(1).kind == "keyword":
            return "not in"
        return None

    def comparison(self) -> Node:
        left = self.sum()
        token = self.peek()
        op = self.comparison_operator()
        if op is None:
            return left
        self.at += 2 if op == "not in" else 1
        right = self.sum()
        if self.comparison_operator() is not None:
            raise self.error("'and' or 'or' between comparisons", hint="comparisons do not chain")
        return self.node(Compare(op, left, right), token)

    def sum(self) -> Node:
        return self.arithmetic(("+", "-"), self.product)

    def product(self) -> Node:
        return self.arithmetic(("*", "/"), self.negation)

    def arithmetic(self, ops: tuple[str, ...], operand: Callable[[], Node]) -> Node:
        node: Node = operand()
        while (token := self.peek()).kind == "op" and token.text in ops:
            self.advance()
            node = self.node(Arithmetic(token.text, node, operand()), token)
        return node

    def negation(self) -> Node:
        token = self.peek()
        if self.accept("op", "-"):
            with self.nested(token):
                return self.node(Negate(self.negation()), token)
        return self.filtered()

    def filtered(self) -> Node:
        node = self.postfix()
        while token := self.accept("op", "|"):
            name = self.peek()
            if name.kind not in ("name", "keyword") or name.text not in FILTERS:
                raise self.error("a filter: " + ", ".join(FILTERS), name)
            self.advance()
            node = self.node(Filter(node, name.text), token)
        return node

    def postfix(self) -> Node:
        node = self.atom()
        while True:
            token = self.peek()
            if self.accept("op", "."):
                name = self.peek()
                if name.kind not in ("name", "keyword"):
                    raise self.error("a name after '.'")
                self.advance()
                node = self.node(Attribute(node, name.text), token)
            elif self.accept("op", "["):
                with self.nested(token):
                    index = self.or_()
                    self.expect("]", "']' to close the '[' at column " + self.column(token))
                node = self.node(Index(node, index), token)
            else:
                return node

    def atom(self) -> Node:
        token = self.peek()
        if token.kind in ("number", "string"):
            self.advance()
            return self.node(Literal(token.value), token)
        if token.kind == "keyword" and token.text in ("true", "false", "null"):
            self.advance()
            value = {"true": True, "false": False, "null": None}[token.text]
            return self.node(Literal(value), token)
        if token.kind == "name":
            if token.text in _PYTHON_WORDS:
                raise self.error("a value", token, f"write {_PYTHON_WORDS[token.text]}")
            self.advance()
            return self.node(Name(token.text), token)
        if self.accept("op", "("):
            with self.nested(token):
                node = self.or_()
                self.expect(")", "')' to close the '(' at column " + self.column(token))
            return node
        if self.accept("op", "["):
            with self.nested(token):
                items: list[Node] = []
                while not self.accept("op", "]"):
                    items.append(self.or_())
                    if not self.accept("op", ","):
                        self.expect(
                            "]", "',' or ']' to close the '[' at column " + self.column(token)
                        )
                        break
            return self.node(ListDisplay(tuple(items)), token)
        raise self.error("a value", token)

    def column(self, token: _Token) -> str:
        return str(_column(self.text, token.offset))


def _column(text: str, offset: int) -> int:
    return offset - text.rfind("\n", 0, offset)


# ── The condition ──────────────────────────────────────────────────────────────


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
            result = _Evaluator(context).value(self.tree)
            if not isinstance(result, bool):
                raise _Failure(f"the condition gives {_kind(result)}, not true or false")
        except _Failure as failure:
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
    return Condition(text, _Parser(text).condition())


# ── Evaluating ─────────────────────────────────────────────────────────────────


class _Failure(Exception):
    """Why evaluating failed; `Condition.evaluate` adds the condition's text."""


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({'true' if value else 'false'})"
    if _is_number(value):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if _is_list(value):
        return "a list"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, Set):
        return "a set"
    return f"an object ({type(value).__name__})"


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_list(value: object) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray)


def _plain(value: Any) -> Any:
    """An enum counts as its value."""
    while isinstance(value, Enum):
        value = value.value
    return value


def _equal(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_number(a) or _is_number(b):
        return _is_number(a) and _is_number(b) and a == b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if _is_list(a) or _is_list(b):
        return (
            _is_list(a)
            and _is_list(b)
            and len(a) == len(b)
            and all(_equal(_plain(x), _plain(y)) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, Mapping) or isinstance(b, Mapping):
        return (
            isinstance(a, Mapping)
            and isinstance(b, Mapping)
            and len(a) == len(b)
            and all(key in b and _equal(_plain(a[key]), _plain(b[key])) for key in a)
        )
    try:
        return bool(a == b)
    except Exception as error:
        raise _Failure(f"comparing {_kind(a)} with {_kind(b)} failed: {error}") from None


class _Evaluator:
    def __init__(self, context: Mapping[str, Any]) -> None:
        self.context = context

    def value(self, node: Node) -> Any:
        match node:
            case Literal(value=value):
                return value
            case Name(name=name):
                if name not in self.context:
                    known = ", ".join(sorted(map(str, self.context))[:20]) or "nothing"
                    raise _Failure(f"unknown name '{name}' (the context has {known})")
                return _plain(self.context[name])
            case Attribute(target=target, name=name):
                return _plain(self.attribute(self.value(target), node, name))
            case Index(target=target, index=index):
                return _plain(self.index(self.value(target), self.value(index), node))
            case ListDisplay(items=items):
                return [self.value(item) for item in items]
            case Filter(operand=operand, name=name):
                return self.filter(name, self.value(operand), operand)
            case Negate(operand=operand):
                value = self.value(operand)
                if not _is_number(value):
                    raise _Failure(f"'-' takes a number; {operand} is {_kind(value)}")
                return -value
            case Arithmetic(op=op, left=left, right=right):
                return self.arithmetic(node, op, self.value(left), self.value(right))
            case Compare(op=op, left=left, right=right):
                return self.compare(node, op, self.value(left), self.value(right))
            case Not(operand=operand):
                return not self.truth(operand, "not")
            case Logical(op="and", operands=operands):
                return all(self.truth(operand, "and") for operand in operands)
            case Logical(op="or", operands=operands):
                return any(self.truth(operand, "or") for operand in operands)
        raise _Failure(f"not a condition node: {node!r}")

    def truth(self, node: Node, op: str) -> bool:
        value = self.value(node)
        if not isinstance(value, bool):
            raise _Failure(f"'{op}' takes true or false; {node} is {_kind(value)}")
        return value

    def attribute(self, target: Any, node: Attribute, name: str) -> Any:
        where = str(node.target)
        if isinstance(target, Mapping):
            if name not in target:
                keys = ", ".join(sorted(map(str, target))[:20]) or "none"
                raise _Failure(
                    f"{node} does not exist: {where} has no key '{name}' (its keys: {keys})"
                )
            return self.read(target, name, node)
        if target is None:
            raise _Failure(f"cannot read {node}: {where} is null")
        if isinstance(target, bool | int | float | str | bytes | bytearray | Set) or _is_list(
            target
        ):
            raise _Failure(f"cannot read {node}: {where} is {_kind(target)}, which has no '{name}'")
        if name.startswith("_"):
            raise _Failure(f"cannot read {node}: names starting with '_' are private")
        try:
            value = getattr(target, name)
        except AttributeError:
            raise _Failure(
                f"{node} does not exist: {where} ({type(target).__name__}) "
                f"has no attribute '{name}'"
            ) from None
        except Exception as error:
            raise _Failure(f"reading {node} failed: {type(error).__name__}: {error}") from None
        if callable(value):
            raise _Failure(f"cannot read {node}: it is a method, not a value")
        return value

    def index(self, target: Any, key: Any, node: Index) -> Any:
        where = str(node.target)
        if _is_list(target) or isinstance(target, str):
            if not isinstance(key, int) or isinstance(key, bool):
                raise _Failure(
                    f"{node}: an index into {_kind(target)} is a whole number, not {_kind(key)}"
                )
            if not -len(target) <= key < len(target):
                raise _Failure(
                    f"{node} does not exist: index {key} is out of range ({where} has "
                    f"{len(target)} item{'' if len(target) == 1 else 's'})"
                )
            return self.read(target, key, node)
        if isinstance(target, Mapping):
            for candidate in target:
                if _equal(_plain(candidate), key):
                    return self.read(target, candidate, node)
            keys = ", ".join(sorted(map(str, target))[:20]) or "none"
            raise _Failure(
                f"{node} does not exist: {where} has no key {_show(key)} (its keys: {keys})"
            )
        if target is None:
            raise _Failure(f"cannot read {node}: {where} is null")
        if isinstance(key, str) and not _is_number(target) and not isinstance(target, bool | Set):
            return self.attribute(target, Attribute(node.target, key), key)
        raise _Failure(f"cannot read {node}: {where} is {_kind(target)}, which has no items")

    def read(self, target: Any, key: Any, node: Node) -> Any:
        try:
            return target[key]
        except Exception as error:
            raise _Failure(f"reading {node} failed: {type(error).__name__}: {error}") from None

    def filter(self, name: str, value: Any, operand: Node) -> Any:
        if name == "length":
            if isinstance(value, str | Mapping | Set) or _is_list(value):
                return len(value)
            raise _Failure(
                f"'length' counts a string, list, set or mapping; {operand} is {_kind(value)}"
            )
        if not isinstance(value, str):
            raise _Failure(f"'{name}' takes a string; {operand} is {_kind(value)}")
        return value.lower() if name == "lower" else value.upper()

    def arithmetic(self, node: Arithmetic, op: str, left: Any, right: Any) -> Any:
        for side, value in ((node.left, left), (node.right, right)):
            if not _is_number(value):
                raise _Failure(f"'{op}' takes numbers; {side} is {_kind(value)}")
        try:
            if op == "+":
                return left + right
            if op == "-":
                return left - right
            if op == "*":
                return left * right
            if right == 0:
                raise _Failure(f"{node} divides by zero")
            return left / right
        except OverflowError:
            raise _Failure(f"{node} gives a number too large to work with") from None

    def compare(self, node: Compare, op: str, left: Any, right: Any) -> bool:
        if op in ("==", "!="):
            return _equal(left, right) == (op == "==")
        if op in ("in", "not in"):
            return self.member(node, left, right) == (op == "in")
        if not (
            (_is_number(left) and _is_number(right))
            or (isinstance(left, str) and isinstance(right, str))
        ):
            raise _Failure(
                f"'{op}' compares two numbers or two strings; {node.left} is {_kind(left)} "
                f"and {node.right} is {_kind(right)}"
            )
        if op == "<":
            return bool(left < right)
        if op == "<=":
            return bool(left <= right)
        if op == ">":
            return bool(left > right)
        return bool(left >= right)

    def member(self, node: Compare, item: Any, container: Any) -> bool:
        if isinstance(container, str):
            if not isinstance(item, str):
                raise _Failure(
                    f"'{node.op}' looks for a string in a string; {node.left} is {_kind(item)}"
                )
            return item in container
        if _is_list(container) or isinstance(container, Mapping | Set):
            return any(_equal(item, _plain(candidate)) for candidate in container)
        raise _Failure(
            f"'{node.op}' looks in a string, list, set or mapping; "
            f"{node.right} is {_kind(container)}"
        )


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    return (
        str(Literal(value))
        if value is None or _is_number(value) or isinstance(value, bool)
        else _kind(value)
    )
