"""The one store of `messages`: every statement that reads or writes the table is here, and
so is every call of a database function that writes it (parley/sql/*.sql).

A message is written by `parley_append_message` alone (migration 0004): this module's
`append`, and inside the functions that store one as part of a larger step (a turn's start
and finish, a post), which only this module calls (a branch switch moves `shown` only). Other
aggregates that show a message beside their own rows (a question, a push, a reminder) join it
through
`joined`, and conversation statements take its counts and previews from the fragments here,
so the table's name, key and columns are written in this file only
(tests/test_message_store.py fails otherwise). Every statement names the owner's user id:
on a Citus cluster that is what sends it to the one node holding the person's rows.
"""

from __future__ import annotations

from typing import Any

import asyncpg

from parley.models import Message, MessageKind, Role, columns
from parley.schemas import MessageOut

__all__ = ["MESSAGE_COLUMNS", "StoredMessage"]


class StoredMessage(MessageOut):
    """A row of `messages`, validated by column name: the wire shape (`MessageOut`, the one
    definition of a message's fields) plus what stays inside the server. Its fields are the
    table's columns (tests/test_models.py checks it)."""

    user_id: str
    xid: int | None = None  # the writing transaction's id (realtime.reader); not sent out
    shown: bool = True  # on the branch the conversation shows


MESSAGE_COLUMNS = columns(Message)
_FIELDS = tuple(StoredMessage.model_fields)


def prefixed(alias: str) -> str:
    """The columns of the message joined as `alias`, each as `<alias>_<column>`."""
    return ", ".join(f"{alias}.{c} AS {alias}_{c}" for c in _FIELDS)


def record(row: Any, prefix: str = "") -> StoredMessage:
    """A row read with `MESSAGE_COLUMNS` (or `prefixed`, with its prefix) as the record."""
    return StoredMessage(**{c: row[prefix + c] for c in _FIELDS})


# -- fragments other aggregates' statements are built with ------------------------------


def joined(alias: str, *, user: str, message_id: str, left: bool = False) -> str:
    """A join of the message `message_id` (an SQL expression) of `user` as `alias`; with the
    owner in the condition it stays on that person's node."""
    on = f"{alias}.user_id = {user} AND {alias}.id = {message_id}"
    return f"LEFT JOIN messages {alias} ON {on}" if left else f"JOIN messages {alias} ON {on}"


# Unread: messages from others (agents, the assistant, the system) after the person's stored
# read position. Counting stops at UNREAD_CAP: a badge says "999+", it never scans millions.
UNREAD_CAP = 999


def unread_sql(person: str) -> str:
    """The unread count of conversation `c`, owned by `person` (a statement's parameter:
    on a cluster, a subquery filtered by the very value the statement is routed by keeps it
    to that person's node)."""
    return f"""(SELECT count(*) FROM (
    SELECT 1 FROM messages u
    WHERE u.user_id = {person} AND u.conversation_id = c.id AND u.id > c.last_read_id
      AND u.role <> 'user' AND u.shown
    LIMIT {UNREAD_CAP}) unread_rows)"""


def last_of_conversation(person: str, alias: str) -> str:
    """A lateral join of conversation `c`'s newest message (its content and time) as `alias`.
    `= ANY(ARRAY[c.id])` keeps it to the (conversation_id, id DESC) index (see `_LAST`)."""
    return f"""LEFT JOIN LATERAL (
    SELECT m.content, m.created_at FROM messages m
    WHERE m.user_id = {person} AND m.conversation_id = ANY(ARRAY[c.id]) AND m.shown
    ORDER BY m.conversation_id, m.id DESC LIMIT 1
) {alias} ON true"""


def person_wrote_before(person: str, conversation: str, before: str) -> str:
    """Whether the person wrote in `conversation` before the message id `before`."""
    return (
        f"EXISTS (SELECT 1 FROM messages WHERE user_id = {person}"
        f" AND conversation_id = {conversation} AND role = 'user' AND id < {before})"
    )


# -- reads ------------------------------------------------------------------------------


async def latest_id(conn: asyncpg.Connection, *, user_id: str, conversation_id: int) -> int:
    """The conversation's newest message id, 0 if it has none."""
    latest = await conn.fetchval(
        "SELECT max(id) FROM messages WHERE user_id = $2 AND conversation_id = $1",
        conversation_id,
        user_id,
    )
    return int(latest or 0)


# Both read the shown branch only (`shown`, migration 0067): what the UI lists, what agents'
# tools read, what the realtime hub delivers.
# `conversation_id = ANY([id])` rather than `= id`: with a plain equality PostgreSQL may walk
# the primary key backwards and filter, which gets slower with every message written since
# (in any conversation); this form can only be served, in order, by the
# (conversation_id, id DESC) index, so reading the last 50 costs the same at any size.
_LAST = f"""SELECT {MESSAGE_COLUMNS} FROM messages
WHERE user_id = $3 AND conversation_id = ANY($1::bigint[]) AND shown
ORDER BY conversation_id, id DESC LIMIT $2"""
# The index backwards: (conversation_id DESC, id ASC), i.e. ascending ids.
_AFTER = f"""SELECT {MESSAGE_COLUMNS} FROM messages
WHERE user_id = $4 AND conversation_id = ANY($1::bigint[]) AND id > $2 AND shown
ORDER BY conversation_id DESC, id LIMIT $3"""


async def messages_after(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int, after: int, limit: int
) -> list[StoredMessage]:
    rows = await conn.fetch(_AFTER, [conversation_id], after, limit, user_id)
    return [StoredMessage(**row) for row in rows]


async def last_messages(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int, limit: int
) -> list[StoredMessage]:
    """The newest `limit` messages, oldest first; walks (conversation_id, id DESC) only."""
    rows = await conn.fetch(_LAST, [conversation_id], limit, user_id)
    return [StoredMessage(**row) for row in reversed(rows)]


async def get(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int, message_id: int
) -> StoredMessage | None:
    """The message, if it is one of this conversation's."""
    row = await conn.fetchrow(
        f"SELECT {MESSAGE_COLUMNS} FROM messages"
        " WHERE user_id = $3 AND id = $1 AND conversation_id = $2",
        message_id,
        conversation_id,
        user_id,
    )
    return StoredMessage(**row) if row is not None else None


# Each set of siblings (messages with one parent) that has a shown member: a fork of the
# conversation, where the UI offers a switch.
_BRANCHES = """SELECT max(id) FILTER (WHERE shown) AS shown_id, array_agg(id ORDER BY id) AS ids
FROM messages WHERE user_id = $2 AND conversation_id = ANY($1::bigint[])
GROUP BY parent_id HAVING count(*) > 1 AND bool_or(shown)
ORDER BY shown_id"""


async def branches(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int
) -> list[tuple[int, list[int]]]:
    """Each shown message that has siblings, with all of them (itself included), oldest
    first; in the order they are shown."""
    rows = await conn.fetch(_BRANCHES, [conversation_id], user_id)
    return [(row["shown_id"], list(row["ids"])) for row in rows]


async def show_branch(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int, message_id: int
) -> int:
    """`parley_show_branch` (parley/sql/show_branch.sql): the conversation's version after.
    Its refusals are `asyncpg` errors, `parley.chat.branches`' to name."""
    version: int = await conn.fetchval(
        "SELECT parley_show_branch($1, $2, $3)", user_id, conversation_id, message_id
    )
    return version


async def exists(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int, message_id: int
) -> bool:
    found = await conn.fetchval(
        "SELECT 1 FROM messages WHERE user_id = $3 AND id = $1 AND conversation_id = $2",
        message_id,
        conversation_id,
        user_id,
    )
    return found is not None


async def prompts_after(
    conn: asyncpg.Connection, *, user_id: str, after: dict[int, int]
) -> list[StoredMessage]:
    """The person's prompts (plain messages they wrote, not answers) after the given id, per
    conversation, in order."""
    rows = await conn.fetch(
        f"""SELECT {columns(Message, alias="m")} FROM messages m
        JOIN unnest($1::bigint[], $2::bigint[]) AS s(conversation_id, after)
          ON m.conversation_id = s.conversation_id AND m.id > s.after
        WHERE m.user_id = $3 AND m.role = 'user' AND m.kind = 'message'
        ORDER BY m.id""",
        list(after),
        list(after.values()),
        user_id,
    )
    return [record(row) for row in rows]


# Search (parley.search): one row per conversation, its best-matching message among the
# person's newest CANDIDATES matches (or, for a frequent word, its matches among their newest
# RECENT messages), on the branches the conversations show (an edit's original is a switch
# away, not a search result). The expressions must be the indexes' own (migrations
# 0046 and 0066) for the indexes to serve them.
# `id + 0`: ordered by the bare id, the planner may walk the whole primary key backwards
# hoping to meet enough matches soon, which for a rare word means reading most of the table;
# this way it always takes the person's matches from the GIN index and sorts them.
CANDIDATES = 100
_CANDIDATE = "m.id, m.conversation_id, m.role, m.author, m.created_at, m.content"
_WORDS_MATCH = "to_tsvector('simple'::regconfig, {t}.content) @@ to_tsquery('simple', $2)"
_BY_INDEX = f"""
SELECT {_CANDIDATE} FROM messages m
WHERE m.user_id = $1 AND {_WORDS_MATCH.format(t="m")} AND m.shown
ORDER BY m.id + 0 DESC LIMIT $3
"""
# The person's newest RECENT messages, in (user_id, id DESC) order, checked one by one: a
# word they use often is found there without fetching (and sorting) all its older matches
# (thousands of rows, one heap page each, for a frequent word's prefix). When they hold at
# least ENOUGH matches, those are the candidates; else the index is asked.
RECENT = 200
ENOUGH = 25
_BY_RECENT = f"""
SELECT r.* FROM (SELECT {_CANDIDATE} FROM messages m WHERE m.user_id = $1 AND m.shown
                 ORDER BY m.id DESC LIMIT $6) r
WHERE {_WORDS_MATCH.format(t="r")} ORDER BY r.id DESC LIMIT $3
"""
# $4: the words as whole words, any of them: a message holding "plumber" itself ranks above
# one holding only "plumbers" for "plumber".
_WORDS_SCORE = "ts_rank(c.v, to_tsquery('simple', $2)) + ts_rank(c.v, to_tsquery('simple', $4))"
_BEST = """
WITH c AS MATERIALIZED ({candidates}),
scored AS (
    SELECT c.*, {score} AS score
    FROM (SELECT c.*, to_tsvector('simple'::regconfig, c.content) AS v FROM c OFFSET 0) c
),
best AS (
    SELECT DISTINCT ON (conversation_id) * FROM scored
    ORDER BY conversation_id, score DESC, id DESC
)
SELECT b.id, b.conversation_id, cv.title, cv.mode::text AS mode, b.role::text AS role,
       b.author, b.created_at, left(b.content, {shown}) AS content,
       (SELECT count(*) FROM c) AS candidates
FROM best b JOIN conversations cv ON cv.user_id = $1 AND cv.id = b.conversation_id
ORDER BY b.score DESC, b.id DESC LIMIT {limit}
"""
SHOWN = 20_000  # characters of a message the snippet is taken from
_FROM_RECENT = _BEST.format(candidates=_BY_RECENT, score=_WORDS_SCORE, shown=SHOWN, limit="$5")
_FROM_INDEX = _BEST.format(candidates=_BY_INDEX, score=_WORDS_SCORE, shown=SHOWN, limit="$5")


async def search(
    conn: asyncpg.Connection, *, user_id: str, tsquery: str, any_word: str, limit: int
) -> list[asyncpg.Record]:
    """The person's conversations with messages matching `tsquery` (a `to_tsquery('simple')`
    text), best first, at most `limit`: each with its best-matching message (`id`, `role`,
    `author`, `created_at`, `content`) and the conversation's `title` and `mode`.
    `any_word`: the tsquery of the words alone, which ranks whole-word matches higher."""
    args = (user_id, tsquery, CANDIDATES, any_word, limit)
    found = await conn.fetch(_FROM_RECENT, *args, RECENT)
    if not found or found[0]["candidates"] < ENOUGH:
        found = await conn.fetch(_FROM_INDEX, *args)
    return found


def _similar_sql(words: int, excluded: bool) -> str:
    """$1 the person, $2 CANDIDATES, $3 the limit, $4... the words, then the excluded."""
    likes = " AND ".join(f"${4 + k} <% m.content" for k in range(words))
    score = " + ".join(f"word_similarity(${4 + k}, c.content)" for k in range(words))
    unless = ""
    if excluded:
        unless = (
            " AND NOT to_tsvector('simple'::regconfig, m.content)"
            f" @@ to_tsquery('simple', ${4 + words})"
        )
    candidates = f"""
SELECT {_CANDIDATE} FROM messages m WHERE m.user_id = $1 AND {likes}{unless} AND m.shown
ORDER BY m.id + 0 DESC LIMIT $2
"""
    return _BEST.format(candidates=candidates, score=score, shown=SHOWN, limit="$3")


async def search_similar(
    conn: asyncpg.Connection, *, user_id: str, words: list[str], excluded: str, limit: int
) -> list[asyncpg.Record]:
    """As `search`, for messages holding a word like each of `words` (pg_trgm's `<%`, the
    trigram index of migration 0066): what a typo still finds. `excluded`: a tsquery of
    words the messages must not have ("" for none)."""
    if not words:
        return []
    sql = _similar_sql(len(words), bool(excluded))
    extra = [excluded] if excluded else []
    return await conn.fetch(sql, user_id, CANDIDATES, limit, *words, *extra)


# -- writes -----------------------------------------------------------------------------

# The one way a message is stored (migration 0004); the turn's functions use it too.
_APPEND = (
    f"SELECT {MESSAGE_COLUMNS} FROM parley_append_message($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
)


async def append(
    conn: asyncpg.Connection,
    *,
    conversation_id: int,
    user_id: str,
    role: Role,
    content: str,
    author: str | None = None,
    kind: MessageKind = MessageKind.message,
    tool_calls: list[dict[str, Any]] | None = None,
    error: bool = False,
    reply_to: int | None = None,
    meta: dict[str, Any] | None = None,
) -> StoredMessage:
    """Insert a message inside the caller's transaction; every instance's reader finds it
    once the transaction commits (`realtime.reader`; a rolled-back message is never seen).
    `parley_append_message` takes the conversation's lock first, so ids commit in order
    within a conversation and a reader resuming "after id N" can never skip a message that
    committed late.
    """
    row = await conn.fetchrow(
        _APPEND,
        conversation_id,
        user_id,
        role.value,
        author,
        kind.value,
        content,
        tool_calls,
        error,
        reply_to,
        meta,
    )
    assert row is not None
    return StoredMessage(**row)


_START = f"SELECT {MESSAGE_COLUMNS} FROM parley_start_turn($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
_FINISH = (
    f"SELECT {MESSAGE_COLUMNS} FROM parley_finish_turn($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
)


async def start_turn(conn: asyncpg.Connection, *args: Any) -> list[StoredMessage]:
    """`parley_start_turn` (parley/sql/start_turn.sql, its arguments in order): the history
    it returns, oldest first. Its refusals are `asyncpg` errors, `parley.chat.store`'s to name."""
    rows = await conn.fetch(_START, *args)
    return [StoredMessage(**row) for row in reversed(rows)]


async def finish_turn(conn: asyncpg.Connection, *args: Any) -> StoredMessage:
    """`parley_finish_turn` (parley/sql/finish_turn.sql, its arguments in order): the reply."""
    rows = await conn.fetch(_FINISH, *args)
    return StoredMessage(**rows[0])


_POST = f"""SELECT {", ".join(f"(p.message).{c}" for c in _FIELDS)}, p.answered
FROM parley_post_message($1, $2, $3, $4, $5, $6, $7, $8) p"""


async def post(conn: asyncpg.Connection, *args: Any) -> tuple[StoredMessage, int | None]:
    """`parley_post_message` (parley/sql/post_message.sql, its arguments in order): the
    message stored and the question it answered, if any."""
    row = await conn.fetchrow(_POST, *args)
    assert row is not None
    return record(row), row["answered"]


async def note_decision(
    conn: asyncpg.Connection, *, user_id: str, question_id: int, decision: str
) -> None:
    """Keep a permission question's decision on its message (`meta.answer`)."""
    await conn.execute(
        "UPDATE messages SET meta = meta || jsonb_build_object('answer', $2::text)"
        " WHERE user_id = $3 AND id = $1",
        question_id,
        decision,
        user_id,
    )


# Closing without an answer: the permission question's message says so too, so the card
# under it stops offering buttons.
_CLOSE_STALE = """
WITH closed AS (
    UPDATE questions SET status = $3, closed_at = now()
    WHERE user_id = $5 AND status = 'open' AND ($1::int IS NULL OR run_id = $1)
      AND ($2::bigint[] IS NULL OR message_id = ANY($2))
      AND NOT (message_id = ANY($4::bigint[]))
    RETURNING message_id
)
UPDATE messages m SET meta = m.meta || jsonb_build_object('closed', $3::text)
FROM closed WHERE m.user_id = $5 AND m.id = closed.message_id AND m.meta ? 'permission'
RETURNING m.id
"""


async def close_questions(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    run_id: int | None,
    question_ids: list[int] | None,
    keep: list[int],
    status: str,
) -> list[int]:
    """Close the open questions (of `run_id`, or those named) but those in `keep` as
    `status`, and mark a permission question's message closed, in one statement; the ids of
    the messages marked."""
    rows = await conn.fetch(_CLOSE_STALE, run_id, question_ids, status, keep, user_id)
    return [row["id"] for row in rows]


async def note_attachments(
    conn: asyncpg.Connection, *, user_id: str, message_id: int, attachments: list[dict[str, Any]]
) -> None:
    """Keep what was attached to a person's message on it (`meta.attachments`): the history
    and every reader of the message learn it with the message (parley.attachments)."""
    await conn.execute(
        "UPDATE messages SET meta = coalesce(meta, '{}'::jsonb)"
        " || jsonb_build_object('attachments', $2::jsonb) WHERE user_id = $3 AND id = $1",
        message_id,
        attachments,
        user_id,
    )
