"""Wire shapes shared by the REST routes, the SSE streams and the OpenAPI schema (from which
the web UI's TypeScript types are generated). Limits come from the tables in models.py."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from parley.auth import NEW_USER_ID_PATTERN, USER_ID_PATTERN
from parley.models import (
    CONVERSATION_TITLE_MAX,
    DESCRIPTION_MAX,
    MAX_BIGINT,
    MAX_INT,
    TASK_TITLE_MAX,
    ConversationMode,
    MessageKind,
    Role,
)
from parley.stated import EMPTY_OR_WORDS, MESSAGE_LIMIT, STORABLE, WORDS, stated
from parley.text import storable_value, unstorable_in

# Text a request stores: no NUL, no lone surrogate (see parley.text). JSON Schema can state
# the first; the second is no character at all (I-JSON, RFC 7493, excludes it).
Text = Annotated[str, AfterValidator(storable_value), stated(pattern=STORABLE)]
# Text a service trims and refuses when nothing is left: a name, a title, a message.
Words = Annotated[Text, stated(pattern=WORDS)]
# Text where "" means none, and anything else must not be blank.
WordsOrEmpty = Annotated[Text, stated(pattern=EMPTY_OR_WORDS)]
# A message's text: words, at most PARLEY_MAX_MESSAGE_CHARS of them (longer is a 413).
MessageText = Annotated[Words, MESSAGE_LIMIT]
# A user id made now (no '@'), and an agent's name (as any existing user id may be).
NewUserId = Annotated[Text, stated(pattern=NEW_USER_ID_PATTERN)]
AgentName = Annotated[Text, stated(pattern=USER_ID_PATTERN)]


def _whole(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


# A whole number: JSON Schema (and JSON) make no difference between 1 and 1.0, so neither do
# we; "1", true and 1.5 are still not numbers here. (Bounds go before the validator, so the
# schema states them as bounds.)
WHOLE = BeforeValidator(_whole)
Whole = Annotated[int, WHOLE]
# Ids the database stores: below 2**63 (bigint) or 2**31 (integer). The bigint bound is
# exclusive because FastAPI's OpenAPI model holds bounds as floats, where 2**63 - 1 would
# read 2**63 (one more than the database takes) and 2**63 is exact.
BIGINT_END = MAX_BIGINT + 1
BigId = Annotated[int, Field(ge=1, lt=BIGINT_END), WHOLE]
IntId = Annotated[int, Field(ge=1, le=MAX_INT), WHOLE]
# Request bodies take JSON types as they are: `true` is not 1, "1" is not 1, 0 is not false,
# "yes" is not true; and a field the model does not name is refused, not dropped.
REQUEST = ConfigDict(extra="forbid", strict=True)


class RequestBody(BaseModel):
    """The base of every request body, and the one place two rules are kept:

    - its JSON types are strict (`REQUEST`): a client's `0` for a boolean is a mistake to
      report, not a `false` to guess;
    - no string in it, at any depth and in object keys too, holds what PostgreSQL cannot
      store (NUL, a lone surrogate: `parley.text`). A field the model leaves a plain `str`
      or a free-form object (`meta`, a passkey's credential) is refused like a `Text` field,
      a 422 naming where it is, before any service sees it.

    tests/test_schemas.py and tests/test_openapi.py check that every route's body is one."""

    model_config = REQUEST

    @model_validator(mode="before")
    @classmethod
    def _storable(cls, data: Any) -> Any:
        found = list(unstorable_in(data))
        if found:
            raise ValidationError.from_exception_data(
                cls.__name__,
                [
                    InitErrorDetails(
                        type=PydanticCustomError("unstorable", why),
                        loc=at,
                        input="",
                    )
                    for at, why in found[:20]
                ],
            )
        return data


class ErrorBody(BaseModel):
    code: str
    message: str
    model_config = ConfigDict(extra="allow")


class ErrorResponse(BaseModel):
    error: ErrorBody


class ToolCallRecord(BaseModel):
    tool: str
    parameters: dict[str, Any]
    result: Any


class ChatRequest(RequestBody):
    """A message, or (`retry`) no message and the conversation whose failed turn to re-run,
    or (`replaces`) an edit or a regenerated reply on a new branch of the conversation."""

    conversation_id: BigId | None = None
    message: MessageText | None = Field(
        default=None,
        description="What the person says; trimmed, never empty, at most"
        " PARLEY_MAX_MESSAGE_CHARS characters (longer is a 413). Required unless `retry`, or"
        " `replaces` names a reply.",
    )
    replaces: BigId | None = Field(
        default=None,
        description="A message on the branch the chat shows, replaced on a new branch of the"
        " same conversation: with `message`, one the person wrote (edit: the new text is its"
        " sibling); without, a reply (regenerate: the new reply is its sibling). What followed"
        " it stays stored, a switch away (POST .../branch). Needs `conversation_id`; 422 for"
        " another message, 409 branch_moved when it is no longer shown.",
    )
    retry: bool = Field(
        default=False,
        description="Re-run the conversation's last turn, which failed, on its stored message"
        " (no `message`); 409 nothing_to_retry if it did not fail",
    )
    attachments: list[BigId] = Field(
        default_factory=list,
        max_length=10,
        description="Ids of the person's uploaded attachments (`POST /attachments`) sent with"
        " this message, each at most once in all: 404 attachment_not_found for one that is not"
        " theirs, 409 attachment_already_sent, 422 model_takes_no_images; nothing is stored"
        " then. Chat conversations only.",
    )
    model_config = ConfigDict(
        json_schema_extra={
            "if": {"properties": {"retry": {"const": True}}, "required": ["retry"]},
            "then": {
                "properties": {
                    "conversation_id": {"type": "integer"},
                    "message": {"type": "null"},
                    "replaces": {"type": "null"},
                    "attachments": {"maxItems": 0},
                },
                "required": ["conversation_id"],
            },
            "else": {
                "anyOf": [
                    {
                        "properties": {"message": {"type": "string"}, "replaces": {"type": "null"}},
                        "required": ["message"],
                    },
                    {
                        "properties": {
                            "replaces": {"type": "integer"},
                            "conversation_id": {"type": "integer"},
                        },
                        "required": ["replaces", "conversation_id"],
                    },
                ]
            },
        }
    )


class ChatResponse(BaseModel):
    conversation_id: int
    response: str
    tool_calls: list[ToolCallRecord]


class MessageFields(BaseModel):
    """What a message is besides its text, however it is written or read: the one definition
    `MessageOut` (every API and stream) and `MessageCreate` (a person or agent posting) share.
    Every field of `MessageOut` is a column of `messages` (tests/test_schemas.py checks)."""

    kind: MessageKind = Field(
        default=MessageKind.message,
        description="`question` waits for an answer; `status`, `delegation`, `completion`,"
        " `escalation`, `output` and `error` are written by agents, threads and work sessions",
    )
    reply_to: BigId | None = Field(default=None, description="The message this one answers")


class MessageOut(MessageFields):
    model_config = ConfigDict(from_attributes=True)
    id: int
    conversation_id: int
    role: Role
    author: str | None = Field(description="The agent that wrote it (agents only)")
    content: str
    tool_calls: list[dict[str, Any]] | None
    error: bool
    meta: dict[str, Any] | None
    created_at: datetime
    parent_id: int | None = Field(
        default=None,
        description="The message it follows on its branch (None: a first message). An edit or"
        " a regenerated reply has its original's parent: the shown branch moved there",
    )


_MESSAGE_OUT = frozenset(MessageOut.model_fields)


def message_json(message: Any) -> dict[str, Any]:
    """A stored message (its record, or a row) as the JSON every API and stream sends: only
    the wire shape's fields, never what a record keeps inside (its owner, its xid)."""
    if not isinstance(message, MessageOut):
        message = MessageOut.model_validate(message)
    return message.model_dump(mode="json", include=_MESSAGE_OUT)


class AttachmentOut(BaseModel):
    """An uploaded attachment: what `POST /chat` takes by `id`, and what a message's
    `meta.attachments` lists."""

    id: int
    name: str = Field(description="The name kept: its last path segment, no control characters")
    kind: Literal["text", "image"]
    content_type: str = Field(description="What the bytes were found to be")
    size: int = Field(description="Bytes")
    created_at: datetime


class AttachmentLimits(BaseModel):
    max_bytes: int = Field(description="PARLEY_MAX_ATTACHMENT_BYTES: the largest file taken")
    images: bool = Field(description="Whether the model that answers chats takes images")
    model: str = Field(description="That model's name, for the composer's explanation")
    max_per_message: int


class TaskFields(BaseModel):
    """What a person writes on a task: the one definition the task schemas share."""

    title: Annotated[Words, stated(maxLength=TASK_TITLE_MAX)] = Field(
        description=f"1-{TASK_TITLE_MAX} characters after trimming (inner whitespace collapsed)"
    )
    description: Text | None = Field(
        default=None, max_length=DESCRIPTION_MAX, description="Blank or empty clears it"
    )


class TaskOut(TaskFields):
    model_config = ConfigDict(from_attributes=True)
    number: int = Field(description="The task's number for its owner: 1, 2, 3... per user")
    completed: bool
    created_at: datetime
    updated_at: datetime


_TASK_OUT: TypeAdapter[TaskOut] = TypeAdapter(TaskOut)


def task_json(task: Any) -> dict[str, Any]:
    """A task (its record, which holds more) as the JSON every API and stream sends: only
    `TaskOut`'s fields, whatever the object has besides."""
    return _TASK_OUT.dump_python(task, mode="json")  # type: ignore[no-any-return]


class TaskCreate(TaskFields, RequestBody):
    """A new task: the fields a person writes, as written."""


class TaskPatch(RequestBody):
    """Any of the fields, each optional: only those given change, and one must be given."""

    title: Annotated[Words, stated(maxLength=TASK_TITLE_MAX)] | None = None
    description: Text | None = Field(
        default=None, max_length=DESCRIPTION_MAX, description="Blank or empty clears it"
    )
    completed: bool | None = None
    model_config = ConfigDict(
        json_schema_extra={
            "anyOf": [
                {"properties": {name: {"type": kind}}, "required": [name]}
                for name, kind in (
                    ("title", "string"),
                    ("description", "string"),
                    ("completed", "boolean"),
                )
            ]
        }
    )


class WorkState(BaseModel):
    """A work conversation's Claude Code session, as the person sees it."""

    status: Literal["starting", "working", "waiting_permission", "idle", "ended"]
    cost_usd: float
    run_id: int | None
    workspace: str | None = None
    pending_question_id: int | None = None


# A work conversation whose session never started.
IDLE_WORK: dict[str, Any] = {"status": "idle", "cost_usd": 0.0, "run_id": None}


class ConversationFields(BaseModel):
    """What a person names and chooses on a conversation: the one definition the conversation
    schemas share. Every field of `ConversationOut` up to `last_read_id` is a column of
    `conversations` (tests/test_schemas.py checks)."""

    title: str = Field(max_length=CONVERSATION_TITLE_MAX)
    mode: ConversationMode


class ConversationShown(ConversationFields):
    """The stored columns of a conversation the API shows: the one definition the wire shape
    (`ConversationOut`) and the row record (`conversations.ConversationRecord`) share."""

    id: int
    version: int
    created_at: datetime
    updated_at: datetime
    last_read_id: int = Field(
        description="The person's read position (0: nothing read): an unread divider goes after it"
    )
    model: str | None = Field(
        default=None, description="The model chosen for its replies (null: the configured one)"
    )
    archived_at: datetime | None = Field(
        default=None, description="When the person archived it (out of the list); null if not"
    )
    pinned_at: datetime | None = Field(
        default=None, description="When the person pinned it (at the list's top); null if not"
    )


class ConversationOut(ConversationShown):
    preview: str | None
    last_message_at: datetime | None
    unread: int = Field(description="Messages from others after the stored read position")
    work: WorkState | None = None


def conversation_out(summary: Any, work: dict[str, Any] | None = None) -> ConversationOut:
    """A `conversations.ConversationSummary` as the wire shape, its record mapped by field
    name; `work` is the state its mode shows (`parley.modes`: a work conversation's session,
    `parley.work.store.states`), None for a mode without one."""
    c = summary.conversation
    state = None if work is None else WorkState.model_validate(work)
    stored = c.model_dump(include=_SHOWN)
    return ConversationOut(
        **stored,
        preview=summary.preview,
        last_message_at=summary.last_message_at,
        unread=summary.unread,
        work=state,
    )


_SHOWN = frozenset(ConversationShown.model_fields)


class WorkEndResponse(BaseModel):
    ended: bool


class TokenCounts(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    requests: int = 0  # Messages API calls answered


class ConversationUsage(TokenCounts):
    conversation_id: int
    title: str | None  # null once the conversation is deleted
    updated_at: datetime


class WorkUsageResponse(BaseModel):
    """What the person's work sessions used of the model, per conversation and in all."""

    total: TokenCounts
    conversations: list[ConversationUsage]

    @classmethod
    def of(cls, rows: Sequence[Any]) -> WorkUsageResponse:
        found = [ConversationUsage.model_validate(row, from_attributes=True) for row in rows]
        total = TokenCounts(
            **{name: sum(getattr(c, name) for c in found) for name in TokenCounts.model_fields}
        )
        return cls(total=total, conversations=found)


class WorkHealth(BaseModel):
    available: bool
    reason: str | None


class ConversationCreate(ConversationFields, RequestBody):
    title: Annotated[WordsOrEmpty, stated(maxLength=CONVERSATION_TITLE_MAX)] | None = Field(  # type: ignore[assignment]
        default=None, description="Optional: the first message names it otherwise"
    )
    mode: Literal["chat", "work"] = "chat"  # type: ignore[assignment]


class ConversationPatch(RequestBody):
    title: Annotated[Words, stated(maxLength=CONVERSATION_TITLE_MAX)]


class ArchivedIn(RequestBody):
    archived: bool = Field(description="true: out of the list (restorable); false: restored")


class PinnedIn(RequestBody):
    pinned: bool = Field(description="true: at the top of the list; false: in its usual place")


class StopResponse(BaseModel):
    stopped: bool = Field(description="Whether a reply was running (it has ended)")


class BranchRequest(RequestBody):
    message_id: BigId = Field(
        description="A message of the conversation kept off the branch it shows (a sibling of"
        " a shown message): its branch is shown from now on, everywhere",
    )


class BranchOut(BaseModel):
    """A fork of the conversation: a shown message and its siblings (edits of one message,
    or replies to one question), oldest first; the switcher (n of m)."""

    message_id: int = Field(description="The sibling on the shown branch")
    siblings: list[int] = Field(description="Every sibling's id, oldest first, shown one too")


class BranchesOut(BaseModel):
    version: int | None = Field(
        default=None, description="The conversation's version after a switch"
    )
    branches: list[BranchOut] = Field(description="The shown branch's forks, in order")


class DevLoginRequest(RequestBody):
    user_id: NewUserId = Field(
        description="Made if it does not exist: 1-64 letters, digits, '_', '.' or '-', not"
        " only dots"
    )


class TokenResponse(BaseModel):
    token: str
    user_id: str


class HealthResponse(BaseModel):
    status: Literal["ok", "degraded"]
    database: Literal["ok", "unavailable"]
    model: str
    offline_model: bool
    dev_login: bool
    work: WorkHealth


class SearchMark(BaseModel):
    """A found word's place in a text: code points `[start, end)`, for the UI to mark."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)


class SearchMessageHit(BaseModel):
    id: int
    role: Role
    author: str | None
    created_at: datetime
    snippet: str = Field(description="The passage around the words found, as plain text")
    marks: list[SearchMark] = Field(description="Where the words found are in `snippet`")


class SearchHit(BaseModel):
    id: int = Field(description="The conversation's id")
    title: str
    mode: ConversationMode
    title_marks: list[SearchMark] = Field(description="Where the text is in `title`")
    message: SearchMessageHit | None = Field(
        description="The conversation's best-matching message; null when only its title matched"
    )
    similar: bool = Field(
        description="Found by words like the ones typed (a typo's), none of which it holds"
    )


class SearchOut(BaseModel):
    conversations: list[SearchHit] = Field(
        description="One row per conversation, the best match first"
    )
