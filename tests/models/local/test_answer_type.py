"""A which/what question goes to a tool only when the tool speaks of what it asks for."""

from __future__ import annotations

from tiller.models import ToolSpec
from tiller.models.local.answer_type import answers_what_is_asked, asked_for, speaks_of


def _tool(name: str, description: str, **params: dict[str, object]) -> ToolSpec:
    schema = {"type": "object", "properties": params, "required": list(params)}
    return ToolSpec(name, description, schema, "read")


TERMS = _tool(
    "school_term_dates",
    "School term and holiday dates for an area.",
    area={"type": "string", "description": "Town or county"},
)
JABS = _tool(
    "travel_vaccinations",
    "Vaccinations recommended before travelling to a country.",
    country={"type": "string"},
    traveller={"type": "string", "enum": ["adult", "child"]},
)
PLUGS = _tool("plug_adapter", "The plug type and voltage a country uses.", country={})


def test_the_thing_asked_for_runs_from_which_or_what_to_the_verb_or_pronoun() -> None:
    assert asked_for("Which river runs through Vienna?") == ["river", "runs"]
    assert asked_for("what clothes should I pack?") == ["clothes"]
    assert asked_for("what kind of mic should a beginner get") == ["mic"]
    assert asked_for("which markdown files mention tally") == ["markdown", "files", "mention"]


def test_the_thing_asked_for_follows_a_name_whose_it_is() -> None:
    assert asked_for("Check what Spice Garden's hygiene rating is") == ["hygiene", "rating"]
    assert asked_for("which one's cheaper for a day?") == []  # "one is", no name's
    # A name of its own after "what" asks what it does or costs, no kind of thing.
    assert asked_for("Can you compare what St Margaret's Church Hall charge?") == []


def test_a_question_put_to_others_asks_nothing_of_the_tool() -> None:
    request = "put a poll in the Family chat asking which Sunday works for lunch"
    assert asked_for(request) == []
    assert asked_for("ask the family what pudding they want") == []
    assert asked_for("I'm wondering which pudding to make") == ["pudding"]


def test_a_question_asking_for_nothing_in_particular_has_no_thing() -> None:
    assert asked_for("what is the weather in Oslo?") == []
    assert asked_for("what about Edinburgh?") == []
    assert asked_for("what time does the last train leave?") == []  # any tool's answer
    assert asked_for("which day?") == []
    assert asked_for("tell me what petrichor means") == []  # about petrichor, not for one
    assert asked_for("how hot is it in Paris") == []


def test_a_tool_speaks_of_its_own_words_in_either_number_or_by_their_opening() -> None:
    assert speaks_of(JABS, ["vaccines"])  # "vaccinations"
    assert speaks_of(JABS, ["child"])  # a value of its closed set
    assert speaks_of(PLUGS, ["plugs"])
    assert speaks_of(TERMS, ["holidays"])
    assert not speaks_of(TERMS, ["river", "runs"])
    assert not speaks_of(JABS, ["clothes"])
    produce = ToolSpec(
        "seasonal_produce",
        "Which fruit and vegetables are in season in a given month.",
        {"type": "object", "properties": {"month": {"type": "string"}}, "required": ["month"]},
        "read",
    )
    assert speaks_of(produce, ["veg"])  # a word cut short
    assert not speaks_of(produce, ["sea"])  # a word of its own inside "season"


def test_a_tool_answers_only_questions_for_what_it_speaks_of() -> None:
    assert not answers_what_is_asked("Which river runs through Vienna?", TERMS)
    assert answers_what_is_asked("which holidays does Kent have?", TERMS)
    assert not answers_what_is_asked("off to Kenya - what clothes should I pack?", JABS)
    assert answers_what_is_asked("what vaccines does a child need for Kenya", JABS)
    # A part that asks for no thing of its own may be for the tool.
    assert answers_what_is_asked("Is it cold in Oslo? Deciding which jacket to grab", TERMS)
    # A file named is for a tool to look at, whatever is asked of it.
    assert answers_what_is_asked("which port is set in config.toml?", TERMS)


def test_a_check_whether_something_holds_answers_only_whether_it_does() -> None:
    visa = _tool(
        "check_visa_requirement",
        "Check whether a traveller needs a visa to visit a country.",
        country={"type": "string"},
    )
    assert not answers_what_is_asked("Which countries are in the Schengen area?", visa)
    assert not answers_what_is_asked("What do I need for a trip to Japan?", visa)
    assert answers_what_is_asked("Do I need a visa for Japan?", visa)
    assert answers_what_is_asked("Can you check if I need a visa for India?", visa)
    assert answers_what_is_asked("Which of these countries needs a visa: Japan?", visa)
    # A tool that reports more than yes or no answers such a question as before.
    assert answers_what_is_asked("what vaccines does a child need for Kenya", JABS)


def test_when_a_place_opens_or_closes_asks_for_its_hours_not_the_time_now() -> None:
    hours = _tool("pharmacy_hours", "Opening hours of a pharmacy.", location={"type": "string"})
    clock = _tool("get_time", "The current local time in a city.", city={"type": "string"})
    request = "what time does the chemist on westgate close"
    assert answers_what_is_asked(request, hours)
    assert not answers_what_is_asked(request, clock)
    assert answers_what_is_asked("what time is it in Lisbon?", clock)


def test_where_something_comes_from_asks_for_its_origin() -> None:
    names = _tool("name_meaning", "The origin and meaning of a first name.", first_name={})
    trails = _tool("hiking_trail_info", "Length and conditions of a walk.", trail={})
    request = "Where does the name Ben Nevis come from?"
    assert not answers_what_is_asked(request, trails)
    assert answers_what_is_asked(
        "We're calling the baby Freya. Where does that name come from?", names
    )


def test_how_far_asks_for_a_distance() -> None:
    stars = _tool("stargazing_forecast", "Cloud cover and moon phase for a town.", town={})
    trails = _tool("hiking_trail_info", "Distance and conditions of a walk.", trail={})
    assert not answers_what_is_asked("How far away is the Andromeda galaxy?", stars)
    assert answers_what_is_asked("How far is Pen y Fan?", trails)
