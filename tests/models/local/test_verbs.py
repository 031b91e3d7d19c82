"""The job a request's verb names, and the tools that do it."""

from __future__ import annotations

from tiller.models import ToolSpec
from tiller.models.local.preferences import (
    an_amount_off_to_a_counting_tool,
    named_as_the_target,
    named_by_verb,
)
from tiller.models.local.verbs import job_of, request_job, tool_jobs


def test_a_request_names_a_job_with_the_verb_that_opens_a_clause() -> None:
    assert request_job("Show me notes.txt") == job_of("read")
    assert request_job("Could you please print lines 3 to 5?") == job_of("read")
    assert request_job("grep for Priya") == job_of("search")
    assert request_job("Where is the port set?") == job_of("search")
    assert request_job("Is it cold? Then convert 20 euros to yen") == job_of("convert")
    # A job word inside a clause is not what the clause asks for.
    assert request_job("What is a Python list comprehension?") is None
    assert request_job("Hello there") is None


def test_a_tool_does_the_jobs_its_name_and_leading_verb_say() -> None:
    assert tool_jobs("read_file", "Read a text file.") == {job_of("read")}
    assert tool_jobs("shell", "Run a shell command.") == {job_of("run")}
    assert tool_jobs("set_reminder", "Remind me at a time.") == {job_of("set"), job_of("remind")}
    assert tool_jobs("get_weather", "Current weather for a city.") == set()


def test_the_best_ranked_tool_doing_the_named_job_is_chosen() -> None:
    def spec(name: str, description: str) -> ToolSpec:
        return ToolSpec(name, description, {"type": "object", "properties": {}})

    search = spec("search", "Search the files for a pattern.")
    read = spec("read_file", "Read a text file.")
    listing = spec("list_files", "List files and directories.")
    ranked = [search, listing, read]
    assert named_by_verb("Show me notes.txt", ranked) is read
    assert named_by_verb("ls", ranked) is listing
    assert named_by_verb("Find TODO", ranked) is search
    assert named_by_verb("What does config.toml say?", ranked) is None  # ranking decides


def test_the_words_that_ask_are_not_values() -> None:
    from tiller.models.local.verbs import without_instruction

    assert without_instruction("run ls -la for me") == "ls -la for me"
    assert without_instruction("Can you please search for port?") == "for port?"
    assert without_instruction("Is it cold in Oslo? Then convert 20 euros.") == (
        "Is it cold in Oslo? 20 euros."
    )
    assert without_instruction("What is 5 + 5?") == "What is 5 + 5?"
    assert without_instruction("Run") == "Run"  # nothing would be left


def test_a_tool_whose_name_holds_a_word_of_the_request_is_chosen() -> None:
    from tiller.models.local.tool_words import named_by_words

    def spec(name: str) -> ToolSpec:
        return ToolSpec(name, "", {"type": "object", "properties": {}})

    time_tool, weather = spec("get_time"), spec("get_weather")
    assert named_by_words("wats the weather in madrid", [time_tool, weather]) is weather
    assert named_by_words("Which files are in docs?", [spec("search"), spec("list_files")])
    assert named_by_words("how hot is it in Seoul?", [time_tool, weather]) is None
    assert named_by_words("set it", [spec("set_reminder")]) is None  # "set" is a verb, short
    # A word a better-ranked tool's summary says too tells neither apart.
    collection = ToolSpec(
        "request_bulky_waste_collection",
        "Ask the local council to collect large household items. A fee may apply.",
        {"type": "object", "properties": {}},
    )
    tax = spec("council_tax_rates")
    request = "Can you book the council to collect an old fridge"
    assert named_by_words(request, [collection, tax]) is collection
    assert named_by_words("council tax in Leeds", [tax, collection]) is tax
    # ... but not the name's word alone: "times" of sunrise is no time of day.
    sunrise = ToolSpec("sunrise_sunset", "Sunrise and sunset times for a city.", {})
    assert named_by_words("And what time is it there now?", [sunrise, time_tool]) is time_tool
    # A better-ranked tool whose summary says more of the request's other words than the
    # named tool's does is what the request asks of.
    tip = ToolSpec("recycling_centre_hours", "Opening hours of the recycling centre (the tip).", {})
    clock = ToolSpec("get_time", "Current local time in a city.", {})
    assert named_by_words("glasgow tip opening times pls", [tip, clock]) is tip
    assert named_by_words("what time is it in glasgow", [tip, clock]) is clock


def test_of_tools_doing_the_job_the_one_that_says_the_verb_itself_is_named() -> None:
    sms = ToolSpec("send_sms", "Send a text message (SMS) to a phone number.", {}, "external")
    email = ToolSpec("send_email", "Send an email message to someone.", {}, "external")
    assert named_by_verb("email Priya that I'm late", [sms, email]) == email
    assert named_by_verb("text Priya that I'm late", [email, sms]) == sms  # its description
    assert named_by_verb("send Priya a note", [sms, email]) == sms  # both: the best-ranked


def test_marking_and_a_verb_after_a_remark_name_their_jobs() -> None:
    assert request_job("mark 'Read from standard input' as done in todo.md") == job_of("edit")
    assert request_job("In todo.md, tick off the item") == job_of("edit")
    assert request_job("We're releasing 2.0.0, update the version in config.toml") == job_of("edit")
    # After a comma, only a verb of action opens an instruction: "new York" is a name.
    assert request_job("time in oslo, paris, new york?") is None


def test_a_new_file_asked_for_is_the_job_of_creating_one() -> None:
    from tiller.models.local.candidates import job_asked

    assert job_asked("Save 'Call the shop' into a new file reminders.txt") == job_of("create")
    assert job_asked("Start a changelog: a new file CHANGELOG.md") == job_of("create")
    assert job_asked("show me notes.txt") == job_of("read")


def test_bumping_a_value_is_editing() -> None:
    edit = ToolSpec("edit_file", "Replace an exact piece of text in a file.", {})
    write = ToolSpec("write_file", "Create a file, or replace its whole content.", {})
    request = "Please bump the version in config.toml to 1.5.0."
    assert named_by_verb(request, [write, edit]) is edit


def test_an_amount_taken_off_goes_to_a_tool_that_counts_down() -> None:
    change = {"type": "integer", "description": "Units to add, or remove (negative)."}
    finder = ToolSpec(
        "shelf_finder",
        "Where a product is.",
        {"type": "object", "properties": {"item": {"type": "string"}}},
        "read",
    )
    counts = ToolSpec(
        "adjust_count",
        "Changes a product's count.",
        {"type": "object", "properties": {"item": {"type": "string"}, "change": change}},
        "write_local",
    )
    ranked = [finder, counts]
    assert an_amount_off_to_a_counting_tool("take 2 off the honey count", ranked) == [
        counts,
        finder,
    ]
    assert an_amount_off_to_a_counting_tool("where's the honey kept?", ranked) == ranked


def test_the_thing_an_instruction_puts_something_in_may_be_named_in_several_words() -> None:
    route = {"route": {"type": "string"}, "grade": {"type": "string"}}
    log = ToolSpec(
        "log_climb", "Logs a climb.", {"type": "object", "properties": route}, "write_local"
    )
    grades = ToolSpec(
        "convert_grade", "Converts a grade.", {"type": "object", "properties": route}, "read"
    )
    asked = "Put The Slab in my climbing log please, it's a 5c"
    assert named_as_the_target(asked, [grades, log]) is log
    assert named_as_the_target("what is a 5c in the V scale?", [grades, log]) is None
