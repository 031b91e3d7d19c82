"""ToolPolicy: allow/deny by name and by effect, first matching rule wins."""

from __future__ import annotations

import pytest

from tiller import tool
from tiller.tools.effects import ToolEffect, effect_of, supports_dry_run
from tiller.tools.policy import ToolPolicy, ToolPolicyDenied

READ, WRITE, EXTERNAL = ToolEffect.READ, ToolEffect.WRITE_LOCAL, ToolEffect.EXTERNAL


def test_no_rules_allow_everything() -> None:
    policy = ToolPolicy()
    assert all(policy.denial("x", e) is None for e in ToolEffect)


def test_deny_by_name_beats_everything() -> None:
    policy = ToolPolicy("p", allow={"shell"}, deny={"shell"}, allow_effects={"external"})
    assert policy.denial("shell", EXTERNAL) == "'shell' is on its deny list"


def test_allow_by_name_beats_a_denied_effect() -> None:
    policy = ToolPolicy("review", allow={"edit_file"}, deny_effects={"write_local"})
    assert policy.denial("edit_file", WRITE) is None
    reason = policy.denial("write_file", WRITE)
    assert reason == "'write_file' writes locally, and the policy denies tools that write locally"


def test_allow_effects_is_exhaustive() -> None:
    policy = ToolPolicy("read-only", allow_effects={"read"})
    assert policy.denial("read_file", READ) is None
    assert policy.denial("shell", EXTERNAL) == (
        "'shell' acts externally, and the policy allows only: read"
    )


def test_allow_names_alone_are_exhaustive() -> None:
    policy = ToolPolicy("two", allow={"read_file", "search"})
    assert policy.denial("search", READ) is None
    assert policy.denial("list_files", READ) == "'list_files' is not on its allow list"


def test_allow_names_and_effects_combine() -> None:
    policy = ToolPolicy("p", allow={"shell"}, allow_effects={"read"})
    assert policy.denial("shell", EXTERNAL) is None
    assert policy.denial("read_file", READ) is None
    assert policy.denial("write_file", WRITE) is not None


def test_deny_effects_leave_the_rest_allowed() -> None:
    policy = ToolPolicy("no-external", deny_effects={ToolEffect.EXTERNAL})
    assert policy.denial("write_file", WRITE) is None
    assert policy.denial("shell", EXTERNAL) is not None


def test_unknown_effect_names_are_rejected_when_the_policy_is_made() -> None:
    with pytest.raises(ValueError, match="'writes'"):
        ToolPolicy(deny_effects={"writes"})


def test_undeclared_tools_count_as_external() -> None:
    @tool
    def anything() -> str:
        """Does something."""
        return ""

    @tool(effect="read")
    def look() -> str:
        """Looks."""
        return ""

    assert effect_of(anything) is EXTERNAL
    assert effect_of(look) is READ
    assert not supports_dry_run(look)
    with pytest.raises(ToolPolicyDenied, match="tool policy 'read-only'"):
        ToolPolicy("read-only", allow_effects={"read"}).check(anything, "anything")
    ToolPolicy("read-only", allow_effects={"read"}).check(look, "look")
