from __future__ import annotations

from tiller.models.local.tool_choice import _grammar_schema


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
    assert _grammar_schema(schema) == {
        "type": "object",
        "properties": {"title": {"type": "integer"}, "description": {"type": "boolean"}},
        "required": ["title"],
    }


def test_free_strings_are_bounded_and_plain() -> None:
    out = _grammar_schema({"type": "string"})
    assert out["minLength"] == 1
    assert out["maxLength"] == 200
    assert out["pattern"] == '^[^{}\\n"\\\\]{1,200}$'
    # A schema's own bounds, patterns and enums are respected.
    assert _grammar_schema({"type": "string", "pattern": "^a+$"})["pattern"] == "^a+$"
    assert _grammar_schema({"type": "string", "maxLength": 5})["pattern"].endswith("{1,5}$")
    assert "pattern" not in _grammar_schema({"type": "string", "enum": ["a", "b"]})
