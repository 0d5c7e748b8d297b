"""Which redirect URIs an OAuth client may have, and when a requested one is a registered one.

A redirect URI is where the person's browser is sent with an authorization code, so it is a
navigation the authorization server makes on the person's behalf: a `javascript:` or `data:`
URI would run the client's script in the web UI's origin. Only three shapes are accepted
(RFC 9700 §2.1 and §4.1, RFC 8252 §7 and §8.3):

- `https://host[:port]/path[?query]`: a web client;
- `http://` to a loopback address, `127.0.0.1`, `[::1]` or `localhost`, on any port: a program
  on the person's own computer (RFC 8252 §7.3). `localhost` is NOT RECOMMENDED there (§8.3),
  but Claude Code's metadata document lists `http://localhost/callback` and the MCP SDKs'
  examples register `http://localhost:<port>/callback`, so the exact name is kept;
- a private-use scheme in reverse-DNS form, `com.example.app:/callback` (§7.1): the scheme has
  a dot, which no browser-executed scheme (`javascript:`, `data:`, `blob:`, ...) has.

Nothing else: no user info (`https://claude.ai@evil.example/` shows one host and goes to
another), no fragment, no whitespace or control character anywhere (browsers drop tabs and
newlines, so `java\\tscript:` would become `javascript:`), no backslash, no percent-encoding or
capitals in the scheme, and only the URI's normal form (the one the URL parser gives back), so
that what is registered, what is compared and where the browser goes are one string.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import AnyUrl, ValidationError

Kind = Literal["web", "loopback", "native"]

MAX_LENGTH = 2000
LOOPBACK_HOSTS = ("127.0.0.1", "[::1]", "localhost")
RULE = (
    "use https, http to a loopback address (127.0.0.1, [::1] or localhost), or an app's"
    " private-use scheme in reverse-DNS form (com.example.app:/callback)"
)
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*")
_PRIVATE_USE = re.compile(r"[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)+")
_PORT = re.compile(r"[1-9][0-9]{0,4}")
_LABEL = r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"
_HOST = re.compile(rf"(?:{_LABEL}\.)*{_LABEL}|\[[0-9a-f:.]+\]")
# RFC 3986 path-abempty and query, percent-encoding well formed; no fragment.
_PCHAR = r"[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2}"
_PATH_QUERY = re.compile(rf"(?:/(?:{_PCHAR})*)?(?:\?(?:{_PCHAR}|\?)*)?")


class BadRedirect(ValueError):
    """A redirect URI that is refused, with the reason in words a client developer reads."""

    def __init__(self, uri: object, reason: str) -> None:
        shown = repr(uri)[:120]
        super().__init__(f"Redirect URI {shown} is not allowed: {reason}")
        self.description = str(self)


def _authority(uri: str, rest: str) -> tuple[str, str, str]:
    """Host, port and path-and-query after `scheme:`, which must start with `//host`."""
    if not rest.startswith("//"):
        raise BadRedirect(uri, "it needs a host (scheme://host/path)")
    end = len(rest)
    for stop in "/?":
        at = rest.find(stop, 2)
        if at != -1:
            end = min(end, at)
    authority, path = rest[2:end], rest[end:]
    if "@" in authority:
        raise BadRedirect(uri, "it must not contain user info (user@host)")
    if authority.startswith("["):
        host, _, port = authority.partition("]")
        host += "]"
        if port and not port.startswith(":"):
            raise BadRedirect(uri, "its host is malformed")
        port = port[1:]
    else:
        host, _, port = authority.partition(":")
    if not host or host == "[]":
        raise BadRedirect(uri, "it needs a host")
    if not _HOST.fullmatch(host):
        raise BadRedirect(uri, "its host must be a lowercase name or an IP address")
    if port and (not _PORT.fullmatch(port) or int(port) > 65535):
        raise BadRedirect(uri, "its port is not a number from 1 to 65535")
    return host, port, path


def check(uri: object) -> Kind:
    """The kind of an acceptable redirect URI; `BadRedirect` says why one is not."""
    if not isinstance(uri, str) or not uri:
        raise BadRedirect(uri, "it must be a non-empty string")
    if len(uri) > MAX_LENGTH:
        raise BadRedirect(uri, f"it is longer than {MAX_LENGTH} characters")
    if any(not "!" <= c <= "~" for c in uri):
        raise BadRedirect(
            uri, "it contains whitespace, a control character or a non-ASCII character"
        )
    if "\\" in uri:
        raise BadRedirect(uri, "it contains a backslash")
    if "#" in uri:
        raise BadRedirect(uri, "it must not have a fragment (#)")
    scheme, colon, rest = uri.partition(":")
    if not colon or not _SCHEME.fullmatch(scheme):
        if colon and _SCHEME.fullmatch(scheme.lower()):
            raise BadRedirect(uri, "write its scheme in lowercase")
        raise BadRedirect(uri, "it needs a scheme of plain letters (scheme:...)")
    kind: Kind
    if scheme == "https":
        kind = "web"
        _, _, path = _authority(uri, rest)
    elif scheme == "http":
        kind = "loopback"
        host, _, path = _authority(uri, rest)
        if host not in LOOPBACK_HOSTS:
            raise BadRedirect(uri, f"http is allowed only to a loopback address; {RULE}")
    elif _PRIVATE_USE.fullmatch(scheme):
        kind = "native"
        if not rest.startswith("/"):
            raise BadRedirect(uri, "write it as scheme:/path (com.example.app:/callback)")
        path = rest
        if rest.startswith("//"):
            _, _, path = _authority(uri, rest)
    else:
        raise BadRedirect(uri, f"the scheme {scheme}: is not allowed; {RULE}")
    if not _PATH_QUERY.fullmatch(path):
        raise BadRedirect(uri, "its path or query has a character that must be percent-encoded")
    try:
        normal = str(AnyUrl(uri))
    except ValidationError as exc:
        raise BadRedirect(uri, "it is not a valid URL") from exc
    if normal != uri:
        raise BadRedirect(uri, f"write it in its normal form, {normal}")
    return kind


def acceptable(uri: object) -> bool:
    try:
        check(uri)
    except BadRedirect:
        return False
    return True


def _without_port(uri: str) -> str:
    scheme, _, rest = uri.partition(":")
    host, _, path = _authority(uri, rest)
    return f"{scheme}://{host}{path}"


def matches(requested: str, registered: str) -> bool:
    """Exact string equality (RFC 9700 §4.1.3), except that a loopback redirect's port may
    differ (RFC 8252 §7.3): a native app listens on whatever port is free. Both URIs must be
    acceptable: a registered `javascript:` URI (stored before these rules) matches nothing."""
    if not acceptable(requested) or not acceptable(registered):
        return False
    if requested == registered:
        return True
    if check(requested) != "loopback" or check(registered) != "loopback":
        return False
    return _without_port(requested) == _without_port(registered)


def host_of(uri: str) -> str:
    """The host (and port) a person is shown for a URI: never its user info; for a
    private-use scheme, the scheme."""
    scheme, _, rest = uri.partition(":")
    if not rest.startswith("//"):
        return scheme if _PRIVATE_USE.fullmatch(scheme) else ""
    authority = rest[2:]
    for stop in "/?#\\":
        authority = authority.split(stop, 1)[0]
    return authority.rpartition("@")[2]


def form_target(uri: str) -> str:
    """Where a form answered by a redirect to `uri` leads, as the web UI's policy names it: the
    origin (`https://app.example`, `http://127.0.0.1:53682`), or `scheme:` for an app."""
    kind = check(uri)
    scheme = uri.partition(":")[0]
    if kind == "native":
        return f"{scheme}:"
    return f"{scheme}://{host_of(uri)}"
