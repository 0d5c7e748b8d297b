"""Sign-in with the team's OpenID provider: authorization code flow with PKCE (S256), state
and nonce (Authlib's OAuth client), the ID token checked against the issuer's published keys
(joserfc, Authlib's JOSE library). A flow in flight is a one-use row bound to the browser
that started it by a second secret in a short-lived cookie, so a callback URL handed to
someone else signs nobody in."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

import httpx
from authlib.integrations.httpx_client import AsyncOAuth2Client
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from parley.config import Settings
from parley.db import Database
from parley.errors import ParleyError

from . import store_challenges
from .hashing import digest, new_secret
from .linking import OidcFailed, account_for

FLOW_SECONDS = 600
CLOCK_LEEWAY = 60  # seconds the provider's clock may be behind ours (auth_time)
METADATA_SECONDS = 300  # how long discovery and keys are reused before fetching again
INVITE_RE = re.compile(r"[A-Za-z0-9_-]{1,200}")  # what invites.new_secret makes
ALGORITHMS = ["RS256", "RS384", "RS512", "ES256", "ES384", "PS256", "EdDSA"]


class LinkFailed(ParleyError):
    """A link flow (started while signed in) that did not link: said in the workspace, not
    on the sign-in screen."""

    status = 409
    code = "sso_link_failed"


@dataclass(frozen=True, slots=True)
class Started:
    url: str  # the provider's authorization URL to send the browser to
    binder: str  # the browser's cookie value


@dataclass(frozen=True, slots=True)
class Finished:
    user_id: str
    next: str
    linked: bool = False  # a link flow: the browser is signed in already
    notice: str | None = None  # what the sign-in should tell the person (linking.NEW_ACCOUNT)


def redirect_uri(settings: Settings) -> str:
    return settings.oidc_redirect_url or f"{settings.web_origin}/api/auth/oidc/callback"


def safe_next(value: str | None) -> str:
    """Only a path on this site: never `//evil.example` or `https://…`."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return "/"
    if any(ord(c) < 0x20 or c == "\x7f" or 0xD800 <= ord(c) <= 0xDFFF for c in value):
        return "/"
    return value


class Provider:
    """The configured provider's metadata and keys, fetched on first use and kept a while."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._metadata: tuple[float, dict[str, Any]] | None = None
        self._keys: tuple[float, KeySet] | None = None

    def _client(self, **kwargs: Any) -> AsyncOAuth2Client:
        return AsyncOAuth2Client(
            client_id=self.settings.oidc_client_id,
            client_secret=self.settings.oidc_client_secret,
            scope="openid email profile",
            redirect_uri=redirect_uri(self.settings),
            code_challenge_method="S256",
            timeout=10,
            **kwargs,
        )

    async def metadata(self) -> dict[str, Any]:
        if self._metadata is None or time.monotonic() - self._metadata[0] > METADATA_SECONDS:
            issuer = (self.settings.oidc_issuer or "").rstrip("/")
            async with httpx.AsyncClient(timeout=10) as http:
                response = await http.get(f"{issuer}/.well-known/openid-configuration")
            response.raise_for_status()
            found = response.json()
            # Another server answering at that address must not pass as the provider (ASVS
            # 10.5.3, RFC 8414 §3.3): the metadata names exactly the issuer configured.
            named = found.get("issuer") if isinstance(found, dict) else None
            if named not in (issuer, self.settings.oidc_issuer):
                raise OidcFailed(
                    f"The provider's metadata names the issuer {named!r}, not PARLEY_OIDC_ISSUER",
                    code="oidc_issuer_mismatch",
                    status=502,
                )
            self._metadata = (time.monotonic(), found)
        return self._metadata[1]

    async def keys(self, *, refresh: bool = False) -> KeySet:
        if refresh or self._keys is None or time.monotonic() - self._keys[0] > METADATA_SECONDS:
            async with httpx.AsyncClient(timeout=10) as http:
                response = await http.get((await self.metadata())["jwks_uri"])
            response.raise_for_status()
            self._keys = (time.monotonic(), KeySet.import_key_set(response.json()))
        return self._keys[1]

    async def start(
        self,
        db: Database,
        *,
        next_path: str | None,
        invite: str | None,
        link_to: str | None = None,
        fresh: bool = False,
    ) -> Started:
        """A flow in flight. With `link_to` (the signed-in person's user id) it links the
        identity to that account instead of signing anybody in. `fresh`: the provider must
        authenticate the person now, not rely on a session of its own (`prompt=login`,
        `max_age=0`; the ID token's `auth_time` is checked): how a person who signs in only
        this way confirms it is them (accounts/reauth.py)."""
        state, nonce, verifier, binder = (new_secret() for _ in range(4))
        extra = {"prompt": "login", "max_age": "0"} if fresh else {}
        async with self._client() as client:
            url, _ = client.create_authorization_url(
                (await self.metadata())["authorization_endpoint"],
                state=state,
                nonce=nonce,
                code_verifier=verifier,
                **extra,
            )
        async with db.connection() as conn:
            await store_challenges.sweep(conn)
            await store_challenges.remember(
                conn,
                key=digest(state).hex(),
                purpose="oidc",
                data={
                    "nonce": nonce,
                    "verifier": verifier,
                    "binder": digest(binder).hex(),
                    "next": safe_next(next_path),
                    "invite": invite if invite and INVITE_RE.fullmatch(invite) else None,
                    "link_to": link_to,
                    "fresh_since": time.time() if fresh else None,
                },
                seconds=FLOW_SECONDS,
            )
        return Started(url=url, binder=binder)

    async def _claims(
        self, *, code: str, verifier: str, nonce: str, fresh_since: float | None = None
    ) -> dict[str, Any]:
        metadata = await self.metadata()
        async with self._client() as client:
            token = await client.fetch_token(
                metadata["token_endpoint"], code=code, code_verifier=verifier
            )
        id_token = token.get("id_token")
        if not isinstance(id_token, str):
            raise OidcFailed("The provider returned no ID token")
        try:
            try:
                decoded = jwt.decode(id_token, await self.keys(), algorithms=ALGORITHMS)
            except JoseError:  # the provider may have rotated its keys since
                decoded = jwt.decode(id_token, await self.keys(refresh=True), algorithms=ALGORITHMS)
            jwt.JWTClaimsRegistry(
                leeway=60,
                iss={"essential": True, "value": metadata["issuer"]},
                aud={"essential": True, "value": self.settings.oidc_client_id or ""},
                nonce={"essential": True, "value": nonce},
                sub={"essential": True},
                exp={"essential": True},
            ).validate(decoded.claims)
        except JoseError as exc:
            raise OidcFailed(f"The ID token is not valid: {exc.error}") from exc
        if fresh_since is not None:
            auth_time = decoded.claims.get("auth_time")
            if not isinstance(auth_time, int | float) or auth_time < fresh_since - CLOCK_LEEWAY:
                raise OidcFailed(
                    "The provider did not ask you to sign in again", code="oidc_not_fresh"
                )
        claims = dict(decoded.claims)
        # Providers may keep email and name out of the ID token (they are the userinfo
        # endpoint's); its answer counts only for the ID token's subject.
        endpoint, access = metadata.get("userinfo_endpoint"), token.get("access_token")
        if endpoint and access:
            async with httpx.AsyncClient(timeout=10) as http:
                response = await http.get(endpoint, headers={"Authorization": f"Bearer {access}"})
            if response.is_success:
                info = response.json()
                if isinstance(info, dict) and info.get("sub") == claims["sub"]:
                    claims = {**info, **claims}
        return claims

    async def finish(
        self,
        db: Database,
        *,
        code: str,
        state: str,
        binder: str | None,
        signup: str,
        signed_in: str | None = None,
    ) -> Finished:
        """`signed_in`: whom the browser's session cookie names (a link flow must still be
        that person's)."""
        if binder is None:
            raise OidcFailed("This sign-in was started in another browser")
        async with db.connection() as conn:
            # Bound to the browser that started it: another one's attempt uses nothing up.
            flow = await store_challenges.take_oidc(
                conn, key=digest(state).hex(), binder=digest(binder).hex()
            )
        if flow is None:
            raise OidcFailed("This sign-in expired, was already used or began elsewhere")
        link_to = flow.get("link_to")
        try:
            if link_to is not None and signed_in != link_to:
                raise OidcFailed(
                    "This browser is no longer signed in to the account that asked to link",
                    code="sso_link_signed_out",
                )
            claims = await self._claims(
                code=code,
                verifier=flow["verifier"],
                nonce=flow["nonce"],
                fresh_since=flow.get("fresh_since"),
            )
            issuer = (await self.metadata())["issuer"]
            resolved = await account_for(
                db,
                claims=claims,
                subject=f"{issuer}#{claims['sub']}",
                invite=flow.get("invite"),
                signup=signup,
                link_to=link_to,
            )
        except ParleyError as exc:
            if link_to is None:
                raise
            raise LinkFailed(exc.message, code=exc.code) from exc
        return Finished(
            user_id=resolved.user_id,
            next=flow["next"],
            linked=link_to is not None,
            notice=resolved.notice,
        )
