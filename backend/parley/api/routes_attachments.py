"""Attachments: a file uploaded as the raw request body (no multipart: the bytes are the
file, so the cap is the body's own size and a browser can show the upload's progress), and
read back by its owner only (parley.attachments; specs/attachments.md)."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Header, Query, Request, Response

from parley import attachments
from parley.api.deps import DbDep, PersonUser, SettingsDep
from parley.api.errors import AUTHED, ERRORS
from parley.attachments.files import IMAGE_TYPES, MAX_NAME, ascii_name
from parley.schemas import AttachmentLimits, AttachmentOut

router = APIRouter(prefix="/api/{user_id}", tags=["attachments"])


async def _capped_body(request: Request, limit: int) -> bytes:
    """The body, refused the moment it passes `limit` (the rest is never read)."""
    chunks: list[bytes] = []
    received = 0
    async for chunk in request.stream():
        received += len(chunk)
        if received > limit:
            raise attachments.too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


@router.post(
    "/attachments",
    response_model=AttachmentOut,
    status_code=201,
    responses=ERRORS(*AUTHED, 413),
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "The file's bytes, at most PARLEY_MAX_ATTACHMENT_BYTES",
            "content": {
                "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}
            },
        }
    },
)
async def upload(
    request: Request,
    user_id: PersonUser,
    db: DbDep,
    settings: SettingsDep,
    name: Annotated[
        str, Query(min_length=1, max_length=4 * MAX_NAME, description="The file's name")
    ],
    content_type: Annotated[str | None, Header()] = None,
) -> AttachmentOut:
    """Keep a text or code file, or a PNG, JPEG, GIF or WebP image, for the person's next
    chat message (`attachments` of `POST /chat`). What it is comes from its bytes: the
    `Content-Type` and the name's extension are only checked against them (an SVG or an
    executable calling itself `image/png` is a 422 `unsupported_attachment`). The name is
    kept as its last path segment, without control characters."""
    data = await _capped_body(request, settings.max_attachment_bytes)
    found = await attachments.upload(
        db,
        user_id=user_id,
        name=name,
        claimed_type=content_type,
        data=data,
        max_bytes=settings.max_attachment_bytes,
    )
    return AttachmentOut.model_validate(found, from_attributes=True)


@router.get("/attachment-limits", response_model=AttachmentLimits, responses=ERRORS(*AUTHED))
async def limits(user_id: PersonUser, settings: SettingsDep) -> AttachmentLimits:
    """What the composer may take before it uploads: the size cap, and whether the model
    that answers chats here takes images (a message with one is refused otherwise)."""
    return AttachmentLimits(
        max_bytes=settings.max_attachment_bytes,
        images=settings.model_images,
        model=settings.model_name,
        max_per_message=attachments.MAX_PER_MESSAGE,
    )


@router.get(
    "/attachments/{attachment_id}",
    responses={
        **ERRORS(*AUTHED),
        200: {
            "description": "The file's bytes, typed as they were found to be",
            "content": {kind: {} for kind in [*sorted(IMAGE_TYPES), "text/plain"]},
        },
    },
    response_class=Response,
)
async def download(
    attachment_id: int,
    user_id: PersonUser,
    db: DbDep,
    download: Annotated[bool, Query(description="Always as a download, an image too")] = False,
) -> Response:
    """The file, to its owner only (404 for anyone else's). Only a PNG, JPEG, GIF or WebP
    image is ever shown inline; everything else (text, code) is a download, as
    `text/plain`, never sniffed into anything a browser would run."""
    found = await attachments.download(db, user_id=user_id, attachment_id=attachment_id)
    inline = found.content_type in IMAGE_TYPES and not download
    disposition = (
        f'{"inline" if inline else "attachment"}; filename="{ascii_name(found.name)}";'
        f" filename*=UTF-8''{quote(found.name, safe='')}"
    )
    return Response(
        found.data,
        media_type=found.content_type,
        headers={
            "Content-Disposition": disposition,
            "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "default-src 'none'; sandbox",
            "Cache-Control": "private, max-age=3600",
        },
    )
