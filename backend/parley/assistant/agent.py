"""The task assistant, built afresh for every turn: nothing about a conversation lives here."""

from __future__ import annotations

from dataclasses import dataclass

from agents import Agent
from agents.mcp import MCPServer
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


def build_agent(*, model: Model, tools: MCPServer) -> Agent[TurnContext]:
    return Agent[TurnContext](
        name="Parley", instructions=INSTRUCTIONS, model=model, mcp_servers=[tools]
    )
