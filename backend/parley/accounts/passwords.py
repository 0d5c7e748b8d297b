"""What a new password may be (OWASP ASVS 5, V6.2).

Any 8 to 1024 characters: no composition rules (a long phrase of plain words is a good
password), and the password is hashed exactly as typed (never trimmed or case-folded). What
is refused is what an attacker tries first:

- one of the most common passwords (`data/common-passwords.txt`: the 11,611 of 8 characters
  or more among the 30,000 most common, with its source and licence in its header), in any
  case, and such a password with digits, symbols or spaces only added before or after it;
- a password that is little but words anyone can guess here: "parley", the user id, the
  email and its local part, the operator's own (PARLEY_PASSWORD_WORDS: the team's, the
  company's name), and each of their parts split at spaces, `.`, `_`, `-`, `+` or `@`. Such
  a word may be part of a password, but what is left without it must still be a password:
  at least 8 letters or digits, and not a common one.

The words are documented in specs/security.md (ASVS 6.1.2). The same rules hold at sign-up,
at a password change and wherever else a password is set.

With PARLEY_BREACHED_PASSWORDS_URL (a Pwned Passwords range API, `https://api.pwnedpasswords.com/
range`), a new password is also looked up among passwords known from breaches (`breached`):
only the first 5 hex digits of its SHA-1 leave the server (k-anonymity), padded answers are
asked for, and a service that is down, slow or answers nonsense never stops anyone from
setting a password (it is logged).
"""

from __future__ import annotations

import hashlib
import logging
import re
import string
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import httpx

from parley.config import Settings
from parley.errors import InvalidInput

from .hashing import PASSWORD_MAX, PASSWORD_MIN

COMMON_FILE = Path(__file__).resolve().parent / "data" / "common-passwords.txt"
# Words every Parley knows: the product's own name.
BUILT_IN_WORDS = ("parley",)
WORD_MIN = 3  # shorter parts of a name ("al", "x") are no clue worth refusing over
_PARTS = re.compile(r"[\s._+@\-]+")
_SPACES = string.punctuation + string.whitespace
_AROUND = string.digits + _SPACES
ADDED_MAX = 4  # "2024", "!!", "#1": what people add to a common password to pass a check
BREACHED_TIMEOUT = 3.0  # seconds; past it the password is let through
BREACHED_MAX_BYTES = 1024 * 1024  # a padded range answer is ~30 KB

log = logging.getLogger(__name__)


class WeakPassword(InvalidInput):
    code = "weak_password"


@cache
def common() -> frozenset[str]:
    """The common passwords, lower-cased (read on first use: a command that sets no password
    never pays for it)."""
    lines = COMMON_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(line.lower() for line in lines if line and not line.startswith("#"))


def context_words(*, user_id: str, email: str | None, extra: Iterable[str] = ()) -> list[str]:
    """The words to refuse for this person, longest first (so a longer word is taken out
    before a shorter one inside it)."""
    names = [user_id, email.partition("@")[0] if email else ""]
    words = {w.lower() for w in (*BUILT_IN_WORDS, *extra, *names, email or "") if w}
    for word in list(words):
        words.update(_PARTS.split(word))
    return sorted((w for w in words if len(w) >= WORD_MIN), key=len, reverse=True)


def _is_common(lowered: str) -> bool:
    """A common password, alone or with spaces, symbols or digits added around it (any run
    of them, or up to ADDED_MAX of them at either end: "12345678" + "2024")."""
    core = lowered.strip(string.whitespace)
    candidates = {core}
    for added in (_SPACES, _AROUND):
        candidates.update((core.strip(added), core.rstrip(added), core.lstrip(added)))
    for n in range(1, ADDED_MAX + 1):
        if not any(c.isalpha() for c in core[-n:]):
            candidates.add(core[:-n])
        if not any(c.isalpha() for c in core[:n]):
            candidates.add(core[n:])
    return not candidates.isdisjoint(common())


def _letters_and_digits(text: str) -> str:
    return "".join(c for c in text if c.isalnum())


def check(
    password: object,
    *,
    user_id: str,
    email: str | None,
    extra_words: Iterable[str] = (),
    field: str = "password",
) -> str:
    """`password` if it may be set; else 422 (`validation_error` for its length,
    `weak_password` for what it is), naming `field`."""
    if not isinstance(password, str) or not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise InvalidInput(
            f"The password must be {PASSWORD_MIN} to {PASSWORD_MAX} characters",
            details=[{"field": field}],
        )
    lowered = password.lower()
    if _is_common(lowered):
        raise WeakPassword(
            "This is one of the most common passwords, which are tried first: choose another"
            " (a few unrelated words make a good one)",
            details=[{"field": field}],
        )
    words = context_words(user_id=user_id, email=email, extra=extra_words)
    rest = lowered
    for word in words:
        rest = rest.replace(word, " ")
    if rest != lowered:
        left = _letters_and_digits(rest)
        if len(left) < PASSWORD_MIN or left in common() or _is_common(rest):
            raise WeakPassword(
                "This password is mostly your user name, your email or the name of this"
                " service, which anyone can guess: choose another",
                details=[{"field": field}],
            )
    return password


async def breached(password: str, *, settings: Settings, field: str = "password") -> None:
    """422 `breached_password` if the configured Pwned Passwords range API lists `password`;
    nothing when it does not, when none is configured, or when it cannot say."""
    base = settings.breached_passwords_url.rstrip("/")
    if not base:
        return
    sha1 = hashlib.sha1(password.encode(), usedforsecurity=False).hexdigest().upper()
    prefix, suffix = sha1[:5], sha1[5:]
    try:
        async with (
            httpx.AsyncClient(timeout=BREACHED_TIMEOUT) as http,
            http.stream("GET", f"{base}/{prefix}", headers={"Add-Padding": "true"}) as answer,
        ):
            answer.raise_for_status()
            body = b""
            async for chunk in answer.aiter_bytes():
                body += chunk
                if len(body) > BREACHED_MAX_BYTES:
                    raise ValueError("answer too large")
    except (httpx.HTTPError, ValueError) as exc:
        log.warning("breached-password check skipped: %s unavailable (%s)", base, exc)
        return
    for line in body.decode("ascii", "replace").splitlines():
        found, _, count = line.strip().partition(":")
        if found.upper() == suffix and count.strip().isdigit() and int(count) > 0:
            raise WeakPassword(
                "This password appears in known data breaches, so attackers try it: choose another",
                code="breached_password",
                details=[{"field": field}],
            )
