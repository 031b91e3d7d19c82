"""Money written in a request goes to the parameters that take money."""

from __future__ import annotations

from typing import Any

from tiller.models.local.argument_schema import argument_schema
from tiller.models.local.money import money_written, takes_money

FILL_UP: dict[str, Any] = {
    "type": "object",
    "properties": {
        "litres": {"type": "number", "description": "Litres of fuel put in"},
        "total_cost": {"type": "number", "description": "Amount paid in pounds"},
        "odometer_miles": {"type": "integer", "description": "Odometer reading"},
    },
    "required": ["litres"],
}


def test_money_is_written_with_a_sign_or_a_word() -> None:
    assert money_written("£61.30, and $5, €3 and 20 quid, 15 pounds") == [61.3, 5, 3, 20, 15]
    assert money_written("42.6 litres, odometer 58214") == []


def test_a_parameter_takes_money_when_its_words_say_a_cost_or_a_currency() -> None:
    assert takes_money("total_cost", {"type": "number"})
    assert takes_money("amount", {"type": "number", "description": "Total taken, in pounds"})
    assert not takes_money("litres", {"type": "number", "description": "Litres of fuel"})
    # A share of a budget is no amount of money.
    share = {"type": "integer", "description": "Warn when this percent of the budget is spent"}
    assert not takes_money("warn_at_percent", share)


def test_each_number_goes_to_the_parameter_its_money_unit_or_name_says() -> None:
    asked = "Just filled the Berlingo: 42.6 litres of diesel, £61.30, odometer says 58214."
    out = argument_schema(FILL_UP, asked)["properties"]
    assert out["litres"]["enum"] == [42.6]
    assert out["total_cost"]["enum"] == [61.3]
    assert out["odometer_miles"]["enum"] == [58214]


def test_without_a_parameter_for_money_every_number_stays_offered() -> None:
    schema = {"type": "object", "properties": {"amount": {"type": "number"}}, "required": []}
    out = argument_schema(schema, "my hotel costs 90 euros, or 4.5 a night")["properties"]
    assert out["amount"]["enum"] == [90, 4.5]
