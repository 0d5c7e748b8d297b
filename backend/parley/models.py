"""The data model as SQLModel tables: the one definition of each entity. Alembic migrates the
schema from them (never create_all); row records and API schemas follow them."""

from __future__ import annotations

import enum
from collections.abc import Collection
from datetime import datetime
from typing import Any, TypeVar

import sqlalchemy as sa
from pydantic import BaseModel
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.dialects.postgresql.base import ischema_names
from sqlmodel import Field, SQLModel

NOW = sa.text("now()")


T = TypeVar("T")


def _fields(record: type) -> Collection[str]:
    """A record's field names: a pydantic model's fields, or a slots dataclass's slots."""
    if isinstance(record, type) and issubclass(record, BaseModel):
        return record.model_fields
    return record.__slots__  # type: ignore[attr-defined,no-any-return]


def columns(table: type[SQLModel], record: type | None = None, *, alias: str = "") -> str:
    """A SELECT list of the table's columns (those `record` has, when given), so queries and
    the row records that read them by name follow the table."""
    wanted = _fields(record) if record is not None else None
    prefix = f"{alias}." if alias else ""
    return ", ".join(
        prefix + c.name
        for c in table.__table__.columns  # type: ignore[attr-defined]
        if wanted is None or c.name in wanted
    )


def from_row(record: type[T], row: Any) -> T:
    """A row (read with `columns(table, record)`) as its record, field by field by name; a
    pydantic record (the wire shape itself) is validated."""
    values = {name: row[name] for name in _fields(record)}
    if issubclass(record, BaseModel):
        return record.model_validate(values)  # type: ignore[return-value]
    return record(**values)


class Xid8(sa.types.UserDefinedType[int]):
    """PostgreSQL's 64-bit transaction id (`xid8`), which SQLAlchemy has no type for."""

    cache_ok = True

    def get_col_spec(self, **_kw: Any) -> str:
        return "xid8"


ischema_names["xid8"] = Xid8  # so reflection (alembic's drift check) knows it too


def _writer_xid() -> Any:
    """The id of the transaction that wrote the row: how the realtime reader finds every
    committed row once, whatever order ids and commits came in (migration 0045). NULL for
    rows older than that revision."""
    return Field(
        default=None,
        sa_column=sa.Column(Xid8(), nullable=True, server_default=sa.text("pg_current_xact_id()")),
    )


def _person_key() -> Any:
    """`user_id` of a per-person table: part of its primary key, so of every key (a Citus
    cluster keeps each person's rows on one node by it; specs/scale.md). `text`, like the
    SQL functions' person argument: Citus runs a function on the person's node only when its
    statements filter by that very value, type and length included (migration 0060). User
    ids are checked, 64 characters at most, before they reach SQL (`auth.USER_ID_RE`)."""
    return Field(sa_column=sa.Column(sa.Text, primary_key=True, nullable=False))


def _ref(
    owner: str, column: str, table: str, ondelete: str | None = None
) -> sa.ForeignKeyConstraint:
    """A key from a per-person table to another: (user_id, column) → (user_id, its key).
    Never ON DELETE SET NULL, which would null user_id too (migration 0060)."""
    target = "message_id" if table == "questions" else "id"
    return sa.ForeignKeyConstraint(
        ["user_id", column],
        [f"{table}.user_id", f"{table}.{target}"],
        ondelete=ondelete,
        name=f"{owner}_{column}_fkey",
    )


def _conversation(*, nullable: bool = False, primary_key: bool = False) -> Any:
    """A column naming a conversation (a bigint: on a cluster, a node draws its ids)."""
    return Field(
        default=None,
        sa_column=sa.Column(sa.BigInteger, nullable=nullable, primary_key=primary_key),
    )


def _created() -> Any:
    return Field(
        sa_column=sa.Column(sa.DateTime(timezone=True), nullable=False, server_default=NOW)
    )


def _updated() -> Any:
    return Field(
        sa_column=sa.Column(
            sa.DateTime(timezone=True), nullable=False, server_default=NOW, onupdate=sa.func.now()
        )
    )


class ConversationMode(enum.StrEnum):
    chat = "chat"
    work = "work"
    inbox = "inbox"
    run = "run"
    delegation = "delegation"


class Role(enum.StrEnum):
    user = "user"
    assistant = "assistant"
    agent = "agent"
    system = "system"


class MessageKind(enum.StrEnum):
    message = "message"
    status = "status"
    question = "question"
    answer = "answer"
    delegation = "delegation"
    completion = "completion"
    error = "error"
    escalation = "escalation"
    output = "output"


class RunKind(enum.StrEnum):
    external = "external"
    work = "work"


class RunStatus(enum.StrEnum):
    running = "running"
    waiting_input = "waiting_input"
    completed = "completed"
    failed = "failed"
    cancelled = "cancelled"
    timed_out = "timed_out"


# The largest id a column holds: ids and numbers from a request are checked against these, so
# an out-of-range one is a 404 or a 422, never a database error.
MAX_INT = 2**31 - 1  # integer (agent_runs, tasks.number)
MAX_BIGINT = 2**63 - 1  # bigint (conversations, messages, questions, sessions, keys, passkeys)
MAX_TIMEOUT = 7 * 24 * 3600.0  # the longest a question, or a delegation unclaimed, waits (s)
TASK_TITLE_MAX = 500
CONVERSATION_TITLE_MAX = 200
RUN_TITLE_MAX = 200
DESCRIPTION_MAX = 5000
USER_ID_MAX = 64


class Task(SQLModel, table=True):
    __tablename__ = "tasks"
    __table_args__ = (
        sa.Index("uq_tasks_user_id_number", "user_id", "number", unique=True),
        sa.CheckConstraint("length(btrim(title)) BETWEEN 1 AND 500", name="ck_tasks_title"),
        sa.CheckConstraint(
            "description IS NULL OR length(description) <= 5000", name="ck_tasks_description"
        ),
    )

    # bigint: on a cluster a task is made on its person's node, which draws ids of its own.
    id: int | None = Field(
        default=None, sa_column=sa.Column(sa.BigInteger, primary_key=True, autoincrement=True)
    )
    user_id: str = _person_key()
    # What people, models and tools call the task: 1, 2, 3... per user, never reused.
    number: int = Field(nullable=False)
    title: str = Field(max_length=TASK_TITLE_MAX, nullable=False)
    description: str | None = Field(default=None, max_length=DESCRIPTION_MAX)
    completed: bool = Field(
        default=False, sa_column_kwargs={"server_default": sa.false(), "nullable": False}
    )
    created_at: datetime = _created()
    updated_at: datetime = _updated()


class TaskCounter(SQLModel, table=True):
    """The last task number each user was given."""

    __tablename__ = "task_counters"

    user_id: str = _person_key()
    last_number: int = Field(nullable=False)


class Conversation(SQLModel, table=True):
    __tablename__ = "conversations"
    __table_args__ = (
        sa.Index("ix_conversations_user_id_updated_at", "user_id", "updated_at"),
        # At most one inbox per user: agents write first into it.
        sa.Index(
            "uq_conversations_inbox",
            "user_id",
            unique=True,
            postgresql_where=sa.text("mode = 'inbox'"),
        ),
        # Each instance sweeps lapsed claims (parley.chat.lease): only claimed rows.
        sa.Index(
            "ix_conversations_claim_expiry",
            "turn_expires_at",
            postgresql_where=sa.text("turn_id IS NOT NULL"),
        ),
    )

    id: int | None = Field(
        default=None, sa_column=sa.Column(sa.BigInteger, primary_key=True, autoincrement=True)
    )
    user_id: str = _person_key()
    title: str = Field(
        default="New conversation", max_length=CONVERSATION_TITLE_MAX, nullable=False
    )
    mode: str = Field(
        default=ConversationMode.chat.value,
        sa_column=sa.Column(
            sa.Enum(
                ConversationMode,
                name="conversation_mode",
                values_callable=lambda e: [m.value for m in e],
            ),
            nullable=False,
        ),
    )
    # Optimistic-concurrency counter: +1 per finished turn.
    version: int = Field(default=0, sa_column_kwargs={"server_default": "0", "nullable": False})
    # The in-flight turn, if any: who holds it and until when. A claim past its expiry is
    # free to take, so a crashed server never locks a conversation for good.
    turn_id: str | None = Field(default=None, max_length=64)
    turn_expires_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=True)
    )
    created_at: datetime = _created()
    updated_at: datetime = _updated()
    # The person's read position: messages from others after it are unread.
    last_read_id: int = Field(
        default=0, sa_column=sa.Column(sa.BigInteger, nullable=False, server_default="0")
    )
    # The model the person chose for it (NULL: the configured one); `parley.assistant.catalog`.
    model: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
    # Archived: out of the list until restored; pinned: at the list's top. NULL when not.
    archived_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=True)
    )
    pinned_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=True)
    )


class Message(SQLModel, table=True):
    __tablename__ = "messages"
    __table_args__ = (
        # "last 50" and "after id" both walk this index: flat cost at any conversation size.
        sa.Index(
            "ix_messages_user_id_conversation_id_id",
            "user_id",
            "conversation_id",
            sa.text("id DESC"),
        ),
        sa.CheckConstraint("length(btrim(content)) > 0", name="ck_messages_content"),
        # Deleting a message looks up the replies to it (ON DELETE SET NULL).
        sa.Index(
            "ix_messages_reply_to", "reply_to", postgresql_where=sa.text("reply_to IS NOT NULL")
        ),
        sa.Index("ix_messages_xid", "xid"),
        # A message's replies and edits (its children): a branch switch walks down by these.
        sa.Index("ix_messages_parent", "user_id", "conversation_id", "parent_id"),
        # Search (parley/search.py): one GIN over (owner, words), so a person's search reads
        # only their own matches, however many other people's rows share the words.
        sa.Index(
            "ix_messages_search",
            "user_id",
            sa.text("to_tsvector('simple'::regconfig, content)"),
            postgresql_using="gin",
        ),
        # And (owner, trigrams) for words like the ones typed (a typo's; migration 0066).
        sa.Index(
            "ix_messages_trigrams",
            "user_id",
            "content",
            postgresql_using="gin",
            postgresql_ops={"content": "gin_trgm_ops"},
        ),
        _ref("messages", "conversation_id", "conversations", "CASCADE"),
        # A message is only deleted with its conversation, replies and all.
        _ref("messages", "reply_to", "messages", "CASCADE"),
    )

    id: int | None = Field(
        default=None,
        sa_column=sa.Column(sa.BigInteger, sa.Identity(always=False), primary_key=True),
    )
    conversation_id: int = _conversation()
    # The primary key (user_id, id) is also a person's messages newest first: search reads
    # these before the index above.
    user_id: str = _person_key()
    role: str = Field(
        sa_column=sa.Column(
            sa.Enum(Role, name="message_role", values_callable=lambda e: [m.value for m in e]),
            nullable=False,
        )
    )
    author: str | None = Field(default=None, max_length=200)
    kind: str = Field(
        default=MessageKind.message.value,
        sa_column=sa.Column(
            sa.Enum(
                MessageKind, name="message_kind", values_callable=lambda e: [m.value for m in e]
            ),
            nullable=False,
            server_default="message",
        ),
    )
    content: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    tool_calls: list[dict[str, Any]] | None = Field(
        default=None, sa_column=sa.Column(JSONB, nullable=True)
    )
    error: bool = Field(
        default=False, sa_column_kwargs={"server_default": sa.false(), "nullable": False}
    )
    reply_to: int | None = Field(default=None, sa_column=sa.Column(sa.BigInteger))
    meta: dict[str, Any] | None = Field(default=None, sa_column=sa.Column(JSONB, nullable=True))
    created_at: datetime = _created()
    xid: int | None = _writer_xid()
    # The message this one follows: a conversation's messages are a tree, an edit or a
    # regenerated reply being a sibling of the message it replaces (migration 0067). NULL for
    # a conversation's first message (and its edits).
    parent_id: int | None = Field(default=None, sa_column=sa.Column(sa.BigInteger))
    # On the branch the conversation shows: one path from a first message down. The history a
    # model reads, the thread the UI and agents read, are the shown messages only.
    shown: bool = Field(
        default=True, sa_column_kwargs={"server_default": sa.true(), "nullable": False}
    )


class AgentRun(SQLModel, table=True):
    __tablename__ = "agent_runs"
    __table_args__ = (
        sa.Index("ix_agent_runs_user_id_status", "user_id", "status"),
        sa.Index("ix_agent_runs_user_id_conversation_id", "user_id", "conversation_id"),
        # The silence sweep reads only running runs, oldest activity first.
        sa.Index(
            "ix_agent_runs_silent",
            "last_activity_at",
            postgresql_where=sa.text("status = 'running'"),
        ),
        sa.CheckConstraint("progress BETWEEN 0 AND 100", name="ck_agent_runs_progress"),
        # A deleted conversation's runs stay, without it (the trigger parley_detach_runs).
        _ref("agent_runs", "conversation_id", "conversations"),
        _ref("agent_runs", "parent_run_id", "agent_runs"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: str = _person_key()
    agent: str = Field(max_length=200, nullable=False)
    kind: str = Field(
        sa_column=sa.Column(
            sa.Enum(RunKind, name="run_kind", values_callable=lambda e: [m.value for m in e]),
            nullable=False,
        )
    )
    status: str = Field(
        default=RunStatus.running.value,
        sa_column=sa.Column(
            sa.Enum(RunStatus, name="run_status", values_callable=lambda e: [m.value for m in e]),
            nullable=False,
            server_default="running",
        ),
    )
    conversation_id: int | None = _conversation(nullable=True)
    parent_run_id: int | None = Field(default=None, sa_column=sa.Column(sa.Integer))
    started_at: datetime = _created()
    last_activity_at: datetime = _created()
    ended_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=True)
    )
    summary: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
    error: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
    pid: int | None = Field(default=None)
    instance: str | None = Field(default=None, max_length=200)
    title: str | None = Field(default=None, max_length=RUN_TITLE_MAX)
    progress: int | None = Field(default=None)
    latest_status: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
    # The end of the wait its agent is in (for a child's answer, a message): until then the
    # run is not silent, whatever `last_activity_at` says.
    waiting_until: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=True)
    )


class Question(SQLModel, table=True):
    """A question an agent asked (its message) and the wait for the person's answer."""

    __tablename__ = "questions"
    __table_args__ = (
        sa.Index(
            "ix_questions_open",
            "conversation_id",
            "message_id",
            postgresql_where=sa.text("status = 'open'"),
        ),
        sa.Index("ix_questions_due", "timeout_at", postgresql_where=sa.text("status = 'open'")),
        sa.Index(
            "ix_questions_answer_id", "answer_id", postgresql_where=sa.text("answer_id IS NOT NULL")
        ),
        sa.CheckConstraint(
            "status IN ('open', 'answered', 'timed_out', 'closed')", name="ck_questions_status"
        ),
        _ref("questions", "message_id", "messages", "CASCADE"),
        _ref("questions", "conversation_id", "conversations", "CASCADE"),
        _ref("questions", "run_id", "agent_runs"),
        # The answer is in the question's conversation: deleted only with it, question and all.
        _ref("questions", "answer_id", "messages", "CASCADE"),
    )

    message_id: int = Field(sa_column=sa.Column(sa.BigInteger, primary_key=True))
    user_id: str = _person_key()
    conversation_id: int = _conversation()
    run_id: int | None = Field(default=None, sa_column=sa.Column(sa.Integer))
    asked_by: str | None = Field(default=None, max_length=200)
    status: str = Field(
        default="open", sa_column=sa.Column(sa.Text, nullable=False, server_default="open")
    )
    answer_id: int | None = Field(default=None, sa_column=sa.Column(sa.BigInteger))
    timeout_at: datetime = Field(sa_column=sa.Column(sa.DateTime(timezone=True), nullable=False))
    created_at: datetime = _created()
    closed_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=True)
    )


class Delegation(SQLModel, table=True):
    """A thread in which a parent agent's run hands a task to a child agent's run."""

    __tablename__ = "delegations"
    __table_args__ = (
        sa.Index(
            "ix_delegations_pending",
            "user_id",
            "child_agent",
            "thread_id",
            postgresql_where=sa.text("status = 'pending'"),
        ),
        sa.Index("ix_delegations_parent_run_id", "parent_run_id"),
        sa.Index("ix_delegations_child_run_id", "child_run_id"),
        # Claims not yet acknowledged: re-delivered to their claimer, or released at lapse.
        sa.Index(
            "ix_delegations_unacked",
            "user_id",
            "child_agent",
            "thread_id",
            postgresql_where=sa.text("status = 'claimed' AND acked_at IS NULL"),
        ),
        sa.CheckConstraint(
            "status IN ('pending', 'claimed', 'completed', 'failed', 'escalated', 'cancelled',"
            " 'timed_out')",
            name="ck_delegations_status",
        ),
        _ref("delegations", "thread_id", "conversations", "CASCADE"),
        _ref("delegations", "parent_run_id", "agent_runs"),
        _ref("delegations", "child_run_id", "agent_runs"),
    )

    thread_id: int = _conversation(primary_key=True)
    user_id: str = _person_key()
    parent_run_id: int | None = Field(default=None, sa_column=sa.Column(sa.Integer))
    child_run_id: int | None = Field(default=None, sa_column=sa.Column(sa.Integer))
    parent_agent: str = Field(max_length=200, nullable=False)
    child_agent: str = Field(max_length=200, nullable=False)
    task: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    status: str = Field(
        default="pending", sa_column=sa.Column(sa.Text, nullable=False, server_default="pending")
    )
    result: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
    timeout_at: datetime = Field(sa_column=sa.Column(sa.DateTime(timezone=True), nullable=False))
    created_at: datetime = _created()
    claimed_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=True)
    )
    closed_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=True)
    )
    # Who claimed it (the key its process gave, if any), until when the claim holds unless
    # acknowledged, and when the child first acted in the thread (the claim reached it).
    claimer: str | None = Field(default=None, max_length=64)
    lease_until: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=True)
    )
    acked_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=True)
    )


class UserEvent(SQLModel, table=True):
    """A person's change log, the source of their event stream (triggers write it)."""

    __tablename__ = "user_events"
    __table_args__ = (sa.Index("ix_user_events_xid", "xid"),)

    id: int | None = Field(
        default=None,
        sa_column=sa.Column(sa.BigInteger, sa.Identity(always=False), primary_key=True),
    )
    user_id: str = _person_key()
    kind: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    action: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    ref: int = Field(sa_column=sa.Column(sa.BigInteger, nullable=False))
    data: dict[str, Any] | None = Field(default=None, sa_column=sa.Column(JSONB, nullable=True))
    created_at: datetime = _created()
    xid: int | None = _writer_xid()


class TurnToolCall(SQLModel, table=True):
    """A running turn's tool calls as they happen (parley.assistant.ledger): what a crashed turn
    did, and what a retry of it must not do again."""

    __tablename__ = "turn_tool_calls"
    __table_args__ = (
        sa.Index("ix_turn_tool_calls_turn_id", "turn_id"),
        sa.Index("ix_turn_tool_calls_conversation_prompt", "conversation_id", "prompt_id"),
        _ref("turn_tool_calls", "conversation_id", "conversations", "CASCADE"),
    )

    id: int | None = Field(
        default=None,
        sa_column=sa.Column(sa.BigInteger, sa.Identity(always=True), primary_key=True),
    )
    conversation_id: int = _conversation()
    user_id: str = _person_key()
    turn_id: str = Field(max_length=64, nullable=False)
    # The person's message the turn answers: a retry answers the same one.
    prompt_id: int = Field(sa_column=sa.Column(sa.BigInteger, nullable=False))
    tool: str = Field(max_length=200, nullable=False)
    parameters: dict[str, Any] = Field(sa_column=sa.Column(JSONB, nullable=False))
    result: Any = Field(default=None, sa_column=sa.Column(JSONB, nullable=True))  # None: running
    # Answered from this earlier record (a retry) instead of running again.
    replay_of: int | None = Field(default=None, sa_column=sa.Column(sa.BigInteger, nullable=True))
    created_at: datetime = _created()


class WorkSession(SQLModel, table=True):
    """What a work conversation's Claude Code session must keep beyond its process: the
    session id to resume, and a pending permission request with the exact tool call."""

    __tablename__ = "work_sessions"
    __table_args__ = (
        sa.Index("ix_work_sessions_owner", "owner", postgresql_where=sa.text("owner IS NOT NULL")),
        _ref("work_sessions", "conversation_id", "conversations", "CASCADE"),
        _ref("work_sessions", "run_id", "agent_runs"),
    )

    conversation_id: int = _conversation(primary_key=True)
    user_id: str = _person_key()
    run_id: int | None = Field(default=None, sa_column=sa.Column(sa.Integer, nullable=True))
    session_id: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
    workspace: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    # starting | working | waiting_permission | idle | ended
    status: str = Field(
        default="starting",
        sa_column=sa.Column(sa.Text, nullable=False, server_default="starting"),
    )
    cost_usd: float = Field(
        default=0.0, sa_column=sa.Column(sa.Float, nullable=False, server_default="0")
    )
    allowed_tools: list[str] = Field(
        default_factory=list,
        sa_column=sa.Column(JSONB, nullable=False, server_default="[]"),
    )
    pending: dict[str, Any] | None = Field(default=None, sa_column=sa.Column(JSONB, nullable=True))
    # The lease: the instance running the session's process, until when, and what identifies
    # the server and the process on their host (so a reaper kills only what was started).
    owner: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
    lease_expires_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=True)
    )
    host: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
    owner_pid: int | None = Field(default=None, sa_column=sa.Column(sa.Integer, nullable=True))
    owner_started: float | None = Field(default=None, sa_column=sa.Column(sa.Float, nullable=True))
    pid: int | None = Field(default=None, sa_column=sa.Column(sa.Integer, nullable=True))
    pid_started: float | None = Field(default=None, sa_column=sa.Column(sa.Float, nullable=True))
    updated_at: datetime = _created()


class WorkUid(SQLModel, table=True):
    """A person's own host uid for their work sessions' sandboxes (a server running as
    root): allocated once, never reused. Unique across everyone, so not a per-person table:
    on a cluster it stays on the coordinator (`parley.cluster.layout`)."""

    __tablename__ = "work_uids"
    __table_args__ = (sa.UniqueConstraint("uid", name="uq_work_uids_uid"),)

    user_id: str = Field(max_length=USER_ID_MAX, primary_key=True)
    uid: int = Field(sa_column=sa.Column(sa.Integer, nullable=False))
    created_at: datetime = _created()


def _tokens() -> Any:
    return Field(default=0, sa_column=sa.Column(sa.BigInteger, nullable=False, server_default="0"))


class WorkUsage(SQLModel, table=True):
    """The model tokens a person's work sessions used in one conversation, as the relay read
    them from the API's answers. No foreign key: what was spent stays when the
    conversation goes."""

    __tablename__ = "work_usage"

    user_id: str = _person_key()
    conversation_id: int = _conversation(primary_key=True)
    input_tokens: int = _tokens()
    output_tokens: int = _tokens()
    cache_creation_input_tokens: int = _tokens()
    cache_read_input_tokens: int = _tokens()
    requests: int = Field(
        default=0, sa_column=sa.Column(sa.Integer, nullable=False, server_default="0")
    )
    updated_at: datetime = _created()


# --- accounts and credentials (parley.accounts) ---------------------------------------------


def _when(nullable: bool = True) -> Any:
    return Field(default=None, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=nullable))


class Account(SQLModel, table=True):
    """A person who signs in. Their `user_id` is the one every other table is keyed by, so an
    account claims the data already stored under it. No secret is kept in clear."""

    __tablename__ = "accounts"
    # One account per verified email; an unverified one (typed, not proven) blocks nobody.
    __table_args__ = (
        sa.Index(
            "ux_accounts_verified_email",
            "email",
            unique=True,
            postgresql_where=sa.text("email_verified_at IS NOT NULL"),
        ),
    )

    user_id: str = Field(max_length=USER_ID_MAX, primary_key=True)
    # Normalised on the way in (`accounts.store.clean_email`): the same however it was typed.
    email: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
    # When its person proved they receive mail there (a link, an invite, the identity
    # provider); None: unverified, so it neither signs in nor joins a single sign-on.
    email_verified_at: datetime | None = _when()
    # Argon2id (PHC string); None for an account that signs in only by OIDC, passkey or dev.
    password_hash: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
    is_admin: bool = Field(
        default=False, sa_column=sa.Column(sa.Boolean, nullable=False, server_default=sa.false())
    )
    disabled_at: datetime | None = _when()
    # `parley token` JWTs issued (`iat`) at or before this are refused.
    tokens_revoked_at: datetime | None = _when()
    # The OIDC provider's subject this account is linked to (issuer-qualified).
    oidc_subject: str | None = Field(
        default=None, sa_column=sa.Column(sa.Text, nullable=True, unique=True)
    )
    created_at: datetime = _created()


class WebSession(SQLModel, table=True):
    """A signed-in browser: the cookie names it by a secret of which only the hash is kept."""

    __tablename__ = "web_sessions"
    __table_args__ = (sa.Index("ix_web_sessions_user_id", "user_id"),)

    id: int | None = Field(
        default=None,
        sa_column=sa.Column(sa.BigInteger, sa.Identity(always=True), primary_key=True),
    )
    token_hash: bytes = Field(sa_column=sa.Column(sa.LargeBinary, nullable=False, unique=True))
    user_id: str = Field(
        sa_column=sa.Column(
            sa.String(USER_ID_MAX),
            sa.ForeignKey("accounts.user_id", ondelete="CASCADE"),
            nullable=False,
        )
    )
    device: str = Field(sa_column=sa.Column(sa.Text, nullable=False, server_default=""))
    created_at: datetime = _created()
    last_seen_at: datetime = _created()
    expires_at: datetime = Field(sa_column=sa.Column(sa.DateTime(timezone=True), nullable=False))


class AgentKey(SQLModel, table=True):
    """A credential a person made for one of their agents; only the secret's hash is kept."""

    __tablename__ = "agent_keys"
    __table_args__ = (sa.Index("ix_agent_keys_user_id", "user_id"),)

    id: int | None = Field(
        default=None,
        sa_column=sa.Column(sa.BigInteger, sa.Identity(always=True), primary_key=True),
    )
    user_id: str = Field(max_length=USER_ID_MAX, nullable=False)
    agent: str = Field(max_length=USER_ID_MAX, nullable=False)
    prefix: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    secret_hash: bytes = Field(sa_column=sa.Column(sa.LargeBinary, nullable=False, unique=True))
    created_at: datetime = _created()
    expires_at: datetime | None = _when()
    last_used_at: datetime | None = _when()


class Invite(SQLModel, table=True):
    """A one-time sign-up link an admin (or the operator's CLI) made."""

    __tablename__ = "invites"

    id: int | None = Field(
        default=None,
        sa_column=sa.Column(sa.BigInteger, sa.Identity(always=True), primary_key=True),
    )
    token_hash: bytes = Field(sa_column=sa.Column(sa.LargeBinary, nullable=False, unique=True))
    email: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
    # When set, only this user id may be signed up with the invite (it may already own data).
    user_id: str | None = Field(default=None, max_length=USER_ID_MAX, nullable=True)
    is_admin: bool = Field(
        default=False, sa_column=sa.Column(sa.Boolean, nullable=False, server_default=sa.false())
    )
    created_by: str | None = Field(default=None, max_length=USER_ID_MAX, nullable=True)
    created_at: datetime = _created()
    expires_at: datetime = Field(sa_column=sa.Column(sa.DateTime(timezone=True), nullable=False))
    used_at: datetime | None = _when()
    used_by: str | None = Field(default=None, max_length=USER_ID_MAX, nullable=True)


class Passkey(SQLModel, table=True):
    """A WebAuthn credential registered to an account."""

    __tablename__ = "passkeys"
    __table_args__ = (sa.Index("ix_passkeys_user_id", "user_id"),)

    id: int | None = Field(
        default=None,
        sa_column=sa.Column(sa.BigInteger, sa.Identity(always=True), primary_key=True),
    )
    user_id: str = Field(
        sa_column=sa.Column(
            sa.String(USER_ID_MAX),
            sa.ForeignKey("accounts.user_id", ondelete="CASCADE"),
            nullable=False,
        )
    )
    credential_id: bytes = Field(sa_column=sa.Column(sa.LargeBinary, nullable=False, unique=True))
    public_key: bytes = Field(sa_column=sa.Column(sa.LargeBinary, nullable=False))
    sign_count: int = Field(
        default=0, sa_column=sa.Column(sa.BigInteger, nullable=False, server_default="0")
    )
    transports: list[str] = Field(
        default_factory=list, sa_column=sa.Column(JSONB, nullable=False, server_default="[]")
    )
    name: str = Field(sa_column=sa.Column(sa.Text, nullable=False, server_default=""))
    created_at: datetime = _created()
    last_used_at: datetime | None = _when()


class AuthChallenge(SQLModel, table=True):
    """A short-lived server-side state of a sign-in ceremony in flight (a WebAuthn challenge,
    an OIDC state with its nonce and PKCE verifier): any instance can finish it, once."""

    __tablename__ = "auth_challenges"

    id: str = Field(sa_column=sa.Column(sa.Text, primary_key=True))
    purpose: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    user_id: str | None = Field(default=None, max_length=USER_ID_MAX, nullable=True)
    data: dict[str, Any] = Field(sa_column=sa.Column(JSONB, nullable=False))
    expires_at: datetime = Field(sa_column=sa.Column(sa.DateTime(timezone=True), nullable=False))


class SecondFactor(SQLModel, table=True):
    """An account's authenticator app (TOTP): pending until a first code confirms it. The
    secret never leaves the server after setup; recovery codes are kept as digests only."""

    __tablename__ = "second_factors"

    user_id: str = Field(
        sa_column=sa.Column(
            sa.String(USER_ID_MAX),
            sa.ForeignKey("accounts.user_id", ondelete="CASCADE"),
            primary_key=True,
        )
    )
    secret: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    enabled_at: datetime | None = _when()
    last_step: int | None = Field(default=None, sa_column=sa.Column(sa.BigInteger, nullable=True))
    recovery_hashes: list[bytes] = Field(
        default_factory=list,
        sa_column=sa.Column(ARRAY(sa.LargeBinary), nullable=False, server_default="{}"),
    )
    created_at: datetime = _created()


class LoginThrottle(SQLModel, table=True):
    """Recent failed sign-ins per account and per address, shared by every instance."""

    __tablename__ = "login_throttle"

    key: str = Field(sa_column=sa.Column(sa.Text, primary_key=True))
    failures: int = Field(sa_column=sa.Column(sa.Integer, nullable=False))
    last_failure_at: datetime = _created()
    locked_until: datetime | None = _when()


# --- Web Push (parley.push; migration 0049) ---


def _bool(default: bool) -> Any:
    return Field(
        default=default,
        sa_column=sa.Column(
            sa.Boolean, nullable=False, server_default=sa.true() if default else sa.false()
        ),
    )


class PushSubscription(SQLModel, table=True):
    """A device that receives Web Push: the browser's PushSubscription (its endpoint at the
    browser's push service and the keys its messages are encrypted for)."""

    __tablename__ = "push_subscriptions"
    __table_args__ = (
        sa.UniqueConstraint("user_id", "endpoint", name="uq_push_subscriptions_endpoint"),
    )

    id: int | None = Field(
        default=None,
        sa_column=sa.Column(sa.BigInteger, sa.Identity(always=True), primary_key=True),
    )
    user_id: str = _person_key()
    endpoint: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    p256dh: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    auth: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    label: str = Field(sa_column=sa.Column(sa.Text, nullable=False, server_default=""))
    created_at: datetime = _created()
    last_sent_at: datetime | None = _when()


class NotificationPrefs(SQLModel, table=True):
    """Which kinds of event notify the person (no row: the defaults)."""

    __tablename__ = "notification_prefs"

    user_id: str = _person_key()
    question: bool = _bool(True)
    run_failed: bool = _bool(True)
    message: bool = _bool(False)
    email_reminders: bool = _bool(True)


class PersonInstructions(SQLModel, table=True):
    """What the person asks the assistant to keep in mind on every turn (no row: nothing)."""

    __tablename__ = "person_instructions"

    user_id: str = _person_key()
    text: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    updated_at: datetime = _updated()


class ConversationMute(SQLModel, table=True):
    """A conversation the person muted: nothing in it notifies."""

    __tablename__ = "conversation_mutes"
    __table_args__ = (_ref("conversation_mutes", "conversation_id", "conversations", "CASCADE"),)

    conversation_id: int = _conversation(primary_key=True)
    user_id: str = _person_key()
    created_at: datetime = _created()


class PushOutbox(SQLModel, table=True):
    """One push to send to one device; at most one per (device, kind, event)."""

    __tablename__ = "push_outbox"
    __table_args__ = (
        sa.UniqueConstraint(
            "user_id", "subscription_id", "kind", "ref", name="uq_push_outbox_once"
        ),
        _ref("push_outbox", "subscription_id", "push_subscriptions", "CASCADE"),
        sa.CheckConstraint(
            "kind IN ('question', 'reminder', 'question_closed', 'run_failed', 'message')",
            name="ck_push_outbox_kind",
        ),
        sa.CheckConstraint("status IN ('pending', 'sent', 'failed')", name="ck_push_outbox_status"),
        sa.Index("ix_push_outbox_due", "next_at", postgresql_where=sa.text("status = 'pending'")),
        sa.Index("ix_push_outbox_ref", "ref", "kind"),
        sa.Index("ix_push_outbox_xid", "xid"),
    )

    id: int | None = Field(
        default=None,
        sa_column=sa.Column(sa.BigInteger, sa.Identity(always=True), primary_key=True),
    )
    subscription_id: int = Field(sa_column=sa.Column(sa.BigInteger, nullable=False))
    user_id: str = _person_key()
    kind: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    ref: int = Field(sa_column=sa.Column(sa.BigInteger, nullable=False))
    conversation_id: int | None = _conversation(nullable=True)
    status: str = Field(sa_column=sa.Column(sa.Text, nullable=False, server_default="pending"))
    attempts: int = Field(sa_column=sa.Column(sa.Integer, nullable=False, server_default="0"))
    next_at: datetime = _created()
    lease_until: datetime | None = _when()
    created_at: datetime = _created()
    sent_at: datetime | None = _when()
    last_error: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
    xid: int | None = _writer_xid()


class QuestionEscalation(SQLModel, table=True):
    """What happens to a question nobody answers: a reminder push, then an email, and at
    its deadline an expiry or a default decision."""

    __tablename__ = "question_escalations"
    __table_args__ = (
        sa.CheckConstraint(
            "on_timeout IN ('expire', 'deny', 'allow')", name="ck_question_escalations_on_timeout"
        ),
        sa.Index(
            "ix_question_escalations_due",
            "next_at",
            postgresql_where=sa.text("next_at IS NOT NULL"),
        ),
        _ref("question_escalations", "question_id", "questions", "CASCADE"),
    )

    question_id: int = Field(sa_column=sa.Column(sa.BigInteger, primary_key=True))
    user_id: str = _person_key()
    on_timeout: str = Field(sa_column=sa.Column(sa.Text, nullable=False, server_default="expire"))
    remind_after: float | None = Field(default=None, nullable=True)
    stage: int = Field(sa_column=sa.Column(sa.SmallInteger, nullable=False, server_default="0"))
    next_at: datetime | None = _when()


class PushVapid(SQLModel, table=True):
    """The server's VAPID key, made once by whichever instance starts first (unless set by
    PARLEY_VAPID_PRIVATE_KEY): every instance signs with the same key."""

    __tablename__ = "push_vapid"

    id: int = Field(sa_column=sa.Column(sa.SmallInteger, primary_key=True))
    private_pem: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    created_at: datetime = _created()


class McpCall(SQLModel, table=True):
    """A tool call remembered by its client's call id for a day: a re-sent copy gets the
    first one's result (or its wait) instead of running again."""

    __tablename__ = "mcp_calls"
    __table_args__ = (sa.Index("ix_mcp_calls_created_at", "created_at"),)

    user_id: str = _person_key()
    caller: str = Field(max_length=200, primary_key=True)  # the agent's name; "" the person's
    key: str = Field(max_length=200, primary_key=True)
    tool: str = Field(max_length=200, nullable=False)
    result: dict[str, Any] | None = Field(default=None, sa_column=sa.Column(JSONB, nullable=True))
    wait: str | None = Field(default=None, max_length=64, nullable=True)
    started_at: datetime = _created()
    created_at: datetime = _created()


class OAuthClient(SQLModel, table=True):
    """An OAuth client of `/mcp`: registered (RFC 7591), or a fetched Client ID Metadata
    Document kept for a while (its `client_id` is the document's URL)."""

    __tablename__ = "oauth_clients"

    client_id: str = Field(sa_column=sa.Column(sa.Text, primary_key=True))
    source: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    info: dict[str, Any] = Field(sa_column=sa.Column(JSONB, nullable=False))
    fetched_at: datetime = _created()


class OAuthGrant(SQLModel, table=True):
    """A connected app: a person allowed one client to act as one of their agents."""

    __tablename__ = "oauth_grants"
    __table_args__ = (sa.Index("ix_oauth_grants_user_id", "user_id"),)

    id: int | None = Field(
        default=None,
        sa_column=sa.Column(sa.BigInteger, sa.Identity(always=True), primary_key=True),
    )
    user_id: str = Field(
        sa_column=sa.Column(
            sa.String(USER_ID_MAX),
            sa.ForeignKey("accounts.user_id", ondelete="CASCADE"),
            nullable=False,
        )
    )
    agent: str = Field(max_length=USER_ID_MAX, nullable=False)
    client_id: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    client_name: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    created_at: datetime = _created()
    last_used_at: datetime | None = _when()


class OAuthToken(SQLModel, table=True):
    """An access or refresh token of a connected app; only its SHA-256 is kept. A refresh
    token's `used_at` marks it rotated (presenting it again revokes the app)."""

    __tablename__ = "oauth_tokens"
    __table_args__ = (sa.Index("ix_oauth_tokens_grant_id", "grant_id"),)

    token_hash: bytes = Field(sa_column=sa.Column(sa.LargeBinary, primary_key=True))
    grant_id: int = Field(
        sa_column=sa.Column(
            sa.BigInteger, sa.ForeignKey("oauth_grants.id", ondelete="CASCADE"), nullable=False
        )
    )
    kind: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    resource: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    expires_at: datetime = Field(sa_column=sa.Column(sa.DateTime(timezone=True), nullable=False))
    used_at: datetime | None = _when()


DEVICE_STATUSES = ("pending", "approved", "denied", "redeemed")


class DeviceCode(SQLModel, table=True):
    """A device authorization in flight (RFC 8628, `parley.device`): the program polls with
    the device code, the person enters the user code in the web UI; only digests are kept.
    Approved once, redeemed once, for at most its lifetime."""

    __tablename__ = "device_codes"
    __table_args__ = (
        sa.CheckConstraint(
            "status IN ('pending', 'approved', 'denied', 'redeemed')",
            name="ck_device_codes_status",
        ),
        sa.CheckConstraint(
            "(status = 'pending') = (user_id IS NULL)",
            name="ck_device_codes_person",
        ),
        sa.Index("ix_device_codes_address", "address"),
        sa.Index("ix_device_codes_expires_at", "expires_at"),
    )

    id: int | None = Field(
        default=None,
        sa_column=sa.Column(sa.BigInteger, sa.Identity(always=True), primary_key=True),
    )
    device_hash: bytes = Field(sa_column=sa.Column(sa.LargeBinary, nullable=False, unique=True))
    user_code_hash: bytes = Field(sa_column=sa.Column(sa.LargeBinary, nullable=False, unique=True))
    client_id: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    # What asks, from a fixed list ("Claude Code"), and the machine it says it runs on.
    application: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    machine: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    # The client address that asked for the code (counted: pending codes per address).
    address: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    interval_seconds: int = Field(sa_column=sa.Column(sa.Integer, nullable=False))
    status: str = Field(sa_column=sa.Column(sa.Text, nullable=False, server_default="pending"))
    # The person who approved (or denied) it.
    user_id: str | None = Field(default=None, max_length=USER_ID_MAX, nullable=True)
    created_at: datetime = _created()
    expires_at: datetime = Field(sa_column=sa.Column(sa.DateTime(timezone=True), nullable=False))
    polled_at: datetime | None = _when()
    decided_at: datetime | None = _when()


APPROVAL_DECISIONS = ("allow", "deny", "ask")
APPROVAL_SCOPES = ("all", "agent", "machine")
APPROVAL_TIMEOUTS = ("allow", "deny")
APPROVAL_SOURCES = ("hand", "always")


def _one_of(column: str, values: tuple[str, ...]) -> sa.CheckConstraint:
    listed = ", ".join(f"'{v}'" for v in values)
    return sa.CheckConstraint(f"{column} IN ({listed})", name=f"ck_approval_rules_{column}")


class ApprovalRule(SQLModel, table=True):
    """A person's standing answer to a kind of tool call, in Claude Code's rule syntax
    (`parley.approvals`): allow or deny it without asking, or always ask; for every agent,
    one agent or one machine. One pattern has one decision in a scope."""

    __tablename__ = "approval_rules"
    __table_args__ = (
        sa.PrimaryKeyConstraint("user_id", "id"),
        sa.UniqueConstraint(
            "user_id", "pattern", "scope", "scope_value", name="uq_approval_rules_pattern"
        ),
        _one_of("decision", APPROVAL_DECISIONS),
        _one_of("scope", APPROVAL_SCOPES),
        _one_of("on_timeout", APPROVAL_TIMEOUTS),
        _one_of("source", APPROVAL_SOURCES),
    )

    user_id: str = _person_key()
    id: int | None = Field(
        default=None,
        sa_column=sa.Column(sa.BigInteger, sa.Identity(always=True), primary_key=True),
    )
    decision: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    pattern: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    scope: str = Field(sa_column=sa.Column(sa.Text, nullable=False, server_default="all"))
    # The agent's name or the machine's; "" for every agent.
    scope_value: str = Field(sa_column=sa.Column(sa.Text, nullable=False, server_default=""))
    on_timeout: str = Field(sa_column=sa.Column(sa.Text, nullable=False, server_default="deny"))
    note: str = Field(sa_column=sa.Column(sa.Text, nullable=False, server_default=""))
    source: str = Field(sa_column=sa.Column(sa.Text, nullable=False, server_default="hand"))
    # The permission question an "always allow" answered (no key: a question may go).
    question_id: int | None = Field(default=None, sa_column=sa.Column(sa.BigInteger, nullable=True))
    created_at: datetime = _created()
    updated_at: datetime = _updated()


class PermissionRequest(SQLModel, table=True):
    """A tool call of Claude Code running outside Parley that asked the person
    (`parley.permission_requests`): the agent's call, by Claude Code's id, and the question
    asking about it, so the same call sent again waits on the same question."""

    __tablename__ = "permission_requests"
    __table_args__ = (
        sa.PrimaryKeyConstraint("user_id", "agent", "tool_use_id"),
        sa.Index("ix_permission_requests_question", "user_id", "question_id"),
    )

    user_id: str = _person_key()
    agent: str = Field(sa_column=sa.Column(sa.Text, primary_key=True, nullable=False))
    tool_use_id: str = Field(sa_column=sa.Column(sa.Text, primary_key=True, nullable=False))
    # Set in the transaction that claims the row (no key: a question may go).
    question_id: int | None = Field(default=None, sa_column=sa.Column(sa.BigInteger, nullable=True))
    tool_name: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    machine: str = Field(sa_column=sa.Column(sa.Text, nullable=False, server_default=""))
    session_id: str = Field(sa_column=sa.Column(sa.Text, nullable=False, server_default=""))
    cwd: str = Field(sa_column=sa.Column(sa.Text, nullable=False, server_default=""))
    # The ask rule that asked, if one did.
    rule_id: int | None = Field(default=None, sa_column=sa.Column(sa.BigInteger, nullable=True))
    created_at: datetime = _created()


AUDIT_KINDS = ("question", "permission")
AUDIT_DECISIONS = ("allow", "allow_session", "deny", "answer", "timed_out", "withdrawn")
AUDIT_DECIDERS = ("person", "rule", "timeout_default", "agent")
AUDIT_VIAS = ("web", "push_action", "email_link", "mcp", "rest", "rule", "timeout")


def _audit_one_of(column: str, values: tuple[str, ...]) -> sa.CheckConstraint:
    listed = ", ".join(f"'{v}'" for v in values)
    return sa.CheckConstraint(f"{column} IN ({listed})", name=f"ck_audit_events_{column}")


class AuditEvent(SQLModel, table=True):
    """One decision on a person's question or permission request (`parley.audit`): what was
    asked, by which agent from which machine, what was decided, by whom or which rule,
    through what, and how long it waited. Only added to; kept PARLEY_AUDIT_DAYS."""

    __tablename__ = "audit_events"
    __table_args__ = (
        sa.PrimaryKeyConstraint("user_id", "id"),
        _audit_one_of("kind", AUDIT_KINDS),
        _audit_one_of("decision", AUDIT_DECISIONS),
        _audit_one_of("decided_by", AUDIT_DECIDERS),
        _audit_one_of("via", AUDIT_VIAS),
        sa.CheckConstraint("waited_ms >= 0", name="ck_audit_events_waited_ms"),
        sa.Index("ix_audit_events_decided_at", "decided_at"),
    )

    user_id: str = _person_key()
    id: int | None = Field(
        default=None,
        sa_column=sa.Column(sa.BigInteger, sa.Identity(always=True), primary_key=True),
    )
    kind: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    asked: str = Field(sa_column=sa.Column(sa.Text, nullable=False, server_default=""))
    tool: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
    tool_input: Any = Field(default=None, sa_column=sa.Column(JSONB, nullable=True))
    agent: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
    machine: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
    # No keys to the question or the rule: either may go, the record stays.
    question_id: int | None = Field(default=None, sa_column=sa.Column(sa.BigInteger, nullable=True))
    conversation_id: int | None = Field(
        default=None, sa_column=sa.Column(sa.BigInteger, nullable=True)
    )
    decision: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    answer: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
    decided_by: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    decider: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
    rule_id: int | None = Field(default=None, sa_column=sa.Column(sa.BigInteger, nullable=True))
    rule_pattern: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
    via: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    device_id: int | None = Field(default=None, sa_column=sa.Column(sa.BigInteger, nullable=True))
    session_id: int | None = Field(default=None, sa_column=sa.Column(sa.BigInteger, nullable=True))
    asked_at: datetime = Field(sa_column=sa.Column(sa.DateTime(timezone=True), nullable=False))
    decided_at: datetime = _created()
    waited_ms: int = Field(sa_column=sa.Column(sa.BigInteger, nullable=False, server_default="0"))


class Attachment(SQLModel, table=True):
    """A file a person attached to a message (`parley.attachments`): uploaded first, then
    sent with at most one message of one conversation, and deleted with it. `kind` and
    `content_type` are what the bytes were found to be, never what the upload claimed."""

    __tablename__ = "attachments"
    __table_args__ = (
        sa.PrimaryKeyConstraint("user_id", "id"),
        _ref("attachments", "conversation_id", "conversations", "CASCADE"),
        _ref("attachments", "message_id", "messages", "CASCADE"),
        sa.CheckConstraint("kind IN ('text', 'image')", name="ck_attachments_kind"),
        sa.CheckConstraint("size >= 0 AND size = length(data)", name="ck_attachments_size"),
        sa.CheckConstraint("length(name) BETWEEN 1 AND 255", name="ck_attachments_name"),
        sa.Index(
            "ix_attachments_message",
            "user_id",
            "message_id",
            postgresql_where=sa.text("message_id IS NOT NULL"),
        ),
    )

    user_id: str = _person_key()
    id: int | None = Field(
        default=None,
        sa_column=sa.Column(sa.BigInteger, sa.Identity(always=True), primary_key=True),
    )
    name: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    kind: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    content_type: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    size: int = Field(sa_column=sa.Column(sa.BigInteger, nullable=False))
    data: bytes = Field(sa_column=sa.Column(sa.LargeBinary, nullable=False))
    conversation_id: int | None = Field(
        default=None, sa_column=sa.Column(sa.BigInteger, nullable=True)
    )
    message_id: int | None = Field(default=None, sa_column=sa.Column(sa.BigInteger, nullable=True))
    turn_id: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
    created_at: datetime = _created()
