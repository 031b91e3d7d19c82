"""Whether a step's dry run shows a risk, so the step must not run unattended.

A step is risky when any of these rules holds (each gives a reason):

- **it deletes**: its tool's name is a deleting verb (delete, remove, rm, drop,
  truncate, unlink, purge, erase, wipe), its arguments hold a deleting command
  (`rm `, `rmdir `, `DROP `, `DELETE FROM`, `TRUNCATE `), or its dry run says it
  would delete or remove something;
- **it writes outside the declared outputs**: it writes locally and a path in its
  arguments matches none of `RiskRules.declared_outputs` (glob patterns; no
  patterns means any path may be written);
- **it acts outside the machine**: its tool's effect is `external`;
- **its change is large**: its dry run's diff changes more than
  `max_changed_lines` lines, or the text it would write is longer than that.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tiller.solve.plans import Step

DELETING_TOOL_WORDS = frozenset(
    {"delete", "remove", "rm", "drop", "truncate", "unlink", "purge", "erase", "wipe"}
)
DELETING_COMMAND = re.compile(r"\b(rm|rmdir)\s|\bDROP\s|\bDELETE\s+FROM\b|\bTRUNCATE\s", re.I)
DELETING_DRY_RUN = re.compile(r"\bwould\s+(delete|remove)\b", re.I)
PATH_ARGUMENTS = ("path", "file", "filename", "target", "destination", "output")
TEXT_ARGUMENTS = ("content", "text", "body", "new_text")


@dataclass(slots=True, frozen=True)
class RiskRules:
    declared_outputs: tuple[str, ...] = ()
    max_changed_lines: int = 200


def risks(step: Step, dry_run_text: str = "", rules: RiskRules = RiskRules()) -> list[str]:
    """Every reason the step is risky, in the order of the rules; [] when it is not."""
    reasons: list[str] = []
    arguments = step.arguments or {}
    if _deletes(step.tool or "", arguments, dry_run_text):
        reasons.append("it deletes something")
    outside = _paths_outside(step, arguments, rules.declared_outputs)
    if outside:
        reasons.append(f"it writes outside the declared outputs: {', '.join(outside)}")
    if step.effect == "external":
        reasons.append("it acts outside this machine")
    changed = max(_diff_lines(dry_run_text), _written_lines(arguments))
    if changed > rules.max_changed_lines:
        reasons.append(f"it changes {changed} lines (more than {rules.max_changed_lines})")
    return reasons


def _deletes(tool: str, arguments: dict[str, Any], dry_run_text: str) -> bool:
    words = set(re.split(r"[^a-z]+", tool.lower()))
    if words & DELETING_TOOL_WORDS:
        return True
    if any(DELETING_COMMAND.search(text) for text in _strings(arguments.values())):
        return True
    return bool(DELETING_DRY_RUN.search(dry_run_text))


def _paths_outside(step: Step, arguments: dict[str, Any], declared: tuple[str, ...]) -> list[str]:
    if step.effect != "write_local" or not declared:
        return []
    paths = [arguments[name] for name in PATH_ARGUMENTS if isinstance(arguments.get(name), str)]
    return [p for p in paths if not any(fnmatch.fnmatch(p, pattern) for pattern in declared)]


def _diff_lines(text: str) -> int:
    return sum(
        1 for line in text.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---"))
    )


def _written_lines(arguments: dict[str, Any]) -> int:
    texts = [arguments[name] for name in TEXT_ARGUMENTS if isinstance(arguments.get(name), str)]
    return max((len(text.splitlines()) for text in texts), default=0)


def _strings(values: Iterable[Any]) -> Iterable[str]:
    for value in values:
        if isinstance(value, str):
            yield value
        elif isinstance(value, list | tuple):
            yield from _strings(value)
        elif isinstance(value, dict):
            yield from _strings(value.values())
