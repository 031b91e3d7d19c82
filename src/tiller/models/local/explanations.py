"""Whether a request asks for an explanation or advice, answered in text.

A request that asks for an explanation ("why ...", "how do I ...", "explain
...", "what is a ...", "what's the difference ...", "when should ...", "what
does X do / mean / stand for") or for advice ("is it better ...", "should I
... or ...", "any tips ...", "is it safe to ...", "how long should I ...") is
answered in text, unless it names something specific a tool could look at: a
file ("explain what src/app.py does") or a code of letters and digits ("why is
PK4471 late?"). So do requests for tips or an opinion ("any tricks for ...", "best
time of day to ...", "is a Tesla a good first car?", "do you think ..."), about the
assistant itself ("what's your name?"), and for a text to be reworded ("make this sound
more polite: ...").
Scored against tool descriptions, "how does parcel tracking work?" fits a
parcel-tracking tool as well as a request to track one. So do questions of general
knowledge ("what's the capital of Australia", "what year did ..."), questions in doubt
("how much sleep does a teenager actually need?", "is decaf completely caffeine free?",
"how far ahead should you normally ...") and yes-or-no questions about a kind
of thing rather than one place or time ("are TOML keys case sensitive?").
"""

from __future__ import annotations

import re

from tiller.models.local.intent import (
    asks_a_question,
    instruction_parts,
    names_something_specific,
    without_given_values,
    without_lead_in,
)
from tiller.models.local.request_words import GLUE

# How a clause that asks for an explanation opens (after politeness).
_EXPLANATION = re.compile(
    r"^(?:why\b|how come\b|how (?:do|does|can|could|should|would|to)\b|explain\b|"
    # How something came about, not how a team or a game did (`_RESULT`)
    r"how did\b|"
    # What a kind of thing is, not what a number of something is ("what's a UK 8 in EU sizes")
    r"what(?: even| exactly| actually)?(?:'s|’s|s| is| are) (?:(?:a|an)\b(?![^?]*\d)|"
    r"(?:\w+ly )?the (?:(?:actual|real|main|big) )?"
    r"(?:difference|best way|point|capital of))\b|"
    # How the speaker should feel: "Should I be offended?"
    r"should (?:i|we) (?:be|feel)\b|"
    # Whether two things are one: "Is CPR the same thing as the recovery position?"
    r"(?:is|are) [^?]+? the same (?:thing )?as\b|"
    r"when should\b|"
    # What is advised, in general: "how often should a car be serviced?", "how many litres
    # of water should an adult drink a day?"
    r"how (?:often |(?:many|much) (?:\w+ ){1,3}?)should (?!(?:my|our)\b)|"
    # History: "what year did someone first climb Everest?", "when did the Wall fall?"
    r"(?:in )?what year (?:did|was|were)\b|when (?:did|was|were) (?!(?:i|we|my|our|you|your)\b)|"
    # Why something happens, after a remark: "I keep waking up at 3am, any idea why?"
    r"(?:any|got any) idea (?:why|how)\b|"
    # Which of two to take, or to like: "Tabs or spaces for Python, which one?", "Warm
    # white or cool white bulbs for a bedroom - which is nicer?"
    r"which (?:one\W*$|(?:one )?(?:is|are|would be|looks?|sounds?|feels?) "
    r"(?:better|best|nicer|nicest|prettier|cosier|lovelier)\W*$)|"
    # Whether something is worth the trouble: "should I bother with vitamin supplements?"
    r"(?:should|shall) (?:i|we) (?:even |really )?bother\b|"
    # What manners ask: "What's the etiquette on plus-ones for a wedding?"
    r"what(?:'s|’s|s| is| are) the (?:\w+ )?(?:etiquette|manners|protocol)\b|"
    # What amount is sensible: "How many people is a sensible number for a dinner party?"
    r"how (?:many|much) (?:\w+ ){0,3}(?:is|are) an? (?:good|sensible|reasonable|normal|"
    r"decent|polite)\b|"
    # What brings something about: "what causes smog?", "what makes prices go up?", "what
    # could be causing that"
    r"what (?:\w+ly )?(?:makes|causes|made|caused)\b|"
    r"what (?:could|might|would|can) (?:be )?(?:causing|cause)\b|"
    # Whether something is worth doing: "worth seeing a GP or should I just rest up?", or
    # worth having: "are solar panels worth it in the uk?"
    r"(?:is it |it's |it’s )?worth \w+ing\b|(?:is|are) [^?]{1,40}? worth it\b|"
    # Whether two things differ, or which is the better: "Is there a difference between a
    # flood alert and a flood warning?", "Is TOML a better choice than YAML?"
    r"is there (?:a|any) (?:real |big )?difference\b|"
    r"(?:is|are) [^?]{1,40}? (?:a |an )?better (?:\w+ )?than\b|"
    # Whether something is as usual: "is it normal for hospital car parks to charge this much?"
    r"is (?:it|this|that) (?:normal|usual|common|typical)\b|"
    # What a rule gives someone: "How long does a shop have to refund me under UK law?"
    r"how long (?:does|do) an? \w+(?: \w+)? (?:have|get) to\b|"
    # Where a name comes from: "Is the Font grading system named after Fontainebleau?"
    r"(?:is|are|was|were) [^?]{1,60}? named (?:after|for)\b|where does the name\b|"
    # Asking for a recommendation: "can you recommend a good film?"
    r"recommend\b|suggest\b|"
    # What something does or means: "what does git stash do?", "what does AQI stand for?"
    r"what (?:does|do) .+ (?:do|does|mean|means|stand for|check|checks|return|returns)\b|"
    # Advice between choices, or tips: "is it better to ...", "should I X or Y?"
    r"is it (?:better|worth|wise|bad|okay|ok)\b|(?:should|shall) (?:i|we)\b.* or\b|"
    # Whether or how much to do something: "is it safe to ...", "how long should I ..."
    r"is it (?:\w+ly )?(?!going\b|possible\b)[a-z]+ to\b|how (?:long|much|many|often|far|soon) "
    r"(?:\w+ ){0,3}(?:should|must) (?:i|we|you)\b|"
    r"(?:any|some|got any) (?:\w+ )?(?:tips|tricks|hacks|pointers|advice|ideas)\b|"
    r"(?:\w+ )?(?:tips|ideas) (?:for|on)\b|"
    # What the law asks: "is it a legal requirement in the UK for dogs to be microchipped?"
    r"is it (?:a )?(?:legal |legally )?(?:requirement|required|law|illegal|compulsory|mandatory|"
    r"against the law)\b|"
    # How a kind of thing is made up: "How are UK postcodes structured?"
    r"how (?:are|is) (?!(?:my|our|your|the|this|that|it)\b)(?:\w+ ){1,3}(?:structured|organi[sz]ed|"
    r"formatted|numbered|calculated|worked out|decided)\b|"
    # A good or the best way, time or thing, which is an opinion: "what's a good way to keep
    # flowers fresh?", "best time of day to water a lawn?", "is a Tesla a good first car?"
    r"(?:(?:what|when|where)(?:'s|’s|s| is) )?(?:an?|the) (?:good|best) \w+ "
    r"(?:\w+ ){0,2}(?:to|for)\b|"
    r"(?:the )?best (?:time|way|place|age|season|month) (?:\w+ ){0,2}to\b|"
    r"(?:is|are) (?!it\b|there\b)[^?,]+ an? (?:good|bad|decent|sensible)\b|"
    # Rewording a text the request gives: "make this sound more polite: ..."
    r"make (?:this|it|that) (?:(?:sound|read|look)\b|(?:a bit |a little )?(?:more|less)\b)|"
    r"(?:reword|rephrase|paraphrase) (?:this|that)\b|"
    # What someone did, which general knowledge answers: "who painted ...", "who wrote ..."
    r"who (?:\w+ed|wrote|built|sang|won|made|said|came up with|was|were)\b|"
    # Facts about a kind of thing or a people: "how many legs does a spider have?", "what
    # language do they speak in Brazil?"
    r"how many \w+(?: \w+)? (?:does|do) an?\b|what languages? (?:do|does|is|are)\b|"
    # A rule of a game: "How many tiles does each player start with in Scrabble?"
    r"how many \w+ (?:does|do) (?:each|every) player\b|"
    # Which of two has more of something: "which has more caffeine, tea or coffee?"
    r"which (?:has|have|is|are) (?:more|less|fewer|the most|the least)\b|"
    # The size of a kind of thing: "how long is a parkrun?", not "how long is the queue"
    r"how (?:long|big|tall|heavy|old|wide|deep) (?:is|are) an?\b|"
    # Doubt about a claim: "is chocolate really that bad for dogs?"
    r"(?:is|are|do|does|did|can|will) (?:\w+ ){1,3}(?:really|actually|truly)\b|"
    # Where a custom or an idea came from: "where did bank holidays come from?"
    r"where did .+ come from\b|what did people\b|"
    # What belongs in something: "what should go in a first aid kit?"
    r"what should (?:an?|go|be)\b|"
    # Ideas, jokes and stories the model makes up: "give me three ideas for ..."
    r"(?:give|tell) (?:me|us) (?:\w+ ){0,4}(?:jokes?|story|stories|riddles?|ideas|questions|"
    r"examples|suggestions|fun facts?|tips|pointers|advice|wording|mnemonics?|slogans?|checklists?|"
    r"poems?|limericks?|puns?|captions?|toasts?)\b|"
    # The assistant's own opinion or self: "do you think cats or dogs ...", "what's your name?"
    r"(?:\w+ )?(?:do|would|did) (?:you|u) (?:think|ever|like|prefer)\b|what(?:'s|’s|s| is) your\b|"
    # Facts of geography and records: "what's the tallest mountain in Africa?"
    r"what(?:'s|’s|s| is| are) the (?:tallest|highest|longest|largest|biggest|deepest|oldest|"
    r"smallest|widest)\b|"
    # Sights and things to do somewhere, which are recommendations
    r"what(?:'s|’s|s| is| are) (?:some )?(?:the )?(?:must[- ]see|best things to do)\b|"
    # A word to define: "define onomatopoeia"
    r"define\b|"
    # Which of two words or spellings: "is it 'affect' or 'effect' ..."
    r"is it ['\"‘“][^?]+ or\b|"
    # What is done or expected somewhere: "is tipping expected in Japan?"
    r"(?:is|are) \w+ing (?:\w+ )?(?:expected|normal|rude|polite|customary|legal|allowed|common)\b|"
    # Words and language: "whats the plural of cactus", "translate 'good night' into Spanish"
    r"what(?:'s|’s|s| is) the (?:plural|singular|opposite|past tense|spelling) of\b|translate\b|"
    # Making something up together: "help me think of a name for my cat"
    r"(?:think of|come up with|brainstorm)\b|"
    # An opinion asked for: "... just your general opinion"
    r"your (?:\w+ )?(?:opinion|view|take)\b|"
    # How long something keeps or lasts: "how long do cooked rice leftovers keep?"
    r"how long (?:do|does|can|will|would) [^?]+ (?:keep|last)\b|"
    # Counts that are facts: "how many days are there in a leap year"
    r"how many \w+ are there in an?\b|"
    # Whom someone married: "who is Ed Sheeran married to?"
    r"who (?:is|was|are|were) [^?]+ (?:married|engaged|related)\b|"
    # About a subject: "tell me about the Roman Empire", "... a bit about the history of ..."
    r"(?:tell|teach) (?:me|us) (?:a bit |a little |more |something )?about\b|"
    # How to do something in general: "show me how to sort a list in Python"
    r"(?:show|tell|teach) (?:me|us) how to\b)",
    re.I,
)
# A question about what a word means, which a dictionary tool answers.
_MEANING = re.compile(r"\b(?:mean|means|meaning|stand for|stands for|definition|define)\b", re.I)
# A question about how a phrase is said in another language, which a translator answers.
_TRANSLATION = re.compile(r"\bhow (?:do|would|can|should) (?:you|i|we|u) say\b|\btranslat", re.I)


# Doubt or emphasis, which asks what is true rather than what a tool reports: "how many
# hours of sleep does a teenager actually need?", "do LED bulbs really save money?"; and
# what is true of all places and times: "the tallest building in the world".
_DOUBT = re.compile(
    r"\b(?:actually|really|truly|in the world|of all time|in history|the history of|usually|"
    r"is it true|"
    r"according to (?:research|studies|science|experts)|"
    r"generally|normally|typically|completely|totally|entirely)\b",
    re.I,
)
# A question about what was named before, not one about what holds for anything ("is it
# actually safe to ..."): "is it actually worth anything?", "are they really recalled?"
_REFERS_BACK = re.compile(
    r"^(?:is|are|was|were|does|do|did)\s+(?:it|that|this|they|these|those)\s+"
    r"(?:really|actually|truly)\b(?!.*\b(?:to\s+\w|worth it\b))",
    re.I,
)
# What holds in general, anywhere in a question's sentence: "As a rule of thumb, how fast
# does the shutter need to be ...?"
_IN_GENERAL = re.compile(r"\b(?:as a (?:general )?rule|rule of thumb|in general)\b", re.I)
# A yes-or-no question about a kind of thing, said as a plural with no article: "are TOML
# keys case sensitive?", "can greasy pizza boxes go in the recycling?"
_ABOUT_A_KIND = re.compile(
    r"^(?:are|can|do|should|will|could|would) (?!(?:the|my|your|our|their|his|her|there|it|"
    r"any|this|that|these|those|i|we|you|u|they|he|she|some)\b)(?:\w+ ){0,2}\w{3,}s\b",
    re.I,
)
# What a kind of thing is: "What is coeliac disease?", "what are tariffs?"; not what holds
# now or for someone ("what's the weather", "what is my balance", "what's up").
# Asked, with its question mark: a part cut at "and" ("what are bitcoin") is no question.
_WHAT_A_KIND_IS = re.compile(r"^what(?:'s|’s|s| is| are) ((?:[a-z]+ ){0,2}[a-z]{3,})\s*\?+$", re.I)
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+")
# "What is X like?" asks how X is now, not what X is.
_NO_KIND = GLUE | frozenset(
    "up new wrong next left happening happened going like each every".split()  # noqa: SIM905
)
# What a rule asks of someone, asked on its own: "do UK citizens need a visa for a week's
# holiday in Spain?" (not "Do I need a visa for Brazil, and what's the weather ...?").
_A_RULE_ASKED = re.compile(
    r"^(?:do|does) (?:\w+ ){1,3}need (?:an? |to (?:get|have|show) (?:an? )?)?"
    r"(?:visa|passport|licen[cs]e|permit|vaccinations?|jabs?)\b[^?,;]*\?",
    re.I,
)
# Two kinds of thing compared: "is off-piste skiing a lot harder than sticking to the
# marked runs?", "is TOML better than YAML for config files?", "is bouldering harder on
# the fingers than top roping?"
_COMPARED = re.compile(
    r"^(?:is|are) (?!it\b|there\b)[^?]+ (?:\w+er|more \w+|less \w+)(?: [^?]{1,30}?)? than\b",
    re.I,
)
# A choice between two things: "is a tomato a fruit or a vegetable?", "labrador or
# whippet for a first dog?", unless it is about now ("is striding edge ok at the moment
# or is there snow?").
_CHOICE = re.compile(
    r"^(?:is|are) (?!it\b|there\b)[^?]+\bor\b|"
    # Which of two to take: "labrador or whippet for a first dog?"
    r"^(?:an? )?\w+(?: \w+)? or (?:an? )?\w+(?: \w+)? for (?:an?|my|our|first)\b",
    re.I,
)


# What ties a question to one time or place, which a tool may report on: a name ("are
# trains out of Utrecht running?") or a time ("this morning").
_NAMED = re.compile(r"(?<!^)\b[A-Z][a-z]")
_NOW = re.compile(
    r"\b(?:today|tonight|tomorrow|now|currently|still|yet|at the moment|lately|recently|"
    r"these days|"
    r"this (?:morning|afternoon|evening|week|weekend))\b",
    re.I,
)


# How a team or a game did: "how did arsenal and benfica get on?", "who won the real madrid
# game?"
_RESULT = re.compile(
    r"^(?:how did\b[^?]*\b(?:do|get on|go|fare|play|finish|perform)\b|"
    r"who won (?:the|last night's|yesterday's|today's) [^?\d]*\b(?:game|match|race)\b)",
    re.I,
)


def asks_to_explain(request_text: str) -> bool:
    """Whether a clause asks for an explanation or advice and the request names nothing
    specific. The labelled values an instruction gives ("Make me a flashcard. Front: what
    do mitochondria do?") are its text, not questions."""
    if names_something_specific(request_text) or _RESULT.match(without_lead_in(request_text)):
        return False
    request_text = without_given_values(request_text)
    # A whole sentence, not a clause cut at "and": "what are bitcoin and ethereum worth".
    sentences = [without_lead_in(s) for s in _SENTENCE_END.split(request_text.strip())]
    if any(asks_what_a_kind_is(s) and not _NAMED.search(s) for s in sentences):
        return True
    if any(asks_a_question(s) and _IN_GENERAL.search(s) and not _NOW.search(s) for s in sentences):
        return True  # "As a rule of thumb, how fast does the shutter need to be?"
    if any(_A_RULE_ASKED.match(s) for s in sentences):
        return True  # "do UK citizens need a visa for a week in Spain?"
    # Doubt about a thing named before is about that thing: "Found a Kew Gardens 50p in my
    # change!! is it actually worth anything?"
    named_before = _NAMED.search(request_text) is not None
    return any(
        (
            not (named_before and _REFERS_BACK.match(part))
            and (_explains(part, sentences) or _in_doubt(part))
        )
        or (_about_a_kind(part) and not (named_before and _THERE_OR_THEN.search(part)))
        or (_CHOICE.match(part) and not _NOW.search(part))
        for part in map(without_lead_in, instruction_parts(request_text))
    )


# A question that ends on the place or the time told before it is about them, not about
# a kind of thing: "Heading to Woolacombe in August with our two spaniels. Are dogs allowed
# on the sand then?"
_THERE_OR_THEN = re.compile(r"\b(?:there|then)\W*$", re.I)


def _explains(part: str, sentences: list[str]) -> bool:
    """Whether a part asks for an explanation: not what a thing is that its sentence asks
    about as it is now ("what's a catch and release day ticket there these days?")."""
    if not _EXPLANATION.match(part):
        return False
    if _WHAT_A.match(part):
        return not any(part in s and _NOW.search(s) for s in sentences)
    return True


_WHAT_A = re.compile(r"what(?:'s|’s|s| is| are) an?\b", re.I)


def _in_doubt(clause: str) -> bool:
    return bool(asks_a_question(clause) and _DOUBT.search(clause) and not _NOW.search(clause))


def _about_a_kind(clause: str) -> bool:
    return bool(
        (_ABOUT_A_KIND.match(clause) or _COMPARED.match(clause))
        and not _NAMED.search(clause)
        and not _NOW.search(clause)
    )


def asks_what_a_kind_is(clause: str) -> bool:
    """Whether the clause asks what a kind of thing is: "What is coeliac disease?"."""
    asked = _WHAT_A_KIND_IS.match(clause)
    return asked is not None and not set(asked[1].lower().split()) & _NO_KIND


# A text the model makes up: "tell me a joke about mice", "write a poem about ants".
_MADE_UP = re.compile(
    r"\b(?:jokes?|story|stories|riddles?|poems?|limericks?|puns?|haikus?|songs?|raps?)\b",
    re.I,
)


def asks_for_a_made_up_text(request_text: str) -> bool:
    """Whether the request asks for a joke, a story or a poem, which no tool's advice is."""
    return _MADE_UP.search(request_text) is not None


# The assistant's own view: "What do you think?", "your honest view".
_OPINION = re.compile(
    r"\b(?:(?:what )?do (?:you|u) think|in your opinion|"
    r"your (?:(?:honest|general|own|personal|overall|gut|frank) )?(?:view|opinion|take))\b",
    re.I,
)


def asks_an_opinion(request_text: str) -> bool:
    """Whether the request asks what the assistant itself thinks."""
    return _OPINION.search(request_text) is not None


def asks_a_meaning(request_text: str) -> bool:
    """Whether the request asks what something means or stands for."""
    return _MEANING.search(request_text) is not None


def asks_a_translation(request_text: str) -> bool:
    """Whether the request asks how something is said in another language."""
    return _TRANSLATION.search(request_text) is not None
