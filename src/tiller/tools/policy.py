"""`ToolPolicy`: which tools an agent may call, by name and by effect.

Rules, first match wins:

1. a name in `deny` is denied;
2. a name in `allow` is allowed;
3. an effect in `deny_effects` is denied;
4. an effect in `allow_effects` is allowed;
5. if `allow` or `allow_effects` is given, anything else is denied (allow lists
   are exhaustive);
6. otherwise allowed.

So `ToolPolicy("read-only", allow_effects={"read"})` allows reading tools only,
`ToolPolicy("no-shell", deny={"shell"})` everything but `shell`, and
`ToolPolicy("review", allow={"edit_file"}, deny_effects={"write_local", "external"})`
reads and edits but nothing else. A denied call becomes an error result naming
the policy; the tool does not run. Undeclared tools count as acting externally.

`all_of(a, b)` is the check a sub-agent runs under: a call must pass both.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeAlias

from tiller.errors import ToolError
from tiller.tools.effects import ToolEffect, effect_of


class ToolPolicyDenied(ToolError):
    """A call the agent's tool policy does not allow."""


@dataclass(slots=True, frozen=True, init=False)
class ToolPolicy:
    name: str
    allow: frozenset[str] | None
    deny: frozenset[str]
    allow_effects: frozenset[ToolEffect] | None
    deny_effects: frozenset[ToolEffect]

    def __init__(
        self,
        name: str = "tool policy",
        *,
        allow: Iterable[str] | None = None,
        deny: Iterable[str] = (),
        allow_effects: Iterable[ToolEffect | str] | None = None,
        deny_effects: Iterable[ToolEffect | str] = (),
    ) -> None:
        set_ = object.__setattr__  # frozen: assign once, here
        set_(self, "name", name)
        set_(self, "allow", None if allow is None else frozenset(allow))
        set_(self, "deny", frozenset(deny))
        set_(
            self,
            "allow_effects",
            None if allow_effects is None else frozenset(ToolEffect(e) for e in allow_effects),
        )
        set_(self, "deny_effects", frozenset(ToolEffect(e) for e in deny_effects))

    def denial(self, tool_name: str, effect: ToolEffect) -> str | None:
        """Why a call to `tool_name` (with `effect`) is denied, or None when it is allowed."""
        if tool_name in self.deny:
            return f"{tool_name!r} is on its deny list"
        if self.allow is not None and tool_name in self.allow:
            return None
        if effect in self.deny_effects:
            return (
                f"{tool_name!r} {effect.phrase}, and the policy denies tools that {_verb(effect)}"
            )
        if self.allow_effects is not None and effect not in self.allow_effects:
            allowed = ", ".join(sorted(e.value for e in self.allow_effects)) or "none"
            return f"{tool_name!r} {effect.phrase}, and the policy allows only: {allowed}"
        if self.allow is not None and self.allow_effects is None:
            return f"{tool_name!r} is not on its allow list"
        return None

    def check(self, tool: object, tool_name: str) -> None:
        """Raise `ToolPolicyDenied` (an error result for the model) if the call is denied."""
        reason = self.denial(tool_name, effect_of(tool))
        if reason is not None:
            raise ToolPolicyDenied(
                f"Tool call denied by tool policy {self.name!r}: {reason}. The tool was not "
                "run. Do not retry it; do the task with the tools the policy allows, or tell "
                "the user what you need permission for."
            )


def _verb(effect: ToolEffect) -> str:
    return {
        ToolEffect.READ: "read",
        ToolEffect.WRITE_LOCAL: "write locally",
        ToolEffect.EXTERNAL: "act externally",
    }[effect]


@dataclass(slots=True, frozen=True)
class AllPolicies:
    """Several policies that must each allow a call, checked in order."""

    policies: tuple[ToolPolicy, ...]

    def check(self, tool: object, tool_name: str) -> None:
        for policy in self.policies:
            policy.check(tool, tool_name)


ToolCheck: TypeAlias = ToolPolicy | AllPolicies


def all_of(*checks: ToolCheck | None) -> ToolCheck | None:
    """One check that passes a call only when every given one does (None: no rule)."""
    policies: list[ToolPolicy] = []
    for check in checks:
        if isinstance(check, AllPolicies):
            policies.extend(check.policies)
        elif check is not None:
            policies.append(check)
    if not policies:
        return None
    return policies[0] if len(policies) == 1 else AllPolicies(tuple(policies))
