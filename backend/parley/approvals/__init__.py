"""Approval rules: a person's allow, deny and ask rules in Claude Code's syntax."""
