from __future__ import annotations

from tiller.models import ToolSpec
from tiller.models.local.places import (
    asks_about_a_place_now,
    holds_its_place,
    names_a_place,
    names_a_town,
    takes_a_place,
)

TOWN = {
    "type": "object",
    "properties": {"town": {"type": "string", "description": "Town or city, e.g. Malaga"}},
    "required": ["town"],
}


def test_a_parameter_takes_a_place_by_its_name_or_its_descriptions_first_word() -> None:
    assert takes_a_place("town", {"type": "string"})
    assert takes_a_place("beach", {"type": "string", "description": "The beach, e.g. Whitstable"})
    assert takes_a_place("where", {"type": "string", "description": "Town, district or postcode"})
    assert takes_a_place("pickup_location", {"type": "string"})
    assert not takes_a_place("food", {"type": "string", "description": "The food, e.g. hummus"})
    assert not takes_a_place("situation", {"description": "The injury, e.g. a burn at home"})


def test_a_parameter_whose_examples_are_no_names_takes_no_place() -> None:
    body = {"type": "string", "description": "Body area, e.g. lower back, hamstrings, neck"}
    assert not takes_a_place("area", body)
    assert not takes_a_place("location_code", {"description": "Code on the sign, e.g. 4521"})
    assert takes_a_place("area", {"description": "Town, district or postcode, e.g. Truro or BS3"})
    assert takes_a_place("town", {"description": "Town or city, e.g. 'Bristol'."})
    assert takes_a_place("area", {"type": "string"})


def test_a_place_is_named_by_a_capital_a_word_after_where_the_first_word_or_a_code() -> None:
    for named in (
        "is the sun strong in malaga today?",
        "Is it safe to swim at Whitstable today?",
        "any power cuts in kendal and hexham?",
        "brighton tides saturday?",
        "Check for power cuts in SW11, including any planned ones",
        "We're heading to Newquay for a surf lesson this afternoon.",
        "what time does the chemist on westgate close",
        "any free parking spaces at the airport rn? flying out early tmrw",
        "any ferries out of holyhead tmrw? need to get to dublin",
        "where's the nearest defib to ludlow market square?",
        "how high is ben nevis? having an argument with my brother about it",
    ):
        assert names_a_place(named), named
    for unnamed in (
        "what should I keep in the house for when the power goes out?",
        "does sunscreen still work if it's a year past its expiry date",
        "is hard water actually bad for you or just annoying for the kettle?",
        "What makes water hard in the first place?",
        "we need a team name for the quiz tonight, we're all nurses. ideas?",
        "Give me five tricky pub quiz questions about geography, with the answers.",
        "how's the weather looking for tomorrow?",
        "I'm not sure. Is it going to rain?",
        "is the water hard at the moment?",
        "is it safe on saturday?",
        "how do I get to sleep faster?",
        "how long is the flight?",
    ):
        assert not names_a_place(unnamed), unnamed


def test_a_tool_that_takes_a_place_needs_one_named() -> None:
    hardness = ToolSpec("water_hardness", "How hard the tap water is.", TOWN, "read")
    assert holds_its_place(hardness, "how hard is the water in Cambridge?")
    assert holds_its_place(hardness, "how much snow has whistler got right now")  # now
    assert not holds_its_place(hardness, "What makes water hard in the first place?")
    food = {"type": "object", "properties": {"food": {"type": "string"}}, "required": ["food"]}
    storage = ToolSpec("food_storage", "How long food keeps.", food, "read")
    assert holds_its_place(storage, "how long does cooked rice keep?")
    # A word just before the tool's own subject names its place.
    market = ToolSpec("farmers_market", "Farmers' market days in a town.", TOWN, "read")
    assert holds_its_place(market, "when's the winchester farmers' market on")
    assert not holds_its_place(market, "what's a farmers' market?")
    assert not holds_its_place(market, "what makes farmers market prices high?")


def test_a_place_named_as_it_is_now_is_looked_up() -> None:
    beach = {
        "type": "object",
        "properties": {"beach": {"type": "string", "description": "The beach, e.g. Whitstable"}},
        "required": ["beach"],
    }
    assert asks_about_a_place_now(beach, "Is it safe to swim at Whitstable today?")
    assert not asks_about_a_place_now(beach, "Is it safe to swim straight after eating?")
    assert not asks_about_a_place_now(beach, "Is it safe to swim at Whitstable in winter?")


def test_a_capitalised_name_where_something_is_names_a_town() -> None:
    assert names_a_town("Are there any electrician vacancies in Manchester at the moment?")
    assert names_a_town("anything near Leeds?")
    assert not names_a_town("barista jobs starting in May")
    assert not names_a_town("any electrician jobs in the area?")
    assert not names_a_town("jobs in leeds")  # lower case may be anything: "in time"
