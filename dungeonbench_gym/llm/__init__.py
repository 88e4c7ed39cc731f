"""Language models as agents: clients behind one interface, the LLM policy,
answer parsing and prompting strategies."""

from .base import ChatClient, ClientError, Completion, TransientError

__all__ = ["ChatClient", "ClientError", "Completion", "TransientError"]
