"""The modes are the only writers: every door that writes a person's turn or a posted message
(the REST routes, the MCP tools) reaches the chat turn and the work session through
`parley.modes`, never around it. Read from the source, like the import-cycle test."""

from __future__ import annotations

import pytest

from tests.test_import_cycles import module_graph

pytestmark = pytest.mark.unit

# What only a mode calls (the work session's prompt is a manager method, checked below for
# the tools; an answer goes through `parley.questions.answer`, which every answer path takes).
BEHIND_THE_MODES = ("parley.chat.turn",)


def test_the_turn_and_the_session_are_reached_through_the_modes_only() -> None:
    graph = module_graph()
    found = sorted(
        f"{source} -> {target}"
        for source, targets in graph.items()
        for target in targets
        if target in BEHIND_THE_MODES
        and not source.startswith("parley.modes.")
        and source.rpartition(".")[0] != target.rpartition(".")[0]
    )
    assert not found, "written around the modes:\n" + "\n".join(found)


def test_the_tools_write_through_the_modes() -> None:
    graph = module_graph()
    assert "parley.modes" in graph["parley.tools.agent_tools"]
    assert "parley.modes" in graph["parley.tools.work_tools"]
    assert not graph["parley.tools.work_tools"] & {"parley.work.manager"}
