"""Passkeys: WebAuthn credentials (the `webauthn` package checks every signature) an account
registered, and the two ceremonies. User verification (the device's PIN or biometric) is
required in both, so a passkey is two factors at once: the device, and the person unlocking
it (ASVS 6.3.3); an authenticator that only proves presence is refused. A ceremony's
challenge is a short-lived row, found again by the challenge the browser signed, so any
instance can finish it, once."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import asyncpg
import webauthn
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from parley.db import Database, retry_on_reconnect
from parley.errors import InvalidInput, NotFound, ParleyError, Unauthorized
from parley.models import MAX_BIGINT

from . import store_challenges, store_factors
from .store_factors import PasskeyRecord


@retry_on_reconnect
async def listed(db: Database, *, user_id: str) -> list[PasskeyRecord]:
    async with db.connection() as conn:
        return await store_factors.passkeys_of(conn, user_id=user_id)


async def delete(db: Database, *, user_id: str, passkey_id: int) -> None:
    if not 1 <= passkey_id <= MAX_BIGINT:  # ids are bigints
        raise NotFound("No such passkey")
    async with db.connection() as conn:
        found = await store_factors.delete_passkey(conn, user_id=user_id, passkey_id=passkey_id)
    if not found:
        raise NotFound("No such passkey")


# --- ceremonies ------------------------------------------------------------------------------

CHALLENGE_SECONDS = 300
TRANSPORTS = {"usb", "nfc", "ble", "internal", "hybrid", "smart-card", "cable"}


@dataclass(slots=True, frozen=True)
class RelyingParty:
    """Where the browser is: the passkey is bound to this host (`id`) and checked against this
    origin. Browsers refuse IP addresses as an id, so passkeys need a host name (localhost)."""

    id: str
    origin: str


def relying_party(origin: str | None, web_origins: list[str]) -> RelyingParty:
    chosen = origin.rstrip("/") if origin and origin.rstrip("/") in web_origins else None
    chosen = chosen or (web_origins[0] if web_origins else "http://localhost")
    return RelyingParty(id=urlsplit(chosen).hostname or "localhost", origin=chosen)


async def _remember(
    db: Database, *, challenge: bytes, purpose: str, user_id: str | None, rp: RelyingParty
) -> None:
    async with db.connection() as conn:
        await store_challenges.sweep(conn)
        await store_challenges.remember(
            conn,
            key=bytes_to_base64url(challenge),
            purpose=purpose,
            user_id=user_id,
            data={"rp_id": rp.id, "origin": rp.origin},
            seconds=CHALLENGE_SECONDS,
        )


def _challenge_of(credential: dict[str, Any]) -> str:
    """The challenge the browser signed, read from its clientDataJSON (verified later)."""
    try:
        client_data = json.loads(
            base64url_to_bytes(credential["response"]["clientDataJSON"]).decode()
        )
        challenge = client_data["challenge"]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InvalidInput("credential is not a WebAuthn credential") from exc
    if not isinstance(challenge, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,200}", challenge):
        raise InvalidInput("credential is not a WebAuthn credential")
    return challenge


async def _consume(
    db: Database, *, credential: dict[str, Any], purpose: str, user_id: str | None
) -> tuple[bytes, RelyingParty]:
    """The challenge row the credential answers, used up (once, on any instance)."""
    challenge = _challenge_of(credential)
    async with db.connection() as conn:
        data = await store_challenges.take(conn, key=challenge, purpose=purpose, user_id=user_id)
    if data is None:
        raise Unauthorized("This passkey challenge is unknown or expired; try again")
    return base64url_to_bytes(challenge), RelyingParty(id=data["rp_id"], origin=data["origin"])


async def registration_options(db: Database, *, user_id: str, rp: RelyingParty) -> str:
    async with db.connection() as conn:
        existing = await store_factors.credential_ids(conn, user_id=user_id)
    options = webauthn.generate_registration_options(
        rp_id=rp.id,
        rp_name="Parley",
        user_name=user_id,
        user_id=user_id.encode(),
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.REQUIRED,
        ),
        exclude_credentials=[
            PublicKeyCredentialDescriptor(id=credential_id) for credential_id in existing
        ],
    )
    await _remember(db, challenge=options.challenge, purpose="register", user_id=user_id, rp=rp)
    return webauthn.options_to_json(options)


async def register(
    db: Database, *, user_id: str, credential: dict[str, Any], name: str | None
) -> PasskeyRecord:
    challenge, rp = await _consume(db, credential=credential, purpose="register", user_id=user_id)
    try:
        verified = webauthn.verify_registration_response(
            credential=credential,
            expected_challenge=challenge,
            expected_rp_id=rp.id,
            expected_origin=rp.origin,
            require_user_verification=True,
        )
    except (WebAuthnException, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InvalidInput(f"The passkey was not accepted: {exc}") from exc
    transports = credential.get("response", {}).get("transports") or []
    try:
        async with db.connection() as conn:
            return await store_factors.insert_passkey(
                conn,
                user_id=user_id,
                credential_id=verified.credential_id,
                public_key=verified.credential_public_key,
                sign_count=verified.sign_count,
                transports=(
                    [t for t in transports if t in TRANSPORTS]
                    if isinstance(transports, list)
                    else []
                ),
                name=(name or "Passkey").strip()[:100] or "Passkey",
            )
    except asyncpg.UniqueViolationError as exc:
        raise ParleyError(
            "This passkey is already registered", code="passkey_exists", status=409
        ) from exc


async def authentication_options(db: Database, *, rp: RelyingParty) -> str:
    """For a discoverable credential: the browser offers whichever passkey it holds here."""
    options = webauthn.generate_authentication_options(
        rp_id=rp.id, user_verification=UserVerificationRequirement.REQUIRED
    )
    await _remember(db, challenge=options.challenge, purpose="login", user_id=None, rp=rp)
    return webauthn.options_to_json(options)


async def authenticate(db: Database, *, credential: dict[str, Any]) -> str:
    """The user id whose passkey signed this login challenge; 401 otherwise."""
    challenge, rp = await _consume(db, credential=credential, purpose="login", user_id=None)
    raw_id = credential.get("rawId") or credential.get("id")
    try:
        credential_id = base64url_to_bytes(raw_id) if isinstance(raw_id, str) else b""
    except (ValueError, TypeError):
        credential_id = b""
    async with db.connection() as conn:
        row = await store_factors.passkey_key(conn, credential_id=credential_id)
    if row is None:
        raise Unauthorized("This passkey is not registered here", code="invalid_credentials")
    try:
        verified = webauthn.verify_authentication_response(
            credential=credential,
            expected_challenge=challenge,
            expected_rp_id=rp.id,
            expected_origin=rp.origin,
            credential_public_key=row.public_key,
            credential_current_sign_count=row.sign_count,
            require_user_verification=True,
        )
    except (WebAuthnException, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise Unauthorized("The passkey was not accepted", code="invalid_credentials") from exc
    async with db.connection() as conn:
        await store_factors.passkey_used(
            conn, passkey_id=row.id, sign_count=verified.new_sign_count
        )
    return str(row.user_id)
