from typing import Any

from tiller.models.local.argument_schema import argument_schema
from tiller.models.local.claims import claimed_by_others, claimed_names, mapped


def _text(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def _parcel_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "item": _text("What to send."),
            "depot": _text("Depot to drop it off at, e.g. 'Leeds North'."),
        },
        "required": ["item", "depot"],
    }


def test_a_name_holding_a_word_of_a_parameters_name_is_that_parameters() -> None:
    texts = [("medicine", _text("Medicine and strength.")), ("pharmacy", _text("Pharmacy."))]
    claims = claimed_names(texts, "put my repeat omeprazole in at Well Pharmacy")
    assert claims == {"pharmacy": ("Well Pharmacy",)}
    assert claimed_by_others(claims, "medicine") == {"well pharmacy"}
    assert claimed_by_others(claims, "pharmacy") == frozenset()


def test_a_name_the_word_of_a_parameters_name_follows_is_that_parameters() -> None:
    texts = [("song", _text("Song title.")), ("playlist", _text("Playlist to add it to."))]
    request = "Add Bohemian Rhapsody and Africa to my Karaoke playlist please"
    assert claimed_names(texts, request) == {"playlist": ("Karaoke",)}
    both = "chuck it onto my Saturday Night playlist and the Wedding playlists"
    assert claimed_names(texts, both) == {"playlist": ("Saturday Night", "Wedding")}
    # A word of the name after it only as the next word: "Africa to my playlist" is no claim.
    assert claimed_names(texts, "add Africa to my playlist") == {}
    # A word of the name that names no thing: "from" of `from_address`.
    moving = [("from_address", _text("Address.")), ("to_address", _text("Address."))]
    assert claimed_names(moving, "moving on 3 May from 5 Oak Row") == {}


def test_a_name_after_in_is_the_parameters_whose_description_ends_with_in() -> None:
    texts = [("role", _text("Job title, e.g. barista")), ("location", _text("Town to search in"))]
    claims = claimed_names(texts, "any Software Developer jobs in Leeds?")
    assert claims == {"location": ("Leeds",)}


def test_a_name_after_the_word_a_description_ends_its_verb_with_is_that_parameters() -> None:
    texts = list(_parcel_schema()["properties"].items())
    claims = claimed_names(texts, "Send the Lego Castle box, drop it off at Bradford West")
    assert claims == {"depot": ("Bradford West",)}
    # No such word in the description, or no name after it: nothing is claimed.
    assert claimed_names([("item", _text("What to send."))], "drop it at Bradford") == {}
    assert claimed_names(texts, "drop it off at the depot") == {}
    # A sentence's first word is capitalised anyway.
    email = [("email_address", _text("Address.")), ("body", _text("What to say."))]
    assert claimed_names(email, "Email Bob that the Leeds trip is off") == {}


def test_the_other_free_text_does_not_copy_a_claimed_name() -> None:
    narrowed = argument_schema(_parcel_schema(), "Send the Lego Castle box at Bradford West")
    properties = narrowed["properties"]
    assert properties["depot"]["pattern"] == "^(Bradford West)$"
    assert "Bradford" not in properties["item"]["pattern"]
    assert "Lego Castle" in properties["item"]["pattern"]


def test_a_mapping_gives_each_side_to_its_parameter() -> None:
    shortcut = {"type": "string", "description": "What you type, e.g. omw (no spaces)"}
    phrase = {"type": "string", "description": "The text it expands to"}
    texts = [("shortcut", shortcut), ("phrase", phrase)]
    assert claimed_names(texts, "Add a text shortcut: brb -> be right back") == {
        "shortcut": ("brb",),
        "phrase": ("be right back",),
    }
    assert claimed_names(texts, "make ty expand to: Thank you so much, speak soon!") == {
        "shortcut": ("ty",),
        "phrase": ("Thank you so much, speak soon",),
    }
    asked = "can you set it up so when i type addr it fills in 42 Larch Close, Didsbury"
    assert claimed_names(texts, asked)["phrase"] == ("42 Larch Close, Didsbury",)
    # The side a description ends with "to" takes what the thing becomes, first or not.
    assert claimed_names(list(reversed(texts)), "sig -> Dr A. Okafor, Ward 7B. Also ...") == {
        "phrase": ("Dr A. Okafor, Ward 7B",),
        "shortcut": ("sig",),
    }


def test_two_mappings_give_no_one_mapping() -> None:
    assert mapped("brb -> be right back, and eml -> jo@example.com") is None
    assert mapped("Add brb, please") is None


def test_what_follows_a_parameters_name_and_a_colon_is_its_value() -> None:
    texts = [("subject", {"type": "string"}), ("task", {"type": "string"})]
    asked = "Also add a physics task: finish the lab report, due 2026-01-10"
    assert claimed_names(texts, asked) == {"task": ("finish the lab report",)}
    assert claimed_names(texts, "Also add a physics task due 2026-01-10") == {}


def test_a_maker_named_after_by_is_the_makers_parameter() -> None:
    texts = [("artist", _text("Artist or band")), ("title", _text("Album title"))]
    claims = claimed_names(texts, "add Parallel Lines by Blondie to my records")
    assert claims == {"artist": ("Blondie",)}
    author = [("author", _text("Who wrote it")), ("book", _text("Book title"))]
    assert claimed_names(author, "log Small Island by Andrea Levy") == {"author": ("Andrea Levy",)}


def test_a_name_that_did_what_a_description_asks_who_did_is_its_parameters() -> None:
    texts = [("game", _text("The game played")), ("winner", _text("Who won"))]
    assert claimed_names(texts, "note that Grandad won Scrabble") == {"winner": ("Grandad",)}
    assert claimed_names(texts, "Carcassonne, won by Priya") == {"winner": ("Priya",)}
    assert claimed_names(texts, "we played Carcassonne with Priya") == {}
