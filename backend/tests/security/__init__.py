"""Attacks on Parley's doors, one module per door (see specs/security.md)."""
