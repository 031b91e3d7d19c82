"""Several subjects in one request: where it splits, and how a short part continues."""

from __future__ import annotations

from tiller.models.local.clauses import (
    continued,
    leads_in,
    parts_of,
    refers_back,
    remarks,
    resolved,
    sets_the_scene,
    stands_alone,
)
from tiller.models.local.request_parts import (
    asked_of_each,
    each_given_the_same,
    joined_to_what_they_are_about,
    without_the_scene,
)
from tiller.models.local.subjects import (
    asks_of_the_subject_before,
)


def test_a_request_splits_where_a_clause_may_begin() -> None:
    assert parts_of("What time is it in Lisbon and in Seoul?") == [
        "What time is it in Lisbon",
        "in Seoul?",
    ]
    assert parts_of("What is 12*7, and what is the weather in Paris?") == [
        "What is 12*7",
        "what is the weather in Paris?",
    ]
    assert parts_of("Is it cold in Oslo? Also convert 20 euros to yen.") == [
        "Is it cold in Oslo?",
        "Also convert 20 euros to yen.",
    ]
    assert parts_of("Show notes.txt") == ["Show notes.txt"]  # a file name is not a sentence end
    # Two names joined by "and" after "the" are one name, which no "and" cuts.
    assert parts_of("Is the A614 gritted, and are locks shut on the Kennet and Avon?") == [
        "Is the A614 gritted",
        "are locks shut on the Kennet and Avon?",
    ]
    # A condition supposes all it says before the question; no "and" cuts it.
    supposed = "If the hall's £35 an hour and we need it for 6 hours, what does that come to?"
    assert parts_of(supposed) == [supposed]
    assert parts_of("Weather in Leeds? If it rains and I'm out, what should I wear?") == [
        "Weather in Leeds?",
        "If it rains and I'm out, what should I wear?",
    ]
    # Another question offered instead begins a clause of its own.
    assert parts_of("How much would 25 cost, or would 25 large ones be more?") == [
        "How much would 25 cost",
        "would 25 large ones be more?",
    ]
    # What the speaker thinks of it begins a clause of its own.
    assert parts_of("Check YD68 HPL and SF21 RMO please, I think one has lapsed") == [
        "Check YD68 HPL",
        "SF21 RMO please",
        "I think one has lapsed",
    ]
    assert parts_of("Are locks shut in Leeds and Liverpool?") == [
        "Are locks shut in Leeds",
        "Liverpool?",
    ]


def test_short_parts_and_numbers_do_not_stand_alone() -> None:
    assert stands_alone("what is the weather in Paris")
    assert not stands_alone("in Seoul")
    assert not stands_alone("12, 7")
    assert not stands_alone("23.")


def test_a_short_part_puts_its_new_words_where_the_value_was() -> None:
    clause = "What time is it in Lisbon"
    assert continued(clause, {"city": "Lisbon"}, "in Seoul?") == "What time is it in Seoul"
    assert continued("Weather in Paris", {"city": "Paris"}, "Rome") == "Weather in Rome"
    # A closed value of several words said with others between them is put in whole.
    closed = frozenset({"first", "second", "large_first", "large_second"})
    stamps = {"size": "first", "quantity": 30}
    found = continued("I need 30 first class stamps", stamps, "5 large letter second ones", closed)
    assert found == "I need 5 large letter second class stamps"
    # A closed value said whole is put in place of the clause's as before.
    services = frozenset({"haircut", "beard trim", "blow dry"})
    booked = {"service": "haircut", "day": "Friday", "time": "4pm"}
    found = continued(
        "book me a haircut on Friday at 4pm", booked, "a beard trim at 4:30pm", services
    )
    assert found == "book me a beard trim on Friday at 4:30pm"


def test_a_part_that_cannot_continue_the_clause_gives_nothing() -> None:
    # A number joined by "and" belongs to the expression that already took it.
    assert continued("Add 19", {"expression": "19 + 23"}, "23") is None
    # Nothing new in the part.
    assert continued("What time is it in Lisbon", {"city": "Lisbon"}, "in Lisbon") is None
    # The value is not written in the clause, so there is nothing to put the part in place of.
    assert continued("What's 15% of 80", {"expression": "15 * 80 / 100"}, "of 90 too") is None


def test_the_commas_of_a_list_that_ends_in_and_split_it() -> None:
    assert parts_of("Weather in Lisbon, Paris and Seoul please") == [
        "Weather in Lisbon",
        "Paris",
        "Seoul please",
    ]
    # A comma that ends no list item is left alone.
    assert parts_of("create hello.txt containing: Hello, world!") == [
        "create hello.txt containing: Hello, world!"
    ]


def test_the_last_comma_of_a_list_without_and_that_ends_the_request_splits_it() -> None:
    assert parts_of("forecast for madrid, nairobi, vancouver") == [
        "forecast for madrid",
        "nairobi",
        "vancouver",
    ]
    assert parts_of("time in tokyo, paris, london?") == ["time in tokyo", "paris", "london?"]
    # One comma is no list: "please" after it is politeness.
    assert parts_of("what is the weather in Paris, please") == [
        "what is the weather in Paris, please"
    ]


def test_vs_plus_and_a_list_after_a_count_and_a_colon_split_it() -> None:
    assert parts_of("air quality in beijing vs los angeles") == [
        "air quality in beijing",
        "los angeles",
    ]
    assert parts_of("Paris: weather + air quality") == ["Paris: weather", "air quality"]
    assert parts_of("track these two: 7845123, 9400111") == ["track these two: 7845123", "9400111"]
    # A sum is one expression, and a colon with no count before it opens one text.
    assert parts_of("what is 5 + 3") == ["what is 5 + 3"]
    assert parts_of("set the title to: Tom, Jerry") == ["set the title to: Tom, Jerry"]


def test_a_quoted_passage_is_never_split() -> None:
    assert parts_of("Count the words in 'salt, pepper, garlic and olive oil'") == [
        "Count the words in 'salt, pepper, garlic and olive oil'"
    ]
    assert parts_of('what\'s 7*8, and how many words are in "to be and not to be"') == [
        "what's 7*8",
        'how many words are in "to be and not to be"',
    ]


def test_there_means_the_place_the_earlier_call_named() -> None:
    assert refers_back("and what time is it there?")
    assert not refers_back("is there a way to do it?")  # nothing is referred to
    assert not refers_back("what time is it in Seoul?")
    clause = "What's the weather in Tokyo"
    assert resolved("what time is it there?", clause, {"city": "Tokyo"}) == (
        "what time is it Tokyo?"
    )
    # No value of the earlier call is written in its clause: nothing to put in.
    assert resolved("time there?", "12 * 7", {"expression": "12*7"}) == "time there?"
    # A part that says no "there" takes the value too.
    assert resolved("the weather please", "Paris: air quality", {"city": "Paris"}) == (
        "the weather please in Paris"
    )


def test_a_part_replaces_the_clause_from_its_opening_word_when_the_value_was_picked() -> None:
    # "USD" was picked from a closed set, so it is not written in the clause.
    clause = "convert 100 euros to dollars"
    assert continued(clause, {"amount": 100, "currency": "USD"}, "to pounds") == (
        "convert 100 euros to pounds"
    )


def test_polite_words_do_not_make_a_part_stand_alone() -> None:
    assert not stands_alone("AF1234 for me")
    assert stands_alone("3 km to feet")


def test_a_statement_about_the_speaker_sets_the_scene() -> None:
    assert sets_the_scene("I have three very overripe bananas sitting on the counter")
    assert sets_the_scene("I'm flying to Oslo on Friday")
    assert not sets_the_scene("I'd like the weather in Oslo")  # requests
    assert not sets_the_scene("I need the time in Paris")
    assert not sets_the_scene("im in lisbon, what time is it?")  # a question
    # What is asked about: where it is, how long it has taken.
    assert sets_the_scene("it's in config.toml")
    assert sets_the_scene("It's been ages.")
    # A remark before an instruction is a request.
    assert not sets_the_scene("it's freezing in the office, bump the heat up to 22 please")
    assert not sets_the_scene("I'm cold, turn the heating on")
    # What there is, and what the speaker did, told without "I".
    assert sets_the_scene("There's a chance of seeing the northern lights tonight where I am!!")
    assert sets_the_scene("there's four of us")
    assert sets_the_scene("Found holes in two of my wool jumpers")
    assert sets_the_scene("bought one powerball and one mega millions ticket this week")
    assert not sets_the_scene("is there a match on tonight?")
    assert not sets_the_scene("found my keys?")
    # A sound before it is no word of it.
    assert sets_the_scene("Ow, I just trod on a jellyfish in the shallows")
    # Nor is a greeting; and what "it" does tells of what is asked.
    assert sets_the_scene("hi, I applied to renew my passport about 4 weeks ago")
    assert sets_the_scene("It ends in 4821.")
    assert not sets_the_scene("It ends in 4821, cancel it")
    # A value told for the question after it.
    assert sets_the_scene("the toll is £9.70 each way")
    assert sets_the_scene("The bill was 96 quid")
    assert not sets_the_scene("the toll is how much?")


def test_a_remark_beside_the_question_asks_nothing() -> None:
    assert remarks("pale brit here, don't want to fry")
    assert remarks("trying to work out if it's the storm")
    assert remarks("it really stings.")
    assert remarks("christmas cards time again!")  # exclaims
    assert not remarks("Book the sweep for Friday!")
    assert not remarks("Paris!")  # a name alone
    # A question, an instruction, or a part that names something is no remark.
    assert not remarks("is it raining here?")
    assert not remarks("what's it like here")
    assert not remarks("and in my home town York")
    assert not remarks("book it for me at 7pm")
    assert not remarks("and my mum in leeds")
    assert not remarks("the bedroom lights")  # says nothing of the speaker
    assert not remarks("give me rhymes for blue")  # requests
    # A question asked after the remark: "thinking of fish. what does a guppy need".
    assert not remarks("thinking of getting fish for the new tank., what does a guppy need")
    assert not remarks("doing morocco first and then paris., what jabs for morocco")
    # What the speaker has just done: "just finished my run."
    assert remarks("just finished my run.")
    assert leads_in("just got a betta for my son's room")
    assert not remarks("I'd like the tides too")
    assert not remarks("Each of these words needs rhymes for my song: moon")  # a list
    assert not remarks("and whats my phone battery at")  # a question after "and"
    assert not remarks("beijing")  # a place, not a doing
    assert not remarks("Check my checking")  # an instruction
    assert not remarks("desk lamps have we got")  # a question
    # A thing named by what it is for asks for it: "dialling codes for ireland".
    assert not remarks("dialling codes for ireland")
    assert not remarks("opening times at kew")
    assert remarks("doing readings for the girls tonight")
    assert without_the_scene(
        ["any power cuts in kendal", "hexham?", "trying to work out if it's the storm"]
    ) == ["any power cuts in kendal", "hexham?"]


def test_a_list_after_a_topic_and_a_colon_splits_but_a_text_after_an_instruction_does_not() -> None:
    assert parts_of("snow report: chamonix, zermatt") == ["snow report: chamonix", "zermatt"]
    assert parts_of("Term dates: Surrey, West Midlands?") == [
        "Term dates: Surrey",
        "West Midlands?",
    ]
    assert parts_of("set the title to: Tom, Jerry") == ["set the title to: Tom, Jerry"]
    assert parts_of("add to my todo: buy stamps, call the plumber") == [
        "add to my todo: buy stamps",
        "call the plumber",
    ]
    assert parts_of("write hello.txt with: Hello, world!") == [
        "write hello.txt with: Hello, world!"
    ]
    long_text = "Note: the meeting is at 3, bring snacks"
    assert parts_of(long_text) == [long_text]


def test_a_continued_clause_takes_the_parts_own_number() -> None:
    watering = "Water the front lawn for 10 minutes"
    assert (
        continued(watering, {"zone": "front lawn"}, "the flower beds for 25")
        == "Water the flower beds for 25 minutes"
    )
    dose = "Log 500mg of paracetamol"
    assert (
        continued(dose, {"medicine": "paracetamol"}, "10mg cetirizine") == "Log 10mg of cetirizine"
    )
    # Without a number of its own the part keeps the clause's.
    assert (
        continued(watering, {"zone": "front lawn"}, "the flower beds")
        == "Water the flower beds for 10 minutes"
    )


def test_a_part_saying_only_what_the_speaker_is_doing_leads_in() -> None:
    assert leads_in("taking my 8 year old daughter to kenya")
    assert leads_in("Planning a beach day in Brighton on Saturday.")
    assert leads_in("Off to Japan next week.")
    assert not leads_in("running on fumes, where's the cheapest petrol?")  # asks
    assert not leads_in("feeling great after the hike, put that in my mood journal")
    assert not leads_in("tracking number PK9032")  # a value, not a doing
    assert not leads_in("Opening hours of the Prado")
    assert not leads_in("beijing")
    assert not leads_in("Reading")
    assert not leads_in("Hosting dinner: salmon to start, lamb tagine as the main.")  # a list


def test_when_the_speaker_will_do_something_leads_in() -> None:
    assert leads_in("Before I get home")
    assert leads_in("once we land")
    assert not leads_in("when is the louvre open?")
    assert not leads_in("When I get home, what's the weather")


def test_another_one_of_a_kind_takes_its_own_number_and_keeps_the_subject() -> None:
    assert continued("Public holidays in Canada in 2025?", {"country": "Canada"}, "And 2026?") == (
        "Public holidays in Canada in 2026?"
    )
    clause = "How much should a 30 kg dog eat a day?"
    assert (
        continued(clause, {"animal": "dog", "weight_kg": 30}, "And a 6 kg one?")
        == "How much should a 6 kg dog eat a day?"
    )
    assert continued("set a 5 minute timer", {"minutes": 5}, "another one for 20 minutes") == (
        "set a 20 minute timer"
    )


def test_a_continued_clause_takes_the_parts_number_spelled_out() -> None:
    firing = "Book a bisque firing for 15 pieces"
    values = {"firing_type": "bisque", "pieces": 15}
    closed = frozenset({"bisque", "glaze"})
    assert continued(firing, values, "a glaze firing for six.", closed) == (
        "Book a glaze firing for 6 pieces"
    )
    # A number word that goes on a name is the name's: "bbc four" is a channel.
    listings = "tonight's listings pls: channel 5"
    found = continued(listings, {"channel": "channel 5"}, "bbc four")
    assert found == "tonight's listings pls: bbc four"


def test_a_continued_clause_puts_each_new_word_in_the_place_of_its_kind() -> None:
    court = "Book a tennis court at Victoria Park on Saturday at 9am,"
    values = {"venue": "Victoria Park", "date": "Saturday", "time": "9am"}
    assert (
        continued(court, values, "and also one at Finsbury Park on Sunday at 11am.")
        == "Book a tennis court at Finsbury Park on Sunday at 11am,"
    )
    # Only a new day: the venue stays.
    assert (
        continued(court, values, "and on Sunday")
        == "Book a tennis court at Victoria Park on Sunday at 9am,"
    )
    # A value of a closed set is replaced by another of it, a name by the name.
    order = "Order roses for Grandma for Tuesday"
    flowers = {"recipient": "Grandma", "flowers": "roses", "delivery_date": "Tuesday"}
    closed = frozenset({"roses", "tulips", "sunflowers"})
    assert (
        continued(order, flowers, "and sunflowers for Priya for Wednesday.", closed)
        == "Order sunflowers for Priya for Wednesday"
    )
    # A closed value is written in any case: "coach" for `COACH`.
    modes = frozenset({"car", "coach", "train"})
    trip = {"distance_km": 300, "mode": "COACH"}
    assert (
        continued("CO2 for 300 km by coach", trip, "the same trip by car?", modes)
        == "CO2 for 300 km by car"
    )


def test_a_parameters_name_is_no_new_value_unless_it_ends_a_name() -> None:
    gritting = "Is the A614 being gritted tonight?"
    assert (
        continued(gritting, {"road": "A614"}, "Station Road?")
        == "Is the Station Road being gritted tonight?"
    )
    assert continued(gritting, {"road": "A614"}, "Selby road?") == (
        "Is the Selby being gritted tonight?"
    )


def test_a_relative_clause_is_no_question_and_a_bare_subject_follows_no_lead_in() -> None:
    assert leads_in("Planning a day at Slimbridge with my dad, who is mad about cranes.")
    assert not leads_in("Planning a day at Slimbridge. Who has the best cafe?")
    # A lead-in joins a question, not another subject: "and inverness" asks again.
    parts = parts_of("stargazing tonight in keswick, inverness and whitby")
    assert joined_to_what_they_are_about(parts) == [
        "stargazing tonight in keswick", "inverness", "whitby"
    ]  # fmt: skip
    asks = parts_of("taking my daughter to kenya, what vaccines does a child need")
    assert joined_to_what_they_are_about(asks) == [
        "taking my daughter to kenya, what vaccines does a child need"
    ]
    # A lead-in of two parts leads into the question after them.
    ferry = parts_of("Taking the ferry tomorrow and then driving on. What are the sailings?")
    assert joined_to_what_they_are_about(ferry) == [
        "Taking the ferry tomorrow, then driving on., What are the sailings?"
    ]
    # The question a lead-in joins ends it: the parts after are their own.
    trip = parts_of("Going on a road trip! Which shops are in Totnes and in Ludlow?")
    assert joined_to_what_they_are_about(trip) == [
        "Going on a road trip!, Which shops are in Totnes",
        "in Ludlow?",
    ]


def test_please_before_a_colon_list_is_no_item_of_it() -> None:
    assert parts_of("Sightings for these three, please: Minsmere, Slimbridge, Leighton Moss") == [
        "Sightings for these three, please: Minsmere", "Slimbridge", "Leighton Moss"
    ]  # fmt: skip


def test_or_between_two_names_asks_about_each() -> None:
    assert parts_of("Anything handed in at Gatwick Airport or Edinburgh Waverley?") == [
        "Anything handed in at Gatwick Airport", "Edinburgh Waverley?"
    ]  # fmt: skip
    assert parts_of("Is it sunny in Paris or in Lisbon today?") == [
        "Is it sunny in Paris", "in Lisbon today?"
    ]  # fmt: skip
    # Two places, then which of them: each is asked about, the "which" left to the answer.
    assert parts_of("panto in york or cardiff - which one runs later?") == [
        "panto in york", "cardiff"
    ]  # fmt: skip
    assert parts_of("tea or coffee - which is better?") == ["tea or coffee - which is better?"]
    assert parts_of("Is there any disruption on the Northern or the Victoria line?") == [
        "Is there any disruption on the Northern", "the Victoria line?"
    ]  # fmt: skip
    assert parts_of("is it raining or sunny in Oslo") == ["is it raining or sunny in Oslo"]
    # Two places in lower case that end the sentence.
    assert parts_of("any lost dogs reported in whitby or hove? we walk there") == [
        "any lost dogs reported in whitby", "hove?", "we walk there"
    ]  # fmt: skip
    assert parts_of("is it sunny in paris or not?") == ["is it sunny in paris or not?"]
    assert parts_of("weather in the morning or evening?") == ["weather in the morning or evening?"]
    # A name compared with another, but not a time.
    assert parts_of("How much is council tax in Westminster compared with Wandsworth?") == [
        "How much is council tax in Westminster", "Wandsworth?"
    ]  # fmt: skip
    warmer = "Is it warmer in Oslo today compared with yesterday?"
    assert parts_of(warmer) == [warmer]
    # The same thing another way is another subject.
    assert parts_of("How much CO2 is 300 km by coach, compared with the same trip by car?") == [
        "How much CO2 is 300 km by coach", "the same trip by car?"
    ]  # fmt: skip
    assert parts_of("Python or JavaScript?") == ["Python or JavaScript?"]  # it opens with one
    # "Compare A with B", when B is a name or says a word of A again; not a condition.
    assert parts_of("Compare 200 kWh on the standard tariff with 200 kWh on the green tariff") == [
        "Compare 200 kWh on the standard tariff", "200 kWh on the green tariff"
    ]  # fmt: skip
    assert parts_of("compare the weather in Oslo to Bergen") == [
        "compare the weather in Oslo", "Bergen"
    ]  # fmt: skip
    assert parts_of("compare prices with VAT included") == ["compare prices with VAT included"]
    assert parts_of("Could you compare oak with ash for me? Building a chair.") == [
        "Could you compare oak", "ash for me?", "Building a chair."
    ]  # fmt: skip


def test_the_speakers_own_thing_told_as_an_instructions_first_is_another_for_it() -> None:
    request = "Add countdowns for Mia's birthday on 4 July and our holiday on 20 August"
    assert without_the_scene(parts_of(request)) == [
        "Add countdowns for Mia's birthday on 4 July", "our holiday on 20 August"
    ]  # fmt: skip
    # After a question, or said otherwise, it still tells the scene.
    told = "What's the weather in Rome on Friday and our flight lands at 9"
    assert without_the_scene(parts_of(told)) == ["What's the weather in Rome on Friday"]


def test_another_subject_told_after_the_scene_is_part_of_it() -> None:
    request = (
        "We're in Cardiff on Friday and Brighton on Saturday. What time is check-in at the "
        "Hotel Indigo Cardiff? And at the Travelodge Brighton?"
    )
    assert without_the_scene(parts_of(request)) == [
        "What time is check-in at the Hotel Indigo Cardiff?", "And at the Travelodge Brighton?"
    ]  # fmt: skip
    # A question after the scene asks.
    assert without_the_scene(["I have three bananas", "and what's 3 * 4?"]) == ["and what's 3 * 4?"]
    # The scene's sentence goes on after "and", with no subject of its own.
    flying = "I'm flying to Tokyo tonight and haven't packed yet. What's the weather there now?"
    assert without_the_scene(parts_of(flying)) == ["What's the weather there now?"]
    # ... but a new sentence is no more of it, nor is a request.
    assert without_the_scene(parts_of("going to oslo tomorrow. weather please")) == [
        "weather please"
    ]
    booked = without_the_scene(["I'm in Leeds tonight", "book me a taxi to the station"])
    assert booked == ["book me a taxi to the station"]


def test_a_question_for_each_of_the_names_told_before_it_asks_it_of_each() -> None:
    moving = "We're moving from Atlanta to Minneapolis. Frost dates for both?"
    assert asked_of_each(moving) == ["Frost dates for Atlanta?", "Frost dates for Minneapolis?"]
    between = "I live between Sheffield and Leeds, so what's on in both?"
    assert asked_of_each(between) == ["so what's on in Sheffield?", "so what's on in Leeds?"]
    # A short word in capitals is what is asked, not a name of its own.
    uv = "I'm off to Heraklion next week and my brother is in Denver. How strong is the UV in each?"
    assert asked_of_each(uv) == [
        "How strong is the UV in Heraklion?",
        "How strong is the UV in Denver?",
    ]
    # Names an earlier question asks about are its own subjects already.
    assert asked_of_each("Is it sunny in Paris or in Lisbon today? Check both for me") == []
    assert asked_of_each("I have a 20 kg dog and a 2 kg rabbit, how much does each eat?") == []
    # A month is no name; amounts of one unit, each told alone, are asked of.
    refs = "We applied in April. The refs are PA-3318207 and PA-6093355. Any news on either?"
    assert asked_of_each(refs) == ["Any news on PA-3318207?", "Any news on PA-6093355?"]
    water = "I had 250 ml at breakfast and another 330 ml at lunch, can you log both?"
    assert asked_of_each(water) == ["can you log 250 ml?", "can you log 330 ml?"]
    # "their" asks it of the names told before, as "each" does.
    cricket = "My son plays for Harrogate and my nephew for Sedbergh. When are their next games?"
    assert asked_of_each(cricket) == [
        "When are Harrogate next games?",
        "When are Sedbergh next games?",
    ]
    # "those" or "these" said for the things themselves asks of each; before a noun, none.
    lamps = "I've got one lamp that takes E14 and another that takes E27. What do those mean?"
    assert asked_of_each(lamps) == ["What do E14 mean?", "What do E27 mean?"]
    assert asked_of_each("I like Nike and Adidas. Are those trainers in stock?") == []
    # A name of two names joined after "the" is one of them.
    canals = "From the Leeds and Liverpool onto the Llangollen. Closures on either canal?"
    assert asked_of_each(canals) == [
        "Closures on the Leeds and Liverpool canal?",
        "Closures on Llangollen canal?",
    ]


def test_values_of_one_closed_set_told_before_a_question_for_each_are_asked_of() -> None:
    colours = [["small", "large"], ["red", "brown", "yellow"]]
    plugs = "got red and yellow plugs in the drawer, which drill bit for each"
    assert asked_of_each(plugs, colours) == [
        "which drill bit for red",
        "which drill bit for yellow",
    ]
    # Numbers told with the values go with each, which a question of the value alone loses.
    assert asked_of_each("a 6 mm red and an 8 mm brown, drill for each?", colours) == []
    assert asked_of_each(plugs) == []  # no closed set offered


def test_a_value_each_is_given_goes_with_each_thing_of_its_sentence() -> None:
    request = "Pause the milk. Top up the 'Oyster' card and the 'kids Oyster' card with £10 each"
    parts = ["Pause the milk.", "Top up the 'Oyster' card", "the 'kids Oyster' card with £10 each"]
    assert each_given_the_same(parts, request) == [
        "Pause the milk.",
        "Top up the 'Oyster' card with £10",
        "the 'kids Oyster' card with £10",
    ]
    # No value given to each: the parts as they are.
    parts = ["Top up the 'Oyster' card", "the other one with £10"]
    assert each_given_the_same(parts, " and ".join(parts)) == parts


def test_a_question_naming_no_subject_asks_of_the_one_before() -> None:
    assert asks_of_the_subject_before("Is there any space")
    assert asks_of_the_subject_before("what's the rent?")
    assert asks_of_the_subject_before("is it open on it?")
    assert not asks_of_the_subject_before("and in seoul?")
    assert not asks_of_the_subject_before("what's it like in rome?")
    assert not asks_of_the_subject_before("is UA901 on time?")
    assert not asks_of_the_subject_before("what about Leeds?")
    assert not asks_of_the_subject_before("book the sweep")  # no question
    # A question on the answer to the one before.
    assert asks_of_the_subject_before("If so how much a year?")
    assert asks_of_the_subject_before("and if not, when is the next one?")
    assert not asks_of_the_subject_before("If so how much in Leeds?")
    assert not asks_of_the_subject_before("if you can, book the sweep")


def test_a_numbers_fraction_is_no_second_part() -> None:
    parts = parts_of("Note down a brown trout in my diary, about two and a half pounds")
    assert parts == ["Note down a brown trout in my diary", "about two and a half pounds"]


def test_what_the_speaker_heard_sets_the_scene() -> None:
    assert sets_the_scene("heard it snows a lot")
    assert not sets_the_scene("heard anything about the snow?")


def test_the_items_of_a_numbered_list_are_parts() -> None:
    request = "Two things. 1) the lock keeps sticking, please report it. 2) remind me at 17:00."
    assert parts_of(request) == [
        "Two things.",
        "the lock keeps sticking, please report it.",
        "remind me at 17:00.",
    ]
    assert parts_of("what's option (2) about?") == ["what's option (2) about?"]


def test_the_items_of_a_numbered_list_on_lines_of_their_own_are_parts() -> None:
    request = "1) pair my JBL Flip 6 speaker\n2) turn the media volume up to 75"
    assert [p.strip() for p in parts_of(request)] == [
        "pair my JBL Flip 6 speaker",
        "turn the media volume up to 75",
    ]


def test_settings_listed_with_their_values_are_parts() -> None:
    assert parts_of("brightness 70%, media volume 40%") == ["brightness 70%", "media volume 40%"]
    assert parts_of("brightness 70%, please") == ["brightness 70%, please"]


def test_no_clause_ends_inside_what_a_mapping_says_a_thing_becomes() -> None:
    request = "when i type addr it fills in 42 Larch Close, Didsbury, M20 6TL"
    assert parts_of(request) == [request]
    two = "Add two text shortcuts: brb -> be right back, and eml -> jo@example.com"
    assert parts_of(two) == [
        "Add two text shortcuts: brb -> be right back",
        "eml -> jo@example.com",
    ]
    # A part that writes its own mapping holds its own values.
    head = {"shortcut": "brb", "phrase": "be right back"}
    assert continued(two, head, "eml -> jo@example.com") == "eml -> jo@example.com"


def test_a_part_built_as_the_end_of_the_clause_replaces_that_end() -> None:
    ordered = {"quantity": 10, "product": "Coke", "supplier": "Bestway"}
    clause = "Order 10 crates of Coke from Bestway"
    found = continued(clause, ordered, "4 boxes of crisps from Booker")
    assert found == "Order 4 boxes of crisps from Booker"
    heating = {"room": "kitchen", "temperature": 20}
    found = continued("Set the kitchen to 20", heating, "the living room to 21")
    assert found == "Set the living room to 21"
    # Built otherwise: the part's values take the places of the clause's.
    watering = {"zone": "front lawn", "minutes": 10}
    found = continued("Water the front lawn for 10 minutes", watering, "the flower beds for 25")
    assert found == "Water the flower beds for 25 minutes"


def test_what_the_speaker_got_sets_the_scene() -> None:
    assert sets_the_scene("got a customer asking for both")
    assert not sets_the_scene("got any tips for sourdough?")
