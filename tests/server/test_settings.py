"""Settings: defaults, a TOML file, TILLER_* variables, the command line; a bad value is
one line naming the setting and what it allows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tiller.server.settings import ServerSettings, SettingsError, load_settings


def test_the_defaults_serve_this_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TILLER_CONFIG", raising=False)
    settings = load_settings()
    assert (settings.host, settings.port) == ("127.0.0.1", 8000)
    assert settings.model == "local:smollm2"
    assert settings.database is None
    assert not settings.jwt_enabled


def test_later_sources_override_earlier_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "tiller.toml"
    config.write_text('port = 9001\nhost = "0.0.0.0"\ntools = ["read_file"]\n')
    assert load_settings(config).port == 9001
    monkeypatch.setenv("TILLER_PORT", "9100")
    settings = load_settings(config)
    assert (settings.port, settings.host, settings.tools) == (9100, "0.0.0.0", ("read_file",))
    assert load_settings(config, port=7000, host=None).port == 7000
    monkeypatch.setenv("TILLER_CONFIG", str(config))
    assert load_settings().host == "0.0.0.0"


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"port": 0}, "setting port (TILLER_PORT): Input should be greater than or equal to 1"),
        ({"tools": ["rm"]}, "setting tools (TILLER_TOOLS): rm is not a built-in tool"),
        ({"log_level": "loud"}, "setting log_level (TILLER_LOG_LEVEL): Input should be"),
        ({"host": "a b"}, "setting host (TILLER_HOST): must be a host name or address"),
        ({"shutdown_grace_s": -1}, "setting shutdown_grace_s (TILLER_SHUTDOWN_GRACE_S)"),
    ],
)
def test_a_bad_value_names_the_setting(given: dict[str, Any], message: str) -> None:
    with pytest.raises(SettingsError) as raised:
        load_settings(None, **given)
    assert str(raised.value).startswith(message)
    assert "\n" not in str(raised.value)


def test_a_bad_environment_value_and_a_bad_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TILLER_PORT", "eighty")
    with pytest.raises(SettingsError, match=r"setting port .*got 'eighty'"):
        load_settings()
    monkeypatch.delenv("TILLER_PORT")
    unknown = tmp_path / "unknown.toml"
    unknown.write_text("prot = 1\n")
    with pytest.raises(SettingsError, match=r"unknown setting 'prot' in .*unknown.toml \(known:"):
        load_settings(unknown)
    broken = tmp_path / "broken.toml"
    broken.write_text("port = \n")
    with pytest.raises(SettingsError, match="is not valid TOML"):
        load_settings(broken)
    with pytest.raises(SettingsError, match="cannot read the config file"):
        load_settings(tmp_path / "missing.toml")


def test_a_secret_is_never_repeated_in_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TILLER_JWT_KEY", "")
    with pytest.raises(SettingsError) as raised:
        load_settings(admin_key=["tlr_abc_not-a-string"])
    assert "tlr_abc" not in str(raised.value)
    assert str(raised.value).startswith("setting admin_key")


def test_settings_are_frozen() -> None:
    settings = ServerSettings()
    with pytest.raises(ValueError, match="frozen"):
        settings.port = 1
