"""Agents in the loop: runs, messages into non-chat conversations, the inbox, questions."""
