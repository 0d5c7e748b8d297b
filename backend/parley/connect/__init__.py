"""`parley connect` / `parley disconnect`: a person's own agents (Claude Code, for now) joined
to Parley from their machine, with no database and no web UI there: only HTTP to the server."""
