"""Context management: token counting, compaction, LLM summaries, the non-destructive view."""

from tiller.context.compaction_levels import (
    Compaction,
    ContextBudget,
    compact_messages,
    keep_within_budget,
    level1_truncate_tool_outputs,
    level2_summarize_old_turns,
    level3_drop_middle,
)
from tiller.context.summary import LLMSummarizer
from tiller.context.token_counters import (
    HeuristicCounter,
    MessageTokens,
    TextCounter,
    TokenizerCounter,
    counter_for_model,
    tiktoken_counter,
)
from tiller.context.token_estimates import (
    content_tokens,
    estimate_tokens,
    message_tokens,
    total_tokens,
)
from tiller.context.view import CompactionBlock, ContextView
from tiller.context.view_compaction import compact_view
from tiller.truncation import truncate_head_tail

__all__ = [
    "Compaction",
    "CompactionBlock",
    "ContextBudget",
    "ContextView",
    "HeuristicCounter",
    "LLMSummarizer",
    "MessageTokens",
    "TextCounter",
    "TokenizerCounter",
    "compact_messages",
    "compact_view",
    "content_tokens",
    "counter_for_model",
    "estimate_tokens",
    "keep_within_budget",
    "level1_truncate_tool_outputs",
    "level2_summarize_old_turns",
    "level3_drop_middle",
    "message_tokens",
    "tiktoken_counter",
    "total_tokens",
    "truncate_head_tail",
]
