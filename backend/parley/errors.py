"""One error type for the whole service, mapped to HTTP in exactly one place (api/app.py)."""

from __future__ import annotations

from typing import Any


class ParleyError(Exception):
    """A failure the caller should see: a stable `code`, a human `message`, an HTTP status.

    Services raise it without knowing about HTTP; the API layer turns it into
    `{"error": {"code", "message", **extra}}` with `status`.
    """

    status = 400
    code = "bad_request"

    def __init__(
        self, message: str, *, code: str | None = None, status: int | None = None, **extra: Any
    ):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.extra = extra

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, **self.extra}}


class NotFound(ParleyError):
    status = 404
    code = "not_found"


class Unauthorized(ParleyError):
    status = 401
    code = "unauthorized"


class Forbidden(ParleyError):
    status = 403
    code = "forbidden"


class InvalidInput(ParleyError):
    status = 422
    code = "validation_error"


class TooLarge(ParleyError):
    status = 413
    code = "message_too_long"


class TurnInProgress(ParleyError):
    status = 409
    code = "turn_in_progress"


class WrongMode(ParleyError):
    """The conversation is of another kind than the request is for (`mode` says which)."""

    status = 409
    code = "wrong_conversation_mode"

    def __init__(self, message: str, *, mode: str, **extra: Any) -> None:
        super().__init__(message, mode=mode, **extra)
        self.mode = mode


class NothingToRetry(ParleyError):
    status = 409
    code = "nothing_to_retry"


class BranchMoved(ParleyError):
    """The message named is no longer on the branch the conversation shows: another tab
    switched, edited or regenerated first. Reload and try again."""

    status = 409
    code = "branch_moved"


class ModelFailed(ParleyError):
    status = 502
    code = "model_error"


class RateLimited(ParleyError):
    status = 429
    code = "rate_limited"


class DatabaseUnavailable(ParleyError):
    status = 503
    code = "database_unavailable"
