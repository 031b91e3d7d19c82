"""The job a request names with its verb, matched to the tool that does that job.

Scoring a request against tool descriptions tells a tool apart from answering
in text well, but tells similar tools apart poorly: "show me notes.txt" is as
likely after "Search the workspace's text files" as after "Read a text file".
What the user wants done is usually said by one verb ("show", "find", "run",
"change"), and what a tool does by its name and the first word of its
description ("read_file", "Run a shell command"). Verbs for the same job are
grouped; a tool whose name or leading verb is in the group of the request's
first job verb is the one the request names.
"""

from __future__ import annotations

import re

from tiller.models.local.intent import (
    ACTION_VERBS,
    FIRST_WORD,
    LEAD_IN,
    addressed_parts,
    clauses_of,
    leading_word,
)
from tiller.models.local.own_parts import speakers_plan

# Each group is one job; the words are how requests and tools say it.
VERB_GROUPS: tuple[frozenset[str], ...] = tuple(
    frozenset(group.split())
    for group in (
        "read show display print cat open view see",
        "list ls enumerate",
        "search find grep locate where",
        "run execute launch",
        "create write make new",
        "edit change replace modify update set rename mark tick swap bump flip toggle",
        "send email mail message text",
        "convert exchange",
        "count tally",
        "calculate compute evaluate multiply divide sum subtract",
        "translate",
        "define meaning",
        "remind reminder",
        "delete remove",
        "play listen",
    )
)
JOB_WORDS = frozenset().union(*VERB_GROUPS)
_WORD = re.compile(r"[a-z]+")
_SENTENCE_START = re.compile(r"(^\s*|[.;!?]\s+)([^.;!?]+)")


def job_of(word: str) -> int | None:
    """The index of the group `word` belongs to, if any."""
    for index, group in enumerate(VERB_GROUPS):
        if word in group:
            return index
    return None


def request_job(request_text: str) -> int | None:
    """The job named by the first clause that opens with a job's word ("Can you show
    me ..." -> read); a word inside a clause ("a Python list comprehension") names none."""
    verb = request_verb(request_text)
    return None if verb is None else job_of(verb)


def request_verb(request_text: str) -> str | None:
    """The word that names the request's job, as `request_job` finds it ("email"), or that
    opens an instruction after a remark ("We're releasing 2.0.0, update the version")."""
    clauses = [c for c in clauses_of(request_text) if not speakers_plan(c, request_text)]
    leads = [leading_word(clause) for clause in clauses]
    # After a remark, only a verb of action: "time in oslo, paris, new york?" names no job.
    leads += [w for w in map(leading_word, addressed_parts(request_text)) if w in ACTION_VERBS]
    return next((word for word in leads if job_of(word) is not None), None)


def tool_jobs(name: str, description: str) -> set[int]:
    """The jobs a tool's name words and its description's first word name."""
    words = [*_WORD.findall(name.lower()), *_WORD.findall(description.lower())[:1]]
    return {job for job in (job_of(w) for w in words) if job is not None}


def without_instruction(text: str) -> str:
    """The request without the words that ask, so they are not taken as values:
    "run ls -la" -> "ls -la", "Can you search for port?" -> "for port?". Only an
    action verb or a verb that names a job is removed, with the politeness before it."""

    def strip(match: re.Match[str]) -> str:
        clause = match.group(2)
        rest = LEAD_IN.sub("", clause)
        found = FIRST_WORD.match(rest)
        if found and (found[0].lower() in ACTION_VERBS or job_of(found[0].lower()) is not None):
            rest = rest[found.end() :].lstrip()
            return match.group(1) + (rest if rest.strip() else clause)
        return match.group(0)

    return _SENTENCE_START.sub(strip, text)
