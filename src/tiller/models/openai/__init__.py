"""OpenAI-protocol providers: Chat Completions (OpenAI and compatible servers) and Responses.

Nothing here imports the `openai` SDK until a model makes its first request.
"""

from tiller.models.openai.chat import OpenAIChatModel
from tiller.models.openai.presets import PRESETS, Preset
from tiller.models.openai.responses import OpenAIResponsesModel

__all__ = ["PRESETS", "OpenAIChatModel", "OpenAIResponsesModel", "Preset"]
