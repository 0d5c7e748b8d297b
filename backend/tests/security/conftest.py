"""Fixtures the attack suite shares with the tests of the parts it attacks."""

from tests.push.conftest import push_server, push_service  # noqa: F401
from tests.work.conftest import claude_env, claude_home, fake_api, work_server  # noqa: F401
