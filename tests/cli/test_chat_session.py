"""`ChatSession` in-process, with piped (non-terminal) input and a scripted model."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rich.console import Console

from tests.cli.cli_process import tiller
from tiller.cli.agent_setup import AgentSetup
from tiller.cli.chat_session import ChatSession
from tiller.cli.line_input import LineReader
from tiller.errors import ConfigError
from tiller.events import MessageUpdate
from tiller.messages import AssistantMessage, UserMessage
from tiller.models.scripted import ScriptedModel


class Screen:
    """Consoles writing to memory, as a pipe would (no terminal)."""

    def __init__(self) -> None:
        self.out_file = io.StringIO()
        self.err_file = io.StringIO()
        self.out = Console(file=self.out_file, width=200, force_terminal=False)
        self.err = Console(file=self.err_file, width=200, force_terminal=False)

    @property
    def stdout(self) -> str:
        return self.out_file.getvalue()

    @property
    def stderr(self) -> str:
        return self.err_file.getvalue()


def streaming(session: ChatSession) -> Callable[[], bool]:
    """True once the session's answer has begun to stream (a pipe shows it only at its
    end)."""
    seen: list[bool] = []
    session.agent.subscribe(lambda e: seen.append(True) if isinstance(e, MessageUpdate) else None)
    return lambda: bool(seen)


def write_script(folder: Path, name: str, steps: list[object]) -> str:
    (folder / name).write_text(json.dumps(steps))
    return f"scripted:{folder / name}"


@pytest.fixture
def screen() -> Screen:
    return Screen()


@pytest.fixture
def make_session(screen: Screen) -> Iterator[Callable[..., ChatSession]]:
    sessions: list[ChatSession] = []

    def make(spec: str, lines: str = "") -> ChatSession:
        reader = LineReader(io.StringIO(lines), screen.out_file)
        session = ChatSession(AgentSetup(), spec, reader, screen.out, screen.err)
        sessions.append(session)
        return session

    yield make
    for session in sessions:
        if not session._background.loop.is_closed():
            session.close()


def wait_for(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the condition")
        time.sleep(0.01)


def scripted(session: ChatSession) -> ScriptedModel:
    model = session.agent.model
    assert isinstance(model, ScriptedModel)
    return model


def test_history_is_kept_across_turns(
    tmp_path: Path, screen: Screen, make_session: Callable[..., ChatSession]
) -> None:
    spec = write_script(tmp_path, "s.json", ["First answer.", "Second answer."])
    session = make_session(spec, "hello\nand again\n")
    model = scripted(session)
    assert session.interact() == 0
    assert "First answer.\n" in screen.stdout
    assert "Second answer.\n" in screen.stdout
    second = model.requests[1].messages
    assert [type(m).__name__ for m in second] == ["UserMessage", "AssistantMessage", "UserMessage"]
    assert [m.text for m in second] == ["hello", "First answer.", "and again"]
    assert "1 turn · " in screen.stderr
    assert "Traceback" not in screen.stderr


def test_save_then_load_restores_the_conversation(
    tmp_path: Path, screen: Screen, make_session: Callable[..., ChatSession]
) -> None:
    spec = write_script(tmp_path, "s.json", ["One.", "Two."])
    saved = tmp_path / "conversation.json"
    lines = f"first\n/save {saved}\nsecond\n/load {saved}\n/save {tmp_path / 'after.json'}\n"
    session = make_session(spec, lines)
    assert session.interact() == 0
    assert f"saved 2 messages to {saved}" in screen.stdout
    assert f"loaded 2 messages from {saved}" in screen.stdout
    assert [m.text for m in session.agent.messages] == ["first", "One."]
    assert json.loads(saved.read_text()) == json.loads((tmp_path / "after.json").read_text())


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("/load {tmp}/missing.json", "cannot read {tmp}/missing.json: No such file or directory"),
        ("/load {tmp}/s.json", "cannot load {tmp}/s.json: the saved history must be an object"),
        ("/load {tmp}/bad.json", "cannot load {tmp}/bad.json: the saved history is not valid"),
        (
            "/load {tmp}/binary.json",
            "cannot load {tmp}/binary.json: the saved history is not UTF-8 text",
        ),
        ("/save {tmp}/no/such/dir/x.json", "cannot save to {tmp}/no/such/dir/x.json: No such file"),
        ("/save", "usage: /save PATH"),
        ("/load", "usage: /load PATH"),
        ("/steer", "usage: /steer TEXT"),
        ("/steer go left", "nothing is running to steer"),
        ("/model warp:9", "unknown model provider 'warp'"),
        ("/frobnicate", "unknown command /frobnicate; /help lists the commands"),
    ],
)
def test_errors_are_one_line_and_the_session_goes_on(
    tmp_path: Path,
    screen: Screen,
    make_session: Callable[..., ChatSession],
    line: str,
    message: str,
) -> None:
    spec = write_script(tmp_path, "s.json", ["Still here."])
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "binary.json").write_bytes(b"\xff\xfe\x00garbage")
    tmp = str(tmp_path)
    session = make_session(spec, f"{line.format(tmp=tmp)}\nhello\n")
    assert session.interact() == 0
    errors = [x for x in screen.stderr.splitlines() if x.startswith("error:")]
    assert len(errors) == 1, screen.stderr
    assert message.format(tmp=tmp) in errors[0]
    assert "Traceback" not in screen.stderr
    assert "Still here." in screen.stdout


def test_model_switch_keeps_the_history(
    tmp_path: Path, screen: Screen, make_session: Callable[..., ChatSession]
) -> None:
    first = write_script(tmp_path, "a.json", ["From A."])
    second = write_script(tmp_path, "b.json", ["From B."])
    session = make_session(first, f"hi\n/model {second}\nwho are you\n/model\n")
    old_agent = session.agent
    assert session.interact() == 0
    assert session.agent is not old_agent
    assert f"switched to {second} (history kept: 2 messages)" in screen.stdout
    assert f"model: {second}" in screen.stdout
    request = scripted(session).requests[0].messages
    assert [m.text for m in request] == ["hi", "From A.", "who are you"]
    assert "From B." in screen.stdout


def test_a_failed_switch_keeps_the_current_model(
    tmp_path: Path, make_session: Callable[..., ChatSession]
) -> None:
    spec = write_script(tmp_path, "a.json", ["A."])
    session = make_session(spec)
    agent = session.agent
    assert session.handle("/model warp:9") is True
    assert session.agent is agent
    assert session.model_spec == spec


def test_cost_totals_the_session(
    tmp_path: Path, screen: Screen, make_session: Callable[..., ChatSession]
) -> None:
    spec = write_script(tmp_path, "s.json", ["One.", "Two."])
    session = make_session(spec, "/cost\na\nb\n/cost\n")
    assert session.interact() == 0
    costs = [x for x in screen.stdout.splitlines() if "tokens" in x]
    assert costs[0] == "0 in / 0 out tokens (0 total) over 0 runs · cost n/a"
    assert costs[1] == "0 in / 0 out tokens (0 total) over 2 runs · cost n/a"


def test_quit_and_help(
    tmp_path: Path, screen: Screen, make_session: Callable[..., ChatSession]
) -> None:
    spec = write_script(tmp_path, "s.json", ["unused"])
    session = make_session(spec, "/help\n/quit\nnever sent\n")
    assert session.interact() == 0
    for usage in ("/steer TEXT", "/save PATH", "/load PATH", "/model", "/cost", "/quit"):
        assert usage in screen.stdout
    assert scripted(session).requests == []


def test_a_double_slash_sends_a_literal_slash(
    tmp_path: Path, make_session: Callable[..., ChatSession]
) -> None:
    spec = write_script(tmp_path, "s.json", ["ok"])
    session = make_session(spec, "//etc/hosts is a file\n")
    assert session.interact() == 0
    first = session.agent.messages[0]
    assert isinstance(first, UserMessage)
    assert first.text == "/etc/hosts is a file"


def test_lines_sent_during_a_run_are_queued_then_sent(
    tmp_path: Path, screen: Screen, make_session: Callable[..., ChatSession]
) -> None:
    spec = write_script(
        tmp_path, "s.json", [{"text": "slow", "chunk_size": 1, "delay_s": 0.05}, "Queued reply."]
    )
    session = make_session(spec)
    session.send("first")
    session.send("second")  # the first run is going: queued
    assert "(queued: sent when this answer ends)" in screen.stderr
    assert session.wait_until_idle(timeout=30)
    texts = [
        m.text for m in session.agent.messages if isinstance(m, UserMessage | AssistantMessage)
    ]
    assert texts == ["first", "slow", "second", "Queued reply."]
    assert session.usage.runs == 2


def test_abort_stops_the_run_and_the_session_continues(
    tmp_path: Path, screen: Screen, make_session: Callable[..., ChatSession]
) -> None:
    long_text = "word " * 400
    spec = write_script(
        tmp_path,
        "s.json",
        [{"text": long_text, "chunk_size": 5, "delay_s": 0.05}, "After the abort."],
    )
    session = make_session(spec)
    started = streaming(session)
    session.send("tell me everything")
    session.send("queued, then dropped by the abort")
    wait_for(started)
    assert session.abort() is True
    assert session.wait_until_idle(timeout=30)
    assert "· aborted" in screen.stderr
    assert session.abort() is False  # nothing left to stop
    session.send("still there?")
    assert session.wait_until_idle(timeout=30)
    assert "After the abort." in screen.stdout
    users = [m.text for m in session.agent.messages if isinstance(m, UserMessage)]
    assert users == ["tell me everything", "still there?"]
    first_answer = next(m for m in session.agent.messages if isinstance(m, AssistantMessage))
    assert first_answer.stop_reason == "aborted"


def test_a_model_failure_is_one_line(
    tmp_path: Path, screen: Screen, make_session: Callable[..., ChatSession]
) -> None:
    spec = write_script(
        tmp_path, "s.json", [{"fail": {"kind": "auth", "message": "bad key"}}, "Recovered."]
    )
    session = make_session(spec, "hi\nagain\n")
    assert session.interact() == 0
    assert "error: auth: bad key" in screen.stderr
    assert "Recovered." in screen.stdout


def test_an_unknown_model_at_start_is_a_config_error(tmp_path: Path, screen: Screen) -> None:
    reader = LineReader(io.StringIO(""), screen.out_file)
    with pytest.raises(ConfigError, match="unknown model provider"):
        ChatSession(AgentSetup(), "warp:9", reader, screen.out, screen.err)


def test_tiller_chat_reads_piped_lines(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text(json.dumps(["Piped answer."]))
    out = tiller("chat", "-m", "scripted:s.json", cwd=tmp_path, stdin="hello\n/cost\n")
    assert out.returncode == 0, out.stderr
    assert "Piped answer." in out.stdout
    assert "over 1 run · cost n/a" in out.stdout
    assert "Traceback" not in out.stderr


def test_tiller_chat_with_a_bad_model_is_one_line(tmp_path: Path) -> None:
    out = tiller("chat", "-m", "warp:9", cwd=tmp_path, stdin="")
    assert out.returncode == 2
    assert out.stderr.strip().startswith("error: unknown model provider 'warp'")
    assert len(out.stderr.strip().splitlines()) == 1


def test_tiller_chat_defaults_to_the_default_model(tmp_path: Path) -> None:
    out = tiller(
        "chat", cwd=tmp_path, stdin="hi\n", env={"OPENAI_API_KEY": "k"}, fake_providers=True
    )
    assert out.returncode == 0, out.stderr
    assert "answered by openai:gpt-4.1" in out.stdout


def test_a_steer_left_unused_by_an_aborted_run_does_not_leak_into_the_next(
    tmp_path: Path, screen: Screen, make_session: Callable[..., ChatSession]
) -> None:
    slow = {"text": "word " * 400, "chunk_size": 5, "delay_s": 0.05}
    spec = write_script(tmp_path, "s.json", [slow, "Fresh answer."])
    session = make_session(spec)
    model = scripted(session)
    started = streaming(session)
    session.send("go on and on")
    wait_for(started)
    session.handle("/steer turn left")
    assert session.abort() is True
    assert session.wait_until_idle(timeout=30)
    assert "(the steering came after the answer ended: dropped)" in screen.stderr
    session.send("next question")
    assert session.wait_until_idle(timeout=30)
    assert "Fresh answer." in screen.stdout
    assert session.agent.model is model  # the same model, on a fresh agent
    sent = [m.text for m in model.requests[-1].messages if isinstance(m, UserMessage)]
    assert sent == ["go on and on", "next question"]
    assert len(model.requests) == 2
