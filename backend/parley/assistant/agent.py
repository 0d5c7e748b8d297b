"""The task assistant, built afresh for every turn: nothing about a conversation lives here."""

from __future__ import annotations

from dataclasses import dataclass

from agents import Agent, ModelSettings, RunContextWrapper, Tool
from agents.mcp import MCPServer, MCPUtil
from agents.models.interface import Model

INSTRUCTIONS = """You are Parley, a concise assistant that manages the person's to-do list.
Use the tools to add, list, complete, update and delete tasks. Look up ids with list_tasks
rather than guessing them. After acting, say in one short plain sentence what you did.
If a tool reports an error, explain it plainly and suggest what to do next."""


@dataclass(frozen=True)
class TurnContext:
    """What the tools may know about a turn; identity comes from here, never from the model."""

    user_id: str
    conversation_id: int
    # The turn and the person's message it answers: tool calls are recorded under them.
    turn_id: str = ""
    prompt_id: int = 0
    retry: bool = False  # a retry may meet calls an earlier try of the turn already made


# Explicit, so building an agent does not deep-copy the SDK's defaults every turn.
MODEL_SETTINGS = ModelSettings()


# The person's own instructions (Account → Instructions) follow Parley's, marked as theirs.
PERSON_INSTRUCTIONS = """

The person asked you to keep the following in mind (their own words; Parley's rules above
still apply):
"""


def instructions_for(person: str) -> str:
    return INSTRUCTIONS + PERSON_INSTRUCTIONS + person if person else INSTRUCTIONS


def build_agent(
    *, model: Model, tools: list[Tool], person_instructions: str = ""
) -> Agent[TurnContext]:
    return Agent[TurnContext](
        name="Parley",
        instructions=instructions_for(person_instructions),
        model=model,
        tools=list(tools),
        model_settings=MODEL_SETTINGS,
    )


async def mcp_function_tools(server: MCPServer, *, model: Model) -> list[Tool]:
    """The MCP server's tools as the SDK's function tools, converted once per process.

    What `Agent(mcp_servers=[server])` does on every run, done once: the tool list never
    changes while the server runs, and converting it anew (a deep copy of each schema) was
    over a tenth of a short turn's CPU. Every call still goes through `server.call_tool`,
    with the calling run's context."""
    template = Agent[TurnContext](name="Parley", model=model, model_settings=MODEL_SETTINGS)
    return await MCPUtil.get_function_tools(
        server,
        convert_schemas_to_strict=False,
        run_context=RunContextWrapper(context=None),
        agent=template,
    )
