"""The audit tests reach the person's devices through the push tests' fake service."""

from tests.push.conftest import push_server, push_service

__all__ = ["push_server", "push_service"]
