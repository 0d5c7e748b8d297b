"""Fixtures the attack suite shares with the tests of the parts it attacks."""

from tests.work.conftest import claude_env, claude_home, fake_api, work_server  # noqa: F401
