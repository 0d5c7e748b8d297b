"""The backend tests' fake Anthropic Messages API as a process, for the browser tests.

Serves a scripted coding session: text streamed in pieces, then a Bash tool call (which the
person must allow), then a closing text once the tool's result comes back; the next prompt
gets a long, slow answer (for Stop). A session opened with `WRITE_PROMPT` has a script of its
own: a Write of a new file (which the person must allow), then a closing text; one opened with
`FAIL_PROMPT` gets an API error; one opened with a `DENY_PROMPTS` prompt (one per screen width,
since a keyed script is consumed in order) streams a sentence slowly, then asks to run
`DENIED_COMMAND`, which the person denies; `PUSH_PROMPT` and `VOICE_PROMPT` each get a Bash call,
then a closing text. Prints its URL on the first line of stdout and serves until it is terminated.
"""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "backend"))

from tests.work.fake_anthropic import Fail, FakeAnthropic, Reply, Text, ToolUse, say

COMMAND = "echo parley-e2e > note.txt && cat note.txt"
WRITE_PROMPT = "Write the greeting file"
WRITE_FILE = "greeting.txt"
FAIL_PROMPT = "Fail this prompt"
WRITE_CONTENT = "Hello from Parley\nSecond line of the greeting\n"
DENY_PROMPTS = [
    f"Clean the scratch folder at {width} width" for width in ("desktop", "phone")
]
DENIED_COMMAND = "rm -rf scratch"
# push.spec.ts: a permission answered from a notification, and one answered by voice.
PUSH_PROMPT = "Check the push path"
VOICE_PROMPT = "Check the voice path"
# approval-rules.spec.ts: the same command twice; "Always allow this" on the first.
ALWAYS_PROMPT = "Tally with a rule"
ALWAYS_COMMAND = "echo tally >> tally.txt"
# work-answer-while-streaming.spec.ts: the opening session's steps, under a key of its own (the
# shared script is work.spec.ts's, consumed in order on the worker both run on).
STREAMING_ANSWER_PROMPT = "Write the note while I watch"


def main() -> None:
    fake = FakeAnthropic()
    fake.script(
        Reply(
            [
                Text("I'll write the note and read it back.", chunks=6, delay=0.15),
                ToolUse(
                    "Bash",
                    {"command": COMMAND, "description": "Write and read note.txt"},
                ),
            ]
        ),
        say("The note says parley-e2e. All done.", chunks=4, delay=0.1),
        # A long answer, streamed over about 15 s: the test stops it half way.
        say(" ".join(f"step{n}" for n in range(60)), chunks=60, delay=0.25),
    )
    fake.script_for(
        WRITE_PROMPT,
        Reply(
            [
                Text("I'll write the greeting."),
                ToolUse("Write", {"file_path": WRITE_FILE, "content": WRITE_CONTENT}),
            ]
        ),
        say("The greeting is written."),
    )
    for prompt in DENY_PROMPTS:
        fake.script_for(
            prompt,
            Reply(
                [
                    Text("I'll clean the scratch folder for you.", chunks=8, delay=0.2),
                    ToolUse(
                        "Bash",
                        {"command": DENIED_COMMAND, "description": "Clean scratch"},
                    ),
                ]
            ),
            say("Understood: I left the scratch folder alone."),
        )
    for prompt, word in ((PUSH_PROMPT, "pushed"), (VOICE_PROMPT, "spoken")):
        fake.script_for(
            prompt,
            Reply(
                [
                    Text(f"I'll run the {word} check."),
                    ToolUse(
                        "Bash", {"command": f"echo {word}-ok", "description": "A check"}
                    ),
                ]
            ),
            say(f"The {word} check is finished."),
        )
    tally = {"command": ALWAYS_COMMAND, "description": "Tally"}
    fake.script_for(
        ALWAYS_PROMPT,
        Reply([Text("I'll tally once."), ToolUse("Bash", tally)]),
        say("Tallied once."),
        Reply([Text("I'll tally again."), ToolUse("Bash", tally)]),
        say("Tallied again."),
    )
    fake.script_for(
        STREAMING_ANSWER_PROMPT,
        Reply(
            [
                Text("I'll write the note and read it back.", chunks=6, delay=0.15),
                ToolUse("Bash", {"command": COMMAND, "description": "Write and read note.txt"}),
            ]
        ),
        say("The note says parley-e2e. All done.", chunks=4, delay=0.1),
    )
    # Every try the CLI makes fails (it retries some errors).
    fake.script_for(FAIL_PROMPT, Fail(400, "the model is unhappy"))
    fake.default = say("Nothing more is scripted.")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with fake.running():
        print(fake.url, flush=True)
        stop.wait()


if __name__ == "__main__":
    main()
