"""Text PostgreSQL can store. JSON can carry two things a `text` column refuses: NUL
(`\\u0000`) and a lone UTF-16 surrogate (`\\ud800`, which Python keeps as is and UTF-8 cannot
encode). Both are refused as invalid input before anything is stored, never left to fail
(a 500) on insert."""

from __future__ import annotations

from parley.errors import InvalidInput


def unstorable(text: str) -> str | None:
    """Why `text` cannot be stored, or None when it can."""
    if "\x00" in text:
        return "must not contain NUL characters (\\u0000)"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "must not contain unpaired UTF-16 surrogates (\\ud800-\\udfff)"
    return None


def storable(text: str, *, field: str, label: str | None = None) -> str:
    """`text` unchanged, or InvalidInput naming `field` (shown as `label`)."""
    problem = unstorable(text)
    if problem is not None:
        raise InvalidInput(f"{label or field} {problem}", details=[{"field": field}])
    return text


def storable_value(text: str) -> str:
    """For pydantic validators: the same rule as a ValueError (a 422 naming the field)."""
    problem = unstorable(text)
    if problem is not None:
        raise ValueError(problem)
    return text
