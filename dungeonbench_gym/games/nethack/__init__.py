"""NetHack through NLE: the full game with BALROG's settings, a language
observation and a prompt-aware command vocabulary written here. The MiniHack
family reuses the vocabulary, prompts and language (`base.NLEDecisionEnv`)."""

from .env import ROLES, NetHackEnv

__all__ = ["ROLES", "NetHackEnv"]
