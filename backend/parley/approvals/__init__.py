"""Approval rules: a person's allow / deny / ask rules in Claude Code's syntax (specs/approvals.md)."""
