from __future__ import annotations

import json
import re

from tiller.models.local.argument_schema import (
    MAX_WORDS,
    argument_schema,
    copy_pattern,
    request_words,
)


def _regex(pattern: str) -> re.Pattern[str]:
    # llama.cpp's subset reads the same as Python's for what we generate
    return re.compile(pattern)


def test_keywords_are_dropped_but_properties_with_those_names_are_kept() -> None:
    schema = {
        "type": "object",
        "title": "args",
        "properties": {
            "title": {"type": "integer", "description": "a number called title"},
            "description": {"type": "boolean", "title": "Description"},
        },
        "required": ["title"],
    }
    assert argument_schema(schema, "anything") == {
        "type": "object",
        "properties": {"title": {"type": "integer"}, "description": {"type": "boolean"}},
        "required": ["title"],
    }


def test_request_words_drop_outer_punctuation_and_keep_order_and_repeats() -> None:
    words = request_words('Read notes.txt: who should I call? "Ana" or ana, {x} a\\b notes.txt')
    assert words == [
        "Read", "notes.txt", "who", "should", "I", "call", "Ana", "or", "ana", "x", "notes.txt"
    ]  # fmt: skip
    assert len(request_words("word " * 100)) == MAX_WORDS


def test_a_copied_passage_keeps_its_order_and_cannot_loop() -> None:
    text = "count the words: she sells sea shells by the sea shore"
    pattern = _regex(argument_schema({"type": "string"}, text)["pattern"])
    assert pattern.fullmatch("she sells sea shells by the sea shore")  # repeats as in the text
    assert pattern.fullmatch("sells sea shells")
    assert not pattern.fullmatch("she sells sea shells by the sea shore, she sells")
    assert not pattern.fullmatch("shells sea by sells")  # four words out of order
    assert pattern.fullmatch("shore, she")  # up to three words may be reordered


def test_free_strings_are_built_from_the_request_words() -> None:
    pattern = _regex(argument_schema({"type": "string"}, "add 350 and 275 please")["pattern"])
    assert pattern.fullmatch("350 + 275")
    assert pattern.fullmatch("350*275")
    assert pattern.fullmatch("add 350 and 275")
    assert not pattern.fullmatch("17 * 275")  # 17 is not in the request
    assert not pattern.fullmatch("")


def test_a_path_parameter_takes_a_path_from_the_request_whole() -> None:
    schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    out = argument_schema(schema, "Read notes.txt: who should I call?")
    pattern = _regex(out["properties"]["path"]["pattern"])
    assert pattern.fullmatch("notes.txt")
    assert not pattern.fullmatch("notes")
    assert not pattern.fullmatch("who should I call")
    assert not pattern.fullmatch("notesXtxt")  # the dot is a dot, not "any character"
    # With no path-like word in the request, a path is copied like any string.
    assert copy_pattern(["show", "readme"], "file_path") is not None
    assert _regex(copy_pattern(["show", "readme"], "file_path") or "").fullmatch("readme")


def test_schema_bounds_patterns_and_enums_are_respected() -> None:
    assert argument_schema({"type": "string", "pattern": "^a+$"}, "x")["pattern"] == "^a+$"
    bounded = argument_schema({"type": "string", "maxLength": 5}, "a long request here")
    assert bounded["pattern"].endswith("{1,5}$")  # plain, so the bound holds
    assert "pattern" not in argument_schema({"type": "string", "enum": ["a", "b"]}, "a")
    assert argument_schema({"type": "string", "format": "date"}, "x").get("pattern") is None


def test_without_usable_words_strings_are_plain_and_bounded() -> None:
    out = argument_schema({"type": "string"}, '"{}"')
    assert out["pattern"] == '^[^{}\\n"\\\\]{1,200}$'
    assert out["minLength"] == 1


def test_llama_cpp_accepts_the_patterns() -> None:
    from llama_cpp.llama_grammar import LlamaGrammar

    schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "expression": {"type": "string"},
            "items": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["path", "expression"],
    }
    request = "Open ./src/app.py (v1.2) and compute (3+4)*2 | tee [x] ~/a?b"
    LlamaGrammar.from_json_schema(json.dumps(argument_schema(schema, request)), verbose=False)


def test_a_copied_value_is_no_longer_than_the_request() -> None:
    single = _regex(argument_schema({"type": "string"}, "Goodbye!")["pattern"])
    assert single.fullmatch("Goodbye")
    assert not single.fullmatch("Goodbye, Goodbye")
    three = _regex(argument_schema({"type": "string"}, "say hi there")["pattern"])
    assert three.fullmatch("hi there say")
    assert not three.fullmatch("hi hi hi hi")
