"""Reading a condition's text into its tree: tokens, then a recursive descent parser
that follows the grammar and bounds the nesting."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Final, TypeVar

from tiller.solve.conditions.errors import ConditionSyntaxError
from tiller.solve.conditions.tree import (
    COMPARISONS,
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

MAX_CONDITION_LENGTH: Final = 2000
MAX_CONDITION_DEPTH: Final = 32

_N = TypeVar("_N", bound="Node")


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


class Parser:
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
