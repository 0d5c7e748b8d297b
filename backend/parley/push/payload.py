"""What a push says: the JSON the service worker decrypts and shows (version 1).

It says no more than the chat shows the person (the question's text, clipped; a permission
request's tool and what it wants to do), and it names the answer path, so the worker's
Allow/Deny (or Yes/No) buttons answer through the same route the UI uses, with the
person's own session; a permission request's "Always allow" posts to the route of the
card's "Always allow this" (`answer.paths.always`), which answers allow and makes the rule.
"""

from __future__ import annotations

import json
import re
from typing import Any

from parley.push.outbox import Claimed

TITLE_CHARS = 80
BODY_CHARS = 180
_YES_NO = re.compile(
    r"\b(yes or no|yes/no|\(y/n\))\b|^(should|shall|can|may|do|does|is|are|will|would)\b",
    re.IGNORECASE,
)


def clip(text: str | None, limit: int) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def is_yes_no(content: str, meta: dict[str, Any] | None) -> bool:
    """A question a Yes or a No answers: one that says so (`meta.choices` of yes and no),
    or a short closed question ("Should I deploy?")."""
    choices = (meta or {}).get("choices")
    if isinstance(choices, list):
        return sorted(str(c).lower() for c in choices) == ["no", "yes"]
    flat = content.strip()
    return len(flat) <= 200 and flat.endswith("?") and bool(_YES_NO.search(flat))


def tag(kind: str, ref: int) -> str:
    if kind in ("question", "reminder", "question_closed"):
        return f"parley-q-{ref}"
    return f"parley-run-{ref}" if kind == "run_failed" else f"parley-m-{ref}"


def _question(claimed: Claimed, base: dict[str, Any]) -> dict[str, Any]:
    meta = claimed.meta or {}
    permission = meta.get("permission")
    who = claimed.author or "An agent"
    if isinstance(permission, dict):
        tool = str(permission.get("tool") or permission.get("tool_name") or "a tool")
        title = f"{who} asks to use {tool}"
        # In this order: where a browser shows only two buttons (`Notification.maxActions`)
        # they are Allow and Deny, and "Always allow" is in the conversation's card.
        actions = [
            {"action": "allow", "title": "Allow"},
            {"action": "deny", "title": "Deny"},
            {"action": "always", "title": "Always allow"},
        ]
    else:
        title = f"{who} asks"
        yes_no = is_yes_no(claimed.content or "", meta)
        actions = (
            [{"action": "yes", "title": "Yes"}, {"action": "no", "title": "No"}] if yes_no else []
        )
    if claimed.kind == "reminder":
        title = "Still waiting: " + title
    path = f"/api/{claimed.user_id}/questions/{claimed.ref}/answer"
    routes: dict[str, Any] = {
        "path": path,
        "allow": {"decision": "allow"},
        "deny": {"decision": "deny"},
        "yes": {"text": "yes"},
        "no": {"text": "no"},
    }
    if isinstance(permission, dict):  # answers allow and makes the rule, in one request
        routes["always"] = {}
        routes["paths"] = {
            "always": f"/api/{claimed.user_id}/approval-rules/from-question/{claimed.ref}"
        }
    return base | {
        "title": clip(title, TITLE_CHARS),
        "body": clip(claimed.content, BODY_CHARS),
        "url": f"/c/{claimed.conversation_id}?question={claimed.ref}",
        "question_id": claimed.ref,
        "actions": actions,
        "answer": routes,
    }


_CLOSED_TITLES = {
    "answered": "Answered",
    "timed_out": "No answer in time",
    "closed": "No longer needed",
}


def build(claimed: Claimed) -> dict[str, Any]:
    base: dict[str, Any] = {
        "v": 1,
        "kind": "question" if claimed.kind == "reminder" else claimed.kind,
        "tag": tag(claimed.kind, claimed.ref),
        "user_id": claimed.user_id,
        "actions": [],
    }
    if claimed.kind in ("question", "reminder"):
        return _question(claimed, base)
    if claimed.kind == "question_closed":
        status = claimed.question_status or "closed"
        decided = (claimed.meta or {}).get("answer")
        body = clip(claimed.content, BODY_CHARS)
        return base | {
            "title": _CLOSED_TITLES.get(status, "Closed")
            + (f": {decided}" if status == "answered" and decided else ""),
            "body": body,
            "url": f"/c/{claimed.conversation_id}?question={claimed.ref}",
            "question_id": claimed.ref,
            "status": status,
        }
    if claimed.kind == "run_failed":
        return base | {
            "title": clip(f"{claimed.run_agent or 'An agent'}'s run failed", TITLE_CHARS),
            "body": clip(claimed.run_error or "The run failed.", BODY_CHARS),
            "url": f"/c/{claimed.conversation_id}" if claimed.conversation_id else "/",
            "run_id": claimed.ref,
        }
    return base | {
        "title": clip(f"{claimed.author or 'An agent'} wrote", TITLE_CHARS),
        "body": clip(claimed.content, BODY_CHARS),
        "url": f"/c/{claimed.conversation_id}?message={claimed.ref}",
        "message_id": claimed.ref,
    }


def encode(claimed: Claimed) -> bytes:
    return json.dumps(build(claimed), separators=(",", ":")).encode()
