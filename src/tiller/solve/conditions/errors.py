"""What goes wrong with a condition: text that does not follow the grammar, or a
value an operator does not take when it is evaluated."""

from __future__ import annotations

from tiller.errors import ConfigError

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
