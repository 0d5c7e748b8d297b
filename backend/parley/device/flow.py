"""The device authorization's steps, as the program and the person take them (no HTTP here:
`parley.oauth.device_grant` speaks RFC 8628's wire format, `api/routes_device` the web UI's).

Attacks this answers:
- guessing a user code (to see what a stranger's terminal asks, or to approve it as oneself,
  which would connect that terminal to the guesser's account): each code a person enters is a
  guess, counted before it is looked at, per person and per address, like a password
  (`accounts.throttle`, under keys of its own); codes live ten minutes.
- a stolen or left-open session approving a device of its own: approving needs a sign-in from
  the last PARLEY_REAUTH_MINUTES, in the web UI (a cookie, from the web UI's origin), never a
  bearer token (a device's own token must not approve the next device).
- redeeming twice: a poll locks its row; an approved code gives one token, once.
- polling fast: `slow_down` (and a longer interval from then on); flooding the endpoint with
  new codes: at most MAX_PENDING_PER_ADDRESS waiting per address.
- a page dressed up by the program: the page names the application from a fixed list and the
  machine as a host name, never free text.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta

from parley.accounts import reauth, throttle
from parley.accounts.credentials import Principal
from parley.accounts.hashing import new_secret
from parley.auth import mint_token
from parley.config import Settings
from parley.db import Database
from parley.errors import Forbidden, NotFound, ParleyError

from . import codes, store

LIFETIME = timedelta(minutes=10)
TOKEN_SECONDS = 600  # the person's token the program gets: long enough to make its agent key
MAX_PENDING_PER_ADDRESS = 10
DEVICE_PREFIX = "pd_parley_"
THROTTLE = "device"


class DeviceError(ParleyError):
    """An RFC 8628 / RFC 6749 §5.2 error for the program: `error` is the protocol's code."""

    def __init__(self, error: str, description: str, *, status: int = 400) -> None:
        super().__init__(description, code=error, status=status)


@dataclass(frozen=True, slots=True)
class Started:
    device_code: str
    user_code: str  # as shown: XXXX-XXXX
    expires_in: int
    interval: int


@dataclass(frozen=True, slots=True)
class Token:
    access_token: str
    expires_in: int


async def start(
    db: Database,
    *,
    settings: Settings,
    client_id: str,
    application: str,
    machine: str,
    address: str,
) -> Started:
    if client_id != codes.CLIENT_ID:
        raise DeviceError("invalid_client", f"Only {codes.CLIENT_ID} may ask for a device code")
    if application not in codes.APPLICATIONS:
        known = ", ".join(sorted(codes.APPLICATIONS))
        raise DeviceError("invalid_request", f"application must be one of: {known}")
    try:
        codes.checked_machine(machine)
    except ParleyError as exc:
        raise DeviceError("invalid_request", exc.message) from exc
    device_code = DEVICE_PREFIX + new_secret()
    for _ in range(5):
        user_code = codes.new_user_code()
        inserted = await store.insert(
            db,
            device_code=device_code,
            user_code=user_code,
            client_id=client_id,
            application=application,
            machine=machine,
            address=address,
            interval=settings.device_interval,
            lifetime=LIFETIME,
            most_pending=MAX_PENDING_PER_ADDRESS,
        )
        if inserted == "full":
            raise DeviceError(
                "slow_down", "Too many codes wait for an answer from this address", status=429
            )
        if inserted == "inserted":
            return Started(
                device_code=device_code,
                user_code=codes.shown(user_code),
                expires_in=int(LIFETIME.total_seconds()),
                interval=settings.device_interval,
            )
    raise DeviceError("temporarily_unavailable", "No free code; try again", status=503)


_ANSWERS = {
    "unknown": ("invalid_grant", "Unknown device code"),
    "used": ("invalid_grant", "This device code was already used"),
    "expired": ("expired_token", "The code expired; start again"),
    "slow_down": ("slow_down", "Polling too fast: wait the interval (now 5 s longer)"),
    "pending": ("authorization_pending", "Waiting for the person to approve the code"),
    "denied": ("access_denied", "The person denied this device"),
}


async def poll(db: Database, *, settings: Settings, device_code: str, client_id: str) -> Token:
    """The person's token once they approved, or the protocol's error saying why not yet."""
    polled = await store.poll(db, device_code=device_code[:200], client_id=client_id)
    if polled.answer != "redeemed" or polled.user_id is None:
        error, description = _ANSWERS[polled.answer if polled.answer != "redeemed" else "unknown"]
        raise DeviceError(error, description)
    token = mint_token(
        secret=settings.auth_secret, user_id=polled.user_id, ttl_seconds=TOKEN_SECONDS
    )
    return Token(access_token=token, expires_in=TOKEN_SECONDS)


def _in_web_ui(principal: Principal) -> str:
    if principal.kind != "session" or principal.caller.agent is not None:
        raise Forbidden(
            "Approve a device in the web UI, signed in as yourself", code="session_required"
        )
    return principal.caller.user_id


async def _guess(
    db: Database,
    *,
    settings: Settings,
    user_id: str,
    address: str,
    user_code: str,
    find: Callable[[str], Awaitable[store.Pending | None]],
) -> store.Pending:
    """One counted attempt at a code: reserved before it is looked up, taken back when it
    was right, a failure (and a longer wait past the free ones) when it was not."""
    code = codes.normalized(user_code)
    reservation = await throttle.reserve(
        db, settings=settings, login=user_id, address=address, purpose=THROTTLE
    )
    found = await find(code)
    if found is None:
        await throttle.failed(db, reservation)
        raise NotFound("This code is unknown, answered or expired; check it, or start again")
    await throttle.succeeded(db, reservation)
    return found


async def show(
    db: Database, *, settings: Settings, principal: Principal, user_code: str, address: str
) -> store.Pending:
    """What the code asks for, to the person who entered it (a counted attempt)."""
    user_id = _in_web_ui(principal)

    async def find(code: str) -> store.Pending | None:
        return await store.find_pending(db, user_code=code)

    return await _guess(
        db, settings=settings, user_id=user_id, address=address, user_code=user_code, find=find
    )


async def decide(
    db: Database,
    *,
    settings: Settings,
    principal: Principal,
    user_code: str,
    allow: bool,
    address: str,
) -> store.Pending:
    """Approve (the program's next poll gets this person's token) or deny, once. Approving
    needs a recent sign-in (403 `reauth_required`, the code left waiting)."""
    user_id = _in_web_ui(principal)
    if allow:
        await reauth.require_recent(db, principal=principal, settings=settings)

    async def find(code: str) -> store.Pending | None:
        return await store.decide(db, user_code=code, user_id=user_id, allow=allow)

    return await _guess(
        db, settings=settings, user_id=user_id, address=address, user_code=user_code, find=find
    )
