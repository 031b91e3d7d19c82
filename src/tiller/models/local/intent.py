"""Whether a request asks for a change or an action, rather than to see or know something.

A tool that writes files or acts on the world must never be the answer to
"show me notes.txt": a small model scoring tools by their words cannot be
trusted with that, since "show me config.toml" is as close to "Create a file
... or replace its whole content" as to "Read a text file". So changing tools
are offered only when a clause of the request is an instruction to change or
do something: it begins (after politeness such as "please" or "can you") with
a verb of making, changing, removing, running or sending. "What happens when I
run the tests?" asks to explain, "Run the tests" to act.

A request for an explanation or advice is answered in text (`explanations.py`).

A request that only thanks, greets or says goodbye ("cheers, all good now") is
answered in text too: it holds nothing a tool could act on, but a tool that
takes no values (listing files) is always fillable, and a short request is
scored on too few words to tell.
"""

from __future__ import annotations

import re

from tiller.models.local.commands import written_command
from tiller.models.local.own_parts import speakers_plan
from tiller.models.local.request_numbers import request_numbers
from tiller.models.local.request_words import THE_README

# Verbs that ask for a change or an action when they lead a clause.
ACTION_VERBS = frozenset(
    """
    add append apply arrange block book build bump buy call cancel change clear commit compile
    cool copy create decrease delete deploy dim disable donate edit email enable execute fill fix
    format generate heat increase inform insert install kick launch lint lock log lower make
    mark message move mute notify order organise organize overwrite pause pay paste post put
    raise record remind remove rename renew replace reserve reset restart resume revert rewrite
    run save schedule send set silence snooze sort start stop subscribe switch test text tick
    touch transfer turn unblock uninstall unlock unmute unsubscribe update upgrade warm write
    pop stick bung chuck jot swap flip toggle
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
# Phrases that act: a verb addressing someone else ("tell the #design channel ...", "let
# Marco know ...", but not "tell me ...", which asks to be told); getting someone or
# something a thing ("get us a table", "get him an emergency appointment", "get the car a
# full service"), not the thing itself ("get me the recipe"), or getting someone to do
# something ("get the council to come and take away our sofa", not "get him to the
# dentist"); a new file asked for without a verb ("New file docs/faq.md please"); giving
# money ("Give £5 to Oxfam", not "give me the weather"); noting down.
_ACTION_PHRASES = re.compile(
    r"^(?:(?:tell|let|ask)\s+(?!me\b|us\b)\w|"
    r"get (?:me|us|him|her|them|(?:the|my|our) \w+) (?:an?\b|to (?!the\b|an?\b|my\b)\w+)|"
    # Getting someone named to do something: "get royal mail to hold the post".
    r"get (?:\w+ ){1,2}to (?:hold|keep|come|collect|pick|take|deliver|redeliver|call|ring|fix|"
    r"book|bring|stop|cancel|send|sort|move|clear|empty)\b|"
    # Wanting someone to do something: "I'd like the window cleaner to come monthly".
    r"i(?:['’]d| would) like (?:the|my|our|a|an|someone) (?:\w+ ){0,2}?\w+ to (?!know\b|see\b)\w+|"
    r"(?:an? )?new (?:file|folder|directory)\b|"
    # Giving money: "Give £5 to Oxfam", "give 20 quid to the RNLI".
    r"give\s+(?:[£$€]\s?\d|\d+(?:\.\d+)?\s?(?:pounds?|quid|dollars?|euros?|bucks)\b)|"
    # Noting down: "Note down a brown trout ...", "can you note both down?"
    r"note (?:\w+ )?down\b|"
    # Listing something for sale: "list my old road bike for sale at £180".
    r"list (?:[\w'’]+ ){1,5}(?:for sale|on (?:ebay|gumtree|vinted|(?:the )?marketplace))\b|"
    # Getting an amount of something, as one buys it: "get 20 bags of compost from
    # GreenGrow" (not "get 5 km in miles").
    r"get (?:me |us )?\d+ (?:[a-z]+ ){1,2}(?:of|from)\b|"
    # Something needed done, or got done, by someone: "Need a midi skip dropped off at BS3
    # 4QT", "we need the boiler serviced" (not "I need a used car"), "Could you get a
    # plumber booked for Thursday?" (not "get the bus").
    r"(?:(?:i |we )?need|get) (?:a|an|the|my|our|some) (?:[\w'’-]+ ){1,3}?(?:dropped|picked|"
    r"collected|delivered|fixed|serviced|repaired|cleaned|sent|taken|installed|replaced|"
    r"emptied|removed|mowed|tuned|sorted|done|booked|arranged|ordered|cancell?ed)\b|"
    # Getting someone to come: "get a tuner round on 3 May", "get a plumber out".
    r"get (?:a|an|someone|somebody) (?:[\w'’-]+ ){0,2}?(?:round|over|out)\b(?! of\b)|"
    # Taking an amount off a count: "take 2 off the honey count", "knock 5 off".
    r"(?:take|knock) (?:another )?\d+(?:\.\d+)? (?:\w+ )?off\b|"
    # Counts corrected by signed amounts: "batteries +15, bin bags -4".
    r"(?:[\w:]+ )*?[a-z]+ [+-]\d+(?:,| and)\s+(?:[a-z]+ )+[+-]\d+\b)",
    re.I,
)
# An amount of something asked for as a sentence of its own, as an order is: "1000 litres
# of kerosene please" (not "Quote me for an economy car, 4 days please"). Not a
# conversion or a sum: "100 usd in euros please", "25 x 4 please".
_AN_ORDER = re.compile(
    r"(?![^.?!]*\b(?:in|to|into|as|per|times|x|plus|minus|divided|multiplied)\b)"
    r"(?:\d[\d,.]*\s?[a-z]*|one|two|three|four|five|six|seven|eight|nine|ten|a couple of)"
    r"\s+(?:of\s+)?(?:[a-z]+\s+){0,2}[a-z]+,?\s+(?:please|pls|plz)\W*$",
    re.I,
)
# A command asked for after another verb: "count the words by running python3 tally.py".
BY_RUNNING = re.compile(r"\bby (?:running|executing)\b", re.I)
# Where, inside a clause, another instruction may begin: "it's dark in here, can you put
# the light on", "spent 25 on dinner - log it".
_INSTRUCTION_BREAK = re.compile(r",\s+|\s+[-–—]\s+")
# Words that may come before the verb without changing what is asked.
LEAD_IN = re.compile(
    r"^(?:(?:please|pls|kindly|now|then|also|and|ok(?:ay)?|so|just|quickly|go ahead and|hey|hi|"
    # The number of a list's item: "1) pair my speaker".
    r"\(?\d{1,2}\)|"
    r"(?:roughly|generally|broadly|strictly) speaking|in your (?:opinion|view|experience)|"
    r"roughly|approximately|about|honestly|seriously|genuinely|realistically|frankly|"
    # Where, before what is asked: "In notes.txt, change ...".
    r"in [\w./-]+\.[a-z]\w*|"
    r"(?:can|could|would|will) (?:you|u)(?: please)?|i (?:want|need|would like|'d like) you to|"
    r"i want to|i need to|i'd like to|let's|lets|help me|try to|ask you to|"
    # What the speaker forgot or meant to do, which they now ask: "Forgot to log two fill-ups"
    r"(?:i )?(?:forgot|meant) to)[\s,]+)+",
    re.I,
)
_CLAUSE_BREAK = re.compile(r"[.;!?:\n]+\s+|[.;!?]+$|,\s*(?:and|then)\s+|\s+(?:and|then)\s+", re.I)
FIRST_WORD = re.compile(r"[a-z]+", re.I)
# A question: it opens with a question word or an auxiliary, or ends with "?".
_QUESTION = re.compile(
    r"^(?:what|whats|how|hows|why|who|where|which|when|is|are|was|were|do|does|did|can|could|"
    r"will|would|should)\b|\?\s*$",
    re.I,
)
# A sum on numbers the request supposes: "If a pool is 25 metres long, roughly how many
# lengths make a mile?"
_SUPPOSED_SUM = re.compile(
    r"^if\b[^?]*\d[^?]*\b(?:how (?:many|much|long|far)|"
    r"what(?:'s|’s| is| will be) (?:my|our|the) (?:average|total))\b",
    re.I,
)
# A sum on numbers the request tells: "My meter went from 18250 to 18730 in a month. How
# many units did I use?", "... what did I spend in total?", "£35 an hour for 6 and a half
# hours, what does that come to?"
_TOLD_SUM = re.compile(
    r"\bhow (?:many|much) (?:\w+ ){0,2}(?:did|do|have|will|can|could) (?:i|we)\b|"
    r"\bhow (?:many|much) (?:\w+ ){0,2}(?:does|do|did|will|should) each\b|"
    r"\b(?:in total|altogether)\W*$|"
    # A count at a price: "what's 12 guests at £18.50 a head?"
    r"\bwhat(?:'s|’s| is| would be) \d+(?:\.\d+)? (?:[a-z]+ ){1,2}(?:at|@) [£$€]?\d|"
    # "... what does that come to?", "what would it all add up to?"
    r"\bwhat (?:does|do|would|will) (?:that|it|this|they|those)(?: all)? (?:come|add up|"
    r"amount|work out) to\b",
    re.I,
)
# An amount told for one period asked for another: "£96 a year. How much is that per
# month?", "My rent is 950 a month. How much do I pay over a full year?"
_PER_PERIOD = re.compile(
    r"\bhow (?:much|many)\b[^?]*?\b(?:per|a|an|each|every|over (?:a|the|one)(?: full| whole)?) "
    r"(?:day|week|fortnight|month|quarter|year)\b",
    re.I,
)
# Arithmetic written in words, with "x" or with signs: "what's 17 x 24", "350 divided by
# 7", "so what's 9.70 * 10?" (not a date, "2024/05/01", nor a range, "9-5", whose signs
# are written without spaces).
_WRITTEN_SUM = re.compile(
    r"(?<![\w.])\d+(?:\.\d+)?(?:\s*[×*+]\s*|\s+[-/÷]\s+|"
    r"\s+(?:x|times|multiplied by|divided by|plus|minus)\s+)"
    r"\d+(?:\.\d+)?(?!\w|\.\d)",
    re.I,
)
# Arithmetic with what is counted written between: "14 shelves x 3 boards".
_COUNTED_SUM = re.compile(r"(?<![\w.])\d+ [a-z]+ (?:x|times) \d+ [a-z]+", re.I)
_ASKS_HOW_MANY = re.compile(r"\bhow (?:many|much)\b|\bwhat(?:'s|’s| is| are)\b", re.I)
# A number that names rather than counts: a phone number or a code written with a leading
# zero ("07700 900123").
_AN_IDENTIFIER = re.compile(r"(?<![\w.])0\d{2,}(?:[ -]?\d{3,})*(?![\w.])")
# Only thanks, a greeting or a goodbye: a first word of these, and no question.
_SOCIAL = re.compile(
    r"^(?:thanks|thank|thx|ty|cheers|great|perfect|awesome|nice|cool|hello|hi|hey|yo|hiya|howdy|"
    r"brilliant|lovely|fab|excellent|amazing|wonderful|super|sorted|ta|"
    r"bye|goodbye|(?:good )?(?:morning|afternoon|evening)|good night|see you|ok|okay)\b[^?]*$",
    re.I,
)
# Words of thanks that are also verbs: "ok cool, thx a lot!!" cools nothing.
_SOCIAL_WORDS = re.compile(r"^(?:(?:ok|okay|cool|great|nice|perfect|awesome) ?)+[,.!]+\s*", re.I)
# A sound before the thanks: "ah brilliant, that's exactly what I needed, ta".
_INTERJECTION = re.compile(r"^(?:ah+|oh+|aw+|ooh+|wow|phew)\b[,!.]?\s*", re.I)
# Questions to the assistant about itself, at the end of a request: "how's it going?",
# "how are you doing today?", "what sort of stuff can you help with?", "who are you?"
SMALL_TALK = re.compile(
    r"\b(?:(?:can|could|may) i ask (?:you )?(?:something|a question)|"
    r"how(?:'s|’s|s| is) (?:it|your|ur) (?:day |week |weekend |morning |evening )?"
    r"(?:going|been)(?: so far)?|how are (?:you|u|ya)(?: doing)?(?: today)?|"
    r"(?:are )?(?:you|u) (?:around|there|free)|what(?:'s|’s|s) up|(?:who|what) are (?:you|u)|"
    r"what (?:(?:sort|kind|type)s? of (?:stuff|things?) )?(?:can|could|do) (?:you|u) "
    r"(?:do|help (?:me )?with|help me with)(?: here)?)\W*$",
    re.I,
)
# A request after the greeting: a question word, or "I need ...", "can you ...".
_ASKING = re.compile(
    # Not "ready when you are", which asks nothing.
    r"\b(?:what(?! (?:i|we) (?:needed|wanted|was after|asked for)\b)|whats|how|hows|where|"
    r"when(?! (?:you|u)(?:'re|’re| are)\b)|which|who|tell|give|"
    r"i (?:need|want|would like|'d like)|(?:can|could|would) (?:you|u))\b",
    re.I,
)
# Something specific a tool could look at: a file's name, a code such as PK4471 or RAL 7016.
# A number with a unit or a suffix ("80s", "30g", "8pm", "2nd") is not a code.
_SPECIFIC = re.compile(
    # A code of a system's capitals and a number: "RAL 7016", "ISO 9001".
    r"(?-i:\b[A-Z]{2,5} \d{3,}\b)|"
    r"\w\.[a-z][a-z0-9]{0,7}\b(?!\()|[A-Za-z_]/\w|\w/[A-Za-z_]|\b[A-Za-z]{1,5}-\d{3,}\b|\b(?!\d+(?:[.,]\d+)?[a-z]{1,3}\b)(?=\w*[a-z])(?=\w*\d)\w+\b",
    re.I,
)


def asks_for_change(request_text: str) -> bool:
    """Whether some clause of the request is an instruction to change or do something.
    What the speaker plans to do after a question is their own doing: "What's the version
    in config.toml? I need to write it into my release notes" asks to see the file."""
    parts = addressed_parts(request_text)
    if asks_to_run(request_text) or any(
        leading_word(part) in ACTION_VERBS or _ACTION_PHRASES.match(without_lead_in(part))
        for part in parts
    ):
        return True
    if any(_AN_ORDER.match(without_lead_in(c)) for c in clauses_of(request_text)):
        return True
    # "config.toml: version needs to be 2.0.0 now" asks for it, unless it only sets the
    # scene for a look: "the version should be 2.0 - can you check config.toml?"
    looks = any(asks_a_question(p) or leading_word(p) in _LOOKING_VERBS for p in parts)
    return not looks and says_what_a_file_should_become(request_text)


# What a file's text should be, said without a verb of changing: "version needs to be
# 2.0.0 now", "the usage text should mention --all", "make it 11:30 instead of 10:00",
# "make it 'Buy printer ink.' instead".
_SHOULD_BECOME = re.compile(
    r"\b(?:should|needs? to|has to|must|ought to)\s+(?:now\s+)?"
    r"(?:be|say|read|mention|become|contain)\b|\binstead of\b|"
    r"\b(?:make|change|set|turn) (?:it|that|this|them)\b(?:[^.?!'\"]|'[^']*'|\"[^\"]*\")*"
    r"\binstead\b",
    re.I,
)
_A_FILE_NAMED = re.compile(r"\w\.[a-z][a-z0-9]{0,7}\b(?![(\w])", re.I)
# Verbs that ask to see, which a wanted value beside them only explains.
_LOOKING_VERBS = frozenset("check show see look read tell open view find list".split())  # noqa: SIM905


def says_what_a_file_should_become(request_text: str) -> bool:
    """Whether the request names a file and says, outside a question, what its text
    should be ("debug should be true in config.toml", "in notes.txt make it 11:30
    instead of 10:00")."""
    named = _A_FILE_NAMED.search(request_text) or THE_README.search(request_text)
    return named is not None and any(
        _SHOULD_BECOME.search(clause) and not asks_a_question(clause)
        for clause in clauses_of(request_text)
    )


def addressed_parts(request_text: str) -> list[str]:
    """The `instruction_parts` that may ask something of the assistant: not what the
    speaker plans to do themselves, told beside a question ("I need to write it up"), nor
    a frame before the question a request asks (`framed_question`)."""
    request_text = framed_question(request_text) or request_text
    return [p for p in instruction_parts(request_text) if not speakers_plan(p, request_text)]


# A frame, a colon or a dash, and a question: "Set me straight: what's the version in
# config.toml?", "Delete my doubts - does notes.txt mention Bob?"
_FRAMED = re.compile(r"^(?P<frame>[^:?]+?)(?:\s*:\s+|\s+[-–—]\s+)(?P<question>[^:]+\?)\s*$")
# A question that asks for something to be done: "can you change the port to 8080?"
_POLITE = re.compile(r"^(?:can|could|would|will) (?:you|u)\b", re.I)


def framed_question(request_text: str) -> str | None:
    """The question a request asks after a frame that names nothing to change (no file, no
    quote, no number), before a colon or a dash: "Replace my guesswork with facts: how many
    lines does data/cities.csv have?" asks only the question. Not a request said as a
    question ("Quick one - can you change the port to 8080?"), nor a change whose frame
    names what it changes ("Bump the version in config.toml - what is it now?")."""
    found = _FRAMED.match(request_text.strip())
    if found is None:
        return None
    frame, question = found["frame"], without_lead_in(found["question"])
    if _A_FILE_NAMED.search(frame) or re.search(r"[\d'\"‘“`]", frame):
        return None
    if _POLITE.match(question) or not _QUESTION_WORD.match(question):
        return None
    return found["question"]


_QUESTION_WORD = re.compile(
    r"^(?:what|whats|how|hows|why|who|where|which|when|is|are|was|were|do|does|did|has|have)\b",
    re.I,
)


# Where the request says the text it asks for goes: the reply ("just put it in the chat",
# "paste it here", "type it out here"), not a file or someone else ("no need to save it",
# "don't send it yet").
_IN_THE_REPLY = re.compile(
    r"\b(?:in|into) (?:the|this|our) (?:chat|conversation)\b|"
    # "paste it here", not where in the workspace: "put it here in src/".
    r"\b(?:put|paste|show|give|leave|keep|write|type|print|post|drop)"
    r"(?: (?:it|them|that|this|those|me))?(?: out)? (?:right )?here\b"
    r"(?! (?:in|at|under|inside|into)\b)|"
    # Part of a file's text copied into the reply: "Copy the first line of README.md here".
    r"\bcopy (?:out )?(?:the |a )?(?:\w+ ){0,3}?(?:lines?|text|contents?|sections?|parts?|bits?|"
    r"paragraphs?|values?|settings?) (?:of|from|in) \S+ (?:right )?here\b|"
    # A change refused as a whole ("no need to save it", "don't send it yet"), not one
    # thing refused for another ("don't create a new file, add it to notes.txt").
    r"\b(?:don['’]?t|do not|no need to) (?:actually |even )?(?:save|send|store|write)"
    r"(?: (?:it|them|that|this|those|anything))?"
    r"(?: (?:yet|anywhere|to (?:a|any) files?|to disk))?(?=\s*(?:[,.;:!?)]|$|just\b|only\b))|"
    r"\bnot (?:in|to|into) (?:a|any) files?\b|"
    # The reply named: "in your reply", "just tell me here".
    r"\bin (?:your|the) (?:reply|answer|response)\b|\b(?:tell|show) (?:me|us) (?:right )?here\b|"
    # The file left as it is: "don't touch the file", "leave README.md alone".
    r"\b(?:don['’]?t|do not|without) (?:touch|chang|edit|modify|alter|overwrit)\w* "
    r"(?:the|that|this|any|my) (?:file|files|original)\b|\bleave (?:it|the file|\S+\.\w+) "
    r"(?:alone|as it is|untouched)\b",
    re.I,
)


def keeps_it_in_the_reply(request_text: str) -> bool:
    """Whether the request says the text it asks for belongs in the reply, not in a file
    or a message sent: "Write the announcement. Just put it in the chat", "Copy the first
    line of README.md here"; or asks for a text about a file and says nowhere to put it
    ("write me a summary of notes.txt": not over notes.txt)."""
    return (
        _IN_THE_REPLY.search(request_text) is not None
        or _ABOUT_A_FILE.search(request_text) is not None
    )


# A text about something, with no file or place to put it: "write a summary of notes.txt",
# "give me an overview of what's in README.md"; not "... of notes.txt into summary.md".
_ABOUT_A_FILE = re.compile(
    r"\b(?:write|give|make|draft|prepare|do|produce|put together|pull together|compile|"
    r"draw up|create|generate|build|knock up|whip up)(?: me| us)? (?:a |an )?(?:\w+ ){0,2}?"
    r"(?:summary|overview|recap|outline|rundown|breakdown|description|review|explanation|"
    r"synopsis|tl;?dr|list|table|picture|digest|round-?up) (?:of|about|on|for)\b"
    r"(?!(?:[^.?!]|\.(?=\w))*\b(?:(?:to|into|as|under|called|named) (?:a )?(?:new )?"
    r"(?:file\b|folder\b|[\w./-]+\.[a-z]\w*\b)|in (?:a )?(?:new )?(?:file|folder)\b|save))",
    re.I,
)


def asks_to_run(request_text: str) -> bool:
    """Whether the request writes out a command to run ("clean up with rm -rf build/"), or
    asks for one after another verb ("count the words by running ...")."""
    return BY_RUNNING.search(request_text) is not None or written_command(request_text) is not None


def instruction_parts(request_text: str) -> list[str]:
    """The clauses of the request, and the parts of each after a comma or a dash, where an
    instruction may begin after a remark: "it's pitch black, can you put the light on"."""
    return [
        part.strip()
        for clause in clauses_of(request_text)
        for part in [clause, *_INSTRUCTION_BREAK.split(clause)[1:]]
        if part.strip()
    ]


# A label and a colon after a sentence or a comma: "... deck. Front: ...", ", back: ...".
_LABEL = re.compile(r"(?:(?<=[.?!,])\s+|^)\w+(?: \w+)?:\s")


def without_given_values(request_text: str) -> str:
    """An instruction without the labelled values it gives after it ("Front: ...")."""
    label = _LABEL.search(request_text)
    if label and label.start() > 0 and asks_for_change(request_text[: label.start()]):
        return request_text[: label.start()]
    return request_text


def asks_a_question(clause: str) -> bool:
    """Whether a clause is a question: it opens with a question word or an auxiliary, or
    ends with "?"."""
    return _QUESTION.search(clause.strip()) is not None


def asks_a_sum(request_text: str) -> bool:
    """Whether the request supposes or tells numbers and asks what they come to ("if a
    room is £85 a night, how much for three nights?", "... from 18250 to 18730. How many
    units did I use?", "£96 and 4 of us. How much does each person owe?"; a phone number
    is no number told), or writes the arithmetic out ("what's 17 x 24", "9.70 * 10"):
    arithmetic, for a tool that takes numbers."""
    if any(_SUPPOSED_SUM.match(without_lead_in(c)) for c in clauses_of(request_text)):
        return True
    if _WRITTEN_SUM.search(request_text):
        return True
    if _COUNTED_SUM.search(request_text) and _ASKS_HOW_MANY.search(request_text):
        return True  # "how many boards is 14 shelves x 3 boards each?"
    told = request_numbers(_AN_IDENTIFIER.sub(" ", request_text))
    asked = _PER_PERIOD.search(request_text)
    if len(told) == 1 and asked is not None:
        # An amount told for a period, asked for another: "£96 a year ... per month?"
        told_for = {_period(m) for m in _A_PERIOD.finditer(request_text[: asked.start()])}
        return bool(told_for) and _period(_A_PERIOD.search(asked[0])) not in told_for
    return len(told) >= 2 and _TOLD_SUM.search(request_text) is not None


_A_PERIOD = re.compile(
    r"\b(?:per|a|an|each|every|over (?:a|the|one)(?: full| whole)?) "
    r"(day|week|fortnight|month|quarter|year)\b|\b(daily|weekly|monthly|quarterly|yearly|annually)\b",
    re.I,
)
_PERIOD_OF = {"daily": "day", "weekly": "week", "monthly": "month", "quarterly": "quarter"}


def _period(found: re.Match[str] | None) -> str:
    said = "" if found is None else (found[1] or found[2]).lower()
    return _PERIOD_OF.get(said, "year" if said in ("yearly", "annually") else said)


def names_something_specific(request_text: str) -> bool:
    """Whether the request names a file or a code a tool could look at."""
    return _SPECIFIC.search(request_text) is not None or THE_README.search(request_text) is not None


def only_social(request_text: str, job_words: frozenset[str]) -> bool:
    """Whether the request only thanks, greets or says goodbye: it opens with such a word,
    asks no question, and no clause opens with an action or one of `job_words`."""
    text = _INTERJECTION.sub("", SMALL_TALK.sub("", request_text.strip()))
    if not text.strip(" ,.!?") and request_text.strip():
        return True  # "what can you do?"
    if not _SOCIAL.match(text) or _ASKING.search(text):
        return False
    if _SPECIFIC.search(request_text):
        return False  # a file or a code to look at: "Hi! I'd like version.txt, thanks."
    clauses = (_SOCIAL_WORDS.sub("", clause) for clause in clauses_of(request_text))
    leads = {leading_word(clause) for clause in clauses}
    return not leads & (ACTION_VERBS | job_words)


def clauses_of(text: str) -> list[str]:
    return [part.strip() for part in _CLAUSE_BREAK.split(text) if part and part.strip()]


def leading_word(clause: str) -> str:
    """The clause's first word after politeness, lower case ("Could you run it" -> "run"),
    the job a verb only asks for by its noun ("run a search for count_" -> "search"), or
    the verb a phrase that only looks means ("run through README.md" -> "read")."""
    text = without_lead_in(clause)
    named = _A_JOB_ASKED_FOR.match(text)
    if named:
        return _JOB_NOUNS.get(named[1].lower(), named[1].lower())
    for phrase, verb in _LOOKING_PHRASES:
        if phrase.match(text):
            return verb
    found = FIRST_WORD.match(text)
    if found and found[0].lower() in ACTION_VERBS and re.match(r"['’]s\b", text[found.end() :]):
        return ""  # "email's tomasz.w@fastmail.com": "email is", no verb
    if found and found[0].lower() == "order" and _A_REFERENCE.match(text[found.end() :]):
        return ""  # "order 7719-22", "order #A88231": the order's number, no verb
    return found[0].lower() if found else ""


# A job asked for by its noun after a verb that only asks for it: "run a search for
# count_", "Fetch me a list of everything under src", "give me a count of ...".
_A_JOB_ASKED_FOR = re.compile(
    r"(?:run|do|perform|fetch|get|give|grab|carry out)(?: (?:me|us))? (?:a|an|the|another)"
    r"(?: quick| full| proper)? (search|list|listing|count|tally|lookup)\b"
    # The job is the phrase's head: "run the tally script" runs a script.
    r"(?=\s*(?:$|[.,;:!?]|(?:for|of|on|across|in|through|over|under)\b))",
    re.I,
)
_JOB_NOUNS = {"listing": "list", "lookup": "search"}
# A reference after "order", which makes it a noun: "order 7719-22", "order #A88231",
# "order no. 5512"; not a count ("order 2 pizzas", "order 2000 litres of kero").
_A_REFERENCE = re.compile(r"\s+(?:#|no\.|number\b|ref\b|reference\b|\d+[-/]\d|[A-Z]+\d)")


# Verbs of doing that, with the words after them, only look, count or advise: "run through
# README.md", "go over it", "make sense of config.toml", "pull up notes.txt", "update me on
# notes.txt", "delete my doubts", "set me straight", "write down what line 3 says", "add up
# the numbers in data.csv", "rewrite suggestions".
_LOOKING_PHRASES = (
    (
        re.compile(
            r"(?:run|go|read|look|walk|talk|skim|flick|flip)(?: (?:me|us))? (?:through|over)\b|"
            r"make sense of\b|(?:pull|bring) (?:up\b|\S+ up\b)|"
            # A change to what the speaker knows, not to a file: "update me on notes.txt",
            # "fix up my understanding here", "refresh my memory", "fill me in on ...".
            r"(?:update|refresh|fix|correct|sort|straighten|fill|catch|clear)(?: (?:up|out))? "
            # Not someone given a thing: "sort me out a new file".
            r"(?:me|us)(?!\s+(?:out\s+)?(?:a|an|some|the)\b)\b|"
            # Any change made to the speaker's mind: "delete my doubts", "overwrite my
            # assumptions", "install some knowledge in me".
            r"\w+(?: (?:up|out|down|away))? (?:my|our) (?:\w+ )?(?:memory|understanding|knowledge|"
            r"thinking|head|confusion|doubts?|assumptions?|guesswork|mind|brain|ignorance|"
            r"curiosity|worries|worry|questions?|uncertainty|picture)\b|"
            r"\w+ (?:some )?(?:knowledge|clarity|light|sense) (?:in|into|on|for) (?:me|us)\b|"
            # Setting the speaker right: "set me straight", "put me in the picture".
            r"\w+ (?:me|us) (?:straight|right|wiser|in the picture|up to speed|in the loop)\b|"
            # Writing down what a file says, for the reply: "write down what line 3 says",
            # "record for me what the first line of notes.txt is".
            r"(?:write|jot|note|put|set|record|log|type)(?: (?:down|out))?(?: for (?:me|us))? "
            r"(?:what|which|how|whether|where|who|when)\b",
            re.I,
        ),
        "read",
    ),
    (re.compile(r"(?:add|tot|total) (?:up\b|\S+ up\b)", re.I), "sum"),
    # A verb naming a kind of advice: "Edit suggestions for README.md?"
    (
        re.compile(
            r"(?:edit|rewrite|change|fix|update|refactor|naming|wording) (?:suggestions|ideas|tips|"
            r"advice|recommendations|proposals)\b(?!\.\w)",
            re.I,
        ),
        "suggest",
    ),
)


def without_lead_in(clause: str) -> str:
    return LEAD_IN.sub("", clause.strip().strip("\"'`“”‘’()[]*-").strip())
