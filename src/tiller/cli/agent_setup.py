"""Building the `Agent` a command runs, from its command-line options."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tiller.errors import ConfigError
from tiller.models.defaults import default_model_spec

if TYPE_CHECKING:
    from tiller.agent import Agent
    from tiller.cli.tool_loading import ShellChoices
    from tiller.loop.hooks import BeforeToolHook
    from tiller.messages import Message
    from tiller.models.base import Model
    from tiller.tools.base import Tool


@dataclass(slots=True)
class AgentSetup:
    """Everything but the model and the history: kept when `/model` switches models.

    `model_options` (`--base-url`, `--api-key`) go to the provider of the model they
    were given with (`options_provider`), whichever of its models `/model` picks; a
    model of another provider is built without them: that URL and key are not its.
    """

    tools: list[Tool] = field(default_factory=list)
    system_prompt: str | None = None
    max_turns: int | None = None
    model_options: dict[str, Any] = field(default_factory=dict)
    options_provider: str = ""
    before_tool: BeforeToolHook | None = None  # asks before tools that change things

    @classmethod
    def from_options(
        cls,
        tool_specs: Sequence[str],
        system_prompt: str | None,
        max_turns: int | None,
        *,
        model_spec: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        builtin_names: Sequence[str] = (),
        workspace: str | None = None,
        shell: ShellChoices | None = None,
    ) -> AgentSetup:
        from tiller.cli.tool_loading import load_builtin_tools, load_tool

        if model_spec is not None and not model_spec.strip():
            raise ConfigError(
                "--model is empty: give PROVIDER:NAME (see `tiller models`), "
                "or leave --model out for the default model"
            )
        given = {"base_url": base_url, "api_key": api_key}
        options = {k: v for k, v in given.items() if v is not None}
        provider = provider_of(model_spec or default_model_spec()) if options else ""
        tools = [load_tool(t) for t in tool_specs]
        tools += load_builtin_tools(
            builtin_names, workspace, taken={t.name for t in tools}, shell=shell
        )
        return cls(tools, system_prompt, max_turns, options, provider)

    def options_for(self, spec: str) -> dict[str, Any]:
        """The model options that apply to the model string `spec`."""
        return self.model_options if provider_of(spec) == self.options_provider else {}

    def build(self, model: str | Model | None, history: Sequence[Message] = ()) -> Agent:
        """An agent on `model` (the default model when None) continuing `history`."""
        from tiller.agent import Agent
        from tiller.loop.limits import Limits
        from tiller.loop.options import Execution, Governance
        from tiller.models.registry import resolve_model

        model = model or default_model_spec()
        if isinstance(model, str) and (options := self.options_for(model)):
            model = resolve_model(model, **options)  # a ConfigError if it takes none
        return Agent(
            model,
            tools=self.tools,
            system_prompt=self.system_prompt,
            governance=Governance(before_tool_execution=self.before_tool),
            execution=Execution(limits=Limits(max_turns=self.max_turns)),
            history=history,
        )


def provider_of(spec: str) -> str:
    """The provider prefix of a model string (`"ollama"` for `"ollama:qwen3"`)."""
    return spec.partition(":")[0]
