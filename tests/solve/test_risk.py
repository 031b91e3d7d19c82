"""A dry run that shows a risk: deleting, writing outside the outputs, acting externally, big."""

from __future__ import annotations

from typing import Any

from tiller.solve.plans import Step
from tiller.solve.risk import RiskRules, risks


def step(tool: str, effect: str = "write_local", **arguments: Any) -> Step:
    return Step(1, "a step", tool=tool, arguments=arguments, effect=effect)


def test_deleting_by_tool_name_command_or_dry_run() -> None:
    assert risks(step("delete_order", order_id=3)) == ["it deletes something"]
    assert risks(step("shell", command="rm -rf build")) == ["it deletes something"]
    assert risks(step("sql", query="delete from orders where id=1")) == ["it deletes something"]
    assert risks(step("tidy"), "Would remove 3 stale files") == ["it deletes something"]
    assert risks(step("shell", command="ls -la")) == []
    assert risks(step("format_file", path="a.py")) == []  # "format" is not "rm"


def test_writing_outside_the_declared_outputs() -> None:
    rules = RiskRules(declared_outputs=("reports/*", "out.csv"))
    assert risks(step("write_file", path="reports/q3.md", content="x"), rules=rules) == []
    assert risks(step("write_file", path="out.csv", content="x"), rules=rules) == []
    assert risks(step("write_file", path="config.toml", content="x"), rules=rules) == [
        "it writes outside the declared outputs: config.toml"
    ]
    reading = step("read_file", effect="read", path="config.toml")
    assert risks(reading, rules=rules) == []
    assert risks(step("write_file", path="anything", content="x")) == []  # nothing declared


def test_external_effects_and_large_changes() -> None:
    assert risks(step("send_email", effect="external", to="a")) == ["it acts outside this machine"]
    diff = "--- a\n+++ b\n" + "-old\n+new\n" * 101
    assert risks(step("edit_file", path="a"), diff) == ["it changes 202 lines (more than 200)"]
    big = "\n".join(["line"] * 300)
    assert risks(step("write_file", path="a", content=big), rules=RiskRules(max_changed_lines=299))
    assert risks(step("edit_file", path="a"), "--- a\n+++ b\n-x\n+y\n") == []


def test_every_reason_is_given() -> None:
    reasons = risks(step("drop_table", effect="external", table="t"))
    assert reasons == ["it deletes something", "it acts outside this machine"]
