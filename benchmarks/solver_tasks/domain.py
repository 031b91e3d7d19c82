"""The shop: the small business domain the goal solver's benchmark works in (τ-bench style).

All state is plain data in one dict of tables, each a dict from key to record:

- `customers` (C-1 …), `products` (by SKU), `orders` (O-1001 …), `tickets` (T-1 …);
- `refunds` (R-1 …) and `outbox` (X-1 …): money paid back and everything that left
  the shop (emails, refunds at the payment provider, orders to the supplier);
- `files`: the workspace, path → text (reports, exports, config).

`Domain.fresh(seed_data)` makes a shop from such tables (copied), `snapshot()` returns
the state as plain data to compare, and `calls` lists every action that ran. With a
`path`, the shop lives in a JSON file too, saved after every action, so that a run
killed in one process can be resumed in another (`Domain.load(path)`).

The actions are Tiller tools (`Domain.tools()`), one per method named in `EFFECTS`:
reads only read; `write_local` actions change the database or the workspace, have a
dry run and prepare a rollback (the records they change, as they were); `external`
actions add to the outbox, have a dry run and cannot be undone. A dry run carries the
action out on a copy of the shop and describes what changed ("would change …",
"would delete …"); a call that would fail fails the same way. An action that breaks a
rule of the shop (cancelling a shipped order, refunding more than was paid) raises
`ToolError` and changes nothing.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tiller.errors import ToolError
from tiller.messages import TextContent, ToolResult
from tiller.tools import FunctionTool, ToolContext
from tiller.tools.rollback import Rollback

State = dict[str, dict[str, Any]]

TABLES = ("customers", "products", "orders", "refunds", "tickets", "files", "outbox")

# Every action of the shop, by tool name, with its declared effect.
EFFECTS: dict[str, str] = {
    "find_customers": "read",
    "get_customer": "read",
    "list_orders": "read",
    "get_order": "read",
    "list_products": "read",
    "get_product": "read",
    "list_tickets": "read",
    "get_ticket": "read",
    "list_files": "read",
    "read_file": "read",
    "list_outbox": "read",
    "cancel_order": "write_local",
    "update_order_address": "write_local",
    "add_stock": "write_local",
    "set_stock": "write_local",
    "set_price": "write_local",
    "update_customer_email": "write_local",
    "set_customer_tier": "write_local",
    "create_ticket": "write_local",
    "add_ticket_note": "write_local",
    "set_ticket_priority": "write_local",
    "close_ticket": "write_local",
    "write_file": "write_local",
    "delete_file": "write_local",
    "export_orders_csv": "write_local",
    "send_email": "external",
    "issue_refund": "external",
    "place_supplier_order": "external",
}

CSV_HEADER = ("order_id", "customer_id", "status", "total_cents", "refunded_cents")
TIERS = ("standard", "gold")
PRIORITIES = ("low", "normal", "high")


@dataclass(frozen=True, slots=True)
class Call:
    """One action that ran (not a dry run): its tool, its arguments, and whether it worked."""

    tool: str
    arguments: dict[str, Any]
    ok: bool


class Domain:
    """One shop. Its methods named in `EFFECTS` are the actions; `tools()` offers them."""

    def __init__(self, state: State, *, path: Path | None = None) -> None:
        self.state: State = {table: dict(state.get(table, {})) for table in TABLES}
        self.calls: list[Call] = []
        self.path = path  # when set, the shop is saved there after every action and undo

    @classmethod
    def fresh(
        cls, seed_data: Mapping[str, Mapping[str, Any]], *, path: Path | None = None
    ) -> Domain:
        """A shop holding a deep copy of `seed_data` (missing tables start empty); with
        `path`, kept in that JSON file from now on (for a run in another process, or one
        that is killed and resumed: `Domain.load(path)`)."""
        tables = {table: copy.deepcopy(dict(seed_data.get(table, {}))) for table in TABLES}
        domain = cls(tables, path=path)
        domain.save()
        return domain

    @classmethod
    def load(cls, path: Path) -> Domain:
        """The shop saved at `path`, with its calls, saving there again as it changes."""
        data = json.loads(path.read_text(encoding="utf-8"))
        domain = cls(data["state"], path=path)
        domain.calls = [Call(c["tool"], c["arguments"], c["ok"]) for c in data["calls"]]
        return domain

    def save(self) -> None:
        """Write the shop to its file, atomically (nothing to do without a path)."""
        if self.path is None:
            return
        calls = [{"tool": c.tool, "arguments": c.arguments, "ok": c.ok} for c in self.calls]
        partial = self.path.with_name(self.path.name + ".partial")
        partial.write_text(json.dumps({"state": self.state, "calls": calls}), encoding="utf-8")
        os.replace(partial, self.path)

    def snapshot(self) -> State:
        """The state as plain data (a deep copy): compare two with `==`."""
        return copy.deepcopy(self.state)

    def clone(self) -> Domain:
        """A copy that is not saved anywhere (what a dry run works on)."""
        return Domain(self.snapshot())

    def tools(self) -> list[ShopTool]:
        """The actions as tools bound to this shop."""
        kinds = {"read": ShopTool, "write_local": ReversibleTool, "external": PreviewedTool}
        return [kinds[effect](self, name) for name, effect in EFFECTS.items()]

    def run(self, tool: str, arguments: Mapping[str, Any]) -> str:
        """Carry out one action as its tool would (arguments checked against its schema),
        and record it in `calls`. Raises `ToolError` when the action fails."""
        if tool not in EFFECTS:
            raise ToolError(f"the shop has no action {tool!r}")
        kwargs = _schema(tool).validate(dict(arguments))
        try:
            answer: str = getattr(self, tool)(**kwargs)
        except ToolError:
            self.calls.append(Call(tool, dict(arguments), ok=False))
            self.save()
            raise
        self.calls.append(Call(tool, dict(arguments), ok=True))
        self.save()
        return answer

    # ── records ─────────────────────────────────────────────────────────────

    def _record(self, table: str, key: str, what: str) -> dict[str, Any]:
        record = self.state[table].get(key)
        if record is None:
            raise ToolError(f"no {what} {key!r}")
        result: dict[str, Any] = record
        return result

    def _next_id(self, table: str, prefix: str) -> str:
        return f"{prefix}-{len(self.state[table]) + 1}"

    def _matching(self, table: str, customer_id: str, status: str) -> list[dict[str, Any]]:
        """The table's records of one customer and/or with one status ("": any)."""
        return [
            r
            for r in self.state[table].values()
            if (not customer_id or r["customer_id"] == customer_id)
            and (not status or r["status"] == status)
        ]

    def _placed_order(self, order_id: str, doing: str) -> dict[str, Any]:
        order = self._record("orders", order_id, "order")
        if order["status"] != "placed":
            raise ToolError(f"cannot {doing} order {order_id}: it is {order['status']}")
        return order

    # ── reading ─────────────────────────────────────────────────────────────

    def find_customers(self, query: str) -> str:
        """Customers whose name or email contains the query (any case).

        Args:
            query: part of a name or an email address.
        """
        words = query.lower()
        found = [
            c
            for c in self.state["customers"].values()
            if words in c["name"].lower() or words in c["email"].lower()
        ]
        return _json(found)

    def get_customer(self, customer_id: str) -> str:
        """One customer's record.

        Args:
            customer_id: the customer's id, e.g. C-1.
        """
        return _json(self._record("customers", customer_id, "customer"))

    def list_orders(self, customer_id: str = "", status: str = "") -> str:
        """Orders, optionally only one customer's and/or only those with one status
        (placed, shipped, delivered, cancelled, refunded).

        Args:
            customer_id: only this customer's orders ("" for all).
            status: only orders with this status ("" for all).
        """
        return _json(self._matching("orders", customer_id, status))

    def get_order(self, order_id: str) -> str:
        """One order: its lines, total, amount refunded, status and delivery address.

        Args:
            order_id: the order's id, e.g. O-1001.
        """
        return _json(self._record("orders", order_id, "order"))

    def list_products(self) -> str:
        """Every product with its price (in cents) and stock."""
        return _json(list(self.state["products"].values()))

    def get_product(self, sku: str) -> str:
        """One product's record.

        Args:
            sku: the product's SKU, e.g. KB-01.
        """
        return _json(self._record("products", sku, "product"))

    def list_tickets(self, customer_id: str = "", status: str = "") -> str:
        """Support tickets, optionally only one customer's and/or with one status (open, closed).

        Args:
            customer_id: only this customer's tickets ("" for all).
            status: only tickets with this status ("" for all).
        """
        return _json(self._matching("tickets", customer_id, status))

    def get_ticket(self, ticket_id: str) -> str:
        """One support ticket with its notes.

        Args:
            ticket_id: the ticket's id, e.g. T-1.
        """
        return _json(self._record("tickets", ticket_id, "ticket"))

    def list_files(self, prefix: str = "") -> str:
        """The workspace's files whose path starts with the prefix, one per line.

        Args:
            prefix: e.g. "reports/" ("" for all).
        """
        return "\n".join(sorted(p for p in self.state["files"] if p.startswith(prefix)))

    def read_file(self, path: str) -> str:
        """A workspace file's text.

        Args:
            path: the file's path in the workspace, e.g. config/shop.toml.
        """
        text: str | None = self.state["files"].get(_checked_path(path))
        if text is None:
            raise ToolError(f"no file {path!r}")
        return text

    def list_outbox(self, kind: str = "") -> str:
        """What has left the shop: emails sent, refunds paid out, orders to the supplier.

        Args:
            kind: only entries of this kind: email, refund or supplier_order ("" for all).
        """
        return _json([e for e in self.state["outbox"].values() if not kind or e["kind"] == kind])

    # ── writing to the shop's database and workspace ────────────────────────

    def cancel_order(self, order_id: str, reason: str) -> str:
        """Cancel a placed order (not yet shipped, not yet charged); its items go back to stock.

        Args:
            order_id: the order to cancel.
            reason: why, for the record.
        """
        order = self._placed_order(order_id, "cancel")
        for line in order["lines"]:
            self._record("products", line["sku"], "product")["stock"] += line["quantity"]
        order["status"] = "cancelled"
        order["cancel_reason"] = reason
        return f"Order {order_id} cancelled; its items are back in stock."

    def update_order_address(self, order_id: str, address: str) -> str:
        """Change where a placed order will be delivered.

        Args:
            order_id: the order, which must not have shipped.
            address: the new delivery address.
        """
        order = self._placed_order(order_id, "change the address of")
        if not address.strip():
            raise ToolError("the address is empty")
        order["address"] = address
        return f"Order {order_id} will be delivered to {address}."

    def add_stock(self, sku: str, quantity: int) -> str:
        """Add units that arrived to a product's stock.

        Args:
            sku: the product.
            quantity: how many units arrived (at least 1).
        """
        if quantity < 1:
            raise ToolError("quantity must be at least 1")
        product = self._record("products", sku, "product")
        product["stock"] += quantity
        return f"{sku} stock is now {product['stock']}."

    def set_stock(self, sku: str, quantity: int) -> str:
        """Set a product's stock to a counted number (a stocktake correction).

        Args:
            sku: the product.
            quantity: the number of units counted (0 or more).
        """
        if quantity < 0:
            raise ToolError("stock cannot be negative")
        self._record("products", sku, "product")["stock"] = quantity
        return f"{sku} stock is now {quantity}."

    def set_price(self, sku: str, price_cents: int) -> str:
        """Set a product's price for future orders (orders already placed keep theirs).

        Args:
            sku: the product.
            price_cents: the new price in cents, e.g. 4900 for $49.00.
        """
        if price_cents < 1:
            raise ToolError("a price must be at least 1 cent")
        self._record("products", sku, "product")["price_cents"] = price_cents
        return f"{sku} now costs {price_cents} cents."

    def update_customer_email(self, customer_id: str, email: str) -> str:
        """Change a customer's email address.

        Args:
            customer_id: the customer.
            email: the new address.
        """
        if "@" not in email:
            raise ToolError(f"{email!r} is not an email address")
        self._record("customers", customer_id, "customer")["email"] = email
        return f"{customer_id}'s email is now {email}."

    def set_customer_tier(self, customer_id: str, tier: str) -> str:
        """Set a customer's loyalty tier.

        Args:
            customer_id: the customer.
            tier: standard or gold.
        """
        if tier not in TIERS:
            raise ToolError(f"tier must be one of {', '.join(TIERS)}")
        self._record("customers", customer_id, "customer")["tier"] = tier
        return f"{customer_id} is now {tier}."

    def create_ticket(self, customer_id: str, subject: str, order_id: str = "") -> str:
        """Open a support ticket for a customer.

        Args:
            customer_id: whose ticket it is.
            subject: what it is about.
            order_id: the order it concerns ("" for none).
        """
        self._record("customers", customer_id, "customer")
        if order_id:
            self._record("orders", order_id, "order")
        ticket_id = self._next_id("tickets", "T")
        self.state["tickets"][ticket_id] = {
            "id": ticket_id,
            "customer_id": customer_id,
            "subject": subject,
            "order_id": order_id,
            "status": "open",
            "priority": "normal",
            "notes": [],
            "resolution": "",
        }
        return f"Ticket {ticket_id} opened."

    def add_ticket_note(self, ticket_id: str, note: str) -> str:
        """Add a note to a ticket.

        Args:
            ticket_id: the ticket.
            note: the note's text.
        """
        if not note.strip():
            raise ToolError("the note is empty")
        self._record("tickets", ticket_id, "ticket")["notes"].append(note)
        return f"Note added to {ticket_id}."

    def set_ticket_priority(self, ticket_id: str, priority: str) -> str:
        """Set a ticket's priority.

        Args:
            ticket_id: the ticket.
            priority: low, normal or high.
        """
        if priority not in PRIORITIES:
            raise ToolError(f"priority must be one of {', '.join(PRIORITIES)}")
        self._record("tickets", ticket_id, "ticket")["priority"] = priority
        return f"{ticket_id} is now {priority} priority."

    def close_ticket(self, ticket_id: str, resolution: str) -> str:
        """Close an open ticket, saying how it was resolved.

        Args:
            ticket_id: the ticket.
            resolution: what was done.
        """
        ticket = self._record("tickets", ticket_id, "ticket")
        if ticket["status"] != "open":
            raise ToolError(f"ticket {ticket_id} is already {ticket['status']}")
        if not resolution.strip():
            raise ToolError("a ticket is closed with a resolution")
        ticket["status"] = "closed"
        ticket["resolution"] = resolution
        return f"{ticket_id} closed."

    def write_file(self, path: str, content: str) -> str:
        """Create or replace a workspace file.

        Args:
            path: the file's path in the workspace, e.g. reports/summary.md.
            content: the whole new text of the file.
        """
        self.state["files"][_checked_path(path)] = content
        return f"Wrote {path} ({len(content)} characters)."

    def delete_file(self, path: str) -> str:
        """Delete a workspace file.

        Args:
            path: the file's path in the workspace.
        """
        self.read_file(path)
        del self.state["files"][path]
        return f"Deleted {path}."

    def export_orders_csv(self, path: str, status: str = "") -> str:
        """Write orders to a CSV file in the workspace (order_id, customer_id, status,
        total_cents, refunded_cents), optionally only those with one status.

        Args:
            path: the CSV file to write, e.g. exports/orders.csv.
            status: only orders with this status ("" for all).
        """
        orders = [o for o in self.state["orders"].values() if not status or o["status"] == status]
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(CSV_HEADER)
        for o in orders:
            writer.writerow(
                [o["id"], o["customer_id"], o["status"], o["total_cents"], o["refunded_cents"]]
            )
        self.state["files"][_checked_path(path)] = out.getvalue()
        return f"Exported {len(orders)} orders to {path}."

    # ── acting outside the shop (recorded in the outbox) ────────────────────

    def _send(self, kind: str, **fields: Any) -> str:
        entry_id = self._next_id("outbox", "X")
        self.state["outbox"][entry_id] = {"id": entry_id, "kind": kind, **fields}
        return entry_id

    def send_email(self, to: str, subject: str, body: str) -> str:
        """Send an email.

        Args:
            to: the recipient's address.
            subject: the subject line.
            body: the message.
        """
        if "@" not in to:
            raise ToolError(f"{to!r} is not an email address")
        if not body.strip():
            raise ToolError("the email has no body")
        entry = self._send("email", to=to, subject=subject, body=body)
        return f"Email to {to} sent ({entry})."

    def issue_refund(self, order_id: str, amount_cents: int, reason: str) -> str:
        """Pay money back to the card an order was charged to (shipped or delivered orders).

        Args:
            order_id: the order.
            amount_cents: how much, in cents; at most what was paid and not yet refunded.
            reason: why, for the record.
        """
        order = self._record("orders", order_id, "order")
        if order["status"] not in ("shipped", "delivered"):
            raise ToolError(f"order {order_id} is {order['status']}: nothing was charged")
        left = order["total_cents"] - order["refunded_cents"]
        if not 1 <= amount_cents <= left:
            raise ToolError(f"a refund on {order_id} must be between 1 and {left} cents")
        refund_id = self._next_id("refunds", "R")
        self.state["refunds"][refund_id] = {
            "id": refund_id,
            "order_id": order_id,
            "amount_cents": amount_cents,
            "reason": reason,
        }
        order["refunded_cents"] += amount_cents
        if order["refunded_cents"] == order["total_cents"]:
            order["status"] = "refunded"
        entry = self._send("refund", order_id=order_id, amount_cents=amount_cents)
        return f"Refunded {amount_cents} cents on {order_id} ({refund_id}, {entry})."

    def place_supplier_order(self, sku: str, quantity: int) -> str:
        """Order units of a product from the supplier (stock rises when they arrive).

        Args:
            sku: the product.
            quantity: how many units (at least 1).
        """
        self._record("products", sku, "product")
        if quantity < 1:
            raise ToolError("quantity must be at least 1")
        entry = self._send("supplier_order", sku=sku, quantity=quantity)
        return f"Ordered {quantity} x {sku} from the supplier ({entry})."


# ── comparing states ─────────────────────────────────────────────────────────


@dataclass(frozen=True, slots=True)
class Change:
    table: str
    key: str
    before: Any  # None: the record did not exist
    after: Any  # None: the record was deleted

    @property
    def where(self) -> str:
        return f"{self.table}/{self.key}"

    def describe(self) -> str:
        if self.before is None:
            return f"would create {self.where}: {_short(self.after)}"
        if self.after is None:
            return f"would delete {self.where}"
        if isinstance(self.before, dict) and isinstance(self.after, dict):
            fields = sorted(set(self.before) | set(self.after))
            changed = [
                f"{f} {_short(self.before.get(f))} → {_short(self.after.get(f))}"
                for f in fields
                if self.before.get(f) != self.after.get(f)
            ]
            return f"would change {self.where}: {'; '.join(changed)}"
        return f"would change {self.where}: {_short(self.before)} → {_short(self.after)}"


def changes(before: State, after: State) -> list[Change]:
    """Every record that differs between two states, table by table, in key order."""
    found: list[Change] = []
    for table in TABLES:
        old, new = before.get(table, {}), after.get(table, {})
        for key in sorted(set(old) | set(new)):
            if old.get(key) != new.get(key):
                found.append(Change(table, key, old.get(key), new.get(key)))
    return found


# ── the tools ────────────────────────────────────────────────────────────────


class ShopTool:
    """One action of a shop as a Tiller tool (this class: the reading ones)."""

    timeout_s: float | None = None

    def __init__(self, domain: Domain, name: str) -> None:
        self.domain = domain
        self._name = name
        self.effect = EFFECTS[name]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._name!r})"

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return _schema(self._name).description

    @property
    def parameters(self) -> dict[str, Any]:
        return _schema(self._name).parameters

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return _text(self.domain.run(self._name, arguments))

    def _rehearse(self, arguments: dict[str, Any]) -> tuple[str, list[Change]]:
        """The action carried out on a copy of the shop: its answer and what it changed."""
        kwargs = _schema(self._name).validate(arguments)
        scratch = self.domain.clone()
        answer: str = getattr(scratch, self._name)(**kwargs)
        return answer, changes(self.domain.state, scratch.state)


class PreviewedTool(ShopTool):
    """An action that changes something: `dry_run` shows what, changing nothing (the
    external actions are these: they cannot be undone)."""

    async def dry_run(self, arguments: dict[str, Any]) -> ToolResult:
        answer, changed = self._rehearse(arguments)
        return _text("\n".join([f"Would: {answer}", *(c.describe() for c in changed)]))


class ReversibleTool(PreviewedTool):
    """A change to the shop's database or workspace: it has a dry run and a rollback."""

    async def prepare_rollback(self, arguments: dict[str, Any]) -> Rollback | None:
        _, changed = self._rehearse(arguments)
        if not changed:
            return None
        domain = self.domain
        saved = [(c.table, c.key, copy.deepcopy(c.before)) for c in changed]

        async def undo() -> None:
            for table, key, before in saved:
                if before is None:
                    domain.state[table].pop(key, None)
                else:
                    domain.state[table][key] = copy.deepcopy(before)
            domain.save()

        return Rollback(f"restore {', '.join(c.where for c in changed)}", undo)


# ── helpers ──────────────────────────────────────────────────────────────────

_SCHEMAS: dict[str, FunctionTool] = {}


def _schema(name: str) -> FunctionTool:
    """The action's arguments schema and validation, built once (from a method of an
    empty shop: the schema does not depend on the shop)."""
    schema = _SCHEMAS.get(name)
    if schema is None:
        method: Callable[..., str] = getattr(Domain({}), name)
        schema = _SCHEMAS[name] = FunctionTool(method, name=name, effect=EFFECTS[name])
    return schema


def _checked_path(path: str) -> str:
    if not path or path.startswith("/") or "\\" in path or ".." in path.split("/"):
        raise ToolError(f"{path!r} is not a path inside the workspace")
    return path


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _text(text: str) -> ToolResult:
    return ToolResult([TextContent(text)])


def _short(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    text = repr(text) if isinstance(value, str) else text
    return text if len(text) <= limit else text[: limit - 1] + "…"
