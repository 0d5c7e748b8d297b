"""Passkeys: a signed-in person adds one, then signs in with it alone (the server verifies
real ES256 signatures from a software authenticator)."""

from __future__ import annotations

from tests.accounts.helpers import browser, signup
from tests.accounts.soft_authenticator import SoftAuthenticator

ORIGIN = "http://localhost:3000"  # browsers take no IP address as a passkey's relying party


async def test_a_passkey_is_added_and_then_signs_in_alone(make_server, db):
    async with make_server(PARLEY_SIGNUP="open") as server, browser(server.base_url) as web:
        web.headers["Origin"] = ORIGIN
        await signup(web, "alice")
        authenticator = SoftAuthenticator(ORIGIN)
        options = (await web.post("/api/auth/passkeys/register/options")).json()
        assert options["rp"]["id"] == "localhost" and options["user"]["name"] == "alice"
        assert options["authenticatorSelection"]["residentKey"] == "required"
        created = await web.post(
            "/api/auth/passkeys/register/verify",
            json={"credential": authenticator.create(options), "name": "laptop"},
        )
        assert created.status_code == 201, created.text
        listed = (await web.get("/api/alice/passkeys")).json()
        assert [p["name"] for p in listed] == ["laptop"]

        async with browser(server.base_url) as fresh:
            fresh.headers["Origin"] = ORIGIN
            request = (await fresh.post("/api/auth/passkeys/login/options")).json()
            assert request["rpId"] == "localhost" and not request.get("allowCredentials")
            answer = authenticator.get(request)
            signed = await fresh.post(
                "/api/auth/passkeys/login/verify", json={"credential": answer}
            )
            assert signed.status_code == 200, signed.text
            assert signed.json()["user_id"] == "alice"
            assert (await fresh.get("/api/auth/me")).json()["via"] == "session"
            # the same answer again: its challenge is used up
            replay = await fresh.post(
                "/api/auth/passkeys/login/verify", json={"credential": answer}
            )
            assert replay.status_code == 401

        # a signature by another key for the same credential id is refused
        async with browser(server.base_url) as forger:
            forger.headers["Origin"] = ORIGIN
            request = (await forger.post("/api/auth/passkeys/login/options")).json()
            impostor = SoftAuthenticator(ORIGIN)
            impostor.credential_id = authenticator.credential_id
            impostor.user_handle = b"alice"
            forged = await forger.post(
                "/api/auth/passkeys/login/verify", json={"credential": impostor.get(request)}
            )
            assert forged.status_code == 401 and "parley_session" not in forger.cookies
        # deleting it ends its use
        assert (await web.delete(f"/api/alice/passkeys/{listed[0]['id']}")).status_code == 204
        async with browser(server.base_url) as later:
            later.headers["Origin"] = ORIGIN
            request = (await later.post("/api/auth/passkeys/login/options")).json()
            r = await later.post(
                "/api/auth/passkeys/login/verify", json={"credential": authenticator.get(request)}
            )
            assert r.status_code == 401


async def test_registering_needs_a_signed_in_person(server):
    async with browser(server.base_url) as anonymous:
        r = await anonymous.post("/api/auth/passkeys/register/options")
        assert r.status_code == 401
