"""Reading lines for `tiller chat` (the terminal side is tested under tmux)."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator

import pytest

from tiller.cli.line_input import LineReader


def test_piped_lines_one_by_one_then_eof() -> None:
    reader = LineReader(io.StringIO("one\ntwo"), io.StringIO())
    assert not reader.interactive
    assert reader.read("you› ") == "one"
    assert reader.read("you› ") == "two"
    with pytest.raises(EOFError):
        reader.read("you› ")


class Pipes:
    """A reader on a pipe (as stdin), the pipe's write end, and a wake pipe."""

    def __init__(self) -> None:
        data_r, self.data_w = os.pipe()
        self.wake_r, self.wake_w = os.pipe()
        self.stdin = os.fdopen(data_r, "r")
        self.reader = LineReader(self.stdin, io.StringIO())
        self.writer_open = True

    def write(self, data: bytes) -> None:
        os.write(self.data_w, data)

    def close_writer(self) -> None:
        os.close(self.data_w)
        self.writer_open = False

    def close(self) -> None:
        self.stdin.close()
        if self.writer_open:
            os.close(self.data_w)
        os.close(self.wake_r)
        os.close(self.wake_w)


@pytest.fixture
def pipes() -> Iterator[Pipes]:
    p = Pipes()
    yield p
    p.close()


def test_read_unless_woken_returns_whole_lines(pipes: Pipes) -> None:
    pipes.write(b"/steer left\nsec")
    assert pipes.reader.read_unless_woken(pipes.wake_r) == "/steer left"
    pipes.write(b"ond\r\n")
    assert pipes.reader.read_unless_woken(pipes.wake_r) == "second"


def test_read_unless_woken_returns_none_when_woken(pipes: Pipes) -> None:
    pipes.write(b"half a li")
    os.write(pipes.wake_w, b"..")
    assert pipes.reader.read_unless_woken(pipes.wake_r) is None  # the wake pipe is drained
    pipes.write(b"ne\n")
    assert pipes.reader.read_unless_woken(pipes.wake_r) == "half a line"


def test_read_unless_woken_at_end_of_input(pipes: Pipes) -> None:
    pipes.write(b"last words")
    pipes.close_writer()
    assert pipes.reader.read_unless_woken(pipes.wake_r) == "last words"
    with pytest.raises(EOFError):
        pipes.reader.read_unless_woken(pipes.wake_r)
