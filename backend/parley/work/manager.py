"""The instance's live work sessions: starting, limiting, answering, ending, reaping.

A session is owned by exactly one instance through the lease in its row (see `ownership`):
the instance that claims it starts its process, renews the lease while it runs and lets go
when it ends. A message for a session another instance owns goes there through NOTIFY; a
session whose owner died is ended by the reaper of any live instance (its process killed on
the owner's host), and its conversation says so.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from claude_agent_sdk import ResultMessage

from parley import conversations, events
from parley.auth import Caller
from parley.config import Settings
from parley.db import Database
from parley.errors import DatabaseUnavailable, ParleyError
from parley.messages import store as message_store
from parley.messages.store import StoredMessage
from parley.models import MessageKind, Role, RunStatus
from parley.questions.ask import decision_of, get_question
from parley.questions.words import Decision
from parley.realtime.notifier import Notifier
from parley.realtime.waits import Waits
from parley.schemas import message_json
from parley.work import cli, ownership, proctree, store, store_hosts
from parley.work.ownership import Owner
from parley.work.prompts import (
    UNANSWERED,
    Ended,
    Outcome,
    Parked,
    Prompt,
    Resume,
    SessionFailed,
)
from parley.work.relay import Relay
from parley.work.session import Services, Session, session_tag

log = logging.getLogger(__name__)

# Messages for a session that lives on another instance: {"to", "action", ...}.
WORK_CHANNEL = "parley_work"
FOLLOW_SECONDS = 0.3
# How long shutdown waits for sessions asking the person to park their call.
PARK_SECONDS = 10.0
# How often a prompt's note may be passed on to the instance holding the session now.
MAX_HOPS = 3


def remote_result(message: StoredMessage, text: str) -> ResultMessage:
    """A prompt's result as another instance stored it."""
    meta = message.meta or {}
    return ResultMessage(
        subtype="success",
        duration_ms=int(meta.get("duration_ms") or 0),
        duration_api_ms=0,
        is_error=meta.get("type") == "error" or bool(meta.get("failed")),
        num_turns=int(meta.get("num_turns") or 0),
        session_id=str(meta.get("session_id") or ""),
        stop_reason=meta.get("stop_reason"),
        total_cost_usd=meta.get("cost_usd"),
        result=message.content if meta.get("type") == "error" else meta.get("detail") or text,
    )


def _resume(pending: dict[str, Any], decision: Decision) -> Resume:
    return Resume(
        pending["tool_use_id"],
        decision,
        tool=str(pending.get("tool") or ""),
        tool_input=pending.get("input") or {},
    )


class WorkFailed(ParleyError):
    status = 502
    code = "work_failed"


class WorkManager:
    def __init__(
        self,
        *,
        db: Database,
        settings: Settings,
        notifier: Notifier,
        waits: Waits,
    ) -> None:
        self.db = db
        self.settings = settings
        self.notifier = notifier
        self.waits = waits  # permission questions are waited for like any question
        self.owner = Owner.here()
        self.instance = self.owner.instance
        self.sessions: dict[int, Session] = {}
        self.relay = Relay(db=db, settings=settings)
        self.services = Services(
            db=db,
            settings=settings,
            notifier=notifier,
            waits=waits,
            owner=self.owner,
            relay=self.relay,
        )
        self._shutting_down = False
        self._starting: dict[int, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loops: list[asyncio.Task[None]] = []

    # -- lifetime of the instance --------------------------------------------------

    async def start(self) -> None:
        if not self.settings.work_enabled:
            return
        # Notes from other instances arrive on the instance's one realtime connection
        # (re-listened after every reconnect), not on a connection of the manager's own.
        await self.notifier.listen(WORK_CHANNEL, self._on_payload)
        self._loops = [
            asyncio.create_task(self._keep(self._renew, ownership.RENEW_SECONDS)),
            asyncio.create_task(self._keep(self._reap, ownership.REAP_SECONDS)),
            # Parked calls answered while no instance could resume them (answered as the
            # server that parked them shut down, say): at start, then with the reaper's rhythm.
            asyncio.create_task(self._keep(self._resume_answered, ownership.REAP_SECONDS)),
        ]

    async def shutdown(self) -> None:
        """Kill every session's process tree: nothing outlives the server. A session waiting
        for a permission answer parks first (its call deferred and kept), so the answer,
        however soon after the restart it comes, still runs the call."""
        self._shutting_down = True
        parking = [s.task for s in self.sessions.values() if s.park() and s.task is not None]
        if parking:
            await asyncio.wait(parking, timeout=PARK_SECONDS)
        sessions = list(self.sessions.values())
        await asyncio.gather(
            *(s.kill(RunStatus.cancelled, store.SHUT_DOWN) for s in sessions),
            return_exceptions=True,
        )
        for task in self._loops:
            task.cancel()
        await asyncio.gather(*self._loops, return_exceptions=True)
        await self.relay.shutdown()

    async def _keep(self, step: Any, every: float) -> None:
        """Run `step` every `every` seconds for the instance's life; a failure (the database
        restarting) is tried again next time."""
        while True:
            try:
                await step()
            except Exception:
                log.debug("work %s failed; trying again", step.__name__, exc_info=True)
            await asyncio.sleep(every)

    async def _renew(self) -> None:
        held = await ownership.renew(self.db, owner=self.owner)
        await self._catch_up()
        for conversation_id, session in list(self.sessions.items()):
            if conversation_id in held:
                continue
            holder = await ownership.holder(
                self.db, user_id=session.user_id, conversation_id=conversation_id
            )
            if holder != self.instance and self.sessions.get(conversation_id) is session:
                # The reaper freed it, taking this instance for dead: the session is no
                # longer ours to run (its run is failed already).
                log.warning("lost the lease of work session %s", conversation_id)
                self._spawn(session.kill(RunStatus.failed, ownership.OWNER_GONE))
        await self._ended_elsewhere()

    async def _ended_elsewhere(self) -> None:
        """Sessions whose run another instance ended (End through it) while its note to
        this one never came: ended here now."""
        live = {s.run_id: s for s in self.sessions.values() if s.accepting}
        if not live:
            return
        runs = [(s.user_id, run_id) for run_id, s in live.items()]
        for run_id in await store.ended_runs(self.db, runs=runs):
            session = live[run_id]
            self._spawn(
                self.end(
                    user_id=session.user_id,
                    conversation_id=session.conversation_id,
                    run_id=run_id,
                )
            )

    async def _catch_up(self) -> None:
        """Prompts sent through another instance whose note never arrived (its listening
        connection was down, say): read from the conversations themselves."""
        if not self.sessions:
            return
        since = {(s.user_id, cid): s.last_message_id for cid, s in self.sessions.items()}
        for found in await store.prompts_after(self.db, since=since):
            session = self.sessions.get(found.conversation_id)
            if session is not None and session.missed(found.id):
                log.info(
                    "took a missed prompt %s in conversation %s", found.id, session.conversation_id
                )
                prompt = session.submit(found.content, message_id=found.id)
                prompt.future.add_done_callback(lambda f: f.cancelled() or f.exception())

    async def _reap(self) -> None:
        """End the sessions of instances that are gone (see `ownership`)."""
        for found in await ownership.lapsed(self.db, owner=self.owner):
            if not await asyncio.to_thread(ownership.owner_gone, found, here=self.owner):
                continue
            if found.host == self.owner.host:
                # Its group only if the recorded pid is still the process that was started;
                # by tag whatever it left (a command with a group of its own).
                verified = await asyncio.to_thread(
                    ownership.is_process, found.pid, found.pid_started
                )
                tag = session_tag(found.owner, found.run_id) if found.run_id else None
                await asyncio.to_thread(proctree.kill_tree, found.pid if verified else None, tag)
            if await ownership.free(self.db, found):
                log.warning(
                    "ended work session %s of stopped instance %s",
                    found.conversation_id,
                    found.owner,
                )

    # -- sessions ------------------------------------------------------------------

    def live(self, conversation_id: int) -> Session | None:
        return self.sessions.get(conversation_id)

    async def admit(self, *, user_id: str, conversation_id: int | None) -> None:
        """Refuse before anything is stored: work mode off, or the person's limit reached
        (checked again, atomically, when the session starts)."""
        if not self.settings.work_enabled:
            raise cli.WorkUnavailable(cli.availability(self.settings).reason or "Work mode is off")
        if conversation_id is not None:
            if conversation_id in self.sessions or await self._owner(user_id, conversation_id):
                return
            row = await store.get_session(self.db, user_id=user_id, conversation_id=conversation_id)
            if row is not None and row.pending is not None and not row.pending.get("closed"):
                return  # parked on a permission question: it resumes, it does not add one
        count = await store.live_run_count(self.db, user_id=user_id)
        if count >= self.settings.work_max_sessions:
            raise self._too_many()

    async def prompt(
        self,
        *,
        user_id: str,
        conversation_id: int,
        text: str,
        reply_to: int | None = None,
        workspace: str | None = None,
    ) -> tuple[StoredMessage, Prompt]:
        """The person's prompt (`text` already checked by the work mode): refused before
        anything is stored (`admit`), then stored as their message (naming the conversation
        after its first, like a chat) and handed to the session without waiting."""
        await self.admit(user_id=user_id, conversation_id=conversation_id)
        message = await store.store(
            self.db,
            conversation_id=conversation_id,
            user_id=user_id,
            content=text,
            meta={},
            kind=MessageKind.message,
            role=Role.user,
            reply_to=reply_to,
        )
        await conversations.title_untitled(
            self.db,
            user_id=user_id,
            conversation_id=conversation_id,
            first_message_id=message.id,
            text=text,
        )
        prompt = await self.submit(
            user_id=user_id,
            conversation_id=conversation_id,
            text=text,
            after=message.id,
            workspace=workspace,
        )
        return message, prompt

    def _too_many(self) -> cli.TooManySessions:
        return cli.TooManySessions(
            f"At most {self.settings.work_max_sessions} work sessions can run at once;"
            " end one first",
            limit=self.settings.work_max_sessions,
        )

    async def submit(
        self,
        *,
        user_id: str,
        conversation_id: int,
        text: str,
        after: int,
        workspace: str | None = None,
    ) -> Prompt:
        """Hand a prompt to the session, here or (through the database) on the instance
        that owns it; `after` is the id of the person's stored message."""
        async with self._lock(conversation_id):
            routed = await self._route(user_id, conversation_id, workspace)
            if isinstance(routed, Session):
                return routed.submit(text, message_id=after)
        prompt = Prompt(text, message_id=after)
        await self._hand_over(routed, prompt, user_id=user_id, conversation_id=conversation_id)
        return prompt

    async def _route(
        self, user_id: str, conversation_id: int, workspace: str | None
    ) -> Session | str:
        """Under the conversation's lock: the session here a prompt goes to, started if need
        be, or the instance that holds the session. A session here that no longer takes
        prompts (being ended, finishing, parking its call) keeps it for the session that
        follows it (see `_drive`): a prompt never waits where nothing reads it, and the
        lease stays here until that session has started, so no other instance starts one
        beside it. One whose run was ended through another instance (its note not here
        yet) is ended now: the prompt came after that End, so it goes to a new session."""
        session = self.sessions.get(conversation_id)
        if session is not None:
            live = await store.run_live(self.db, user_id=user_id, run_id=session.run_id)
            if session.accepting and not live:
                await self._end_here(session)
            return session
        owner = await self._owner(user_id, conversation_id)
        if owner is not None:
            return owner
        started = await self._start(user_id, conversation_id, workspace, answer=None)
        assert started is not None
        return started

    async def _hand_over(
        self, owner: str, prompt: Prompt, *, user_id: str, conversation_id: int, hops: int = 0
    ) -> None:
        """A prompt for the session another instance holds: sent there, and followed."""
        await self._notify(
            owner,
            "prompt",
            conversation_id,
            user_id=user_id,
            text=prompt.text,
            message_id=prompt.message_id,
            hops=hops,
        )
        self._follow(prompt, conversation_id, user_id, owner)

    def _lock(self, conversation_id: int) -> asyncio.Lock:
        return self._starting.setdefault(conversation_id, asyncio.Lock())

    async def _start(
        self,
        user_id: str,
        conversation_id: int,
        workspace: str | None,
        *,
        answer: tuple[int, Decision] | None,
    ) -> Session | str | None:
        """Claim the session's lease and start it: to serve prompts, or (`answer`: the
        question and the person's decision) to resume the call parked on that question.
        The instance holding the lease instead, if another does; None if there was no
        parked call left to resume. What is parked is taken only under the lease, so a
        resume, a superseding prompt and the reaper never act on one session at once."""
        row = await store.get_session(self.db, user_id=user_id, conversation_id=conversation_id)
        stored = row.workspace if row else None
        name = workspace or cli.stored_name(stored, user_id=user_id)
        cwd = await asyncio.to_thread(cli.workspace_dir, self.settings, user_id=user_id, name=name)
        holder = await ownership.claim(
            self.db,
            owner=self.owner,
            conversation_id=conversation_id,
            user_id=user_id,
            workspace=cli.display_name(self.settings, cwd),
        )
        if holder != self.instance:
            assert holder is not None
            return holder  # another instance started it meanwhile: it serves the prompt
        try:
            if answer is not None:
                decision = await self._take_answered(user_id, conversation_id, *answer)
                if decision is None:  # resumed or superseded already
                    return None
                counted = False  # it was counted when it started
            else:
                decision, counted = await self._supersede(user_id, conversation_id)
            return await self._launch(user_id, conversation_id, cwd, decision, counted=counted)
        finally:
            if conversation_id not in self.sessions:  # nothing started (or it failed)
                await self._let_go(user_id, conversation_id)

    async def _let_go(self, user_id: str, conversation_id: int) -> None:
        """Release this instance's lease on the session: the one way it lets go of one,
        once the session is over or never started. A release that fails (the database away)
        costs nothing: the lease lapses on its own and the reaper frees it."""
        try:
            await ownership.release(
                self.db, owner=self.owner, user_id=user_id, conversation_id=conversation_id
            )
        except Exception:
            log.warning("could not release the lease of conversation %s", conversation_id)

    async def _take_answered(
        self, user_id: str, conversation_id: int, question_id: int, decision: Decision
    ) -> Resume | None:
        """Take the call parked on the answered question, once (see `store.take_pending`);
        None if it is not parked (any more), or its session was ended."""
        parked = await store.get_session(self.db, user_id=user_id, conversation_id=conversation_id)
        if parked is None or parked.pending is None or parked.pending.get("closed"):
            return None
        row = await store.take_pending(
            self.db, user_id=user_id, conversation_id=conversation_id, question_id=question_id
        )
        if row is None or row.pending is None:
            return None
        if decision is Decision.allow_session:
            tools = [*row.allowed_tools, row.pending["tool"]]
            await store.update_session(self.db, user_id, conversation_id, allowed_tools=tools)
        if row.run_id is not None:
            await store.end_run(
                self.db, user_id, row.run_id, status=RunStatus.completed, error=None
            )
        return _resume(row.pending, decision)

    async def _supersede(self, user_id: str, conversation_id: int) -> tuple[Resume | None, bool]:
        """A prompt while a deferred call waits: the person moved on. The call is denied
        when the session resumes, its question closes unanswered and its parked run ends
        (a run left `waiting_input` would wait forever). Also whether the new run counts
        towards the person's limit: not when it carries on a parked session."""
        row = await store.get_session(self.db, user_id=user_id, conversation_id=conversation_id)
        if row is None or row.pending is None:
            return None, True
        taken = await store.take_pending(
            self.db,
            user_id=user_id,
            conversation_id=conversation_id,
            question_id=int(row.pending["question_id"]),
        )
        if taken is None or taken.pending is None:
            return None, True
        if taken.run_id is not None:  # ending the run closes its open questions
            await store.end_run(
                self.db, user_id, taken.run_id, status=RunStatus.completed, error=None
            )
        counted = bool(taken.pending.get("closed"))  # ended: the session starts anew
        return _resume(taken.pending, Decision.deny), counted

    async def _launch(
        self,
        user_id: str,
        conversation_id: int,
        cwd: Any,
        decision: Resume | None,
        *,
        counted: bool,
    ) -> Session:
        run_id = await store.start_run_within_limit(
            self.db,
            user_id=user_id,
            conversation_id=conversation_id,
            title=f"Claude Code in {cwd.name}",
            instance=self.instance,
            limit=self.settings.work_max_sessions if counted else 1 << 30,
        )
        if run_id is None:
            raise self._too_many()
        row = await store.get_session(self.db, user_id=user_id, conversation_id=conversation_id)
        assert row is not None
        last_message_id = await store.last_message_id(
            self.db, user_id=user_id, conversation_id=conversation_id
        )
        found = await asyncio.to_thread(cli.availability, self.settings)  # may probe bwrap
        if not found.usable or found.cli is None:
            reason = found.reason or "Work mode is not available"
            await store.end_run(
                self.db,
                user_id,
                run_id,
                status=RunStatus.failed,
                error=reason,
                error_message=(conversation_id, user_id),
            )
            await store.update_session(self.db, user_id, conversation_id, status="ended")
            raise WorkFailed(reason, conversation_id=conversation_id)
        session = Session(
            self.services,
            conversation_id=conversation_id,
            user_id=user_id,
            run_id=run_id,
            cwd=cwd,
            cli=found.cli,
            resume=row.session_id,
            allowed_tools=row.allowed_tools,
            decision=decision,
            last_message_id=last_message_id,
        )
        self.sessions[conversation_id] = session
        session.task = asyncio.create_task(self._drive(session))
        return session

    async def _drive(self, session: Session) -> None:
        """Run the session, then act on how it ended. A parked call is stored before the
        lease is let go: whoever claims the session next finds it. Prompts that came once
        the session stopped taking them start the next session, the lease held throughout:
        its process starts only once the old one's tree is gone (`Session._finish`)."""
        outcome: Outcome = Ended(RunStatus.failed, "The work session stopped")
        carried: list[Prompt] = []
        try:
            outcome = await session.run()
        finally:
            # Parked, unregistered and let go (or handed on) as one step under the
            # conversation's lock: a prompt or an answer arriving meanwhile waits, then finds
            # the call stored and the next session started, or none.
            cid = session.conversation_id
            async with self._lock(cid):
                try:
                    if isinstance(outcome, Parked):
                        await self._park(session, outcome.deferred)
                finally:
                    if self.sessions.get(cid) is session:
                        del self.sessions[cid]
                    carried = session.take_carried()
                    if carried and not self._shutting_down:
                        await self._carry_over(session, carried)
                    else:
                        await self._let_go(session.user_id, cid)
            if carried and self._shutting_down:
                await self._refuse(cid, session.user_id, carried, UNANSWERED[RunStatus.cancelled])
        if carried:
            return  # the next session superseded a parked call
        if isinstance(outcome, Parked) and not self._shutting_down and session.ending is None:
            # Answered while it was being parked? Then it resumes now. (Shutting down: the
            # next start of any instance resumes it, see `_resume_answered`.)
            await self._resume_if_answered(
                session.user_id, session.conversation_id, outcome.deferred
            )

    async def _carry_over(self, session: Session, carried: list[Prompt]) -> None:
        """Start the session after this one for the prompts it could not take (under the
        conversation's lock, the lease still held: no gap for another instance)."""
        cid = session.conversation_id
        try:
            started = await self._start(session.user_id, cid, None, answer=None)
        except Exception as exc:  # the limit, work mode off...: each prompt is told why
            stored = isinstance(exc, WorkFailed)  # its reason is in the conversation already
            await self._refuse(cid, session.user_id, carried, str(exc), store_it=not stored)
            return
        if isinstance(started, Session):
            for prompt in carried:
                started.take(prompt)
        elif isinstance(started, str):  # freed by a reaper and taken by another instance
            for prompt in carried:
                await self._hand_over(started, prompt, user_id=session.user_id, conversation_id=cid)

    async def _refuse(
        self,
        conversation_id: int,
        user_id: str,
        prompts: list[Prompt],
        reason: str,
        *,
        store_it: bool = True,
    ) -> None:
        """Prompts no session will answer: stored as such (`meta.prompts`), then failed."""
        ids = [p.message_id for p in prompts if p.message_id is not None]
        try:
            if ids and store_it:
                await store.store(
                    self.db,
                    conversation_id=conversation_id,
                    user_id=user_id,
                    content=reason,
                    meta={"type": "error", "prompts": ids},
                    error=True,
                )
        finally:
            for prompt in prompts:
                if not prompt.future.done():
                    prompt.future.set_exception(SessionFailed(reason))

    async def _park(self, session: Session, deferred: dict[str, Any]) -> None:
        """A tool call was deferred: keep it, with its question, until the answer; closed
        if the person ended the session meanwhile (see `store.park`)."""
        await store.park(
            self.db,
            user_id=session.user_id,
            conversation_id=session.conversation_id,
            run_id=session.run_id,
            deferred=deferred,
            ended=session.ending is RunStatus.completed,
        )

    async def _resume_answered(self) -> None:
        """Parked calls whose question was answered while no instance could resume them
        (the answer came as the server that parked them shut down): resume them now."""
        if self._shutting_down:
            return
        for row in await store.answered_pending(self.db):
            try:
                await self._resume_if_answered(row.user_id, row.conversation_id, row.pending or {})
            except Exception:  # the conversation says why; the others go on
                log.exception("could not resume conversation %s", row.conversation_id)

    async def _resume_if_answered(
        self, user_id: str, conversation_id: int, deferred: dict[str, Any]
    ) -> None:
        """The question may have been answered while its call was being parked."""
        question_id = int(deferred["question_id"])
        state = await get_question(self.db, caller=Caller(user_id), question_id=question_id)
        decision = decision_of(state)
        if decision is not None:
            await self.answered(
                user_id=user_id,
                conversation_id=conversation_id,
                question_id=question_id,
                decision=decision,
            )

    async def answered(
        self, *, user_id: str, conversation_id: int, question_id: int, decision: Decision
    ) -> None:
        """The person answered a permission question (the answer is stored). A live
        session's in-band wait takes it (woken by the question's event, on any instance);
        a parked call is resumed by whichever instance claims the session's lease first
        (the one that parked it, if it still holds it, resumes it once it lets go)."""
        if self._shutting_down:
            return  # the next start resumes it (_resume_answered)
        async with self._lock(conversation_id):
            if conversation_id in self.sessions or self._shutting_down:
                return
            await self._start(user_id, conversation_id, None, answer=(question_id, decision))

    async def stop(self, user_id: str, conversation_id: int) -> bool:
        session = self.sessions.get(conversation_id)
        if session is not None:
            return await session.interrupt()
        owner = await self._owner(user_id, conversation_id)
        if owner is None:
            return False
        await self._notify(owner, "stop", conversation_id, user_id=user_id)
        row = await store.get_session(self.db, user_id=user_id, conversation_id=conversation_id)
        return row is not None and row.status == "working"

    async def end(
        self,
        *,
        user_id: str,
        conversation_id: int,
        run_id: int | None = None,
        wait: bool = False,
    ) -> bool:
        """End by the person, answered at once: the End is recorded (run completed, status
        ended: what every instance shows) and the process tree is sent SIGKILL; the
        session's task waits for the tree to be gone, stores what it leaves unanswered and
        lets go (or starts the next session for a prompt that came meanwhile) in the
        background, `wait` to wait for that too. Through an instance that does not hold the
        session, the End is recorded there and the holder told, which acts on the note, or
        on the run it finds ended (`_ended_elsewhere`) if the note is lost. `run_id`: only
        while that run is the session's (a note or a check for a run since replaced)."""
        ended: store.EndedSession | None = None
        async with self._lock(conversation_id):  # a session being started is ended once started
            session = self.sessions.get(conversation_id)
            if session is not None:
                if run_id not in (None, session.run_id):
                    return False  # a newer session than the one that was ended
                await self._end_here(session)
            elif run_id is None:  # not served here: a parked call, or another instance's
                ended = await store.end_session(
                    self.db, user_id=user_id, conversation_id=conversation_id
                )
        if session is not None:
            if wait and session.task is not None:
                await asyncio.wait({session.task})
            return True
        if ended is None:
            return False
        if ended.owner is not None and ended.owner != self.instance:
            await self._notify(
                ended.owner, "end", conversation_id, user_id=user_id, run_id=ended.run_id
            )
        return ended.was_live

    async def _end_here(self, session: Session) -> None:
        """Under the conversation's lock: the session takes no more prompts, its End is
        recorded, its tree is sent SIGKILL and its task cancelled (not waited for)."""
        if not session.close(RunStatus.completed):
            return  # being ended already
        await store.end_session(
            self.db,
            user_id=session.user_id,
            conversation_id=session.conversation_id,
            run_id=session.run_id,
        )
        await session.kill(RunStatus.completed, wait=False)

    # -- sessions on other instances ---------------------------------------------------

    async def _owner(self, user_id: str, conversation_id: int) -> str | None:
        """The other instance holding the session's lease, if one does."""
        holder = await ownership.holder(self.db, user_id=user_id, conversation_id=conversation_id)
        return holder if holder and holder != self.instance else None

    async def _notify(self, to: str, action: str, conversation_id: int, **extra: Any) -> None:
        note = {"to": to, "action": action, "conversation_id": conversation_id, **extra}
        async with self.db.connection() as conn:
            await store_hosts.notify(conn, channel=WORK_CHANNEL, payload=json.dumps(note))

    def _on_payload(self, payload: str) -> None:
        try:
            note = json.loads(payload)
        except ValueError:
            return
        if note.get("to") == self.instance:
            self._spawn(self._handle_note(note))

    def _spawn(self, work: Any) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _handle_note(self, note: dict[str, Any]) -> None:
        conversation_id = int(note["conversation_id"])
        try:
            if note["action"] == "prompt":
                user_id, text = note["user_id"], note["text"]
                async with self._lock(conversation_id):
                    routed = await self._route(user_id, conversation_id, None)
                    if isinstance(routed, Session):
                        prompt = routed.submit(text, message_id=note.get("message_id"))
                if isinstance(routed, Session):
                    prompt.future.add_done_callback(lambda f: f.cancelled() or f.exception())
                elif int(note.get("hops") or 0) < MAX_HOPS:  # held elsewhere now: passed on
                    await self._notify(
                        routed,
                        "prompt",
                        conversation_id,
                        user_id=user_id,
                        text=text,
                        message_id=note.get("message_id"),
                        hops=int(note.get("hops") or 0) + 1,
                    )
            elif note["action"] == "stop":
                await self.stop(note["user_id"], conversation_id)
            elif note["action"] == "end":
                run_id = note.get("run_id")
                await self.end(
                    user_id=note["user_id"],
                    conversation_id=conversation_id,
                    run_id=int(run_id) if run_id is not None else None,
                )
        except Exception:  # the sender only sees what is stored in the conversation
            log.exception(
                "could not act on %s for conversation %s", note["action"], conversation_id
            )

    def _follow(self, prompt: Prompt, conversation_id: int, user_id: str, owner: str) -> None:
        self._spawn(self._follow_remote(prompt, conversation_id, user_id, owner))

    async def _follow_remote(
        self, prompt: Prompt, conversation_id: int, user_id: str, owner: str
    ) -> None:
        """A prompt served elsewhere: its stored messages, read as they come, and its result
        (the closing message naming it in `meta.prompts`, or one naming none). It fails when
        the session stores an error for it. It follows the session to whichever instance
        holds it; should the holder let go without answering it (the note came after that
        session had gone), this instance takes the prompt over, starting the session itself
        (or handing it to whoever did): a message is one prompt however often it is handed
        over."""
        assert prompt.message_id is not None
        after = prompt.message_id
        last_text = ""
        gone = False
        try:
            while not prompt.future.done():
                try:
                    async with self.db.connection() as conn:
                        found = await message_store.messages_after(
                            conn,
                            user_id=user_id,
                            conversation_id=conversation_id,
                            after=after,
                            limit=200,
                        )
                except DatabaseUnavailable:  # a restart: the session goes on meanwhile
                    await asyncio.sleep(FOLLOW_SECONDS)
                    continue
                for message in found:
                    after = message.id
                    prompt.publish(events.MESSAGE, message_json(message))
                    meta = message.meta or {}
                    if meta.get("type") == "text":
                        last_text = message.content
                    if message.kind != "output" or meta.get("type") not in ("result", "error"):
                        continue
                    if prompt.message_id not in meta.get("prompts", [prompt.message_id]):
                        continue  # another prompt's
                    if meta.get("session_id"):
                        prompt.tool_calls = message.tool_calls or []
                        prompt.future.set_result(remote_result(message, last_text))
                    else:
                        prompt.future.set_exception(SessionFailed(message.content))
                    return
                try:
                    holder = await ownership.holder(
                        self.db, user_id=user_id, conversation_id=conversation_id
                    )
                except DatabaseUnavailable:
                    holder = owner  # not known to have let go: read again
                if holder is not None and holder != self.instance:
                    owner, gone = holder, False
                elif not gone:
                    # Let go, or now this instance's: a result is stored before the lease is
                    # let go, so one more read finds it if there is one.
                    gone = True
                    continue
                else:
                    await self._take_over(prompt, conversation_id, user_id)
                    return
                await asyncio.sleep(FOLLOW_SECONDS)
        except Exception as exc:
            if not prompt.future.done():
                failure = exc if isinstance(exc, SessionFailed) else None
                prompt.future.set_exception(
                    failure or SessionFailed(f"Lost track of the session: {exc}")
                )

    async def _take_over(self, prompt: Prompt, conversation_id: int, user_id: str) -> None:
        """A followed prompt no instance took: this one routes it like its own."""
        async with self._lock(conversation_id):
            try:
                routed = await self._route(user_id, conversation_id, None)
            except Exception as exc:  # the limit, work mode off...: the prompt is told why
                stored = isinstance(exc, WorkFailed)
                await self._refuse(
                    conversation_id, user_id, [prompt], str(exc), store_it=not stored
                )
                return
            if isinstance(routed, Session):
                answering = routed.take(prompt)
        if not isinstance(routed, Session):
            self._follow(prompt, conversation_id, user_id, routed)
        elif answering is not prompt:  # queued here already (its note came after all)
            answering.echo(prompt)
