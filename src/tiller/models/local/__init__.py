"""The local provider: GGUF chat models run in-process with llama.cpp (`local:smollm2`)."""

from tiller.models.local.model import LocalModel, local_model

__all__ = ["LocalModel", "local_model"]
