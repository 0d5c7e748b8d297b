"""What a device's subscription may name. Its endpoint is a URL the server will later post
to: only an allowed push service's, at the port the pattern allows (none named: 443), over
https, with no user info and no host a parser could read two ways. Its `p256dh` is a point
on P-256 that each push is encrypted to, its `auth` a 16-byte secret. Anything else is a
422 that stores nothing, and a subscription stored before these rules is re-checked at
each send."""

from __future__ import annotations

import base64
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from parley.db import Database
from tests.conftest import eventually, snapshot
from tests.push.fake_push import Device, FakePushService
from tests.runs.helpers import Actor, error_code

DEFAULT_SERVICES = (
    "fcm.googleapis.com,updates.push.services.mozilla.com,*.notify.windows.com,web.push.apple.com"
)


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def point(key: ec.EllipticCurvePrivateKey, form: serialization.PublicFormat) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.X962, form)


def off_curve_keys() -> dict[str, str]:
    while True:  # a key whose standard base64 has a "+" or "/", which base64url has not
        key = ec.generate_private_key(ec.SECP256R1())
        good = point(key, serialization.PublicFormat.UncompressedPoint)
        if set(base64.b64encode(good).decode()) & {"+", "/"}:
            break
    nudged = bytearray(good)
    nudged[-1] ^= 1  # y + 1 (or - 1): the same x, a point no longer on the curve
    encoded = b64(good)
    return {
        "off the curve": b64(bytes(nudged)),
        "all zeros": b64(b"\x04" + b"\x00" * 64),
        "x = y = p - 1": b64(b"\x04" + b"\xff" * 64),
        "compressed": b64(point(key, serialization.PublicFormat.CompressedPoint)),
        "no prefix": b64(good[1:] + b"\x00"),
        "junk inside": encoded[:20] + "!!" + encoded[20:],  # urlsafe_b64decode skipped it
        "standard alphabet": base64.b64encode(good).decode(),
        "space inside": encoded[:20] + " " + encoded[20:],
        "too much padding": encoded + "===",
    }


async def test_keys_that_are_no_p256_point_or_16_byte_secret_are_refused(
    push_server: Any, push_service: FakePushService, db: Database
) -> None:
    async with push_server() as server:
        alice = Actor(server, "alice")
        good = push_service.device("phone").subscription()
        before = await snapshot(db)
        wrong = []
        for name, p256dh in off_curve_keys().items():
            body = {**good, "keys": {**good["keys"], "p256dh": p256dh}}
            refused = await alice.call("POST", "/push-subscriptions", json=body)
            if refused.status_code != 422 or "keys.p256dh" not in refused.text:
                wrong.append(f"p256dh {name}: {refused.status_code} {refused.text[:120]}")
        for name, auth in {
            "15 bytes": b64(b"x" * 15),
            "17 bytes": b64(b"x" * 17),
            "junk inside": good["keys"]["auth"][:5] + "*" + good["keys"]["auth"][5:],
        }.items():
            body = {**good, "keys": {**good["keys"], "auth": auth}}
            refused = await alice.call("POST", "/push-subscriptions", json=body)
            if refused.status_code != 422 or "keys.auth" not in refused.text:
                wrong.append(f"auth {name}: {refused.status_code} {refused.text[:120]}")
        assert wrong == []
        assert await snapshot(db) == before
        # The browser's own keys, with or without padding, are taken.
        padded = {**good, "keys": {**good["keys"], "p256dh": good["keys"]["p256dh"] + "="}}
        await alice.ok("POST", "/push-subscriptions", 201, json=padded)


REFUSED_ENDPOINTS = (
    "https://fcm.googleapis.com:22/fcm/send/x",  # no port in the pattern: 443 only
    "https://fcm.googleapis.com:8443/fcm/send/x",
    "https://fcm.googleapis.com:80/fcm/send/x",
    "http://fcm.googleapis.com/fcm/send/x",  # https only
    "wss://fcm.googleapis.com/fcm/send/x",
    "https://user@fcm.googleapis.com/fcm/send/x",  # user info, even empty
    "https://@fcm.googleapis.com/fcm/send/x",
    "https://evil.com:pw@fcm.googleapis.com/fcm/send/x",
    "https://fcm.googleapis.com./fcm/send/x",  # a trailing dot
    "https://fcm.googleapis.com%2eevil.com/x",  # percent-encoded host
    "https://evil.com\\.notify.windows.com/x",  # a backslash ends the host for a browser
    "https://evil.com\\@fcm.googleapis.com/x",
    "https://fcm.googleapis.com\t/x",
    "https://fcm.googleapis.com /x",
    "https://notify.windows.com/x",  # `*.` is subdomains only
    "https://x.notify.windows.com.evil.com/x",
    "https://xn--fcm-googleapis-com/x",
    "https://fcm.googleapis.co\u043c/x",  # a Cyrillic "м"
    "https://\uff46cm.googleapis.com/x",  # fullwidth "f", which IDNA folds to "f"
    "https://2130706433/x",  # 127.0.0.1, as a resolver reads these
    "https://0x7f000001/x",
    "https://127.1/x",
    "https://[::ffff:127.0.0.1]/x",
    "https://169.254.169.254/latest/meta-data",
    "http://127.0.0.1:9/push",  # loopback only when a pattern names it
    "https://fcm.googleapis.com:+443/x",
    "//fcm.googleapis.com/x",
    "fcm.googleapis.com/x",
)


async def test_endpoints_off_the_allowed_services_ports_and_schemes_are_refused(
    make_server: Any, db: Database
) -> None:
    async with make_server(PARLEY_PUSH_ALLOWED_HOSTS=DEFAULT_SERVICES) as server:
        alice = Actor(server, "alice")
        sub = Device("x", "https://unused").subscription()
        before = await snapshot(db)
        wrong = []
        for endpoint in REFUSED_ENDPOINTS:
            refused = await alice.call(
                "POST", "/push-subscriptions", json={**sub, "endpoint": endpoint}
            )
            if refused.status_code != 422 or error_code(refused) != "push_service_not_allowed":
                wrong.append(f"{endpoint!r}: {refused.status_code} {refused.text[:100]}")
        assert wrong == []
        assert await snapshot(db) == before
        for endpoint in (
            "https://fcm.googleapis.com/fcm/send/abc",
            "https://FCM.GoogleAPIs.com/fcm/send/upper",  # a host's case is no other host
            "https://fcm.googleapis.com:443/fcm/send/port",
            "https://wns2-by3p.notify.windows.com/w/?token=abc",
            "HTTPS://web.push.apple.com/QGx",
        ):
            await alice.ok("POST", "/push-subscriptions", 201, json={**sub, "endpoint": endpoint})


async def test_a_pattern_with_a_port_allows_that_port_only(make_server: Any, db: Database) -> None:
    allowed = "push.example.com:8443,*.push.example.net:*,[::1]:9000,127.0.0.1:9001"
    async with make_server(PARLEY_PUSH_ALLOWED_HOSTS=allowed) as server:
        alice = Actor(server, "alice")
        sub = Device("x", "https://unused").subscription()
        outcomes = {}
        for endpoint in (
            "https://push.example.com:8443/a",
            "https://push.example.com/a",
            "https://push.example.com:8444/a",
            "https://a.push.example.net:1234/a",
            "https://push.example.net:1234/a",
            "http://[::1]:9000/a",
            "http://127.0.0.1:9001/a",
            "http://127.0.0.1:9002/a",
            "http://127.0.0.2:9001/a",
            "http://localhost:9001/a",
        ):
            made = await alice.call(
                "POST", "/push-subscriptions", json={**sub, "endpoint": endpoint}
            )
            outcomes[endpoint] = made.status_code
        assert outcomes == {
            "https://push.example.com:8443/a": 201,
            "https://push.example.com/a": 422,
            "https://push.example.com:8444/a": 422,
            "https://a.push.example.net:1234/a": 201,
            "https://push.example.net:1234/a": 422,
            "http://[::1]:9000/a": 201,
            "http://127.0.0.1:9001/a": 201,
            "http://127.0.0.1:9002/a": 422,
            "http://127.0.0.2:9001/a": 422,
            "http://localhost:9001/a": 422,
        }


async def test_a_device_stored_before_the_rules_is_not_posted_to(
    push_server: Any, push_service: FakePushService, db: Database
) -> None:
    """The fake service's port is not in the pattern (`127.0.0.1`: its default port only):
    a subscription to it that an older server stored is dropped at send, never posted to."""
    async with push_server(PARLEY_PUSH_ALLOWED_HOSTS="127.0.0.1") as server:
        phone = push_service.device("phone").subscription()
        async with db.connection() as conn:
            await conn.execute(
                "INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth, label)"
                " VALUES ('alice', $1, $2, $3, 'old')",
                phone["endpoint"],
                phone["keys"]["p256dh"],
                phone["keys"]["auth"],
            )
        agent = Actor(server, "alice", "planner")
        await agent.ask("/inbox/messages", "Deploy now?")

        async def settled() -> bool:
            async with db.connection() as conn:
                return bool(
                    await conn.fetchval(
                        "SELECT count(*) FROM push_outbox WHERE status = 'failed'"
                        " AND last_error LIKE '%not allowed%'"
                    )
                )

        await eventually(settled, within=30)
        assert push_service.arrived == {}
