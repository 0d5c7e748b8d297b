"""Live conversations: stored messages and in-flight replies, delivered to SSE subscribers
on every instance through PostgreSQL LISTEN/NOTIFY."""
