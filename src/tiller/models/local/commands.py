"""A command written out in the request, to be run as it is written.

"Make a backup by running cp config.toml config.toml.bak" and "clean up with rm -rf
build/" hold a whole command after the word that runs it. A shell tool's `command`
copied word by word from such a request takes a word of the lead-in ("backup"), and a
request that opens with another verb ("clean up") does not read as one to run. What
follows the word that runs it is a command when it opens with a program's name (one
that is also an English word, "make", only with a flag or a file after it), or, after
"run", with a script or a name given a flag; it ends where the clause does. A question
about a command ("what does rm -rf do?") asks to be told, not to run it, and one the
request says not to run ("don't run pytest, just ...") is none to run.
"""

from __future__ import annotations

import re

# Words after which a command is written: "by running ...", "with ...", "using ...", "do
# a quick ...". After "with", "using", "via" or "do" only a program's name opens one
# ("replace foo with bar in a.txt").
_RUNS_IT = re.compile(
    r"\b(?:(?P<runs>run|running|execute|executing|command)|with|using|use|via|"
    r"do(?: (?:a|an|me a))?(?: quick| fast)?)\s*:?\s+[`'\"]?",
    re.I,
)
# Programs a request names as the first word of a command; those that are also English
# words ("make ahead meals", "go with the flow") open one after "with" only when a flag
# or a file follows.
PROGRAMS = frozenset(
    """
    awk bash cargo chmod cp curl docker git grep javac ls mkdir mv mypy npm npx pip pip3
    pnpm poetry pytest python python3 rm rmdir ruff sed sh tox unzip uv wc yarn flake8
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
_WORD_PROGRAMS = frozenset(
    "black cat cd date diff du echo find go head make node sort tail tar touch tree zip".split()  # noqa: SIM905
)
# Where a command ends: the clause does ("run pytest and tell me what fails", "ls -la in
# the project root", "tail -n 1 data.csv real quick").
_ENDS = frozenset(
    "and then so to for please because if but or afterwards after real quickly now again".split()  # noqa: SIM905
)
_WHERE = frozenset("in on inside within at from under".split())  # noqa: SIM905
_ITS = frozenset("the this that my our your a".split())  # noqa: SIM905
_CLAUSE_END = re.compile(r"[.?!;,](?:\s|$)")
# A word that only a command holds: a flag ("-rf", "--all") or a file ("src/", "a.py").
_COMMAND_WORD = re.compile(r"^--?[A-Za-z]|[/\\]|\w\.[A-Za-z]\w*$")
# A question about a command: "what does rm -rf do?", "is it safe to run ...?"
_QUESTION = re.compile(
    r"(?:^|[.?!]\s+)(?:what|whats|why|how|is|are|does|do|should|when|which|who)\b"
    r"[^.?!]*$",
    re.I,
)
_QUOTES = "`'\""
# A command the request says not to run: "don't run anything", "no need to run pytest",
# "without running it" (not "don't forget to run pytest").
_REFUSED = re.compile(
    r"\b(?:don['’]?t|do not|never|no need to|without|not)\s+(?:(?:actually|even|bother to)\s+)?$",
    re.I,
)
# A command written after a colon, in a request that asks to run something: "Tests:
# python3 -m unittest discover -s src - go ahead and run that".
_A_COLON = re.compile(r"(?<=\w):\s+[`'\"]?")
_RUN_ASKED = re.compile(r"\b(?:run|execute|go ahead|try it|give it a go)\b", re.I)
# Someone saying what they use, not asking for it: "I use python3 for everything", "I do
# use git a lot"; but "can you do a git status" asks.
_THEIR_HABIT = re.compile(
    r"(?<!can )(?<!could )(?<!would )(?<!will )\b(?:i|we|they|you|u|people|he|she)"
    r"(?:['’]m|['’]re| am| are)?(?: (?:usually|always|normally|often|mostly|still|just|do))?\s+$",
    re.I,
)
# A flag: "-rf", "--all", "-n" (a dash alone, "run it - just", is punctuation).
_FLAG = re.compile(r"^--?[A-Za-z0-9]")


# What a command prints asked, with a go-ahead to run it: "What does python3 src/tally.py
# notes.txt print? Give it a go" (not "what does rm -rf build print?" alone).
_ITS_OUTPUT = re.compile(
    r"\bwhat (?:does|do|would|will) [`'\"]?(?P<command>[^?]+?)[`'\"]? "
    r"(?:print|output|say|show|give|return|spit out)\b",
    re.I,
)
# The go-ahead opens a clause: "Give it a go", "just run it", not "if you run it".
_GO_AHEAD = re.compile(
    r"(?:^|[.?!;,]\s*|\b(?:and|then|so|just|please|pls)\s+)"
    r"(?:give it a (?:go|try|whirl|spin)|(?:try|run) it|try running it|go ahead)\b",
    re.I,
)


def written_command(request_text: str) -> str | None:
    """The command the request writes out after the word that runs it, or asks what it
    prints and says to run it, or None."""
    output = _ITS_OUTPUT.search(request_text)
    if output and _GO_AHEAD.search(request_text[output.end() :]):
        words = output["command"].split()
        if words and _is_a_command(words, runs=True):
            return " ".join(words)
    leads = [(found, found["runs"] is not None) for found in _RUNS_IT.finditer(request_text)]
    if _RUN_ASKED.search(request_text):
        # "Run the tally script on the README: python3 src/tally.py README.md"
        leads += [(found, False) for found in _A_COLON.finditer(request_text)]
    for found, runs in sorted(leads, key=lambda lead: lead[0].start()):
        before = request_text[: found.start()]
        if _QUESTION.search(before) or _REFUSED.search(before):
            continue
        if not runs and _THEIR_HABIT.search(before):
            continue
        command = _command_words(request_text[found.end() :])
        if command and _is_a_command(command, runs=runs):
            return " ".join(command)
    return None


def _command_words(rest: str) -> list[str]:
    """The words of a command that opens `rest`, up to where its clause ends."""
    end = _CLAUSE_END.search(rest)
    words = (rest[: end.start()] if end else rest).split()
    command: list[str] = []
    for at, word in enumerate(words):
        after = words[at + 1].lower() if at + 1 < len(words) else ""
        where = word.lower() in _WHERE and after in _ITS
        dash = word in ("-", "–", "—")  # "... -s src - go ahead and run that"
        if word.lower() in _ENDS or where or dash or (word.startswith(tuple(_QUOTES)) and command):
            break
        command.append(word.strip(_QUOTES))
        if word.endswith(tuple(_QUOTES)):
            break
    return command


def _is_a_command(words: list[str], *, runs: bool) -> bool:
    """Whether `words` open with a program's name, or, after a word that runs them
    (`runs`), with a script ("./build.sh") or a name given a flag ("tally --all"), not
    "run the tests in src/"."""
    if not re.match(r"(?:\./|[a-z])[\w./+-]*$", words[0]):
        return False
    flagged = any(_COMMAND_WORD.search(w) for w in words[1:])
    if words[0] in PROGRAMS or (words[0] in _WORD_PROGRAMS and flagged):
        return True
    named = words[0] in _WORD_PROGRAMS or _COMMAND_WORD.search(words[0])
    flags = len(words) > 1 and _FLAG.match(words[1])
    return runs and bool(named or flags)
