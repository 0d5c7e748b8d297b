"""Text PostgreSQL can store. JSON can carry two things a `text` column refuses: NUL
(`\\u0000`) and a lone UTF-16 surrogate (`\\ud800`, which Python keeps as is and UTF-8 cannot
encode). Both are refused as invalid input before anything is stored, never left to fail
(a 500) on insert.

`clean` is the one validator every service runs on text a person, an agent or a model gives
it: trimmed, never empty, within its limit, storable."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from parley.errors import InvalidInput, TooLarge

# Said when such text reached PostgreSQL all the same (`parley.db`), where no field is known.
UNSTORABLE_MESSAGE = (
    "Text must not contain NUL characters (\\u0000) or unpaired UTF-16 surrogates (\\ud800-\\udfff)"
)


def unstorable(text: str) -> str | None:
    """Why `text` cannot be stored, or None when it can."""
    if "\x00" in text:
        return "must not contain NUL characters (\\u0000)"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "must not contain unpaired UTF-16 surrogates (\\ud800-\\udfff)"
    return None


Path = tuple[str | int, ...]


def unstorable_in(value: Any, at: Path = ()) -> Iterator[tuple[Path, str]]:
    """Every string in a parsed JSON value (object keys too, at any depth) that cannot be
    stored: where it is and why. A key is named escaped (`\\u0000`), so the error that
    names it can itself be written out."""
    if isinstance(value, str):
        problem = unstorable(value)
        if problem is not None:
            yield at, problem
    elif isinstance(value, dict):
        for key, item in value.items():
            name = key
            if isinstance(key, str) and (problem := unstorable(key)) is not None:
                name = json.dumps(key)[1:-1]
                yield (*at, name), f"an object key {problem}"
            yield from unstorable_in(item, (*at, name))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from unstorable_in(item, (*at, index))


NUL_SHOWN_AS = "\u2400"  # ␀
_UNPAIRED_SHOWN_AS = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")


def scrub(value: Any) -> Any:
    """The value (text, or JSON of it) made storable by showing what cannot be stored: NUL
    as ␀, a lone surrogate as U+FFFD. For text nobody typed, which is kept as it came, not
    refused: a command's output, a model's reply and its tool calls."""
    if isinstance(value, str):
        if "\x00" in value:
            value = value.replace("\x00", NUL_SHOWN_AS)
        if unstorable(value) is not None:  # a lone surrogate (a pair is one character)
            value = _SURROGATE.sub(_UNPAIRED_SHOWN_AS, value)
        return value
    if isinstance(value, dict):
        return {scrub(k): scrub(v) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


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


def clean(
    text: object,
    *,
    field: str,
    max_chars: int,
    label: str | None = None,
    one_line: bool = False,
    too_large: bool = False,
) -> str:
    """`text` trimmed (`one_line`: every run of whitespace one space), or InvalidInput naming
    `field` (shown as `label`) when it is empty or cannot be stored. Longer than `max_chars`
    is InvalidInput, or TooLarge (413) with `too_large`: a message body, not a name."""
    name = label or field
    if not isinstance(text, str):
        text = ""
    cleaned = " ".join(text.split()) if one_line else text.strip()
    if not cleaned:
        raise InvalidInput(f"{name} must not be empty", details=[{"field": field}])
    if len(cleaned) > max_chars:
        if too_large:
            raise TooLarge(f"{name} is longer than {max_chars} characters", limit=max_chars)
        raise InvalidInput(
            f"{name} must be at most {max_chars} characters", details=[{"field": field}]
        )
    return storable(cleaned, field=field, label=name)


def clean_message(text: object, *, max_chars: int) -> str:
    """A message body: the one rule for every mode's messages (too long is 413, not 422)."""
    return clean(text, field="message", label="Message", max_chars=max_chars, too_large=True)
