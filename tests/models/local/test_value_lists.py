"""A list of values written alike asks the request once per value."""

from __future__ import annotations

from tiller.models import ToolSpec
from tiller.models.local.subjects import Choice
from tiller.models.local.value_lists import each_value, merged, shape


def _tool(name: str, **params: dict[str, object]) -> ToolSpec:
    schema = {"type": "object", "properties": params, "required": list(params)}
    return ToolSpec(name, f"The {name} tool.", schema, "read")


STRING: dict[str, object] = {"type": "string"}
NUMBER: dict[str, object] = {"type": "integer"}
STATUS = _tool("ticket_status", ticket=STRING)
READ_LINES = _tool("read_lines", path=STRING, start=NUMBER, end=NUMBER)
CALCULATOR = _tool("calculator", expression={"type": "string", "description": "Expression"})


def test_values_written_alike_have_one_shape() -> None:
    assert shape("LS6 2AA") == shape("G12 8QQ")
    assert shape("07700 900123") == shape("07700 900789")
    assert shape("PA-3318207") == shape("PA-6093355")
    assert shape("4418") == shape("12")
    assert shape("BA117") != shape("4418")


def test_a_list_of_codes_numbers_or_postcodes_asks_once_per_value() -> None:
    assert each_value("check tickets 4418, 4502 and 5110 for me", STATUS) == [
        "check tickets 4418 for me",
        "check tickets 4502 for me",
        "check tickets 5110 for me",
    ]
    assert each_value("data usage on 07700 900123 and 07700 900789 please", STATUS) == [
        "data usage on 07700 900123 please",
        "data usage on 07700 900789 please",
    ]
    assert each_value("Polling stations for LS6 2AA and G12 8QQ? We're comparing.", STATUS) == [
        "Polling stations for LS6 2AA? We're comparing.",
        "Polling stations for G12 8QQ? We're comparing.",
    ]
    assert each_value("freeze the cards ending 1142 & 9087", STATUS) == [
        "freeze the cards ending 1142",
        "freeze the cards ending 9087",
    ]
    assert each_value("The refs are PA-3318207 and PA-6093355.", STATUS) == [
        "The refs are PA-3318207.",
        "The refs are PA-6093355.",
    ]


def test_registrations_and_the_lines_of_a_list_are_values_too() -> None:
    assert each_value("check the tax on YR68 HGT and WD21 PMO", STATUS) == [
        "check the tax on YR68 HGT",
        "check the tax on WD21 PMO",
    ]
    assert each_value("broadband for these please:\n- G12 8QQ\n- PL20 6HB", STATUS) == [
        "broadband for these please:\n- G12 8QQ",
        "broadband for these please:\n- PL20 6HB",
    ]
    assert each_value("tickets 4418 AND 4502", STATUS) == []  # "AND" is no capitals of a code
    assert each_value("what is 10 - 4 and 5", STATUS) == []  # a minus, not a list's dash


def test_values_of_different_shapes_names_or_one_value_are_no_list() -> None:
    assert each_value("flight BA117 and ticket 4418", STATUS) == []
    assert each_value("the weather in Paris and Oslo", STATUS) == []
    assert each_value("check ticket 4418 and tell me the time", STATUS) == []
    assert each_value("check ticket 4418 and 4418", STATUS) == []


def test_a_range_a_sum_or_a_quoted_text_is_one_value() -> None:
    assert each_value("open between 9 and 5", STATUS) == []
    assert each_value("add 19 and 23", STATUS) == []
    assert each_value("Add up 128, 256 and 512.", STATUS) == []
    assert each_value("What is 12 and 30 added together?", STATUS) == []
    assert each_value("what's 12 * 7 and 144 / 12", STATUS) == []
    assert each_value("it took 2 and a half hours", STATUS) == []
    assert each_value("count the words in '4418, 4502 and 5110'", STATUS) == []


def test_numbers_alone_are_one_value_for_a_tool_taking_two_numbers_or_an_expression() -> None:
    assert each_value("what's on lines 2 and 3 of notes.txt?", READ_LINES) == []
    assert each_value("what's 45 and 38", CALCULATOR) == []
    # Codes are no numbers to take together.
    assert len(each_value("check BX-2 and BX-3", READ_LINES)) == 2


def test_a_tool_taking_a_list_takes_the_values_together() -> None:
    options: dict[str, object] = {"type": "array", "items": STRING}
    poll = _tool("create_group_poll", group=STRING, options=options)
    assert each_value("a poll in Family: the 12th, 19th and 26th?", poll) == []
    assert len(each_value("a poll in Family: the 12th, 19th and 26th?", STATUS)) == 3


def test_a_clause_the_values_do_not_touch_is_asked_once() -> None:
    weather = _tool("get_weather", city=STRING)
    first = [Choice(STATUS, "check ticket 4418"), Choice(weather, "weather in Paris")]
    second = [Choice(STATUS, "check ticket 4502"), Choice(weather, "weather in Paris")]
    assert [c.text for c in merged([first, second])] == [
        "check ticket 4418",
        "weather in Paris",
        "check ticket 4502",
    ]


def test_a_continued_choice_points_at_its_clause_once_merged() -> None:
    first = [Choice(STATUS, "ticket 4418 at the shop"), Choice(STATUS, "and 9", continues=0)]
    second = [Choice(STATUS, "ticket 4502 at the shop"), Choice(STATUS, "and 9", continues=0)]
    found = merged([first, second])
    assert [(c.text, c.continues) for c in found] == [
        ("ticket 4418 at the shop", None),
        ("and 9", 0),
        ("ticket 4502 at the shop", None),
        ("and 9", 2),
    ]


def test_a_note_in_brackets_after_each_value_goes_with_it() -> None:
    request = "refunds needed on two orders: 302-1184 (faulty) and 302-1190 (not delivered)"
    assert each_value(request, STATUS) == [
        "refunds needed on two orders: 302-1184 (faulty)",
        "refunds needed on two orders: 302-1190 (not delivered)",
    ]


def test_codes_of_capitals_alone_are_listed_for_a_tool_whose_example_is_one() -> None:
    described = {"type": "string", "description": "Three-letter IATA airport code, e.g. LHR"}
    airport = ToolSpec(
        "airport_info",
        "Look up an airport.",
        {"type": "object", "properties": {"code": described}, "required": ["code"]},
        "read",
    )
    assert each_value("KEF and FAO - which airports are they", airport) == [
        "KEF - which airports are they",
        "FAO - which airports are they",
    ]
    assert each_value("is the UK or the EU stricter?", airport) == []  # not three letters
    assert each_value("KEF and FAO", STATUS) == []  # capitals are no code STATUS takes


BIRTHDAY = _tool("state_pension_age", date_of_birth={"type": "string", "description": "YYYY-MM-DD"})
PERIOD = _tool(
    "holidays",
    start={"type": "string", "description": "First day, YYYY-MM-DD"},
    end={"type": "string", "description": "Last day, YYYY-MM-DD"},
)


def test_each_whole_date_asks_once_for_a_tool_that_takes_one_date() -> None:
    asked = each_value("I was born 3 Dec 1970, he was born 19 July 1985.", BIRTHDAY)
    assert asked == ["I was born 3 Dec 1970, he was born.", "I was born, he was born 19 July 1985."]
    assert each_value("from 1 May 2025 to 9 May 2025", PERIOD) == []
    assert each_value("I was born 3 Dec 1970", BIRTHDAY) == []


def test_values_that_repeat_the_same_word_are_listed_with_it() -> None:
    colour = _tool("colour_code_lookup", code=STRING)
    assert each_value("what are RAL 9010 and RAL 6005?", colour) == [
        "what are RAL 9010?",
        "what are RAL 6005?",
    ]
    size = _tool("bike_frame_size", height_cm=NUMBER)
    assert each_value("My twins are 140 cm and 147 cm - what size for each?", size) == [
        "My twins are 140 cm - what size for each?",
        "My twins are 147 cm - what size for each?",
    ]
    assert each_value("from 9 am and 5 am", size) == []


def test_a_dash_before_words_is_no_minus() -> None:
    assert each_value("tickets 4418 and 4502 - any news?", STATUS) == [
        "tickets 4418 - any news?",
        "tickets 4502 - any news?",
    ]
    assert each_value("what's 12 and 7 - 3", STATUS) == []


WEIGH_IN = ToolSpec(
    "log_weight",
    "Records a body weight.",
    {
        "type": "object",
        "properties": {
            "kilograms": {"type": "number"},
            "timing": {"type": "string", "enum": ["before_breakfast", "after_gym"]},
        },
        "required": ["kilograms", "timing"],
    },
    "write_local",
)
RESTOCK = _tool("order_stock", supplier=STRING, product=STRING, quantity=NUMBER)
ADD_TASK = _tool(
    "add_task",
    subject=STRING,
    task=STRING,
    due={"type": "string", "description": "Due date as YYYY-MM-DD."},
)


def test_each_entry_listed_after_a_heading_is_asked_with_the_heading() -> None:
    assert each_value(
        "Record two weights: 71.2 before breakfast, and 70.4 after gym", WEIGH_IN
    ) == [
        "Record weights: 71.2 before breakfast",
        "Record weights: 70.4 after gym",
    ]
    assert each_value(
        "Order from Costco: 3 boxes of nappies, 2 packs of wipes and 6 tins of formula", RESTOCK
    ) == [
        "Order from Costco: 3 boxes of nappies",
        "Order from Costco: 2 packs of wipes",
        "Order from Costco: 6 tins of formula",
    ]


def test_quoted_passages_listed_ask_once_each_without_the_number_that_counts_them() -> None:
    recipe = ToolSpec(
        "save_recipe_card",
        "Save a recipe.",
        {
            "type": "object",
            "properties": {
                "title": STRING,
                "ingredients": {"type": "array", "items": STRING},
                "servings": NUMBER,
            },
            "required": ["title"],
        },
        "write_local",
    )
    asked = "Save two recipes for me: 'Nan's Welsh Cakes' and 'Quick Tomato Soup'. Ta."
    assert each_value(asked, recipe) == [
        "Save recipes for me: 'Nan's Welsh Cakes'. Ta.",
        "Save recipes for me: 'Quick Tomato Soup'. Ta.",
    ]
    # One quoted passage, or a tool that requires its list, is asked once.
    assert each_value("Save 'Nan's Welsh Cakes' for 2", recipe) == []
    poll = _tool("create_poll", question=STRING, options={"type": "array", "items": STRING})
    assert each_value("a poll: 'pizza' or 'sushi'?", poll) == []


def test_a_number_written_with_a_parameters_unit_is_that_parameters_only() -> None:
    fill_up = _tool(
        "log_fuel_fillup",
        litres={"type": "number", "description": "Litres of fuel put in"},
        total_cost={"type": "number", "description": "Amount paid in pounds"},
        odometer_miles={"type": "integer"},
    )
    asked = "Forgot to log two fill-ups: 40 litres on Monday and 35.5 litres yesterday."
    assert each_value(asked, fill_up) == [
        "Forgot to log fill-ups: 40 litres on Monday",
        "Forgot to log fill-ups: 35.5 litres yesterday",
    ]


def test_entries_holding_commas_are_split_at_semicolons() -> None:
    asked = "Two tasks: physics - lab report, due 2026-01-10; art - sketch a bowl, due 2026-01-12"
    assert each_value(asked, ADD_TASK) == [
        "tasks: physics - lab report, due 2026-01-10",
        "tasks: art - sketch a bowl, due 2026-01-12",
    ]


def test_values_of_one_entry_are_no_list_of_entries() -> None:
    # The sheet's numbers and the date are values of one task, not two tasks.
    assert (
        each_value("add a physics task: problems 3-9 of sheet 2B, due 2026-01-10", ADD_TASK) == []
    )
    # A tool that takes one value is asked once per value, the heading kept as it is.
    assert each_value("Look these up: 4418, and 4502", STATUS) == [
        "Look these up: 4418",
        "Look these up: 4502",
    ]


def test_instructions_questions_or_sentences_after_a_heading_are_no_entries() -> None:
    # Entries that are instructions of their own, or that run into the next sentence.
    assert each_value("Two jobs: order 4 boxes of pens, and remind me at 9am", RESTOCK) == []
    assert each_value("Restock: aisle 4, bay C. Then order 6 boxes of tape", RESTOCK) == []
    # A question about a range of lines is no list of entries.
    lines = _tool("read_lines", path=STRING, start_line=NUMBER, end_line=NUMBER)
    assert each_value("notes.md: what's on lines 4 and 5?", lines) == []
    # A noun that is also a verb opens an entry as well: "book club thursday 8pm".
    event = _tool("add_event", title=STRING, day=STRING, duration_minutes=NUMBER)
    assert each_value("add to planner: swim on monday for 45, book club friday for 90", event) == [
        "add to planner: swim on monday for 45",
        "add to planner: book club friday for 90",
    ]
