"""Roles and what each may do: the permission matrix.

| permission | admin | operator | developer | viewer | what it allows |
|---|---|---|---|---|---|
| `sessions:read` | ✔ | ✔ | ✔ | ✔ | list and read one's own sessions, runs and events |
| `sessions:write` | ✔ | ✔ | ✔ | | create, change, delete one's own sessions; send, cancel, steer |
| `solves:read` | ✔ | ✔ | ✔ | ✔ | list and read one's own solves |
| `solves:write` | ✔ | ✔ | ✔ | | start, resume and cancel one's own solves |
| `approvals:decide` | ✔ | ✔ | ✔ | | decide the approvals of one's own runs and solves |
| `approvals:any` | ✔ | ✔ | | | list, read and decide every user's approvals |
| `keys:own` | ✔ | ✔ | ✔ | ✔ | list and revoke one's own API keys |
| `users:manage` | ✔ | | | | create users, change roles, issue and revoke anyone's keys |
| `audit:read` | ✔ | | | | read the audit trail |
| `metrics:read` | ✔ | ✔ | | | read `/metrics` |

Everything a user owns is theirs alone: another user's session, run or solve is
answered as not found (404), never as forbidden, so its existence is not revealed.
The one exception is the approvals queue for those with `approvals:any`, whose job is
to decide for others. A key's scopes narrow its user's role: a key scoped to
`sessions:read` can only read, whatever its user's role.
"""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    ADMIN = "admin"
    OPERATOR = "operator"
    DEVELOPER = "developer"
    VIEWER = "viewer"


class Permission(StrEnum):
    SESSIONS_READ = "sessions:read"
    SESSIONS_WRITE = "sessions:write"
    SOLVES_READ = "solves:read"
    SOLVES_WRITE = "solves:write"
    APPROVALS_DECIDE = "approvals:decide"
    APPROVALS_ANY = "approvals:any"
    KEYS_OWN = "keys:own"
    USERS_MANAGE = "users:manage"
    AUDIT_READ = "audit:read"
    METRICS_READ = "metrics:read"


_P = Permission
_USER = frozenset(
    {
        _P.SESSIONS_READ,
        _P.SESSIONS_WRITE,
        _P.SOLVES_READ,
        _P.SOLVES_WRITE,
        _P.APPROVALS_DECIDE,
        _P.KEYS_OWN,
    }
)

GRANTS: dict[Role, frozenset[Permission]] = {
    Role.ADMIN: frozenset(Permission),
    Role.OPERATOR: _USER | {_P.APPROVALS_ANY, _P.METRICS_READ},
    Role.DEVELOPER: _USER,
    Role.VIEWER: frozenset({_P.SESSIONS_READ, _P.SOLVES_READ, _P.KEYS_OWN}),
}


def permissions(role: Role | str, scopes: frozenset[str] | None = None) -> frozenset[Permission]:
    """What a user of `role` may do through a key with `scopes` (None: the whole role)."""
    granted = GRANTS[Role(role)]
    if scopes is None:
        return granted
    return frozenset(p for p in granted if p.value in scopes)
