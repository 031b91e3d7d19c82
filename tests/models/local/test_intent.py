"""A request asks for a change or an action only when a clause opens with such a verb."""

from __future__ import annotations

import pytest

from tiller.models.local.candidates import job_asked
from tiller.models.local.explanations import asks_an_opinion, asks_to_explain
from tiller.models.local.intent import (
    asks_a_sum,
    asks_for_change,
    clauses_of,
    framed_question,
    keeps_it_in_the_reply,
    leading_word,
    only_social,
)
from tiller.models.local.verbs import job_of


@pytest.mark.parametrize(
    "request_text",
    [
        "Run the tests",
        "Can you run the tests please?",
        "please create a file hello.txt saying hi",
        "I need you to delete old.txt",
        "Change the port in config.toml to 9090",
        "Show me notes.txt and then add a line saying hi",
        "set a reminder to call mum at 5",
        "OK, now rename draft.md to final.md.",
        "can you reserve a table for 4 at 20:00",
        "text Marco that I'm running late",
        # An instruction after a remark, a comma or a dash.
        "it's pitch black in the hallway, can you put the light on",
        "Spent 3 euros on a bus ticket - put that in my budget",
        "We're releasing 2.0.0, update the version in config.toml",
        # Acting on devices, money and messages.
        "Dim the living room lights to 30%",
        "pay Ana back the 120 I owe her",
        "Log my mood as low today.",
        "tell the #design channel the mockups are up",
        "let Marco know the build is out",
        "got an interview in 5 mins, silence my phone till 3pm pls",
        "donate £5 to Oxfam",
        "unsubscribe me from the newsletter",
        "Give £5 to Oxfam and £5 to the RSPCA please.",
    ],
)
def test_instructions_to_change_or_do_something_ask_for_a_change(request_text: str) -> None:
    assert asks_for_change(request_text)


@pytest.mark.parametrize(
    "request_text",
    [
        "Show me notes.txt",
        "Print lines 2 to 3 of notes.txt",
        "What files are in this folder?",
        "What happens when I run the tests?",
        "Do I need an umbrella in Paris?",
        "Find where count_words is defined",
        "Explain what config.toml sets",
        "Is the test suite passing?",
        "Which file would I change to set the port?",
        "tell me the weather in Paris",
        "let me know if it rains in Oslo",
        "What is the weather in Paris, London and Rome?",
        "Show me notes.txt, then the README",
    ],
)
def test_requests_to_see_find_or_explain_do_not(request_text: str) -> None:
    assert not asks_for_change(request_text)


def test_clauses_break_at_sentence_ends_and_semicolons_but_not_inside_file_names() -> None:
    assert clauses_of("Read a.txt. Then fix it; and test it") == [
        "Read a.txt",
        "Then fix it",
        "and test it",
    ]
    assert asks_for_change("Read a.txt. Then fix it")  # "then" leads in to the verb


@pytest.mark.parametrize(
    "request_text",
    [
        "why is the sky blue",
        "How does parcel tracking actually work?",
        "Can you explain what a tracking number is?",
        "what's the difference between a list and a tuple in python?",
        "I am learning English. Can you explain me when to use 'since'?",
        "What is a time zone, and why do we have them?",
        "whats the difference between == and is in python",
        "what does git stash do?",
        "what does AQI actually stand for?",
        "can u explain the offside rule",
        "is it better to keep bananas in the fridge or on the counter",
        "should I pay my card off in full or is the minimum ok?",
        "any tips for beating jet lag?",
        "what does 'port' mean in networking, in simple words?",
        "is it safe to eat raw cookie dough?",
        "is it easier to learn spanish or italian",
        "how long should I boil an egg?",
        "how often should we water a cactus",
        "What causes smog in big cities?",
        "What actually makes a stock's price go up or down?",
        "is a tomato a fruit or a vegetable?",
        "is spanish or italian easier to pick up?",
        "Is it actually bad to eat late at night?",
        "can you recommend a good sci-fi movie from the 80s?",  # "80s" is no code
        "Who painted Girl with a Pearl Earring?",
        "who wrote pride and prejudice",
        "is chocolate really that bad for dogs?",
        "Do LED bulbs really save much money?",
        "What should go in a basic first aid kit for the car?",
        "Give me three ideas for a rainy Sunday with two kids.",
        "tell me a joke about podcasters",
        "In git, what is a tag and when would I use one instead of a branch?",
        "Show me how to sort a list of dictionaries by one key in Python.",
        "What does a version number like 1.4.0 mean?",  # a version, not a file
        "What's usually the difference between standard and express shipping?",
        "Is cycling to work actually faster than the bus?",
        "Where did the idea of bank holidays come from?",
        "What did people use to wash clothes before detergent existed?",
        "How do you say thank you in Japanese?",  # a translator may still answer it
        "what's the capital of Australia",
        "what year did someone first climb everest",
        "In what year did the Berlin Wall fall?",
        "When did the first iPhone come out?",
        "I keep waking up at 3am every night, any idea why?",
        "Tabs or spaces for Python, which one?",
        "In one line: what does assertEqual check in a unit test?",
        # Doubt or emphasis in a question
        "how many hours of sleep does a teenager actually need",
        "how long does a cold really last?",
        # A yes-or-no question about a kind of thing
        "Are TOML keys case sensitive?",
        "Can greasy pizza boxes go in the recycling?",
        "do cats need baths?",
        "who was the first person on the moon?",
        "how many legs does a spider have",
        "What language do they speak in Brazil?",
        "what's the tallest building in the world?",
        "who is the greatest basketball player of all time?",
        "How far ahead of a trip should you normally get your vaccinations done?",
        "Is decaf coffee completely caffeine free?",
        "Tell me a bit about the history of Zermatt",
        # Tips and opinions: a good or the best way, time or thing
        "any tricks for getting gig tickets before they sell out?",
        "best time of day to water a lawn in summer?",
        "what's a good way to keep cut flowers fresh for longer?",
        "Is a Tesla Model 3 a good first electric car?",
        # Rewording a text the request gives
        "can you make this sound more polite: 'send me the report now'",
        'Make this sound friendlier: "Return my ladder by Friday."',
        "rephrase this so it's shorter: we regret to inform you that the event is off",
        # A question after a word that leads in
        "About how many calories does a 30 minute jog burn?",
        "What does str.split() do when you call it with no arguments?",  # a call, no file
        "How did the Louvre end up with the Mona Lisa in the first place?",
        "is off-piste skiing a lot harder than sticking to the marked runs?",
        "is cash better than a card?",
        "Who is Ed Sheeran married to?",
        "how many days are there in a leap year",
        "is TOML better than YAML for config files? just your general opinion",
        "Translate 'good night' into Spanish",  # a translator may still answer it
        "whats the plural of cactus",
        "Could you help me think of a name for my cat? She's grey and lazy.",
        "how long do cooked rice leftovers keep in the fridge",
        "Give me three tips for better sleep.",
        "Could you give me some polite wording to complain to a shop?",
        "My grandma turns 90 next month, any gift ideas?",
        "Which do you think is better for a beginner, Python or JavaScript?",
        "do you ever get bored talking to people all day?",
        "What's your name?",
        "What's the tallest mountain in Africa?",
        "What are some must-see sights in Paris for a first-time visitor?",
        "define onomatopoeia and give me an example",
        "Is it 'affect' or 'effect' in 'the rain will ___ our plans'?",
        "Is tipping expected in Japan?",
        "Roughly how long should I boil an egg for?",
        "How long does it take to form a new habit, according to research?",
        "How should I split my income? I've heard of the 50/30/20 rule.",  # a ratio, no path
        "Give me a good mnemonic for remembering the order of the planets.",
        "what's the actual difference between 4G and 5G, in plain English?",
        "Someone called my plan quixotic. Should I be offended?",
        "Is CPR the same thing as the recovery position?",
        "Give me five tricky pub quiz questions about geography, with the answers.",
        "Is it true you should never put the milk in before the tea?",
        "which has more caffeine, a cup of tea or a cup of coffee?",
        "How many tiles does each player start with in Scrabble?",
        "how long is a parkrun, is it 5k?",
        "Give me a checklist of what to take for a weekend's camping in the Lake District.",
        "What is coeliac disease?",  # what a kind of thing is
        "what are index funds?",
        "roughly how often should a car be serviced?",  # what is advised in general
        "roughly how many litres of water should an adult drink a day?",
        "when's the best time of year to sow grass seed in the UK?",  # advice, when
        "Is it a legal requirement in the UK for dogs to be microchipped?",  # the law
        "How are UK postcodes structured?",  # how a kind of thing is made up
        "what even is a sort code?",
        "how come other countries don't use sort codes?",  # how come: why
        "labrador or whippet for a first dog?",  # which of two to take
        "gift ideas for a 10 year old who's mad about dinosaurs?",
        "sore throat for two days - worth seeing a GP or should I just rest up?",
        "is it normal for hospital car parks to charge this much?",
        "my wifi keeps dropping out every evening, what could be causing that",
        "How long does a shop have to refund me under consumer law?",
        "honestly are solar panels worth it in the uk or is it all a bit of a con",
        "Is there a difference between a flood alert and a flood warning, generally?",
        "Is TOML a better choice than YAML for config files? Curious what you think.",
        "Warm white or cool white bulbs for a bedroom - which is nicer?",  # which to like
        "Should I even bother with a cover letter these days?",  # worth the trouble
        "What's the etiquette on plus-ones for a wedding?",  # what manners ask
        "How many people is a sensible number for a dinner party at home?",
    ],
)
def test_a_request_for_an_explanation_asks_to_explain(request_text: str) -> None:
    assert asks_to_explain(request_text)


@pytest.mark.parametrize(
    "request_text",
    [
        "how hot is it in Paris?",
        "how much is 50 euros in yen",
        "what's the weather in Oslo",
        "explain what src/test_tally.py is testing",  # a file to look at
        "why is parcel PK4471 late?",  # a code to look up
        "what does notes.txt say?",
        "should I bring an umbrella in London today?",  # a choice of one: ask the weather
        "is it going to rain in Quito this week?",
        "is it possible to book a table for two at 8?",
        "how long is the flight BA117 delayed?",
        "My rent is 950 a month. How much do I pay over a full year?",
        "is it raining or sunny in Oslo",
        "is BA117 on time or delayed?",
        "who is on call this week?",
        "what should I pack for Oslo this weekend?",
        "How much should a 30 kg dog eat a day?",  # a portion to look up
        "How much dry food should my 12 kg dog get a day?",  # the speaker's own
        "when was my last parcel delivered?",  # the speaker's own past
        "are trains out of Utrecht running on time this morning?",  # a place and a time
        "which is cheaper, the 10:05 or the 10:35 to Leeds?",  # no taste: a lookup
        "how many people is the Oakfield hall licensed for?",
        "are buses running today?",  # a time
        "can parcels still go out today?",
        "which one is the cheapest flight to Rome?",  # asks more than which of two
        "really need the weather in Oslo",  # no question
        "Are the lights in the kitchen on?",  # not a kind: these lights
        "how many steps did I walk today?",
        "what languages can the translate tool do? check notes.txt",
        "are coldplay tickets still available?",  # still: now
        "is the Riverside pharmacy usually open right now?",
        "what's the right tyre pressure for a tesla model 3?",
        "is it a good day for a barbecue in Leeds?",
        "What's the weather in Oslo and should I bring a coat?",
        "how did arsenal and benfica get on?",
        "who won the real madrid game? and is it raining in tokyo",
        "Is Paris warmer than London right now?",
        "is it colder in Oslo than in Bergen?",
        "how did the yankees do yesterday, and the celtics?",
        "What should the tyres be pumped up to on a Toyota Yaris?",
        "give me the word count of this paragraph: the meeting has moved",
        "is striding edge ok at the moment or is there snow",  # a choice about now
        "What are conditions like outside?",  # what it is like now, not what it is
        "20 minutes of running versus 60 minutes of yoga: how many calories does each burn?",
        "how long is the queue for The Smiler right now?",
        "what is my balance?",
        "whats up",
        "What is Bitcoin at?",
        "what are bitcoin and ethereum worth right now",  # a whole sentence, not a clause
        "Bournemouth or Swanage for a swim tomorrow?",  # which of two, tomorrow: look it up
        "how is my council tax calculated?",  # the speaker's own
        "what even is the weather in Leeds",
    ],
)
def test_a_request_for_a_value_or_about_something_specific_does_not(request_text: str) -> None:
    assert not asks_to_explain(request_text)


def test_a_file_named_before_the_verb_or_a_greeting_does_not_hide_it() -> None:
    assert asks_for_change("In notes.txt, change Tuesday to Wednesday")
    assert asks_for_change("in README.md replace 'a' with 'b'")
    assert asks_for_change("hey can you delete old.txt")
    assert not asks_for_change("In notes.txt, what is on line 2?")


def test_a_request_that_only_thanks_or_greets_is_social() -> None:
    jobs = frozenset({"list", "show"})
    assert only_social("cheers, all good now", jobs)
    assert only_social("Thanks a lot!", jobs)
    assert only_social("ah brilliant, that's exactly what I needed, ta", jobs)
    assert not only_social("oh and what's the time in Oslo?", jobs)
    assert not only_social("thanks! now list the files", jobs)
    assert not only_social("hi there, how is the weather in Oslo", jobs)
    assert not only_social("ok run the tests", jobs)
    assert not only_social("Hi! I need the contents of version.txt, thanks.", jobs)
    assert not only_social("hello, the status of PK4471 please", jobs)
    assert only_social("hey! hows it going", jobs)  # a greeting that is a question
    assert only_social("hi, how are you?", jobs)
    assert only_social("morning! just checking in before I start work", jobs)
    assert not only_social("morning, what's the weather in Oslo", jobs)
    assert only_social("hi! how's your day going?", jobs)
    assert only_social("yo! u around?", jobs)
    assert not only_social("yo what is the weather in Oslo", jobs)
    assert not only_social("hey how is the weather in oslo", jobs)
    assert only_social("hi! ready when you are", jobs)
    assert only_social("brilliant, all sorted now, ta", jobs)
    assert only_social("cheers, that's exactly what I needed", jobs)
    assert only_social("ok cool, thx a lot!!", jobs)
    assert not only_social("ok cool the bedroom down", jobs)
    assert only_social("hi there, can I ask you something?", jobs)
    assert not only_social("brilliant, now what's the weather in Oslo?", jobs)
    assert not only_social("hi! when are you open?", jobs)


def test_a_question_to_the_assistant_about_itself_is_social() -> None:
    jobs = frozenset({"list", "show"})
    assert only_social(
        "hiya, just trying this thing out. what sort of stuff can you help with?", jobs
    )
    assert only_social("what can you do?", jobs)
    assert only_social("who are you?", jobs)
    assert only_social("how are you?", jobs)
    assert not only_social("what can you do about the noise from next door?", jobs)
    assert not only_social("what time is it in Paris? how are you?", jobs)


def test_getting_someone_a_thing_is_an_action_but_getting_them_a_value_is_not() -> None:
    assert asks_for_change("Could you get me a doctor's appointment friday about my knee")
    assert asks_for_change("can u get us a table at Nopa tomorrow 8pm")
    assert not asks_for_change("get me the lentil soup recipe")
    assert not asks_for_change("get the weather in Oslo")
    assert asks_for_change("Can you get the car a full service on Monday?")
    assert not asks_for_change("get the car's tyre pressure")
    assert asks_for_change("can you get him an emergency dentist appointment tomorrow")
    # Getting someone to do something is an action; getting someone somewhere is not.
    assert asks_for_change("Can you get the council to come and take away our sofa?")
    assert asks_for_change("can you get royal mail to hold the post for those dates?")
    assert asks_for_change("could you get someone to take Biscuit out?")
    assert asks_for_change("list my old road bike for sale at £180")
    assert not asks_for_change("list the files in src")
    assert not asks_for_change("how do I get from leeds to york")
    assert not asks_for_change("get my son to the dentist by nine")
    assert asks_for_change("I'd like the window cleaner to come monthly to 3 Park Lane")
    assert not asks_for_change("I'd like the kids to know how long a flight to Rome is")
    assert asks_for_change("New file docs/faq.md please, with a heading '# FAQ'")
    assert asks_for_change("Kick off the test suite in verbose mode")
    assert not asks_for_change("new files in docs/?")


def test_marking_or_ticking_off_is_a_change() -> None:
    assert asks_for_change("in todo.md, tick off 'Read input'")
    assert asks_for_change("mark the second item as done")


def test_numbers_supposed_and_a_question_what_they_come_to_ask_a_sum() -> None:
    assert asks_a_sum("If a pool is 25 metres long, roughly how many lengths make a mile?")
    assert asks_a_sum("Quick one. if I hold 6 min per km how long will a marathon take me")
    assert not asks_a_sum("If it rains in Leeds tomorrow, how many layers should I wear?")
    assert not asks_a_sum("how many lengths of a 25 m pool make a mile?")  # supposes nothing
    assert asks_a_sum("If I run 5k in 28 minutes, what's my average pace per kilometre?")
    assert asks_a_sum("My meter went from 18250 to 18730 in a month. How many units did I use?")
    assert not asks_a_sum("How many steps did I walk today?")  # no numbers told
    # Shares of a told total, and a claim on told numbers.
    assert asks_a_sum("The bill was £96 and there are 4 of us. How much does each person owe?")
    assert asks_a_sum("I drove 140 miles and get 45p a mile, how much can I claim back?")
    assert not asks_a_sum("How much does each ticket cost at Alton Towers?")  # no numbers
    assert asks_a_sum("The hall's £35 an hour and we need it for 6 hours, what does that come to?")
    assert not asks_a_sum("What does the hire come to at Oakfield Hall?")  # nothing told
    assert asks_a_sum("and what's 12 guests at £18.50 a head for the caterer?")


def test_an_amount_for_one_period_asked_for_another_asks_a_sum() -> None:
    assert asks_a_sum("The council charges £96 a year for the permit. How much is that per month?")
    assert asks_a_sum("My rent is 950 a month. How much do I pay over a full year?")
    assert asks_a_sum("I pay 40 quid monthly, how much is that a year?")
    assert not asks_a_sum("£96 a year, how much is that a year?")  # the same period
    assert not asks_a_sum("how many calories does a 30 minute jog burn per hour")  # no period told
    assert not asks_a_sum("how much does a gym cost per month in Leeds?")  # no amount told


def test_arithmetic_written_out_asks_a_sum() -> None:
    assert asks_a_sum("what's 17 x 24")
    assert asks_a_sum("350 divided by 7?")
    assert not asks_a_sum("is 17 Park Road open")
    assert not asks_a_sum("Has my package 1Z84X220 shipped yet?")  # a code
    assert not asks_a_sum("resize it to 800x600")
    # With signs between the numbers, not a date or a range written without spaces.
    assert asks_a_sum("the toll is £9.70 each way, so what's 9.70 * 10?")
    assert asks_a_sum("How much is 250 - 75?")
    assert not asks_a_sum("we're open 9-5 on 2024/05/01")
    # What is counted may stand between, in a question of how many.
    assert asks_a_sum("and how many boards is 14 shelves x 3 boards each?")
    assert not asks_a_sum("book 2 rooms x 3 nights at the Premier Inn")


def test_a_phone_number_is_no_number_told_for_a_sum() -> None:
    assert not asks_a_sum("how much data have I got left this month on 07700 900123?")
    assert asks_a_sum("I topped up 10 and then 15, how much have I got?")


def test_arranging_or_organising_is_an_action() -> None:
    assert asks_for_change("Can you arrange for a courier to collect my return tomorrow?")
    assert asks_for_change("please organise a taxi for 6pm")
    assert not asks_for_change("what's a good way to organise files on my laptop?")


def test_what_the_speaker_plans_beside_a_question_asks_no_change() -> None:
    for request in [
        "What's the version number in config.toml? I need to write it into my release notes.",
        "what is in todo.md? and I'll paste it in my notes",
        "What's Priya's extension? I'm going to call her",
    ]:
        assert not asks_for_change(request)
    # Alone, or asked of the assistant, the same words ask for it.
    assert asks_for_change("I need to delete notes.txt")
    assert asks_for_change("what's in notes.txt? then delete it")
    assert asks_for_change("delete notes.txt please, I need to free space")
    # A request put politely is no plan of the speaker's.
    assert asks_for_change("Could you open todo.md? I'd like to tick off the first item")


def test_a_change_the_speaker_puts_off_or_notes_for_themselves_is_asked_for_later() -> None:
    for request in [
        "I want to fix the usage message at some point. Which file has the text 'usage' in it?",
        "I'd like to change how the tests are run eventually. What does README.md say?",
        "note to self: fix empty-line handling later. for now just show me src/tally.py",
        "we'll rename it one day, what's in notes.txt",
    ]:
        assert not asks_for_change(request), request
    # Asked of the assistant, for later or now, it is asked for.
    assert asks_for_change("can you fix the typo in notes.txt later?")
    assert asks_for_change("remind me later to call mum")
    assert asks_for_change("fix the typo in notes.txt, I'll check it later")


def test_a_verb_with_is_after_it_is_no_verb() -> None:
    assert leading_word("email's tomasz.w@fastmail.com") == ""  # "email is"
    assert leading_word("email tomasz about it") == "email"
    assert leading_word("what's the time") == "what"


def test_a_job_asked_for_by_its_noun_is_the_requests_verb() -> None:
    assert leading_word("run a search for count_ across the project") == "search"
    assert not asks_for_change("run a search for count_ across the project")
    assert leading_word("Fetch me a list of everything under src") == "list"
    assert leading_word("could you give me a count of the lines in notes.txt") == "count"
    # A command is still run, and a list to write is no listing.
    assert leading_word("run the tests") == "run"
    assert asks_for_change("run the tests")
    assert leading_word("make me a list of dog names") == "make"
    # The job noun heads its phrase: "run the tally script" runs a script.
    assert leading_word("run the tally script on README.md") == "run"


def test_order_before_its_reference_is_no_verb() -> None:
    assert leading_word("order 7719-22") == ""
    assert leading_word("order #A88231 never came") == ""
    assert not asks_for_change("can you track where my parcel is? order 7719-22")
    assert leading_word("order 2 pizzas") == "order"
    assert leading_word("order 2000 litres of kero") == "order"


def test_a_verb_of_doing_that_only_looks_asks_for_no_change() -> None:
    # Each called a changing tool: `shell`, `write_file`, `edit_file`.
    for request, verb in [
        ("Run through README.md and tell me what it covers", "read"),
        ("Go over src/tally.py and explain it", "read"),
        ("walk me through src/test_tally.py", "read"),
        ("make sense of config.toml for me", "read"),
        ("pull up notes.txt", "read"),
        ("Add up the numbers in data/cities.csv for me", "sum"),
        ("add them up", "sum"),
        ("Edit suggestions for README.md?", "suggest"),
    ]:
        assert leading_word(request) == verb, request
        assert not asks_for_change(request), request
    for request in ["Run the tests", "add a line to notes.txt", "create ideas.txt with 'x'"]:
        assert asks_for_change(request), request


def test_a_text_about_a_file_with_nowhere_to_go_is_kept_in_the_reply() -> None:
    for request in [
        "Can you write me a summary of notes.txt?",
        "write a short summary of what's in README.md",
        "give me an overview of docs/guide.md",
        "Copy the first line of README.md here",
    ]:
        assert keeps_it_in_the_reply(request), request
    for request in [
        "write a summary of notes.txt into summary.md",
        "write a summary of notes.txt and save it",
        "make a review of todo.md in a new file",
        "copy notes.txt to backup/",
    ]:
        assert not keeps_it_in_the_reply(request), request


def test_a_question_on_a_number_of_a_kind_or_a_code_with_a_hyphen_is_no_definition() -> None:
    # "what's a UK 8 in european shoe sizes?" asks to convert, not what a UK 8 is.
    assert not asks_to_explain("what's a UK 8 in european shoe sizes?")
    assert asks_to_explain("what's a shoe tree?")
    # A code joined by a hyphen is something specific a tool could look at.
    assert not asks_to_explain(
        "I claimed on the travel insurance (CLM-402290). Why hasn't it paid out?"
    )
    assert asks_to_explain("Why hasn't my insurance paid out?")


def test_a_question_on_what_holds_as_a_rule_asks_to_explain() -> None:
    request = "As a rule of thumb, how fast does the shutter need to be to avoid camera shake?"
    assert asks_to_explain(request)
    assert not asks_to_explain("As a rule I check the weather. What's it like in Leeds now?")
    # Emphasis in a request to look is no doubt about a claim.
    assert not asks_to_explain(
        "His number's 07700 900456, can you check how much he's actually used?"
    )


def test_doubt_about_a_thing_named_before_is_about_that_thing() -> None:
    assert not asks_to_explain(
        "Found a Kew Gardens 50p in my change!! is it actually worth anything?"
    )
    assert asks_to_explain("is it actually worth anything?")  # nothing named: in general
    assert asks_to_explain("Going to Madrid. Is it actually safe to drink the tap water?")
    assert asks_to_explain("Thinking of a Tesla. Is it really worth it?")


@pytest.mark.parametrize(
    "request_text",
    [
        "config.toml: version needs to be 2.0.0 now",
        "debug should be true in config.toml - flip it for me",
        "toggle debug in config.toml",
        "in notes.txt make it 11:30 instead of 10:00",
        "notes.txt says buy printer paper, make it 'Buy printer ink.' instead",
    ],
)
def test_what_a_file_should_become_asks_for_a_change(request_text: str) -> None:
    assert asks_for_change(request_text)
    assert job_asked(request_text) == job_of("edit")


@pytest.mark.parametrize(
    "request_text",
    [
        "the version should be 2.0 - can you check config.toml?",  # the scene for a look
        "I think debug should be false in config.toml, is it?",
        "what should the version in config.toml be?",
        "the weather should be nice tomorrow",  # no file
        "flip through README.md for me",
    ],
)
def test_what_something_should_be_beside_a_look_or_a_question_asks_no_change(
    request_text: str,
) -> None:
    assert not asks_for_change(request_text)


@pytest.mark.parametrize(
    "request_text",
    [
        "tank gauge is nearly on empty. 1000 litres of kerosene please",  # an order
        "3 tickets please",
        "Two car washes please: full valet on saturday, an outside wash on sunday",
        "Note down a brown trout from the Tweed in my fishing diary",
        "can you note both down?",
    ],
)
def test_an_amount_asked_for_or_a_note_down_asks_for_an_action(request_text: str) -> None:
    assert asks_for_change(request_text)


@pytest.mark.parametrize(
    "request_text", ["100 usd in euros please", "25 x 4 please", "time in tokyo please"]
)
def test_a_conversion_or_a_sum_asked_for_with_please_is_no_order(request_text: str) -> None:
    assert not asks_for_change(request_text)


@pytest.mark.parametrize(
    "request_text",
    [
        "What have places on that street actually gone for lately?",  # how things are now
        "The cottage was 1140 split four ways between me and three mates. What's each share?",
        "Landed a trout at Grafham. Also what's a catch and release ticket there these days?",
        # A question about a kind that ends on the place or time told before it
        "Heading to Woolacombe in August with the spaniels. Are dogs allowed on the sand then?",
    ],
)
def test_a_question_about_how_things_are_lately_or_each_share_is_no_explanation(
    request_text: str,
) -> None:
    assert not asks_to_explain(request_text)


@pytest.mark.parametrize(
    "request_text",
    [
        "update me on notes.txt - did I promise to ask anyone about anything?",
        "fix up my understanding here: which port is set in config.toml?",
        "refresh my memory: what's in todo.md?",
        "fill me in on README.md",
    ],
)
def test_a_change_to_what_the_speaker_knows_asks_for_no_change(request_text: str) -> None:
    assert not asks_for_change(request_text)
    assert asks_for_change("sort me out a new file called a.txt")  # a thing given


def test_a_frame_before_a_colon_or_a_dash_leaves_the_question_it_asks() -> None:
    assert framed_question("Delete my doubts - does notes.txt mention Bob?") == (
        "does notes.txt mention Bob?"
    )
    assert framed_question("Overwrite my assumptions: what's the version in config.toml?")
    assert not asks_for_change("Add some clarity: what does line 10 of src/tally.py do?")
    # A frame naming what it changes, a request said as a question, no question: no frame.
    assert framed_question("Bump the version in config.toml - what is it now?") is None
    assert framed_question("Quick one - can you change the port to 8080?") is None
    assert framed_question("config.toml: version needs to be 2.0.0 now") is None


def test_asking_how_the_day_is_going_so_far_is_small_talk() -> None:
    assert only_social("Good morning! How's your day going so far?", frozenset())


def test_a_comparison_of_how_things_are_now_is_no_explanation() -> None:
    assert not asks_to_explain("is the weather better in Paris than in Rome today?")


def test_a_code_of_a_systems_capitals_and_a_number_is_specific() -> None:
    assert not asks_to_explain("what colour actually is RAL 7016? the builder keeps on about it")
    assert asks_to_explain("what colour actually is anthracite grey?")
    assert asks_to_explain("is it 7016 or something else, actually?")


def test_the_number_of_a_lists_item_is_no_word_of_the_request() -> None:
    assert leading_word("1) pair my JBL Flip 6 speaker") == "pair"
    assert leading_word("(2) turn the volume up") == "turn"


@pytest.mark.parametrize(
    ("request_text", "changes"),
    [
        ("knock 4 off the flour count", True),
        ("Three tins dented - take 3 off the tomatoes would you", True),
        ("Inventory fixes: tape +6, glue sticks -2", True),
        ("what's 5 +3, and 4 -2?", False),
        ("take a look at the stock list", False),
    ],
)
def test_an_amount_taken_off_or_counts_corrected_ask_for_a_change(
    request_text: str, changes: bool
) -> None:
    assert asks_for_change(request_text) is changes


@pytest.mark.parametrize(
    "request_text",
    [
        "In your view is trail running easier on the knees than road running?",
        "Generally speaking, do EU citizens need a visa for a fortnight in Canada?",
        "does my teenager need a passport for a day trip to Jersey?",
        "Is the Bakewell tart named after the town?",
    ],
)
def test_a_comparison_a_rule_or_where_a_name_comes_from_is_explained(request_text: str) -> None:
    assert asks_to_explain(request_text)


def test_how_a_thing_is_now_compared_is_looked_up() -> None:
    assert not asks_to_explain("is the sea at Brighton colder today than at Hove?")


@pytest.mark.parametrize(
    ("request_text", "changes"),
    [
        ("Need a large skip dropped off at LS6 1AA on Monday", True),
        ("we need the gutters cleaned before winter, can you sort it", True),
        ("Could you get a plumber round on Thursday?", True),
        ("can you get someone out to look at the boiler tomorrow", True),
        ("Could you get a plumber booked for Thursday morning?", True),
        ("can you get the boiler fixed next week", True),
        ("can I get the bus to Leeds from here?", False),
        ("Forgot to log two fill-ups on the Fiesta: 40 litres on Monday", True),
        ("I meant to book a table for two at Dishoom", True),
        ("forgot to check: is it raining in Leeds?", False),
        ("I need a used car for under 3000, any ideas?", False),
        ("how do I get a stain out of a carpet?", False),
    ],
)
def test_something_needed_done_or_someone_got_round_asks_for_an_action(
    request_text: str, changes: bool
) -> None:
    assert asks_for_change(request_text) is changes


def test_the_assistants_own_view_is_asked_for_in_a_few_words() -> None:
    assert asks_an_opinion("Should I take supplements? Just want your general view.")
    assert asks_an_opinion("tabs or spaces, in your opinion?")
    assert asks_an_opinion("what's your honest take on standing desks")
    # "your" before a word that is no opinion asks nothing of the assistant.
    assert not asks_an_opinion("How long will your engineers take to get here?")
