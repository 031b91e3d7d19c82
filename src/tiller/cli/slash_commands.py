"""The slash commands of `tiller chat`: their names, usage and help, and parsing a line."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CommandHelp:
    name: str
    usage: str
    help: str


COMMANDS: tuple[CommandHelp, ...] = (
    CommandHelp("steer", "/steer TEXT", "steer the running answer: TEXT reaches the model next"),
    CommandHelp("save", "/save PATH", "save the conversation to a JSON file"),
    CommandHelp("load", "/load PATH", "replace the conversation with one saved by /save"),
    CommandHelp("model", "/model [SPEC]", "show the model, or switch to SPEC keeping the history"),
    CommandHelp("cost", "/cost", "tokens and cost of this session so far"),
    CommandHelp("help", "/help", "this list"),
    CommandHelp("quit", "/quit", "leave (Ctrl-D at the prompt does too)"),
)
ALIASES = {"exit": "quit", "q": "quit", "?": "help"}
NAMES = tuple(f"/{c.name}" for c in COMMANDS)


@dataclass(frozen=True, slots=True)
class SlashCommand:
    name: str  # without the slash, lower case, aliases resolved
    argument: str  # the rest of the line, stripped


def parse_command(line: str) -> SlashCommand | None:
    """The slash command on `line`, or None when the line is a message for the model."""
    text = line.strip()
    if not text.startswith("/") or text.startswith("//"):
        return None
    name, _, argument = text[1:].partition(" ")
    name = name.lower()
    return SlashCommand(ALIASES.get(name, name), argument.strip())


def message_text(line: str) -> str:
    """A line for the model: a leading `//` sends a literal `/`."""
    text = line.strip()
    return text[1:] if text.startswith("//") else text
