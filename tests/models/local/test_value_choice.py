from __future__ import annotations

from collections.abc import Sequence

from tiller.models import ToolSpec
from tiller.models.local.tool_relevance import relevance_scorer
from tiller.models.local.value_choice import (
    choose_values,
    closed_choices,
    pinned,
    required_when_said,
    said_in,
    said_in_its_own_words,
    said_values,
)
from tiller.models.local.weights import bundled_smollm2

STRING = {"type": "string"}
CURRENCY = ToolSpec(
    "convert_currency",
    "Convert an amount in euros to another currency (USD, GBP or JPY).",
    {"type": "object", "properties": {"amount": {"type": "number"}, "currency": STRING}},
)


def test_enums_and_codes_a_description_lists_are_closed_sets() -> None:
    assert closed_choices(CURRENCY) == {"currency": ["USD", "GBP", "JPY"]}
    unit = {"type": "string", "enum": ["celsius", "fahrenheit"]}
    tool = ToolSpec("w", "Weather.", {"properties": {"city": STRING, "unit": unit}})
    assert closed_choices(tool) == {"unit": ["celsius", "fahrenheit"]}


def test_capitals_that_are_not_a_list_or_not_one_parameters_are_left_alone() -> None:
    assert (
        closed_choices(ToolSpec("h", "Call the HTTP API.", {"properties": {"url": STRING}})) == {}
    )
    two = {"properties": {"url": STRING, "method": STRING}}
    assert closed_choices(ToolSpec("h", "Method GET/POST.", two)) == {}  # whose list is it?
    one_value = {"properties": {"mode": {"type": "string", "enum": ["fast"]}}}
    assert closed_choices(ToolSpec("m", "x", one_value)) == {}  # nothing to choose


def test_the_value_that_best_explains_the_request_is_pinned() -> None:
    def explain(request: str, prefixes: Sequence[str]) -> list[float]:
        return [-1.0 if "GBP" in p else -5.0 for p in prefixes]

    chosen = choose_values(explain, "10 euros in pounds", closed_choices(CURRENCY))
    assert chosen == {"currency": "GBP"}
    schema = pinned(CURRENCY.parameters, chosen)
    assert schema["properties"]["currency"] == {"type": "string", "enum": ["GBP"]}
    assert schema["properties"]["amount"] == {"type": "number"}
    assert CURRENCY.parameters["properties"]["currency"] == STRING  # not changed in place


def test_the_embedded_model_maps_currency_names_to_codes() -> None:
    explain = relevance_scorer(bundled_smollm2()).log_likelihoods
    choices = closed_choices(CURRENCY)
    assert choose_values(explain, "How much is 100 euros in yen?", choices) == {"currency": "JPY"}
    assert choose_values(explain, "Convert 10 euros to GBP.", choices) == {"currency": "GBP"}


def test_a_value_is_taken_when_the_request_says_it_or_its_gloss() -> None:
    unit = {"type": "string", "enum": ["mi", "ft", "m"]}
    tool = ToolSpec(
        "convert_distance",
        "Convert a distance in kilometres to miles (mi), feet (ft) or metres (m).",
        {"properties": {"amount": {"type": "number"}, "unit": unit}},
    )
    choices = closed_choices(tool)
    assert said_values(tool, "3 km to feet", choices) == {"unit": "ft"}
    assert said_values(tool, "10 km in miles, not feet", choices) == {"unit": "mi"}
    assert said_values(tool, "5 km in mi", choices) == {"unit": "mi"}  # said outright
    assert said_values(tool, "5 km in yards", choices) == {}  # left to the model

    def explain(request: str, prefixes: Sequence[str]) -> list[float]:
        return [-1.0 if "mi" in p else -5.0 for p in prefixes]

    assert choose_values(explain, "3 km to feet", choices, {"unit": "ft"}) == {"unit": "ft"}


def test_an_optional_value_the_request_says_is_required() -> None:
    schema = {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "kind": {"type": "string", "enum": ["film", "series"]},
        },
        "required": ["title"],
    }
    tool = ToolSpec("add_to_watchlist", "Add a title to the watchlist.", schema)
    said = said_values(tool, "Add Dune Part Two to my watchlist, it's a film", closed_choices(tool))
    assert required_when_said(schema, said)["required"] == ["title", "kind"]
    assert required_when_said(schema, {})["required"] == ["title"]


def test_codes_given_as_examples_are_no_closed_set() -> None:
    road = {"type": "string", "description": "Road number, e.g. M25 or A1"}
    schema = {"type": "object", "properties": {"road": road}, "required": ["road"]}
    assert closed_choices(ToolSpec("road_traffic", "Live traffic on a road.", schema)) == {}
    listed = {"type": "string", "description": "Currency code (USD, GBP or JPY)"}
    schema = {"type": "object", "properties": {"to": listed}, "required": ["to"]}
    assert closed_choices(ToolSpec("convert", "Convert money.", schema)) == {
        "to": ["USD", "GBP", "JPY"]
    }


def test_codes_later_in_an_example_or_describing_a_word_are_no_closed_set() -> None:
    station = {"type": "string", "description": "Station name, e.g. Classic FM or BBC Radio 4"}
    schema = {"type": "object", "properties": {"station": station}, "required": ["station"]}
    tool = ToolSpec("radio_frequency", "A radio station's frequencies.", schema)
    assert closed_choices(tool) == {}
    size = {"type": "object", "properties": {"size": STRING}, "required": ["size"]}
    assert closed_choices(ToolSpec("shoes", "Convert to the matching EU and US sizes.", size)) == {}
    assert closed_choices(ToolSpec("radio", "A station's FM/AM frequencies.", size)) == {}
    # A list after its own sentence's example is still one: "(e.g. 7). One of EU or US."
    both = ToolSpec("shoes", "A size (e.g. 7). Convert it to EU or US.", size)
    assert closed_choices(both) == {"size": ["EU", "US"]}


def test_a_value_said_without_its_ending_is_said() -> None:
    fuel = {"type": "string", "enum": ["gas", "electricity"]}
    tool = ToolSpec("top_up", "Top up a meter.", {"properties": {"fuel": fuel}})
    choices = closed_choices(tool)
    assert said_values(tool, "top up the electric by £25", choices) == {"fuel": "electricity"}
    assert said_values(tool, "top up the gas by £15", choices) == {"fuel": "gas"}
    # Too short a word to say a value: "elec" is not taken for it.
    assert said_values(tool, "top up the elec", choices) == {}


def test_a_currency_code_is_said_by_its_name() -> None:
    choices = closed_choices(CURRENCY)
    assert said_values(CURRENCY, "convert 100 euros to dollars", choices) == {"currency": "USD"}
    assert said_values(CURRENCY, "how many quid is 50 euros", choices) == {"currency": "GBP"}
    # Another country's dollars are not the US one.
    assert said_values(CURRENCY, "100 euros in canadian dollars", choices) == {}


def test_a_value_is_said_in_the_singular_or_the_plural() -> None:
    cause = {"type": "string", "enum": ["any", "animals", "food banks", "news"]}
    tool = ToolSpec("volunteer", "Volunteering roles.", {"properties": {"cause": cause}})
    choices = closed_choices(tool)
    assert said_values(tool, "food bank roles in York", choices) == {"cause": "food banks"}
    assert said_values(tool, "helping with an animal shelter", choices) == {"cause": "animals"}
    assert said_values(tool, "anything new in Leeds?", choices) == {}  # "news" is no plural


def test_the_default_is_not_meant_when_another_value_is_said() -> None:
    network = {"type": "string", "enum": ["any", "EE", "Vodafone"], "default": "any"}
    tool = ToolSpec("mobile_coverage", "Signal.", {"properties": {"network": network}})
    choices = closed_choices(tool)
    assert said_values(tool, "is there any EE signal in Glencoe?", choices) == {"network": "EE"}
    assert said_values(tool, "any signal in Glencoe?", choices) == {"network": "any"}


def test_a_value_said_elsewhere_in_the_request_holds_for_a_call_that_says_none() -> None:
    network = {"type": "string", "enum": ["any", "EE", "Vodafone"], "default": "any"}
    tool = ToolSpec("mobile_coverage", "Signal.", {"properties": {"network": network}})
    choices = closed_choices(tool)
    request = "I'm with Vodafone. What's the signal like in Tobermory and in Glencoe?"
    assert said_in(tool, "in Glencoe?", request, choices) == {"network": "Vodafone"}
    assert said_in(tool, "EE in Glencoe?", request, choices) == {"network": "EE"}


def test_a_letter_alone_is_said_in_capitals_or_after_its_parameters_name() -> None:
    band = {"type": "string", "enum": list("ABCDEFGH"), "default": "D"}
    tool = ToolSpec("council_tax", "Council tax.", {"properties": {"band": band}})
    choices = closed_choices(tool)
    assert said_values(tool, "We're about to buy a band C terrace", choices) == {"band": "C"}
    assert said_values(tool, "band d council tax in leeds", choices) == {"band": "D"}
    assert said_values(tool, "what is a council tax bill?", choices) == {}  # an article


def test_a_value_is_said_by_the_words_no_other_value_has() -> None:
    from tiller.models.local.value_choice import said_in_its_own_words

    vehicles = ["car", "van", "car towing caravan", "lorry"]
    asked = "What's the speed limit on a motorway when towing a caravan?"
    assert said_in_its_own_words("car towing caravan", vehicles, asked)
    assert not said_in_its_own_words("car towing caravan", vehicles, "towing a trailer")
    assert not said_in_its_own_words("van", vehicles, asked)  # one word: said outright or not


def test_a_value_whose_words_are_each_said_beats_one_of_some_of_them() -> None:
    size = {"type": "string", "enum": ["first", "second", "large_first", "large_second"]}
    tool = ToolSpec("postage", "Postage.", {"properties": {"size": size}})
    choices = closed_choices(tool)
    said = said_values(tool, "5 large letter second class stamps", choices)
    assert said == {"size": "large_second"}
    assert said_values(tool, "5 second class stamps", choices) == {"size": "second"}
    # Values of the same words in another order are not told apart by them.
    conversion = {"type": "string", "enum": ["miles_to_km", "km_to_miles"]}
    tool = ToolSpec("convert", "Convert.", {"properties": {"conversion": conversion}})
    assert said_values(tool, "convert 5 miles to km", closed_choices(tool)) == {}


def test_a_month_is_said_by_its_abbreviation() -> None:
    months = [
        "january", "february", "march", "april", "may", "june",
        "july", "august", "september", "october", "november", "december",
    ]  # fmt: skip
    month = {"type": "string", "enum": months}
    tool = ToolSpec("birthstone", "Birthstone for a month.", {"properties": {"month": month}})
    assert said_values(tool, "birthstone for nov please", closed_choices(tool)) == {
        "month": "november"
    }
    assert said_values(tool, "sept", closed_choices(tool)) == {"month": "september"}
    assert said_values(tool, "the jane austen novels", closed_choices(tool)) == {}


def test_the_one_word_that_sets_a_value_apart_says_it() -> None:
    timing = ["fasting", "before_meal", "after_meal", "bedtime"]
    tool = ToolSpec(
        "log_sugar",
        "Records a glucose reading.",
        {"type": "object", "properties": {"timing": {"type": "string", "enum": timing}}},
        "write_local",
    )
    choices = closed_choices(tool)
    assert said_values(tool, "7.7 after lunch", choices) == {"timing": "after_meal"}
    assert said_values(tool, "6.1 before dinner", choices) == {"timing": "before_meal"}
    # A short word ("on") sets nothing apart.
    power = ["on_battery", "on_mains"]
    assert said_in_its_own_words("on_mains", power, "charge it on mains") is not None
    assert said_in_its_own_words("in_car", ["in_car", "at_home"], "put it in there") is None
