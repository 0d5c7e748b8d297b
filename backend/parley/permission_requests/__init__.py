"""Claude Code running outside Parley asks the person through Parley: its PreToolUse hook
(`parley hook claude-code`, over REST) and its permission-prompt tool (`approve_tool_use`,
over MCP) send a tool call here; the person's approval rules decide it, or a permission
question does (specs/claude-code-anywhere.md)."""
