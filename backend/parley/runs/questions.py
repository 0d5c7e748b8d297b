"""Kept only for `work/session.py`, which another branch is rewriting: it still imports
`questions.close_unanswered` and `Decision` from here. Questions live in `parley.questions`;
once session.py imports them from there, this module goes."""

from __future__ import annotations

from parley.questions.store import close_unanswered
from parley.questions.words import Decision

__all__ = ["Decision", "close_unanswered"]
