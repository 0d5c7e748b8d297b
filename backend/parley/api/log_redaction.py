"""Keeps secrets that travel in URLs out of the access log: an invite's token and an OAuth
authorization request's (in their paths) and an OIDC callback's code and state (in its
query). An email verification link's token is in the web UI's path (`/verify-email/…`) and
then a POST body, so the API never logs it; the path is cut out here too, should such a link
ever reach the API's own address."""

from __future__ import annotations

import logging
import re

_INVITE = re.compile(r"(/api/auth/invites/|/api/oauth/requests/|/verify-email/)[^/?\s]+")
_CALLBACK = re.compile(r"(/api/auth/oidc/callback)\?\S*")


def redact(path: str) -> str:
    return _CALLBACK.sub(r"\1?…", _INVITE.sub(r"\1…", path))


class RedactSecrets(logging.Filter):
    """For uvicorn's access logger, whose records carry the path as an argument."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        return True


def install() -> None:
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, RedactSecrets) for f in access.filters):
        access.addFilter(RedactSecrets())
