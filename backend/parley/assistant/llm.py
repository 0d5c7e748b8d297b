"""Which model answers: the offline one, OpenAI, or any OpenAI-compatible server."""

from __future__ import annotations

from agents import OpenAIChatCompletionsModel, OpenAIResponsesModel, set_tracing_disabled
from agents.models.interface import Model
from openai import AsyncOpenAI

from parley.assistant.offline import OfflineModel
from parley.config import Settings

OFFLINE = "offline"


def resolve_model(settings: Settings, name: str | None = None) -> Model:
    """The model called `name` (the configured one by default) at the configured provider."""
    name = name or settings.model_name
    # Traces go to OpenAI's dashboard: only worth sending when the person has a key there.
    set_tracing_disabled(not settings.openai_api_key)
    if name == OFFLINE:
        return OfflineModel(delay=settings.model_delay)
    client = AsyncOpenAI(
        api_key=settings.openai_api_key or "not-needed",
        base_url=settings.openai_base_url,
    )
    if settings.openai_base_url:
        # Ollama, vLLM and llama.cpp speak Chat Completions, not the Responses API.
        return OpenAIChatCompletionsModel(model=name, openai_client=client)
    return OpenAIResponsesModel(model=name, openai_client=client)
