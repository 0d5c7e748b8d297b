"""One chat turn, start to finish. Knows nothing about HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import asyncpg

from parley import attachments as attached
from parley import conversations, events
from parley.assistant import choices
from parley.assistant.agent import TurnContext
from parley.assistant.runner import Assistant, AssistantFailed, Reply
from parley.chat import lease, store
from parley.chat.runner import TurnResult, TurnRunner
from parley.config import Settings
from parley.conversations import store as conversation_store
from parley.db import Database, retry_on_reconnect
from parley.errors import DatabaseUnavailable, ModelFailed
from parley.events import Emit
from parley.messages.store import StoredMessage
from parley.models import Role
from parley.schemas import message_json
from parley.text import scrub

log = logging.getLogger(__name__)
STOPPED_TEXT = "(Stopped.)"


@dataclass
class StartedTurn:
    """A claimed turn whose user message is safely stored; the reply is still to come."""

    user_id: str
    conversation_id: int
    turn_id: str
    user_message: StoredMessage
    history: list[StoredMessage]
    retry: bool = False


async def start_turn(
    *,
    db: Database,
    settings: Settings,
    user_id: str,
    conversation_id: int | None,
    text: str | None,
    retry: bool = False,
    replaces: int | None = None,
    attachments: Sequence[int] = (),
) -> StartedTurn:
    """Claim the conversation and store the person's message (`text`, already checked by
    the modes registry; None for a retry, which stores nothing: it re-runs the failed last
    turn on its stored message). With `replaces` the turn starts a new branch in place of
    that shown message: `text` is its edit, or None to regenerate that reply. The database's
    refusals (404, 409, 422) happen here, before anything is stored or hidden and before any
    model or tool runs. `attachments` (ids) are claimed in the same transaction as the
    message is stored: one that is not the person's, was sent already, or is an image the
    conversation's model cannot take refuses the turn, and nothing is stored."""
    turn_id = store.new_turn_id()

    async def claim(conn: asyncpg.Connection) -> list[StoredMessage]:
        """The claim and the person's message in one statement: a refusal (404, 409, 422)
        or a failure leaves nothing behind, not even a new conversation."""
        return await store.start(
            conn,
            turn_id=turn_id,
            user_id=user_id,
            conversation_id=conversation_id,
            title=conversations.title_from(text or ""),
            ttl_seconds=settings.claim_seconds,
            content=text,
            history_limit=settings.history_limit,
            branch_from=replaces,
        )

    @retry_on_reconnect  # keyed by the turn id: a start that did commit is not stored again
    async def claim_and_store() -> list[StoredMessage]:
        async with db.connection() as conn:
            return await claim(conn)

    @retry_on_reconnect  # a repeat finds its attachments claimed by this very turn
    async def claim_attach_and_store() -> tuple[list[StoredMessage], StoredMessage]:
        async with db.transaction() as conn:
            chosen = (
                await conversation_store.chosen_model(
                    conn, user_id=user_id, conversation_id=conversation_id
                )
                if conversation_id is not None
                else None
            )
            model_name = chosen or settings.model_name
            found = await attached.claim(
                conn,
                user_id=user_id,
                ids=attachments,
                turn_id=turn_id,
                images=settings.model_images and model_name != "offline",
                model_name=model_name,
            )
            history = await claim(conn)
            message = next(m for m in reversed(history) if m.role == Role.user.value)
            bound = await attached.attach(
                conn, user_id=user_id, found=found, message=message, turn_id=turn_id
            )
            return [bound if m.id == bound.id else m for m in history], bound

    if attachments and text is not None:
        history, user_message = await claim_attach_and_store()
    else:
        history = await claim_and_store()
        user_message = next(m for m in reversed(history) if m.role == Role.user.value)
    # Only a conversation's first message can name it: later turns skip the statement.
    first = sum(m.role == Role.user.value for m in history) == 1
    if text is not None and conversation_id is not None and first:
        await conversations.title_untitled(
            db,
            user_id=user_id,
            conversation_id=conversation_id,
            first_message_id=user_message.id,
            text=text,
        )
    return StartedTurn(
        user_id, user_message.conversation_id, turn_id, user_message, history, retry=retry
    )


async def finish_turn(
    started: StartedTurn,
    *,
    db: Database,
    assistant: Assistant,
    settings: Settings,
    emit: Emit | None = None,
    stop: asyncio.Event | None = None,
) -> TurnResult:
    """Run the assistant and store its reply (or the error) and complete the turn. When `stop`
    is set mid-run, the reply so far is stored, marked stopped, and is the turn's answer."""
    context = TurnContext(
        user_id=started.user_id,
        conversation_id=started.conversation_id,
        turn_id=started.turn_id,
        prompt_id=started.user_message.id,
        retry=started.retry,
    )
    # The conversation's model and the person's own instructions (parley.assistant.choices).
    chosen = await choices.for_turn(
        db, assistant.catalog, user_id=started.user_id, conversation_id=started.conversation_id
    )
    reply = Reply()
    files = await attached.for_history(db, user_id=started.user_id, history=started.history)
    run = asyncio.create_task(
        assistant.respond(
            history=started.history,
            files=files,
            images=settings.model_images and chosen.model_name != "offline",
            context=context,
            emit=emit,
            time_limit=settings.turn_timeout * 0.9,
            reply=reply,
            model=chosen.model,
            person_instructions=chosen.instructions,
        )
    )
    try:
        # The claim stays alive while the run does; if it is lost the run is cancelled and
        # nothing is stored (another turn may own the conversation by now).
        async with lease.held(
            db,
            user_id=started.user_id,
            conversation_id=started.conversation_id,
            turn_id=started.turn_id,
            seconds=settings.claim_seconds,
        ):
            stopped = await _stopped_first(run, stop)
        if not stopped:
            reply = run.result()
    except AssistantFailed as failure:
        log.warning("turn failed in conversation %s: %s", started.conversation_id, failure.reason)
        content = f"Sorry, I couldn't answer that. {failure.reason}. You can try again."
        await _finish(
            db,
            started,
            emit,
            content,
            scrub(failure.partial.tool_calls),
            error=True,
            meta={"model": chosen.model_name},
            patience=settings.claim_seconds,
        )
        raise ModelFailed(failure.reason, conversation_id=started.conversation_id) from failure
    finally:
        if not run.done():
            run.cancel()
    if stopped:
        reply.text = reply.partial_text or STOPPED_TEXT
    # The model's words are kept as it wrote them, but storable: a NUL or a lone surrogate in
    # them is shown, not refused (nobody could fix the reply by sending it again).
    reply.text, reply.tool_calls = scrub(reply.text), scrub(reply.tool_calls)
    # Which model answered: replies from before a model change stay attributed to theirs.
    meta = {"model": chosen.model_name, **({"stopped": True} if stopped else {})}
    await _finish(
        db,
        started,
        emit,
        reply.text,
        reply.tool_calls,
        error=False,
        meta=meta,
        patience=settings.claim_seconds,
    )
    return TurnResult(
        conversation_id=started.conversation_id, response=reply.text, tool_calls=reply.tool_calls
    )


async def _stopped_first(run: asyncio.Task[Reply], stop: asyncio.Event | None) -> bool:
    """Wait for the run, or for `stop`; True (and the run cancelled) if stop came first."""
    if stop is None:
        await run
        return False
    waiter = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({run, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
    if run.done():
        run.result()  # raises AssistantFailed
        return False
    run.cancel()
    with contextlib.suppress(asyncio.CancelledError, AssistantFailed):
        await run
    return True


async def _finish(
    db: Database,
    started: StartedTurn,
    emit: Emit | None,
    content: str,
    tool_calls: list[dict[str, Any]],
    *,
    error: bool,
    meta: dict[str, Any] | None = None,
    patience: float = 0,
) -> None:
    """Store the reply and complete the turn: both happen or neither. A database that is
    away (a restart) is waited for up to `patience` seconds, about as long as the turn's
    claim outlives its last renewal: the reply is kept, and the conversation is freed the
    moment the database is back instead of when the claim lapses."""
    deadline = asyncio.get_running_loop().time() + patience
    while True:
        try:
            async with db.connection() as conn:
                stored = await store.finish(
                    conn,
                    user_id=started.user_id,
                    conversation_id=started.conversation_id,
                    turn_id=started.turn_id,
                    content=content,
                    tool_calls=tool_calls or None,
                    error=error,
                    meta=meta,
                )
                if emit is not None:
                    # Before the connection goes back to the pool (which wakes the reader):
                    # watchers learn that the live reply is this message before it arrives.
                    emit(events.TURN_END, {"message_id": stored.id})
            break
        except DatabaseUnavailable:
            if asyncio.get_running_loop().time() >= deadline:
                raise
            await asyncio.sleep(0.2)
    if emit is not None:
        emit(events.MESSAGE, message_json(stored))


def chat_work(
    started: StartedTurn, *, db: Database, assistant: Assistant, settings: Settings
) -> Callable[[Emit, asyncio.Event], Awaitable[TurnResult]]:
    """The rest of a started chat turn, as the turn runner runs it."""

    def work(emit: Emit, stop: asyncio.Event) -> Awaitable[TurnResult]:
        return finish_turn(
            started, db=db, assistant=assistant, settings=settings, emit=emit, stop=stop
        )

    return work


async def stop_turn(
    *, db: Database, runner: TurnRunner, user_id: str, conversation_id: int
) -> bool:
    """End the turn running in the conversation now, on this instance or (through the
    runner's forwarder) on another one. False when no turn is running."""
    claimed = await conversations.turn_claimed(db, user_id=user_id, conversation_id=conversation_id)
    if runner.stop(conversation_id):
        return True
    if claimed:
        runner.forward_stop(conversation_id)
    return claimed
