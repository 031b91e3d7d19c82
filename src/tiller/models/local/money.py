"""Amounts of money a request writes, and the number parameters that take them.

"42.6 litres of diesel, £61.30, odometer says 58214" gives a tool for fill-ups three
numbers; a small model offered all three for each number parameter put the odometer
reading in the cost. An amount written as money ("£61.30", "20 quid", "$5") is the
value of a parameter that takes money (its name or description says a cost, a price,
an amount paid, pounds ...), and, when the tool has such a parameter, no other number
parameter's while another number is there for it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# An amount written as money: "£61.30", "$ 5", "€3", "20 quid", "15 pounds", "9.99 GBP".
_MONEY = re.compile(
    r"[£$€]\s?(\d+(?:,\d{3})*(?:\.\d+)?)|"
    r"(?<![\w.])(\d+(?:\.\d+)?)\s?(?:quid|pounds?|dollars?|euros?|pence|p|gbp|usd|eur|bucks)\b",
    re.I,
)
# Words of a parameter that takes money.
_TAKES_MONEY = re.compile(
    r"\b(?:cost|costs|price|prices|paid|pay|fee|fees|fare|charge|charged|spend|spent|pounds|"
    r"dollars|euros|money|budget|salary|wage|takings|taken|total)\b",
    re.I,
)


_A_SHARE = re.compile(r"\b(?:percent|percentage|pct)\b|%", re.I)


def money_written(request_text: str) -> list[float]:
    """The amounts the request writes as money, in order."""
    return [float((m[1] or m[2]).replace(",", "")) for m in _MONEY.finditer(request_text)]


def takes_money(name: str, schema: dict[str, Any]) -> bool:
    """Whether a number parameter takes an amount of money: "total_cost", "Total taken for
    the sale, in pounds"."""
    said = f"{name.replace('_', ' ')} {schema.get('description', '')}"
    # A share is no amount: "warn_at_percent", "Warn when this percent of the budget ...".
    return bool(_TAKES_MONEY.search(said)) and not _A_SHARE.search(said)


def numbers_by_money(
    name: str,
    schema: dict[str, Any],
    request_text: str,
    numbers: list[int | float],
    properties: Mapping[str, Any],
) -> list[int | float]:
    """`numbers` narrowed by the money the request writes: to the amounts for a parameter
    that takes money, and, when another of the tool's `properties` takes money, to the
    other numbers for one that takes none; never to nothing."""
    money = set(money_written(request_text))
    if not money:
        return numbers
    if takes_money(name, schema):
        amounts = [n for n in numbers if n in money]
        return amounts or numbers
    others = [n for n in numbers if n not in money]
    money_elsewhere = any(
        other != name
        and isinstance(value, dict)
        and value.get("type") in ("number", "integer")
        and takes_money(other, value)
        for other, value in properties.items()
    )
    return others if money_elsewhere and others else numbers
