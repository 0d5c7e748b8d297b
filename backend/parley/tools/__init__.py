"""Parley's MCP server: one set of tool definitions served in-process, over HTTP and stdio."""
