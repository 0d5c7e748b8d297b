"""Signing up and signing in with a password: the rules, apart from any transport."""

from __future__ import annotations

from parley.auth import validate_new_user_id
from parley.config import Settings
from parley.db import Database
from parley.errors import Forbidden, ParleyError, Unauthorized

from . import invites, passwords, reauth, second_factor, store, throttle
from .hashing import hash_password, verify_password
from .store import AccountRecord, UserIdTaken, clean_email


class InvalidCredentials(Unauthorized):
    code = "invalid_credentials"


async def signup(
    db: Database,
    *,
    settings: Settings,
    user_id: str,
    password: str,
    email: str | None = None,
    invite: str | None = None,
) -> AccountRecord:
    """An account under `user_id` (never with '@'). With an invite: whatever PARLEY_SIGNUP
    says, once per invite; an invite naming a user id signs up only that id, and is the only
    way (with dev sign-in and the operator's CLI) to claim an id that already owns data; an
    invite naming an email fixes it (verified: the admin sent the invite there). Without
    one: only when sign-up is open, only for an id nobody has used, and the email, if any,
    is unverified."""
    validate_new_user_id(user_id)
    email = clean_email(email)
    invited_email = None
    if invite is None:
        if settings.signup != "open":
            raise Forbidden("Sign-up needs an invite from an admin", code="signup_closed")
        if await store.has_data(db, user_id=user_id):
            raise UserIdTaken("That user name is taken")
    else:
        found = await invites.find(db, token=invite)
        _same_email(found, email)  # before the costly hash
        invited_email = found.email
    passwords.check(
        password,
        user_id=user_id,
        email=email or invited_email,
        extra_words=settings.password_words,
    )
    await passwords.breached(password, settings=settings)
    password_hash = await hash_password(password)
    async with db.transaction() as conn:
        is_admin = verified = False
        if invite is not None:
            used = await invites.consume(conn, token=invite, user_id=user_id)
            if used.user_id is not None and used.user_id != user_id:
                raise Forbidden(
                    f"This invite is for the user name {used.user_id!r}", code="invite_mismatch"
                )
            if used.user_id is None and await store.owns_data(conn, user_id=user_id):
                raise UserIdTaken("That user name is taken")
            _same_email(used, email)
            email = used.email or email
            verified = used.email is not None
            is_admin = used.is_admin
        return await store.create(
            db,
            user_id=user_id,
            email=email,
            email_verified=verified,
            password_hash=password_hash,
            is_admin=is_admin,
            conn=conn,
        )


def _same_email(invite: invites.InviteRecord, email: str | None) -> None:
    """An invite sent to an email is for that email: a sign-up may repeat it or leave it
    out, not swap it for another (which would then count as verified)."""
    if invite.email is not None and email is not None and email != invite.email:
        raise Forbidden(
            f"This invite is for {invite.email}: sign up with that email (or leave it out)",
            code="invite_email_mismatch",
        )


async def login(
    db: Database, *, settings: Settings, login: str, password: str, address: str
) -> AccountRecord:
    """The account whose user id or email is `login`, if `password` is its password. Every
    failure is the same 401 after the same work. The attempt is counted before the password
    is looked at (throttle.reserve), so concurrent guesses are limited like sequential ones.
    With an authenticator app on, a right password is 401 `second_factor_required` with a
    one-time challenge (accounts/second_factor.py), and no session yet."""
    reservation = await throttle.reserve(db, settings=settings, login=login, address=address)
    account = await store.find_by_login(db, login=login.strip()) if login.strip() else None
    ok = await verify_password(password, account.password_hash if account else None)
    if account is None or not ok or account.disabled:
        await throttle.failed(db, reservation)
        raise InvalidCredentials("Wrong user name, email or password")
    if await second_factor.is_on(db, user_id=account.user_id):
        await throttle.taken_back(db, reservation)
        raise await second_factor.challenge(db, user_id=account.user_id)
    await throttle.succeeded(db, reservation)
    return account


async def change_password(
    db: Database,
    *,
    settings: Settings,
    user_id: str,
    current_password: str,
    new_password: str,
    address: str,
    recent: bool,
) -> None:
    """Checking the current password is one more door to guess it through (a session left
    open on someone else's screen): it shares the account's and the address's sign-in
    limits, reserved before the check like a sign-in. An account without a password has
    no current one to ask for: its first is set only by someone who signed in `recent`ly."""
    account = await store.get(db, user_id=user_id)
    if account is None:
        raise ParleyError("This user has no account", code="no_account", status=404)
    if account.password_hash is None and not recent:
        await reauth.refuse(db, user_id=user_id, settings=settings)
    passwords.check(
        new_password,
        user_id=user_id,
        email=account.email,
        extra_words=settings.password_words,
        field="new_password",
    )
    if account.password_hash is not None:
        reservation = await throttle.reserve(db, settings=settings, login=user_id, address=address)
        if not await verify_password(current_password, account.password_hash):
            await throttle.failed(db, reservation)
            raise InvalidCredentials("The current password is wrong")
        await throttle.succeeded(db, reservation)
    await passwords.breached(new_password, settings=settings, field="new_password")
    await store.set_password(db, user_id=user_id, password_hash=await hash_password(new_password))
