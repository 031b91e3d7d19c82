"""Evaluating a condition's tree over a context: reading values, comparing them and a
little arithmetic, each kind of value checked before it is used."""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from enum import Enum
from typing import Any

from tiller.solve.conditions.tree import (
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


class EvaluationFailure(Exception):
    """Why evaluating failed; `Condition.evaluate` adds the condition's text."""


def kind_of(value: object) -> str:
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
        raise EvaluationFailure(
            f"comparing {kind_of(a)} with {kind_of(b)} failed: {error}"
        ) from None


def evaluate(tree: Node, context: Mapping[str, Any]) -> Any:
    """The value of `tree` over `context`, or `EvaluationFailure` saying what failed."""
    return _Evaluator(context).value(tree)


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
                    raise EvaluationFailure(f"unknown name '{name}' (the context has {known})")
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
                    raise EvaluationFailure(f"'-' takes a number; {operand} is {kind_of(value)}")
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
        raise EvaluationFailure(f"not a condition node: {node!r}")

    def truth(self, node: Node, op: str) -> bool:
        value = self.value(node)
        if not isinstance(value, bool):
            raise EvaluationFailure(f"'{op}' takes true or false; {node} is {kind_of(value)}")
        return value

    def attribute(self, target: Any, node: Attribute, name: str) -> Any:
        where = str(node.target)
        if isinstance(target, Mapping):
            if name not in target:
                keys = ", ".join(sorted(map(str, target))[:20]) or "none"
                raise EvaluationFailure(
                    f"{node} does not exist: {where} has no key '{name}' (its keys: {keys})"
                )
            return self.read(target, name, node)
        if target is None:
            raise EvaluationFailure(f"cannot read {node}: {where} is null")
        if isinstance(target, bool | int | float | str | bytes | bytearray | Set) or _is_list(
            target
        ):
            raise EvaluationFailure(
                f"cannot read {node}: {where} is {kind_of(target)}, which has no '{name}'"
            )
        if name.startswith("_"):
            raise EvaluationFailure(f"cannot read {node}: names starting with '_' are private")
        try:
            value = getattr(target, name)
        except AttributeError:
            raise EvaluationFailure(
                f"{node} does not exist: {where} ({type(target).__name__}) "
                f"has no attribute '{name}'"
            ) from None
        except Exception as error:
            raise EvaluationFailure(
                f"reading {node} failed: {type(error).__name__}: {error}"
            ) from None
        if callable(value):
            raise EvaluationFailure(f"cannot read {node}: it is a method, not a value")
        return value

    def index(self, target: Any, key: Any, node: Index) -> Any:
        where = str(node.target)
        if _is_list(target) or isinstance(target, str):
            if not isinstance(key, int) or isinstance(key, bool):
                raise EvaluationFailure(
                    f"{node}: an index into {kind_of(target)} is a whole number, not {kind_of(key)}"
                )
            if not -len(target) <= key < len(target):
                raise EvaluationFailure(
                    f"{node} does not exist: index {key} is out of range ({where} has "
                    f"{len(target)} item{'' if len(target) == 1 else 's'})"
                )
            return self.read(target, key, node)
        if isinstance(target, Mapping):
            for candidate in target:
                if _equal(_plain(candidate), key):
                    return self.read(target, candidate, node)
            keys = ", ".join(sorted(map(str, target))[:20]) or "none"
            raise EvaluationFailure(
                f"{node} does not exist: {where} has no key {_show(key)} (its keys: {keys})"
            )
        if target is None:
            raise EvaluationFailure(f"cannot read {node}: {where} is null")
        if isinstance(key, str) and not _is_number(target) and not isinstance(target, bool | Set):
            return self.attribute(target, Attribute(node.target, key), key)
        raise EvaluationFailure(
            f"cannot read {node}: {where} is {kind_of(target)}, which has no items"
        )

    def read(self, target: Any, key: Any, node: Node) -> Any:
        try:
            return target[key]
        except Exception as error:
            raise EvaluationFailure(
                f"reading {node} failed: {type(error).__name__}: {error}"
            ) from None

    def filter(self, name: str, value: Any, operand: Node) -> Any:
        if name == "length":
            if isinstance(value, str | Mapping | Set) or _is_list(value):
                return len(value)
            raise EvaluationFailure(
                f"'length' counts a string, list, set or mapping; {operand} is {kind_of(value)}"
            )
        if not isinstance(value, str):
            raise EvaluationFailure(f"'{name}' takes a string; {operand} is {kind_of(value)}")
        return value.lower() if name == "lower" else value.upper()

    def arithmetic(self, node: Arithmetic, op: str, left: Any, right: Any) -> Any:
        for side, value in ((node.left, left), (node.right, right)):
            if not _is_number(value):
                raise EvaluationFailure(f"'{op}' takes numbers; {side} is {kind_of(value)}")
        try:
            if op == "+":
                return left + right
            if op == "-":
                return left - right
            if op == "*":
                return left * right
            if right == 0:
                raise EvaluationFailure(f"{node} divides by zero")
            return left / right
        except OverflowError:
            raise EvaluationFailure(f"{node} gives a number too large to work with") from None

    def compare(self, node: Compare, op: str, left: Any, right: Any) -> bool:
        if op in ("==", "!="):
            return _equal(left, right) == (op == "==")
        if op in ("in", "not in"):
            return self.member(node, left, right) == (op == "in")
        if not (
            (_is_number(left) and _is_number(right))
            or (isinstance(left, str) and isinstance(right, str))
        ):
            raise EvaluationFailure(
                f"'{op}' compares two numbers or two strings; {node.left} is {kind_of(left)} "
                f"and {node.right} is {kind_of(right)}"
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
                raise EvaluationFailure(
                    f"'{node.op}' looks for a string in a string; {node.left} is {kind_of(item)}"
                )
            return item in container
        if _is_list(container) or isinstance(container, Mapping | Set):
            return any(_equal(item, _plain(candidate)) for candidate in container)
        raise EvaluationFailure(
            f"'{node.op}' looks in a string, list, set or mapping; "
            f"{node.right} is {kind_of(container)}"
        )


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    return (
        str(Literal(value))
        if value is None or _is_number(value) or isinstance(value, bool)
        else kind_of(value)
    )
