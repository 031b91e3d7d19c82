"""The service's settings: defaults, a TOML file, environment variables, the command line.

Each setting has a default that starts a working server on this machine. Later sources
override earlier ones: the defaults, then the TOML file (`--config FILE` or
`TILLER_CONFIG`), then `TILLER_*` environment variables (`TILLER_PORT=9000`,
`TILLER_JWT_AUDIENCE=...`), then the command line. Everything is checked at start: a bad
value is one line naming the setting and what it allows (`SettingsError`).
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from tiller.errors import ConfigError
from tiller.store.locations import default_data_dir

CONFIG_ENV = "TILLER_CONFIG"
SECRET_SETTINGS = frozenset({"admin_key", "jwt_key", "encryption_keys"})


class SettingsError(ConfigError):
    """A setting with a value it does not allow, or a config file that cannot be read."""


class ServerSettings(BaseSettings):
    """What `tiller serve` runs with."""

    model_config = SettingsConfigDict(
        env_prefix="TILLER_", extra="forbid", frozen=True, toml_file=None
    )

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    # The SQLite file `tiller.db` and the sessions' workspaces live here.
    data_dir: Path = Field(default_factory=default_data_dir)
    # sqlite:///PATH or postgresql://USER:PASSWORD@HOST/DATABASE; None: tiller.db in data_dir.
    database: str | None = None
    # The first admin's API key; None: one is made and printed once, at the first start.
    admin_key: SecretStr | None = None
    # Fernet keys that seal sensitive sessions' data at rest, newest first (rotation:
    # put a new key in front, run `tiller db reseal`, then drop the old one).
    encryption_keys: tuple[SecretStr, ...] = ()
    # The model a session gets when it names none.
    model: str = "local:smollm2"
    # The tools sessions may ask for, by built-in name.
    tools: tuple[str, ...] = ("read_file", "list_files", "search")
    # Calls of these tools, and of tools with these effects, wait for a person's approval.
    approve_tools: tuple[str, ...] = ()
    approve_effects: tuple[Literal["read", "write_local", "external"], ...] = ("external",)
    # Bearer tokens from an identity provider: checked against these (all four needed).
    jwt_issuer: str | None = None
    jwt_audience: str | None = None
    jwt_algorithms: tuple[str, ...] = ("RS256",)
    jwt_key: SecretStr | None = None  # a PEM public key, or the shared secret for HS*
    # A session with no activity for this long is archived (its history compressed), and
    # an archive is deleted, with its session, once it is this old; checked this often.
    session_idle_s: float = Field(default=24 * 3600.0, gt=0)
    archive_retention_s: float = Field(default=30 * 24 * 3600.0, gt=0)
    cleanup_every_s: float = Field(default=600.0, gt=0)
    # Request bodies over this many bytes are refused (413).
    max_body_bytes: int = Field(default=2_000_000, ge=1_000, le=1_000_000_000)
    # Seconds a SIGTERM gives the runs to reach a saved point before the process exits.
    shutdown_grace_s: float = Field(default=20.0, ge=0, le=3600)
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    # Where traces go (an OTLP/HTTP endpoint); None: no tracing, at no cost.
    otlp_endpoint: str | None = None

    @field_validator("host")
    @classmethod
    def _host(cls, value: str) -> str:
        if not value.strip() or any(c.isspace() for c in value):
            raise ValueError("must be a host name or address, such as 127.0.0.1 or 0.0.0.0")
        return value

    @field_validator("tools")
    @classmethod
    def _tools(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        from tiller.tools.builtin import BUILTIN_TOOLS

        unknown = [name for name in value if name not in BUILTIN_TOOLS]
        if unknown:
            allowed = ", ".join(sorted(BUILTIN_TOOLS))
            raise ValueError(f"{', '.join(unknown)} is not a built-in tool (allowed: {allowed})")
        return value

    @property
    def keys(self) -> list[str]:
        """The encryption keys, as the store takes them."""
        return [key.get_secret_value() for key in self.encryption_keys]

    @property
    def jwt_enabled(self) -> bool:
        return None not in (self.jwt_issuer, self.jwt_audience, self.jwt_key)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # The file named by the class's `toml_file` (`load_settings` makes a class with it).
        return init_settings, env_settings, TomlConfigSettingsSource(settings_cls)


def load_settings(config_file: Path | None = None, **given: Any) -> ServerSettings:
    """The settings from `config_file` (else `$TILLER_CONFIG`), the environment, and
    `given` (the command line's; None values are left out). `SettingsError` names the
    first setting that is wrong and what it allows."""
    path = config_file or (Path(os.environ[CONFIG_ENV]) if os.environ.get(CONFIG_ENV) else None)
    settings_class = ServerSettings
    if path is not None:
        _check_config_file(path)

        class FromFile(ServerSettings):
            model_config = SettingsConfigDict(toml_file=path)

        settings_class = FromFile
    try:
        return settings_class(**{k: v for k, v in given.items() if v is not None})
    except ValidationError as exc:
        raise SettingsError(_one_line(exc, path)) from None


def _check_config_file(path: Path) -> None:
    try:
        tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SettingsError(f"cannot read the config file {path}: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError(f"the config file {path} is not valid TOML: {exc}") from None


def _one_line(exc: ValidationError, path: Path | None) -> str:
    error = exc.errors()[0]
    name = ".".join(str(part) for part in error["loc"]) or "settings"
    if error["type"] == "extra_forbidden":
        known = ", ".join(sorted(ServerSettings.model_fields))
        where = f" in {path}" if path is not None else ""
        return f"unknown setting {name!r}{where} (known: {known})"
    message = str(error["msg"]).removeprefix("Value error, ")
    shown = "" if name in SECRET_SETTINGS else f" (got {error.get('input')!r})"
    env = f"TILLER_{name.upper()}"
    return f"setting {name} ({env}): {message}{shown}"
