"""The models a conversation may be answered by: what the configured provider lists at
`GET /v1/models` (OpenAI, or any OpenAI-compatible server), the configured model, and the
offline model, always.

The provider's list is fetched with a short timeout and kept for a little while
(PARLEY_MODELS_CACHE_SECONDS), failures included: a provider that is down costs one
timeout per period, not one per request. When it cannot be reached, what is known (the
configured model and the offline one) is still offered, and the answer says so.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

import httpx
from agents.models.interface import Model

from parley.assistant.llm import OFFLINE, resolve_model
from parley.config import Settings

log = logging.getLogger(__name__)
OPENAI_API = "https://api.openai.com/v1"
MAX_NAME = 200  # a longer "model id" is not a model name anyone picks
MAX_LISTED = 500  # what the picker shows, at most (a provider may list thousands)
_KEPT_MODELS = 32  # model clients kept, one per name used


@dataclass(frozen=True)
class Offered:
    """The names a conversation may choose (the configured one first, offline last)."""

    models: list[str]
    default: str
    # None when no provider is configured (the offline model alone answers).
    provider_reachable: bool | None


def _names(body: Any) -> list[str]:
    """The model ids of a `GET /v1/models` answer; ValueError if it is not one."""
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        raise ValueError("no data list")
    names = (entry.get("id") for entry in data if isinstance(entry, dict))
    return sorted(
        {n for n in names if isinstance(n, str) and 0 < len(n) <= MAX_NAME and n.isprintable()}
    )[:MAX_LISTED]


class ModelCatalog:
    """One per process. `default` is the configured model (tests pass a scripted one)."""

    def __init__(self, settings: Settings, *, default: Model) -> None:
        self._settings = settings
        self._default = default
        self._listed: list[str] | None = None
        self._listed_at: float | None = None
        self._lock = asyncio.Lock()  # a burst of requests makes one call to the provider
        self._models: dict[str, Model] = {}

    @property
    def default_name(self) -> str:
        return self._settings.model_name

    @property
    def has_provider(self) -> bool:
        return bool(self._settings.openai_base_url or self._settings.openai_api_key)

    async def offered(self) -> Offered:
        known = list(dict.fromkeys([self.default_name, OFFLINE]))
        if not self.has_provider:
            return Offered(known, self.default_name, None)
        listed = await self._provider_names()
        if listed is None:
            return Offered(known, self.default_name, False)
        names = [self.default_name, *(n for n in listed if n != OFFLINE), OFFLINE]
        return Offered(list(dict.fromkeys(names)), self.default_name, True)

    async def _provider_names(self) -> list[str] | None:
        if self._fresh():
            return self._listed
        async with self._lock:
            if not self._fresh():  # another request may have fetched it while this one waited
                self._listed = await self._fetch()
                self._listed_at = asyncio.get_running_loop().time()
        return self._listed

    def _fresh(self) -> bool:
        if self._listed_at is None:
            return False
        age = asyncio.get_running_loop().time() - self._listed_at
        return age < self._settings.models_cache_seconds

    async def _fetch(self) -> list[str] | None:
        base = (self._settings.openai_base_url or OPENAI_API).rstrip("/")
        key = self._settings.openai_api_key
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        try:
            async with httpx.AsyncClient(
                timeout=self._settings.models_timeout, follow_redirects=False
            ) as client:
                response = await client.get(f"{base}/models", headers=headers)
                response.raise_for_status()
                return _names(response.json())
        except (httpx.HTTPError, ValueError) as exc:
            # The provider's own words stay in the log (they may echo the key's prefix).
            log.warning("the model provider's list could not be read: %r", type(exc).__name__)
            return None

    def model_for(self, name: str | None) -> tuple[str, Model]:
        """The model to answer with, and its name, for a conversation that chose `name`
        (None: the configured one). A choice the configuration can no longer serve (no
        provider any more) falls back to the configured model."""
        if name is None or name == self.default_name:
            return self.default_name, self._default
        if name != OFFLINE and not self.has_provider:
            return self.default_name, self._default
        model = self._models.get(name)
        if model is None:
            if len(self._models) >= _KEPT_MODELS:
                self._models.clear()
            model = self._models[name] = resolve_model(self._settings, name)
        return name, model
