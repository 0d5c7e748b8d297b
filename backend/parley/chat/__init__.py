"""The chat turn pipeline (DESIGN §3): claim, persist, run, persist, complete."""
