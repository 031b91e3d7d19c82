"""Context management: token counting and compaction."""

from tiller.context.compaction import (
    Compaction,
    ContextConfig,
    compact_messages,
    keep_within_budget,
    level1_truncate_tool_outputs,
    level2_summarize_old_turns,
    level3_drop_middle,
)
from tiller.context.tokens import content_tokens, estimate_tokens, message_tokens, total_tokens
from tiller.truncation import truncate_head_tail

__all__ = [
    "Compaction",
    "ContextConfig",
    "compact_messages",
    "content_tokens",
    "estimate_tokens",
    "keep_within_budget",
    "level1_truncate_tool_outputs",
    "level2_summarize_old_turns",
    "level3_drop_middle",
    "message_tokens",
    "total_tokens",
    "truncate_head_tail",
]
