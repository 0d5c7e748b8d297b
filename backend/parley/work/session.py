"""One live Claude Code process for one work conversation, owned by one task.

claude-agent-sdk's client must be used from the task that connected it, so a session is a
task that connects, serves the conversation's prompts one at a time, and disconnects;
others talk to it through its queue, `interrupt()` and `kill()`. Its `run()` returns what
happened (`Ended` or `Parked`) to whoever started it, which decides what follows: a
session knows nothing of the manager.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from claude_agent_sdk import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ClaudeSDKError,
    ResultMessage,
)

from parley.config import Settings
from parley.db import Database
from parley.errors import ParleyError
from parley.models import RunStatus
from parley.realtime.notifier import Notifier
from parley.realtime.waits import Waits
from parley.work import cli, jail, ownership, permissions, proctree, sandbox, store
from parley.work.asking import Asking
from parley.work.ownership import Owner
from parley.work.prompts import UNANSWERED, Ended, Outcome, Parked, Prompt, Resume, SessionFailed

# What a session takes and returns, importable from here as from their own module.
from parley.work.relay import Relay
from parley.work.replies import Replies
from parley.work.status import IllegalMove, WorkStatus, move
from parley.work.transport import ProcessTransport

log = logging.getLogger(__name__)

CONNECT_SECONDS = 30.0
# What Claude Code says when it is asked to resume a session it has no transcript of.
NO_TRANSCRIPT = "No conversation found with session ID"
STARTS_AFRESH = (
    "Claude Code had no record of this session's earlier turns (it was ended before it saved"
    " them, or they were kept elsewhere before sessions had homes of their own), so this"
    " session starts afresh: it does not remember what was said before."
)
# After a failed read, how long the process gets to show it has exited (and with what code).
EXIT_SEEN_SECONDS = 2.0


def session_tag(instance: str, run_id: int) -> str:
    return f"{instance}/{run_id}"


class Launch(Protocol):
    """How a session gets its transport: `ProcessTransport` (the one real way), or a
    scripted one in tests."""

    def __call__(
        self, argv: list[str], *, cwd: Path, env: dict[str, str], stdin: bool
    ) -> ProcessTransport: ...


@dataclass(frozen=True)
class Services:
    """What a session uses of its instance."""

    db: Database
    settings: Settings
    notifier: Notifier
    waits: Waits  # permission questions are waited for like any question
    owner: Owner
    relay: Relay  # how its sandboxed process reaches the model
    launch: Launch = ProcessTransport


class Session:
    def __init__(
        self,
        services: Services,
        *,
        conversation_id: int,
        user_id: str,
        run_id: int,
        cwd: Path,
        cli: Path,
        resume: str | None,
        allowed_tools: list[str],
        decision: Resume | None = None,
        last_message_id: int = 0,
    ) -> None:
        self.db = services.db
        self.settings = services.settings
        self.notifier = services.notifier
        self.waits = services.waits
        self.owner = services.owner
        self.launch = services.launch
        self.relay = services.relay
        self.conversation_id = conversation_id
        self.user_id = user_id
        self.run_id = run_id
        # In the environment of the process and of everything it starts: how `kill` finds
        # them all, even a background command whose shell has exited.
        self.tag = session_tag(services.owner.instance, run_id)
        self.cwd = cwd
        self.cli = cli
        self.decision = decision
        self.queue: asyncio.Queue[Prompt] = asyncio.Queue()
        # Prompts that came once it had stopped taking them: for the session after it.
        self.carried: list[Prompt] = []
        # The person's messages taken as prompts: the newest id, and the recent ones' prompts.
        self.last_message_id = last_message_id
        self._by_message: dict[int, Prompt] = {}
        self.status = WorkStatus.starting
        self.pid: int | None = None
        self.client: ClaudeSDKClient | None = None
        self.ending: RunStatus | None = None  # set when Parley itself ends the session
        self.end_error: str | None = None
        self.last_activity = time.monotonic()
        self.current: Prompt | None = None
        self._finishing = False
        self.task: asyncio.Task[None] | None = None
        self._transport: ProcessTransport | None = None
        self.asking = Asking(
            db=self.db,
            settings=self.settings,
            waits=self.waits,
            user_id=user_id,
            conversation_id=conversation_id,
            allowed_tools=allowed_tools,
            set_status=self._set_status,
        )
        self.replies = Replies(
            db=self.db,
            notifier=self.notifier,
            user_id=user_id,
            conversation_id=conversation_id,
            run_id=run_id,
            session_id=resume,
            questions=self.asking.questions,
            set_status=self._set_status,
        )

    @property
    def session_id(self) -> str | None:
        """Claude Code's id of the session, as its results last reported it."""
        return self.replies.session_id

    @session_id.setter
    def session_id(self, value: str | None) -> None:
        self.replies.session_id = value

    # -- control from other tasks --------------------------------------------------

    @property
    def accepting(self) -> bool:
        """Whether a prompt handed over now is this session's to answer: not once it is
        being ended or is finishing (its waiting prompts are answered or failed by then)."""
        return self.ending is None and not self._finishing

    def submit(self, text: str, *, message_id: int | None = None) -> Prompt:
        """The person's message `message_id` as a prompt of this session (see `take`)."""
        return self.take(Prompt(text, message_id=message_id))

    def take(self, prompt: Prompt) -> Prompt:
        """Queue a prompt, once: the same message handed over again (by a note from another
        instance and by the owner's own look at the conversation) is the prompt already
        queued, which is returned. A session that no longer takes prompts keeps it for the
        session after it (`carried`): never queued where nothing reads it."""
        if prompt.message_id is not None:
            known = self._by_message.get(prompt.message_id)
            if known is not None:
                return known
            self.last_message_id = max(self.last_message_id, prompt.message_id)
            self._by_message[prompt.message_id] = prompt
            while len(self._by_message) > 100:
                del self._by_message[next(iter(self._by_message))]
        if self.accepting:
            self.last_activity = time.monotonic()
            self.queue.put_nowait(prompt)
        else:
            self.carried.append(prompt)
        return prompt

    def take_carried(self) -> list[Prompt]:
        carried, self.carried = self.carried, []
        return carried

    def missed(self, message_id: int) -> bool:
        """Whether the person's message `message_id` never reached this session as a prompt
        (one sent through another instance whose note was lost)."""
        return message_id > self.last_message_id and message_id not in self._by_message

    async def interrupt(self) -> bool:
        if (
            self.status not in (WorkStatus.working, WorkStatus.waiting_permission)
            or self.client is None
        ):
            return False
        if self.current is not None:
            self.current.stopped = True
        await self.client.interrupt()
        return True

    def close(self, status: RunStatus, error: str | None = None) -> bool:
        """Stop taking prompts, to end as `status` (also while it finishes by itself: a call
        it parks then is kept closed); False if it was being ended already."""
        if self.ending is not None:
            return False
        self.ending = status
        self.end_error = error
        return True

    async def kill(self, status: RunStatus, error: str | None = None, *, wait: bool = True) -> None:
        """End the session and every process it started: its process group gets SIGKILL now,
        then the task sees it through (kills and waits for the rest of the tree, stores how
        it ended); with `wait`, until it has."""
        self.close(status, error)
        if self._transport is not None:
            await self._transport.kill()
        task = self.task
        if task is None or task.done() or task is asyncio.current_task():
            return
        # The task may have seen the exit and be storing how it ended (or parking its
        # call): then it is not cancelled, but waited for all the same (whoever ends a
        # session sees it ended).
        if not self._finishing:
            task.cancel()
        if wait:
            await asyncio.wait({task})

    # -- the owner task ------------------------------------------------------------

    async def run(self) -> Outcome:
        """Serve the conversation until the session ends or parks; the process is gone and
        the outcome stored (but for what the caller does with a parked call) on return."""
        outcome, error = RunStatus.completed, None
        try:
            if self.decision is not None:
                await self._apply_decision(self.decision)
            if self.replies.deferred is None:
                await self._serve()
        except asyncio.CancelledError:
            outcome, error = self.ending or RunStatus.cancelled, self.end_error
        except SessionFailed as failure:
            outcome, error = RunStatus.failed, str(failure)
        except Exception as exc:  # anything else the SDK raises: the run fails, visibly
            log.exception("work session %s failed", self.conversation_id)
            outcome, error = RunStatus.failed, f"Claude Code failed: {exc}"
        self._finishing = True
        if self.ending is not None:  # Parley ended it: whatever the process did then
            outcome, error = self.ending, self.end_error
        return await self._finish(outcome, error)

    async def _finish(self, outcome: RunStatus, error: str | None) -> Outcome:
        # Everything is gone before the lease is: a session started next cannot meet it.
        # Past the pid the event loop has collected, the tag still finds what it left.
        transport = self._transport
        started, live = (transport.pid, transport.live_pid) if transport else (None, None)
        killed = transport.killed if transport else []
        await asyncio.to_thread(proctree.kill_tree, live, self.tag, spare=started, also=killed)
        reason = error or UNANSWERED.get(outcome, "The work session ended before answering.")
        waiting = self._take_waiting()
        try:
            if self.replies.deferred is not None:
                # Prompts queued behind the deferred call: the person moved on, the next
                # session denies the call and answers them (before any that came later).
                self.carried[:0] = waiting
                waiting = []  # carried, not failed
                return Parked(self.replies.deferred)
            unanswered = [p.message_id for p in waiting if p.message_id is not None]
            failed = outcome is RunStatus.failed and error
            await store.end_run(
                self.db,
                self.user_id,
                self.run_id,
                status=outcome,
                error=error,
                error_message=(self.conversation_id, self.user_id) if failed else None,
                prompts=unanswered,
            )
            if unanswered and not failed:  # every prompt gets its answer, or is told why not
                await self.replies.store(
                    reason, {"type": "error", "prompts": unanswered}, error=True
                )
            await self._set_status(WorkStatus.ended)
            return Ended(outcome, error)
        finally:
            # Only now does a waiting client get its answer: the failure is on record first.
            for prompt in waiting:
                if not prompt.future.done():
                    prompt.future.set_exception(SessionFailed(reason))

    def _take_waiting(self) -> list[Prompt]:
        """The prompts it has taken and not answered, in order: the current one, then the
        queue (emptied: the session takes no prompts any more)."""
        waiting = [self.current] if self.current is not None else []
        while not self.queue.empty():
            waiting.append(self.queue.get_nowait())
        return [p for p in waiting if not p.future.done()]

    async def _serve(self) -> None:
        try:
            client, transport = await self._connect()
            await self._started(transport)
            exited = asyncio.create_task(transport.wait())
            try:
                await self._loop(client, exited)
            finally:
                exited.cancel()
        finally:
            connected, self.client = self.client, None
            if connected is not None:
                with contextlib.suppress(Exception):
                    await connected.disconnect()

    async def _connect(self) -> tuple[ClaudeSDKClient, ProcessTransport]:
        """Start the process and connect to it. A session id Claude Code has no transcript of
        (its first turn was cut before Claude Code wrote any, or its files are gone) is
        forgotten and the session starts afresh, and the conversation says so: otherwise
        every later message of the conversation would fail to start it."""
        while True:
            transport = await self._launch(
                cli.command(self.settings, self.cli, resume=self.session_id)
            )
            client = self.client = ClaudeSDKClient(
                self.asking.options(str(self.cwd)), transport=transport
            )
            try:
                async with asyncio.timeout(CONNECT_SECONDS):
                    await client.connect()
                return client, transport
            except Exception as exc:
                self.client = None
                with contextlib.suppress(Exception):
                    await client.disconnect()
                lost = any(NO_TRANSCRIPT in line for line in transport.stderr)
                if not (self.session_id and lost):
                    raise SessionFailed(transport.start_error(exc)) from exc
            self.session_id = None
            await store.update_session(self.db, self.user_id, self.conversation_id, session_id=None)
            await self.replies.store(STARTS_AFRESH, {"type": "status"})

    async def _launch(self, claude: list[str], *, stdin: bool = True) -> ProcessTransport:
        """`claude` in its person's sandbox, reaching the model through a relay channel of
        its own that closes when the process is gone."""
        try:
            jailed = await jail.enter(
                db=self.db,
                settings=self.settings,
                relay=self.relay,
                user_id=self.user_id,
                conversation_id=self.conversation_id,
                cwd=self.cwd,
                claude=claude,
                tag=self.tag,
            )
        except ParleyError as exc:  # no uid left, a home that is not a folder
            raise SessionFailed(f"Claude Code could not start: {exc.message}") from exc
        try:
            transport = self.launch(jailed.argv, cwd=Path("/"), env=jailed.env, stdin=stdin)
        except BaseException:
            await self.relay.close(jailed.channel)
            raise
        transport.cleanups.append(lambda: self.relay.close(jailed.channel))
        self._transport = transport
        return transport

    async def _started(self, transport: ProcessTransport) -> None:
        """Record the process in the run and in the lease (pid and start time: what the
        reaper checks before it kills anything)."""
        self.pid = transport.pid
        assert self.pid is not None
        started = await asyncio.to_thread(ownership.started_at, self.pid)
        await store.set_run(self.db, self.user_id, self.run_id, pid=self.pid, status="running")
        await ownership.set_process(
            self.db,
            owner=self.owner,
            user_id=self.user_id,
            conversation_id=self.conversation_id,
            pid=self.pid,
            started=started,
        )

    async def _loop(self, client: ClaudeSDKClient, exited: asyncio.Task[int]) -> None:
        await self._set_status(WorkStatus.idle)
        while True:
            idle_left = self.settings.work_idle_timeout - (time.monotonic() - self.last_activity)
            getter = asyncio.create_task(self.queue.get())
            try:
                done, _ = await asyncio.wait(
                    {getter, exited},
                    timeout=max(0.0, idle_left),
                    return_when=asyncio.FIRST_COMPLETED,
                )
            except asyncio.CancelledError:
                if getter.done() and not getter.cancelled():
                    self.current = getter.result()  # taken as it was ended: still unanswered
                raise
            finally:
                if not getter.done():
                    getter.cancel()
            if getter not in done:
                if exited in done:
                    raise SessionFailed(self._exit_error(exited.result()))
                if time.monotonic() - self.last_activity >= self.settings.work_idle_timeout:
                    self.close(RunStatus.timed_out, "Ended after being idle")
                    await self.replies.store(
                        "The work session ended after being idle.", {"type": "status"}
                    )
                    raise asyncio.CancelledError
                continue
            prompt = self.current = getter.result()
            await self._prompt(client, prompt, exited)
            if self.replies.deferred is not None:
                return

    async def _prompt(
        self, client: ClaudeSDKClient, prompt: Prompt, exited: asyncio.Task[int]
    ) -> None:
        self.current = prompt
        await self._set_status(WorkStatus.working)
        result: ResultMessage | None = None
        try:
            await client.query(prompt.text)
            async for message in client.receive_response():
                await self.replies.handle(message, self.current)
                if isinstance(message, ResultMessage):
                    result = message
        except Exception as exc:
            # The prompt stays `current`: `_finish` answers its waiting client once the failure
            # is stored.
            if await self._exit_code(exited) is not None:
                raise SessionFailed(self._exit_error(exited.result())) from exc
            raise
        if result is None:
            code = await self._exit_code(exited)
            raise SessionFailed(self._exit_error(code) if code is not None else "no result")
        self.current = None
        if not prompt.future.done():
            prompt.future.set_result(result)
        self.last_activity = time.monotonic()

    def _exit_error(self, code: int) -> str:
        assert self._transport is not None
        return self._transport.exit_error(code)

    @staticmethod
    async def _exit_code(exited: asyncio.Task[int]) -> int | None:
        """The process's exit code if it exits within a moment (a failed read is usually its
        exit, seen a little before the exit itself)."""
        await asyncio.wait({exited}, timeout=EXIT_SEEN_SECONDS)
        return exited.result() if exited.done() and not exited.cancelled() else None

    async def _set_status(self, status: WorkStatus) -> None:
        try:
            self.status = move(self.status, status)
        except IllegalMove:  # e.g. a late message from a process that was ended
            log.info("work session %s stays %s", self.conversation_id, self.status)
            return
        await store.set_status(
            self.db,
            self.user_id,
            self.conversation_id,
            run_id=self.run_id,
            status=self.status.value,
        )

    def park(self) -> bool:
        """At shutdown: a call waiting in-band for the person is deferred now instead of
        dying with the process (see `Asking.park`). True if the session was waiting."""
        if self.status is not WorkStatus.waiting_permission:
            return False
        self.asking.park()
        return True

    # -- starting the process ------------------------------------------------------

    # -- resuming a deferred tool call ---------------------------------------------

    async def _apply_decision(self, decision: Resume) -> None:
        """Resume the session once, in print mode, with a hook that answers the deferred
        call with the stored decision; Claude Code runs (or skips) it and carries on."""
        assert self.session_id is not None
        settings_json = permissions.resume_settings(
            self.settings,
            python=sandbox.python_runtime()[0],  # the sandbox's, at the same path
            tool_use_id=decision.tool_use_id,
            decision=decision.answer,
            allowed=self.asking.allowed_tools,
        )
        command = cli.resume_command(
            self.settings, self.cli, session_id=self.session_id, settings_json=settings_json
        )
        await self._set_status(WorkStatus.working)
        if decision.tool:  # its tool_use was stored before it parked; its result comes now
            self.replies.calls.use(decision.tool_use_id, decision.tool, decision.tool_input)
        transport = await self._launch(command)
        # No callbacks: the settings' command hook answers the call, as no live client could
        # once the process has been left to finish on its own.
        client = ClaudeSDKClient(ClaudeAgentOptions(cwd=str(self.cwd)), transport=transport)
        try:
            async with asyncio.timeout(CONNECT_SECONDS):
                await client.connect()
            await self._started(transport)
            # Nothing more to say: it runs the kept call, finishes the turn and exits.
            await transport.end_input()
            async for message in client.receive_messages():
                await self.replies.handle(message, self.current)
        except (ClaudeSDKError, TimeoutError) as exc:
            if self.replies.deferred is None:
                detail = " ".join(transport.stderr[-3:])[-500:]
                raise SessionFailed(
                    f"Claude Code could not resume the session: {detail or exc}"
                ) from exc
        finally:
            self.pid = None
            with contextlib.suppress(Exception):
                await client.disconnect()
