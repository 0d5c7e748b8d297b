"""One address in front of two API instances, for tests where a client must outlive the
instance it was talking to."""

from __future__ import annotations

import asyncio


class Front:
    """One address in front of the API instances, as a load balancer gives its clients: each
    new connection goes to the instance `to` names now; an instance's death breaks the
    connections it had, and the client's next ones reach the other instance."""

    def calls(self, method: str) -> int:
        """How many JSON-RPC requests of `method` clients sent through it."""
        return self.sent.count(f'"method":"{method}"'.encode())

    def __init__(self, to: str) -> None:
        self.to = to
        self.sent = bytearray()  # every byte clients sent, for a test to wait on a request
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def __aenter__(self) -> Front:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        host, port = self.to.removeprefix("http://").split(":")
        try:
            upstream = await asyncio.open_connection(host, int(port))
        except OSError:
            writer.close()
            return
        await asyncio.gather(_pipe(reader, upstream[1], self), _pipe(upstream[0], writer))


async def _pipe(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, front: Front | None = None
) -> None:
    try:
        while data := await reader.read(65536):
            if front is not None:
                front.sent += data
            writer.write(data)
            await writer.drain()
    except OSError:
        pass  # the other side died: closing this one is what a client then sees
    finally:
        writer.close()
