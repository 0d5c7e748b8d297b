"""A waiting tool call's reminders reach the person's devices through the push tests' fake."""

from tests.push.conftest import push_server, push_service

__all__ = ["push_server", "push_service"]
