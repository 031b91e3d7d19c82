"""The codes a parameter's description gives as its example, and the request's words
of their shape.

"Ticker symbol, e.g. AAPL" takes a word in capitals ("NVDA", not "NVDA at the
moment"), "e.g. AB12 CDE" two words of letters and digits then capitals, "e.g. 4521"
digits, "e.g. amlodipine 5mg" a word and then a code. Decoding a free string under
that shape keeps a small model from running a code on into the words after it.
"""

from __future__ import annotations

import re
from typing import Any

from tiller.models.local.regex_subset import literal
from tiller.models.local.request_words import request_words

# A code of letters and digits, perhaps in parts joined by hyphens: "BA117", "RTN-88213".
_LETTERS_AND_DIGITS = re.compile(r"(?=.*[A-Za-z])(?=.*[0-9])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")
CAPITALS = re.compile(r"[A-Z]+")
_WORD = re.compile(r"[a-z]{3,}")  # the word a code is of: "amlodipine" of "amlodipine 5mg"
# "e.g. AAPL", "e.g. BA117", "e.g. AB12 CDE", "e.g. 4521", "e.g. RTN-88213": a code of
# capitals and digits, perhaps after the word it is a code of ("e.g. amlodipine 5mg"). An
# example may be quoted: "e.g. 'LK19 XYZ'".
_CODE_EXAMPLE = re.compile(
    r"\be\.g\.,? ['\"‘“]?((?:[a-z]{3,} (?=[0-9]))?"
    r"[A-Z0-9]*[A-Z0-9][A-Za-z0-9]*(?:-[A-Z0-9]+)*(?: [A-Z0-9]{2,}(?=$|['\"’”.,;)\s]))*)"
    r"(?=$|['\"’”.,;)\s])"
)
_DIGITS = re.compile(r"[0-9]+")
_CODE_DIGITS = 3
# A number, with a unit written onto it or not: "2.5", "20", "1.5kg".
BARE_NUMBER = re.compile(r"\d+(?:[.,]\d+)?[a-z]{0,3}")


def like_the_example(schema: dict[str, Any], request_text: str) -> str | None:
    """A pattern taking the request's words shaped like the code the parameter's
    description gives as its example, or None when it gives none or no words have its
    shape: "Ticker symbol, e.g. AAPL" takes "NVDA", not "at the moment"; "e.g. AB12 CDE"
    takes "KX19 LMN" whole; "e.g. 4521" takes "7730", not a registration. A code of
    several words takes as many of them as the request writes in that shape. A name in
    parts joined by dots ("e.g. example.co.uk") takes the request's words of that shape:
    "quietcornerbooks.shop", not "Quiet Corner Books"."""
    if takes_a_dotted_name(schema):
        dotted = [w for w in request_words(request_text) if DOTTED.fullmatch(w)]
        return f"^({'|'.join(literal(w) for w in dict.fromkeys(dotted))})$" if dotted else None
    every = _every_example(schema) or [code_shapes(schema)]
    if not any(every):
        return None
    words = request_words(request_text)
    runs: list[list[str]] = []
    for shapes in every:
        for start in range(len(words)):
            run: list[str] = []
            for shape, word in zip(shapes, words[start:], strict=False):
                # A code begun in lower case goes on in lower case: "ab12 cde".
                written = word.upper() if run and run[0].islower() else word
                # A letter alone ends a code ("Pantone 186 C"), never begins one.
                if (len(word) < 2 and not run) or not shape.fullmatch(written):
                    break
                run.append(word)
            # A word alone is no code: "sertraline" without its "50mg".
            if any(shape is not _WORD for shape in shapes[: len(run)]):
                runs.append(run)
    longest = max((len(run) for run in runs), default=0)
    found = [" ".join(run) for run in runs if len(run) == longest]
    return f"^({'|'.join(literal(w) for w in dict.fromkeys(found))})$" if found else None


# The examples a description lists after "e.g.", to a stop: "e.g. #1E90FF, RAL 7016 or
# Pantone 186 C".
_EXAMPLES = re.compile(r"\be\.g\.,?\s+([^;()]+?)\s*(?:[;()]|\.\s|\.?$)")
_EXAMPLE_BREAK = re.compile(r",\s*(?:or\s+)?|\s+or\s+")
# A code after a hash: "#1E90FF".
_HASHED = re.compile(r"#[A-Za-z0-9]{3,}")


# A name in parts joined by dots, the last of letters: a domain ("example.co.uk"), a
# host ("api.example.com"), a file's name ("report.pdf"); not an ending alone (".uk").
DOTTED = re.compile(r"[A-Za-z0-9][\w-]*(?:\.[\w-]+)*\.[A-Za-z]{2,}")


def takes_a_dotted_name(schema: dict[str, Any]) -> bool:
    """Whether each example the parameter's description gives is a name in parts joined
    by dots: "Full domain name including the ending, e.g. example.co.uk"."""
    found = _EXAMPLES.search(str(schema.get("description", "")))
    examples = [e.strip(" '\"‘’“”") for e in _EXAMPLE_BREAK.split(found[1])] if found else []
    return bool(examples) and all(DOTTED.fullmatch(e) for e in examples)


def _every_example(schema: dict[str, Any]) -> list[list[re.Pattern[str]]]:
    """The shapes of each code the description lists as examples, when it lists several
    and each is a code ("e.g. #1E90FF, RAL 7016 or Pantone 186 C": a hashed code, capitals
    then digits, a system's name then digits then a letter); none when one of them is a
    name ("e.g. Truro or BS3")."""
    found = _EXAMPLES.search(str(schema.get("description", "")))
    examples = [e.strip(" '\"‘’“”") for e in _EXAMPLE_BREAK.split(found[1])] if found else []
    if len(examples) < 2:
        return []
    every = [_shapes_of(example) for example in examples]
    return every if all(every) else []


def _shapes_of(example: str) -> list[re.Pattern[str]]:
    """The shape of each word of one example code; [] when it is no code."""
    words = example.split()
    shapes: list[re.Pattern[str]] = []
    for i, code in enumerate(words):
        shape = _HASHED if _HASHED.fullmatch(code) else _shape(code)
        if shape is not None:
            shapes.append(shape)
        elif i == 0 and code.isalpha() and any(c.isdigit() for c in "".join(words[1:2])):
            # The system a code is of, written as it is: "Pantone" of "Pantone 186 C".
            shapes.append(re.compile(re.escape(code), re.I))
        else:
            return []
    return shapes if any(c.isdigit() for c in example) else []


def example_code(schema: dict[str, Any]) -> str | None:
    """The code the parameter's description gives as its example, if any ("LHR")."""
    found = _CODE_EXAMPLE.search(str(schema.get("description", "")))
    return found[1] if found else None


def code_shapes(schema: dict[str, Any]) -> list[re.Pattern[str]]:
    """The shape of each word of the code the description gives as its example: letters
    and digits in any mix and case ("BA117"), capitals ("AAPL"), or digits, when there are
    at least three, as a code's are (a "1" is a count or a day); none when it gives no
    code."""
    example = _CODE_EXAMPLE.search(str(schema.get("description", "")))
    shapes: list[re.Pattern[str]] = []
    for code in example[1].split() if example else ():
        shape = _shape(code)
        if shape is not None:
            shapes.append(shape)
        elif not shapes and code.isalpha() and code.islower():
            shapes.append(_WORD)
        else:
            return []
    return shapes if shapes != [_WORD] else []


def _shape(code: str) -> re.Pattern[str] | None:
    """The shape of a word of a code: letters and digits, capitals, or three digits or more."""
    if _LETTERS_AND_DIGITS.fullmatch(code):
        return _LETTERS_AND_DIGITS
    if code.isalpha() and code.isupper():
        return CAPITALS
    if code.isdigit() and len(code) >= _CODE_DIGITS:
        return _DIGITS
    return None


def takes_a_mixed_code(schema: dict[str, Any], request_text: str) -> bool:
    """Whether the parameter's example is a code of letters and digits ("e.g. BA117")
    and the request holds a word of that shape that is no number with its unit ("20mg")."""
    shapes = code_shapes(schema)
    if not shapes or shapes[0] is not _LETTERS_AND_DIGITS:
        return False
    return any(
        _LETTERS_AND_DIGITS.fullmatch(w) and not BARE_NUMBER.fullmatch(w)
        for w in request_words(request_text)
    )
