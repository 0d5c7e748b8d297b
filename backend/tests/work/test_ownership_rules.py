"""How the reaper tells a dead owner from a live one, decided without a database: a process is
its pid and its start time, and another host's lease is trusted for a grace period."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

from parley.work import ownership
from parley.work.ownership import OTHER_HOST_GRACE_SECONDS, Lapsed, Owner, owner_gone

pytestmark = pytest.mark.unit

HERE = Owner.here()
ME_STARTED = ownership.started_at(os.getpid())


def lapsed(**facts: object) -> Lapsed:
    found = Lapsed(
        conversation_id=1,
        user_id="ann",
        run_id=7,
        owner="other/abc",
        host=HERE.host,
        owner_pid=os.getpid(),
        owner_started=ME_STARTED,
        pid=None,
        pid_started=None,
        lapsed_for=1.0,
    )
    return replace(found, **facts)  # type: ignore[arg-type]


def no_such_pid() -> int:
    pid = 2**22 - 1
    while ownership.started_at(pid) is not None:
        pid -= 1
    return pid


def test_this_instance_names_its_host_and_its_own_process() -> None:
    assert HERE.instance.startswith(f"{HERE.host}/") and HERE.pid == os.getpid()
    assert HERE.started == ME_STARTED and HERE.started > 0
    assert Owner.here().instance != HERE.instance  # each start is a new owner


def test_a_process_is_its_pid_and_its_start_time() -> None:
    assert ownership.is_process(os.getpid(), ME_STARTED)
    assert ME_STARTED is not None
    # The same pid with another start time is another process (a reused pid).
    assert not ownership.is_process(os.getpid(), ME_STARTED - 5)
    assert not ownership.is_process(None, ME_STARTED)
    assert not ownership.is_process(os.getpid(), None)
    assert ownership.started_at(no_such_pid()) is None


def test_an_owner_on_this_host_is_gone_exactly_when_its_process_is() -> None:
    assert not owner_gone(lapsed(), here=HERE)  # its process runs: only slow to renew
    assert owner_gone(lapsed(owner_pid=no_such_pid()), here=HERE)
    assert ME_STARTED is not None
    assert owner_gone(lapsed(owner_started=ME_STARTED - 60), here=HERE)  # pid reused since


def test_an_owner_on_another_host_is_trusted_for_the_grace_period() -> None:
    far = lapsed(host="elsewhere", owner_pid=no_such_pid())
    assert not owner_gone(replace(far, lapsed_for=OTHER_HOST_GRACE_SECONDS - 1), here=HERE)
    assert owner_gone(replace(far, lapsed_for=OTHER_HOST_GRACE_SECONDS + 1), here=HERE)


def test_the_lease_outlives_several_missed_renewals() -> None:
    assert ownership.LEASE_SECONDS >= 3 * ownership.RENEW_SECONDS
