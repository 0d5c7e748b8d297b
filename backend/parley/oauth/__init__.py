"""Parley as the OAuth 2.1 authorization server of its own `/mcp` endpoint: clients
(registered, or named by a metadata document), connected apps and their tokens, and the
MCP SDK's authorization-server handlers wired to them."""
