"""The push tests' fixtures, for the attacks on push subscriptions here."""

from tests.push.conftest import push_server, push_service  # noqa: F401
