"""Which tools a small local model calls for a request: decide, rank, then fill.

A 135M-parameter model does not reliably write a tool call on its own, so the
choice is made in small steps, each a named rule with a test of its own; which tools
are candidates at all is `candidates.py`:

- **rank** (`tool_relevance.py`): every tool is scored by how much more likely the
  request is after the tool's description than after descriptions of answering
  without tools, per request token, most relevant first.
- **changes only when asked** (`intent.py`): a tool declared to write files or act
  externally is a candidate only when the request asks for a change or an action, never
  for "show", "find" or "explain". An instruction may follow a remark after a comma or a
  dash (`intent.instruction_parts`: "it's pitch black in here, can you put the light
  on"), and a command written out after the word that runs it asks to run it
  (`commands.written_command`: "clean up with rm -rf build/", "use wc -l
  data/cities.csv", or asked what it prints with a go-ahead: "What does python3
  src/tally.py print? Give it a go", or after a colon in a request to run something:
  "Tests: python3 -m unittest discover -s src - go ahead and run that"), but not one the
  request says not to run ("Don't run anything - just tell me ..."). "The readme" is the
  project's README.md (`request_words.THE_README`), not readmes in general. What a named
  file's text should become, said outside a question and beside no request to look, asks
  for an edit (`intent.says_what_a_file_should_become`: "config.toml: version needs to
  be 2.0.0 now", "in notes.txt make it 11:30 instead of 10:00", "make it 'Buy printer
  ink.' instead"; not "the version should be 2.0 - can you check config.toml?"). A
  command after "do" opens with a program's name ("do a quick ls -la data"). A request
  that says the text it asks for goes in the reply ("just put it in the chat", "don't
  send it yet": `intent.keeps_it_in_the_reply`) gets no changing tool, nor does what the
  speaker plans to do themselves beside a question (`intent.speakers_plan`: "What's the
  version in config.toml? I need to write it into my release notes"), puts off ("I want
  to fix the usage message at some point"), calls off or leaves to themselves
  (`own_parts.called_off`: "Delete todo.md? No, not yet.", "fix nothing yet", "remove
  the done items (I'll do it)"), notes for themselves ("note to self: fix empty-line
  handling later") or heads news with ("Update: the tests pass now."); such a part is no
  call of its own either, nor is a habit the speaker tells (`own_parts.speakers_habit`:
  "... in New Zealand? Got family in both and always get it wrong"). A verb of doing
  whose words after it only look or count ("run through README.md", "make sense of
  config.toml", "update me on notes.txt", "fix up my understanding here: ...", "add up
  the numbers", "edit suggestions": `intent.leading_word`) asks for no change, nor does
  one made to the speaker's mind ("delete my doubts", "install some knowledge in me"),
  one that sets the speaker right ("set me straight", "put me in the picture") or writes
  down what a file says ("write down what line 3 of notes.txt says"). A frame before a
  colon or a dash that names nothing to change leaves the question after it
  (`intent.framed_question`: "Replace my guesswork with facts: how many lines does
  data/cities.csv have?"; not "Bump the version in config.toml - what is it now?"). A
  text about a file with nowhere else to go ("write me a summary of notes.txt", "put
  together a quick summary of README.md", "copy the first line of README.md here"), or
  with the reply named or the file left alone ("... in your reply", "don't touch the
  file"), is kept in the reply, never written over the file. Acting on a device, money
  or a subscription asks for a change ("silence my phone till 3pm", "donate £5 to
  Oxfam", "unsubscribe me from ..."), as do noting down ("Note down a brown trout ...")
  and an amount of something asked for as a sentence of its own ("1000 litres of
  kerosene please"; not "100 usd in euros please"), as do getting someone named to hold,
  collect or take something ("can you get royal mail to hold the post") and listing
  something for sale ("list my old road bike for sale at £180"), as do taking an amount
  off a count ("take 2 off the honey count"), counts corrected by signed amounts
  ("batteries +15, bin bags -4") and getting an amount of something from someone ("get
  20 bags of compost from GreenGrow"), what the speaker forgot or meant to do ("Forgot
  to log two fill-ups ..."), something needed done, or got done, by someone ("Need a
  midi skip dropped off at BS3 4QT", "Could you get a plumber booked for Thursday?") and
  getting someone to come ("get a tuner round on 2025-05-03"). A word followed by 's is
  no verb ("email's tomasz@..."), nor is "order" before its reference ("order 7719-22").
- **the tool's own verb** (`tool_words.py`): an instruction
  that opens with a verb the tool's own words say (its name, the first word of its
  description or of a parameter's, a word after "to": "Log my mood" and
  `log_mood`, "Pay Sam" and "Who to pay"), or with the initials of words of its name in
  capitals ("DND until 07:00" and `set_do_not_disturb`: `tool_words.says_its_initials`),
  asks for that tool, changing or not, and goes to it before the ranking's choice; so
  does a tool's thing asked for by name with "please" or a colon ("alarms please: 7:00
  on weekdays", "Reviews to post: ..."), said to be needed ("refunds needed on two
  orders") or needed by the speaker ("and i need an alarm at 4:00"), a changing tool's
  thing given ("leave a 5 star review for Dishoom": `_gives_its_thing`) and a setting
  of the tool named with its value and no verb ("ringer volume to 80 please", "night
  light on pls", "ringtone down to 10": `tool_words.sets_a_setting`). A tool that
  sends messages is a candidate only when the request asks for a message: its kind, an
  address, a channel or a verb of telling, also to someone named ("send Priya the
  address": `candidates.sends_messages`); a tool named by a verb of making is none for a request
  to undo what it makes ("delete the blurry photos" and `create_photo_album`:
  `candidates.undoes_what_it_does`); either such exclusion leaves the other tools free.
  A request that only asks for an act done for the speaker ("can you
  order me a large pepperoni", "book me a table": `candidates.only_acts`) gets no tool
  that only looks.
- **nothing asked** (`telling.only_tells`): a request that only tells how things are or
  how the speaker feels ("had wayyy too much wine at my sister's wedding last night.
  head is pounding. never again", "ugh, the toaster I bought last week already stopped
  working. so annoying") has no candidate: no question, no word of wanting, no
  instruction, nothing specific.
- **explanations in text** (`explanations.asks_to_explain`): a request for an
  explanation or for advice ("why ...", "how do I ...", "what does X stand for", "is it
  better to ...", "how often should a car be serviced?", "As a rule of thumb, how fast
  ...?") calls no tool unless it names a file or a code a tool could look at (one joined
  by a hyphen too: "CLM-402290"), or asks what a word means or how a phrase is said in
  another language and a tool's job is defining or translating. "What's a UK 8 in EU
  sizes?" asks for a value, not what a kind of thing is, and doubt about a thing named
  before is about that thing ("Found a Kew Gardens 50p in my change!! is it actually
  worth anything?").
- **advice from a tool that advises** (`tool_words.advising`): a request for advice may
  still call a tool whose description advises ("Care instructions ...: how often to
  water it", "Recommended daily intake of a vitamin" for a question how much should be
  taken) or reports what is usual ("Average last spring frost ...") when a word of the
  request is one of the tool's own words or values ("how often should I water my
  monstera?", "when does the first frost usually arrive in Aberdeen?"), or a tool one of
  whose kind the request names ("how do I play an F chord?" and `guitar_chord`:
  `names_one_of_its_kind`), or a tool named for what a question how to asks to do ("how
  do you conjugate tener?" and `verb_conjugation`), but never for a joke, a story or a
  poem ("tell me a joke about mice"), or a tool whose description opens with a check,
  for a question whether it holds ("Are lilies poisonous to cats?" and "Check whether a
  plant is poisonous to cats or dogs"; for a question asking yes or no, in the words of
  its name too: "can eggshells go in the compost?" and `compost_check`). A tool that
  tells what a kind of thing means ("Explain a care-label symbol", "What a car dashboard
  warning light means", "What the fineness number stamped on jewellery means") answers
  what one of them means (`tool_words.explains_what_is_asked`). A question that reads as
  general knowledge is looked up when it asks about a place it names as that place is
  now ("Is it safe to swim at Whitstable today?": `places.asks_about_a_place_now`). The
  best time or place for something ("when's the best time of year to sow grass seed?"),
  what the law asks ("Is it a legal requirement in the UK for dogs to be
  microchipped?"), how a kind of thing is made up ("How are UK postcodes structured?"),
  what one even is, how come, which of two to take ("labrador or whippet for a first
  dog?") and ideas for something are explanations, as are whether something is worth
  doing or normal ("worth seeing a GP or should I just rest up?", "is it normal for
  hospital car parks to charge this much?") or worth having ("are solar panels worth
  it"), whether two things differ or one is the better ("Is there a difference between a
  flood alert and a flood warning?", "Is TOML a better choice than YAML?"), which of two
  is the nicer ("Warm white or cool white bulbs for a bedroom - which is nicer?"),
  whether something is worth the bother ("should I bother with vitamin supplements"),
  what manners ask ("What's the etiquette on plus-ones?"), what amount is sensible ("How
  many people is a sensible number for a dinner party?"), what could be causing
  something and how long a rule gives someone ("How long does a shop have to refund
  me"); a code of a system's capitals and a number ("what colour actually is RAL 7016?")
  is something specific to look up. A record over everything ("the busiest airport in
  the world") is no advice a tool about one thing gives. Doubt or a choice about how
  things are lately is no explanation ("What have places on that street actually gone
  for lately?"), nor is "what's each share?" a kind of thing, nor a question about a
  kind that ends on the place or time told before it ("Heading to Woolacombe in August
  ... Are dogs allowed on the sand then?"), nor what a thing is that the sentence asks
  about as it is now ("what's a catch and release day ticket there these days?"). Who
  made something or when it came out goes to a tool whose description says it reports
  that ("who wrote hallelujah?" and "the writer and the year it came out":
  `tool_words.reports_the_fact`). What a rule asks of someone, asked on its own ("do UK
  citizens need a visa for a week's holiday in Spain?": `_A_RULE_ASKED`), where a name
  comes from ("Is the Font grading system named after Fontainebleau?") and two kinds
  compared with words between ("is bouldering harder on the fingers than top roping?")
  are explanations too, also after a lead-in such as "in your opinion" or "roughly
  speaking".
- **a place named** (`places.holds_its_place`): a tool that requires a place (a town,
  a beach, a station) is a candidate only when the request names one: a capital inside
  a sentence, a word after "in", "at" or "on", the first word, a code such as SW11, a
  word after "to" of what is nearest ("the nearest defib to ludlow market square"), the
  subject of a question how high, far or deep something is ("how high is ben nevis?"), or
  a word between "the" and the tool's subject ("the winchester farmers' market"); or
  when it asks how things are now. "what should I keep in the house for when the power
  goes out?" gives no `area: "house"`. A parameter whose examples are none of them a
  name ("Body area, e.g. lower back, hamstrings, neck") takes no place.
- **a code written** (`parameter_kinds.holds_its_codes`): a tool that requires a code
  (every example its description gives is capitals and digits: "Full UK postcode, e.g.
  SW1A 1AA", "Six-digit sort code, e.g. 20-00-00"; not a time, nor a value that may be a
  name or a place) is a candidate only when the request writes a word with a digit:
  "what even is a sort code?" has none to look up. Given no example, a text parameter
  that says it holds a number ("The 15-digit microchip number") takes a code
  (`parameter_kinds.takes_a_written_number`): "does it hurt a kitten to get
  microchipped" looks nothing up. A parameter whose examples are names joined by dots
  ("Full domain name, e.g. example.co.uk") needs a word of that shape, and takes it:
  "name ideas for a little bakery" checks no domain, and "Quiet Corner Books. Is
  quietcornerbooks.shop available?" checks "quietcornerbooks.shop" (`code_shapes.DOTTED`).
- **thanks in text** (`intent.only_social`): a request that only thanks, greets
  or says goodbye, or asks the assistant about itself (`intent.SMALL_TALK`: "what sort
  of stuff can you help with?", also after a story: "... anyway, how's your day
  going so far?"), calls no tool.
- **writing in text** (`candidates.writing_without_a_writer`): "write me a haiku" or "draft a
  complaint" calls no tool when no offered tool writes, nor "summarise ...",
  "rewrite ..." or "proofread ..." when no offered tool says it does that.
- **a sum on supposed numbers** (`intent.asks_a_sum`, `candidates.works_out_a_sum`): "If
  a pool is 25 metres long, how many lengths make a mile?" goes only to a tool that
  takes an expression, or a number on what the request speaks of: one taking a name
  would take "25" as one, and "three bouquets at 35 pounds" is no year of marriage. So
  does a sum written out with signs ("so what's 9.70 * 10?"), and so does a count at a
  price ("what's 12 guests at £18.50 a head?"), and a clause that writes one asks its
  own call, not the clause before's again (`repeats_for_another_subject`). A phone
  number ("07700 900123") is no number told for a sum. An amount told for one period and
  asked for another is a sum ("£96 a year. How much is that per month?"), and an
  expression takes two numbers, or one with what to work out from it: "We pay £120 a
  year and still can't park" is none (`parameter_kinds.offered`). A condition is one
  part however many things it supposes ("If the hall's £35 an hour and we need it for 6
  hours, what does that come to?": `clauses.parts_of`), and "what does that come to?"
  asks what the numbers told come to.
- **the verb's own tool or none** (`candidates.verb_job_unfillable`): when the request's
  verb asks for an action an offered tool does ("write me a regex" and
  `write_file`) but that tool lacks its values, no other tool is called instead; a text
  kept in the reply is read for first only when a file or a folder is named ("Write me
  a regex ... - just in your reply" calls none).
- **what is asked for** (`answer_type.py`): a question for a kind of thing ("which
  river runs through Vienna?", "what clothes should I pack?", "how far ...") goes only
  to a tool whose own words speak of it: a school-terms tool takes "Vienna" but reports
  no rivers; after a name's, the thing asked for is what follows it ("what Spice
  Garden's hygiene rating is"). A question put to others ("a poll in the Family chat
  asking which Sunday works") asks nothing of the tool.
- **required values present** (`argument_schema.fillable`): a candidate's
  required parameters must find their values in the request (a number for a
  number, a file name for a path: not a version, an amount or an abbreviation,
  `parameter_kinds.NO_FILE_NAME`, nor a call written out, "str.splitlines()"), else
  calling it means inventing them.
- **a search is asked for** (`candidates.only_searches`, `asks_to_look_for`): a tool named only
  for searching (`search`) is a candidate when the request asks to find something,
  where it is or what mentions it: any word is a pattern to it.
- **a tool without values is named** (`candidates.said_to`): a tool that takes no required
  value is a candidate only when the request names its job ("ls"), a word of its
  name ("which files ...") or a folder it takes: nothing else ties it to the
  request, and its relevance alone calls it for any question.
- **decide**: a tool is called when the best-ranked candidate's relevance passes
  a threshold fitted on the development tasks (`benchmarks/fit_tool_threshold.py`);
  otherwise the model answers in text.
- **named by its verb** (`verbs.py`): the tool called is the best-ranked
  candidate whose name or leading verb does the job the request's verb names
  ("show" -> `read_file`, "find" -> `search`, "mark ... as done" -> `edit_file`;
  "a new file" or "a CONTRIBUTING.md" -> `write_file` whatever the verb, "by running ..."
  -> `shell`, "is X mentioned anywhere" -> `search`); else one by its own verb (above);
  else, for an instruction, the changing candidate a word of whose name it says as the
  thing the change goes to, in up to three words (`named_as_the_target`: "stick it in my
  log" and `log_fishing_catch`, "Put The Slab in my climbing log" and `log_climb`); else
  the best-ranked candidate whose name holds a word of the
  request ("weather" -> `get_weather`); else the best-ranked candidate.
- **several subjects** (`clauses.py`, `request_parts.py`, `subjects.py`): when the
  request has clauses that each decide a call on their own, or name another subject for
  the same call (a short part, "and in Seoul", a `parallel` clause, "Lakers score? Maple
  Leafs score?", or a part that `only_names` one, "and the wild robot"), each gets a
  call, in the order the request gives them; "there" in a later clause means the place
  the clause before it named; a name after "what" asks for no kind of thing ("compare
  what St Margaret's Church Hall ... charge?": `answer_type.asked_for`); "or" between
  two names asks about each ("at Gatwick Airport or Edinburgh Waverley?", and in lower
  case two places that end a sentence: "in whitby or hove?"). A question that names no
  place, for a tool that takes one, asks of the place told before it
  (`asks_of_the_place_before`: "Lights just went out here in Kendal. Is it a wider power
  cut?"). A part that `sets_the_scene` (what there is or what the speaker did or heard:
  "there's four of us", "Found holes in my jumpers", "heard it snows a lot"; "I have
  three bananas", "hi, I applied ... 4 weeks ago", "It ends in 4821.") or `remarks`
  ("pale brit here, don't want to fry") gets none (a question after the remark is no
  remark: "thinking of getting fish. what does a guppy need", nor is a thing named by
  what it is for: "dialling codes for ireland, australia"), nor another subject told
  after it ("We're in Cardiff on Friday and Brighton on Saturday"), and one that only
  says what the speaker is doing ("taking my daughter to kenya") joins the question
  after it, not another subject ("stargazing tonight in keswick, inverness and whitby").
  A labelled value after an instruction ("Make me a flashcard. Front: ...") is part of
  it, and so is a list of values each naming another of its parameters
  (`each_labels_a_value`: "request a refill of salbutamol 100mcg, 2 packs, to pick up at
  Lloyds Pharmacy"). A question naming no subject of its own asks of the subject before
  (`asks_of_the_subject_before`: "Is there any space and what's the rent?"); "their" or
  "both" after names asks of each, as do "those" and "these" said for the things ("one
  lamp takes E14 and another E27. What do those mean?") (`asked_of_each`; a month is no
  name, and amounts of one unit are asked of: "250 ml at breakfast and another 330 ml at
  lunch, can you log both?", and so are values of one closed set with no numbers told:
  "i've got blue and grey plugs in the box, what drill bit for each"); a list of values
  written alike, each holding a digit, asks the request once per value
  (`value_lists.each_value`: "tickets 4418, 4502 and 5110", "on 07700 900123 and 07700
  900789", "LS6 2AA and G12 8QQ", registrations "YR68 HGT and WD21 PMO", the lines of a
  bulleted list, quoted passages for a tool that requires one text: "Save two recipes:
  'Nan's Welsh Cakes' and 'Quick Tomato Soup'"), unless a range or a sum joins them
  ("between 9 and 5", "add 19 and 23") or the tool takes two numbers at once or an
  expression; a value given "each" goes with each thing of its sentence
  (`each_given_the_same`: "the 'Oyster' card and the 'kids Oyster' card with £10 each");
  "the one in Nottingham" is another of the kind before, but not in an instruction with
  a verb of its own ("remind me on Saturday to return the other ones"). A part that asks
  nothing of its own and names nothing of another tool keeps the tool of the clause it
  repeats (`repeats_for_another_subject`: "Set the kitchen to 20 and the living room to
  21"; an instruction with a verb of its own asks its own: "..., and ask Jake for £12"),
  and a first clause that is an instruction with its values calls the whole request's
  tool (`instructs`: "Turn off the bedroom and bathroom lights"), also when the clause
  alone chose a tool that only looks and the whole request's tool changes things and the
  clause asks for a change ("put The Bear and Slow Horses on my watchlist", not "Find my
  polling station for CF24 3LP and send an email ..."). A part naming another value of a
  closed set of the call before it is another subject for it (`takes_a_subject`: "start
  the tumble dryer and the robot vacuum"), as is one asking "how about ..." again, to
  the end of its clause (`asked_again_of`: "And what about cardboard, we get loads of
  deliveries."). A part that asks the question of the call before it, with no values of
  its own ("..., how much interest?"), that only refers back ("How much of each?"), says
  whom one is for ("one for me and one for my boyfriend") or only a word said on the way
  ("Oh" of "Oh and the Kettlewise KT-200 too", "separately"), or an instruction on what
  the part before said ("Only got 5 hours of sleep. Put it in my sleep diary") is no
  call of its own: it joins the part before. So does a part that only gives values of
  the call before it that the call's text gives none of, with their parameters' names
  and units (`details.only_details_of`: "log a migraine, severity 8, and ...", "Add the
  match v Riverside Vets, home, 12 Oct 2024, kick-off 14:30"), its text added to the
  call's; one that gives a value the call has asks again ("a glaze firing for six" after
  "a bisque firing for 15 pieces"). A part that says only another tool's name asks it
  about the same subject (`asks_its_tool_of_the_same`: "Paris: air quality and the
  weather please"). A subject after the same "for" is another ("shortcuts for the emoji
  picker and for paste without formatting"), as is the same thing another way after
  "compared with" ("300 km by coach, compared with the same trip by car", whose closed
  value is replaced in any case it is written). A tool that takes a list takes a list of
  values together ("a poll: the 12th, 19th and 26th"). A number's fraction is no second
  part ("about two and a half pounds"). A question after an instruction to a changing
  tool asks a tool that looks, of what the instruction named ("remind me at 8am to take
  my cetirizine. also what's the normal dose": `asks_after_an_instruction`), not of a
  closed value it set ("put my mood down as great, and when's the next spin class?").
  The items of a numbered list ("1) ... 2) ...", also on lines of their own) are parts,
  as are settings listed with their values ("brightness 70%, media volume 40%"). A list
  of values that each repeat one word ("RAL 9010 and RAL 6005", "140 cm and 147 cm":
  `value_lists.py`) asks once per value, as do whole dates for a tool that takes one
  date ("I was born 3 Dec 1970, he was born 19 July 1985"). A note in brackets after
  each listed value goes with it ("302-1184 (faulty) and 302-1190 (not delivered)"), and
  codes of capitals alone, listed, each get a reading from a tool whose example is such
  a code ("KEF and FAO"). The entries of a list after a heading that each write a
  number, a whole date or a code for the same parameters ask once each, with the heading
  (`value_lists._each_entry`: "Order from Booker: 5 cases of milk, 8 cases of bread and
  3 cases of eggs", "Log two readings please: 5.9 fasting, and 7.7 after lunch", the
  number that counts the entries left out of each; a number written with a parameter's
  unit is that parameter's alone: "40 litres on Monday and 35.5 litres yesterday"; split
  at semicolons when the entries hold commas; entries that are instructions or questions
  of their own, or run into the next sentence, are no entries: "Two things: donate £15
  to Shelter, and remind me at 8pm ...", "todo.md: what's on lines 2 and 3?"), and each
  such call reads only its own entry (`Choice.context`: "fasting" is not the second
  reading's). A part built as the end of the clause before replaces that end
  (`clauses._written_alike`: "Order 10 crates of Coke from Bestway and 4 boxes of crisps
  from Booker"), and a parameter's name beside its value is no new subject ("the french
  homework for next week"). What the speaker got sets the scene ("got a customer asking
  for both"), and thanks after a request ("... Thanks x") is no call of its own.
- **a folder is listed** (`parameter_kinds.folder_words`): "show me what's under
  data/" asks for the job of listing, not reading.
- **a named subject over a generic verb** (`subject_over_verb`): when the tool the
  verb names says a subject the request does not ("set ... timer" and
  `set_reminder`), a candidate whose name's subject the request says
  (`start_timer`) is called instead (a word of the name is said in its other spelling
  too: "practised" and `log_instrument_practice`; a file named says "file": "write a tiny shell
  script scripts/hello.sh" keeps `write_file`); but a verb that its subject is made from names the
  tool ("remind me at 6pm to top up the gas meter" and `set_reminder`). Money the
  request speaks of goes to a tool that takes an amount, ranked above the verb's tool
  that takes none ("send £20 to the RNLI" is no `send_email`).
- **a file to a file tool**: else a request that names a file ("what's in
  notes.txt") goes to a candidate that requires a path, not to listing or searching;
  when the request asks for a change, to one that changes files.
- **a code to a code tool** (`a_code_to_a_code_tool`): a request holding a code of
  letters and digits ("BA117", "RTN-88213") goes to a candidate whose parameter's example
  is a code of that shape ("Flight number, e.g. BA117"), not one that takes a city.
- **an amount off to a counting tool** (`an_amount_off_to_a_counting_tool`): an
  instruction that takes an amount off something ("take 2 off the honey count") puts first
  the candidates whose number may be negative for what is taken away.
- **a listed code to its tool** (`a_listed_code_to_its_tool`): a code the request writes
  in capitals that is one of a candidate's closed values ("How much is that in USD?" and
  "(USD, GBP or JPY)") puts that candidate first.
- **by topic** (`tool_relevance.about`): among candidates that take the same kinds
  of values as the best-ranked one (a city each) and rank within `TOPIC_MARGIN` of it,
  the one whose name words the model thinks the request is about ("how hot is it in
  Paris" -> weather; "what's the panto at York", ranked far ahead, stays pantomimes).
- **nothing to say**: when the text answer comes out empty, the best candidate
  is called whatever its relevance.
- **a failed call names another tool**: after an error result that names an
  offered tool ("use list_files"), that tool is called with the request's values.

Arguments are then filled one call at a time under a grammar (`arguments.py`): a command
written out is copied whole, the word a request names as a word ("search for the word
Tuesday") is the one text a tool takes, and a number said as where something starts
("from line 5 onwards") gives no end, while a span of lines gives both ends ("lines
6-7", "line 4": `parameter_kinds.spanned`). A count at a price each is a product ("12
guests at £18.50 a head" -> "12 * 18.50"). The
one text a tool writes or looks for is the passage the request quotes ("a file whose
only line is '# Changelog'"). A name is a parameter's when a word of the parameter's
name follows it ("my Karaoke playlist"), when it follows the word the description ends
with ("Town to search in" and "in Leeds": `claims.py`), when it follows "by" for a maker
("Blue Lines by Massive Attack" for `artist`), or did what the description asks who did
("Who won" and "won by Sam", "Mum won Rummikub"); an optional place is offered when the
request names where with a capital ("jobs in Manchester"). A number written in digit
groups is taken whole and ends at a stop ("07700 900456, both keep ringing" gives "07700
900456"), and an optional one is offered when the request writes one
(`written_numbers`). Money written ("£61.30") goes to a number that takes money, and a
number written with a parameter's unit ("42.6 litres") or just after a word of its name
("odometer says 58214") is that parameter's (`money.py`,
`parameter_kinds.numbers_with_its_unit`). An optional number measured in a unit its name
or description gives (`ticket_minutes`, `warn_at_percent`) takes only a number written
with that unit (`parameter_kinds.measured_in`). Codes listed as examples or describing a
word ("e.g. Classic FM or BBC Radio 4", "the matching EU and US sizes") are no closed
set; a closed value is said without its ending ("the electric" for `electricity`) and a
currency's code by its name ("dollars" for USD) and a month by its abbreviation ("jan,
july and nov": `value_choice.py`); a name goes on with its number and unit ("Kew Gardens
50p"), a word of the tool's name a number follows is a name's ("radio 4"), its plural is
no value ("ferries" for `ferry_sailings`), and a place ends at a comma unless another
name follows ("Durham, ideally": `free_text.py`). A date documented as YYYY-MM-DD is
written so, however the request writes it ("born 5 may 1964" -> "1964-05-05":
`dates.py`); a mapping gives each of two texts its side ("brb -> be right back", "when i
type addr it fills in ...": `claims.mapped`); each code a description lists as an
example gives a shape ("e.g. #1E90FF, RAL 7016 or Pantone 186 C": `code_shapes.py`); a
path that takes a file takes a file named over a folder ("add a .gitignore that ignores
__pycache__/"), and a title is a name, no code ("Petition title or reference number"). A
description's examples say no kind of value ("School subject, e.g. maths" takes no
expression); an amount taken off is a negative number for a parameter that says it may
be negative ("take 2 off" -> -2: `parameter_kinds.taken_off`); the one word of four
letters or more that sets a closed value of several words apart says it ("after lunch"
-> `after_meal`); a code shaped like another parameter's example and a whole date
another parameter takes are no part of a free text or a name ("Blue Monday V4 flash":
the route is "Blue Monday"); and what follows a parameter's name and a colon is its
value ("a chemistry task: revise for the quiz"). A parameter for a day and a time takes
a day said with a clock time ("set a reminder for friday 10am"; not a day in the plural,
"on weekdays"), or only the clock time when another parameter takes the day
(`time_words.said_when`), and one for a month a month the request names ("Holkham in
July"); and a parameter's name word that ends a name is a value ("Station Road"
continues "Is the A614 being gritted tonight?": `clauses.continued`).
Every rule depends only on the request and the tools, so a decision is the
same whatever was asked before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from tiller.models.base import ToolSpec
from tiller.models.local.candidates import (
    candidates,
    changes,
    verb_job_unfillable,
)
from tiller.models.local.clauses import (
    new_words,
    parts_of,
    refers_back,
    stands_alone,
)
from tiller.models.local.details import only_details_of
from tiller.models.local.intent import asks_for_change, only_social, without_lead_in
from tiller.models.local.own_parts import speakers_habit, speakers_plan
from tiller.models.local.parameter_kinds import (
    holds_its_codes,
)
from tiller.models.local.places import holds_its_place
from tiller.models.local.preferences import (
    a_code_to_a_code_tool,
    a_file_to_a_file_tool,
    a_listed_code_to_its_tool,
    an_amount_off_to_a_counting_tool,
    named_as_the_target,
    named_by_verb,
    required_kinds,
    subject_over_verb,
)
from tiller.models.local.request_parts import (
    asked_of_each,
    each_given_the_same,
    joined_to_what_they_are_about,
    without_the_scene,
)
from tiller.models.local.subjects import (
    Choice,
    another_call,
    another_of_the_same_kind,
    another_subject,
    asked_again_of,
    asks_its_tool_of_the_same,
    asks_of_the_place_before,
    asks_of_the_subject_before,
    asks_of_what_it_named,
    asks_the_heads_question,
    each_labels_a_value,
    instructs,
    only_a_value_of,
    only_refers_back,
    repeats_for_another_subject,
    takes_a_subject,
)
from tiller.models.local.tool_words import (
    by_its_own_verb,
    named_by_words,
    topic_words,
)
from tiller.models.local.value_choice import closed_choices
from tiller.models.local.value_lists import each_value, merged
from tiller.models.local.verbs import JOB_WORDS

# Relevance (nats per request token) above which a tool is called; fitted by
# `benchmarks/fit_tool_threshold.py` on the development task sets.
DEFAULT_TOOL_THRESHOLD = -1.60
# How far below the first-ranked tool another may rank and still be chosen for what the
# request is about (`by_topic`): "what's the panto at York" ranks pantomimes far ahead
# of cricket, whatever "York" is about.
TOPIC_MARGIN = 1.0
# A file's name: a dot and an extension after a word ("notes.txt", "src/app.py"), or a
# name after a dot (".gitignore").


class Scorer(Protocol):
    def scores(self, request: str, tools: Sequence[ToolSpec]) -> list[tuple[str, float]]: ...

    def about(self, request: str, subjects: Sequence[str]) -> list[float]: ...


class ToolChooser:
    def __init__(self, scorer: Scorer, threshold: float = DEFAULT_TOOL_THRESHOLD) -> None:
        self.scorer = scorer
        self.threshold = threshold
        # Rankings already made (a chooser serves one decision): an empty text answer
        # asks again for the request ranked before it.
        self._ranked: dict[tuple[str, tuple[str, ...]], list[tuple[ToolSpec, float]]] = {}

    def choose(self, request_text: str, tools: Sequence[ToolSpec]) -> list[Choice]:
        """The calls to make for `request_text`, or [] to answer in text. A tool that takes
        a place is for a request that names one somewhere (a later part may say "there"),
        one that takes a code for a request that writes a word with a digit."""
        tools = [
            t
            for t in tools
            if holds_its_place(t, request_text) and holds_its_codes(t.parameters, request_text)
        ]
        best = self.decide(request_text, tools)
        if best is None:
            return []
        each = each_value(request_text, best)
        # A call made for one value of a list reads only its own text (`Choice.context`).
        return merged(
            [
                [
                    replace(c, context=t if each else None)
                    for c in self.several_subjects(t, tools, best) or [Choice(best, t)]
                ]
                for t in each or [request_text]
            ]
        )

    def decide(
        self, request_text: str, tools: Sequence[ToolSpec], threshold: float | None = None
    ) -> ToolSpec | None:
        """The best-ranked candidate whose relevance passes `threshold`, if any."""
        limit = self.threshold if threshold is None else threshold
        tool, relevance = self.best_candidate(request_text, tools)
        return tool if relevance > limit else None

    def best_candidate(
        self, request_text: str, tools: Sequence[ToolSpec]
    ) -> tuple[ToolSpec | None, float]:
        """The tool to call if any is, and the top candidate's relevance, which decides
        whether one is (-inf when there is no candidate)."""
        allowed = candidates(request_text, tools)
        ranked = [(t, r) for t, r in self.rank(request_text, tools) if t in allowed]
        if not ranked or verb_job_unfillable(request_text, tools, allowed):
            return None, float("-inf")
        order = [t for t, _ in ranked]
        named = named_by_verb(request_text, order) or by_its_own_verb(request_text, order)
        if named is not None:
            named = subject_over_verb(request_text, named, order)
        if named is None:
            order = a_file_to_a_file_tool(request_text, order)
            order = a_code_to_a_code_tool(request_text, order)
            order = a_listed_code_to_its_tool(request_text, order)
            order = an_amount_off_to_a_counting_tool(request_text, order)
            relevance = {t.name: r for t, r in ranked}
            least = relevance[order[0].name] - TOPIC_MARGIN
            near = [t for t in order if relevance[t.name] >= least]
            named = (
                named_as_the_target(request_text, order)
                or named_by_words(request_text, order)
                or self.by_topic(request_text, near)
            )
        return named, ranked[0][1]

    def by_topic(self, request_text: str, ranked: Sequence[ToolSpec]) -> ToolSpec:
        """Of the best-ranked tool and the candidates that take the same kinds of values,
        the one whose name words the request is most about ("how hot is it" -> weather)."""
        alike = [t for t in ranked if required_kinds(t) == required_kinds(ranked[0])]
        subjects = [topic_words(t.name) for t in alike]
        if len(alike) < 2 or not all(subjects):
            return ranked[0]
        found = self.scorer.about(request_text, subjects)
        return alike[max(range(len(alike)), key=lambda i: found[i])]

    def rank(self, request_text: str, tools: Sequence[ToolSpec]) -> list[tuple[ToolSpec, float]]:
        if not tools or not request_text.strip():
            return []
        key = (request_text, tuple(tool.name for tool in tools))
        if key not in self._ranked:
            by_name = {tool.name: tool for tool in tools}
            found = self.scorer.scores(request_text, tools)
            self._ranked[key] = [(by_name[name], score) for name, score in found]
        return self._ranked[key]

    def several_subjects(
        self, request_text: str, tools: Sequence[ToolSpec], whole: ToolSpec | None = None
    ) -> list[Choice]:
        """A call per clause when the request asks for more than one, else []. `whole` is the
        tool the whole request decided: a first clause that is an instruction with its values
        ("Turn off the bedroom") calls it even when, shorter, it decides nothing alone."""
        asked = asked_of_each(request_text, [v for t in tools for v in closed_choices(t).values()])
        if asked:
            tool = self.decide(asked[0], tools) or whole
            return [Choice(tool, text) for text in asked] if tool is not None else []
        parts = without_the_scene(joined_to_what_they_are_about(parts_of(request_text)))
        parts = each_given_the_same(parts, request_text)
        parts = [
            part
            for part in parts
            if not speakers_plan(part, request_text) and not speakers_habit(part)
        ]
        # Thanks ask for no call, nor give its values: "... as the wallpaper? Thanks x".
        social = [part for part in parts if only_social(part, JOB_WORDS)]
        parts = [part for part in parts if part not in social]
        if social and len(parts) == 1 and whole is not None:
            return [Choice(whole, parts[0])]
        if len(parts) < 2 or (whole is not None and each_labels_a_value(parts, whole)):
            return []
        choices: list[Choice] = []
        for part in parts:
            if not choices:
                tool = self.decide(part, tools)
                # "put The Bear [and Slow Horses on my watchlist]": an instruction goes to
                # the whole request's tool when it changes things and the part's only looks,
                # unless the part asks only to look ("Find my polling station for CF24 3LP
                # and send an email ...").
                looks = tool is None or (
                    changes(whole) and not changes(tool) and asks_for_change(part)
                )
                if whole is not None and looks and instructs(part, whole):
                    tool = whole
                if tool is not None:
                    choices.append(Choice(tool, part))
                continue
            last = choices[-1]
            if only_details_of(last.tool, last.text, part):
                # "log a migraine, severity 8": the severity is the migraine's.
                choices[-1] = replace(last, text=f"{last.text.rstrip()}, {part.strip()}")
                continue
            head = last.continues if last.continues is not None else len(choices) - 1
            if only_refers_back(part) or only_a_value_of(choices[head], part):
                continue
            if asks_of_what_it_named(part) and (
                asks_of_the_subject_before(part)
                or self.decide(part, tools) in (None, choices[head].tool)
            ):
                continue  # "Is Oppenheimer suitable for a 13 year old? What's it rated?"
            part = asked_again_of(part)
            if another_of_the_same_kind(choices[head], part):
                choices.append(Choice(choices[head].tool, part, continues=head))
                continue
            other = named_by_words(part, [t for t in tools if t is not choices[head].tool])
            if other is not None and asks_its_tool_of_the_same(other, part, choices[head]):
                choices.append(Choice(other, part, refers=head))
                continue
            if asks_after_an_instruction(choices[head].tool, part):
                # "remind me at 8am to take my cetirizine. also what's the normal dose": a
                # question asks to look, so it is no other reminder.
                tool = self.decide(part, tools)
                if tool is not None and not changes(tool):
                    # It asks of what the instruction named, not of a state it set ("put my
                    # mood down as great, and when's the next spin class?").
                    refers = head if names_a_thing(choices[head].tool) else None
                    choices.append(Choice(tool, part, refers=refers))
                continue
            if stands_alone(part):
                tool = self.decide(part, tools)
                if tool is not None and asks_the_heads_question(choices[head].tool, tool, part):
                    continue
                if tool is not None and repeats_for_another_subject(choices[head], tool, part):
                    tool = choices[head].tool
                if tool is not None and another_call(choices, tool, part):
                    earlier = len(choices) - 1 if refers_back(part) else None
                    choices.append(Choice(tool, part, refers=earlier))
                    continue
                if tool not in (None, choices[head].tool) or not another_subject(
                    choices[head], part
                ):
                    continue
            if asks_of_the_place_before(choices[head].tool, part) or asks_of_the_subject_before(
                part
            ):
                continue
            if takes_a_subject(choices[head].tool, part) and new_words(choices[head].text, part):
                choices.append(Choice(choices[head].tool, part, continues=head))
        return choices if len(choices) >= 2 else []

    def when_text_is_empty(self, request_text: str, tools: Sequence[ToolSpec]) -> list[Choice]:
        """The call to make when the text answer came out empty: the best candidate."""
        tools = [
            t
            for t in tools
            if holds_its_place(t, request_text) and holds_its_codes(t.parameters, request_text)
        ]
        tool = self.decide(request_text, tools, threshold=-float("inf"))
        return [Choice(tool, request_text)] if tool is not None else []

    @staticmethod
    def after_error(
        error_text: str, failed_tool: str, request_text: str, tools: Sequence[ToolSpec]
    ) -> list[Choice]:
        """After a failed call, the offered tool its error names, called for the request."""
        named = [t for t in tools if re.search(rf"\b{re.escape(t.name)}\b", error_text)]
        for tool in candidates(request_text, tools, named=named):
            if tool.name != failed_tool and tool in named:
                return [Choice(tool, request_text)]
        return []


def asks_after_an_instruction(head: ToolSpec, part: str) -> bool:
    """Whether a part after an instruction to a changing tool is a question of its own: it
    opens with a question word and asks for no change ("also what's the normal dose")."""
    return (
        changes(head)
        and _OPENS_A_QUESTION.match(without_lead_in(part)) is not None
        and not asks_for_change(part)
    )


def names_a_thing(tool: ToolSpec) -> bool:
    """Whether a tool requires a free text (what to remind of), not only closed values."""
    properties = tool.parameters.get("properties", {})
    return any(
        properties.get(name, {}).get("type") == "string" and "enum" not in properties.get(name, {})
        for name in tool.parameters.get("required", [])
    )


# A question word opening a part, after "and", "also" or "so".
_OPENS_A_QUESTION = re.compile(
    r"^(?:(?:and|also|so|but|oh)\s+)*(?:what|whats|what's|what’s|how|hows|how's|why|who|"
    r"where|which|when|is|are|does|do|can|could)\b",
    re.I,
)
