"""The first process inside a work session's sandbox: `claude` behind a forwarder.

The sandbox has no network (only its own loopback), and `claude` speaks HTTP to a base URL.
This listens on 127.0.0.1 (a free port) inside the sandbox, hands every connection to the
model relay's Unix socket that Parley binds into the sandbox, and then becomes `claude` with
ANTHROPIC_BASE_URL pointing at it. The forwarding runs in a child that dies with the sandbox.

Run as `python -I -S forward.py <socket> -- <claude> <args...>`, on the standard library
only: it is a file inside the sandbox, not part of the installed package there.
"""

import contextlib
import os
import socket
import sys
import threading

BUFFER = 65536


def _pump(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(BUFFER):
            target.sendall(data)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            target.shutdown(socket.SHUT_WR)


def _serve_one(client: socket.socket, path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        client.close()
        upstream.close()
        return
    back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
    back.start()
    _pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def _serve(listener: socket.socket, path: str) -> None:
    while True:
        client, _ = listener.accept()
        threading.Thread(target=_serve_one, args=(client, path), daemon=True).start()


def main(argv: list[str]) -> None:
    if len(argv) < 4 or argv[2] != "--":
        sys.exit("usage: forward.py <socket> -- <command> [args...]")
    path, command = argv[1], argv[3:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    os.environ["ANTHROPIC_BASE_URL"] = f"http://127.0.0.1:{listener.getsockname()[1]}"
    if os.fork() == 0:
        # The forwarder: off `claude`'s pipes, so they close when `claude` exits.
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        try:
            _serve(listener, path)
        finally:
            os._exit(0)
    listener.close()
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv)
