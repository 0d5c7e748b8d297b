"""What a person's words decide about a permission request: typed or spoken replies
("yes", "no", "allow for this session"...), and the words each decision is shown as."""

from __future__ import annotations

import re
from enum import StrEnum


class Decision(StrEnum):
    """What a person decides about a permission request."""

    allow = "allow"
    allow_session = "allow_session"  # allow, and allow this tool for the rest of the session
    deny = "deny"


DECISION_TEXT = {
    Decision.allow: "Allow",
    Decision.allow_session: "Allow for this session",
    Decision.deny: "Deny",
}

_ALLOW_WORDS = re.compile(r"^(allow|yes|y|ok|okay|sure|approve|go ahead|do it)\b")
_SESSION_WORDS = re.compile(r"\b(always|for this session|for the session|every time)\b")
_DENY_WORDS = re.compile(r"^(deny|no|n|don'?t|do not|stop|reject|refuse|cancel)\b")


def parse_decision(text: str) -> Decision | None:
    """What a typed or spoken reply decides ("yes", "no", "allow for this session"...);
    None when it decides nothing (it is then an ordinary message)."""
    flat = " ".join(text.lower().strip(" .!").split())
    if _DENY_WORDS.match(flat):
        return Decision.deny
    if _ALLOW_WORDS.match(flat):
        return Decision.allow_session if _SESSION_WORDS.search(flat) else Decision.allow
    return None
