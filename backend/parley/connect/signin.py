"""Signing a terminal in as its person, the way `gh auth login` does: Parley's device
authorization (RFC 8628). Prints the code and where to enter it, then polls the token
endpoint as the server asks (its interval, 5 s longer after each `slow_down`) until the
person approves or denies in the web UI, or the code expires.

Plain (blocking) functions: this runs in a command-line process, never in the server."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

import httpx

CLIENT_ID = "parley-cli"
GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code"
TIMEOUT = httpx.Timeout(30.0)


class ConnectError(Exception):
    """What the person is told when connecting cannot go on (exit status 1)."""


@dataclass(frozen=True)
class Person:
    user_id: str
    token: str  # a bearer credential of the person themselves (not an agent's)


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise ConnectError(
            f"{response.request.url} answered {response.status_code} with something that is not"
            " Parley's JSON: is --url Parley's API?"
        )
    return body


def _described(body: dict[str, Any]) -> str:
    error = body.get("error")
    if isinstance(error, dict):  # Parley's API: {"error": {"code", "message"}}
        return str(error.get("message") or error.get("code"))
    return str(body.get("error_description") or error)


def device_sign_in(
    http: httpx.Client,
    *,
    machine: str,
    out: TextIO,
    sleep: Callable[[float], None] = time.sleep,
) -> str:
    """The person's token, once they approve this machine's code in the web UI."""
    form = {"client_id": CLIENT_ID, "application": "claude-code", "machine": machine}
    started = http.post("/oauth/device_authorization", data=form)
    body = _json(started)
    if started.status_code != 200:
        raise ConnectError(f"Parley refused to start signing in: {_described(body)}")
    page = body["verification_uri"]
    print(f"! First copy your one-time code: {body['user_code']}", file=out)
    print(f"  Then open {page} in a browser signed in to Parley and enter it,", file=out)
    print(f"  or open {body['verification_uri_complete']}", file=out)
    print("  Waiting for you to approve it…", file=out, flush=True)
    interval = float(body.get("interval", 5))
    deadline = time.monotonic() + float(body["expires_in"])
    while time.monotonic() < deadline:
        sleep(interval)
        polled = http.post(
            "/token",
            data={
                "grant_type": GRANT_TYPE,
                "device_code": body["device_code"],
                "client_id": CLIENT_ID,
            },
        )
        answer = _json(polled)
        if polled.status_code == 200:
            return str(answer["access_token"])
        error = answer.get("error")
        if error == "authorization_pending":
            continue
        if error == "slow_down":
            interval += 5
            continue
        if error == "access_denied":
            raise ConnectError("Denied in the web UI: nothing was changed")
        if error == "expired_token":
            break
        raise ConnectError(f"Signing in failed: {_described(answer)}")
    raise ConnectError("The code expired before it was approved: run the command again")


def who(http: httpx.Client, token: str) -> Person:
    """The person a token names; an agent's key is refused (it cannot make another key)."""
    r = http.get("/api/auth/me", headers={"Authorization": f"Bearer {token}"})
    body = _json(r)
    if r.status_code != 200:
        raise ConnectError(f"Parley refused the token: {_described(body)}")
    if body.get("agent"):
        raise ConnectError(
            "PARLEY_TOKEN is an agent's key: connecting needs the person's own token"
            " (or unset it and sign in with a code)"
        )
    return Person(user_id=str(body["user_id"]), token=token)


def create_key(http: httpx.Client, person: Person, *, agent: str) -> dict[str, Any]:
    r = http.post(
        f"/api/{person.user_id}/agent-keys",
        json={"agent": agent},
        headers={"Authorization": f"Bearer {person.token}"},
    )
    body = _json(r)
    if r.status_code != 201:
        raise ConnectError(f"Parley refused to make the agent key: {_described(body)}")
    return body


def revoke_key(http: httpx.Client, secret: str) -> None:
    """The key gives itself up (`/revoke`): no sign-in needed to disconnect."""
    r = http.post("/revoke", data={"token": secret, "client_id": CLIENT_ID})
    if r.status_code != 200:
        raise ConnectError(f"Parley refused to revoke the key: {_described(_json(r))}")
