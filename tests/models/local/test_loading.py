"""The embedded model's first load: announced to the UI, and interruptible.

Each test runs in a fresh process, where the model is not loaded yet (in this
process it is shared and loaded by earlier tests).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.cli.cli_process import clean_env

# Streams from a fresh LocalModel; the real load is gated so that SIGINT surely lands
# while it is under way (the gate opens when the stream sees its cancellation), then a
# second request must work as usual.
INTERRUPTED_DURING_LOAD = """
import asyncio, json, os, signal, threading
from tiller.messages import UserMessage
from tiller.models import ModelRequest, ModelSettings
from tiller.models.local import LocalModel, runtime

loading, gate = threading.Event(), threading.Event()
real_load = runtime._load

def gated_load(*args, **kwargs):
    loading.set()
    gate.wait(30)
    return real_load(*args, **kwargs)

runtime._load = gated_load
threading.Thread(
    target=lambda: loading.wait(30) and os.kill(os.getpid(), signal.SIGINT), daemon=True
).start()
request = ModelRequest([UserMessage.of("Say hi.")], settings=ModelSettings(max_tokens=8))
seen = []

async def first():
    try:
        async for item in LocalModel().stream(request):
            seen.append(getattr(item, "type", type(item).__name__))
    except asyncio.CancelledError:
        seen.append("cancelled")
        gate.set()
        raise

try:
    asyncio.run(first())
except KeyboardInterrupt:
    seen.append("KeyboardInterrupt")

async def second():
    return [item async for item in LocalModel().stream(request)]

last = asyncio.run(second())[-1]
print(json.dumps({"seen": seen, "loaded": runtime.is_loaded(LocalModel().path),
                  "stop": last.stop_reason, "out": last.usage.output_tokens}))
"""


def test_ctrl_c_during_the_load_ends_the_call_and_leaves_the_model_usable() -> None:
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_DURING_LOAD],
        capture_output=True,
        text=True,
        timeout=120,
        env=clean_env(),
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    # The UI was told the model was loading; the interrupt cancelled the call mid-load.
    assert report["seen"] == ["model_loading", "cancelled", "KeyboardInterrupt"]
    assert report["loaded"] is True
    assert report["stop"] in ("stop", "length")
    assert report["out"] > 0
    assert "Traceback" not in done.stderr


def test_ctrl_c_while_tiller_run_loads_the_model_is_one_line(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "tiller", "run", "Tell me a long story.", "--json"],
        cwd=tmp_path,
        env=clean_env({"TILLER_MODEL": "local:smollm2"}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    started = time.monotonic()
    types = []
    for line in process.stdout:
        types.append(json.loads(line)["type"])
        if types[-1] == "model_loading":
            os.kill(process.pid, signal.SIGINT)
            break
    _, err = process.communicate(timeout=60)
    assert "model_loading" in types
    assert process.returncode == 130
    assert err.strip().endswith("interrupted")
    assert "Traceback" not in err
    assert time.monotonic() - started < 60
