from __future__ import annotations

import json
import re

import pytest

from tiller.models.local.argument_schema import (
    MAX_ITEMS,
    argument_schema,
    fillable,
    string_pattern,
    without_unoffered,
)
from tiller.models.local.code_shapes import like_the_example
from tiller.models.local.parameter_kinds import Kind
from tiller.models.local.request_numbers import written_expression
from tiller.models.local.request_words import MAX_WORDS, request_words


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
        "required": ["title", "description"],
    }
    assert argument_schema(schema, "anything") == {
        "type": "object",
        "properties": {"title": {"type": "integer"}, "description": {"type": "boolean"}},
        "required": ["title", "description"],
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
    assert not pattern.fullmatch("she, sells")  # a comma only where the request has one
    assert not pattern.fullmatch("she shore")  # an unbroken run: no word is skipped
    assert not pattern.fullmatch("she sells sea shells by the sea shore, she sells")
    assert not pattern.fullmatch("shore she")  # out of order
    assert not pattern.fullmatch("shore shore")
    assert not pattern.fullmatch("she-sells")


def test_a_possessive_may_be_dropped() -> None:
    pattern = _regex(argument_schema({"type": "string"}, "check tokyo's weather")["pattern"])
    assert pattern.fullmatch("tokyo")
    assert not pattern.fullmatch("tokyo'")
    # What a name owns is no part of it, but a name goes on after one.
    assert not pattern.fullmatch("tokyo's weather")
    club = _regex(
        argument_schema({"type": "string"}, "When's Harrogate CC's next match?")["pattern"]
    )
    assert club.fullmatch("Harrogate CC")
    assert not club.fullmatch("Harrogate CC next match")
    wood = _regex(argument_schema({"type": "string"}, "trains to St John's Wood")["pattern"])
    assert wood.fullmatch("St John's Wood")
    # "where's" owns nothing, and a quote mark that closes no passage opens none.
    where = _regex(argument_schema({"type": "string"}, "'s max_files set?")["pattern"])
    assert where.fullmatch("max_files")


def test_free_strings_are_built_from_the_request_words() -> None:
    pattern = _regex(argument_schema({"type": "string"}, "add 350 and 275 please")["pattern"])
    assert pattern.fullmatch("add 350 and 275")
    assert pattern.fullmatch("350 and 275")
    assert not pattern.fullmatch("350 275")
    assert not pattern.fullmatch("350 + 275")  # operators are for expressions
    assert not pattern.fullmatch("17 275")  # 17 is not in the request
    assert not pattern.fullmatch("")


def _expression(request: str, name: str = "expression") -> re.Pattern[str]:
    schema = {"type": "object", "properties": {name: {"type": "string"}}}
    return _regex(argument_schema(schema, request)["properties"][name]["pattern"])


def test_an_expression_uses_the_requests_numbers_in_order() -> None:
    pattern = _expression("split a bill of 186 between 6 people")
    assert pattern.fullmatch("186 / 6")
    assert pattern.fullmatch("(186) - 6")
    assert not pattern.fullmatch("6 / 186")  # the request's order
    assert not pattern.fullmatch("186")  # every number, when there are a few
    assert not pattern.fullmatch("186 / 7")
    assert not pattern.fullmatch("186, 6")
    assert _expression("I walked 3.2 km, 4.5 km and 6 km", "formula").fullmatch("3.2 + 4.5 + 6")


def test_a_percentage_divides_by_100() -> None:
    pattern = _expression("what's 7.5 percent of 2400")
    assert pattern.fullmatch("7.5 * 2400 / 100")
    assert not pattern.fullmatch("7.5 * 2400")
    assert _expression("What is 15% of 80?").fullmatch("15 * 80 / 100")


def test_a_count_at_a_price_each_multiplies() -> None:
    pattern = _expression("and what's 12 guests at £18.50 a head for the caterer?")
    assert pattern.fullmatch("12 * 18.50")
    assert not pattern.fullmatch("12 + 18.50")
    # With another number told, the operators are the model's again.
    assert _expression("12 guests at £18.50 each plus £40 delivery").fullmatch("12 * 18.50 + 40")


def test_an_expression_written_in_the_request_is_taken_whole() -> None:
    assert written_expression("Calculate (125 + 375) * 4 please") == "(125 + 375) * 4"
    assert written_expression("Compute 1024 / 16.") == "1024 / 16"
    assert written_expression("What is 1000 minus 1?") is None
    assert written_expression("what is (1 + 2 * 3") is None  # unbalanced
    pattern = _expression("Calculate (125 + 375) * 4 please")
    assert pattern.fullmatch("(125 + 375) * 4")
    assert not pattern.fullmatch("125 + 375 * 4")


def test_without_numbers_an_expression_is_copied_from_the_words() -> None:
    assert _regex(string_pattern("x times y", Kind.EXPRESSION) or "").fullmatch("x y")


def test_numbers_in_words_count() -> None:
    pattern = _expression("seven hundred and twelve plus eighty nine")
    assert pattern.fullmatch("712 + 89")
    assert _expression("seven times six").fullmatch("7 * 6")


def test_a_number_parameter_takes_one_of_the_requests_numbers() -> None:
    schema = {
        "type": "object",
        "properties": {
            "amount": {"type": "number"},
            "count": {"type": "integer"},
            "limit": {"type": "integer", "maximum": 50},
        },
        "required": ["amount", "count", "limit"],
    }
    out = argument_schema(schema, "my hotel costs 90 euros, or 4.5 a night for forty nights")
    assert out["properties"]["amount"]["enum"] == [90, 4.5, 40]
    assert out["properties"]["count"]["enum"] == [90, 40]  # whole numbers only
    assert out["properties"]["limit"]["enum"] == [40]  # within the schema's bounds
    assert "enum" not in argument_schema(schema, "no numbers here")["properties"]["amount"]


def test_a_bounded_number_the_request_does_not_give_stays_within_its_bounds() -> None:
    # llama.cpp's grammar ignores bounds: a number written freely may break them.
    def number(schema: dict[str, object], request: str) -> object:
        return argument_schema(schema, request).get("enum")

    weight = {"type": "number", "minimum": 0.3, "maximum": 12}
    assert number(weight, "and some beef") == [0.3]
    assert number({**weight, "default": 2}, "and some beef") == [2]
    assert number({**weight, "default": 40}, "and some beef") == [0.3]  # a default out of bounds
    assert number({"type": "integer", "minimum": 0.5, "maximum": 9}, "none") == [9]
    assert number({"type": "integer", "maximum": 9}, "none") == [9]
    assert number({"type": "number"}, "none") is None  # any number fits
    assert number({"type": "number", "exclusiveMinimum": 0}, "none") is None
    assert number(weight, "a 3 kg turkey") == [3]  # the request's own number first


def test_many_numbers_may_be_skipped() -> None:
    request = " ".join(str(n) for n in range(1, 12))
    assert _expression(request).fullmatch("3 * 4")


def test_a_path_parameter_takes_a_path_from_the_request_whole() -> None:
    schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    out = argument_schema(schema, "Read notes.txt: who should I call?")
    pattern = _regex(out["properties"]["path"]["pattern"])
    assert pattern.fullmatch("notes.txt")
    assert not pattern.fullmatch("notes")
    assert not pattern.fullmatch("who should I call")
    assert not pattern.fullmatch("notesXtxt")  # the dot is a dot, not "any character"
    # With no path-like word in the request, a path is copied like any string.
    assert _regex(string_pattern("show readme", Kind.PATH) or "").fullmatch("readme")


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
    for request in (
        "Open ./src/app.py (v1.2) and compute (3+4)*2 | tee [x] ~/a?b",
        "split 186.50 between 6, then -3 and 18,000 (v1.2) ~/a?b",  # numbers, not written
    ):
        converted = json.dumps(argument_schema(schema, request))
        LlamaGrammar.from_json_schema(converted, verbose=False)


def test_a_copied_value_is_no_longer_than_the_request() -> None:
    single = _regex(argument_schema({"type": "string"}, "Goodbye!")["pattern"])
    assert single.fullmatch("Goodbye")
    assert not single.fullmatch("Goodbye, Goodbye")
    three = _regex(argument_schema({"type": "string"}, "say hi Sam")["pattern"])
    assert three.fullmatch("say hi Sam")
    assert not three.fullmatch("hi hi hi hi")


def test_a_tool_is_fillable_when_the_request_holds_its_required_values() -> None:
    def required(name: str, schema: dict[str, object]) -> dict[str, object]:
        return {"properties": {name: schema}, "required": [name]}

    assert not fillable(required("amount", {"type": "number"}), "convert euros to yen")
    assert fillable(required("amount", {"type": "number"}), "convert twenty euros to yen")
    assert not fillable(required("count", {"type": "integer", "minimum": 1}), "a few")
    assert not fillable(required("expression", {"type": "string"}), "any tips for saving?")
    assert fillable(required("city", {"type": "string"}), "weather in Oslo")
    assert fillable(required("size", {"type": "integer", "enum": [1, 2]}), "big")
    assert fillable({"properties": {"amount": {"type": "number"}}}, "no numbers")  # optional
    # A path needs a word that names a file; "files" does not.
    path = required("path", {"type": "string", "description": "File path to read."})
    assert not fillable(path, "What files are in this folder?")
    assert fillable(path, "show me src/app.py")
    assert fillable({}, "anything")


def test_optional_parameters_the_request_says_nothing_about_are_left_out() -> None:
    schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path."},
            "start_line": {"type": "integer", "minimum": 1},
            "end_line": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "glob": {"type": "string", "description": "Only files matching this glob."},
            "ignore_case": {"type": "boolean"},
            "mode": {"type": "string", "enum": ["fast", "exact"]},
        },
        "required": ["path"],
    }
    bare = argument_schema(schema, "show me notes.txt")
    assert set(bare["properties"]) == {"path"}
    assert bare["additionalProperties"] is False
    ranged = argument_schema(schema, "print lines 3 to 5 of notes.txt, ignore case, exact")
    assert set(ranged["properties"]) == {"path", "start_line", "end_line", "ignore_case", "mode"}
    assert ranged["properties"]["start_line"]["enum"] == [3]
    assert ranged["properties"]["end_line"]["enum"] == [5]


def test_a_number_outside_a_parameters_bounds_is_no_value_for_it() -> None:
    schema = {
        "type": "object",
        "properties": {
            "dish": {"type": "string"},
            "max_minutes": {"type": "integer", "minimum": 5},
        },
        "required": ["dish"],
    }
    # "three" is below the minimum of 5: the optional number is left out, not made up.
    assert set(argument_schema(schema, "three bananas: banana bread")["properties"]) == {"dish"}
    ready = argument_schema(schema, "banana bread in 45 minutes")
    assert ready["properties"]["max_minutes"]["enum"] == [45]
    size = {"type": "integer", "minimum": 1, "maximum": 20}
    required = {"properties": {"party_size": size}, "required": ["party_size"]}
    assert not fillable(required, "a table for 30 people")
    assert fillable(required, "a table for 4 people")


def test_a_code_parameter_takes_the_words_shaped_like_its_example() -> None:
    symbol = {"type": "string", "description": "Ticker symbol, e.g. AAPL"}
    pattern = like_the_example(symbol, "What's the share price of NVDA at the moment?")
    assert pattern == "^(NVDA)$"
    flight = {"type": "string", "description": "Flight number, e.g. BA117"}
    assert like_the_example(flight, "is af1234 late?") == "^(af1234)$"
    # No word of that shape, or an example that is no code: words as usual.
    assert like_the_example(symbol, "msft price?") is None
    assert like_the_example({"type": "string", "description": "e.g. general"}, "in #dev") is None
    # A code of several words is taken whole, and a code of digits is a code too.
    registration = {"type": "string", "description": "Car registration, e.g. AB12 CDE"}
    sign = {"type": "string", "description": "Code on the parking sign, e.g. 4521"}
    parking = "Pay for 2 hours at location 7730, reg KX19 LMN."
    assert like_the_example(registration, parking) == "^(KX19 LMN)$"
    assert like_the_example(registration, "my car's reg is ab12 cde") == "^(ab12 cde)$"
    assert like_the_example(sign, parking) == "^(7730)$"
    # A name joined by dots takes the words of that shape, not the name said before it.
    domain = {"type": "string", "description": "Domain name, e.g. example.co.uk or my.site"}
    calling = "We're calling it Quiet Corner Books. Is quietcornerbooks.shop free?"
    assert like_the_example(domain, calling) == "^(quietcornerbooks[.]shop)$"
    assert like_the_example(domain, "Is Quiet Corner Books free as a domain?") is None
    # ... and an example may be written in quotes.
    quoted = {"type": "string", "description": "Postcode of the home, e.g. 'HG1 2AB'."}
    assert like_the_example(quoted, "book the sweep at YO31 7EJ on Friday") == "^(YO31 7EJ)$"
    # ... and a code may follow the word it is a code of, which is taken with it.
    dose = {"type": "string", "description": "Medicine and strength, e.g. 'amlodipine 5mg'."}
    assert like_the_example(dose, "Order my repeat sertraline 50mg from Boots") == (
        "^(sertraline 50mg)$"
    )
    assert like_the_example(dose, "order my sertraline from Boots") is None
    # ... and a code's parts may be joined by hyphens, which a date's digits alone are not.
    reference = {"type": "string", "description": "Return reference, e.g. RTN-88213"}
    courier = "Can you arrange for a courier to collect my return RTN-90442 tomorrow?"
    assert like_the_example(reference, courier) == "^(RTN-90442)$"
    assert like_the_example({"description": "Day, e.g. 2025-06-03"}, "on 2025-07-01") is None
    # ... but a digit alone is a count or a day, no code.
    day = {"type": "string", "description": "Date of the event, e.g. 1 August"}
    assert like_the_example(day, "countdown to 4 July") is None
    # A part that writes no such code takes the one the whole request wrote.
    schema = {
        "type": "object",
        "properties": {"registration": registration},
        "required": ["registration"],
    }
    request = "Pay at 6002 for AB12 CDE, and another two hours at 6003 for the same car."
    part = "another two hours at 6003 for the same car."
    narrowed = argument_schema(schema, part, context=request)
    assert narrowed["properties"]["registration"]["pattern"] == "^(AB12 CDE)$"
    # ... but not into a part that writes a name of its own.
    road = {"type": "string", "description": "Road number or street name, e.g. 'B1249'."}
    schema = {"type": "object", "properties": {"road": road}, "required": ["road"]}
    request = "Is the A614 being gritted tonight? And what about Station Road?"
    narrowed = argument_schema(schema, "Is the Station Road being gritted?", context=request)
    assert narrowed["properties"]["road"]["pattern"] != "^(A614)$"
    # ... and a code of capitals alone may be a name the part writes as it likes.
    shop = {"type": "string", "description": "Name of the shop, e.g. IKEA"}
    schema = {"type": "object", "properties": {"store": shop}, "required": ["store"]}
    request = "Can I return opened stuff to Decathlon? What about IKEA?"
    part = "Can I return opened stuff to Decathlon?"
    narrowed = argument_schema(schema, part, tool_name="store_return_policy", context=request)
    assert narrowed["properties"]["store"]["pattern"] == "^(Decathlon)$"
    schema = {"type": "object", "properties": {"symbol": symbol}, "required": ["symbol"]}
    narrowed = argument_schema(schema, "price of NVDA at the moment")
    assert narrowed["properties"]["symbol"]["pattern"] == "^(NVDA)$"


def test_lists_are_bounded_and_free_form_objects_generated_empty() -> None:
    schema = {
        "type": "object",
        "properties": {
            "steps": {"type": "array", "items": {"type": "string"}},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 9},
            "many": {"type": "array", "items": {"type": "integer"}, "minItems": 4},
            "extra": {"type": "object", "additionalProperties": True},
            "loose": {"anyOf": [{"type": "object"}, {"type": "null"}]},
            "fixed": {"type": "object", "properties": {"a": {"type": "boolean"}}},
        },
        "required": ["steps", "tags", "many", "extra", "loose", "fixed"],
    }
    out = argument_schema(schema, "plan the trip")["properties"]
    assert out["steps"]["maxItems"] == MAX_ITEMS
    assert out["tags"]["maxItems"] == 9  # the schema's own bound stays
    assert out["many"]["maxItems"] == 4  # never below the least it needs
    assert out["extra"]["additionalProperties"] is False
    assert out["loose"]["anyOf"][0]["additionalProperties"] is False
    assert "additionalProperties" not in out["fixed"]


def _text_pattern(request: str, tool_name: str = "", **others: object) -> re.Pattern[str]:
    properties = {"place": {"type": "string"}, **others}
    schema = {"type": "object", "properties": properties, "required": list(properties)}
    converted = argument_schema(schema, request, tool_name=tool_name)
    return _regex(converted["properties"]["place"]["pattern"])


def test_free_text_begins_with_a_word_that_names_something() -> None:
    pattern = _text_pattern("is there pilates on saturday")
    assert pattern.fullmatch("pilates")
    assert not pattern.fullmatch("there")
    assert not pattern.fullmatch("on saturday")
    assert not pattern.fullmatch("saturday")  # a day is no place (`time_words`)
    # A number before a name of several words is part of it: a house's number.
    address = _text_pattern("send the cleaner to 3 Park Lane on Monday")
    assert address.fullmatch("3 Park Lane")
    assert not address.fullmatch("Park Lane")
    # What "I" or "you" do is no thing: the value is what they do it to.
    boil = _text_pattern("How long do I boil penne for?")
    assert boil.fullmatch("penne")
    assert not boil.fullmatch("boil penne")
    assert not _text_pattern("I need the rigatoni time").fullmatch("need")
    # A quoted passage, a passage after a colon and a title may begin with any word.
    assert _text_pattern("translate 'where is the station' to French").fullmatch(
        "where is the station"
    )
    assert _text_pattern("count the words: to be or not to be").fullmatch("to be or not to be")
    assert _text_pattern("does the library have The Hobbit").fullmatch("The Hobbit")


def test_a_quoted_passage_is_one_value_when_another_free_text_takes_the_rest() -> None:
    request = "Send a postcard to Grandma saying 'Wish you were here, love Tom'."
    recipient = _text_pattern(request, "send_postcard", message={"type": "string"})
    assert recipient.fullmatch("Grandma")
    assert recipient.fullmatch("Wish you were here, love Tom")
    assert not recipient.fullmatch("Tom")
    # With one free text, any run of a quote may be its value still, but a few words in
    # quotes are a name, copied whole.
    assert _text_pattern("count the words in 'to be or not to be'").fullmatch("to be")
    card = _text_pattern("Top up the 'kids Oyster' card with £10", "top_up")
    assert card.fullmatch("kids Oyster")
    assert not card.fullmatch("kids")


def test_free_text_holds_no_word_of_the_tools_name_nor_anothers_value() -> None:
    fuel = {"fuel": {"type": "string", "enum": ["petrol", "diesel"]}}
    pattern = _text_pattern("Diesel prices in Cardiff", "fuel_prices", **fuel)
    assert pattern.fullmatch("Cardiff")
    assert not pattern.fullmatch("Diesel prices in Cardiff")
    assert not pattern.fullmatch("prices")
    bikes = _text_pattern("any bikes left at the canal street dock", "bike_dock_status")
    assert bikes.fullmatch("canal street")
    assert not bikes.fullmatch("canal street dock")
    assert not bikes.fullmatch("bikes left")
    ferries = _text_pattern("ferries out of holyhead tmrw", "ferry_sailings")
    assert not ferries.fullmatch("ferries out of holyhead")
    # A word of the name a number follows names something numbered, for a tool that takes
    # no number.
    assert _text_pattern("radio 4 frequencies?", "radio_frequency").fullmatch("radio 4")
    amount = {"amount": {"type": "number"}}
    converted = _text_pattern("convert 200 into pounds", "convert_currency", **amount)
    assert not converted.fullmatch("convert")


def test_free_text_leaves_a_number_and_its_unit_to_the_number_parameter() -> None:
    weight = {"weight_kg": {"type": "number"}}
    pattern = _text_pattern("How long for a 2.5 kg beef roast", "roasting_time", **weight)
    assert pattern.fullmatch("beef roast")
    assert not pattern.fullmatch("2.5")
    assert not pattern.fullmatch("kg beef")
    # Without a number parameter, a number is part of the text: "14 Elm Street".
    assert _text_pattern("a taxi from 14 Elm Street").fullmatch("14 Elm Street")
    # A quoted command keeps its numbers whatever other parameters take.
    timeout = {"timeout": {"type": "number"}}
    command = _text_pattern("Can you run `head -n 2 data/cities.csv`?", "shell", **timeout)
    assert command.fullmatch("head -n 2 data/cities.csv")


def test_a_file_whose_name_begins_with_a_dot_keeps_it() -> None:
    words = request_words("Make a .gitignore with '.env' in it... ok?")
    assert ".gitignore" in words
    assert ".env" in words
    assert "ok" in words
    write = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    }
    assert fillable(write, "Make a .gitignore that just has __pycache__/ in it")


def test_an_optional_number_stated_with_its_unit_is_required() -> None:
    watering = {
        "type": "object",
        "properties": {
            "zone": {"type": "string"},
            "minutes": {
                "type": "integer",
                "minimum": 1,
                "maximum": 120,
                "description": "Optional: how long to water (1-120 minutes)",
            },
        },
        "required": ["zone"],
    }
    stated = argument_schema(watering, "Water the front lawn for 10 minutes")
    assert stated["required"] == ["zone", "minutes"]
    assert stated["properties"]["minutes"]["enum"] == [10]
    # A number without the unit may be for something else: the model decides.
    assert argument_schema(watering, "Water zone 2")["required"] == ["zone"]
    dose = {
        "type": "object",
        "properties": {"medicine": {"type": "string"}, "dose_mg": {"type": "number"}},
        "required": ["medicine"],
    }
    assert argument_schema(dose, "Log 500mg of paracetamol")["required"] == ["medicine", "dose_mg"]
    assert argument_schema(dose, "Log 2 paracetamol")["required"] == ["medicine"]


@pytest.mark.parametrize(
    ("request_text", "start", "end"),
    [
        ("lines 1-5 of README.md please", 1, 5),
        ("read lines 6-7 of src/tally.py", 6, 7),
        ("Print lines 2 through 4 of data/cities.csv", 2, 4),
        ("Can I see config.toml from line 3 to line 5?", 3, 5),
        ("what's on line 4 of config.toml?", 4, 4),
        ("I only need lines 10\u201311 of src/tally.py", 10, 11),
        ("todo.md: what's on lines 2 and 3?", 2, 3),
    ],
)
def test_a_span_of_lines_gives_where_it_starts_and_ends(
    request_text: str, start: int, end: int
) -> None:
    reading = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "start_line": {"type": "integer", "minimum": 1, "default": 1},
            "end_line": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
        },
        "required": ["path"],
    }
    schema = argument_schema(reading, request_text)
    assert schema["required"] == ["path", "start_line", "end_line"]
    assert schema["properties"]["start_line"]["enum"] == [start]
    assert schema["properties"]["end_line"]["enum"] == [end]


def test_a_span_said_only_where_it_starts_or_twice_gives_no_end() -> None:
    reading = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "start_line": {"type": "integer", "minimum": 1},
            "end_line": {"type": "integer", "minimum": 1},
        },
        "required": ["path"],
    }
    onwards = argument_schema(reading, "show notes.txt from line 5 onwards")
    assert onwards["required"] == ["path", "start_line"]
    assert "end_line" not in onwards["properties"]
    # Two spans: which ends which is left to the model.
    two = argument_schema(reading, "compare line 2 of a.txt with line 9 of b.txt")
    assert two["required"] == ["path"]


def test_a_number_of_digit_groups_is_taken_whole_and_ends_at_a_stop() -> None:
    blocking = {
        "type": "object",
        "properties": {"number": {"type": "string", "description": "The phone number to block"}},
        "required": ["number"],
    }
    request = "block 07700 900456 and 07700 900789, both keep ringing about loft insulation"
    narrowed = argument_schema(blocking, request)["properties"]["number"]
    assert narrowed["pattern"] == "^(07700 900456|07700 900789)$"
    part = argument_schema(blocking, "Block 0800 123 4567, it's a fake bank calling")
    assert part["properties"]["number"]["pattern"] == "^(0800 123 4567)$"
    # A code of letters and digits is a number of another shape: the model copies it.
    parcel = {
        "type": "object",
        "properties": {"tracking_number": {"type": "string"}},
        "required": ["tracking_number"],
    }
    mixed = argument_schema(parcel, "Where are JD014600006281 and 940011189922385?")
    assert mixed["properties"]["tracking_number"]["pattern"] != "^(940011189922385)$"


def test_an_optional_number_the_request_writes_is_offered() -> None:
    contact = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Contact's name"},
            "phone": {"type": "string", "description": "Phone number"},
        },
        "required": ["name"],
    }
    saved = argument_schema(contact, "save Dr Okafor as a contact, his number is 0161 496 0732")
    assert saved["properties"]["phone"]["pattern"] == "^(0161 496 0732)$"
    assert set(argument_schema(contact, "save Dr Okafor as a contact")["properties"]) == {"name"}


def test_an_optional_place_is_offered_when_the_request_names_where() -> None:
    jobs = {
        "type": "object",
        "properties": {
            "role": {"type": "string", "description": "Job title or kind of work, e.g. barista"},
            "location": {"type": "string", "description": "Town or city to search in"},
        },
        "required": ["role"],
    }
    named = argument_schema(jobs, "Are there any electrician vacancies in Manchester?")
    assert named["properties"]["location"]["pattern"] == "^(Manchester)$"
    assert "Manchester" not in named["properties"]["role"]["pattern"]
    assert set(argument_schema(jobs, "any electrician vacancies?")["properties"]) == {"role"}
    assert set(argument_schema(jobs, "electrician jobs from May")["properties"]) == {"role"}


def test_a_dotted_word_before_files_is_a_kind_of_file_not_a_files_name() -> None:
    assert request_words("how many .py files are there?")[2] == "py"
    assert ".gitignore" in request_words("show the .gitignore file")  # a file: "the ... file"
    assert "md" in request_words("is there a .md file in docs?")


def test_a_value_is_an_unbroken_run_that_ends_on_a_word_that_names_something() -> None:
    cab = _text_pattern("a cab from paris, france to the airport, 3 of us")
    assert cab.fullmatch("paris, france")
    assert cab.fullmatch("paris france")  # the request's comma may be left out
    assert not cab.fullmatch("cab, from, paris")  # but none is added
    pattern = _text_pattern("Winchester farmers market schedule", "farmers_market")
    assert pattern.fullmatch("Winchester")
    assert not pattern.fullmatch("Winchester, schedule")  # the tool's words break the run
    ends = _text_pattern("scores for the Lakers and the Celtics")
    assert ends.fullmatch("Lakers and the Celtics")
    assert not ends.fullmatch("Lakers and the")  # no value ends with a word that joins
    # In a quoted passage or after a colon any word may end it.
    assert _text_pattern("how many words in 'let it be'").fullmatch("let it be")


def test_a_name_of_capitalised_words_is_copied_whole() -> None:
    lido = _text_pattern("How cold is the water at Tooting Bec Lido today?", "lido_conditions")
    assert lido.fullmatch("Tooting Bec Lido")  # the tool's own word, inside the name
    assert not lido.fullmatch("Tooting Bec")
    assert not lido.fullmatch("Bec Lido")
    parks = _text_pattern("Queue times at Thorpe Park and Paultons Park?")
    assert parks.fullmatch("Paultons Park")
    assert not parks.fullmatch("Paultons")
    # Two names joined by "and" after "the" are one.
    canal = _text_pattern("are there lock closures on the Kennet and Avon?", "canal_closures")
    assert canal.fullmatch("Kennet and Avon")
    assert not canal.fullmatch("Kennet")
    # A sentence's first word is capitalised by grammar: it begins no name.
    first = _text_pattern("Add Marco Polo to my contacts")
    assert first.fullmatch("Marco Polo")
    assert first.fullmatch("Add Marco Polo")
    # A possessive ends a name: what follows is another thing.
    er = _text_pattern("Is Manchester Royal Infirmary's A&E busy?")
    assert er.fullmatch("Manchester Royal Infirmary")
    # Lower case names nothing for sure: "thorpe" alone stays possible.
    assert _text_pattern("queue times at thorpe park").fullmatch("thorpe")


def test_a_place_ends_at_a_comma_unless_another_name_follows() -> None:
    quiz = _text_pattern("a quiz night in Durham, ideally on a Thursday", "pub_quiz")
    assert quiz.fullmatch("Durham")
    assert not quiz.fullmatch("Durham, ideally")
    assert _text_pattern("hotels in Paris, France please").fullmatch("Paris, France")
    # Text that is no place goes on: "Hello, world" is what the file holds.
    text = {"content": {"type": "string"}}
    content = {"type": "object", "properties": text, "required": ["content"]}
    found = argument_schema(content, "a file containing Hello, world")["properties"]["content"]
    assert _regex(found["pattern"]).fullmatch("Hello, world")


def _subject_pattern(
    part: str, tool_name: str, parameter: str, context: str = ""
) -> re.Pattern[str]:
    others = {"band": {"type": "string", "enum": ["A", "B", "C", "D"]}, "day": {"type": "string"}}
    schema = {
        "type": "object",
        "properties": {parameter: {"type": "string"}, **others},
        "required": [parameter],
    }
    found = argument_schema(schema, part, tool_name=tool_name, context=context)
    return _regex(found["properties"][parameter]["pattern"])


def test_the_thing_a_tool_is_about_is_a_name_when_the_request_writes_one() -> None:
    council = _subject_pattern(
        "Compare band D council tax in Leeds", "council_tax_rates", "council"
    )
    assert council.fullmatch("Leeds")
    assert not council.fullmatch("Compare band")
    pool = _subject_pattern("Lane swimming times on Sunday at Ponds Forge", "pool_times", "pool")
    assert pool.fullmatch("Ponds Forge")
    assert not pool.fullmatch("Lane swimming")
    assert not pool.fullmatch("Sunday")  # a day is capitalised, but no name of a pool
    # A name runs on as free text does: a sequel's number is part of it.
    film = _subject_pattern("what are Inside Out 2 rated?", "film_rating", "film")
    assert film.fullmatch("Inside Out 2")
    # So is a coin's value with its unit.
    coin = _subject_pattern("is my Kew Gardens 50p worth anything?", "coin_value", "coin")
    assert coin.fullmatch("Kew Gardens 50p")
    # A name may begin after a colon: its first word is capitalised as a name's is.
    film = _subject_pattern("What are these rated: Toy Story 4", "film_rating", "film")
    assert film.fullmatch("Toy Story 4")
    assert not film.fullmatch("Story 4")
    # ... but no further than the name: not into the next sentence.
    pool = _subject_pattern(
        "Any sessions at the Royal Commonwealth Pool? My two love it.", "pool_times", "pool"
    )
    assert pool.fullmatch("Royal Commonwealth Pool")
    assert not pool.fullmatch("Royal Commonwealth Pool My two")
    # A word that joins a name to more of it, or a possessive, goes on with it.
    trail = _subject_pattern("Trail info for the Old Man of Coniston.", "trail_info", "trail")
    assert trail.fullmatch("Old Man of Coniston")
    game = _subject_pattern("play Ticket to Ride, then the Queen's Gambit", "game_rules", "game")
    assert game.fullmatch("Ticket to Ride")
    assert game.fullmatch("Queen's Gambit")
    # Capitals that shorten a word are no name: "A&Es" is no hospital.
    busy = "how busy are the A&Es at leeds general infirmary"
    assert _subject_pattern(busy, "hospital_waits", "hospital").fullmatch("leeds general infirmary")
    # A quoted passage is what a request that quotes one is about.
    said = _subject_pattern("translate 'good morning' into Spanish", "translate_text", "text")
    assert said.fullmatch("good morning")
    # A request that writes no name is copied from as before, and so is a parameter that
    # is not what the tool is about.
    assert _subject_pattern("lane swimming at ponds forge", "pool_times", "pool").fullmatch(
        "ponds forge"
    )
    assert _subject_pattern("Lane swimming at Ponds Forge", "pool_times", "session").fullmatch(
        "Lane swimming"
    )


def test_a_place_a_part_does_not_name_is_the_one_named_before_it() -> None:
    whole = "We're moving to York. What are rents like there, and how much is the council tax?"
    rent = _subject_pattern("What are rents like there", "average_rent", "city", context=whole)
    assert rent.fullmatch("York")
    assert not rent.fullmatch("like")
    tax = _subject_pattern("how much is the council tax?", "council_tax_rates", "council", whole)
    assert tax.fullmatch("York")
    # A part that names its own place keeps it, written in lower case or not.
    own = _subject_pattern("and council tax in leeds?", "council_tax_rates", "council", whole)
    assert own.fullmatch("leeds")
    assert not own.fullmatch("York")


def test_an_optional_parameter_is_kept_when_asked_to_be() -> None:
    meal = {"type": "string", "enum": ["lunch", "dinner"]}
    schema = {"type": "object", "properties": {"dish": {"type": "string"}, "meal": meal}}
    assert "meal" not in without_unoffered(schema, "put chilli on monday")["properties"]
    # The whole request says it for each part: "..., both for dinner".
    kept = without_unoffered(schema, "put chilli on monday", keep=frozenset({"meal"}))
    assert "meal" in kept["properties"]


def test_a_part_that_begins_inside_a_sentence_may_begin_with_a_title() -> None:
    whole = "what are Inside Out 2 and The Substance rated?"
    film = _subject_pattern("The Substance rated?", "film_rating", "film", context=whole)
    assert film.fullmatch("The Substance")
    assert not film.fullmatch("Substance")
    listed = "What are these rated: Toy Story 4, Spirited Away, Wonka"
    assert _subject_pattern("Toy Story 4", "film_rating", "film", listed).fullmatch("Toy Story 4")
    # At a sentence's start, "The" is grammar's: "Substance" alone stays possible.
    alone = _subject_pattern("The Substance rated?", "film_rating", "film")
    assert alone.fullmatch("Substance")


def test_a_day_of_the_month_is_no_count_nor_taken_from_the_date() -> None:
    schema = {
        "type": "object",
        "properties": {
            "date": {"type": "string", "description": "Birthday, e.g. 3 March"},
            "remind_days_before": {"type": "integer", "minimum": 0, "maximum": 30},
        },
        "required": ["date", "remind_days_before"],
    }
    out = argument_schema(schema, "Add Priya's birthday on 14 August, remind me 3 days before")
    assert out["properties"]["remind_days_before"]["enum"] == [3]
    assert _regex(out["properties"]["date"]["pattern"]).fullmatch("14 August")


def test_a_count_from_the_start_is_no_start_and_an_optional_day_said_is_offered() -> None:
    lines = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path."},
            "start_line": {"type": "integer", "minimum": 1},
            "end_line": {"type": "integer", "minimum": 1},
        },
        "required": ["path"],
    }
    first = argument_schema(lines, "show me the first five lines of src/tally.py")
    assert set(first["properties"]) == {"path", "end_line"}
    assert set(argument_schema(lines, "lines 6 to 11 of src/tally.py")["properties"]) == {
        "path", "start_line", "end_line"
    }  # fmt: skip
    rink = {
        "type": "object",
        "properties": {
            "rink": {"type": "string"},
            "day": {"type": "string", "description": "Day to skate, e.g. Saturday"},
        },
        "required": ["rink"],
    }
    said = argument_schema(rink, "public sessions at Alexandra Palace on Sunday?")
    assert said["properties"]["day"]["pattern"] == "^(Sunday)$"
    assert "day" not in argument_schema(rink, "sessions at Alexandra Palace?")["properties"]


def test_free_text_a_part_holds_none_of_is_copied_from_the_whole_request() -> None:
    schema = {
        "type": "object",
        "properties": {"country": {"type": "string", "description": "The country"}},
        "required": ["country"],
    }
    whole = (
        "Going to India in 2026 - what are the public holidays there, "
        "and what's the emergency number?"
    )

    def country(part: str, context: str = "") -> re.Pattern[str]:
        found = argument_schema(schema, part, tool_name="emergency_numbers", context=context)
        return _regex(found["properties"]["country"]["pattern"])

    part = "and what's the emergency number?"
    assert country(part, whole).fullmatch("India")
    assert not country(part, whole).fullmatch("the")
    assert country(part).fullmatch("the")
    # A part that holds free text of its own is filled from it alone.
    own = "and what's the emergency number in Peru?"
    assert country(own, whole).fullmatch("Peru")
    assert not country(own, whole).fullmatch("India")
    # A word that says when is the part's own for a value that is no time.
    rhymes = {
        "type": "object",
        "properties": {"word": {"type": "string", "description": "The word to rhyme"}},
        "required": ["word"],
    }
    found = argument_schema(
        rhymes,
        "rhymes for night?",
        tool_name="find_rhymes",
        context="rhymes for night? also for summer",
    )
    assert _regex(found["properties"]["word"]["pattern"]).fullmatch("night")
    chords = {
        "type": "object",
        "properties": {
            "chord": {"type": "string", "description": "The chord"},
            "instrument": {"type": "string", "enum": ["guitar", "ukulele"]},
        },
        "required": ["chord"],
    }
    part, whole = "ukulele chords for Am", "ukulele chords for Am and F?"
    found = argument_schema(chords, part, tool_name="guitar_chord", context=whole)
    assert _regex(found["properties"]["chord"]["pattern"]).fullmatch("Am")


def test_a_word_that_denies_names_nothing() -> None:
    pattern = _regex(
        string_pattern(
            "no eggs and no baking powder in the house", Kind.TEXT, frozenset({"baking"})
        )
        or ""
    )
    assert pattern.fullmatch("eggs")
    assert not pattern.fullmatch("no")
    assert not pattern.fullmatch("no eggs and no")


def test_a_day_the_part_does_not_say_is_the_one_the_request_says() -> None:
    day = {"type": "string", "description": "Day to stay, e.g. 'Saturday'."}
    site = {"type": "string", "description": "Campsite name."}
    schema = {
        "type": "object",
        "properties": {"site": site, "date": day},
        "required": ["site", "date"],
    }
    request = "Free tent pitches at North Lees or Eskdale on Saturday?"
    narrowed = argument_schema(schema, "Free tent pitches at North Lees", context=request)
    assert narrowed["properties"]["date"]["pattern"] == "^(Saturday)$"
    # The part's own day comes first.
    request = "A pitch at North Lees on Friday, or at Eskdale on Saturday?"
    narrowed = argument_schema(schema, "at Eskdale on Saturday?", context=request)
    assert narrowed["properties"]["date"]["pattern"] == "^(Saturday)$"


def _only(name: str, description: str, request: str, tool_name: str = "") -> str:
    schema = {
        "type": "object",
        "properties": {name: {"type": "string", "description": description}},
        "required": [name],
    }
    return str(argument_schema(schema, request, tool_name=tool_name)["properties"][name]["pattern"])


def test_a_command_written_out_is_copied_whole() -> None:
    def command(request: str) -> str:
        return _only("command", "The shell command line to run.", request, "shell")

    assert command("a backup of config.toml by running cp config.toml config.toml.bak") == (
        "^cp config[.]toml config[.]toml[.]bak$"
    )
    assert command("clean up with rm -rf src/__pycache__") == "^rm -rf src/__pycache__$"
    # A text that is no command is copied word by word, as before.
    assert _regex(command("the tests")).fullmatch("tests")


def test_the_word_a_request_names_as_a_word_is_the_value() -> None:
    def pattern(request: str) -> str:
        return _only("pattern", "Text to search for.", request, "search")

    assert pattern("for the word Tuesday in the files?") == "^Tuesday$"
    assert pattern("the phrase 'first release' anywhere") == "^first release$"
    assert pattern("which files mention the string TODO?") == "^TODO$"
    assert _regex(pattern("the word count of notes.txt")).fullmatch("notes.txt")


def test_the_readme_is_the_projects_readme_file() -> None:
    assert "README.md" in request_words("show me the readme, need to check something")
    assert "README.md" in request_words("The README heading should say 'Tally CLI'")
    assert request_words("open the README.md") == ["open", "the", "README.md"]
    # Readmes in general are no file.
    assert "README.md" not in request_words("How should I structure the README of a tool?")
    assert "README.md" not in request_words("Why do people bother writing README files?")


def test_the_one_text_to_write_or_look_for_is_the_passage_the_request_quotes() -> None:
    schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path"},
            "content": {"type": "string", "description": "Text to write"},
        },
        "required": ["path", "content"],
    }
    request = "Create a file called CHANGELOG.md whose only line is '# Changelog'."
    content = argument_schema(schema, request)["properties"]["content"]["pattern"]
    assert _regex(content).fullmatch("# Changelog")
    assert not _regex(content).fullmatch("CHANGELOG.md")
    request = "write 'remember to back up' into a new file called reminders.txt"
    content = argument_schema(schema, request)["properties"]["content"]["pattern"]
    assert _regex(content).fullmatch("remember to back up")
    # A parameter that holds no text to write takes no quote as its value.
    city = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    pattern = argument_schema(city, "my sister says 'it's freezing' - weather in Leeds?")
    assert _regex(pattern["properties"]["city"]["pattern"]).fullmatch("Leeds")


def test_each_code_a_description_lists_as_an_example_gives_a_shape() -> None:
    colour = {
        "type": "string",
        "description": "Colour code, e.g. #1E90FF, RAL 7016 or Pantone 186 C",
    }
    assert like_the_example(colour, "what's hex #2E8B57 called") == "^(#2E8B57)$"
    assert like_the_example(colour, "pantone 186 C in hex please") == "^(pantone 186 C)$"
    assert like_the_example(colour, "what colour is RAL 7016? the builder") == "^(RAL 7016)$"
    # A name among the examples: the parameter takes names too, so no shape is imposed.
    place = {"type": "string", "description": "Town or postcode district, e.g. Truro or BS3"}
    assert like_the_example(place, "anything on in Truro") is None


def test_a_path_that_takes_a_file_takes_a_file_named_over_a_folder() -> None:
    path = {"type": "string", "description": "File path relative to the workspace root."}
    schema = {"type": "object", "properties": {"path": path}, "required": ["path"]}
    narrowed = argument_schema(schema, "add a .gitignore that ignores __pycache__/")
    assert narrowed["properties"]["path"]["pattern"] == "^([.]gitignore)$"
    # With no file named, a folder is still a path it may take.
    alone = argument_schema(schema, "what is in src/?")["properties"]["path"]["pattern"]
    assert "src/" in alone


CLIMB = {
    "type": "object",
    "properties": {
        "route": {"type": "string", "description": "Name of the route."},
        "grade": {"type": "string", "description": "Grade as given at the wall, e.g. V3 or 6b+."},
        "style": {"type": "string", "enum": ["flash", "redpoint"]},
    },
    "required": ["route", "grade"],
}


def test_a_name_ends_before_a_code_another_parameter_takes() -> None:
    schema = argument_schema(CLIMB, "Log these: Silver Surfer V4 flash", tool_name="log_climb")
    route = _regex(schema["properties"]["route"]["pattern"])
    assert route.match("Silver Surfer")
    assert not route.match("Silver Surfer V4")
    assert schema["properties"]["grade"]["pattern"] == "^(V4)$"


def test_a_whole_date_another_parameter_takes_is_no_free_text() -> None:
    task = {
        "type": "object",
        "properties": {
            "subject": {"type": "string", "description": "School subject."},
            "due": {"type": "string", "description": "Due date as YYYY-MM-DD."},
        },
        "required": ["subject", "due"],
    }
    schema = argument_schema(task, "Add a physics task, due 2026-01-10", tool_name="add_task")
    subject = _regex(schema["properties"]["subject"]["pattern"])
    assert subject.match("physics")
    assert not any(subject.match(t) for t in ("2026-01-10", "due 2026-01-10", "physics task, due"))


def test_a_parameter_for_an_email_address_takes_one_the_request_writes() -> None:
    schema = {
        "type": "object",
        "properties": {
            "to": {"type": "string", "description": "Recipient's email address or name"},
            "body": {"type": "string"},
        },
        "required": ["to", "body"],
    }
    text = "Also email priya@greenfielddental.co.uk to say the statement is on its way."
    out = argument_schema(schema, text, tool_name="send_email")["properties"]
    assert out["to"]["pattern"] == "^(priya@greenfielddental[.]co[.]uk)$"
    # A name, when no address is written.
    named = argument_schema(schema, "email Mum to say I'm running late")["properties"]
    assert "@" not in named["to"]["pattern"]
