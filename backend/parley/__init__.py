"""Parley: a chat hub where people and AI agents work on the same tasks."""
