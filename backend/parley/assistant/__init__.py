"""The task assistant: the agent, its models, and its bridge to Parley's MCP tools."""
