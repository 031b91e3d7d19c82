"""A parsed condition's tree: one node class per part of the grammar, and the
printing that gives a tree back as text with only the brackets it needs."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Final

FILTERS: Final = ("length", "lower", "upper")
KEYWORDS: Final = frozenset({"and", "or", "not", "in", "true", "false", "null"})
COMPARISONS: Final = ("==", "!=", "<", "<=", ">", ">=", "in", "not in")

# Binding strength, loosest first; the printer brackets a part that binds more
# loosely than its place needs.
_OR, _AND, _NOT, _COMPARE, _SUM, _PRODUCT, _NEGATE, _FILTER, _POSTFIX, _ATOM = range(1, 11)


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
