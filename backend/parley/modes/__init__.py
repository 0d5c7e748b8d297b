"""Conversation modes: what each kind of conversation does with a person's message, how it
stops and ends, and the state it shows (specs/api.md, "Conversation modes")."""

from parley.modes.base import Limits, Mode, Parts, Posted, Turn
from parley.modes.registry import MODES, Modes

__all__ = ["MODES", "Limits", "Mode", "Modes", "Parts", "Posted", "Turn"]
