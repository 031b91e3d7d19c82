"""LLM summary compaction: the prompt, the marker, the event, the fallback."""

from __future__ import annotations

from tiller import Agent
from tiller.context import ContextBudget, ContextView, LLMSummarizer, compact_view
from tiller.context.summary import SUMMARY_INSTRUCTIONS, transcript
from tiller.errors import OverloadedError
from tiller.events import AgentEvent, ContextCompacted
from tiller.loop.options import ContextOptions
from tiller.messages import TextContent, UserMessage
from tiller.models import Fail, ScriptedModel

from .test_view import conversation

SUMMARY = "- read file0.txt .. file5.txt\n- open task: compare them"


async def test_the_dropped_span_is_summarised_by_the_model() -> None:
    history = conversation(8, output_lines=30)
    summarizer_model = ScriptedModel([SUMMARY])
    view = ContextView()
    config = ContextBudget(max_context_tokens=900, keep_recent=4, keep_first=2)
    block = await compact_view(
        view, history, config, summarizer=LLMSummarizer(summarizer_model), model=ScriptedModel()
    )
    assert block is not None
    assert block.method == "llm_summary"
    assert block.summary == SUMMARY
    marker = next(m for m in block.messages if isinstance(m, UserMessage) and "summary" in m.text)
    assert marker.text.startswith("[Context summary of ")
    assert SUMMARY in marker.text
    assert block.messages[:2] == history[:2]
    assert block.tokens_after <= 900
    (request,) = summarizer_model.requests
    prompt = request.messages[0]
    assert isinstance(prompt, UserMessage)
    assert SUMMARY_INSTRUCTIONS in prompt.text
    assert "file3.txt" in prompt.text  # the span's file names reach the summariser
    for word in ("decision", "file names", "tasks"):
        assert word in SUMMARY_INSTRUCTIONS


async def test_a_failing_summary_model_falls_back_to_text_levels() -> None:
    history = conversation(8, output_lines=30)
    failing = ScriptedModel([Fail(OverloadedError("busy"))])
    view = ContextView()
    config = ContextBudget(max_context_tokens=900, keep_recent=4)
    block = await compact_view(
        view, history, config, summarizer=LLMSummarizer(failing), model=ScriptedModel()
    )
    assert block is not None
    assert block.method in ("level2", "level3")
    assert block.summary is None
    assert block.tokens_after <= 900


async def test_an_agent_summarises_with_its_own_model_and_reports_it() -> None:
    model = ScriptedModel([SUMMARY, "done"])
    config = ContextBudget(max_context_tokens=900, keep_recent=4, summarizer=LLMSummarizer())
    agent = Agent(
        model, history=conversation(8, output_lines=30), context=ContextOptions(budget=config)
    )
    events: list[AgentEvent] = []
    agent.subscribe(events.append)
    result = await agent.run("what next?")
    assert result.text == "done"
    (compacted,) = [e for e in events if isinstance(e, ContextCompacted)]
    assert compacted.method == "llm_summary"
    assert compacted.summary == SUMMARY
    assert compacted.tokens_after < compacted.tokens_before
    assert compacted.loop_id
    sent = model.requests[1].messages
    assert any(isinstance(m, UserMessage) and SUMMARY in m.text for m in sent)
    assert len(agent.messages) == 8 * 4 + 2  # the history keeps everything
    assert agent.context_view.blocks[-1].summary == SUMMARY


def test_the_transcript_names_tools_and_cuts_long_outputs() -> None:
    text = transcript(conversation(1, output_lines=500))
    assert "User: question 0" in text
    assert '[called read with {"path": "file0.txt"}]' in text
    assert "lines truncated" in text
    assert "Assistant: answer 0" in text
    assert transcript([UserMessage([TextContent("hi")])]) == "User: hi"
