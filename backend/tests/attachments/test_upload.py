"""Uploading and reading back attachments: caps, kinds found by the bytes, names, owners."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from tests.attachments.helpers import ELF, PNG, SVG, error_code, upload, uploaded
from tests.conftest import snapshot

CAP = 1000


async def test_a_text_file_is_kept_and_read_back_by_its_owner_as_a_plain_download(server):
    response = await upload(server, "alice", "notes.md", b"# Notes\nbuy milk\n", "text/markdown")
    assert response.status_code == 201, response.text
    body = response.json()
    assert (body["name"], body["kind"], body["size"]) == ("notes.md", "text", 17)
    read = await server.client.get(
        f"/api/alice/attachments/{body['id']}", headers=server.headers("alice")
    )
    assert read.status_code == 200
    assert read.content == b"# Notes\nbuy milk\n"
    assert read.headers["content-type"] == "text/plain; charset=utf-8"
    assert read.headers["content-disposition"].startswith('attachment; filename="notes.md"')
    assert read.headers["x-content-type-options"] == "nosniff"


async def test_html_and_svg_text_is_only_ever_a_plain_text_download(server):
    for name, data in (("page.html", b"<script>alert(1)</script>"), ("logo.xml", SVG)):
        attachment_id = await uploaded(server, "alice", name, data, content_type="text/html")
        read = await server.client.get(
            f"/api/alice/attachments/{attachment_id}", headers=server.headers("alice")
        )
        assert read.headers["content-type"] == "text/plain; charset=utf-8"
        assert read.headers["content-disposition"].startswith("attachment;")


async def test_an_image_is_found_by_its_bytes_and_shown_inline_only_from_the_allowlist(server):
    # PNG bytes under a text name and type: an image, served as image/png.
    attachment_id = await uploaded(server, "alice", "photo.txt", PNG, content_type="text/plain")
    read = await server.client.get(
        f"/api/alice/attachments/{attachment_id}", headers=server.headers("alice")
    )
    assert read.headers["content-type"] == "image/png"
    assert read.headers["content-disposition"].startswith("inline;")
    assert read.headers["x-content-type-options"] == "nosniff"
    forced = await server.client.get(
        f"/api/alice/attachments/{attachment_id}?download=true", headers=server.headers("alice")
    )
    assert forced.headers["content-disposition"].startswith("attachment;")
    for data, kind in (
        (b"\xff\xd8\xff\xe0" + bytes(20), "image/jpeg"),
        (b"GIF89a" + bytes(20), "image/gif"),
        (b"RIFF\x10\x00\x00\x00WEBPVP8 " + bytes(20), "image/webp"),
    ):
        body = (await upload(server, "alice", "x.bin", data, "image/png")).json()
        assert (body["kind"], body["content_type"]) == ("image", kind)


async def test_files_of_other_kinds_or_claiming_to_be_what_they_are_not_are_refused(server, db):
    before = await snapshot(db)
    cases = [
        ("cat.png", ELF, "image/png"),  # an executable dressed up as an image
        ("cat.png", SVG, "image/png"),  # an SVG dressed up as a PNG
        ("cat.svg", SVG, "image/svg+xml"),  # SVG is never an image here
        ("cat.svg", SVG, "text/plain"),  # not by its name either
        ("tool", ELF, "application/octet-stream"),
        ("tool.txt", ELF, "text/plain"),
        ("a.zip", b"PK\x03\x04" + bytes(40), "application/zip"),
        ("latin1.txt", "café".encode("latin-1"), "text/plain"),
        ("nul.txt", b"text\x00more", "text/plain"),
    ]
    for name, data, content_type in cases:
        response = await upload(server, "alice", name, data, content_type)
        assert response.status_code == 422, (name, response.text)
        assert error_code(response) == "unsupported_attachment"
        assert response.json()["error"]["message"]
    empty = await upload(server, "alice", "empty.txt", b"")
    assert empty.status_code == 422 and error_code(empty) == "empty_attachment"
    assert await snapshot(db) == before


async def test_the_cap_takes_a_file_of_exactly_its_size_and_refuses_one_byte_more(make_server, db):
    async with make_server(PARLEY_MAX_ATTACHMENT_BYTES=CAP, PARLEY_MAX_BODY_BYTES=400) as server:
        at_cap = await upload(server, "alice", "a.txt", b"a" * CAP)
        assert at_cap.status_code == 201, at_cap.text
        before = await snapshot(db)
        over = await upload(server, "alice", "b.txt", b"b" * (CAP + 1))
        assert over.status_code == 413
        assert error_code(over) == "attachment_too_large"
        assert "1000 bytes limit" in over.json()["error"]["message"]

        async def chunked() -> AsyncIterator[bytes]:  # no Content-Length: counted as it comes
            for _ in range(CAP // 100 + 1):
                yield b"c" * 100

        streamed = await server.client.post(
            "/api/alice/attachments",
            params={"name": "c.txt"},
            content=chunked(),
            headers=server.headers("alice"),
        )
        assert streamed.status_code == 413 and error_code(streamed) == "attachment_too_large"
        assert await snapshot(db) == before
        # Other routes keep the body limit.
        big_chat = await server.client.post(
            "/api/alice/chat", json={"message": "x" * 500}, headers=server.headers("alice")
        )
        assert big_chat.status_code == 413 and error_code(big_chat) == "body_too_large"


async def test_names_are_cut_to_a_safe_last_segment(server):
    cases = {
        "../../etc/passwd": "passwd",
        "..\\..\\windows\\system.ini": "system.ini",
        "..": "attachment",
        "/": "attachment",
        "evil\r\nSet-Cookie: a=b.txt": "evilSet-Cookie: a=b.txt",
        "\u202etxt.exe": "txt.exe",
        "résumé 日本.txt": "résumé 日本.txt",
        ("x" * 600) + ".txt": ("x" * 251) + ".txt",
    }
    for raw, kept in cases.items():
        response = await upload(server, "alice", raw, b"hello")
        assert response.status_code == 201, (raw, response.text)
        assert response.json()["name"] == kept
        read = await server.client.get(
            f"/api/alice/attachments/{response.json()['id']}", headers=server.headers("alice")
        )
        disposition = read.headers["content-disposition"]
        assert "\r" not in disposition and "\n" not in disposition
        assert "set-cookie" not in {k.lower() for k in read.headers}
        assert disposition.isascii()
    unicode_id = (await upload(server, "alice", "résumé.txt", b"hi")).json()["id"]
    read = await server.client.get(
        f"/api/alice/attachments/{unicode_id}", headers=server.headers("alice")
    )
    assert "filename*=UTF-8''r%C3%A9sum%C3%A9.txt" in read.headers["content-disposition"]
    too_long = await upload(server, "alice", "y" * 2000, b"hi")
    assert too_long.status_code == 422
    nul = await upload(server, "alice", "a\x00b.txt", b"hi")
    assert nul.status_code == 422 and error_code(nul) == "validation_error"


async def test_nobody_but_the_owner_reads_an_attachment(server):
    attachment_id = await uploaded(server, "bob", "secret.txt", b"bob's secret")
    as_alice = server.headers("alice")
    refused = [
        await server.client.get(f"/api/alice/attachments/{attachment_id}", headers=as_alice),
        await server.client.get(f"/api/bob/attachments/{attachment_id}", headers=as_alice),
        await server.client.get(f"/api/BOB/attachments/{attachment_id}", headers=as_alice),
        await server.client.get(f"/api/bob/attachments/{attachment_id}"),
        await server.client.get(
            f"/api/bob/attachments/{attachment_id}", headers=server.headers("bob", agent="helper")
        ),
        await server.client.get(
            f"/api/alice/attachments/%2e%2e%2fbob%2f{attachment_id}", headers=as_alice
        ),
        await server.client.get("/api/alice/attachments/99999999999999999999", headers=as_alice),
        await server.client.get("/api/alice/attachments/-1", headers=as_alice),
    ]
    for response in refused:
        assert response.status_code in (401, 403, 404, 422), response.text
        assert b"bob's secret" not in response.content
        assert response.json()["error"]["code"]
    mine = await server.client.get(
        f"/api/bob/attachments/{attachment_id}", headers=server.headers("bob")
    )
    assert mine.content == b"bob's secret"


async def test_an_agent_cannot_upload_as_its_person(server, db):
    before = await snapshot(db)
    response = await upload(
        server, "alice", "a.txt", b"hi", headers=server.headers("alice", agent="helper")
    )
    assert response.status_code == 403
    assert await snapshot(db) == before


async def test_a_burst_of_uploads_each_keeps_its_own_bytes(server):
    datas = [f"file {i}\n".encode() * (i + 1) for i in range(8)]
    responses = await asyncio.gather(
        *(upload(server, "alice", f"f{i}.txt", d) for i, d in enumerate(datas))
    )
    for response, data in zip(responses, datas, strict=True):
        read = await server.client.get(
            f"/api/alice/attachments/{response.json()['id']}", headers=server.headers("alice")
        )
        assert read.content == data


async def test_the_composer_learns_the_cap_and_whether_the_model_takes_images(make_server):
    async with make_server(PARLEY_MAX_ATTACHMENT_BYTES=CAP) as server:
        response = await server.client.get(
            "/api/alice/attachment-limits", headers=server.headers("alice")
        )
        other = await server.client.get(
            "/api/bob/attachment-limits", headers=server.headers("alice")
        )
    assert response.json() == {
        "max_bytes": CAP,
        "images": False,
        "model": "offline",
        "max_per_message": 10,
    }
    assert other.status_code in (403, 404)
