from typing import Any

import pytest

from tiller.errors import ConfigError, UsageError
from tiller.models import ScriptedModel
from tiller.models.base import Model
from tiller.models.registry import _FACTORIES, register_provider, resolve_model


def test_options_reach_the_factory() -> None:
    seen: dict[str, Any] = {}

    def factory(name: str, **options: Any) -> Model:
        seen.update(options, name=name)
        return ScriptedModel([])

    register_provider("probe", factory)
    try:
        resolve_model("probe:m1", base_url="http://127.0.0.1:9/v1", api_key="k")
    finally:
        del _FACTORIES["probe"]
    assert seen == {"name": "m1", "base_url": "http://127.0.0.1:9/v1", "api_key": "k"}


@pytest.mark.parametrize("spec", ["local:smollm2", "scripted:whatever.json"])
def test_providers_without_options_refuse_them_clearly(spec: str) -> None:
    with pytest.raises(ConfigError, match="take no options"):
        resolve_model(spec, base_url="http://x")


def test_options_with_a_model_object_are_a_usage_error() -> None:
    with pytest.raises(UsageError):
        resolve_model(ScriptedModel([]), api_key="k")
