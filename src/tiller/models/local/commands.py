"""A command written out in the request, to be run as it is written.

"Make a backup by running cp config.toml config.toml.bak" and "clean up with rm -rf
build/" hold a whole command after the word that runs it. A shell tool's `command`
copied word by word from such a request takes a word of the lead-in ("backup"), and a
request that opens with another verb ("clean up") does not read as one to run. What
follows the word that runs it is a command when it opens with a program's name (one
that is also an English word, "make", only with a flag or a file after it), or, after
"run", with a script or a name given a flag; it ends where the clause does. A question
about a command ("what does rm -rf do?") asks to be told, not to run it.
"""

from __future__ import annotations

import re

# Words after which a command is written: "by running ...", "with ...", "using ...". After
# "with", "using" or "via" only a program's name opens one ("replace foo with bar in a.txt").
_RUNS_IT = re.compile(
    r"\b(?:(?P<runs>run|running|execute|executing|command)|with|using|via)\s*:?\s+[`'\"]?",
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


def written_command(request_text: str) -> str | None:
    """The command the request writes out after the word that runs it, or None."""
    for found in _RUNS_IT.finditer(request_text):
        if _QUESTION.search(request_text[: found.start()]):
            continue
        rest = request_text[found.end() :]
        end = _CLAUSE_END.search(rest)
        words = (rest[: end.start()] if end else rest).split()
        command: list[str] = []
        for at, word in enumerate(words):
            after = words[at + 1].lower() if at + 1 < len(words) else ""
            where = word.lower() in _WHERE and after in _ITS
            if word.lower() in _ENDS or where or (word.startswith(tuple(_QUOTES)) and command):
                break
            command.append(word.strip(_QUOTES))
            if word.endswith(tuple(_QUOTES)):
                break
        if not command or not re.match(r"(?:\./|[a-z])[\w./+-]*$", command[0]):
            continue
        flagged = any(_COMMAND_WORD.search(w) for w in command[1:])
        program = command[0] in PROGRAMS or (command[0] in _WORD_PROGRAMS and flagged)
        # After "run", a script ("./build.sh") or a name given a flag ("tally --all"),
        # not "run the tests in src/".
        named = command[0] in _WORD_PROGRAMS or _COMMAND_WORD.search(command[0])
        flags = command[1:2] and command[1].startswith("-")
        if program or (found["runs"] and (named or flags)):
            return " ".join(command)
    return None
