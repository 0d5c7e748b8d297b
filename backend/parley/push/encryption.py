"""Message encryption for Web Push (RFC 8291, `aes128gcm`) with `http_ece`: one fresh
P-256 key and one ECDH per push, nothing else (pywebpush's `WebPusher` parses and rebuilds
the whole subscription per call, which a sender moving hundreds of pushes pays for)."""

from __future__ import annotations

import base64
import os

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec


class EncryptionError(ValueError):
    """The device's keys are no usable P-256 point and auth secret: this push can never go."""


def _b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def encrypt(plain: bytes, *, p256dh: str, auth: str) -> bytes:
    """The request body for a device whose subscription keys are `p256dh` and `auth`
    (base64url, as the browser gave them); the header carries our one-time public key."""
    try:
        receiver = _b64decode(p256dh)
        secret = _b64decode(auth)
        return bytes(
            http_ece.encrypt(
                plain,
                salt=os.urandom(16),
                private_key=ec.generate_private_key(ec.SECP256R1()),
                dh=receiver,
                auth_secret=secret,
                version="aes128gcm",
            )
        )
    except (ValueError, TypeError, http_ece.ECEException) as exc:
        raise EncryptionError(str(exc)) from exc
