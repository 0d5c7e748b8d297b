"""Attacks on account linking: preparing an account for someone else's single sign-on
(pre-hijacking), swapping an invite's email, verifying an email one does not receive, and
naming an account with someone's email. A real OpenID provider (npm `oidc-provider`), a
real SMTP server (aiosmtpd) for the verification mail, real HTTP, real PostgreSQL."""

from __future__ import annotations

import asyncio
import os
import re
import signal
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx

from parley.accounts import sessions
from parley.api.app import create_app
from parley.db import Database
from tests.accounts.conftest import CLIENT_ID, CLIENT_SECRET, OidcProvider, oidc_provider
from tests.accounts.helpers import PASSWORD, bearer, browser, make_key, signup
from tests.accounts.test_oidc import parley_with_oidc, sign_in_through
from tests.conftest import PARLEY, free_port, on_loopback, settings_for, spawn_server
from tests.fakes.smtp import Inbox, smtp_server

VICTIM = {"sub": "victim-1", "email": "victim@example.com", "email_verified": True}


@contextmanager
def mailbox() -> Iterator[tuple[Inbox, dict[str, str]]]:
    """A real SMTP server, and the setting that makes Parley send to it."""
    with smtp_server() as (inbox, port):
        yield inbox, {"PARLEY_SMTP_URL": f"smtp://127.0.0.1:{port}"}


def link_token(inbox: Inbox, to: str) -> str:
    """The token of the last verification link mailed to `to`."""
    mail = [m for m in inbox.messages if m["To"] == to][-1]
    body = mail.get_payload(decode=True).decode()
    found = re.search(r"/verify-email/(\S+)", body)
    assert found, body
    return found.group(1)


async def follow(client: httpx.AsyncClient, response: httpx.Response) -> httpx.Response:
    """Follows a browser's redirects through the provider until Parley's callback answers."""
    for _ in range(10):
        assert response.status_code in (302, 303), response.text
        if response.url.path == "/api/auth/oidc/callback":
            return response
        location = response.headers["location"]
        if "://" not in location:
            location = f"{response.url.scheme}://{response.url.netloc.decode()}{location}"
        response = await client.get(location)
    raise AssertionError("too many redirects")


async def callback_url(client: httpx.AsyncClient, start: str) -> str:
    """Runs a sign-in up to (not including) Parley's callback: the URL the browser would open."""
    response = await client.get(start)
    for _ in range(10):
        location = response.headers["location"]
        if "/api/auth/oidc/callback" in location:
            return location
        if "://" not in location:
            location = f"{response.url.scheme}://{response.url.netloc.decode()}{location}"
        response = await client.get(location)
    raise AssertionError("never reached the callback")


async def start_link(web: httpx.AsyncClient) -> httpx.Response:
    return await web.post("/api/auth/oidc/link", json={"next": "/"})


async def link_sso(web: httpx.AsyncClient) -> str:
    """The signed-in browser links its provider identity; where Parley sends it after."""
    started = await start_link(web)
    assert started.status_code == 200, started.text
    done = await follow(web, await web.get(started.json()["redirect_to"]))
    return str(done.headers["location"])


async def me(web: httpx.AsyncClient) -> dict[str, Any]:
    response = await web.get("/api/auth/me")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def login(web: httpx.AsyncClient, name: str, password: str = PASSWORD) -> httpx.Response:
    return await web.post("/api/auth/login", json={"login": name, "password": password})


async def verify_by_mail(web: httpx.AsyncClient, inbox: Inbox, email: str) -> None:
    sent = await web.post("/api/auth/email/verification")
    assert sent.status_code == 200, sent.text
    used = await web.post("/api/auth/email/verify", json={"token": link_token(inbox, email)})
    assert used.status_code == 200 and used.json()["email_verified"] is True, used.text


async def test_an_account_prepared_with_the_victims_email_never_gets_their_sso_sign_in(
    migrated, db
):
    async with parley_with_oidc(migrated, PARLEY_SIGNUP="open") as (base, provider):
        # The attacker prepares accounts with the victim's email in every spelling, one of
        # them under the very user name the victim's provider will suggest, and leaves bait.
        spellings = {
            "mallory": "Victim@Example.com",
            "mallory2": "  victim@example.com  ",
            "victim": "VICTIM@EXAMPLE.COM",
        }
        async with browser(base) as attacker:
            for user, email in spellings.items():
                attacker.cookies.clear()
                made = await signup(attacker, user, email=email)
                assert made.json()["email"] == "victim@example.com"
                bait = await attacker.post(f"/api/{user}/tasks", json={"title": f"bait {user}"})
                assert bait.status_code == 201

        await provider.sign_in_as(**VICTIM, preferred_username="victim")
        async with browser(base) as victim:
            done = await sign_in_through(victim, base, "/api/auth/oidc/login?next=/c/1")
            # Signed in to an account of their own, and told why it is not the one that
            # claims their name and email.
            assert done.headers["location"] == "/c/1?auth_notice=sso_new_account"
            mine = await me(victim)
            assert mine["user_id"] == "victim-2"
            assert mine["email"] == "victim@example.com" and mine["email_verified"] is True
            assert mine["sso_linked"] is True
            assert (await victim.get("/api/victim-2/tasks")).json() == []  # no bait
            for user in spellings:  # nothing of the attacker's is readable, nor theirs to us
                assert (await victim.get(f"/api/{user}/tasks")).status_code == 403
            wrote = await victim.post("/api/victim-2/tasks", json={"title": "salary review"})
            assert wrote.status_code == 201

        async with browser(base) as attacker:
            # The prepared accounts stay the attacker's, and read nothing of the victim's.
            assert (await login(attacker, "mallory")).status_code == 200
            assert (await attacker.get("/api/victim-2/tasks")).status_code == 403
            # The victim's email signs nobody in: the attacker's copies are unverified and
            # the victim's account has no password.
            attacker.cookies.clear()
            assert (await login(attacker, "victim@example.com")).status_code == 401
        async with db.connection() as conn:
            linked = await conn.fetch("SELECT user_id FROM accounts WHERE oidc_subject IS NOT NULL")
            verified = await conn.fetch(
                "SELECT user_id FROM accounts WHERE email_verified_at IS NOT NULL"
            )
        assert [r["user_id"] for r in linked] == [r["user_id"] for r in verified] == ["victim-2"]

        async with browser(base) as victim:  # the next day: straight to the same account
            done = await sign_in_through(victim, base, "/api/auth/oidc/login")
            assert done.headers["location"] == "/"
            assert (await me(victim))["user_id"] == "victim-2"
            titles = [t["title"] for t in (await victim.get("/api/victim-2/tasks")).json()]
            assert titles == ["salary review"]


async def test_a_verified_email_is_joined_and_a_look_alike_or_an_unverified_one_is_not(
    migrated, db
):
    with mailbox() as (inbox, smtp):
        async with parley_with_oidc(migrated, PARLEY_SIGNUP="open", **smtp) as (base, provider):
            async with browser(base) as owner, browser(base) as attacker:
                # The real owner verified their email (an international domain, typed in
                # its Unicode form and mailed in its ASCII one).
                await signup(owner, "ops", email="Ops@Bücher.example")
                assert (await me(owner))["email"] == "ops@xn--bcher-kva.example"
                await verify_by_mail(owner, inbox, "ops@xn--bcher-kva.example")
                # The attacker owns a look-alike domain (a Cyrillic a, U+0430) and verifies it.
                await signup(attacker, "mallory", email="victim@ex\u0430mple.com")
                await verify_by_mail(attacker, inbox, "victim@xn--exmple-4nf.com")

            await provider.sign_in_as(
                sub="ops-sub", email="ops@xn--bcher-kva.example", email_verified=True
            )
            async with browser(base) as web:
                done = await sign_in_through(web, base, "/api/auth/oidc/login")
                assert done.headers["location"] == "/"
                assert (await me(web))["user_id"] == "ops"  # joined: verified, same address

            await provider.sign_in_as(**VICTIM)
            async with browser(base) as web:
                await sign_in_through(web, base, "/api/auth/oidc/login")
                assert (await me(web))["user_id"] == "victim"  # a new account, not mallory's

            # A verified account already linked to one identity is not joined by another
            # identity with the same email (the provider gave the address to someone new).
            await provider.sign_in_as(
                sub="ops-successor", email="ops@xn--bcher-kva.example", email_verified=True
            )
            async with browser(base) as web:
                done = await sign_in_through(web, base, "/api/auth/oidc/login")
                assert done.headers["location"] == "/?auth_notice=sso_new_account"
                successor = await me(web)
                assert successor["user_id"] != "ops" and successor["email"] is None

            # The provider's unverified email joins nothing either.
            await provider.sign_in_as(sub="x-9", email="ops@xn--bcher-kva.example")
            async with browser(base) as web:
                await sign_in_through(web, base, "/api/auth/oidc/login")
                assert (await me(web))["user_id"] not in ("ops", successor["user_id"])
        async with db.connection() as conn:
            ops = await conn.fetchval("SELECT oidc_subject FROM accounts WHERE user_id = 'ops'")
            mallory = await conn.fetchval(
                "SELECT oidc_subject FROM accounts WHERE user_id = 'mallory'"
            )
        assert ops.endswith("#ops-sub") and mallory is None


async def test_an_invited_person_cannot_swap_the_invites_email(make_server, db):
    async with make_server(PARLEY_SIGNUP="invite") as server, browser(server.base_url) as admin:
        async with db.connection() as conn:
            await conn.execute("INSERT INTO accounts (user_id, is_admin) VALUES ('root', true)")
        await admin.post("/api/auth/dev-login", json={"user_id": "root"})

        async def invite(**body: Any) -> str:
            made = await admin.post("/api/admin/invites", json=body)
            assert made.status_code == 201, made.text
            return str(made.json()["url"].rsplit("/", 1)[1])

        token = await invite(email="newhire@example.com")
        async with browser(server.base_url) as invited:
            lookalike = "newhire@ex\u0430mple.com"
            for other in ("victim@example.com", "newhire@example.com.evil", lookalike):
                body = {"user_id": "newhire", "password": PASSWORD, "invite": token, "email": other}
                swapped = await invited.post("/api/auth/signup", json=body)
                assert swapped.status_code == 403, (other, swapped.text)
                assert swapped.json()["error"]["code"] == "invite_email_mismatch"
            assert (await invited.get(f"/api/auth/invites/{token}")).status_code == 200
            async with db.connection() as conn:
                assert await conn.fetchval("SELECT count(*) FROM accounts") == 1  # root only
            # The same email, however typed, is fine; and it is verified (the admin sent
            # the invite there), so it signs in.
            await signup(invited, "newhire", invite=token, email=" NewHire@Example.com ")
            mine = await me(invited)
            assert mine["email"] == "newhire@example.com" and mine["email_verified"] is True
            invited.cookies.clear()
            assert (await login(invited, "newhire@example.com")).status_code == 200

        # An invite without an email lets the person give one, unverified.
        open_token = await invite()
        async with browser(server.base_url) as invited:
            await signup(invited, "other", invite=open_token, email="other@example.com")
            assert (await me(invited))["email_verified"] is False


async def test_linking_sso_while_signed_in_works_once_and_never_to_a_second_account(migrated, db):
    async with parley_with_oidc(migrated, PARLEY_SIGNUP="open") as (base, provider):
        await provider.sign_in_as(sub="alice-sub", email="alice@corp.example", email_verified=True)
        async with browser(base) as alice, browser(base) as bob:
            await signup(alice, "alice")  # a password account, no email at all
            assert (await me(alice))["sso_linked"] is False
            assert await link_sso(alice) == "/?sso_link=linked"
            assert (await me(alice))["sso_linked"] is True
            again = await start_link(alice)
            assert again.status_code == 409 and again.json()["error"]["code"] == (
                "sso_already_linked"
            )

            # The same identity cannot be linked to a second account.
            await signup(bob, "bob")
            assert await link_sso(bob) == "/?sso_link=sso_taken"
            assert (await me(bob))["user_id"] == "bob" and (await me(bob))["sso_linked"] is False

            # Starting a link takes the person: not an agent's key, not another site.
            key = await make_key(alice, "alice")
            as_agent = await httpx.AsyncClient(base_url=base).post(
                "/api/auth/oidc/link", json={}, headers=bearer(key["secret"])
            )
            assert as_agent.status_code == 403
            forged = await bob.post(
                "/api/auth/oidc/link", json={}, headers={"Origin": "https://evil.example"}
            )
            assert forged.status_code == 403 and forged.json()["error"]["code"] == "bad_origin"
            async with httpx.AsyncClient(base_url=base) as nobody:
                assert (await nobody.post("/api/auth/oidc/link", json={})).status_code == 401

        async with browser(base) as web:  # single sign-on now opens alice's account
            await sign_in_through(web, base, "/api/auth/oidc/login")
            assert (await me(web))["user_id"] == "alice"

        # A link started, then signed out of before the provider answers, links nothing.
        await provider.sign_in_as(sub="carol-sub", email="carol@corp.example", email_verified=True)
        async with browser(base) as carol:
            await signup(carol, "carol")
            started = await start_link(carol)
            assert (await carol.post("/api/auth/logout")).status_code == 204
            done = await follow(carol, await carol.get(started.json()["redirect_to"]))
            assert done.headers["location"] == "/?sso_link=sso_link_signed_out"
            assert "parley_session" not in carol.cookies  # and signed nobody in
        async with db.connection() as conn:
            rows = await conn.fetch(
                "SELECT user_id FROM accounts WHERE oidc_subject IS NOT NULL ORDER BY user_id"
            )
        assert [r["user_id"] for r in rows] == ["alice"]


async def test_a_verification_link_works_once_for_its_own_account_until_it_expires(
    migrated, db, tmp_path: Path
):
    log_path = tmp_path / "server.log"
    with mailbox() as (inbox, smtp), log_path.open("wb") as log_file:
        process, base = await spawn_server(
            migrated, log_level="debug", output=log_file, PARLEY_SIGNUP="open", **smtp
        )
        tokens: list[str] = []
        async with browser(base) as alice, browser(base) as bob, browser(base) as nobody:
            config = (await nobody.get("/api/auth/config")).json()
            assert config["email_verification"] is True
            await signup(alice, "alice", email="alice@example.com")
            await signup(bob, "bob", email="bob@example.com")
            # Unverified: the email does not sign in; the user id does.
            assert (await login(nobody, "alice@example.com")).status_code == 401
            assert (await login(nobody, "alice")).status_code == 200
            nobody.cookies.clear()

            sent = await alice.post("/api/auth/email/verification")
            assert sent.status_code == 200, sent.text
            [mail] = inbox.messages
            assert mail["To"] == "alice@example.com" and "'alice'" in mail.get_payload()
            token = link_token(inbox, "alice@example.com")
            tokens.append(token)
            # At most one a minute: a mailbox is not anybody's megaphone.
            again = await alice.post("/api/auth/email/verification")
            assert again.status_code == 429 and int(again.headers["retry-after"]) >= 1
            assert len(inbox.messages) == 1

            # Another account (the person phished into opening it, or its finder) cannot
            # use it, nor can nobody; and that uses nothing up.
            wrong = await bob.post("/api/auth/email/verify", json={"token": token})
            assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "wrong_account"
            assert (await me(bob))["email_verified"] is False
            anonymous = await nobody.post("/api/auth/email/verify", json={"token": token})
            assert anonymous.status_code == 401
            for forged in (token[:-1], token.upper(), token + "x", "", "../" + token):
                bad = await alice.post("/api/auth/email/verify", json={"token": forged})
                assert bad.status_code in (404, 422), (forged, bad.text)
            assert (await me(alice))["email_verified"] is False

            used = await alice.post("/api/auth/email/verify", json={"token": token})
            assert used.status_code == 200 and used.json() == {
                "email": "alice@example.com",
                "email_verified": True,
            }
            replay = await alice.post("/api/auth/email/verify", json={"token": token})
            assert replay.status_code == 404 and replay.json()["error"]["code"] == "link_expired"
            assert (await login(nobody, "Alice@Example.com ")).json()["user_id"] == "alice"
            nobody.cookies.clear()
            done = await alice.post("/api/auth/email/verification")
            assert done.status_code == 409 and done.json()["error"]["code"] == "already_verified"

            # Changing the email un-verifies it, and changing it back does not re-verify.
            changed = await alice.put("/api/auth/email", json={"email": "alice@new.example"})
            assert changed.json() == {"email": "alice@new.example", "email_verified": False}
            back = await alice.put("/api/auth/email", json={"email": "alice@example.com"})
            assert back.json()["email_verified"] is False
            assert (await login(nobody, "alice@example.com")).status_code == 401

            # A link for an email the account no longer has verifies nothing.
            await bob.post("/api/auth/email/verification")
            stale = link_token(inbox, "bob@example.com")
            tokens.append(stale)
            await bob.put("/api/auth/email", json={"email": "bob@other.example"})
            gone = await bob.post("/api/auth/email/verify", json={"token": stale})
            assert gone.status_code == 404

            # An expired link verifies nothing either.
            async with db.connection() as conn:
                await conn.execute("DELETE FROM auth_challenges WHERE purpose = 'email_verify'")
            await alice.post("/api/auth/email/verification")
            late = link_token(inbox, "alice@example.com")
            tokens.append(late)
            async with db.connection() as conn:
                await conn.execute(
                    "UPDATE auth_challenges SET expires_at = now() - interval '1 second'"
                    " WHERE purpose = 'email_verify'"
                )
            expired = await alice.post("/api/auth/email/verify", json={"token": late})
            assert expired.status_code == 404 and (await me(alice))["email_verified"] is False

            # Only digests are stored.
            async with db.connection() as conn:
                stored = await conn.fetch("SELECT id, data::text AS data FROM auth_challenges")
            assert all(t not in r["id"] + r["data"] for t in tokens for r in stored)
            # The link's page, opened at the API's own address by mistake, is logged cut.
            await nobody.get(f"/verify-email/{late}")
        os.killpg(process.pid, signal.SIGTERM)
        await process.wait()
    log = log_path.read_text()
    assert "POST /api/auth/email/verify" in log and "/verify-email/" in log, log[-2000:]
    assert [t[:8] for t in tokens if t in log] == []


async def test_a_verification_email_needs_a_mail_server(make_server):
    async with make_server(PARLEY_SIGNUP="open") as server, browser(server.base_url) as web:
        assert (await web.get("/api/auth/config")).json()["email_verification"] is False
        await signup(web, "alice", email="alice@example.com")
        refused = await web.post("/api/auth/email/verification")
        assert refused.status_code == 404
        assert refused.json()["error"]["code"] == "email_not_configured"


async def _parley(migrated: str, *args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        PARLEY,
        *args,
        env={**os.environ, "DATABASE_URL": migrated, "PARLEY_AUTH_SECRET": "x" * 32},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    return process.returncode or 0, (out + err).decode()


async def test_a_user_id_is_never_an_email_on_any_path(migrated, db):
    async with parley_with_oidc(migrated, PARLEY_SIGNUP="open") as (base, provider):
        async with browser(base) as web:
            async with db.connection() as conn:
                await conn.execute("INSERT INTO accounts (user_id, is_admin) VALUES ('root', true)")
            assert (await web.post("/api/auth/dev-login", json={"user_id": "root"})).is_success
            for user_id in ("victim@example.com", "@", "a@b", "victim@"):
                attempts = {
                    "signup": await web.post(
                        "/api/auth/signup", json={"user_id": user_id, "password": PASSWORD}
                    ),
                    "invite": await web.post("/api/admin/invites", json={"user_id": user_id}),
                    "dev-login": await web.post("/api/auth/dev-login", json={"user_id": user_id}),
                }
                for path, answer in attempts.items():
                    assert answer.status_code == 422, (path, user_id, answer.text)
                    assert "'@'" in answer.json()["error"]["message"], (path, answer.text)
            # An invite cannot be redeemed under such a name either.
            token = (await web.post("/api/admin/invites", json={})).json()["url"].split("/")[-1]
            redeemed = await web.post(
                "/api/auth/signup",
                json={"user_id": "victim@example.com", "password": PASSWORD, "invite": token},
            )
            assert redeemed.status_code == 422

        # The operator's commands refuse it too.
        for args in (("user", "create", "victim@example.com"), ("token", "--user", "a@b")):
            code, said = await _parley(migrated, *args)
            assert code == 2 and "'@'" in said, (args, said)

        # A provider's user name that is an email becomes an id without '@'.
        await provider.sign_in_as(
            sub="e-1",
            email="eve@example.com",
            email_verified=True,
            preferred_username="eve@example.com",
        )
        async with browser(base) as web:
            await sign_in_through(web, base, "/api/auth/oidc/login")
            assert (await me(web))["user_id"] == "eve-example.com"
        async with db.connection() as conn:
            ids = [r["user_id"] for r in await conn.fetch("SELECT user_id FROM accounts")]
            invites = await conn.fetchval("SELECT count(*) FROM invites WHERE user_id LIKE '%@%'")
        assert not [i for i in ids if "@" in i] and invites == 0


async def test_an_email_shaped_user_id_made_before_cannot_block_that_emails_owner(make_server, db):
    """The medium finding: an account named like someone's email used to take their sign-in
    by email. A login with '@' now only ever means a verified email; the old account keeps
    its data and its session."""
    async with make_server(PARLEY_SIGNUP="open") as server:
        async with browser(server.base_url) as owner:
            await signup(owner, "owner", email="owner@example.com")
            async with db.connection() as conn:  # as made before ids lost '@'
                await conn.execute("UPDATE accounts SET email_verified_at = now()")
                await conn.execute(
                    "INSERT INTO accounts (user_id, password_hash) SELECT 'owner@example.com',"
                    " password_hash FROM accounts WHERE user_id = 'owner'"
                )
        async with browser(server.base_url) as web:
            signed = await login(web, "owner@example.com")
            assert signed.status_code == 200 and signed.json()["user_id"] == "owner"
            web.cookies.clear()
            assert (await login(web, "OWNER@example.com ")).json()["user_id"] == "owner"
        # The old email-shaped account still works with its credentials.
        secret = await sessions.start(
            db, user_id="owner@example.com", device="old", lifetime=timedelta(days=1)
        )
        async with browser(server.base_url) as old:
            old.cookies.set("parley_session", secret)
            assert (await me(old))["user_id"] == "owner@example.com"
            made = await old.post("/api/owner@example.com/tasks", json={"title": "still mine"})
            assert made.status_code == 201


@asynccontextmanager
async def two_instances_with_oidc(migrated: str) -> AsyncIterator[tuple[list[str], OidcProvider]]:
    """Two Parley instances on one database, each its own redirect URI at one provider."""
    ports = [free_port(), free_port()]
    bases = [f"http://127.0.0.1:{p}" for p in ports]
    callbacks = [f"{b}/api/auth/oidc/callback" for b in bases]
    async with oidc_provider(",".join(callbacks)) as provider:

        def app(n: int) -> Any:
            return create_app(
                settings_for(
                    PARLEY_PUBLIC_URL=bases[n],
                    PARLEY_SIGNUP="open",
                    PARLEY_OIDC_ISSUER=provider.issuer,
                    PARLEY_OIDC_CLIENT_ID=CLIENT_ID,
                    PARLEY_OIDC_CLIENT_SECRET=CLIENT_SECRET,
                    PARLEY_OIDC_REDIRECT_URL=callbacks[n],
                ),
                database_url=migrated,
            )

        async with on_loopback(app(0), ports[0]), on_loopback(app(1), ports[1]):
            yield bases, provider


async def test_concurrent_callbacks_for_one_identity_make_one_account(migrated, db: Database):
    async with two_instances_with_oidc(migrated) as (bases, provider):
        await provider.sign_in_as(
            sub="twin", email="twin@example.com", email_verified=True, preferred_username="twin"
        )
        for round_ in range(2):  # the second round: both find the account the first made
            browsers = [browser(bases[n % 2]) for n in range(4)]
            try:
                urls = [
                    await callback_url(web, f"{bases[n % 2]}/api/auth/oidc/login")
                    for n, web in enumerate(browsers)
                ]
                answers = await asyncio.gather(
                    *(web.get(url) for web, url in zip(browsers, urls, strict=True))
                )
                assert [a.headers["location"] for a in answers] == ["/"] * 4, round_
                who = {(await me(web))["user_id"] for web in browsers}
                assert who == {"twin"}, who
            finally:
                for web in browsers:
                    await web.aclose()
        async with db.connection() as conn:
            rows = await conn.fetch("SELECT user_id, email_verified_at FROM accounts")
        assert len(rows) == 1 and rows[0]["email_verified_at"] is not None
