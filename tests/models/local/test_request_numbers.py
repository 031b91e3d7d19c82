from __future__ import annotations

from tiller.models.local.request_numbers import request_numbers


def test_digits_read_as_python_does() -> None:
    assert request_numbers("It is -3 outside, 18,000 euros, €60, 4.50 each, v1.2") == [
        "-3", "18000", "60", "4.50"
    ]  # fmt: skip
    assert request_numbers("9876-5432") == ["9876", "5432"]
    assert request_numbers("no numbers") == []


def test_number_words() -> None:
    assert request_numbers("seven hundred and twelve plus eighty-nine") == ["712", "89"]
    assert request_numbers("twenty-one thousand three hundred and five") == ["21305"]
    assert request_numbers("two thousand and twenty") == ["2020"]
    assert request_numbers("forty euros") == ["40"]
    assert request_numbers("a hundred euros, a thousand and one nights") == ["100", "1001"]


def test_words_that_cannot_continue_a_number_start_a_new_one() -> None:
    assert request_numbers("one and two") == ["1", "2"]
    assert request_numbers("twenty twelve") == ["20", "12"]
    assert request_numbers("seven hundred and cats, then 3") == ["700", "3"]
    assert request_numbers("and one") == ["1"]
    assert request_numbers("someone said 5") == ["5"]  # not the "one" of "someone"


def test_digits_and_words_keep_their_order() -> None:
    assert request_numbers("add 5 to forty two and 7") == ["5", "42", "7"]


def test_a_count_after_x_is_a_number() -> None:
    assert request_numbers("jasmine rice x4 cups") == ["4"]
    assert request_numbers("×12 eggs, or 3x that") == ["12", "3"]
    assert request_numbers("box 0x4F") == ["0"]  # hexadecimal: no count of 4


def test_the_second_word_of_a_code_is_no_number() -> None:
    assert request_numbers("book the sweep at LS6 3QT") == []
    assert request_numbers("at BD23 1UD for 3 November") == ["3"]
    # A number after a word that is no code is a number still.
    assert request_numbers("upgrade to 5GB, flat 3 QT") == ["5", "3"]
