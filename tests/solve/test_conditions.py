"""Conditions: the grammar, what each operator means, errors with their positions, the bounds."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from pydantic import BaseModel

from tiller.solve.conditions import (
    FILTERS,
    KEYWORDS,
    MAX_CONDITION_DEPTH,
    MAX_CONDITION_LENGTH,
    Arithmetic,
    Attribute,
    Compare,
    Condition,
    ConditionError,
    ConditionEvaluationError,
    ConditionSyntaxError,
    Filter,
    Index,
    ListDisplay,
    Literal,
    Logical,
    Name,
    Negate,
    Node,
    Not,
    parse_condition,
)


class Kind(StrEnum):
    READ = "read"
    EXTERNAL = "external"


class Level(Enum):
    LOW = 1


@dataclass
class Step:
    index: int
    effects: list[str]
    kind: Kind = Kind.READ
    level: Level = Level.LOW
    _secret: str = "hidden"
    arguments: dict[str, Any] = field(default_factory=dict)

    def run(self) -> None:
        raise AssertionError("a condition never calls a method")

    @property
    def broken(self) -> int:
        raise RuntimeError("no value")


class Goal(BaseModel):
    title: str
    tags: list[str] = []


CONTEXT: dict[str, Any] = {
    "iteration_count": 21,
    "step": Step(2, ["external"], arguments={"path": "a.txt", "1": "one"}),
    "plan": {"steps": ["a", "b", "c"], "goal_id": "g1", "budget": 1.5},
    "goal": Goal(title="Clean UP", tags=["fast"]),
    "nothing": None,
    "flag": True,
    "tags": {"x", "y"},
    "pair": (1, 2),
}


def holds(text: str, context: dict[str, Any] | None = None) -> bool:
    return parse_condition(text).evaluate(CONTEXT if context is None else context)


def fails(text: str, context: dict[str, Any] | None = None) -> str:
    with pytest.raises(ConditionEvaluationError) as caught:
        holds(text, context)
    return str(caught.value)


def attempt(text: str) -> Condition | None:
    try:
        return parse_condition(text)
    except ConditionSyntaxError:
        return None


def syntax_error(text: str) -> ConditionSyntaxError:
    with pytest.raises(ConditionSyntaxError) as caught:
        parse_condition(text)
    return caught.value


# ── What the operators mean ────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The issue's examples.
        ("iteration_count > 20", True),
        ('"external" in step.effects', True),
        ("plan.steps | length > 10", False),
        # Literals.
        ("true", True),
        ("false", False),
        ("null == null", True),
        ("12 == 12.0", True),
        ("1e3 == 1000", True),
        ("0.5 == 0.50", True),
        ("'single' == \"single\"", True),
        (r'"a\"b\\c\n\t\r" | length == 8', True),
        (r"'it\'s' == " + '"it\'s"', True),
        # Comparisons.
        ("iteration_count == 21", True),
        ("iteration_count != 21", False),
        ("iteration_count < 21", False),
        ("iteration_count <= 21", True),
        ("iteration_count > 21", False),
        ("iteration_count >= 21", True),
        ('"abc" < "abd"', True),
        ('"b" >= "abc"', True),
        ("1 < 1.5", True),
        # Equality across kinds is false, never an error.
        ('1 == "1"', False),
        ("true == 1", False),
        ("0 == false", False),
        ("null == 0", False),
        ('null != ""', True),
        ("[1, [2, 3]] == [1.0, [2, 3]]", True),
        ("[1, 2] == [2, 1]", False),
        ("pair == [1, 2]", True),
        ("step.arguments == step.arguments and plan != plan.steps", True),
        # Membership.
        ('"ext" in "external"', True),
        ('"xyz" not in "external"', True),
        ("2 in [1, 2, 3]", True),
        ("2.0 in [1, 2, 3]", True),
        ("true in [1, 2]", False),
        ("4 not in [1, 2, 3]", True),
        ('"steps" in plan', True),
        ('"missing" in plan', False),
        ('"path" in step.arguments', True),
        ('"x" in tags', True),
        ('"fast" in goal.tags', True),
        ("[] == [] and 1 not in []", True),
        # Logic.
        ("true and true", True),
        ("true and false", False),
        ("false or true", True),
        ("false or false", False),
        ("not false", True),
        ("not not true", True),
        ("flag and iteration_count > 20", True),
        # Arithmetic.
        ("1 + 2 == 3", True),
        ("5 - 7 == -2", True),
        ("2 * 3.5 == 7", True),
        ("7 / 2 == 3.5", True),
        ("4 / 2 == 2", True),
        ("-iteration_count == -21", True),
        ("--3 == 3", True),
        ("plan.budget * 2 == 3", True),
        ("2 + 3 * 4 == 14", True),
        ("(2 + 3) * 4 == 20", True),
        ("10 - 4 - 3 == 3", True),
        ("12 / 2 / 3 == 2", True),
        # Filters.
        ("plan.steps | length == 3", True),
        ('"héllo" | length == 5', True),
        ("plan | length == 3", True),
        ("tags | length == 2", True),
        ("pair | length == 2", True),
        ('goal.title | lower == "clean up"', True),
        ('goal.title | upper == "CLEAN UP"', True),
        ('goal.title | lower | upper == "CLEAN UP"', True),
        ("plan.steps | length * 2 == 6", True),
        # Reading values.
        ('plan.steps[0] == "a"', True),
        ('plan.steps[-1] == "c"', True),
        ('plan.steps[1 + 1] == "c"', True),
        ('plan["goal_id"] == "g1"', True),
        ('step.arguments["path"] == "a.txt"', True),
        ('step["effects"][0] == "external"', True),
        ('goal.title[0] == "C"', True),
        ("step.index == 2", True),
        ('step.kind == "read"', True),
        ("step.level == 1", True),
        ('goal["title"] | length == 8', True),
        ("nothing == null", True),
        ("nothing != null and nothing.x", False),
        ("nothing == null or nothing.x", True),
        ('[1, "a", null][1] == "a"', True),
    ],
)
def test_each_operator(text: str, expected: bool) -> None:
    assert holds(text) is expected


def test_the_issue_examples_over_contexts_that_make_them_true_and_false() -> None:
    assert parse_condition("iteration_count > 20").evaluate({"iteration_count": 25})
    assert not parse_condition("iteration_count > 20").evaluate({"iteration_count": 20})
    many = {"plan": {"steps": list(range(11))}}
    assert parse_condition("plan.steps | length > 10").evaluate(many)
    read = Step(1, ["read"])
    assert not parse_condition('"external" in step.effects').evaluate({"step": read})


@pytest.mark.parametrize(
    ("text", "bracketed"),
    [
        ("not a and b or c", "((not a) and b) or c"),
        ("a or b and c", "a or (b and c)"),
        ("not a == b", "not (a == b)"),
        ("a == b and c != d", "(a == b) and (c != d)"),
        ("a + b * c", "a + (b * c)"),
        ("a - b - c", "(a - b) - c"),
        ("a / b * c", "(a / b) * c"),
        ("-a * b", "(-a) * b"),
        ("-a | length", "-(a | length)"),
        ("a + b | length", "a + (b | length)"),
        ("x.steps | length > 10", "(x.steps | length) > 10"),
        ("a.b[c].d | lower", "((a.b)[c]).d | lower"),
        ("a + 1 in b", "(a + 1) in b"),
        ("not a not in b", "not (a not in b)"),
    ],
)
def test_precedence(text: str, bracketed: str) -> None:
    assert parse_condition(text) == parse_condition(bracketed)


@pytest.mark.parametrize(("a", "b", "c"), list(itertools.product([True, False], repeat=3)))
def test_not_and_or_evaluate_as_in_python(a: bool, b: bool, c: bool) -> None:
    context = {"a": a, "b": b, "c": c}
    assert holds("not a and b or c", context) is ((not a) and b) or c
    assert holds("not (a and (b or c))", context) is (not (a and (b or c)))


def test_and_and_or_read_their_right_side_only_when_needed() -> None:
    assert holds("false and missing", {}) is False
    assert holds("true or missing", {}) is True
    assert holds("nothing != null and nothing.title == 'x'", {"nothing": None}) is False
    assert "unknown name 'missing'" in fails("true and missing", {})


def test_values_of_every_shape_can_be_read() -> None:
    class Plain:
        def __init__(self) -> None:
            self.steps = [Step(1, ["read"]), Step(2, ["external"])]

    context = {"plan": Plain(), "goal": Goal(title="T")}
    assert holds('"external" in plan.steps[1].effects', context)
    assert holds("plan.steps | length == 2 and goal.tags == []", context)


# ── Errors when evaluating ─────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("stp.effects", r"unknown name 'stp' \(the context has flag, goal, iteration_count"),
        ("step.effect", r"step.effect does not exist: step \(Step\) has no attribute 'effect'"),
        ("plan.stepz", r"plan.stepz does not exist: plan has no key 'stepz' \(its keys: budget"),
        ("plan.steps[3]", r"index 3 is out of range \(plan.steps has 3 items\)"),
        ("plan.steps[-4]", r"index -4 is out of range"),
        ('plan.steps["a"]', r"an index into a list is a whole number, not a string"),
        ("plan.steps[true]", r"an index into a list is a whole number, not a boolean"),
        ('plan["zzz"]', r"plan\[\"zzz\"\] does not exist: plan has no key 'zzz'"),
        ("step.arguments[1]", r"has no key 1"),
        ("nothing.title", r"cannot read nothing.title: nothing is null"),
        ("nothing[0]", r"nothing is null"),
        ("iteration_count.x", r"iteration_count is a number, which has no 'x'"),
        ("plan.steps.first", r"plan.steps is a list, which has no 'first'"),
        ("iteration_count[0]", r"iteration_count is a number, which has no items"),
        ("step.run", r"step.run: it is a method, not a value"),
        ("step._secret", r"names starting with '_' are private"),
        ('step["_secret"]', r"names starting with '_' are private"),
        ("step.broken", r"reading step.broken failed: RuntimeError: no value"),
        ('iteration_count < "20"', r"'<' compares two numbers or two strings; iteration_count is"),
        ("plan.steps > 1", r"plan.steps is a list and 1 is a number"),
        ("null <= 1", r"null is null"),
        ("true > false", r"true is a boolean \(true\)"),
        ("1 in 'abc'", r"'in' looks for a string in a string; 1 is a number"),
        ("1 not in 2", r"'not in' looks in a string, list, set or mapping; 2 is a number"),
        ("'a' in step", r"step is an object \(Step\)"),
        ("iteration_count and true", r"'and' takes true or false; iteration_count is a number"),
        ("false or plan.steps", r"'or' takes true or false; plan.steps is a list"),
        ("not nothing", r"'not' takes true or false; nothing is null"),
        ("'a' + 'b' == 'ab'", r"'\+' takes numbers; \"a\" is a string"),
        ("1 - true == 0", r"'-' takes numbers; true is a boolean"),
        ("-'a' == 1", r"'-' takes a number; \"a\" is a string"),
        ("1 / 0 == 1", r"1 / 0 divides by zero"),
        ("1 / 0.0 == 1", r"divides by zero"),
        ("iteration_count | length", r"'length' counts a string, list, set or mapping"),
        ("plan.steps | lower", r"'lower' takes a string; plan.steps is a list"),
        ("iteration_count | upper", r"'upper' takes a string"),
        ("iteration_count", r"the condition gives a number, not true or false"),
        ("nothing", r"the condition gives null, not true or false"),
        ("'1' + 1 == 2", r"\(condition: '1' \+ 1 == 2\)"),
    ],
)
def test_evaluation_errors_say_what_failed(text: str, message: str) -> None:
    assert re.search(message, fails(text)), fails(text)


def test_an_overflow_is_an_evaluation_error() -> None:
    huge = "1" + "0" * 400
    assert "too large" in fails(f"{huge} * 1.5 > 1")
    assert "too large" in fails(f"{huge} / 3 > 1")


def test_values_nested_or_looped_too_deeply_are_an_evaluation_error() -> None:
    loop: list[Any] = []
    loop.append(loop)
    assert "nested too deeply" in fails("a == b", {"a": loop, "b": [loop]})


def test_the_context_must_be_a_mapping() -> None:
    with pytest.raises(ConditionEvaluationError, match="mapping of names to values, not list"):
        parse_condition("true").evaluate([])  # type: ignore[arg-type]


def test_every_condition_error_is_a_value_error() -> None:
    assert issubclass(ConditionSyntaxError, ConditionError)
    assert issubclass(ConditionEvaluationError, ConditionError)
    assert issubclass(ConditionError, ValueError)


# ── The parsed condition ───────────────────────────────────────────────────────


def test_names_are_the_top_level_names_in_order() -> None:
    condition = parse_condition("step.x > iteration_count or plan[step.y] and goal | length")
    assert condition.names == ("step", "iteration_count", "plan", "goal")
    assert parse_condition("1 == 1").names == ()


def test_the_tree_is_immutable_and_conditions_compare_by_tree() -> None:
    condition = parse_condition("a  ==  ( 1 )")
    assert condition == parse_condition("a == 1")
    assert condition.text == "a  ==  ( 1 )"
    assert str(condition) == "a == 1"
    assert condition.tree == Compare("==", Name("a"), Literal(1))
    assert hash(condition) == hash(parse_condition("a==1"))
    with pytest.raises(AttributeError):
        condition.tree.op = "!="  # type: ignore[misc]


def test_literals_of_different_kinds_are_different() -> None:
    assert parse_condition("true") != parse_condition("1")
    assert parse_condition("1") != parse_condition("1.0")
    assert parse_condition("0") != parse_condition("false")
    assert parse_condition("null") != parse_condition("false")


def test_a_condition_is_never_run_as_python() -> None:
    for text in ('__import__("os").system("true")', "().__class__", "exec('1')"):
        with pytest.raises(ConditionSyntaxError):
            parse_condition(text)
    assert "names starting with '_' are private" in fails(
        "step.__class__ == null", {"step": Step(1, [])}
    )


# ── Errors in the text, with their positions ───────────────────────────────────


@pytest.mark.parametrize(
    ("text", "column", "expected", "found"),
    [
        ("a <", 4, "a value", "the end of the condition"),
        ("a < b < c", 7, "'and' or 'or' between comparisons", "'<'"),
        ("a == b != c", 8, "'and' or 'or' between comparisons", "'!='"),
        ("a in b in c", 8, "'and' or 'or' between comparisons", "'in'"),
        ("x = 1", 3, "an operator or a value", "'='"),
        ("a && b", 3, "an operator or a value", "'&&'"),
        ("a || b", 3, "an operator or a value", "'||'"),
        ("!a", 1, "an operator or a value", "'!'"),
        ("a # b", 3, "an operator or a value", "'#'"),
        ('"abc', 5, '" to close the string that opens at column 1', "the end of the condition"),
        ("x == 'abc", 10, "' to close the string that opens at column 6", "the end"),
        (r'"a\q"', 3, "one of the escapes", r"'\q'"),
        ("1e", 1, "a number", "'1e'"),
        ("12abc == 1", 1, "a number", "'12abc'"),
        ("1e999 > 1", 1, "a number of at most about 1.8e308", "'1e999'"),
        ("foo | bar", 7, "a filter: length, lower, upper", "'bar'"),
        ("foo | 'length'", 7, "a filter", "a string"),
        ("((a)", 5, "')' to close the '(' at column 1", "the end of the condition"),
        ("x[1", 4, "']' to close the '[' at column 2", "the end of the condition"),
        ("[1, 2", 6, "',' or ']' to close the '[' at column 1", "the end of the condition"),
        ("[1 2]", 4, "',' or ']'", "the number 2"),
        ("a.", 3, "a name after '.'", "the end of the condition"),
        ("a.1", 3, "a name after '.'", "the number 1"),
        ("a b", 3, "an operator or the end of the condition", "'b'"),
        ("a not b", 3, "an operator or the end of the condition", "'not'"),
        ("a and", 6, "a value", "the end of the condition"),
        ("and a", 1, "a value", "'and'"),
        ("()", 2, "a value", "')'"),
        ("True", 1, "a value", "'True'"),
        ("x == None", 6, "a value", "'None'"),
        ("", 1, "a condition", "nothing"),
        ("   ", 4, "a condition", "nothing"),
        ("a == 1)", 7, "an operator or the end of the condition", "')'"),
    ],
)
def test_syntax_errors_give_the_column_what_was_expected_and_what_was_found(
    text: str, column: int, expected: str, found: str
) -> None:
    error = syntax_error(text)
    assert error.column == column
    assert error.line == 1
    assert expected in error.expected
    assert found in error.found
    assert f"at column {column}" in str(error)


def test_a_syntax_error_shows_the_line_with_a_caret_under_the_spot() -> None:
    error = syntax_error("plan.steps | lenght > 10")
    assert str(error) == (
        "expected a filter: length, lower, upper, found 'lenght' at column 14\n"
        "  plan.steps | lenght > 10\n"
        "               ^"
    )
    assert str(syntax_error("x = 1")).startswith(
        "expected an operator or a value, found '=' at column 3 (write '==' to compare)"
    )
    assert "(write true)" in str(syntax_error("True"))
    assert "(write 'and')" in str(syntax_error("a && b"))


def test_a_syntax_error_in_a_later_line_gives_line_and_column() -> None:
    error = syntax_error("a > 1 and\n\tb <")
    assert (error.line, error.column) == (2, 5)
    assert str(error).endswith("at line 2, column 5\n  \tb <\n  \t   ^")


def test_a_long_line_is_cut_around_the_caret() -> None:
    text = "a + " * 100 + "@"
    error = syntax_error(text)
    _, shown, caret = str(error).split("\n")
    assert shown.startswith("  …")
    assert len(shown) < 100
    assert shown[caret.index("^")] == "@"


# ── Bounds ─────────────────────────────────────────────────────────────────────


def test_a_condition_of_the_maximum_length_parses_and_a_longer_one_does_not() -> None:
    padding = " " * (MAX_CONDITION_LENGTH - len("true"))
    assert parse_condition("true" + padding).evaluate({})
    error = syntax_error("true" + padding + " ")
    assert error.column == MAX_CONDITION_LENGTH + 1
    assert f"at most {MAX_CONDITION_LENGTH} characters" in error.expected


@pytest.mark.parametrize(
    "nest",
    [
        lambda n: "(" * n + "a" + ")" * n,
        lambda n: "not " * n + "a",
        lambda n: "-" * n + "a",
        lambda n: "a" + "[a" * n + "]" * n,
        lambda n: "[" * n + "]" * n,
        lambda n: "1" + " + 1" * n,
        lambda n: "a" + ".b" * n,
        lambda n: "a" + " | length" * n,
    ],
)
def test_nesting_is_bounded(nest: Any) -> None:
    deepest = 0
    while attempt(nest(deepest + 1)) is not None:
        deepest += 1
    assert MAX_CONDITION_DEPTH - 2 <= deepest <= MAX_CONDITION_DEPTH
    error = syntax_error(nest(deepest + 1))
    assert f"at most {MAX_CONDITION_DEPTH} levels of nesting" in error.expected


@pytest.mark.parametrize("text", ["(" * 2000, "not " * 500, "-" * 2000, "[" * 2000, "a.b" * 666])
def test_hostile_text_is_rejected_without_exhausting_the_stack(text: str) -> None:
    with pytest.raises(ConditionSyntaxError):
        parse_condition(text)


# ── Properties ─────────────────────────────────────────────────────────────────

GRAMMAR_CHARACTERS = st.sampled_from(
    [
        *"abxyz_019.,[]()|<>=!+-*/\"'\\ \t\n&#",
        "and ",
        "or ",
        "not ",
        " in ",
        "true",
        "null",
        "length",
        "lower",
        "1e5",
        "==",
        "!=",
    ]
)


@settings(max_examples=400)
@given(st.one_of(st.text(max_size=60), st.lists(GRAMMAR_CHARACTERS, max_size=40).map("".join)))
def test_any_text_parses_or_raises_only_a_syntax_error(text: str) -> None:
    error: ConditionSyntaxError | None = None
    try:
        condition = parse_condition(text)
    except ConditionSyntaxError as raised:
        error = raised
    if error is None:
        assert parse_condition(str(condition)) == condition
    else:
        assert 1 <= error.column <= len(text) + 1
        assert "^" in str(error)


WORDS = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,5}", fullmatch=True)
NAMES = WORDS.filter(lambda word: word not in KEYWORDS and word not in ("True", "False", "None"))

LITERALS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=0, max_value=10**30),
    st.floats(min_value=0, allow_nan=False, allow_infinity=False).map(abs),
    st.text(max_size=8),
).map(Literal)


def trees(
    names: st.SearchStrategy[str], leaves: st.SearchStrategy[Node]
) -> st.SearchStrategy[Node]:
    def extend(child: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
        return st.one_of(
            st.builds(Attribute, child, WORDS),
            st.builds(Index, child, child),
            st.lists(child, max_size=3).map(lambda items: ListDisplay(tuple(items))),
            st.builds(Filter, child, st.sampled_from(FILTERS)),
            st.builds(Negate, child),
            st.builds(Arithmetic, st.sampled_from("+-*/"), child, child),
            st.builds(
                Compare,
                st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "in", "not in"]),
                child,
                child,
            ),
            st.builds(Not, child),
            st.builds(
                Logical,
                st.sampled_from(["and", "or"]),
                st.lists(child, min_size=2, max_size=3).map(tuple),
            ),
        )

    return st.recursive(st.one_of(leaves, names.map(Name)), extend, max_leaves=12)


def depth(node: Node) -> int:
    return 1 + max((depth(child) for child in node.children()), default=0)


@settings(max_examples=300)
@given(trees(NAMES, LITERALS).filter(lambda tree: depth(tree) <= MAX_CONDITION_DEPTH))
def test_a_printed_tree_parses_back_to_the_same_tree(tree: Node) -> None:
    assert parse_condition(str(tree)).tree == tree


CONTEXT_NAMES = ["a", "b", "step", "n"]

DATA = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(),
        st.text(max_size=5),
        st.sampled_from([Kind.READ, Level.LOW]),
    ),
    lambda child: st.one_of(
        st.lists(child, max_size=3),
        st.dictionaries(st.sampled_from(["x", "y", "a", "1"]), child, max_size=3),
        st.builds(Step, st.integers(), st.lists(st.text(max_size=3), max_size=2)),
        st.frozensets(st.integers(), max_size=3),
    ),
    max_leaves=8,
)


@settings(max_examples=400)
@given(
    trees(st.sampled_from([*CONTEXT_NAMES, "missing"]), LITERALS).filter(
        lambda tree: depth(tree) <= MAX_CONDITION_DEPTH
    ),
    st.dictionaries(st.sampled_from(CONTEXT_NAMES), DATA),
)
def test_evaluating_any_condition_over_any_context_raises_only_an_evaluation_error(
    tree: Node, context: dict[str, Any]
) -> None:
    condition = Condition(str(tree), tree)
    result: bool | str
    try:
        result = condition.evaluate(context)
    except ConditionEvaluationError as error:
        result = str(error)
    assert isinstance(result, bool) or "(condition: " in result
