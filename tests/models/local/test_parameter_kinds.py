"""What a parameter takes, read from its schema and its own words, never a tool's name."""

from __future__ import annotations

from typing import Any

import pytest

from tiller.models.local.parameter_kinds import (
    Kind,
    Parameter,
    folder_words,
    holds_its_codes,
    kind_of,
    numbers_for,
    offered,
    parameters,
    path_words,
    takes_a_written_number,
    written_numbers,
)
from tiller.models.local.request_words import request_words


@pytest.mark.parametrize(
    ("name", "schema", "kind"),
    [
        ("amount", {"type": "number"}, Kind.NUMBER),
        ("end_line", {"anyOf": [{"type": "integer"}, {"type": "null"}]}, Kind.NUMBER),
        ("replace_all", {"type": "boolean"}, Kind.BOOLEAN),
        ("unit", {"type": "string", "enum": ["C", "F"]}, Kind.CLOSED),
        ("day", {"type": "string", "format": "date"}, Kind.CONSTRAINED),
        ("path", {"type": "string"}, Kind.PATH),
        ("target", {"type": "string", "description": "Directory to list."}, Kind.PATH),
        ("source", {"type": "string", "description": "The file name to open."}, Kind.PATH),
        ("expression", {"type": "string"}, Kind.EXPRESSION),
        ("query", {"type": "string", "description": "An arithmetic formula."}, Kind.EXPRESSION),
        ("pattern", {"type": "string", "description": "Regular expression to find."}, Kind.TEXT),
        ("content", {"type": "string", "description": "New content of the file."}, Kind.TEXT),
        ("city", {"type": "string"}, Kind.TEXT),
    ],
)
def test_the_kind_comes_from_the_schema_and_the_parameters_words(
    name: str, schema: dict[str, Any], kind: Kind
) -> None:
    assert kind_of(name, schema) is kind


def test_parameters_lists_the_top_level_ones_with_kind_and_whether_required() -> None:
    schema = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["path"],
    }
    assert parameters(schema) == [
        Parameter("path", {"type": "string"}, Kind.PATH, True),
        Parameter("limit", {"type": "integer"}, Kind.NUMBER, False),
    ]
    assert parameters({}) == []
    assert parameters("not a schema") == []


def _offered(name: str, schema: dict[str, Any], required: bool, request: str) -> bool:
    parameter = Parameter(name, schema, kind_of(name, schema), required)
    return offered(parameter, request, request.split())


def test_a_value_is_offered_only_when_the_request_holds_one() -> None:
    assert _offered("amount", {"type": "number"}, True, "convert forty euros")
    assert not _offered("amount", {"type": "number"}, True, "convert euros")
    assert _offered("path", {"type": "string"}, True, "open ./build")
    assert not _offered("path", {"type": "string"}, True, "list the files")
    assert _offered("ignore_case", {"type": "boolean"}, False, "find todo, ignore case")
    assert not _offered("ignore_case", {"type": "boolean"}, False, "find todo")
    # A required yes or no is the schema's to pick: "yes, I'm coming".
    assert _offered("attending", {"type": "boolean"}, True, "reply to Sam: yes, I'm coming")
    assert _offered("city", {"type": "string"}, True, "weather in Oslo")
    # Optional free text has nothing marking its value in a request: never offered.
    assert not _offered("glob", {"type": "string"}, False, "search for todo in python files")
    unit = {"type": "string", "enum": ["celsius", "fahrenheit"]}
    assert _offered("unit", unit, True, "how warm is it")
    assert not _offered("unit", unit, False, "how warm is it")
    assert _offered("unit", unit, False, "how warm is it in Fahrenheit")


def test_a_code_needs_a_word_with_a_digit_in_the_request() -> None:
    def schema(name: str, description: str) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {name: {"type": "string", "description": description}},
            "required": [name],
        }

    postcode = schema("postcode", "Full UK postcode, e.g. SW1A 1AA")
    assert not holds_its_codes(postcode, "How are UK postcodes structured?")
    assert holds_its_codes(postcode, "where is sw1a 1aa?")
    sort_code = schema("sort_code", "Six-digit sort code, e.g. 20-00-00")
    assert not holds_its_codes(sort_code, "what even is a sort code")
    assert holds_its_codes(sort_code, "which bank is 40-11-62?")
    assert not holds_its_codes(schema("road", "Road number, e.g. M25 or A1"), "is it busy?")
    # Examples that are not all codes, a name or a place allowed, a time: no code.
    assert holds_its_codes(schema("road", "Road number or street name, e.g. B1249"), "Elm St")
    assert holds_its_codes(schema("area", "Town or postcode area, e.g. Truro or BS3"), "Truro")
    assert holds_its_codes(schema("film", "The film's title, e.g. Paddington 2"), "Wicked")
    assert holds_its_codes(schema("start_time", "Start time, e.g. 19:00"), "at seven")
    # Given no example, a text parameter that says it holds a number takes one.
    chip = schema("chip_number", "The 15-digit microchip number read by a scanner")
    assert not holds_its_codes(chip, "does it hurt a kitten to get microchipped")
    assert holds_its_codes(chip, "who is chip 941000024681357 registered to?")
    assert holds_its_codes(schema("house", "House number or name"), "Rose Cottage")


def test_a_name_joined_by_dots_needs_a_word_of_that_shape_in_the_request() -> None:
    domain = {
        "type": "object",
        "properties": {
            "domain": {"type": "string", "description": "Full domain name, e.g. example.co.uk"}
        },
        "required": ["domain"],
    }
    assert holds_its_codes(domain, "is bramblebakery.co.uk still free to register?")
    assert holds_its_codes(domain, "What would api.example-shop.com cost?")
    assert not holds_its_codes(domain, "Give me a few name ideas for a little bakery")
    # An ending alone is no name.
    assert not holds_its_codes(domain, "Any real difference between a .co.uk and a .uk?")


def test_a_sum_takes_two_numbers_or_one_with_what_to_work_out() -> None:
    expression = {"type": "string"}
    assert _offered("expression", expression, True, "add 19 and 23")
    assert _offered("expression", expression, True, "£96 a year. How much is that per month?")
    assert _offered("expression", expression, True, "what's the square root of 144")
    assert not _offered("expression", expression, True, "We pay £120 a year and still can't park")
    assert not _offered("expression", expression, True, "what's the weather in Leeds")
    assert _offered("expression", expression, True, "then add 8")


def test_a_directory_is_no_value_for_a_file_path() -> None:
    file_path = Parameter("path", {"type": "string", "description": "File path."}, Kind.PATH, True)
    directory = Parameter(
        "path", {"type": "string", "description": "Directory to list."}, Kind.PATH, False
    )
    assert not offered(file_path, "show me the files in src/", ["src/"])
    assert offered(file_path, "show me src/app.py", ["src/app.py"])
    assert offered(directory, "show me the files in src/", ["src/"])


def test_a_folder_is_a_word_ending_in_a_slash_or_beside_folder_or_directory() -> None:
    assert folder_words(["show", "me", "data/"]) == ["data/"]
    assert folder_words(["ls", "the", "src", "directory"]) == ["src"]
    assert folder_words(["files", "in", "the", "docs", "folder"]) == ["docs"]
    assert folder_words(["list", "this", "folder"]) == []
    assert path_words(["ls", "the", "src", "directory"]) == ["src"]
    assert path_words(["ls", "the", "src", "directory"], files_only=True) == []


def test_a_file_named_without_an_extension_is_a_path() -> None:
    def files(request: str) -> list[str]:
        return path_words(request_words(request), files_only=True)

    assert files("write a LICENSE file with MIT") == ["LICENSE"]
    assert files("show me the Makefile") == ["Makefile"]
    # "The README" is the project's README.md, never a file named "README".
    assert files("what does the README say") == ["README.md"]
    assert files("What is a TOML file, in general?") == []


def test_a_version_an_amount_or_an_abbreviation_is_no_path() -> None:
    def paths(request: str) -> list[str]:
        return path_words(request_words(request))

    assert paths("the notes for version 1.5 and v2.0.1") == []
    assert paths("it costs $4.50, e.g. a coffee") == []
    assert paths("open notes.txt and docs/guide.md") == ["notes.txt", "docs/guide.md"]


def test_a_call_written_out_is_no_path() -> None:
    path = Parameter("path", {"type": "string"}, Kind.PATH, True)
    request = "in Python, how is str.splitlines() different from split?"
    assert not offered(path, request, request_words(request))
    assert offered(path, "what's in str.py?", request_words("what's in str.py?"))


def test_a_number_said_as_where_something_starts_is_no_end() -> None:
    end = Parameter("end_line", {"type": "integer"}, Kind.NUMBER, False)
    start = Parameter("start_line", {"type": "integer"}, Kind.NUMBER, False)
    for request in ["show me notes.txt from line 5 onwards", "todo.md, line 3 and on"]:
        words = request_words(request)
        assert offered(start, request, words)
        assert not offered(end, request, words)
    assert offered(end, "notes.txt from line 5 to 10", request_words("notes.txt from 5 to 10"))


def test_a_parameter_that_says_it_holds_a_number_takes_one_written_in_digit_groups() -> None:
    assert takes_a_written_number("number", {"description": "The phone number to block"})
    assert takes_a_written_number("chip", {"description": "The 15-digit microchip number"})
    assert not takes_a_written_number("contact", {"description": "Contact name or number"})
    petition = {"description": "Petition title or reference number"}
    assert not takes_a_written_number("petition", petition)  # a title is a name
    assert not takes_a_written_number("postcode", {"description": "Postcode, e.g. LS6 2AA"})
    assert not takes_a_written_number("city", {"description": "City"})
    assert written_numbers("call +44 161 496 0732, then 07700 900123.") == [
        "+44 161 496 0732",
        "07700 900123",
    ]
    assert written_numbers("a table for 4 at 8") == []


def test_an_optional_number_measured_in_a_unit_takes_only_a_number_said_with_it() -> None:
    minutes = Parameter("ticket_minutes", {"type": "integer"}, Kind.NUMBER, False)
    percent = Parameter("warn_at_percent", {"type": "integer"}, Kind.NUMBER, False)
    grams = Parameter("serving_grams", {"type": "number"}, Kind.NUMBER, False)

    def offers(parameter: Parameter, request: str) -> bool:
        return offered(parameter, request, request_words(request))

    assert not offers(minutes, "Remember where I left the car - Level 2, blue zone")
    assert offers(minutes, "saved my spot, the ticket runs for 90 mins")
    assert not offers(percent, "Set budgets for me: groceries £300, transport £90.")
    assert offers(percent, "limit of 80 quid and warn me at 75%")
    assert offers(grams, "calories in 30g of almonds")


def test_examples_of_a_value_say_no_kind_of_value() -> None:
    school = {"type": "string", "description": "School subject, e.g. maths, history."}
    assert kind_of("subject", school) is Kind.TEXT
    assert (
        kind_of("sum", {"type": "string", "description": "A maths expression"}) is Kind.EXPRESSION
    )


COUNT_CHANGE = {
    "type": "integer",
    "description": "Units to add (positive) or remove (negative).",
}


def test_an_amount_taken_off_is_a_negative_change_where_one_may_be_negative() -> None:
    assert numbers_for(COUNT_CHANGE, "take 2 off the flour count") == [-2]
    assert numbers_for(COUNT_CHANGE, "Two bags split open - knock 2 off the flour") == [-2]
    assert numbers_for(COUNT_CHANGE, "3 off the eggs and 5 off the bread") == [-3, -5]
    assert numbers_for(COUNT_CHANGE, "minus 4 on the rice") == [-4]
    assert numbers_for(COUNT_CHANGE, "add 24 to the oat milk") == [24]
    # A count that is never negative takes the amount as written.
    count = {"type": "integer", "minimum": 0, "description": "Negative never."}
    assert numbers_for(count, "take 2 off the flour count") == [2]
    assert numbers_for({"type": "integer"}, "take 2 off the flour count") == [2]


def test_an_optional_date_is_offered_when_a_whole_date_is_written() -> None:
    delivery = {"type": "string", "description": "Preferred delivery date, YYYY-MM-DD."}
    wanted = Parameter("delivery_date", delivery, Kind.TEXT, False)
    asked = "get 20 bags of compost from GreenGrow, delivered on 2025-04-02"
    assert offered(wanted, asked, request_words(asked))
    assert not offered(wanted, "get 20 bags of compost", request_words("get 20 bags of compost"))
    # Its numbers are no count.
    assert numbers_for({"type": "integer"}, asked) == [20]
