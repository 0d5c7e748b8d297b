"""Who a credential names, checked on every request by every transport: a web session's
cookie, an agent key, a `parley token` JWT, or an OAuth access token of a connected app.

Each answer is one indexed query, remembered by this instance for at most
`credential_cache_seconds` (≤ 1 s): on a turn's hot path a credential costs a dict lookup,
and an ended session, a revoked key or token, or a disabled account is refused by every
instance within that staleness. What this instance itself revokes it forgets at once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

from parley.auth import Caller, verify_claims
from parley.db import Database, retry_on_reconnect
from parley.errors import ParleyError, Unauthorized

from . import keys, store_credentials
from .hashing import digest

Kind = Literal["session", "key", "token", "oauth"]

# A connected app's access token (`parley.oauth` issues them; checked here like any credential).
ACCESS_PREFIX = "po_parley_"


def is_access_token(token: str) -> bool:
    return token.startswith(ACCESS_PREFIX)


CACHE_MAX = 20_000  # entries; past it the cache starts over (one query per credential)


@dataclass(frozen=True, slots=True)
class Principal:
    """A verified credential: who acts (`caller`), and how they proved it."""

    caller: Caller
    kind: Kind
    is_admin: bool = False
    session_id: int | None = None  # the web session, for a cookie
    key_id: int | None = None  # the agent key, for a key
    # An OAuth access token is good for one resource (RFC 8707) until a time (epoch seconds).
    resource: str | None = None
    expires_at: float | None = None
    # When the person last proved who they are (epoch seconds): a web session is made by a
    # sign-in and a new sign-in makes a new one, so it is the session's start; a JWT's `iat`.
    authenticated_at: float | None = None

    @property
    def via(self) -> Literal["session", "bearer"]:
        return "session" if self.kind == "session" else "bearer"


class Credentials:
    """One per process (the app's lifespan, `parley mcp`)."""

    def __init__(
        self,
        db: Database,
        *,
        secret: str,
        cache_seconds: float,
        session_idle: timedelta = timedelta(days=7),
    ) -> None:
        self.db = db
        self.secret = secret
        self.cache_seconds = cache_seconds
        self.session_idle = session_idle
        self._cache: dict[tuple[str, bytes | str], tuple[float, Principal | ParleyError]] = {}

    def forget(self) -> None:
        """Something was revoked here: nothing remembered may outlive it on this instance."""
        self._cache.clear()

    async def session(self, cookie: str) -> Principal:
        return await self._cached(("session", digest(cookie)), lambda: self._session(cookie))

    async def bearer(self, token: str, *, resource: str | None = None) -> Principal:
        """An agent key (`pk_parley_…`), a `parley token` JWT, or an OAuth access token, which
        is good only where it is presented to the `resource` it was issued for (`/mcp`; REST
        and `parley mcp` pass none, so they refuse it)."""
        if keys.is_key(token):
            return await self._cached(("key", digest(token)), lambda: self._key(token))
        if is_access_token(token):
            found = await self._cached(("oauth", digest(token)), lambda: self._oauth(token))
            if found.resource != resource:
                raise Unauthorized(f"This token is for {found.resource} only")
            if found.expires_at is not None and time.time() >= found.expires_at:
                raise Unauthorized("This access token has expired; refresh it")
            return found
        verify_claims(secret=self.secret, token=token)  # expiry, on every use (cheap: cached)
        return await self._cached(("token", token), lambda: self._token(token))

    async def _cached(self, key: tuple[str, bytes | str], load: object) -> Principal:
        now = time.monotonic()
        hit = self._cache.get(key)
        if hit is None or now - hit[0] > self.cache_seconds:
            try:
                answer: Principal | ParleyError = await load()  # type: ignore[operator]
            except ParleyError as exc:
                if exc.status != 401:
                    raise  # the database is down, say: not an answer to remember
                answer = exc
            if len(self._cache) >= CACHE_MAX:
                self._cache.clear()
            self._cache[key] = (now, answer)
        else:
            answer = hit[1]
        if isinstance(answer, ParleyError):
            raise answer
        return answer

    @retry_on_reconnect
    async def _session(self, cookie: str) -> Principal:
        async with self.db.connection() as conn:
            row = await store_credentials.check_session(
                conn, token_hash=digest(cookie), idle=self.session_idle
            )
            if row is None or row.expired:
                raise Unauthorized("Your session has ended; sign in again")
            if row.disabled:
                raise Unauthorized("This account is disabled", code="account_disabled")
            if row.stale:
                await store_credentials.session_seen(conn, session_id=row.id)
        return Principal(
            Caller(row.user_id),
            "session",
            is_admin=row.is_admin,
            session_id=row.id,
            authenticated_at=float(row.authenticated),
        )

    @retry_on_reconnect
    async def _key(self, token: str) -> Principal:
        async with self.db.connection() as conn:
            row = await store_credentials.check_key(conn, secret_hash=digest(token))
            if row is None:
                raise Unauthorized("Unknown or revoked agent key")
            if row.expired:
                raise Unauthorized("This agent key has expired")
            if row.disabled:
                raise Unauthorized("This account is disabled", code="account_disabled")
            if row.stale:
                await store_credentials.key_used(conn, key_id=row.id)
        return Principal(Caller(row.user_id, row.agent), "key", key_id=row.id)

    @retry_on_reconnect
    async def _oauth(self, token: str) -> Principal:
        async with self.db.connection() as conn:
            row = await store_credentials.check_access(conn, token_hash=digest(token))
            if row is None:
                raise Unauthorized("Unknown or revoked access token")
            if row.disabled:
                raise Unauthorized("This account is disabled", code="account_disabled")
            if row.stale:
                await store_credentials.grant_used(conn, grant_id=row.id)
        return Principal(
            Caller(row.user_id, row.agent),
            "oauth",
            resource=row.resource,
            expires_at=float(row.expires),
        )

    @retry_on_reconnect
    async def _token(self, token: str) -> Principal:
        """The JWT's signature and expiry are checked by PyJWT (itself cached); its issue
        time against the account's revocation, and the account's state, here: so
        `parley user revoke-tokens` and disabling an account stop it."""
        caller, issued = verify_claims(secret=self.secret, token=token)
        async with self.db.connection() as conn:
            row = await store_credentials.check_account(conn, user_id=caller.user_id)
        if row is not None:
            if row.disabled:
                raise Unauthorized("This account is disabled", code="account_disabled")
            if row.revoked is not None and issued <= float(row.revoked):
                raise Unauthorized("This token has been revoked")
        is_admin = bool(row and row.is_admin) and caller.agent is None
        return Principal(caller, "token", is_admin=is_admin, authenticated_at=issued or None)
