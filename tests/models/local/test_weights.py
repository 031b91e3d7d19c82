from __future__ import annotations

from pathlib import Path

import pytest

from tiller.errors import ConfigError
from tiller.models.local.weights import SMOLLM2_FILE, bundled_smollm2, checked_gguf


def test_the_bundled_model_is_found_in_the_installed_package() -> None:
    path = bundled_smollm2()
    assert path.name == SMOLLM2_FILE
    assert path.read_bytes()[:4] == b"GGUF"


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        checked_gguf(tmp_path / "nope.gguf")


def test_a_directory(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is a directory"):
        checked_gguf(tmp_path)


def test_a_corrupt_file(tmp_path: Path) -> None:
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"\x00\x01 not a model")
    with pytest.raises(ConfigError, match="not a GGUF model file"):
        checked_gguf(bad)


def test_a_truncated_gguf_is_a_clear_error(tmp_path: Path) -> None:
    from tiller.models.local import LocalModel

    truncated = tmp_path / "cut.gguf"
    truncated.write_bytes(bundled_smollm2().read_bytes()[:4096])
    model = LocalModel(truncated)
    with pytest.raises(ConfigError, match="could not load"):
        model.load()
