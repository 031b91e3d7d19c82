"""The permission matrix in `tiller.server.permissions` is the one its table documents."""

from __future__ import annotations

import tiller.server.permissions as module
from tiller.server.permissions import GRANTS, Permission, Role, permissions


def documented_matrix() -> dict[Role, set[Permission]]:
    doc = module.__doc__ or ""
    rows = [line for line in doc.splitlines() if line.startswith("| `")]
    header = next(line for line in doc.splitlines() if line.startswith("| permission"))
    roles = [Role(cell.strip()) for cell in header.strip("|").split("|")[1:5]]
    matrix: dict[Role, set[Permission]] = {role: set() for role in roles}
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        permission = Permission(cells[0].strip("`"))
        for role, mark in zip(roles, cells[1:5], strict=True):
            if mark == "✔":
                matrix[role].add(permission)
    return matrix


def test_the_documented_table_is_the_matrix() -> None:
    assert documented_matrix() == {role: set(granted) for role, granted in GRANTS.items()}
    assert len([line for line in (module.__doc__ or "").splitlines() if line.startswith("| `")])
    assert set(GRANTS) == set(Role)


def test_scopes_narrow_a_role_and_never_widen_it() -> None:
    assert permissions("viewer", frozenset({"sessions:write", "sessions:read"})) == {
        Permission.SESSIONS_READ
    }
    assert permissions(Role.ADMIN, frozenset({"audit:read"})) == {Permission.AUDIT_READ}
    assert permissions(Role.DEVELOPER) == GRANTS[Role.DEVELOPER]
