"""The wire shapes of the model picker and of a person's instructions to the assistant."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from parley.assistant.catalog import MAX_NAME
from parley.assistant.choices import INSTRUCTIONS_MAX_CHARS
from parley.schemas import RequestBody, Text
from parley.stated import stated


class ModelsOut(BaseModel):
    models: list[str] = Field(
        description="What a conversation may choose: the configured model first, then the"
        " provider's (its GET /v1/models), and `offline` last"
    )
    default: str = Field(description="The configured model: a conversation's until one is chosen")
    provider_reachable: bool | None = Field(
        description="false when the provider's list could not be read (only the configured"
        " and offline models are listed); null when no provider is configured"
    )
    notice: str | None = Field(description="What a person should know about the list, if anything")


class ModelChoice(RequestBody):
    model: Annotated[Text, stated(maxLength=MAX_NAME)] | None = Field(
        description="One of GET /models' names; null: the configured model"
    )


class InstructionsIn(RequestBody):
    text: Annotated[Text, stated(maxLength=INSTRUCTIONS_MAX_CHARS)] = Field(
        description="Given to the assistant on every turn of yours; empty: none"
    )


class InstructionsOut(BaseModel):
    text: str
    max_chars: int = INSTRUCTIONS_MAX_CHARS
