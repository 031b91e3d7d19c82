"""An interactive session over one `Agent`: the engine behind `tiller chat`.

The main thread reads the user's lines; runs go on a background event loop, so
input stays readable while an answer streams (`/steer`, Ctrl-C). Lines typed
during a run that are not commands are queued and sent when the answer ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from tiller.cli.approval import ApprovalMode, ToolApproval, ToolRequest, is_yes, show_request
from tiller.cli.error_output import print_error
from tiller.cli.loop_thread import LoopThread
from tiller.cli.rendering import TerminalRenderer
from tiller.cli.session_usage import SessionUsage
from tiller.cli.slash_commands import COMMANDS, SlashCommand, message_text, parse_command
from tiller.cli.tool_threads import ToolThreads, still_running_note
from tiller.errors import TillerError
from tiller.events import AgentEnd, AgentEvent, AgentStart, MessageStart, TurnStart
from tiller.messages import Message, UserMessage
from tiller.models.defaults import default_model_spec

if TYPE_CHECKING:
    from tiller.agent import Agent
    from tiller.cli.agent_setup import AgentSetup
    from tiller.cli.line_input import LineReader

PROMPT = "you› "
BUSY = "an answer is running: wait for it, or press Ctrl-C to stop it first"


class _Question:
    """A tool call waiting for the user's yes or no; answered from any thread."""

    def __init__(self, request: ToolRequest, loop: asyncio.AbstractEventLoop) -> None:
        self.request = request
        self.loop = loop
        self.future: asyncio.Future[bool] = loop.create_future()

    def answer(self, allowed: bool) -> None:
        def settle() -> None:
            if not self.future.done():
                self.future.set_result(allowed)

        with contextlib.suppress(RuntimeError):  # the loop is closed: no one waits
            self.loop.call_soon_threadsafe(settle)


class ChatSession:
    """A conversation with history kept across turns, switchable between models."""

    def __init__(
        self,
        setup: AgentSetup,
        model_spec: str | None,
        reader: LineReader,
        out: Console,
        err: Console,
        *,
        debug: bool = False,
        approval: ApprovalMode | None = "ask",
    ) -> None:
        self.setup = setup
        self.reader = reader
        self.out = out
        self.err = err
        self.debug = debug
        self.model_spec = model_spec or default_model_spec()
        if approval is not None:
            setup.before_tool = ToolApproval(
                setup.tools,
                approval,
                self.ask_user if reader.interactive else None,
                cannot_ask="tiller chat's input is not a terminal",
            )
        self.agent: Agent = setup.build(self.model_spec)
        self.renderer = TerminalRenderer(out, err)
        self.usage = SessionUsage()
        self._unsubscribe = self.agent.subscribe(self._on_event)
        self.tool_threads = ToolThreads()
        self._background = LoopThread("tiller-chat", executor=self.tool_threads)
        self._questions: list[_Question] = []  # tool calls waiting for the user's consent
        self._lock = threading.Lock()
        self._running = False
        self._abort_requested = False
        self._queued: list[str] = []
        self._unused_steers = 0  # sent with /steer, not yet seen going to the model
        self._in_turn = False
        self._idle = threading.Event()
        self._idle.set()
        self._wake_read, self._wake_write = os.pipe()
        self._commands: dict[str, Callable[[str], bool]] = {
            "steer": self._steer,
            "save": self._save,
            "load": self._load,
            "model": self._model,
            "cost": self._cost,
            "help": self._help,
            "quit": self._quit,
        }

    @property
    def running(self) -> bool:
        with self._lock:
            return self._running

    # ── the session ─────────────────────────────────────────────────────────

    def interact(self) -> int:
        """Read and act on lines until /quit, end of input or Ctrl-C at an empty prompt."""
        self.err.print(
            f"[bold]tiller chat[/] · {escape(self.model_spec)} · /help for commands · "
            "Ctrl-C stops an answer · Ctrl-D quits",
            highlight=False,
        )
        try:
            while True:
                try:
                    line = self._next_line()
                    if line is not None and not self.handle(line):
                        return 0
                except KeyboardInterrupt:
                    if self.abort():
                        continue
                    if self.reader.discarded_text:  # Ctrl-C cleared a typed line
                        continue
                    return 0
                except EOFError:  # Ctrl-D or the end of piped input: leave after the answer
                    if self.reader.interactive:
                        self.out.print()
                    self.wait_until_idle()
                    return 0
        except KeyboardInterrupt:  # a second Ctrl-C while leaving
            return 0
        finally:
            self.close()

    def _next_line(self) -> str | None:
        if not self.running:
            return self.reader.read(PROMPT)
        if self._answer_questions():
            return None
        if not self.reader.interactive:
            self.wait_until_idle()  # piped input: one line after the other's answer
            return None
        line = self.reader.read_unless_woken(self._wake_read)
        if line is not None:
            self.renderer.interrupted()
        return line

    def handle(self, line: str) -> bool:
        """Act on one line of input. False when the session should end."""
        command = parse_command(line)
        try:
            if command is not None:
                return self._command(command)
            text = message_text(line)
            if text:
                self.send(text)
        except TillerError as exc:
            print_error(self.err, exc)
        except Exception as exc:  # a bug: one line, and the traceback with --debug
            if self.debug:
                self.err.print(traceback.format_exc(), markup=False, highlight=False)
            print_error(self.err, f"{type(exc).__name__}: {exc}")
        return True

    def _command(self, command: SlashCommand) -> bool:
        run = self._commands.get(command.name)
        if run is None:
            print_error(self.err, f"unknown command /{command.name}; /help lists the commands")
            return True
        return run(command.argument)

    # ── runs ────────────────────────────────────────────────────────────────

    def send(self, text: str) -> None:
        """Start a run on `text`, or queue it for when the running answer ends."""
        with self._lock:
            if self._running:
                self._queued.append(text)
                queued = True
            else:
                self._running = True
                self._idle.clear()
                queued = False
        if queued:
            self.err.print("[dim](queued: sent when this answer ends)[/]")
        else:
            self._background.submit(self._drive([text]))

    def abort(self) -> bool:
        """Stop the running answer (queued lines are dropped). False when none is running."""
        with self._lock:
            if not self._running:
                return False
            self._abort_requested = True
            self._queued.clear()
            questions, self._questions = self._questions, []
        for question in questions:  # a call waiting for consent does not run
            question.answer(False)
        self._background.call(self.agent.abort)
        return True

    def wait_until_idle(self, timeout: float | None = None) -> bool:
        """Block until no run is going (Ctrl-C interrupts). False on timeout."""
        waited = 0.0
        while not self._idle.wait(0.1):
            waited += 0.1
            if timeout is not None and waited >= timeout:
                return False
        return True

    async def _drive(self, texts: list[str]) -> None:
        """Run on `texts`, then on whatever was queued meanwhile, until nothing is left.

        An abort stops the current run and drops what was queued before it; lines typed
        after the abort are still sent.
        """
        try:
            while True:
                with self._lock:
                    skip, self._abort_requested = self._abort_requested, False
                if not skip:
                    await self._run_once(texts)
                with self._lock:
                    self._abort_requested = False  # an abort, if any, stopped that run
                    if not self._queued:
                        self._set_idle()  # in the same lock: nothing can be queued now
                        break
                    texts, self._queued = self._queued, []
        finally:
            with self._lock:
                if self._running:  # left by an exception (the loop was closed)
                    self._queued.clear()
                    self._set_idle()
        os.write(self._wake_write, b".")

    def _set_idle(self) -> None:
        self._running = False
        self._abort_requested = False
        self._idle.set()

    async def _run_once(self, texts: list[str]) -> None:
        prompt: list[Message] = [UserMessage.of(t) for t in texts]
        try:
            result = await self.agent.run(prompt)
        except TillerError as exc:
            print_error(self.err, exc)
            return
        except Exception as exc:  # a bug: keep the session alive
            if self.debug:
                self.err.print(traceback.format_exc(), markup=False, highlight=False)
            print_error(self.err, f"{type(exc).__name__}: {exc}")
            return
        finally:
            self._drop_unused_steering()
        if result.stop_reason == "error":
            print_error(self.err, result.error or "the run failed")
        elif result.stop_reason == "aborted" and (busy := self.tool_threads.busy()):
            self.err.print(still_running_note(busy, leaving=False), highlight=False, soft_wrap=True)

    def _on_event(self, event: AgentEvent) -> None:
        if isinstance(event, AgentStart):
            self._in_turn = False
        elif isinstance(event, TurnStart):
            self._in_turn = True
        elif isinstance(event, MessageStart) and isinstance(event.message, UserMessage):
            if self._in_turn:  # a steering message reached the model
                with self._lock:
                    self._unused_steers = max(0, self._unused_steers - 1)
        elif isinstance(event, AgentEnd):
            self.usage.add(event.stats)
        self.renderer(event)

    def _drop_unused_steering(self) -> None:
        """A /steer that came too late (the answer ended or was stopped) must not leak into
        the next run: continue on a fresh agent with the same model and history."""
        with self._lock:
            unused, self._unused_steers = self._unused_steers, 0
        if unused:
            self._swap_agent(self.setup.build(self.agent.model, self.agent.messages))
            self.err.print("[dim](the steering came after the answer ended: dropped)[/]")

    def _swap_agent(self, agent: Agent) -> None:
        self._unsubscribe()
        self.agent = agent
        self._unsubscribe = agent.subscribe(self._on_event)

    def close(self) -> None:
        """Stop any running answer and the background loop."""
        if self.abort():
            with contextlib.suppress(KeyboardInterrupt):  # another Ctrl-C: leave at once
                self.wait_until_idle(timeout=5.0)
        self._unsubscribe()
        self._background.close()
        for fd in (self._wake_read, self._wake_write):
            os.close(fd)

    # ── asking before tools that change things ──────────────────────────────

    async def ask_user(self, request: ToolRequest) -> bool:
        """Ask the user (on the main thread, which reads the terminal) to allow a call."""
        question = _Question(request, asyncio.get_running_loop())
        with self._lock:
            self._questions.append(question)
        os.write(self._wake_write, b"?")
        try:
            return await question.future
        finally:
            with self._lock:
                if question in self._questions:
                    self._questions.remove(question)

    def _answer_questions(self) -> bool:
        """Put the waiting questions to the user, one by one. False when there were none."""
        with self._lock:
            questions, self._questions = self._questions, []
        for n, question in enumerate(questions):
            self.renderer.make_room()
            show_request(self.err, question.request)
            try:
                answer = self.reader.read(question.request.question)
            except EOFError:
                answer = ""
            except KeyboardInterrupt:
                for unanswered in questions[n:]:
                    unanswered.answer(False)
                raise
            question.answer(is_yes(answer))
        return bool(questions)

    # ── commands ────────────────────────────────────────────────────────────

    def _note(self, markup: str) -> None:
        self.out.print(markup, highlight=False)

    def _steer(self, text: str) -> bool:
        if not text:
            print_error(self.err, "usage: /steer TEXT")
        elif not self.running:
            print_error(self.err, "nothing is running to steer; send TEXT as a message instead")
        else:
            with self._lock:
                self._unused_steers += 1
            self._background.call(self.agent.steer, text)
            self.err.print("[dim](steering: the model reads it before its next step)[/]")
        return True

    def _path(self, command: str, argument: str) -> Path | None:
        if not argument:
            print_error(self.err, f"usage: /{command} PATH")
            return None
        if self.running:
            print_error(self.err, BUSY)
            return None
        return Path(argument).expanduser()

    def _save(self, argument: str) -> bool:
        path = self._path("save", argument)
        if path is None:
            return True
        try:
            self.agent.save(path)
        except OSError as exc:
            print_error(self.err, f"cannot save to {path}: {exc.strerror or exc}")
            return True
        self._note(f"saved {len(self.agent.messages)} messages to {escape(str(path))}")
        return True

    def _load(self, argument: str) -> bool:
        path = self._path("load", argument)
        if path is None:
            return True
        try:
            self.agent.load(path)
        except OSError as exc:
            print_error(self.err, f"cannot read {path}: {exc.strerror or exc}")
            return True
        except UnicodeDecodeError:
            print_error(self.err, f"cannot load {path}: it is not a saved conversation (not text)")
            return True
        except TillerError as exc:
            print_error(self.err, f"cannot load {path}: {exc}")
            return True
        self._note(f"loaded {len(self.agent.messages)} messages from {escape(str(path))}")
        return True

    def _model(self, spec: str) -> bool:
        if not spec:
            self._note(
                f"model: [bold]{escape(self.model_spec)}[/] (switch with /model PROVIDER:NAME)"
            )
            return True
        if self.running:
            print_error(self.err, BUSY)
            return True
        if spec == "default":
            spec = default_model_spec()
        agent = self.setup.build(spec, history=self.agent.messages)  # ConfigError: one line
        self._swap_agent(agent)
        self.model_spec = spec
        self._note(
            f"switched to [bold]{escape(spec)}[/] (history kept: {len(agent.messages)} messages)"
        )
        if self.setup.model_options and not self.setup.options_for(spec):
            given = " and ".join(f"--{k.replace('_', '-')}" for k in self.setup.model_options)
            self._note(
                f"[dim]({escape(given)} given for {escape(self.setup.options_provider)}: models "
                f"do not apply to {escape(spec)})[/]"
            )
        return True

    def _cost(self, _: str) -> bool:
        self._note(escape(self.usage.describe()))
        return True

    def _help(self, _: str) -> bool:
        table = Table(show_header=False, box=None, padding=(0, 2, 0, 0))
        for c in COMMANDS:
            table.add_row(f"[bold]{escape(c.usage)}[/]", escape(c.help))
        table.add_row("[bold]Ctrl-C[/]", "stop the running answer; at an empty prompt, leave")
        table.add_row("[bold]//TEXT[/]", "send a message that starts with /")
        self.out.print(table)
        return True

    def _quit(self, _: str) -> bool:
        return False
