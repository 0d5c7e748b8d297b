"""A tool call of Claude Code running outside Parley, decided for the person: by their
approval rules at once, else by a permission question in their inbox, answered like any
other (`questions.answer`: the web card, a notification's button, REST).

One call (the agent's, by Claude Code's `tool_use_id`) is asked about once: a hook run
again, after a restart of either side, finds the same question and waits on it again. What
nobody answers before the question's deadline is decided by its default: the asking rule's
`on_timeout`, else deny.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import partial
from typing import Any

import asyncpg

from parley import audit
from parley.approvals import decide as approvals
from parley.approvals.rules import MAX_MACHINE
from parley.auth import Caller
from parley.db import Database
from parley.errors import InvalidInput, NotFound
from parley.messages.store import StoredMessage
from parley.models import MAX_BIGINT
from parley.permission_requests import store
from parley.questions import ask as asking
from parley.questions import store as questions_store
from parley.questions.escalation import Escalation, OnTimeout
from parley.questions.expiry import TIMEOUT_AUTHOR
from parley.questions.status import QuestionStatus
from parley.questions.store import QuestionState
from parley.questions.words import DECISION_TEXT, Decision
from parley.realtime.waits import Waits
from parley.runs import inbox
from parley.runs.messages import post_question
from parley.text import clean

# Who asks when the person's own token calls (a script, CI with the person's token): Claude
# Code, the agent Parley's own work sessions are too, so an agent rule for it covers both.
PERSON_AGENT = "claude-code"
MAX_TOOL_NAME = 200
MAX_ID = 200
MAX_PATH = 4096
MAX_QUESTION = 4000


@dataclass(slots=True)
class Outcome:
    """Where a request stands: `pending` (its question is open) or `decided`."""

    id: int | None  # the question's id; None when a rule decided without asking
    status: str
    decision: str | None  # allow | deny, once decided
    reason: str
    rule_id: int | None  # the rule that decided, or the ask rule that asked
    decided_by: str | None  # rule | person | timeout | closed


class _Taken(Exception):
    """Another request claimed this call first: its question is the one."""


def _line(value: str, *, field: str, most: int) -> str:
    return "" if not value.strip() else clean(value, field=field, max_chars=most, one_line=True)


def describe(tool: str, tool_input: dict[str, Any]) -> str:
    """A tool call as one readable line: the command, the file, else the input."""
    if tool == "Bash" and isinstance(tool_input.get("command"), str):
        return f"run `{tool_input['command']}`"
    for key in ("file_path", "notebook_path", "path", "url", "pattern"):
        if isinstance(tool_input.get(key), str):
            return f"use {tool}: {tool_input[key]}"
    return f"use {tool}: {json.dumps(tool_input)[:500]}"


def question_text(machine: str, tool: str, tool_input: dict[str, Any]) -> str:
    where = f" on {machine}" if machine else ""
    return f"Claude Code{where} wants to {describe(tool, tool_input)} — allow?"[:MAX_QUESTION]


async def request(
    db: Database,
    *,
    caller: Caller,
    tool_name: str,
    tool_input: dict[str, Any],
    tool_use_id: str,
    cwd: str = "",
    session_id: str = "",
    machine: str = "",
    home: str | None = None,
    question_timeout: float,
    remind_after: float | None = None,
) -> Outcome:
    """Decide a tool call now (a rule), or ask the person (an open question: `pending`),
    reminding them after `remind_after` minutes (a push, then an email with a link). The
    same call again (agent, `tool_use_id`) is the same request."""
    tool_name = clean(tool_name, field="tool_name", max_chars=MAX_TOOL_NAME, one_line=True)
    tool_use_id = clean(tool_use_id, field="tool_use_id", max_chars=MAX_ID, one_line=True)
    machine = _line(machine, field="machine", most=MAX_MACHINE)
    session_id = _line(session_id, field="session_id", most=MAX_ID)
    cwd = _line(cwd, field="cwd", most=MAX_PATH)
    home = _line(home or "", field="home", most=MAX_PATH) or None
    if not isinstance(tool_input, dict):
        raise InvalidInput("tool_input is an object", details=[{"field": "tool_input"}])
    agent = caller.agent or PERSON_AGENT
    user_id = caller.user_id
    found = await store.find(db, user_id=user_id, agent=agent, tool_use_id=tool_use_id)
    if found is not None:
        return await read(db, caller=caller, request_id=found.question_id)
    rule = await approvals.decide(
        db,
        user_id=user_id,
        agent=agent,
        machine=machine or None,
        tool=tool_name,
        tool_input=tool_input,
        cwd=cwd,
        home=home,
    )
    if rule is not None and rule.decision != "ask":
        await audit.record(
            db,
            user_id=user_id,
            kind="permission",
            asked=question_text(machine, tool_name, tool_input),
            tool=tool_name,
            tool_input=tool_input,
            agent=agent,
            machine=machine or None,
            decision=rule.decision,
            decided_by="rule",
            rule_id=rule.id,
            rule_pattern=rule.pattern,
            via="rule",
        )
        return Outcome(None, "decided", rule.decision, approvals.reason(rule), rule.id, "rule")
    permission = {
        "tool": tool_name,
        "input": tool_input,
        "tool_use_id": tool_use_id,
        "machine": machine,
        "cwd": cwd,
        "session_id": session_id,
    }
    if rule is not None:  # the ask rule whose default applies on timeout, as it was then
        permission["rule"] = {"id": rule.id, "pattern": rule.pattern, "on_timeout": rule.on_timeout}
    place = partial(
        _place,
        caller=Caller(user_id, agent),
        meta={"type": "permission", "permission": permission},
        claim={
            "user_id": user_id,
            "agent": agent,
            "tool_use_id": tool_use_id,
            "tool_name": tool_name,
            "machine": machine,
            "session_id": session_id,
            "cwd": cwd,
            "rule_id": rule.id if rule is not None else None,
        },
    )
    on_timeout = OnTimeout(rule.on_timeout) if rule is not None else OnTimeout.deny
    try:
        asked = await asking.ask(
            db,
            user_id=user_id,
            conversation_id=await inbox.inbox_id(db, user_id=user_id),
            place=place,
            text=question_text(machine, tool_name, tool_input),
            max_chars=None,
            timeout_s=question_timeout,
            default_timeout=question_timeout,
            escalation=Escalation(on_timeout, remind_after or None),
        )
    except _Taken:
        found = await store.find(db, user_id=user_id, agent=agent, tool_use_id=tool_use_id)
        assert found is not None  # committed by the request that took it
        return await read(db, caller=caller, request_id=found.question_id)
    rule_id = rule.id if rule is not None else None
    return Outcome(asked.id, "pending", None, "Waiting for the person", rule_id, None)


async def _place(
    conn: asyncpg.Connection,
    *,
    conversation_id: int,
    content: str,
    timeout_s: float,
    caller: Caller,
    meta: dict[str, Any],
    claim: dict[str, Any],
) -> StoredMessage:
    """The question, in the asking transaction: the call claimed first (a second request
    for it waits here for the first to commit, then finds it taken), then posted into the
    inbox as the agent's question."""
    if not await store.claim(conn, **claim):
        raise _Taken
    question = await post_question(
        conn,
        caller=caller,
        conversation_id=conversation_id,
        content=content,
        timeout_s=timeout_s,
        meta=meta,
    )
    await store.set_question(
        conn,
        user_id=claim["user_id"],
        agent=claim["agent"],
        tool_use_id=claim["tool_use_id"],
        question_id=question.id,
    )
    return question


async def _owned(db: Database, *, caller: Caller, request_id: int) -> store.Request:
    """The request, if the caller may see it: its agent, or its person (else 404)."""
    found = None
    if 1 <= request_id <= MAX_BIGINT:
        found = await store.by_question(db, user_id=caller.user_id, question_id=request_id)
    if found is None or (caller.agent is not None and found.agent != caller.agent):
        raise NotFound(f"Permission request {request_id} not found", request_id=request_id)
    return found


async def withdraw(db: Database, *, caller: Caller, request_id: int) -> Outcome:
    """The agent stopped waiting (Claude Code ended its hook: the person pressed Esc in the
    terminal, or the run was stopped): its question closes, so nobody answers a call that
    no longer waits. A request already decided stays as it was."""
    found = await _owned(db, caller=caller, request_id=request_id)
    await questions_store.close_recorded(  # a withdrawal, like any asker taking one back
        db,
        user_id=caller.user_id,
        question_ids=[request_id],
        decided_by="agent" if caller.agent else "person",
        decider=caller.agent,
        decision="withdrawn",
    )
    state = await asking.get_question(db, caller=caller, question_id=request_id)
    return outcome(state, found)


async def read(db: Database, *, caller: Caller, request_id: int) -> Outcome:
    found = await _owned(db, caller=caller, request_id=request_id)
    state = await asking.get_question(db, caller=caller, question_id=request_id)
    return outcome(state, found)


async def wait(
    db: Database, waits: Waits, *, caller: Caller, request_id: int, wait_s: float
) -> Outcome:
    """The request once decided, or after `wait_s` seconds still `pending` (ask again: the
    question is stored, so any instance, after any restart, waits on the same one)."""
    found = await _owned(db, caller=caller, request_id=request_id)
    state = await asking.wait_for_answer(
        db, waits, caller=caller, question_id=request_id, wait_s=wait_s
    )
    return outcome(state, found)


def _timed_out(state: QuestionState, verdict: str) -> str:
    """Names the rule whose default decided, so the person can find it and change it."""
    meta = state.question.meta or {}
    rule = (meta.get("permission") or {}).get("rule")
    if isinstance(rule, dict) and rule.get("pattern"):
        whose = f"of the approval rule {rule['pattern']} (rule {rule.get('id')})"
    else:
        whose = "when no approval rule matches"
    return f"Nobody answered in time: {verdict}, the default on timeout {whose}"


def outcome(state: QuestionState, found: store.Request) -> Outcome:
    """What the question's state decides, and the words Claude Code is told."""
    qid, rule_id = state.question.id, found.rule_id
    if state.status == QuestionStatus.open:
        return Outcome(qid, "pending", None, "Waiting for the person", rule_id, None)
    decision = asking.decision_of(state)
    answer = state.answer
    if decision is None or answer is None:
        why = "Nobody answered in time" if state.status == "timed_out" else "The question closed"
        return Outcome(qid, "decided", "deny", f"{why}: denied", rule_id, "closed")
    verdict = "deny" if decision is Decision.deny else "allow"
    if answer.author == TIMEOUT_AUTHOR:
        return Outcome(qid, "decided", verdict, _timed_out(state, verdict), rule_id, "timeout")
    said = answer.content.strip()
    plain = said in DECISION_TEXT.values()
    if verdict == "allow":
        reason = "Allowed by the person in Parley"
    else:
        reason = "The person denied this tool call" + ("" if plain else f": {said}")
    return Outcome(qid, "decided", verdict, reason, rule_id, "person")
