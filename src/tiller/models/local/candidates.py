"""Which tools a request may call, before any is ranked: none for an explanation but a
tool that advises on what it is about, none for thanks or for writing no offered tool
does; changing ones only when it asks for a change; only tools whose required values it
holds, that speak of what it asks for, and, for a tool that takes no value or only
searches, one it names or asks to search with. `chooser.py` lists each rule."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from tiller.models.base import ToolSpec
from tiller.models.local.answer_type import answers_what_is_asked
from tiller.models.local.argument_schema import fillable
from tiller.models.local.explanations import (
    asks_a_meaning,
    asks_a_translation,
    asks_an_opinion,
    asks_for_a_made_up_text,
    asks_to_explain,
    asks_what_a_kind_is,
)
from tiller.models.local.intent import (
    ACTION_VERBS,
    addressed_parts,
    asks_a_sum,
    asks_for_change,
    asks_to_run,
    clauses_of,
    keeps_it_in_the_reply,
    leading_word,
    names_something_specific,
    only_social,
    says_what_a_file_should_become,
    without_lead_in,
)
from tiller.models.local.parameter_kinds import (
    NO_FILE_NAME,
    Kind,
    folder_words,
    parameters,
    says_a_folder,
    takes_a_file,
)
from tiller.models.local.places import asks_about_a_place_now
from tiller.models.local.request_words import request_words
from tiller.models.local.telling import only_tells
from tiller.models.local.tool_words import (
    advising,
    asks_its_action,
    begins_a_word,
    explains_what_is_asked,
    own_words,
    reports_the_fact,
    says_its_words,
    sets_a_setting,
    topic_words,
)
from tiller.models.local.verbs import JOB_WORDS, job_of, request_verb, tool_jobs

CHANGING_EFFECTS = frozenset({"write_local", "external"})
_FILE_NAME = re.compile(r"\w\.[A-Za-z][A-Za-z0-9]{0,7}$|^\.[A-Za-z][\w.-]*$")


def candidates(
    request_text: str, tools: Sequence[ToolSpec], *, named: Sequence[ToolSpec] = ()
) -> list[ToolSpec]:
    """The tools a request may call: none when it asks for an explanation, but a tool that
    advises on what it is about; changing ones only when it asks for a change or opens with
    the tool's own verb; and only tools whose required values it holds; a tool that takes
    no values only when the request, or an error result (`named`), names it."""
    if only_social(request_text, JOB_WORDS) or only_tells(request_text):
        return []  # thanks, a greeting, or a vent: nothing asked
    if asks_to_explain(request_text) and not _answered_by_a_tool(request_text, tools):
        # What words mean, or what the assistant thinks, is no advice a guide gives, but
        # a tool that explains a kind of thing tells what one of them means.
        if asks_a_meaning(request_text):
            advice = [t for t in tools if explains_what_is_asked(request_text, t)]
        else:
            # An opinion, or a joke about mice, is no advice a pest guide gives.
            made_up = asks_an_opinion(request_text) or asks_for_a_made_up_text(request_text)
            advice = [] if made_up else advising(request_text, tools)
        now = [t for t in tools if asks_about_a_place_now(t.parameters, request_text)]
        facts = [t for t in tools if reports_the_fact(request_text, t)]
        tools = [t for t in tools if t in advice or t in now or t in facts]
    if writing_without_a_writer(request_text, tools):
        return []
    if asks_a_sum(request_text):
        tools = [t for t in tools if works_out_a_sum(request_text, t)]
    change = asks_for_change(request_text)
    if only_acts(request_text):
        # "Can you order me a large pepperoni from Domino's?": a tool that only looks
        # (opening hours) does not order it.
        tools = [t for t in tools if t.effect != "read"]
    if keeps_it_in_the_reply(request_text):
        # "Write the release notes, just put them in the chat": the verb asks for a text,
        # and the request says where it goes. Writing it to a file, or sending it, is
        # a change nobody asked for.
        tools = [t for t in tools if t.effect not in CHANGING_EFFECTS]
    return [
        tool
        for tool in tools
        if (change or tool.effect not in CHANGING_EFFECTS or asks_its_action(request_text, tool))
        and fillable(tool.parameters, request_text)
        and answers_what_is_asked(request_text, tool)
        and (takes_a_value(tool) or tool in named or said_to(request_text, tool))
        and (tool in named or not only_searches(tool) or asks_to_look_for(request_text))
        and not _not_its_act(request_text, tool)
    ]


# Verbs of making something, and of undoing what is made: a tool named by the one does
# not do the other ("delete all the blurry photos" and `create_photo_album`).
_MAKING = frozenset(
    """create add make save book order subscribe schedule log record store register buy
    install""".split()  # noqa: SIM905
)
_UNDOING = frozenset(
    "delete remove cancel unsubscribe clear erase wipe uninstall undo".split()  # noqa: SIM905
)


def undoes_what_it_does(request_text: str, tool: ToolSpec) -> bool:
    """Whether the request's instructions undo what the tool, named by a verb of making,
    makes: "can you delete all the blurry photos" and `create_photo_album`; not when the
    tool's own words say the undoing too (a `mode` of "add" or "remove")."""
    named = re.findall(r"[a-z]+", tool.name.lower())
    if not named or named[0] not in _MAKING:
        return False
    leads = {leading_word(without_lead_in(p)).lower() for p in addressed_parts(request_text)}
    undoing = leads & _UNDOING
    said = {*own_words(tool), *re.findall(r"[a-z]+", json.dumps(tool.parameters).lower())}
    return bool(undoing) and not undoing & said


# The words a tool that sends messages is named by: `send_email`, `send_sms`.
_MESSAGES = frozenset({"email", "mail", "sms", "text", "message", "dm", "whatsapp"})
# How a request asks for a message: its kind, an address or a channel, or a verb of
# telling or posting.
_A_MESSAGE = re.compile(
    r"\b(?:e-?mail\w*|mail|texts?|texting|texted|sms|messages?|messaging|dm|whatsapp|"
    r"tell|telling|inform|let \w+(?: \w+)? know|say|saying|says|reply|write to|"
    r"drop (?:\w+ )?(?:a )?(?:line|note)|post|posting|channel)\b|\S@\S|#\w|"
    # Something sent to someone: "send Ana the agenda", "send him the link".
    r"\bsend (?:him|her|them)\b|\bsend (?-i:[A-Z][a-z]+)\b",
    re.I,
)


def sends_messages(tool: ToolSpec) -> bool:
    """Whether the tool sends people a message, by its name: `send_email`, `send_sms`."""
    named = set(re.findall(r"[a-z]+", tool.name.lower()))
    return tool.effect == "external" and bool(named & _MESSAGES)


def asks_for_a_message(request_text: str) -> bool:
    """Whether the request asks for a message sent: it names one ("email", "text"), an
    address, or a verb of telling ("tell Bob", "let the team know"). "Can you order me a
    large pepperoni from Domino's?" and "send him a request for the £18" ask for none."""
    return _A_MESSAGE.search(request_text) is not None


# Verbs of acting for the speaker in the world, which no tool that only looks does.
_ACTS = frozenset(
    """book order buy reserve pay send cancel schedule renew subscribe unsubscribe donate
    transfer rent hire deliver""".split()  # noqa: SIM905
)
# A question word opening a part, after politeness ("can you" is politeness).
_ASKS = re.compile(
    r"^(?:(?:but|and|so|also|then)\s+)?"
    r"(?:what|whats|how|hows|why|who|where|which|when|is|are|was|were|do|does|did|has|have)\b",
    re.I,
)


def only_acts(request_text: str) -> bool:
    """Whether the request only asks for an act done for the speaker ("book me a table at
    Mario's for 8pm", "order me a pizza"): a part opens with such a verb, and no part asks
    a question or opens with another verb."""
    parts = [without_lead_in(p) for p in addressed_parts(request_text)]
    leads = [leading_word(p) for p in parts]
    acts = [lead in _ACTS for lead in leads]
    others = [
        lead in ACTION_VERBS or lead in JOB_WORDS or bool(_ASKS.match(p))
        for p, lead, act in zip(parts, leads, acts, strict=True)
        if not act
    ]
    return any(acts) and not any(others)


# How a request asks where something is or what mentions it.
_LOOKING_FOR = re.compile(
    r"\b(?:search\w*|find|grep|look(?:ing)? (?:for|through)|where(?:'s|’s)?|"
    r"which (?:files?|places?|lines?)|mention\w*|talks? about|anywhere|"
    r"every (?:place|mention|file|line)|occurrences?|used|uses|defined|appears?)\b",
    re.I,
)


def only_searches(tool: ToolSpec) -> bool:
    """Whether a tool's name says nothing but the job of searching (`search`, `grep`)."""
    return not topic_words(tool.name) and job_of("search") in tool_jobs(tool.name, "")


def asks_to_look_for(request_text: str) -> bool:
    """Whether the request asks to find something, where it is, or what mentions it. A
    tool named only for searching takes any word as its pattern, and its relevance alone
    calls it for any question ("Are TOML keys case sensitive?")."""
    return _LOOKING_FOR.search(request_text) is not None


def changes(tool: ToolSpec | None) -> bool:
    return tool is not None and tool.effect in CHANGING_EFFECTS


def works_out_a_sum(request_text: str, tool: ToolSpec) -> bool:
    """Whether a tool can work out a sum the request supposes: it takes an arithmetic
    expression, or it takes a number and the request speaks of what the tool is about
    ("6 min per km for the marathon" and a race pace). A tool taking a name would take a
    number as one, and a number keyed to another subject is no sum's ("three bouquets
    at 35 pounds" and the gift for a year of marriage)."""
    kinds = {p.kind for p in parameters(tool.parameters)}
    if Kind.EXPRESSION in kinds:
        return True
    return Kind.NUMBER in kinds and says_its_words(request_text, tool)


def takes_a_value(tool: ToolSpec) -> bool:
    return any(p.required for p in parameters(tool.parameters))


def said_to(request_text: str, tool: ToolSpec) -> bool:
    """Whether the request names what a tool that takes no values does: its verb names the
    tool's job ("ls"), it says a word of the tool's name ("which files ..."), or it speaks
    of a folder and the tool takes one. A request has no value to check such a tool
    against, and its relevance alone calls it for any question ("is Python
    pass-by-reference?")."""
    job = job_asked(request_text)
    if job is not None and job in tool_jobs(tool.name, tool.description):
        return True
    if sets_a_setting(request_text, tool):
        return True  # "night light on pls" and a `night_light` parameter
    said = {w.lower() for w in re.findall(r"[A-Za-z]+", request_text)}
    if any(begins_a_word(w, said) for w in topic_words(tool.name).split()):
        return True
    folder = says_a_folder(request_words(request_text))
    return folder and any(
        p.kind is Kind.PATH and not takes_a_file(p) for p in parameters(tool.parameters)
    )


# A file asked for that does not exist yet: "a new file", "a CONTRIBUTING.md", "a .gitignore".
_NEW_FILE = re.compile(r"\bnew file\b|\ban? (?:new )?(?:[\w-]+/)*[\w-]*\.[A-Za-z]\w{0,7}\b", re.I)
# A search asked for without a job's verb: "is the word population anywhere in the files?",
# "Look for the word 'empty'", "Which files use count_words?"
_SEARCH_ASKED = re.compile(
    r"\b(?:anywhere|mention(?:s|ed)?|occurrences?|look(?:ing)? (?:for|through)|"
    r"which (?:files?|lines?) (?:use|uses|contain|contains|say|says|define|defines))\b",
    re.I,
)


def job_asked(request_text: str) -> int | None:
    """The job the request's verb names, where seeing a folder is listing it ("show me
    what's under data/"), as is asking what a named folder holds with no verb."""
    if _NEW_FILE.search(request_text):
        return job_of("create")  # "Save ... into a new file reminders.txt"
    if asks_to_run(request_text):
        return job_of("run")
    verb = request_verb(request_text)
    job = None if verb is None else job_of(verb)
    # "version needs to be 2.0.0 now", "in notes.txt make it 11:30 instead of 10:00"
    if (job is None or verb == "make") and says_what_a_file_should_become(request_text):
        return job_of("edit") if asks_for_change(request_text) else job
    if job is None and _SEARCH_ASKED.search(request_text):
        return job_of("search")
    folder = folder_words(request_words(request_text))
    if job in (None, job_of("read")) and folder and not names_a_file(request_text):
        return job_of("list")
    return job


# Questions a tool answers although they ask for an explanation: what a word means (a
# dictionary), how a phrase is said in another language (a translator).
_ANSWERING_JOBS = (
    (job_of("define"), lambda text: asks_a_meaning(text) or asks_what_a_kind_is(text)),
    (job_of("translate"), asks_a_translation),
)


def _answered_by_a_tool(request_text: str, tools: Sequence[ToolSpec]) -> bool:
    """Whether the request asks what something means or how it is said in another
    language, and an offered tool's job is defining or translating."""
    return any(
        asked(request_text) and any(job in tool_jobs(t.name, t.description) for t in tools)
        for job, asked in _ANSWERING_JOBS
    )


# Verbs that ask for a text to be written: "write me a haiku", "draft a complaint".
_WRITING_VERBS = frozenset({"write", "compose", "draft"})
# Verbs that ask for work on a text the model does itself: "summarise the plot of ...".
_TEXT_VERBS = frozenset(
    "summarise summarize proofread rephrase paraphrase reword rewrite shorten".split()  # noqa: SIM905
)


def writing_without_a_writer(request_text: str, tools: Sequence[ToolSpec]) -> bool:
    """Whether the request asks for a text to be written ("write me a haiku") or worked on
    ("proofread this: ..."), names no file or code to look at first, and no offered tool
    does that: the model writes it, and any tool would do something else."""
    if names_something_specific(request_text):
        return False  # "check version.txt and write them a reply" reads the file first
    leads = {leading_word(c) for c in clauses_of(request_text)}
    if leads & _TEXT_VERBS:
        return not leads & _TEXT_VERBS & {w for t in tools for w in own_words(t)}
    if not leads & _WRITING_VERBS:
        return False
    job = job_of("write")
    return not any(job in tool_jobs(t.name, t.description) for t in tools)


def verb_job_unfillable(
    request_text: str, tools: Sequence[ToolSpec], allowed: Sequence[ToolSpec]
) -> bool:
    """Whether the request's verb asks for an action ("write me a regex") that offered
    tools do, none of them a candidate: another tool would do something not asked for.
    A text the request keeps in the reply is the model's to write, from what a tool reads
    when it names a file or a folder ("write me a summary of notes.txt"; not "Write me a
    regex ... - just in your reply")."""
    verb = request_verb(request_text)
    if verb is None or verb not in ACTION_VERBS:
        return False
    read_first = names_something_specific(request_text) or says_a_folder(
        request_words(request_text)
    )
    if keeps_it_in_the_reply(request_text) and read_first:
        return False  # "write me a summary of notes.txt" reads the file for the reply
    job = job_of(verb)
    doing = [
        t
        for t in tools
        if job in tool_jobs(t.name, t.description) and not _not_its_act(request_text, t)
    ]
    return bool(doing) and not any(t in allowed for t in doing)


def _not_its_act(request_text: str, tool: ToolSpec) -> bool:
    """Whether the request's verb is the tool's only in words: "send £20 to the RNLI" sends
    no message, "delete the photos" makes no album."""
    return (sends_messages(tool) and not asks_for_a_message(request_text)) or (
        undoes_what_it_does(request_text, tool)
    )


def names_a_file(request_text: str) -> bool:
    """Whether a word is a file's name: not an address, nor a call ("str.split()")."""
    return any(
        _FILE_NAME.search(w)
        and not NO_FILE_NAME.match(w)
        and "@" not in w
        and f"{w}(" not in request_text
        for w in request_words(request_text)
    )
