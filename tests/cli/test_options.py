"""`--base-url` and `--api-key` on `tiller run` and `tiller chat`, run as real subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.cli_process import clean_env
from tests.servers.anthropic_api import AnthropicAPI, Reply, Text

URL = "http://127.0.0.1:9/v1"

# A `probe:NAME` provider whose model answers with the options its factory received.
WITH_PROBE = """
import sys
from tiller.models.registry import register_provider
from tiller.models.scripted import ScriptedModel

def probe(name, base_url=None, api_key=None):
    return ScriptedModel([f"{name} at {base_url} with {api_key}"], name=name)

register_provider("probe", probe)
sys.argv[0] = "tiller"
from tiller.cli import main
main()
"""


def tiller(*args: str, cwd: Path, stdin: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WITH_PROBE, *args],
        cwd=cwd,
        env=clean_env(env),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_run_passes_the_url_and_key_to_the_provider(tmp_path: Path) -> None:
    out = tiller("run", "hi", "-m", "probe:m1", "--base-url", URL, "--api-key", "k1", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"m1 at {URL} with k1"


def test_run_passes_them_to_the_default_model(tmp_path: Path) -> None:
    out = tiller("run", "hi", "--api-key", "k2", cwd=tmp_path, TILLER_MODEL="probe:m9")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "m9 at None with k2"


@pytest.mark.parametrize("command", ["run", "chat"])
@pytest.mark.parametrize("spec", ["scripted:s.json", "local:smollm2"])
def test_a_provider_without_options_refuses_them_in_one_line(
    tmp_path: Path, command: str, spec: str
) -> None:
    (tmp_path / "s.json").write_text(json.dumps(["never"]))
    prompt = ["hi"] if command == "run" else []
    out = tiller(command, *prompt, "-m", spec, "--base-url", URL, cwd=tmp_path)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1
    provider = spec.partition(":")[0]
    assert lines[0].startswith(f"error: {provider}: models take no options (got base_url)")
    assert "Traceback" not in out.stderr


def test_chat_keeps_the_options_for_models_of_their_provider(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text(json.dumps(["from the script"]))
    lines = "hi\n/model probe:m2\nhi\n/model scripted:s.json\nhi\n"
    out = tiller(
        "chat", "-m", "probe:m1", "--base-url", URL, "--api-key", "k", cwd=tmp_path, stdin=lines
    )
    assert out.returncode == 0, out.stderr
    assert f"m1 at {URL} with k" in out.stdout
    assert f"m2 at {URL} with k" in out.stdout  # /model on the same provider: same server
    assert "from the script" in out.stdout  # another provider: built without them
    assert "--base-url and --api-key given for probe: models do not apply to scripted:s.json" in (
        " ".join(out.stdout.split())
    )
    assert "error:" not in out.stderr


def test_the_options_are_in_the_help(tmp_path: Path) -> None:
    for command in ("run", "chat"):
        out = tiller(command, "--help", cwd=tmp_path)
        assert out.returncode == 0
        assert "--base-url" in out.stdout
        assert "--api-key" in out.stdout


@pytest.mark.parametrize(("key", "status"), [("right-key", 0), ("wrong-key", 1)])
def test_run_against_an_anthropic_server_given_by_url_and_key(
    tmp_path: Path, key: str, status: int
) -> None:
    api = AnthropicAPI(api_key="right-key")
    api.script(Reply([Text("Hello from the wire.")]))
    with api.serving() as server:
        out = tiller(
            "run",
            "hi",
            "--model",
            "anthropic:claude-sonnet-4-5",
            "--base-url",
            server.url,
            "--api-key",
            key,
            cwd=tmp_path,
        )
    assert out.returncode == status, out.stderr
    assert len(api.requests) == 1  # an auth failure is not retried
    assert api.requests[0].body["model"] == "claude-sonnet-4-5"
    if status == 0:
        assert out.stdout == "Hello from the wire.\n"
    else:
        errors = [x for x in out.stderr.splitlines() if x.startswith("error:")]
        assert len(errors) == 1
        assert errors[0].startswith("error: auth: anthropic: the API key was refused (HTTP 401")
