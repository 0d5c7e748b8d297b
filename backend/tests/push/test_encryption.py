"""The sender's message encryption (RFC 8291, aes128gcm), checked by decrypting with the
device's own private key as a browser would (`http_ece`, the fake push service's way)."""

from __future__ import annotations

import json

import http_ece
import pytest

from parley.push.encryption import EncryptionError, encrypt
from tests.push.fake_push import Device


def test_a_device_decrypts_what_was_encrypted_for_it() -> None:
    device = Device("phone", "http://127.0.0.1:1")
    keys = device.subscription()["keys"]
    body = encrypt(b'{"title":"planner asks"}', p256dh=keys["p256dh"], auth=keys["auth"])
    assert device.decrypt(body) == {"title": "planner asks"}
    # A fresh key and salt per push: the same text never gives the same body twice.
    again = encrypt(b'{"title":"planner asks"}', p256dh=keys["p256dh"], auth=keys["auth"])
    assert again[:16] != body[:16] and again[21:86] != body[21:86]


def test_another_device_cannot_read_it() -> None:
    phone, laptop = Device("phone", "http://127.0.0.1:1"), Device("laptop", "http://127.0.0.1:1")
    keys = phone.subscription()["keys"]
    body = encrypt(json.dumps({"t": 1}).encode(), p256dh=keys["p256dh"], auth=keys["auth"])
    with pytest.raises(http_ece.ECEException, match="InvalidTag"):
        laptop.decrypt(body)


@pytest.mark.parametrize(
    ("p256dh", "auth"),
    [("AAAA", "AAAAAAAAAAAAAAAAAAAAAA"), ("not base64!", "x"), ("", "")],
)
def test_keys_that_are_no_p256_point_are_refused(p256dh: str, auth: str) -> None:
    with pytest.raises(EncryptionError):
        encrypt(b"{}", p256dh=p256dh, auth=auth)
