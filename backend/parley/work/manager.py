"""The instance's live work sessions: starting, limiting, answering, ending, recovering.

Each instance holds one PostgreSQL connection named after itself while it runs; a `running`
work run whose instance has no such connection was left by a dead server, so start-up marks
it failed and kills its process if it is still alive on this host.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import uuid
from typing import Any

import asyncpg
from claude_agent_sdk import ResultMessage

from parley import conversations, events
from parley.auth import Caller
from parley.config import Settings
from parley.conversations import StoredMessage
from parley.db import Database, asyncpg_dsn
from parley.errors import ParleyError
from parley.models import RunStatus
from parley.realtime.notifier import Notifier
from parley.realtime.waits import Waits
from parley.runs import questions
from parley.runs.questions import Decision
from parley.schemas import message_json
from parley.work import cli, proctree, store
from parley.work.session import Prompt, Resume, Session, SessionFailed, session_tag

log = logging.getLogger(__name__)

APP_PREFIX = "parley-work:"
# Messages for a session that lives on another instance: {"to", "action", ...}.
WORK_CHANNEL = "parley_work"
FOLLOW_SECONDS = 0.3
# How long shutdown waits for sessions asking the person to park their call.
PARK_SECONDS = 10.0


def remote_result(message: StoredMessage, text: str) -> ResultMessage:
    """A prompt's result as another instance stored it."""
    meta = message.meta or {}
    return ResultMessage(
        subtype="success",
        duration_ms=int(meta.get("duration_ms") or 0),
        duration_api_ms=0,
        is_error=meta.get("type") == "error",
        num_turns=int(meta.get("num_turns") or 0),
        session_id=str(meta.get("session_id") or ""),
        stop_reason=meta.get("stop_reason"),
        total_cost_usd=meta.get("cost_usd"),
        result=message.content if meta.get("type") == "error" else text,
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
        database_url: str,
        waits: Waits,
    ) -> None:
        self.db = db
        self.settings = settings
        self.notifier = notifier
        self.waits = waits  # permission questions are waited for like any question
        self.dsn = asyncpg_dsn(database_url)
        self.instance = f"{socket.gethostname()}/{uuid.uuid4().hex[:12]}"
        self.sessions: dict[int, Session] = {}
        self._shutting_down = False
        self._conn: asyncpg.Connection | None = None
        self._starting: dict[int, asyncio.Lock] = {}
        self._notes: set[asyncio.Task[Any]] = set()

    # -- lifetime of the instance --------------------------------------------------

    async def start(self) -> None:
        if not self.settings.work_enabled:
            return
        self._conn = await asyncpg.connect(
            self.dsn, server_settings={"application_name": APP_PREFIX + self.instance}
        )
        await self._conn.add_listener(WORK_CHANNEL, self._on_note)
        await self.recover()
        await self._resume_answered()

    async def _resume_answered(self) -> None:
        """Parked calls whose question was answered while no instance could resume them
        (the answer came as the server that parked them shut down): resume them now."""
        for row in await store.answered_pending(self.db):
            try:
                await self._resume_if_answered(row.user_id, row.conversation_id, row.pending or {})
            except Exception:  # the conversation says why; start-up goes on
                log.exception("could not resume conversation %s", row.conversation_id)

    async def recover(self) -> None:
        """Fail the runs of dead instances and kill their processes left on this host."""
        assert self._conn is not None
        live = await self._conn.fetch(
            "SELECT application_name FROM pg_stat_activity WHERE application_name LIKE $1",
            APP_PREFIX + "%",
        )
        instances = [row["application_name"][len(APP_PREFIX) :] for row in live]
        host = socket.gethostname()
        for run in await store.stale_runs(self._conn, live_instances=instances):
            pid, instance = run["pid"], run["instance"] or ""
            if instance.split("/")[0] == host:
                alive = pid if pid and proctree.is_claude(pid) else None
                tag = session_tag(instance, run["id"])
                await asyncio.to_thread(proctree.kill_tree, alive, tag)
            await store.end_run(
                self.db,
                run["id"],
                status=RunStatus.failed,
                error="The server running this session stopped",
            )
            if run["conversation_id"] is not None:
                await store.update_session(self.db, run["conversation_id"], status="ended")

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
            *(s.kill(RunStatus.cancelled, "The server shut down") for s in sessions),
            return_exceptions=True,
        )
        if self._conn is not None:
            with contextlib.suppress(Exception):
                await self._conn.close()

    # -- sessions ------------------------------------------------------------------

    def forget(self, session: Session) -> None:
        if self.sessions.get(session.conversation_id) is session:
            del self.sessions[session.conversation_id]

    def live(self, conversation_id: int) -> Session | None:
        return self.sessions.get(conversation_id)

    async def admit(self, *, user_id: str, conversation_id: int | None) -> None:
        """Refuse before anything is stored: work mode off, or the person's limit reached."""
        if not self.settings.work_enabled:
            raise cli.WorkUnavailable(cli.availability(self.settings).reason or "Work mode is off")
        if conversation_id is not None:
            if conversation_id in self.sessions or await self._owner(conversation_id):
                return
            row = await store.get_session(self.db, conversation_id=conversation_id)
            if row is not None and row.pending is not None:
                return  # parked on a permission question: it resumes, it does not add one
        count = await store.live_run_count(self.db, user_id=user_id)
        if count >= self.settings.work_max_sessions:
            raise cli.TooManySessions(
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
        where it lives; `after` is the id of the person's stored message."""
        if conversation_id not in self.sessions:
            owner = await self._owner(conversation_id)
            if owner is not None:
                prompt = Prompt(text)
                await self._notify(owner, "prompt", conversation_id, user_id=user_id, text=text)
                self._follow(prompt, conversation_id, after)
                return prompt
        session = await self.ensure(
            user_id=user_id, conversation_id=conversation_id, workspace=workspace
        )
        return session.submit(text)

    async def ensure(
        self,
        *,
        user_id: str,
        conversation_id: int,
        workspace: str | None = None,
        decision: Resume | None = None,
    ) -> Session:
        lock = self._starting.setdefault(conversation_id, asyncio.Lock())
        async with lock:
            session = self.sessions.get(conversation_id)
            if session is not None:
                return session
            row = await store.get_session(self.db, conversation_id=conversation_id)
            if row is not None and row.pending is not None and decision is None:
                decision = await self._supersede(row)
            return await self._start(user_id, conversation_id, workspace, row, decision)

    async def _supersede(self, row: store.SessionRow) -> Resume | None:
        """A prompt while a deferred call waits: the person moved on. The call is denied
        when the session resumes, its question closes unanswered and its parked run ends
        (a run left `waiting_input` would wait forever)."""
        assert row.pending is not None
        taken = await store.take_pending(
            self.db,
            conversation_id=row.conversation_id,
            question_id=int(row.pending["question_id"]),
        )
        if taken is None:  # an answer took it first: the resume it started serves this too
            return None
        if row.run_id is not None:  # ending the run closes its open questions
            await store.end_run(self.db, row.run_id, status=RunStatus.completed, error=None)
        return Resume(row.pending["tool_use_id"], Decision.deny)

    async def _start(
        self,
        user_id: str,
        conversation_id: int,
        workspace: str | None,
        row: store.SessionRow | None,
        decision: Resume | None,
    ) -> Session:
        name = workspace or (row.workspace if row else None)
        cwd = await asyncio.to_thread(cli.workspace_dir, self.settings, user_id=user_id, name=name)
        title = f"Claude Code in {cwd.name}"
        run_id = await store.start_run(
            self.db,
            user_id=user_id,
            conversation_id=conversation_id,
            title=title,
            instance=self.instance,
        )
        row = await store.upsert_session(
            self.db,
            conversation_id=conversation_id,
            user_id=user_id,
            workspace=cwd.name,
            run_id=run_id,
        )
        found = cli.availability(self.settings)
        if not found.usable or found.cli is None:
            reason = found.reason or "Work mode is not available"
            await store.end_run(
                self.db,
                run_id,
                status=RunStatus.failed,
                error=reason,
                error_message=(conversation_id, user_id),
            )
            await store.update_session(self.db, conversation_id, status="ended")
            raise WorkFailed(reason, conversation_id=conversation_id)
        if decision is not None:
            await store.update_session(self.db, conversation_id, pending=None)
        session = Session(
            self,
            conversation_id=conversation_id,
            user_id=user_id,
            run_id=run_id,
            cwd=cwd,
            cli=found.cli,
            resume=row.session_id,
            allowed_tools=row.allowed_tools,
            decision=decision,
        )
        self.sessions[conversation_id] = session
        session.task = asyncio.create_task(session.run())
        return session

    async def parked(self, session: Session, deferred: dict[str, Any]) -> None:
        """A tool call was deferred: keep it, with its question, until the answer."""
        await store.update_session(
            self.db, session.conversation_id, pending=deferred, status="waiting_permission"
        )
        await store.set_run(self.db, session.run_id, status="waiting_input", pid=None)
        self.forget(session)
        if self._shutting_down:
            return  # an answer that came meanwhile resumes it on the next start (recover)
        await self._resume_if_answered(session.user_id, session.conversation_id, deferred)

    async def _resume_if_answered(
        self, user_id: str, conversation_id: int, deferred: dict[str, Any]
    ) -> None:
        """The question may have been answered while its call was being parked."""
        question_id = int(deferred["question_id"])
        state = await questions.get_question(
            self.db, caller=Caller(user_id), question_id=question_id
        )
        decision = questions.decision_of(state)
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
        a parked call is resumed here, by whichever instance takes it first."""
        if conversation_id in self.sessions or self._shutting_down:
            return  # shutting down: the next start resumes it (_resume_answered)
        row = await store.take_pending(
            self.db, conversation_id=conversation_id, question_id=question_id
        )
        if row is None or row.pending is None:
            return
        if decision is Decision.allow_session:
            tools = [*row.allowed_tools, row.pending["tool"]]
            await store.update_session(self.db, conversation_id, allowed_tools=tools)
        if row.run_id is not None:
            await store.end_run(self.db, row.run_id, status=RunStatus.completed, error=None)
        await self.ensure(
            user_id=user_id,
            conversation_id=conversation_id,
            decision=Resume(row.pending["tool_use_id"], decision),
        )

    async def stop(self, conversation_id: int) -> bool:
        session = self.sessions.get(conversation_id)
        if session is not None:
            return await session.interrupt()
        owner = await self._owner(conversation_id)
        if owner is None:
            return False
        await self._notify(owner, "stop", conversation_id)
        row = await store.get_session(self.db, conversation_id=conversation_id)
        return row is not None and row.status == "working"

    async def end(self, *, conversation_id: int) -> bool:
        """End by the person: the process tree goes, the run is completed."""
        session = self.sessions.get(conversation_id)
        if session is not None:
            await session.kill(RunStatus.completed)
            # It may have parked a call as it ended: that ends too (its question closes).
            await self._end_stored(conversation_id)
            return True
        owner = await self._owner(conversation_id)
        if owner is not None:
            await self._notify(owner, "end", conversation_id)
            return True
        return await self._end_stored(conversation_id)

    async def _end_stored(self, conversation_id: int) -> bool:
        """End what the database keeps of a session no process serves: a parked call and
        its run (ending the run closes its open questions)."""
        row = await store.get_session(self.db, conversation_id=conversation_id)
        if row is None or row.run_id is None:
            return False
        await store.end_run(self.db, row.run_id, status=RunStatus.completed, error=None)
        # A parked call stays in Claude Code's transcript: kept, marked closed, so the next
        # prompt resumes by denying it instead of Claude Code asking it all over again.
        pending = {**row.pending, "closed": True} if row.pending else None
        await store.update_session(self.db, conversation_id, status="ended", pending=pending)
        return True

    # -- sessions on other instances ---------------------------------------------------

    async def _owner(self, conversation_id: int) -> str | None:
        """The live instance (not this one) whose process serves the conversation, if any."""
        async with self.db.connection() as conn:
            instance = await conn.fetchval(
                """SELECT r.instance FROM work_sessions w JOIN agent_runs r ON r.id = w.run_id
                WHERE w.conversation_id = $1 AND r.status = 'running'
                AND EXISTS (SELECT 1 FROM pg_stat_activity
                            WHERE application_name = $2 || r.instance)""",
                conversation_id,
                APP_PREFIX,
            )
        return instance if instance and instance != self.instance else None

    async def _notify(self, to: str, action: str, conversation_id: int, **extra: Any) -> None:
        note = {"to": to, "action": action, "conversation_id": conversation_id, **extra}
        async with self.db.connection() as conn:
            await conn.execute("SELECT pg_notify($1, $2)", WORK_CHANNEL, json.dumps(note))

    def _on_note(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        try:
            note = json.loads(payload)
        except ValueError:
            return
        if note.get("to") == self.instance:
            task = asyncio.create_task(self._handle_note(note))
            self._notes.add(task)
            task.add_done_callback(self._notes.discard)

    async def _handle_note(self, note: dict[str, Any]) -> None:
        conversation_id = int(note["conversation_id"])
        try:
            if note["action"] == "prompt":
                session = self.sessions.get(conversation_id) or await self.ensure(
                    user_id=note["user_id"], conversation_id=conversation_id
                )
                prompt = session.submit(note["text"])
                prompt.future.add_done_callback(lambda f: f.cancelled() or f.exception())
            elif note["action"] == "stop":
                await self.stop(conversation_id)
            elif note["action"] == "end":
                await self.end(conversation_id=conversation_id)
        except Exception:  # the sender only sees what is stored in the conversation
            log.exception(
                "could not act on %s for conversation %s", note["action"], conversation_id
            )

    def _follow(self, prompt: Prompt, conversation_id: int, after: int) -> None:
        task = asyncio.create_task(self._follow_remote(prompt, conversation_id, after))
        self._notes.add(task)
        task.add_done_callback(self._notes.discard)

    async def _follow_remote(self, prompt: Prompt, conversation_id: int, after: int) -> None:
        """A prompt served elsewhere: its stored messages, read as they come, and its result."""
        last_text = ""
        try:
            while True:
                async with self.db.connection() as conn:
                    found = await conversations.messages_after(
                        conn, conversation_id=conversation_id, after=after, limit=200
                    )
                for message in found:
                    after = message.id
                    prompt.publish(events.MESSAGE, message_json(message))
                    kind = (message.meta or {}).get("type")
                    if kind == "text":
                        last_text = message.content
                    if (
                        message.kind == "output"
                        and kind in ("result", "error")
                        and (message.meta or {}).get("session_id")
                    ):
                        prompt.future.set_result(remote_result(message, last_text))
                        return
                await asyncio.sleep(FOLLOW_SECONDS)
        except Exception as exc:
            if not prompt.future.done():
                prompt.future.set_exception(SessionFailed(f"Lost track of the session: {exc}"))
