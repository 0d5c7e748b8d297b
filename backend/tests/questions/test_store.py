"""What the store reads a question as."""

from __future__ import annotations

import pytest

from parley.questions.store import is_permission

PERMISSION = {"type": "permission", "permission": {"tool": "Bash", "input": {}}}


@pytest.mark.unit
def test_a_permission_question_is_one_with_a_tool_call() -> None:
    assert is_permission(PERMISSION)
    assert not is_permission({"type": "permission"})
    assert not is_permission({"permission": {}})
    assert not is_permission(None)
