"""Each rule of the tool chooser, apart from the model: scores are fixed in advance."""

from __future__ import annotations

from collections.abc import Sequence

from tiller.models import ToolSpec
from tiller.models.local.candidates import candidates
from tiller.models.local.chooser import ToolChooser
from tiller.models.local.subjects import Choice, asked_again_of, only_names
from tiller.models.local.tool_words import asks_its_action, sets_a_setting, topic_words


def _tool(name: str, effect: str | None = "read", **params: dict[str, object]) -> ToolSpec:
    return _described(name, f"The {name} tool.", effect, **params)


def _described(
    name: str, description: str, effect: str | None = "read", **params: dict[str, object]
) -> ToolSpec:
    """A tool whose parameters are all required."""
    schema = {"type": "object", "properties": params, "required": list(params)}
    return ToolSpec(name, description, schema, effect)


STRING: dict[str, object] = {"type": "string"}
WEATHER = _tool("get_weather", city=STRING)
CALCULATOR = _tool("calculator", expression=STRING)
CONVERT = _tool("convert_currency", amount={"type": "number"}, currency=STRING)
READ = _tool("read_file", path={"type": "string", "description": "File path."})
LIST = _tool("list_files")
WRITE = _tool("write_file", "write_local", path=STRING, content=STRING)
SHELL = _tool("shell", "external", command=STRING)


class Fixed:
    """Relevance by tool name, the same for every request unless given per request."""

    def __init__(
        self,
        scores: dict[str, float],
        per_request: dict[str, dict[str, float]],
        topics: dict[str, float] | None = None,
    ):
        self.default = scores
        self.per_request = per_request
        self.topics = topics or {}
        self.asked: list[str] = []

    def about(self, request: str, subjects: Sequence[str]) -> list[float]:
        return [self.topics.get(s, 0.0) for s in subjects]

    def scores(self, request: str, tools: Sequence[ToolSpec]) -> list[tuple[str, float]]:
        self.asked.append(request)
        table = self.per_request.get(request, self.default)
        found = [(t.name, table.get(t.name, -9.0)) for t in tools]
        return sorted(found, key=lambda pair: pair[1], reverse=True)


def chooser(scores: dict[str, float], **per_request: dict[str, float]) -> ToolChooser:
    return ToolChooser(Fixed(scores, per_request), threshold=0.0)


def names(choices: list[Choice]) -> list[str]:
    return [c.tool.name for c in choices]


def test_decide_calls_the_best_tool_above_the_threshold_or_none() -> None:
    tools = [WEATHER, CALCULATOR]
    assert names(chooser({"get_weather": 0.4}).choose("rain in Oslo?", tools)) == ["get_weather"]
    assert chooser({"get_weather": -0.1}).choose("hello there", tools) == []
    assert chooser({"get_weather": 0.4}).choose("   ", tools) == []
    assert chooser({"get_weather": 0.4}).choose("rain in Oslo?", []) == []


def test_a_tool_whose_required_values_the_request_lacks_is_passed_over() -> None:
    tools = [CONVERT, CALCULATOR, WEATHER]
    scores = {"convert_currency": 0.5, "calculator": 0.4, "get_weather": 0.3}
    assert names(chooser(scores).choose("convert 20 euros", tools)) == ["convert_currency"]
    assert names(chooser(scores).choose("convert twenty euros", tools)) == ["convert_currency"]
    # Without a number the next tool that can be filled is called, if relevant enough.
    assert names(chooser(scores).choose("cash or card in Oslo?", tools)) == ["get_weather"]
    weak = {**scores, "get_weather": -0.2}
    assert chooser(weak).choose("cash or card in Oslo?", tools) == []
    # "files" is not a file's name: listing is the tool that can be filled.
    listing = {"read_file": 0.6, "list_files": 0.3}
    assert names(chooser(listing).choose("What files are here?", [READ, LIST])) == ["list_files"]


def test_a_text_asked_for_in_the_reply_gets_no_changing_tool() -> None:
    email = _tool("send_email", "external", to=STRING, body=STRING)
    tools = [WRITE, SHELL, READ, email]
    for request in [
        "Write a one-paragraph release announcement for version 1.5. Just put it in the chat",
        "write notes.txt a short intro, paste it here so I can copy it",
        "Draft an email to ana@example.com about the launch, don't send it yet",
        "write a haiku about tally.py, no need to save it",
        "Write the changelog entry for src/tally.py - not to a file, I'll paste it myself",
    ]:
        assert not {t.name for t in candidates(request, tools)} & {
            "write_file",
            "shell",
            "send_email",
        }
    # Where in the workspace, or one change refused for another, still asks for a change.
    assert WRITE in candidates("create notes.txt saying hi and put it here in src/", tools)
    assert WRITE in candidates("don't create a new file, write hi to notes.txt", tools)


def test_a_text_kept_in_the_reply_about_nothing_to_read_gets_no_tool() -> None:
    scores = {"write_file": 0.9, "list_files": 0.5, "read_file": 0.4}
    tools = [WRITE, LIST, READ]
    regex = "Write me a regex that matches a UK postcode - just in your reply, no files please."
    assert names(chooser(scores).choose(regex, tools)) == []
    # A file or a folder named is read for the reply.
    summary = "write me a summary of notes.txt"
    assert names(chooser(scores).choose(summary, tools)) == ["read_file"]


def test_what_the_speaker_will_write_beside_a_question_is_no_call_to_write() -> None:
    # It called `write_file({"path": "config.toml", "content": "config.toml"})`.
    request = "What's the version number in config.toml? I need to write it into my notes."
    assert candidates(request, [WRITE, READ]) == [READ]
    scores = {"write_file": 0.9, "read_file": 0.2}
    assert names(chooser(scores).choose(request, [WRITE, READ])) == ["read_file"]


def test_a_change_put_off_beside_a_question_is_no_call_of_its_own() -> None:
    # It called `shell` for "I want to fix ..." beside the search, and `edit_file` once.
    search = _tool("search", pattern=STRING)
    request = "I want to fix the usage message at some point. Which file has the text 'usage'?"
    scores = {"shell": 0.9, "search": 0.5}
    assert names(chooser(scores).choose(request, [SHELL, search])) == ["search"]
    later = "note to self: fix empty-line handling later. for now just show me src/tally.py"
    assert names(chooser({"shell": 0.9, "read_file": 0.5}).choose(later, [SHELL, READ])) == [
        "read_file"
    ]


def test_a_request_to_look_gets_no_changing_tool_whatever_its_words_of_changing() -> None:
    # Each called `write_file`, `edit_file` or `shell` on the file it asked to see.
    edit = _tool("edit_file", "write_local", path=STRING, old=STRING, new=STRING)
    tools = [WRITE, edit, SHELL, READ]
    scores = {"write_file": 0.9, "edit_file": 0.8, "shell": 0.7, "read_file": 0.2}
    for request in [
        "Delete todo.md? No, not yet. Just show me what's in it.",
        "todo.md: remove the done items (I'll do it). What's left in it?",
        "Update: the tests pass now. What's in notes.txt?",
        "Fix nothing yet. Which tests are in src/test_tally.py?",
        "Run through README.md and tell me what it covers",
        "make sense of config.toml for me",
        "Can you write me a summary of notes.txt?",
        "Copy the first line of README.md here",
        "Edit suggestions for README.md? show me it first",
        "Don't run anything - just tell me what's in src/tally.py",
        "Please don't run pytest, just show me src/test_tally.py",
        "update me on notes.txt - did I promise to ask anyone about anything?",
        "fix up my understanding here: which port is set in config.toml?",
        # A frame before a question: the question is what is asked.
        "Delete my doubts - does notes.txt mention Bob?",
        "Replace my guesswork with facts: how many lines does data.csv have?",
        "Set me straight: what's the version in config.toml?",
        # A change made to the speaker's mind, or the speaker set right.
        "Install some knowledge in me about config.toml",
        "Put me in the picture about notes.txt",
        "Patch up my memory of todo.md",
        # Writing down what a file says, for the reply.
        "Can you write down what line 3 of notes.txt says?",
        "Record for me what the first line of notes.txt is",
        # A text about a file, kept in the reply or with the file left alone.
        "Put together a quick summary of README.md",
        "Compile a list of the functions defined in src/tally.py",
        "Mark up the interesting bits of README.md for me in your reply",
        "Edit down README.md into three bullet points for me, don't touch the file",
    ]:
        assert names(chooser(scores).choose(request, tools)) == ["read_file"], request
    # A frame that names what it changes, or a request said as a question, still changes.
    for request in [
        "Bump the version in config.toml - what is it now?",
        "Quick one - can you change 'a' to 'b' in notes.txt?",
        "Record 'done' in notes.txt",
    ]:
        assert names(chooser(scores).choose(request, tools)) != ["read_file"], request


def test_a_version_number_is_no_file_to_write() -> None:
    # "1.5" was taken as a path: `write_file({"path": "1.5", "content": "1.5"})`.
    request = "Write a short release announcement for version 1.5 of the tool"
    assert WRITE not in candidates(request, [WRITE, READ])
    assert WRITE in candidates("Write a release announcement to notes/v1.5.md", [WRITE, READ])


def test_a_changing_tool_is_a_candidate_only_when_the_request_asks_for_a_change() -> None:
    tools = [WRITE, SHELL, READ, LIST]
    assert candidates("show me notes.txt", tools) == [READ]
    assert candidates("create notes.txt saying hi", tools) == [WRITE, SHELL, READ]
    scores = {"write_file": 0.9, "shell": 0.8, "read_file": 0.2}
    assert names(chooser(scores).choose("show me notes.txt", tools)) == ["read_file"]
    assert names(chooser(scores).choose("write notes.txt: hi", tools)) == ["write_file"]
    # A tool that declares no effect is not held back (the effect is unknown, not changing).
    undeclared = _tool("lookup", None, term=STRING)
    assert candidates("show me the term", [undeclared]) == [undeclared]


def test_clauses_that_each_decide_a_call_get_one_each() -> None:
    tools = [CALCULATOR, WEATHER]
    request = "What is 12 * 7, and what is the weather in Paris?"
    found = chooser(
        {"calculator": 0.5},
        **{"what is the weather in Paris?": {"get_weather": 0.6, "calculator": -1.0}},
    ).choose(request, tools)
    assert [(c.tool.name, c.text) for c in found] == [
        ("calculator", "What is 12 * 7"),
        ("get_weather", "what is the weather in Paris?"),
    ]


def test_a_short_part_naming_another_subject_continues_the_clause_before_it() -> None:
    found = chooser({"get_weather": 0.5}).choose("Weather in Paris and in Rome", [WEATHER])
    assert [(c.tool.name, c.text, c.continues) for c in found] == [
        ("get_weather", "Weather in Paris", None),
        ("get_weather", "in Rome", 0),
    ]


def test_one_subject_gets_one_call_from_the_whole_request() -> None:
    found = chooser({"calculator": 0.5}).choose("Add 19 and 23.", [CALCULATOR])
    assert [(c.tool.name, c.text) for c in found] == [("calculator", "Add 19 and 23.")]
    # A clause that needs no tool does not make a second call.
    found = chooser({"get_weather": 0.5}, **{"what should I wear?": {"get_weather": -0.3}}).choose(
        "What's the weather in Oslo and what should I wear?", [WEATHER]
    )
    assert [(c.tool.name, c.text) for c in found] == [
        ("get_weather", "What's the weather in Oslo and what should I wear?")
    ]
    # No call at all for the whole request means none for its parts either.
    assert chooser({"get_weather": -0.5}).choose("Hi and thanks a lot!", [WEATHER]) == []


def test_an_empty_text_answer_calls_the_best_candidate_whatever_its_relevance() -> None:
    tools = [WRITE, READ]
    found = chooser({"write_file": -3.0, "read_file": -5.0}).when_text_is_empty("notes.txt?", tools)
    assert names(found) == ["read_file"]  # never a changing tool for a request to look
    assert chooser({"get_weather": -5.0}).when_text_is_empty("hmm", [CONVERT]) == []


def test_an_error_that_names_an_offered_tool_is_acted_on() -> None:
    tools = [READ, LIST, WRITE]
    error = "'files' is a directory, not a file. Use list_files to see what it holds."
    found = ToolChooser.after_error(error, "read_file", "What files are here?", tools)
    assert [(c.tool.name, c.text) for c in found] == [("list_files", "What files are here?")]
    # Not the tool that failed, not a changing tool for a request to look, not an unnamed one.
    assert ToolChooser.after_error("use read_file", "read_file", "show a.txt", tools) == []
    assert ToolChooser.after_error("use write_file", "read_file", "show a.txt", tools) == []
    assert ToolChooser.after_error("no such file", "read_file", "show a.txt", tools) == []


def test_context_around_a_request_does_not_make_another_call() -> None:
    time_tool = _tool("get_time", city=STRING)
    # The second sentence decides the same tool but asks nothing of its own.
    found = chooser({"get_time": 0.5}).choose(
        "What time is it in Seoul? I have a call at noon.", [time_tool]
    )
    assert [c.text for c in found] == ["What time is it in Seoul? I have a call at noon."]
    # A question of its own does.
    found = chooser({"get_time": 0.5}).choose("Time in Seoul and time in Paris?", [time_tool])
    assert [c.text for c in found] == ["Time in Seoul", "time in Paris?"]
    # A question about the place told before, naming none of its own, asks of that place.
    cuts = _tool("power_cuts", area=STRING)
    request = "Lights just went out here in Kendal. Is it a wider power cut or just us?"
    found = chooser({"power_cuts": 0.5}).choose(request, [cuts])
    assert [c.text for c in found] == [request]


def test_a_question_about_what_was_named_before_asks_of_it_in_the_same_call() -> None:
    rating = _tool("film_age_rating", film=STRING)
    request = "Is Oppenheimer suitable for a 13 year old? What's it rated?"
    found = chooser({"film_age_rating": 0.5}).choose(request, [rating])
    assert len(found) == 1
    # A question that names a subject of its own is a call of its own.
    weather = chooser({"get_weather": 0.5}).choose(
        "Is it raining in Paris? Is it sunny in Rome?", [WEATHER]
    )
    assert [c.text for c in weather] == ["Is it raining in Paris?", "Is it sunny in Rome?"]


def test_arithmetic_splits_only_into_expressions_written_out() -> None:
    found = chooser({"calculator": 0.5}).choose("Compute 9 * 9 and 144 / 12", [CALCULATOR])
    assert [c.text for c in found] == ["Compute 9 * 9", "144 / 12"]
    # "7, please" continues nothing: an expression takes every number at once.
    found = chooser({"calculator": 0.5}).choose("Multiply 6 and 7, please", [CALCULATOR])
    assert [c.text for c in found] == ["Multiply 6 and 7, please"]
    found = chooser({"calculator": 0.5}).choose(
        "I bought 3 pens at 4.50 each and a pad for 2.25, what did I spend?", [CALCULATOR]
    )
    assert len(found) == 1


def test_a_clause_saying_there_refers_to_the_call_before_it() -> None:
    time_tool = _tool("get_time", city=STRING)
    found = chooser({"get_weather": 0.5, "get_time": 0.4}).choose(
        "What's the weather in Tokyo, and what time is it there?", [WEATHER, time_tool]
    )
    assert [(c.tool.name, c.refers) for c in found] == [("get_weather", None), ("get_time", 0)]


def test_tools_that_take_the_same_values_are_told_apart_by_topic() -> None:
    time_tool = _tool("get_time", city=STRING)
    scores = {"get_time": 0.5, "get_weather": 0.3, "calculator": 0.4}
    topics = {"weather": 3.0, "time": 1.0}
    tools = [time_tool, WEATHER, CALCULATOR]
    found = ToolChooser(Fixed(scores, {}, topics), 0.0).choose("how hot is it in Paris?", tools)
    assert names(found) == ["get_weather"]
    # Only among tools that take the values the best-ranked one takes.
    found = ToolChooser(Fixed(scores, {}, {"calculator": 9.0}), 0.0).choose("hot in Paris?", tools)
    assert names(found) == ["get_time"]
    # ... and ranked near it: one ranked far ahead is what the request is for.
    far = {"get_time": 2.5, "get_weather": 0.3}
    found = ToolChooser(Fixed(far, {}, topics), 0.0).choose("how hot is it in Paris?", tools)
    assert names(found) == ["get_time"]
    assert topic_words("get_weather") == "weather"
    assert topic_words("flight_status") == "flight status"
    assert topic_words("send_email") == ""  # verbs only: no topic


def test_a_request_naming_a_file_goes_to_a_tool_that_takes_a_file() -> None:
    shell = ToolSpec("shell", "Run a shell command.", SHELL.parameters, "external")
    tools = [READ, LIST, shell]
    scores = {"list_files": 0.9, "read_file": 0.2, "shell": 0.5}
    assert names(chooser(scores).choose("what's in notes.txt", tools)) == ["read_file"]
    assert names(chooser(scores).choose("what's in the docs folder", tools)) == ["list_files"]
    # A verb that names a job comes first: "run" a file is the shell's job.
    assert names(chooser(scores).choose("run python3 notes.py", tools)) == ["shell"]


def test_a_request_for_an_explanation_calls_no_tool() -> None:
    track = _tool("track_package", tracking_number=STRING)
    scores = {"track_package": 1.0}
    assert chooser(scores).choose("how does parcel tracking work?", [track]) == []
    assert names(chooser(scores).choose("where is parcel PK4471?", [track])) == ["track_package"]


def test_a_clause_with_a_number_of_its_own_calls_a_number_tool_again() -> None:
    distance = _tool("convert_distance", amount={"type": "number"}, unit=STRING)
    found = chooser({"convert_distance": 0.5}).choose(
        "Convert 10 km to miles and 3 km to feet", [distance]
    )
    assert [c.text for c in found] == ["Convert 10 km to miles", "3 km to feet"]
    # The same number again is not a call of its own.
    found = chooser({"convert_distance": 0.5}).choose(
        "Convert 10 km to miles and 10 km to miles again", [distance]
    )
    assert len(found) == 1


def test_a_word_of_a_tool_name_may_begin_a_word_of_the_request() -> None:
    track = _tool("track_package", tracking_number=STRING)
    flight = _tool("flight_status", flight=STRING)
    scores = {"flight_status": 0.9, "track_package": 0.5}
    found = chooser(scores).choose("tracking number PK9032 - did it arrive?", [flight, track])
    assert names(found) == ["track_package"]


def test_a_decimal_number_is_not_a_file_name() -> None:
    scores = {"calculator": 0.9, "read_file": 0.5}
    found = chooser(scores).choose("what's 7.5 percent of 2400", [READ, CALCULATOR])
    assert names(found) == ["calculator"]
    assert names(chooser(scores).choose("what's 7.5 in a.txt", [CALCULATOR, READ])) == ["read_file"]


def test_the_same_number_with_another_target_is_a_call_of_its_own() -> None:
    weight = _tool("convert_weight", amount={"type": "number"}, unit=STRING)
    found = chooser({"convert_weight": 0.5}).choose(
        "convert 2 kg to pounds, and 2 kg to ounces", [weight]
    )
    assert [c.text for c in found] == ["convert 2 kg to pounds", "2 kg to ounces"]


def test_arithmetic_in_words_with_numbers_of_its_own_is_a_call_of_its_own() -> None:
    found = chooser({"calculator": 0.5}).choose(
        "what's 1299 times 3, and 45 divided by 9?", [CALCULATOR]
    )
    assert [c.text for c in found] == ["what's 1299 times 3", "45 divided by 9?"]


def test_a_parallel_clause_about_another_subject_continues_the_first() -> None:
    score = _tool("sports_score", team=STRING)
    time_tool = _tool("get_time", city=STRING)
    scores = {"sports_score": 0.5, "get_time": -1.0}
    # The second clause alone is below the threshold, but asks what the first asked.
    found = chooser(scores, **{"Maple Leafs score?": {"sports_score": -0.5}}).choose(
        "Lakers score? Maple Leafs score?", [score, time_tool]
    )
    assert [(c.tool.name, c.continues) for c in found] == [
        ("sports_score", None),
        ("sports_score", 0),
    ]
    # A clause that decides another tool is that tool's call, not a continuation.
    found = chooser({"get_weather": 0.5, "get_time": 0.6}).choose(
        "what's the weather in Paris? and what's the time in Paris?", [WEATHER, time_tool]
    )
    assert [(c.tool.name, c.continues) for c in found] == [
        ("get_weather", None),
        ("get_time", None),
    ]


def test_a_word_of_a_tools_name_said_in_its_other_spelling_is_said() -> None:
    practice = _tool(
        "log_exercise_practice", "write_local", exercise=STRING, minutes={"type": "integer"}
    )
    tuner = _tool("book_bike_service", "external", bike=STRING)
    scores = {"log_exercise_practice": 0.6, "book_bike_service": 0.5}
    # "practised" is the name's "practice" (British spelling of the verb), so the verb's
    # tool keeps it rather than the tool named by "bike".
    asked = "Practised bike drills for 20 minutes, log it"
    assert names(chooser(scores).choose(asked, [practice, tuner])) == ["log_exercise_practice"]


def test_a_subject_the_request_names_beats_a_generic_verb() -> None:
    reminder = _tool("set_reminder", "external", text=STRING, time=STRING)
    timer = _tool("start_timer", "external", minutes={"type": "number"})
    scores = {"set_reminder": 0.9, "start_timer": 0.5}
    found = chooser(scores).choose("set a timer for 5 minutes", [reminder, timer])
    assert names(found) == ["start_timer"]
    found = chooser(scores).choose("set a reminder for 5 pm", [reminder, timer])
    assert names(found) == ["set_reminder"]
    email = _tool("send_email", "external", to=STRING, body=STRING)
    sms = _tool("send_sms", "external", to=STRING, body=STRING)
    found = chooser({"send_sms": 0.9, "send_email": 0.5}).choose("email Ana hi", [sms, email])
    assert names(found) == ["send_email"]  # the verb said the name's only word
    # A verb of another tool's name, said as a thing, names that tool.
    plan = _tool("add_to_meal_plan", "write_local", dish=STRING, day=STRING)
    workout = _tool("log_workout", "write_local", activity=STRING)
    request = "Just got back from yoga, it was an hour. Can you add it to my log?"
    found = chooser({"add_to_meal_plan": 0.9, "log_workout": 0.5}).choose(request, [plan, workout])
    assert names(found) == ["log_workout"]
    # A subject said names no tool that would only look, for a verb that asks a change.
    pool = _tool("pool_swim_times", pool=STRING)
    logged = chooser({"log_workout": 0.9, "pool_swim_times": 0.5}).choose(
        "Log a 45 minute swim", [workout, pool]
    )
    assert names(logged) == ["log_workout"]


def test_a_verb_naming_a_tool_that_cannot_do_the_job_gives_way_to_one_ranked_above() -> None:
    email = _tool("send_email", "external", to=STRING, body=STRING)
    donate = _tool("donate_to_charity", "external", charity=STRING, amount={"type": "number"})
    reminder = _tool("set_reminder", "external", text=STRING, time=STRING)
    scores = {"donate_to_charity": 0.6, "send_email": 0.1, "set_reminder": 0.1}
    # Money sent is for a tool that takes an amount, whatever the verb's tool.
    sent = chooser(scores).choose("please send £20 to the RNLI from my card", [email, donate])
    assert names(sent) == ["donate_to_charity"]
    assert names(chooser(scores).choose("send Ana the agenda", [email, donate])) == ["send_email"]
    # So is money the verb's tool, whose subject the request does not say, takes no amount of.
    request = "I'd like to set up a monthly donation of 10 pounds to Cancer Research UK"
    assert names(chooser(scores).choose(request, [reminder, donate])) == ["donate_to_charity"]
    below = {"donate_to_charity": 0.05, "set_reminder": 0.1}
    assert names(chooser(below).choose(request, [reminder, donate])) == ["set_reminder"]
    # The verb its subject is made from names a tool, whatever the words after it say.
    meter = _tool("top_up_meter", "external", fuel=STRING, amount={"type": "number"})
    request = "remind me at 6pm to top up the gas meter, i keep forgetting"
    found = chooser({"top_up_meter": 0.3, "set_reminder": -0.1}).choose(request, [meter, reminder])
    assert names(found) == ["set_reminder"]


def test_a_code_goes_to_the_tool_whose_example_is_such_a_code() -> None:
    flight = _tool(
        "flight_status", flight={"type": "string", "description": "Flight number, e.g. BA117"}
    )
    time_tool = _tool("get_time", city={"type": "string", "description": "City, e.g. Berlin"})
    scores = {"get_time": 0.9, "flight_status": 0.5}
    tools = [time_tool, flight]
    assert names(chooser(scores).choose("is UA901 on time?", tools)) == ["flight_status"]
    assert names(chooser(scores).choose("what time is it in Oslo?", tools)) == ["get_time"]
    # A number with its unit is no code.
    dose = _tool("dose_guide", medicine=STRING)
    scores = {"dose_guide": 0.9, "flight_status": 0.5}
    found = chooser(scores).choose("how often can I take omeprazole 20mg?", [dose, flight])
    assert names(found) == ["dose_guide"]


def test_a_folder_to_see_is_listed() -> None:
    search = ToolSpec(
        "search",
        "Search the files for a regular expression.",
        {
            "type": "object",
            "properties": {"pattern": STRING, "path": {"type": "string"}},
            "required": ["pattern"],
        },
        "read",
    )
    tools = [READ, LIST, search]
    scores = {"search": 0.9, "list_files": 0.5, "read_file": 0.6}
    assert names(chooser(scores).choose("show me what's under data/", tools)) == ["list_files"]
    assert names(chooser(scores).choose("show me data/notes.txt", tools)) == ["read_file"]
    # With no verb, what a named folder holds is listed too.
    assert names(chooser(scores).choose("whats in the data folder", tools)) == ["list_files"]


def test_a_change_to_a_named_file_goes_to_a_tool_that_changes_files() -> None:
    edit = _tool("edit_file", "write_local", path={"type": "string", "description": "File path."})
    scores = {"read_file": 0.9, "edit_file": 0.5}
    found = chooser(scores).choose("in todo.md, tick off 'Read input'", [READ, edit])
    assert names(found) == ["edit_file"]
    assert names(chooser(scores).choose("what's in todo.md?", [READ, edit])) == ["read_file"]


def test_a_verb_whose_tool_cannot_be_called_calls_no_other() -> None:
    search = _tool("search", pattern=STRING)
    scores = {"search": 0.9, "write_file": 0.5}
    assert chooser(scores).choose("write me a regex for emails", [WRITE, search]) == []
    found = chooser(scores).choose("write hi to notes.txt", [WRITE, search])
    assert names(found) == ["write_file"]


def test_thanks_and_advice_are_answered_in_text() -> None:
    scores = {"list_files": 0.9, "get_weather": 0.9}
    assert chooser(scores).choose("cheers, all good now", [LIST]) == []
    assert chooser(scores).choose("is it better to fly or take the train?", [WEATHER]) == []
    assert names(chooser(scores).choose("thanks! now list the files", [LIST])) == ["list_files"]


def test_a_meaning_asked_goes_to_a_tool_that_defines_words() -> None:
    define = _tool("define_word", word=STRING)
    scores = {"define_word": 0.9, "get_weather": 0.9}
    assert names(chooser(scores).choose('what does "ubiquitous" mean?', [define])) == [
        "define_word"
    ]
    assert chooser(scores).choose("what does AQI stand for?", [WEATHER]) == []


def test_a_tool_that_takes_no_values_is_called_only_when_the_request_names_it() -> None:
    listing = ToolSpec(
        "list_files",
        "List files and directories.",
        {"type": "object", "properties": {"path": {"type": "string", "description": "Directory."}}},
        "read",
    )
    scores = {"list_files": 0.9}
    assert names(chooser(scores).choose("is python pass-by-reference?", [listing])) == []
    assert names(chooser(scores).choose("what's the capital of peru", [listing])) == []
    assert names(chooser(scores).choose("which files do we have?", [listing])) == ["list_files"]
    assert names(chooser(scores).choose("ls", [listing])) == ["list_files"]
    assert names(chooser(scores).choose("what's in this folder?", [listing])) == ["list_files"]


def test_writing_asked_for_calls_no_tool_when_none_writes() -> None:
    count = _tool("word_count", text=STRING)
    scores = {"word_count": 0.9, "write_file": 0.9}
    assert chooser(scores).choose("can you write me a haiku about autumn", [count]) == []
    assert chooser(scores).choose("Draft a polite complaint to the shop", [count]) == []
    # A file to look at first: the reply is written from what it holds.
    found = chooser(scores).choose("Check notes.txt and write them a reply", [count, READ])
    assert names(found) == ["read_file"]
    # A tool that writes is the writer: "write" asks for it.
    found = chooser(scores).choose("write notes.txt: hi", [count, WRITE])
    assert names(found) == ["write_file"]


def test_a_part_that_only_names_another_subject_gets_a_call_of_its_own() -> None:
    showtimes = _tool("movie_showtimes", title=STRING)
    found = chooser(
        {"movie_showtimes": 0.5}, **{"the wild robot": {"movie_showtimes": -1.0}}
    ).choose("showtimes for oppenheimer and the wild robot", [showtimes])
    assert [c.text for c in found] == ["showtimes for oppenheimer", "the wild robot"]
    assert only_names("the wild robot")
    assert not only_names("what is the time")
    assert not only_names("send it to Ana")
    assert not only_names("is lavender toxic to dogs?")  # a question of its own


def test_a_part_that_sets_the_scene_gets_no_call_of_its_own() -> None:
    recipe = _tool("find_recipe", dish=STRING)
    request = "I have three overripe bananas. Could you find me a banana bread recipe?"
    found = chooser({"find_recipe": 0.5}).choose(request, [recipe])
    assert [(c.tool.name, c.text) for c in found] == [("find_recipe", request)]


def test_work_on_a_text_asked_for_calls_no_tool_unless_one_does_that_work() -> None:
    recipe = _tool("find_recipe", dish=STRING)
    scores = {"find_recipe": 0.9, "summarise_text": 0.9}
    request = "Summarise the plot of Romeo and Juliet in three sentences."
    assert chooser(scores).choose(request, [recipe]) == []
    assert chooser(scores).choose("proofread this: 'their going home'", [recipe]) == []
    summariser = _described("summarise_text", "Summarise a text in a few sentences.", text=STRING)
    found = chooser(scores).choose("summarise this: 'their going home'", [recipe, summariser])
    assert names(found) == ["summarise_text"]


def test_an_instruction_opening_with_the_tools_own_verb_may_call_a_changing_tool() -> None:
    mood = _described(
        "log_mood", "Record today's mood in the user's mood journal.", "write_local", mood=STRING
    )
    ferns = _described(
        "garden_care", "Water the plants of a garden bed now.", "external", bed=STRING
    )
    scores = {"log_mood": 0.9, "garden_care": 0.9}
    assert names(chooser(scores).choose("Log my mood as low today.", [mood])) == ["log_mood"]
    assert names(chooser(scores).choose("water the herb bed please", [ferns])) == ["garden_care"]
    # Asking to see, or a question, never opens a changing tool to the request.
    assert chooser(scores).choose("show me my mood journal entries", [mood]) == []
    assert chooser(scores).choose("how often should I water the herb bed?", [ferns]) == []
    # A noun where the verb would be is none of the tool's verbs, though its words say it.
    editor = ToolSpec(
        "edit_file",
        "Replace an exact match of text in a file.",
        {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path."},
                "old_text": {"type": "string", "description": "The lines to replace."},
            },
            "required": ["path", "old_text"],
        },
        "write_local",
    )
    assert not asks_its_action("just lines 2 to 3 of notes.txt pls", editor)
    assert asks_its_action("replace 'a' with 'b' in notes.txt", editor)


def test_a_tools_thing_asked_for_by_name_with_please_or_a_colon_asks_its_action() -> None:
    alarm = _tool("set_alarm", "write_local", time=STRING)
    assert asks_its_action("alarms please: 7:00 on weekdays, 9:00 on weekends", alarm)
    assert asks_its_action("alarm: 6am", alarm)
    refund = _tool("request_refund", "external", order=STRING)
    assert asks_its_action("refunds needed on two orders: 302-1184 and 302-1190", refund)
    assert not asks_its_action("what alarms do I have?", alarm)
    assert not asks_its_action("alarming news: the river is rising", alarm)


def test_a_tools_thing_the_speaker_says_they_need_asks_its_action() -> None:
    alarm = _tool("set_alarm", "write_local", time=STRING)
    taxi = _tool("book_taxi", "external", pickup=STRING)
    assert asks_its_action("hold the post till Friday. and i need an alarm at 4:00", alarm)
    assert asks_its_action("can I have an alarm for 6?", alarm)
    assert asks_its_action("I need a wheelchair accessible taxi to St Mary's", taxi)
    assert not asks_its_action("I need a good name for my alarm clock app", alarm)
    assert not asks_its_action("do I need an alarm for this?", alarm)


def test_the_verb_an_instruction_opens_with_names_the_tool_that_says_it() -> None:
    pay = ToolSpec(
        "send_money",
        "Send money from the user's bank account to a contact.",
        {
            "type": "object",
            "properties": {
                "recipient": {"type": "string", "description": "Who to pay: a contact's name"},
                "amount": {"type": "number"},
            },
            "required": ["recipient", "amount"],
        },
        "external",
    )
    tip = _tool("suggest_tip", bill={"type": "number"})
    # Ranked first, the tip tool does not say "pay"; the payment tool does.
    found = chooser({"suggest_tip": 0.9, "send_money": 0.5}).choose(
        "Pay Sam 12 for the takeaway", [tip, pay]
    )
    assert names(found) == ["send_money"]


def test_a_part_asking_again_for_another_subject_keeps_its_tool() -> None:
    thermostat = _tool("set_thermostat", "external", room=STRING, temperature={"type": "number"})
    plants = _tool("plant_care_guide", plant=STRING)
    wine = _tool("wine_pairing", dish=STRING)
    roast = _tool("roasting_time", meat=STRING, weight_kg={"type": "number"})
    # Scored alone, "the living room" is about plants; said like the clause before it,
    # it asks for the heating again.
    alone = {"plant_care_guide": 0.9, "set_thermostat": 0.5}
    pick = chooser(
        {"set_thermostat": 0.9, "plant_care_guide": 0.5}, **{"the living room to 21.": alone}
    )
    request = "Set the kitchen to 20 degrees and the living room to 21."
    assert names(pick.choose(request, [thermostat, plants])) == ["set_thermostat"] * 2
    # A question of its own goes to its own tool.
    second = "And how long do I roast a 1.8 kg chicken?"
    pick = chooser({"wine_pairing": 0.9}, **{second: {"roasting_time": 0.9}})
    found = pick.choose(f"Wine pairing for roast chicken? {second}", [wine, roast])
    assert names(found) == ["wine_pairing", "roasting_time"]
    # A question about what the call before named, naming nothing, is that call's.
    stamps = _tool("stamp_cost", quantity={"type": "number"}, stamp_class=STRING)
    shops = _tool("charity_shop_finder", town=STRING)
    last = "what's that come to"
    pick = chooser({"stamp_cost": 0.9}, **{last: {"charity_shop_finder": 0.9}})
    found = pick.choose(f"need 8 second class stamps, {last}", [stamps, shops])
    assert names(found) == ["stamp_cost"]
    # A part opening with the word its own tool's name opens with asks for that tool.
    milk = _tool("pause_milk", "external", start=STRING, end=STRING)
    top_up = _tool("top_up_card", "external", card=STRING, amount={"type": "number"})
    second = "top up the Oyster with £30 before we go"
    pick = chooser({"pause_milk": 0.9, "top_up_card": 0.2}, **{second: {"top_up_card": 0.9}})
    found = pick.choose(f"Pause the milk from 1 July to 14 July and {second}", [milk, top_up])
    assert names(found) == ["pause_milk", "top_up_card"]


def test_a_first_clause_holding_the_whole_requests_values_calls_its_tool() -> None:
    lights = _tool(
        "control_lights", "external", room=STRING, state={"type": "string", "enum": ["on", "off"]}
    )
    # "Turn off the bedroom" alone is below the threshold; the whole request is not.
    pick = chooser({"control_lights": 0.9}, **{"Turn off the bedroom": {"control_lights": -1.0}})
    found = pick.choose("Turn off the bedroom and bathroom lights", [lights])
    assert names(found) == ["control_lights", "control_lights"]
    assert [c.text for c in found] == ["Turn off the bedroom", "bathroom lights"]


def test_who_made_something_or_when_it_came_out_goes_to_a_tool_that_reports_it() -> None:
    credits = _described(
        "song_credits",
        "Credits for a song: who performed it, who wrote it, the year it came out.",
        title=STRING,
    )
    catalogue = _described(
        "library_catalog", "Search the library's catalogue by title or author.", query=STRING
    )
    scores = {"song_credits": 0.9, "library_catalog": 0.9}
    for request in [
        "who actually wrote hallelujah? i always assumed it was jeff buckley",
        "What year did Running Up That Hill first come out? My kids think it's a new song",
    ]:
        assert names(chooser(scores).choose(request, [credits])) == ["song_credits"], request
    # A fact no offered tool says it reports is general knowledge.
    assert chooser(scores).choose("who wrote pride and prejudice", [catalogue]) == []
    assert chooser(scores).choose("what year did the berlin wall fall?", [credits]) == []


def test_an_act_no_offered_tool_does_gets_no_tool_that_only_looks() -> None:
    hours = _described("shop_opening_hours", "Opening hours of a shop.", shop=STRING)
    scores = {"shop_opening_hours": 0.9}
    assert (
        chooser(scores).choose("Can you order me a large pepperoni from Domino's?", [hours]) == []
    )
    booking = "can you book me a table at mario's pizzeria for 8pm on friday"
    assert chooser(scores).choose(booking, [hours]) == []
    # A question beside the act still looks.
    both = "order a pizza later, but when does Domino's open?"
    assert names(chooser(scores).choose(both, [hours])) == ["shop_opening_hours"]


def test_a_tool_that_sends_messages_is_called_only_when_a_message_is_asked_for() -> None:
    email = _described("send_email", "Send an email.", "external", to=STRING, body=STRING)
    scores = {"send_email": 0.9}
    pizza = "Can you order me a large pepperoni from Domino's?"
    assert chooser(scores).choose(pizza, [email]) == []
    assert chooser(scores).choose("send £18 to the RNLI", [email]) == []
    for asked in [
        "email tom that the report is ready",
        "let Priya know the build is green",
        "tell sam@example.com I'm late",
    ]:
        assert names(chooser(scores).choose(asked, [email])) == ["send_email"]


def test_a_tool_named_by_making_is_no_candidate_to_undo_what_it_makes() -> None:
    album = _described("create_photo_album", "Create a photo album.", "write_local", title=STRING)
    scores = {"create_photo_album": 0.9}
    delete = "can you delete all the blurry photos from my camera roll"
    assert chooser(scores).choose(delete, [album]) == []
    assert names(chooser(scores).choose("make an album called Dogs", [album])) == [
        "create_photo_album"
    ]
    # A tool whose own words say the undoing does it too.
    mode: dict[str, object] = {"type": "string", "enum": ["add", "remove"]}
    wallet = _described("add_card", "Manage wallet cards.", "write_local", card=STRING, mode=mode)
    remove = "remove the Tesco card 1234 from my wallet"
    assert names(chooser({"add_card": 0.9}).choose(remove, [wallet])) == ["add_card"]


def test_a_question_after_an_instruction_is_no_other_call_of_the_instruction() -> None:
    reminder = _described("set_reminder", "Set a reminder.", "write_local", text=STRING)
    leaflet = _described("medicine_leaflet", "A medicine's leaflet.", medicine=STRING)
    scores = {"set_reminder": 0.1, "medicine_leaflet": 0.5}
    request = "remind me at 8am to take my cetirizine. also what's the normal dose"
    found = chooser(scores).choose(request, [reminder, leaflet])
    assert names(found) == ["set_reminder", "medicine_leaflet"]
    assert found[1].refers == 0
    # After a state set from a closed set, the question asks of a subject of its own.
    mood: dict[str, object] = {"type": "string", "enum": ["great", "low"]}
    log = _described("log_mood", "Record today's mood.", "write_local", mood=mood)
    classes = _described("gym_class_times", "A class's timetable.", class_name=STRING)
    scores = {"log_mood": 0.1, "gym_class_times": 0.5}
    request = "put my mood down as great, and when's the next spin class?"
    found = chooser(scores).choose(request, [log, classes])
    assert names(found) == ["log_mood", "gym_class_times"]
    assert found[1].refers is None


def test_a_record_over_everything_is_no_advice_a_tool_about_one_thing_gives() -> None:
    airport = _described(
        "airport_info",
        "Look up an airport: its terminals and how to get from it into town.",
        code=STRING,
    )
    scores = {"airport_info": 0.9}
    assert chooser(scores).choose("what's the busiest airport in the world", [airport]) == []
    assert names(chooser(scores).choose("how do I get into town from LHR?", [airport])) == [
        "airport_info"
    ]


def test_a_request_for_advice_goes_to_a_tool_that_advises_on_its_subject() -> None:
    plants = _described(
        "plant_care_guide",
        "Care instructions for a houseplant: how often to water it and how much light.",
        plant=STRING,
    )
    recipes = _tool("find_recipe", dish=STRING)
    scores = {"plant_care_guide": 0.9, "find_recipe": 0.9}
    found = chooser(scores).choose("how often should I water my monstera?", [recipes, plants])
    assert names(found) == ["plant_care_guide"]
    # Advice on something else is answered in text.
    assert chooser(scores).choose("How should I split my income?", [recipes, plants]) == []
    # A description of what is recommended advises too.
    intake = _described(
        "vitamin_daily_intake",
        "Recommended daily intake of a vitamin or mineral (UK guidance).",
        nutrient=STRING,
    )
    asked = "how much vitamin d should an adult be taking per day"
    assert names(chooser({"vitamin_daily_intake": 0.9}).choose(asked, [intake])) == [
        "vitamin_daily_intake"
    ]
    # ... but only for a question how much or how many.
    tyres = _described("tyre_pressure", "Recommended tyre pressures for a car model.", car=STRING)
    asked = "Is a Tesla Model 3 a good first electric car?"
    assert chooser({"tyre_pressure": 0.9}).choose(asked, [tyres]) == []
    # A description that reports a value ("How much interest a sum would earn") does
    # not advise: "explain compound interest" is answered in text.
    interest = ToolSpec(
        "savings_interest",
        "How much interest a sum would earn over one year in a savings account.",
        {"type": "object", "properties": {"amount": {"type": "number"}}, "required": []},
        "read",
    )
    assert (
        chooser({"savings_interest": 0.9}).choose(
            "Explain compound interest like I'm ten.", [interest]
        )
        == []
    )


def test_how_a_phrase_is_said_goes_to_a_translator_or_is_answered_in_text() -> None:
    translate = _described(
        "translate_text", "Translate a short text into another language.", text=STRING
    )
    luggage = _tool("luggage_allowance", airline=STRING)
    scores = {"translate_text": 0.9, "luggage_allowance": 0.5}
    request = "How do you say thank you in Japanese?"
    assert names(chooser(scores).choose(request, [luggage, translate])) == ["translate_text"]
    assert chooser(scores).choose(request, [luggage]) == []


def test_an_instruction_on_what_the_part_before_said_makes_one_call() -> None:
    sleep = _tool("log_sleep", "write_local", hours={"type": "number"})
    battery = _tool("battery_status", device=STRING)
    scores = {"log_sleep": 0.9, "battery_status": 0.5}
    request = "Only got 5 hours of sleep. Put it in my sleep diary pls"
    found = chooser(scores, **{"Put it in my sleep diary pls": {"battery_status": 0.9}}).choose(
        request, [sleep, battery]
    )
    assert [(c.tool.name, c.text) for c in found] == [("log_sleep", request)]


def test_a_part_naming_another_value_of_a_closed_set_continues_the_call() -> None:
    appliances: dict[str, object] = {
        "type": "string",
        "enum": ["washing machine", "tumble dryer", "robot vacuum"],
    }
    start = _tool("start_appliance", "external", appliance=appliances)
    battery = _tool("battery_status", device=STRING)
    # Alone, "the robot vacuum" is about batteries; it names another appliance to start.
    pick = chooser(
        {"start_appliance": 0.9, "battery_status": 0.5},
        **{"the robot vacuum": {"battery_status": 0.9, "start_appliance": 0.5}},
    )
    found = pick.choose("start the tumble dryer and the robot vacuum", [start, battery])
    assert [(c.tool.name, c.continues) for c in found] == [
        ("start_appliance", None),
        ("start_appliance", 0),
    ]
    # A part naming nothing of the closed set is no other subject for it.
    pick = chooser({"start_appliance": 0.9, "battery_status": -1.0})
    assert names(pick.choose("start the tumble dryer and the blue one", [start, battery])) == [
        "start_appliance"
    ]


def test_a_part_asking_again_about_another_value_keeps_the_heads_tool() -> None:
    accounts: dict[str, object] = {
        "type": "string",
        "enum": ["easy access", "fixed 2 years", "cash isa", "regular saver"],
    }
    interest = _tool("savings_interest", account=accounts, amount={"type": "number"})
    battery = _tool("battery_status", device=STRING)
    request = "10000 in the fixed 2 years account, how much interest? Also how about in a cash isa"
    # Alone, the question and the other account are about batteries.
    pick = chooser(
        {"savings_interest": 0.9, "battery_status": 0.5},
        **{
            "how much interest?": {"battery_status": 0.9},
            "in a cash isa": {"battery_status": 0.9},
        },
    )
    found = pick.choose(request, [interest, battery])
    assert [(c.tool.name, c.text, c.continues) for c in found] == [
        ("savings_interest", "10000 in the fixed 2 years account", None),
        ("savings_interest", "in a cash isa", 0),
    ]
    # A question mark does not make a subject alone a call of its own.
    request = "How much interest would 3000 make in easy access vs the regular saver?"
    pick = chooser(
        {"savings_interest": 0.9, "battery_status": 0.5},
        **{"the regular saver?": {"battery_status": 0.9, "savings_interest": 0.5}},
    )
    found = pick.choose(request, [interest, battery])
    assert [(c.tool.name, c.continues) for c in found] == [
        ("savings_interest", None),
        ("savings_interest", 0),
    ]


def test_a_part_that_only_refers_back_gets_no_call() -> None:
    paint = _tool("paint_needed", paint=STRING, area={"type": "number"})
    substitute = _tool("baking_substitute", ingredient=STRING)
    pick = chooser(
        {"paint_needed": 0.9, "baking_substitute": 0.5},
        **{"How much of each?": {"baking_substitute": 0.9}},
    )
    request = "Primer for 40 m2, then emulsion over the same 40 m2. How much of each?"
    assert names(pick.choose(request, [paint, substitute])) == ["paint_needed"] * 2
    sunny = "Is it sunny in Paris or in Lisbon today? Check both for me"
    assert names(chooser({"get_weather": 0.9}).choose(sunny, [WEATHER])) == ["get_weather"] * 2
    # Whom each is for: "one for me and one for my boyfriend" asks no third call.
    sign: dict[str, object] = {"type": "string", "description": "Star sign, e.g. Leo or Pisces"}
    horoscope = _tool("daily_horoscope", sign=sign)
    signs = "horoscopes for aries and taurus please, one for me and one for my boyfriend"
    assert (
        names(chooser({"daily_horoscope": 0.9}).choose(signs, [horoscope]))
        == ["daily_horoscope"] * 2
    )
    # A word said on the way asks nothing: "Oh" of "Oh and the ...".
    recall = _tool("product_recall_check", product=STRING)
    request = "Is the Voltra VC20 charger recalled? Oh and the Kettlewise KT-200 too"
    got = chooser({"product_recall_check": 0.9}).choose(request, [recall])
    assert [c.text for c in got] == [
        "Is the Voltra VC20 charger recalled?",
        "the Kettlewise KT-200 too",
    ]
    # ... as does a word that only says another thing follows.
    venue = _tool("venue_hire_rates", venue=STRING)
    priced = "Price up Greenway Pavilion for me, and separately, what's 12 guests at £18.50 each?"
    got = chooser({"venue_hire_rates": 0.9, "calculator": 0.5}).choose(priced, [venue, CALCULATOR])
    assert [(c.tool.name, c.text) for c in got] == [
        ("venue_hire_rates", "Price up Greenway Pavilion for me"),
        ("calculator", "what's 12 guests at £18.50 each?"),
    ]


def test_a_code_in_capitals_goes_to_the_tool_that_lists_it() -> None:
    convert = _described(
        "convert_currency",
        "Convert an amount in euros to another currency (USD, GBP or JPY).",
        amount={"type": "number"},
        currency=STRING,
    )
    pick = chooser({"calculator": 0.5, "convert_currency": 0.4})
    request = "I want to give 50 euros but they only take dollars. How much is that in USD?"
    assert names(pick.choose(request, [CALCULATOR, convert])) == ["convert_currency"]
    assert names(pick.choose("what's 50 euros times 3?", [CALCULATOR, convert])) == ["calculator"]


def test_a_tools_initials_name_it() -> None:
    dnd = _tool("set_do_not_disturb", "write_local", until=STRING)
    clock = _tool("get_time", city=STRING)
    pick = chooser({"get_time": 0.5, "set_do_not_disturb": 0.1})
    assert names(pick.choose("DND until 07:00 please", [clock, dnd])) == ["set_do_not_disturb"]
    # Not in lower case: "dnd" may be a word.
    assert names(pick.choose("dnd until 07:00 please", [clock, dnd])) == ["get_time"]


def test_a_subject_after_the_same_for_gets_a_call() -> None:
    shortcut = _tool("keyboard_shortcut", action=STRING)
    request = "keyboard shortcuts for the emoji picker and for paste without formatting please"
    got = chooser({"keyboard_shortcut": 0.9}).choose(request, [shortcut])
    assert [c.text for c in got] == [
        "keyboard shortcuts for the emoji picker",
        "for paste without formatting please",
    ]


def test_names_listed_in_lower_case_each_get_a_call() -> None:
    country: dict[str, object] = {"type": "string", "description": "Country to call, e.g. Portugal"}
    codes = _tool("country_calling_code", country=country)
    request = "dialling codes for ireland, australia and new zealand"
    got = chooser({"country_calling_code": 0.9}).choose(request, [codes])
    assert [c.text for c in got] == ["dialling codes for ireland", "australia", "new zealand"]


def test_a_tool_named_only_for_searching_is_called_when_a_search_is_asked_for() -> None:
    search = _described(
        "search", "Search the workspace's text files for a pattern.", pattern=STRING
    )
    scores = {"search": 0.9, "read_file": 0.2}
    assert chooser(scores).choose("Is Python pass-by-reference?", [search, READ]) == []
    assert chooser(scores).choose("tabs or spaces in a yaml file", [search, READ]) == []
    for request in (
        "which files mention Priya?",
        "where's max_files set?",
        "Does anything in here talk about the preview server?",
        "grep for port",
        "Look through the code for assertEqual",
    ):
        assert names(chooser(scores).choose(request, [search, READ])) == ["search"], request
    # A tool named for what it searches is named by its subject instead.
    recipes = _tool("find_recipe", dish=STRING)
    found = chooser({"find_recipe": 0.9}).choose("the lentil soup recipe for 6", [recipes])
    assert names(found) == ["find_recipe"]


def test_a_part_saying_only_another_tools_name_asks_it_about_the_same_subject() -> None:
    air = _tool("air_quality", city=STRING)
    tides = _tool("tide_times", port=STRING)
    pick = chooser(
        {"air_quality": 0.9, "get_weather": 0.5, "tide_times": 0.1},
        **{"the weather please": {"air_quality": 0.9}, "today's tides": {"air_quality": 0.9}},
    )
    found = pick.choose("Paris: air quality and the weather please", [air, WEATHER, tides])
    assert [(c.tool.name, c.refers) for c in found] == [("air_quality", None), ("get_weather", 0)]
    found = pick.choose("Lisbon: air quality, the weather and today's tides", [air, WEATHER, tides])
    assert names(found) == ["air_quality", "get_weather", "tide_times"]
    assert [c.refers for c in found] == [None, 0, 1]  # the call before it, in turn
    # A part that names a subject of its own is no such part.
    found = pick.choose("Paris: air quality and the weather in Oslo", [air, WEATHER, tides])
    assert all(c.refers is None for c in found)


def test_a_part_saying_the_calls_tool_name_is_another_subject_for_it() -> None:
    shopping = _tool("add_to_shopping_list", "write_local", item=STRING)
    calories = _tool("estimate_calories_burned", activity=STRING, minutes={"type": "number"})
    second = "2 lemons to the shopping list"
    pick = chooser(
        {"add_to_shopping_list": 0.9, "estimate_calories_burned": 0.1},
        **{second: {"estimate_calories_burned": 0.9, "add_to_shopping_list": 0.5}},
    )
    found = pick.choose(f"add bread and {second}", [shopping, calories])
    assert [(c.tool.name, c.continues) for c in found] == [
        ("add_to_shopping_list", None),
        ("add_to_shopping_list", 0),
    ]
    # A question that says the tool's name asks it again, about no other subject.
    tides = _tool("tide_times", place=STRING)
    parking = _tool("find_parking", near=STRING)
    request = "Beach day in Brighton. What are the tides like, and is there parking?"
    pick = chooser(
        {"tide_times": 0.9, "find_parking": 0.1},
        **{
            "What are the tides like": {"tide_times": 0.9},
            "is there parking?": {"find_parking": 0.9},
        },
    )
    assert names(pick.choose(request, [tides, parking])) == ["tide_times", "find_parking"]


def test_an_instruction_on_the_part_before_joins_it_and_a_later_part_still_calls() -> None:
    medication = _tool("log_medication", "write_local", medicine=STRING)
    pollen = _tool("pollen_count", city=STRING)
    request = "took a cetirizine for my hay fever, can you log it - and whats the pollen in london"
    found = chooser({"pollen_count": 0.4, "log_medication": 0.2}).choose(
        request, [pollen, medication]
    )
    assert names(found) == ["log_medication", "pollen_count"]
    assert found[0].text.startswith("took a cetirizine")


def test_an_instruction_to_change_goes_to_the_whole_requests_changing_tool() -> None:
    watchlist = _tool("add_to_watchlist", "write_local", title=STRING)
    jabs = _tool("travel_vaccinations", country=STRING)
    request = "put The Bear and Slow Horses on my watchlist"
    pick = chooser(
        {"add_to_watchlist": 0.3, "travel_vaccinations": -0.2},
        **{"put The Bear": {"travel_vaccinations": 0.5, "add_to_watchlist": 0.1}},
    )
    assert names(pick.choose(request, [watchlist, jabs])) == ["add_to_watchlist"] * 2
    # A tool that changes things, chosen by the part, keeps it.
    both = chooser({"travel_vaccinations": 0.3}, **{"Log The Bear": {"log_thing": 0.5}})
    log_thing = _tool("log_thing", "write_local", thing=STRING)
    request = "Log The Bear and what jabs for Peru"
    assert names(both.choose(request, [log_thing, jabs]))[:1] == ["log_thing"]
    # A part that asks only to look keeps the tool that looks.
    polling = _tool("polling_station", postcode=STRING)
    email = _tool("send_email", "external", to=STRING, body=STRING)
    request = "Find my polling station for CF24 3LP and send an email to gwen@example.com"
    pick = chooser(
        {"send_email": 0.5, "polling_station": 0.3},
        **{"Find my polling station for CF24 3LP": {"polling_station": 0.9}},
    )
    assert names(pick.choose(request, [polling, email])) == ["polling_station", "send_email"]


def test_a_question_for_a_thing_no_tool_speaks_of_calls_none() -> None:
    terms = _described(
        "school_term_dates", "School term and holiday dates for an area.", area=STRING
    )
    assert candidates("Which river runs through Vienna?", [terms]) == []
    assert candidates("which holidays has Kent got this year?", [terms]) == [terms]


SEARCH_SCHEMA = {"type": "object", "properties": {"pattern": STRING}, "required": ["pattern"]}


def test_searching_running_and_creating_asked_for_in_other_words() -> None:
    search = ToolSpec(
        "search", "Search the workspace's text files for a pattern.", SEARCH_SCHEMA, "read"
    )
    shell = ToolSpec("shell", "Run a shell command.", SHELL.parameters, "external")
    scores = {"list_files": 0.5, "search": 0.3, "read_file": 0.4, "shell": 0.2, "write_file": 0.1}
    tools = [LIST, search, READ, shell, WRITE]
    pick = chooser(scores)
    assert names(pick.choose("is the word population anywhere in the files?", tools)) == ["search"]
    for request in ("Look for the word 'empty' across all the files.", "Which files use count?"):
        assert names(pick.choose(request, tools)) == ["search"]
    request = "count the words in todo.md by running python3 src/tally.py todo.md"
    assert names(pick.choose(request, tools)) == ["shell"]
    request = "start a CONTRIBUTING.md that just says 'PRs welcome'"
    assert names(pick.choose(request, tools)) == ["write_file"]
    # A call is not a file: a question about it needs no tool.
    assert pick.choose("What does str.split() do when you call it with no arguments?", tools) == []
    request = "in Python, how is str.splitlines() different from split('\\n')?"
    assert pick.choose(request, tools) == []
    # A file named says "file": writing one is no shell, whatever kind of script it holds.
    request = "write a tiny shell script scripts/hello.sh that just echoes hello"
    assert names(pick.choose(request, tools)) == ["write_file"]


def test_what_the_speaker_is_doing_joins_the_question_about_it() -> None:
    jabs = _tool("travel_vaccinations", country=STRING)
    terms = _tool("school_term_dates", area=STRING)
    request = "taking my 8 year old daughter to kenya, what vaccines does a child need"
    pick = chooser(
        {"travel_vaccinations": 0.5, "school_term_dates": 0.2},
        **{"taking my 8 year old daughter to kenya": {"school_term_dates": 0.6}},
    )
    assert [(c.tool.name, c.text) for c in pick.choose(request, [jabs, terms])] == [
        ("travel_vaccinations", request)
    ]


def test_another_one_of_the_kind_asks_the_call_before_again() -> None:
    portion = _tool("pet_food_portion", weight_kg={"type": "number"}, animal=STRING)
    roast = _tool("roasting_time", weight_kg={"type": "number"}, meat=STRING)
    pick = chooser(
        {"pet_food_portion": 0.8, "roasting_time": 0.1},
        **{"And a 6 kg one?": {"roasting_time": 0.9, "pet_food_portion": 0.2}},
    )
    found = pick.choose("How much should a 30 kg dog eat a day? And a 6 kg one?", [portion, roast])
    assert [(c.tool.name, c.continues) for c in found] == [
        ("pet_food_portion", None),
        ("pet_food_portion", 0),
    ]
    # "the one in Nottingham" is another of the kind the clause before named.
    panto = _tool("panto_listings", town=STRING)
    shops = _tool("charity_shops", town=STRING)
    second = "the one in Nottingham, which one is cheaper?"
    pick = chooser({"panto_listings": 0.8}, **{second: {"charity_shops": 0.9}})
    found = pick.choose(f"Compare the panto in Bristol with {second}", [panto, shops])
    assert names(found) == ["panto_listings", "panto_listings"]


def test_what_the_speaker_will_do_first_joins_the_instruction_after_it() -> None:
    heat = _tool("set_thermostat", "external", room=STRING, celsius={"type": "number"})
    parcel = _tool("track_parcel", number=STRING)
    pick = chooser(
        {"set_thermostat": 0.8, "track_parcel": 0.1},
        **{"Before I get home": {"track_parcel": 0.9}},
    )
    request = "Before I get home, heat the office to 21 and the bedroom to 17."
    assert names(pick.choose(request, [heat, parcel])) == ["set_thermostat"] * 2


def test_how_to_do_something_with_one_of_a_tools_kind_goes_to_it() -> None:
    chords = _tool("guitar_chord", chord=STRING)
    scores = {"guitar_chord": 0.9}
    found = chooser(scores).choose("how do i play an F chord on guitar?", [chords])
    assert names(found) == ["guitar_chord"]
    # Chords in general, with no one named, are explained in text.
    assert chooser(scores).choose("how do I play chords faster?", [chords]) == []
    assert chooser(scores).choose("how do I change a chord smoothly?", [chords]) == []


def test_a_sum_on_supposed_numbers_goes_only_to_a_tool_that_takes_numbers() -> None:
    lido = _tool("lido_conditions", lido=STRING)
    request = "If a pool is 25 metres long, roughly how many lengths make a mile?"
    assert chooser({"lido_conditions": 0.9}).choose(request, [lido]) == []
    found = chooser({"calculator": 0.9}).choose(request, [lido, CALCULATOR])
    assert names(found) == ["calculator"]


def test_a_sum_goes_to_a_tool_taking_a_number_only_on_what_the_tool_is_about() -> None:
    gift = ToolSpec(
        "anniversary_gift",
        "The traditional wedding anniversary gift for a given year of marriage.",
        {"type": "object", "properties": {"year": {"type": "integer"}}, "required": ["year"]},
        "read",
    )
    bouquets = "A bouquet costs 35 pounds. What would three bouquets cost in total?"
    assert chooser({"anniversary_gift": 0.9}).choose(bouquets, [gift]) == []
    pace = ToolSpec(
        "race_pace",
        "Predicted finish time of a running race from the pace per kilometre.",
        {
            "type": "object",
            "properties": {
                "race": {"type": "string", "enum": ["5k", "10k", "marathon"]},
                "pace": {"type": "number"},
            },
            "required": ["race", "pace"],
        },
        "read",
    )
    marathon = "if I hold 6 min per km for the marathon how long will it take me"
    assert names(chooser({"race_pace": 0.9}).choose(marathon, [pace])) == ["race_pace"]


def test_a_question_on_what_usually_holds_goes_to_a_tool_that_reports_averages() -> None:
    frost = _described(
        "frost_dates", "Average last spring frost and first autumn frost for a town.", town=STRING
    )
    request = "When does the first autumn frost usually arrive in Aberdeen?"
    assert names(chooser({"frost_dates": 0.9}).choose(request, [frost])) == ["frost_dates"]
    # How frost works is no average.
    assert chooser({"frost_dates": 0.9}).choose("How does frost damage plants?", [frost]) == []


def test_an_instructions_labelled_values_are_its_text_not_questions() -> None:
    cards = _tool("add_flashcard", "write_local", front=STRING, back=STRING)
    request = "Make me a flashcard. Front: what do mitochondria do? Back: they release energy."
    assert names(chooser({"add_flashcard": 0.9}).choose(request, [cards])) == ["add_flashcard"]
    reading = _tool("log_reading", "write_local", book=STRING, pages={"type": "integer"})
    popped = "Finished Middlemarch, the last 30 pages. Pop it in my reading log?"
    assert names(chooser({"log_reading": 0.9}).choose(popped, [reading])) == ["log_reading"]


def test_swapping_a_word_in_a_named_file_is_an_edit() -> None:
    edit = ToolSpec(
        "edit_file",
        "Replace text in a file.",
        {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "File path."}, "old": STRING},
            "required": ["path"],
        },
        "write_local",
    )
    scores = {"read_file": 0.9, "edit_file": 0.5}
    found = chooser(scores).choose("notes.txt: swap Priya for Sam, she's off sick", [READ, edit])
    assert names(found) == ["edit_file"]


def test_a_question_why_is_for_no_guide() -> None:
    tea = _described(
        "tea_brewing_guide",
        "How to brew a tea: water temperature and how long to steep it.",
        tea=STRING,
    )
    scores = {"tea_brewing_guide": 0.9}
    assert chooser(scores).choose("Why does green tea go bitter with boiling water?", [tea]) == []
    found = chooser(scores).choose("How long should I steep green tea?", [tea])
    assert names(found) == ["tea_brewing_guide"]


def test_a_tool_that_takes_a_place_is_for_a_request_that_names_one() -> None:
    cuts = _tool("power_cuts", area=STRING)
    scores = {"power_cuts": 0.9}
    assert (
        chooser(scores).choose(
            "what should I keep in the house for when the power goes out?", [cuts]
        )
        == []
    )
    found = chooser(scores).choose("any power cuts in kendal right now?", [cuts])
    assert names(found) == ["power_cuts"]


def test_what_words_mean_is_no_advice_a_guide_gives() -> None:
    guide = _described(
        "food_storage_guide",
        "How long a food keeps once opened, and how to store it safely.",
        food=STRING,
    )
    scores = {"food_storage_guide": 0.9}
    meaning = "Explain in simple words what 'best before' and 'use by' mean on food labels."
    assert chooser(scores).choose(meaning, [guide]) == []
    found = chooser(scores).choose("how should I store cooked rice in the fridge?", [guide])
    assert names(found) == ["food_storage_guide"]


def test_a_tool_that_checks_whether_something_holds_answers_that_question() -> None:
    check = _described(
        "plant_toxicity_check",
        "Check whether a plant or cut flower is poisonous to cats or dogs.",
        plant=STRING,
    )
    scrabble = _described(
        "scrabble_word_check",
        "Whether a word is allowed in Scrabble, and how many points its tiles are worth.",
        word=STRING,
    )
    scores = {"plant_toxicity_check": 0.9, "scrabble_word_check": 0.9}
    found = chooser(scores).choose("Are lilies poisonous to cats?", [check])
    assert names(found) == ["plant_toxicity_check"]
    rule = "How many tiles does each player start with in Scrabble?"
    assert chooser(scores).choose(rule, [scrabble]) == []
    # A tool that reports whether something holds among other things checks nothing.
    battery = _described(
        "battery_status",
        "Battery level of one of the user's devices, and whether it is charging.",
        device=STRING,
    )
    overnight = "is it bad to leave my phone charging overnight"
    assert chooser({"battery_status": 0.9}).choose(overnight, [battery]) == []


def test_a_check_answers_a_yes_or_no_question_in_the_words_of_its_name() -> None:
    compost = _described(
        "compost_check", "Whether something can go in a home compost bin.", item=STRING
    )
    scores = {"compost_check": 0.9}
    for asked in (
        "can eggshells go in the compost?",
        "quick one - are tea bags ok to compost or do they have plastic in them?",
    ):
        assert names(chooser(scores).choose(asked, [compost])) == ["compost_check"], asked
    # A question that asks no yes or no says more than the check's name.
    assert chooser(scores).choose("how long does compost take to rot down?", [compost]) == []


def test_a_guide_to_what_to_do_answers_what_to_do_about_its_kind_of_thing() -> None:
    first_aid = _described(
        "first_aid_guide",
        "First aid steps for an injury, e.g. a burn or a nosebleed: what to do straight away.",
        situation=STRING,
    )
    scores = {"first_aid_guide": 0.9}
    found = chooser(scores).choose(
        "My daughter has a nosebleed that won't stop, what do I do?", [first_aid]
    )
    assert names(found)[:1] == ["first_aid_guide"]


def test_a_method_or_a_recipe_tells_how_to_make_what_it_names() -> None:
    cocktails = _described(
        "cocktail_recipe",
        "Ingredients, measures and method for a classic cocktail or mocktail.",
        cocktail={"type": "string", "description": "Name of the drink, e.g. negroni or mojito"},
    )
    scores = {"cocktail_recipe": 0.9}
    found = chooser(scores).choose("How do you make a negroni?", [cocktails])
    assert names(found) == ["cocktail_recipe"]
    assert chooser(scores).choose("How do I make bread rise faster?", [cocktails]) == []
    # A question that asks no way to make anything gets no method.
    doubt = "Shaken vs stirred - does it actually make a difference to the drink?"
    assert chooser(scores).choose(doubt, [cocktails]) == []


def test_step_by_step_guides_advise_how_to_do_what_they_name() -> None:
    guides = _described(
        "diy_how_to",
        "Step-by-step guides for small household jobs, e.g. bleeding a radiator.",
        job=STRING,
    )
    scores = {"diy_how_to": 0.9}
    assert names(chooser(scores).choose("How do I bleed a radiator?", [guides])) == ["diy_how_to"]
    assert chooser(scores).choose("How do I bleed a vampire?", [guides]) == []
    # What tells two things apart is no step of a guide.
    difference = "What's the difference between bleeding a radiator and draining it?"
    assert chooser(scores).choose(difference, [guides]) == []


def test_how_long_to_do_something_is_the_time_a_tool_reports_for_it() -> None:
    pasta = _described(
        "pasta_cooking_time",
        "Boiling time for a dried pasta shape, e.g. penne or linguine.",
        shape=STRING,
    )
    gluten = _described(
        "gluten_check", "Check whether a food or ingredient contains gluten.", food=STRING
    )
    scores = {"pasta_cooking_time": 0.5, "gluten_check": 0.6}
    asked = "how long should I cook rigatoni?"
    assert names(chooser(scores).choose(asked, [pasta, gluten])) == ["pasta_cooking_time"]
    assert chooser(scores).choose("how long should I sleep?", [pasta]) == []
    assert chooser(scores).choose("how long is a penne, is it 3cm?", [pasta]) == []  # a length
    both = "Is soy sauce gluten free, and how long should I cook linguine?"
    found = chooser(scores).choose(both, [pasta, gluten])
    assert names(found) == ["gluten_check", "pasta_cooking_time"]


def test_a_tool_that_explains_a_kind_of_thing_tells_what_one_means() -> None:
    labels = _described("laundry_symbol", "Explain a care-label symbol on clothing.", symbol=STRING)
    scores = {"laundry_symbol": 0.9}
    label = "My shirt label has a triangle that's crossed out. What does that mean?"
    assert names(chooser(scores).choose(label, [labels])) == ["laundry_symbol"]
    # ... but not what a word means.
    assert chooser(scores).choose("What does 'onomatopoeia' mean?", [labels]) == []
    # A description that says what a kind of thing means tells it too.
    lights = _described(
        "dashboard_warning_light", "What a car dashboard warning light means.", light=STRING
    )
    tyre = "my tyre pressure light is on, what does that mean"
    assert names(chooser({"dashboard_warning_light": 0.9}).choose(tyre, [lights])) == [
        "dashboard_warning_light"
    ]
    # ... and so does one that says what "the" thing of its kind means.
    marks = _described(
        "hallmark_reader", "What the purity number stamped on gold or silver means.", mark=STRING
    )
    ring = "found a bracelet with 585 stamped on the clasp, what does that mean"
    assert names(chooser({"hallmark_reader": 0.9}).choose(ring, [marks])) == ["hallmark_reader"]


def test_what_the_assistant_thinks_is_no_advice_a_guide_gives() -> None:
    first_aid = _described(
        "first_aid_guide",
        "First aid steps for an injury: what to do straight away.",
        situation=STRING,
    )
    scores = {"first_aid_guide": 0.9}
    opinion = "Is a one-day first aid course enough to actually be useful? What do you think?"
    assert chooser(scores).choose(opinion, [first_aid]) == []


def test_a_list_of_the_values_one_call_takes_is_one_call() -> None:
    parking = _described(
        "pay_for_parking",
        "Pay for on-street parking with the location code, the hours and the registration.",
        "external",
        location_code=STRING,
        hours={"type": "number"},
        registration=STRING,
    )
    tools = [parking, _tool("book_window_cleaner", "external", address=STRING, date=STRING)]
    pick = chooser({"pay_for_parking": 0.5, "book_window_cleaner": 0.1})
    request = "Pay for parking: location code 7730, three hours, registration KX19 LMN"
    assert [(c.tool.name, c.text) for c in pick.choose(request, tools)] == [
        ("pay_for_parking", request)
    ]
    # The first part may be the instruction alone.
    refill = _described(
        "order_refill",
        "Request a repeat prescription.",
        "external",
        medicine=STRING,
        pharmacy=STRING,
        packs={"type": "number"},
    )
    menu = _tool("school_dinner_menu", day=STRING)
    pick = chooser(
        {"order_refill": 0.5}, **{"to pick up at Lloyds Pharmacy?": {"school_dinner_menu": 0.9}}
    )
    request = "Request a refill of salbutamol 100mcg, 2 packs, to pick up at Lloyds Pharmacy?"
    assert names(pick.choose(request, [refill, menu])) == ["order_refill"]
    # Parts that name the same parameter each ask a call of their own.
    pick = chooser({"pay_for_parking": 0.5, "book_window_cleaner": 0.1})
    both = "Pay for 2 hours at 6002 for AB12 CDE, and another two hours at 6003 for AB12 CDE"
    assert names(pick.choose(both, tools)) == ["pay_for_parking", "pay_for_parking"]


def test_a_part_that_only_says_a_closed_value_is_the_call_before_it() -> None:
    cleaner = _tool(
        "book_window_cleaner",
        "external",
        address=STRING,
        frequency={"type": "string", "enum": ["one-off", "monthly", "every 8 weeks"]},
    )
    remind = _tool("set_reminder", "external", time=STRING, text=STRING)
    pick = chooser({"book_window_cleaner": 0.5, "set_reminder": 0.4})
    request = (
        "Book the window cleaner for 22 Mill Lane, every 8 weeks, and remind me at 8am "
        "to leave the gate open."
    )
    found = pick.choose(request, [cleaner, remind])
    assert names(found) == ["book_window_cleaner", "set_reminder"]
    # A value of a set the call before says one of asks of another.
    roads = _tool("speed_limit", road={"type": "string", "enum": ["motorway", "built-up area"]})
    each = "Speed limits for each of these: motorway, built-up area."
    assert names(chooser({"speed_limit": 0.5}).choose(each, [roads])) == ["speed_limit"] * 2


def test_a_list_of_values_written_alike_gets_a_call_per_value() -> None:
    status = _tool("dry_cleaning_status", ticket=STRING)
    pick = chooser({"dry_cleaning_status": 0.9, "get_weather": -1.0})
    found = pick.choose("Could you check tickets 4418, 4502 and 5110 for me?", [status, WEATHER])
    assert [(c.tool.name, c.text) for c in found] == [
        ("dry_cleaning_status", "Could you check tickets 4418 for me?"),
        ("dry_cleaning_status", "Could you check tickets 4502 for me?"),
        ("dry_cleaning_status", "Could you check tickets 5110 for me?"),
    ]
    # The list asks its tool once per value; another clause is asked once.
    pick = chooser(
        {"dry_cleaning_status": 0.9, "get_weather": -1.0},
        **{"what's the weather in Paris?": {"get_weather": 0.9}},
    )
    found = pick.choose(
        "check tickets 4418 and 4502. what's the weather in Paris?", [status, WEATHER]
    )
    assert names(found) == ["dry_cleaning_status", "get_weather", "dry_cleaning_status"]
    # A sum of the numbers is one call.
    pick = chooser({"calculator": 0.9})
    assert len(pick.choose("add up 1234 and 5678 for me", [CALCULATOR])) == 1


def test_asking_what_about_another_subject_asks_it_to_the_end_of_its_clause() -> None:
    compost = _tool("compost_check", item=STRING)
    pick = chooser({"compost_check": 0.9}, cardboard={"compost_check": -1.0})
    found = pick.choose(
        "Can I compost orange peel? And what about cardboard, we get loads of deliveries.",
        [compost],
    )
    assert [(c.tool.name, c.text, c.continues) for c in found] == [
        ("compost_check", "Can I compost orange peel?", None),
        ("compost_check", "cardboard", 0),
    ]
    # A name after the comma is the subject's own: "the MacBook, C02XK1ABJHD3".
    assert asked_again_of("What about the MacBook, C02XK1ABJHD3?") == "the MacBook, C02XK1ABJHD3?"
    assert asked_again_of("is it raining") == "is it raining"


def test_a_clause_that_writes_a_sum_asks_its_own_call() -> None:
    fish = _tool("aquarium_fish_guide", species=STRING)
    request = "How warm should the water be for goldfish? And work out 60 * 0.25 for me"
    pick = chooser(
        {"aquarium_fish_guide": 0.9, "calculator": 0.5},
        **{"And work out 60 * 0.25 for me": {"calculator": 0.5, "aquarium_fish_guide": 0.9}},
    )
    found = pick.choose(request, [fish, CALCULATOR])
    assert [(c.tool.name, c.continues) for c in found] == [
        ("aquarium_fish_guide", None),
        ("calculator", None),
    ]


def test_a_question_how_to_do_what_a_tool_is_named_for_goes_to_it() -> None:
    verb: dict[str, object] = {
        "type": "string",
        "description": "The verb in the infinitive, e.g. tener",
    }
    conjugation = _described(
        "verb_conjugation", "Conjugation table of a Spanish or French verb.", verb=verb
    )
    request = "how do you conjugate tener in the present tense?"
    assert candidates(request, [conjugation, CALCULATOR]) == [conjugation]
    # Another word of the question, not its verb, is no such link.
    pressure = _described("tyre_pressure", "Tyre pressures for a car model.", model=STRING)
    assert candidates("how do I check my tyre tread depth with a 20p coin", [pressure]) == []


def test_a_joke_about_what_a_guide_covers_is_no_advice() -> None:
    pest: dict[str, object] = {"type": "string", "description": "The pest, e.g. ants, mice"}
    tips = _described(
        "pest_control_tips", "How to get rid of a household pest, e.g. ants or mice.", pest=pest
    )
    assert candidates("tell me a joke about mice", [tips]) == []
    assert candidates("how do I get rid of mice?", [tips]) == [tips]


def test_what_a_file_should_become_goes_to_the_tool_that_edits_files() -> None:
    # Each read the file, wrote it over or ran a shell command.
    edit = _tool("edit_file", "write_local", path=STRING, old=STRING, new=STRING)
    tools = [READ, WRITE, SHELL, edit]
    scores = {"read_file": 0.9, "write_file": 0.8, "shell": 0.7, "edit_file": 0.2}
    for request in [
        "config.toml: version needs to be 2.0.0 now",
        "in notes.txt make it 11:30 instead of 10:00",
        "The heading in README.md should say 'Tally CLI' instead of 'Tally'. Sort that out?",
    ]:
        assert names(chooser(scores).choose(request, tools)) == ["edit_file"], request
    looks = "the version should be 2.0 - can you check config.toml?"
    assert names(chooser(scores).choose(looks, tools)) == ["read_file"]


def test_the_readme_named_without_its_extension_is_read() -> None:
    tools = [READ, WRITE, SHELL]
    scores = {"read_file": 0.2, "write_file": 0.9, "shell": 0.5}
    assert names(chooser(scores).choose("show me the readme, need to check something", tools)) == [
        "read_file"
    ]
    assert names(chooser(scores).choose("Why do people bother writing README files?", tools)) == []


def test_an_instruction_naming_its_target_as_a_thing_goes_to_the_tool_that_changes_it() -> None:
    water: dict[str, object] = {"type": "string", "description": "River or lake"}
    permits = _tool("fishing_permit_info", water=water)
    log = _tool("log_fishing_catch", "write_local", species=STRING, water=water)
    scores = {"fishing_permit_info": 0.8, "log_fishing_catch": 0.6}
    request = "Caught a pike at Rutland Water this morning!! stick it in my log"
    assert names(chooser(scores).choose(request, [permits, log])) == ["log_fishing_catch"]
    # A question about the same water keeps the lookup.
    asked = "what permits do I need for Rutland Water? it's for my log"
    assert names(chooser(scores).choose(asked, [permits, log])) == ["fishing_permit_info"]


def test_months_listed_by_their_abbreviations_each_get_a_call() -> None:
    months = [
        "january", "february", "march", "april", "may", "june",
        "july", "august", "september", "october", "november", "december",
    ]  # fmt: skip
    stone = _tool("birthstone_lookup", month={"type": "string", "enum": months})
    found = chooser({"birthstone_lookup": 1.0}).choose(
        "birthstones for my three kids: jan, july and nov", [stone]
    )
    assert [c.text for c in found] == ["birthstones for my three kids: jan", "july", "nov"]


def test_an_instruction_of_its_own_after_another_keeps_its_own_tool() -> None:
    book = _tool("book_car_wash", "external", service=STRING, date=STRING)
    amount: dict[str, object] = {"type": "number", "description": "Amount in pounds"}
    pay = _tool("request_payment", "external", person=STRING, amount=amount)
    ask = "ask Jake for £12 - his share since he borrowed it for the festival"
    scores = Fixed({"book_car_wash": 0.8, "request_payment": 0.1}, {ask: {"request_payment": 0.5}})
    request = f"Book the car in for a mini valet on Sunday, and {ask}"
    found = ToolChooser(scores, threshold=0.0).choose(request, [book, pay])
    assert names(found) == ["book_car_wash", "request_payment"]


VOLUME = _described(
    "set_volume",
    "Set the volume of one of the phone's sound channels.",
    "write_local",
    channel={"type": "string", "enum": ["media", "ringtone", "alarm"]},
    level_percent={"type": "integer"},
)
DISPLAY = ToolSpec(
    "set_screen_brightness",
    "Change the phone's display.",
    {
        "type": "object",
        "properties": {
            "level_percent": {"type": "integer"},
            "night_light": {"type": "string", "enum": ["on", "off", "scheduled"]},
        },
    },
    "write_local",
)
TIME = _tool("get_time", city=STRING)


def test_a_setting_named_with_its_value_asks_for_the_tool_that_changes_it() -> None:
    tools = [VOLUME, DISPLAY, TIME]
    assert sets_a_setting("ringer volume to 80 please", VOLUME)
    assert sets_a_setting("night light on pls", DISPLAY)
    assert sets_a_setting("brightness 70%, media volume 40%", DISPLAY)
    assert not sets_a_setting("Is the night light on?", DISPLAY)  # a question sets nothing
    assert not sets_a_setting("the time in Paris at 5", TIME)
    refund = _described("request_refund", "Refund an order.", "external", order_number=STRING)
    assert not sets_a_setting("can you track where my parcel is? order 7719-22", refund)
    assert sets_a_setting("ringtone down to 10", VOLUME)  # a closed value names the setting
    assert not sets_a_setting("the config file on the server - what port?", FILE_WRITER)
    assert VOLUME in candidates("ringer volume to 80 please", tools)
    assert DISPLAY in candidates("night light on pls", tools)  # it takes no required value
    scores = {"get_time": 0.9, "set_volume": 0.2, "set_screen_brightness": 0.1}
    assert names(chooser(scores).choose("ringer volume to 80 please", tools)) == ["set_volume"]


REVIEW = _described(
    "post_review",
    "Publish a public review with a star rating of a business.",
    "external",
    business=STRING,
    stars={"type": "integer"},
)
FILE_WRITER = _tool("write_file", "write_local", path=STRING, content=STRING)


def test_a_verb_of_giving_the_thing_a_changing_tool_is_named_for_asks_for_it() -> None:
    assert asks_its_action("leave a 5 star review for Dishoom Kings Cross: lovely", REVIEW)
    assert asks_its_action("Reviews to post: Bella Napoli 4 stars; Golden Wok 1 star", REVIEW)
    assert not asks_its_action("give me a review of the film", _tool("find_review", title=STRING))
    assert not asks_its_action("leave a review? what do you think", _tool("get_time", city=STRING))
    assert not asks_its_action("drop a note in a new file", FILE_WRITER)  # the verbs' job


def test_each_entry_of_a_list_is_a_call_that_reads_only_its_own_entry() -> None:
    timing: dict[str, object] = {"type": "string", "enum": ["before_breakfast", "after_gym"]}
    weigh = _described(
        "log_weight", "Records a body weight.", "write_local", kg={"type": "number"}, timing=timing
    )
    asked = "Log two weights: 71.2 before breakfast, and 70.4 after gym"
    choices = chooser({"log_weight": 0.5}).choose(asked, [weigh])
    assert [(c.text, c.context) for c in choices] == [
        ("Log weights: 71.2 before breakfast", "Log weights: 71.2 before breakfast"),
        ("Log weights: 70.4 after gym", "Log weights: 70.4 after gym"),
    ]
    # A request of one call reads the whole request.
    assert [
        c.context for c in chooser({"log_weight": 0.5}).choose("Log 71.2 after gym", [weigh])
    ] == [None]


def test_thanks_after_a_request_is_no_call_of_its_own() -> None:
    wallpaper = _described(
        "set_wallpaper", "Sets the wallpaper.", "write_local", image={"type": "string"}
    )
    asked = "Set my Holiday 2019 album as the wallpaper please. Thanks x"
    choices = chooser({"set_wallpaper": 0.5}).choose(asked, [wallpaper])
    # One call, and the thanks give it no value.
    assert [c.text for c in choices] == ["Set my Holiday 2019 album as the wallpaper please."]
