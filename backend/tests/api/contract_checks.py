"""A schemathesis check (loaded through SCHEMATHESIS_HOOKS by test_schema_contract.py): a
request the schema accepts is never refused for its shape. Refusals that depend on what is
stored, on who asks or on the clock are the only 422s a schema-valid request may get; each is
named below with the reason JSON Schema cannot say it."""

from __future__ import annotations

import re
from typing import Any

import jsonschema
import schemathesis

# (what the server says, why the schema cannot say it)
NOT_SHAPE: list[tuple[str, str]] = [
    (r"^message_id must name a message of this conversation", "branches: which are stored"),
    (r"^That message is no longer on the branch", "branches: which branch is shown"),
    (r"^message_id \d+ is not a message of conversation", "read: which messages are stored"),
    (r"^reply_to (\d+ )?is not a (message|question)", "which messages are stored"),
    (r"^An answer replies to a question: give reply_to", "an agent's answer (who asks)"),
    (r"^Only agents ask questions", "a person's token (who asks)"),
    (r"^parent_run_id \d+ is not one of your runs", "which runs are stored"),
    (r"^decision answers a permission question", "what the stored question is"),
    (r"^Answer a permission question with", "what the stored question is"),
    (r"^A work conversation takes kind=message", "the conversation's mode (stored)"),
    (r"is not a work conversation$", "the conversation's mode (stored)"),
    (r"^At most \d+ agent keys", "how many keys are stored"),
    (
        r"^Not a rule Claude Code reads: ",
        "Claude Code's rule grammar (which tool takes which specifier, a path's segments, a"
        " host's labels, a known tool's case): approvals/patterns.py, not a pattern",
    ),
    (r"^A rule for every agent names no agent", "scope_value depends on scope (another field)"),
    (r"^scope_value is the agent's name", "scope_value depends on scope (another field)"),
    (r"^The machine's name", "scope_value depends on scope (another field)"),
    (r"^At most \d+ approval rules", "how many rules are stored"),
    (r"^expires_at is in the past", "the clock"),
    (r"^The passkey was not accepted", "the challenge the server stored"),
    (r"^That code is not right", "the authenticator app's stored secret and the clock"),
    (
        r"^credential is not a WebAuthn credential",
        "base64url-encoded JSON: JSON Schema only annotates encoded content",
    ),
    (r" is empty$", "an uploaded file: a raw body, which the schema only names as bytes"),
    (r" can't be attached: ", "what an uploaded file's bytes are (sniffed, not a pattern)"),
    (r"^The file is larger than ", "a raw body's length (PARLEY_MAX_ATTACHMENT_BYTES)"),
    (r"^The model answering here .* does not take images", "the stored attachment's kind"),
    (r"^Files can be attached to chat messages only", "the conversation's mode (stored)"),
    (
        r"^keys\.p256dh must be an uncompressed P-256 public key, a point on the curve",
        "a point on the curve: arithmetic, not a pattern (the schema states the encoding)",
    ),
]
_NOT_SHAPE = [re.compile(pattern) for pattern, _ in NOT_SHAPE]


def _accepts(part: Any, value: Any) -> bool:
    """Both readings agree the value is valid: schemathesis' (ECMA-262 patterns, but numbers
    as floats, so 2**63 + 190 passes a bound of 2**63) and Python's (exact numbers)."""
    exact = jsonschema.Draft202012Validator(part.validation_schema)
    return bool(part.is_valid(value)) and exact.is_valid(value)


def _valid(case: Any) -> bool:
    """Whether the case really is what the schema accepts (the generator can err); only such
    a case proves anything about the server."""
    operation = case.operation
    for body in operation.body:
        if body.media_type != "application/json":
            continue  # raw bytes (an attachment's upload): nothing for a schema to validate
        if body.media_type == case.media_type and not _accepts(body, case.body):
            return False
    for params, values in (
        (operation.query, case.query),
        (operation.path_parameters, case.path_parameters),
        (operation.headers, case.headers),
    ):
        for param in params:
            if values and param.name in values and not _accepts(param, values[param.name]):
                return False
    return True


@schemathesis.check
def refused_only_for_state(ctx: Any, response: Any, case: Any) -> bool | None:
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return None
    if response.status_code not in (400, 413, 422) or not _valid(case):
        return None
    try:
        error = response.json()["error"]
    except (ValueError, KeyError, TypeError):
        error = {"message": response.text}
    if any(p.search(str(error.get("message", ""))) for p in _NOT_SHAPE):
        return None
    status = response.status_code
    raise AssertionError(f"A request the schema accepts was refused: {status} {error}")
