"""Keeps secrets that travel in URLs out of the access log, by where they sit rather than
route by route, so a route added later is covered as it is written:

- in a path, a string parameter other than the person's own id (`{user_id}`) is a secret:
  an invite's token, an emailed question link's, an OAuth authorization request's. Which
  positions those are is read from the app's own routes when it is built.
- in a query, a value is kept only when it is a number (`after`, `limit`, `wait`): a
  `?token=`, an OIDC callback's `code` and `state`, an OAuth client's `state`, an invite
  passed to sign-in, and any parameter not yet written are logged as `…`.
- in a path no route matches, a segment shaped like a token (22 or more base64url
  characters) is logged as `…`: a mistyped link (`/question-links//<token>`), or a link to the
  web UI opened at the API's own address by mistake (an email verification's `/verify-email/
  <token>`: the UI posts that token in a body, which is never logged).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from fastapi.routing import APIRoute, iter_route_contexts

HIDDEN = "…"
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
_PARAMETER = re.compile(r"\{([^}:]+)(?::[^}]*)?\}")
_PUBLIC_PARAMETERS = frozenset({"user_id"})
# 16 random bytes or more in base64url (`secrets.token_urlsafe`), by the look of it.
_TOKEN_SHAPED = re.compile(r"(?<![^/])[A-Za-z0-9_-]{22,}(?![^/])")


def _pattern(template: str, secret: set[str]) -> re.Pattern[str]:
    """A regex matching paths of `template` (any case, any run of slashes) whose groups are
    its secret parameters; with secrets, anything may follow (a trailing slash, more)."""
    parts: list[str] = []
    at = 0
    for match in _PARAMETER.finditer(template):
        parts.append(_literal(template[at : match.start()]))
        parts.append("([^/?]+)" if match.group(1) in secret else "[^/?]+")
        at = match.end()
    parts.append(_literal(template[at:]))
    end = "(?=[/?]|$)" if secret else "/?$"
    return re.compile("^" + "".join(parts) + end, re.IGNORECASE)


def _literal(text: str) -> str:
    return "/+".join(re.escape(piece) for piece in text.split("/"))


def route_paths(routes: Sequence[Any]) -> list[re.Pattern[str]]:
    """A pattern per path of the app's routes, those with a secret in them (a path parameter
    that is not a number, and not the person's id) first. Read from the routes themselves:
    building the OpenAPI document for this took a fifth of a server's start."""
    patterns: dict[str, re.Pattern[str]] = {}  # one per path, however many methods it has
    for context in iter_route_contexts(routes):  # through included routers, with their prefixes
        route = context.original_route
        if not isinstance(route, APIRoute) or context.path_format is None:
            continue  # a mount or a plain Starlette route: token-shaped segments only
        secret = {
            field.alias
            for field in route.dependant.path_params
            if field.alias not in _PUBLIC_PARAMETERS
            and field.field_info.annotation not in (int, float)
        }
        pattern = _pattern(context.path_format, secret)
        patterns.setdefault(pattern.pattern, pattern)
    return sorted(patterns.values(), key=lambda p: p.groups == 0)


def _query(query: str) -> str:
    pairs = []
    for pair in query.split("&"):
        name, sep, value = pair.partition("=")
        if not sep:  # a bare word is a value too
            name, value = "", name
        pairs.append(name + sep + (value if not value or _NUMBER.fullmatch(value) else HIDDEN))
    return "&".join(pairs)


def _path(path: str, patterns: list[re.Pattern[str]]) -> str:
    for pattern in patterns:
        match = pattern.match(path)
        if match is not None:
            for index in range(pattern.groups, 0, -1):
                start, end = match.span(index)
                path = path[:start] + HIDDEN + path[end:]
            return path
    return _TOKEN_SHAPED.sub(HIDDEN, path)


class RedactSecrets(logging.Filter):
    """For uvicorn's access logger, whose records carry the path (and query) as an
    argument. One per process, holding the paths of every app built in it."""

    def __init__(self) -> None:
        super().__init__()
        self.patterns: list[re.Pattern[str]] = []

    def redact(self, target: str) -> str:
        path, sep, query = target.partition("?")
        return _path(path, self.patterns) + sep + (_query(query) if sep else "")

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                self.redact(a) if isinstance(a, str) and a.startswith("/") else a
                for a in record.args
            )
        return True


def install_for(routes: Sequence[Any]) -> None:
    """Redact the access log of the app with these routes: one filter per process, holding
    the paths of every app built in it (tests and the bench make many)."""
    access = logging.getLogger("uvicorn.access")
    found = [f for f in access.filters if isinstance(f, RedactSecrets)]
    redactor = found[0] if found else RedactSecrets()
    if not found:
        access.addFilter(redactor)
    known = {p.pattern for p in redactor.patterns}
    fresh = [p for p in route_paths(routes) if p.pattern not in known]
    if fresh:
        redactor.patterns = sorted([*redactor.patterns, *fresh], key=lambda p: p.groups == 0)
