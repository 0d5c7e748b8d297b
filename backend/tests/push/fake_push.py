"""A local push service that stands in for a browser's (FCM, Mozilla's...): it accepts
pushes on loopback, answers as each device's script says (201 by default, or 500, 410...),
and decrypts what it received with the private keys its devices generated (RFC 8291,
aes128gcm, by `http_ece`), so a test sees what a browser's service worker would."""

from __future__ import annotations

import asyncio
import base64
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.conftest import free_port, on_loopback


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@dataclass
class Device:
    """A browser's subscription: its endpoint and the keys only it holds the private half of."""

    name: str
    base_url: str
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def endpoint(self) -> str:
        return f"{self.base_url}/push/{self.name}"

    def subscription(self, label: str = "") -> dict[str, Any]:
        public = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64(public), "auth": b64(self.auth)},
            "label": label,
        }

    def decrypt(self, body: bytes) -> dict[str, Any]:
        plain = http_ece.decrypt(
            body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"
        )
        decoded: dict[str, Any] = json.loads(plain)
        return decoded


@dataclass
class Received:
    device: str
    headers: dict[str, str]
    body: bytes
    status: int  # what the fake answered


class FakePushService:
    def __init__(self) -> None:
        self.base_url = ""
        self.devices: dict[str, Device] = {}
        self.received: list[Received] = []
        self.scripts: dict[str, list[int]] = {}  # device -> statuses to answer, in order
        self.retry_after: str | None = None
        self.held: dict[str, asyncio.Event] = {}  # device -> released when set
        self.arrived: dict[str, int] = {}  # pushes that reached the service, held or not
        self.changed = asyncio.Condition()

    def device(self, name: str) -> Device:
        made = Device(name, self.base_url)
        self.devices[name] = made
        return made

    def answer_with(self, name: str, *statuses: int) -> None:
        self.scripts[name] = list(statuses)

    def delivered(self, name: str) -> list[dict[str, Any]]:
        """What the device got (accepted pushes only), decrypted."""
        device = self.devices[name]
        return [
            device.decrypt(r.body)
            for r in self.received
            if r.device == name and 200 <= r.status < 300
        ]

    async def wait_for(self, check: Any, within: float = 30.0) -> None:
        """Until `check()` holds (re-checked on each push received)."""
        async with asyncio.timeout(within), self.changed:
            await self.changed.wait_for(check)

    async def _push(self, request: Request) -> Response:
        name = request.path_params["name"]
        body = await request.body()
        self.arrived[name] = self.arrived.get(name, 0) + 1
        async with self.changed:
            self.changed.notify_all()
        if name in self.held:
            await self.held[name].wait()
        script = self.scripts.get(name)
        status = script.pop(0) if script else 201
        self.received.append(Received(name, dict(request.headers), body, status))
        async with self.changed:
            self.changed.notify_all()
        headers = {"Retry-After": self.retry_after} if self.retry_after and status >= 429 else {}
        return Response(status_code=status, headers=headers)

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/push/{name}", self._push, methods=["POST"])])


@asynccontextmanager
async def fake_push_service() -> AsyncIterator[FakePushService]:
    service = FakePushService()
    async with on_loopback(service.app(), free_port()) as base:
        service.base_url = base
        yield service
