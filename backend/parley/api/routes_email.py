"""The signed-in person's email: change it (it is then unverified), have a verification link
mailed, and use that link. Every route is the person's own (an agent's key is refused), and
the writes, as every cookie-authenticated one, come from the web UI's origin only."""

from __future__ import annotations

from fastapi import APIRouter

from parley.accounts import emails
from parley.accounts.schemas import EmailChange, EmailState, EmailVerify
from parley.accounts.store import AccountRecord
from parley.api.deps import DbDep, SettingsDep, SignedInPerson
from parley.api.errors import AUTHED, ERRORS

router = APIRouter(prefix="/api/auth/email", tags=["auth"])


def _state(account: AccountRecord) -> EmailState:
    return EmailState(email=account.email, email_verified=account.email_verified)


@router.put("", response_model=EmailState, responses=ERRORS(*AUTHED, 409))
async def change_email(body: EmailChange, principal: SignedInPerson, db: DbDep) -> EmailState:
    """Sets (or, with null, removes) the account's email. A new one is unverified until its
    link is used; 409 `email_taken` when another account verified it."""
    account = await emails.set_email(db, user_id=principal.caller.user_id, email=body.email)
    return _state(account)


@router.post("/verification", response_model=EmailState, responses=ERRORS(*AUTHED, 409, 429, 502))
async def send_verification(
    principal: SignedInPerson, db: DbDep, settings: SettingsDep
) -> EmailState:
    """Mails a link to the account's email that verifies it: once, for
    PARLEY_EMAIL_LINK_MINUTES, opened signed in to this account. At most one a minute (429);
    404 `email_not_configured` without PARLEY_SMTP_URL."""
    account = await emails.send_link(db, settings=settings, user_id=principal.caller.user_id)
    return _state(account)


@router.post("/verify", response_model=EmailState, responses=ERRORS(*AUTHED, 409))
async def verify_email(body: EmailVerify, principal: SignedInPerson, db: DbDep) -> EmailState:
    """Uses an emailed link's token: 403 `wrong_account` when the link is another account's
    (it stays usable), 404 `link_expired` when used, expired or for a former email."""
    account = await emails.verify(db, user_id=principal.caller.user_id, token=body.token)
    return _state(account)
