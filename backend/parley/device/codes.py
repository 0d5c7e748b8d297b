"""The codes of a device authorization, and what may be said about who asks.

A user code is typed by a person: 8 letters from RFC 8628's example alphabet (consonants
only, no vowels so no words, nothing that reads as another letter or a digit), shown as
`XXXX-XXXX` and read back in any case, with or without the dash or spaces. 20^8 ≈ 2.6e10
codes live at most ten minutes and guessing them is throttled like a password.
"""

from __future__ import annotations

import re
import secrets

from parley.errors import InvalidInput

ALPHABET = "BCDFGHJKLMNPQRSTVWXZ"
LENGTH = 8
CLIENT_ID = "parley-cli"  # the one client that may ask: Parley's own command, a public client
# What may ask, by the name the program gives: the page shows the name on the right, never
# text the program chose, so a code cannot be dressed up as something else.
APPLICATIONS = {"claude-code": "Claude Code"}
MACHINE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")
_SEPARATORS = re.compile(r"[\s-]+")


def new_user_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def shown(code: str) -> str:
    """`BCDFGHJK` as people read it: `BCDF-GHJK`."""
    return f"{code[:4]}-{code[4:]}"


def normalized(typed: str) -> str:
    """The code a person typed, as stored; anything that cannot be a code is refused before it
    is counted as a guess (it could match nothing)."""
    code = _SEPARATORS.sub("", typed[:64]).upper()
    if len(code) != LENGTH or any(c not in ALPHABET for c in code):
        raise InvalidInput(
            f"A code is {LENGTH} letters, like {shown(ALPHABET[:LENGTH])}",
            details=[{"field": "user_code"}],
        )
    return code


def checked_machine(machine: str) -> str:
    """A machine's name as a host name goes: letters, digits, '.', '_' and '-'."""
    if not MACHINE.fullmatch(machine):
        raise InvalidInput(
            "machine must be 1-63 letters, digits, '.', '_' or '-', starting with a letter or"
            " digit",
            details=[{"field": "machine"}],
        )
    return machine
