"""Work sessions: a live Claude Code process per work conversation."""
