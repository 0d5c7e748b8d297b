"""The backend tests' SMTP server (tests/fakes/smtp.py) as a process, for the browser tests:
what it receives is readable at `GET <http_url>/messages` as JSON ([{"to", "subject",
"body"}], oldest first). Prints {"smtp_port", "http_url"} on the first line of stdout and
serves until it is terminated.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "backend"))

from tests.fakes.smtp import Inbox, smtp_server


def handler(inbox: Inbox) -> type[BaseHTTPRequestHandler]:
    class Messages(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path != "/messages":
                self.send_error(404)
                return
            listed = [
                {
                    "to": m["To"],
                    "subject": m["Subject"],
                    "body": m.get_payload(decode=True).decode(),
                }
                for m in list(inbox.messages)
            ]
            body = json.dumps(listed).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Messages


def main() -> None:
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with smtp_server() as (inbox, port):
        http = ThreadingHTTPServer(("127.0.0.1", 0), handler(inbox))
        threading.Thread(target=http.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{http.server_address[1]}"
        print(json.dumps({"smtp_port": port, "http_url": url}), flush=True)
        stop.wait()
        http.shutdown()


if __name__ == "__main__":
    main()
