"""The audit trail of every question and permission decision (specs/audit.md): `record` and
`record_questions` write it, `trail` and `export` read it, `sweep` keeps it to
PARLEY_AUDIT_DAYS. Below `questions`, `work`, `runs` and the API, which call it; it imports
none of them."""

from parley.audit.channel import Channel, set_channel
from parley.audit.trail import export, record, record_questions, sweep, trail

__all__ = ["Channel", "export", "record", "record_questions", "set_channel", "sweep", "trail"]
