"""Hooks other programs run: light, HTTP-only clients of a Parley server."""
