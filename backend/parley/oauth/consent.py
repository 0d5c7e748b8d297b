"""The authorize step between the client's redirect and the code: a pending request the
consent page shows to the signed-in person, and their decision.

A request is a row in `auth_challenges` found by its secret's digest (the secret travels only
in the consent page's URL), so any instance can show it and exactly one decision uses it.
Allowing makes the connected app (a person's grant to one client, acting as one agent) and a
one-time authorization code bound to the PKCE challenge, redirect URI and resource.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from mcp.server.auth.provider import construct_redirect_uri

from parley.accounts import store as accounts
from parley.accounts.hashing import digest, new_secret
from parley.auth import validate_agent_name
from parley.db import Database, retry_on_reconnect
from parley.errors import Forbidden, NotFound, ParleyError

from . import redirects, store

REQUEST_LIFETIME = timedelta(minutes=10)
CODE_LIFETIME = timedelta(minutes=5)
# A used code's row stays this long after it expires, so presenting it again is recognised
# as a replay (and revokes what it issued) rather than as an unknown code.
CODE_KEPT = timedelta(hours=1)


@dataclass(frozen=True, slots=True)
class Pending:
    client_id: str
    client_name: str
    client_host: str
    redirect_uri: str
    redirect_kind: redirects.Kind
    agent: str  # the name suggested for the agent the client will act as
    resource: str


def suggested_agent(client_name: str) -> str:
    """An agent name from the client's name ("Claude Code" → "claude-code")."""
    name = re.sub(r"[^a-z0-9_.@-]+", "-", client_name.lower()).strip("-.")[:64]
    return name or "mcp-client"


def client_host(client_id: str, redirect_uri: str) -> str:
    """What the consent page says the client is: the host of its metadata document's URL,
    else of its redirect URI (a registered client's id is ours, so it says nothing); never
    the user info of either (`http://claude.ai@127.0.0.1:8598/` is 127.0.0.1:8598)."""
    url = client_id if client_id.startswith(("https://", "http://")) else redirect_uri
    return redirects.host_of(url)


def checked_redirect(uri: str) -> redirects.Kind:
    """A stored request's redirect URI, checked again: one stored before the rules (or put
    there by anything but `/authorize`) is never shown as a choice nor redirected to."""
    try:
        return redirects.check(uri)
    except redirects.BadRedirect as exc:
        raise ParleyError(exc.description, code="invalid_redirect_uri") from exc


async def start(
    db: Database,
    *,
    client_id: str,
    client_name: str,
    redirect_uri: str,
    redirect_uri_explicit: bool,
    code_challenge: str,
    state: str | None,
    scopes: list[str],
    resource: str,
) -> str:
    """The pending request; returns its secret, for the consent page's URL."""
    secret = new_secret()
    data = {
        "client_id": client_id,
        "client_name": client_name,
        "redirect_uri": redirect_uri,
        "redirect_uri_explicit": redirect_uri_explicit,
        "code_challenge": code_challenge,
        "state": state,
        "scopes": scopes,
        "resource": resource,
    }
    async with db.transaction() as conn:
        await store.sweep(conn)
        await store.remember_request(
            conn, key=digest(secret).hex(), data=data, lifetime=REQUEST_LIFETIME
        )
    return secret


@retry_on_reconnect
async def _request(db: Database, secret: str) -> dict[str, Any]:
    async with db.connection() as conn:
        data = await store.request(conn, key=digest(secret).hex())
    if data is None:
        raise NotFound("This authorization request is unknown, used or expired; start again")
    return data


async def pending(db: Database, *, secret: str) -> Pending:
    data = await _request(db, secret)
    return Pending(
        client_id=data["client_id"],
        client_name=data["client_name"],
        client_host=client_host(data["client_id"], data["redirect_uri"]),
        redirect_uri=data["redirect_uri"],
        redirect_kind=checked_redirect(data["redirect_uri"]),
        agent=suggested_agent(data["client_name"]),
        resource=data["resource"],
    )


async def decide(
    db: Database, *, secret: str, user_id: str, allow: bool, agent: str | None, issuer: str
) -> str:
    """The person's answer; returns where to send their browser: the client's redirect URI
    with a code, or with `access_denied`. Re-allowing a client as the same agent replaces the
    earlier connection (its tokens stop working)."""
    if allow:
        agent = validate_agent_name(agent or "")
    async with db.transaction() as conn:
        data = await store.take_request(conn, key=digest(secret).hex())
        if data is None:
            raise NotFound("This authorization request is unknown, used or expired; start again")
        checked_redirect(data["redirect_uri"])
        if not allow:
            return construct_redirect_uri(
                data["redirect_uri"],
                error="access_denied",
                error_description="The person declined",
                state=data["state"],
                iss=issuer,
            )
        assert agent is not None  # validated above, as `allow`
        await store.delete_grants_for(
            conn, user_id=user_id, client_id=data["client_id"], agent=agent
        )
        if not await accounts.exists(conn, user_id=user_id):
            raise Forbidden("Sign in with an account to connect an app", code="account_required")
        grant_id = await store.insert_grant(
            conn,
            user_id=user_id,
            agent=agent,
            client_id=data["client_id"],
            client_name=data["client_name"],
        )
        code = new_secret()
        await store.remember_code(
            conn,
            key=digest(code).hex(),
            user_id=user_id,
            data={**data, "grant_id": grant_id, "used": False},
            lifetime=CODE_LIFETIME + CODE_KEPT,
        )
    return construct_redirect_uri(data["redirect_uri"], code=code, state=data["state"], iss=issuer)
