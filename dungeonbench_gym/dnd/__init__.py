"""The D&D 5e (2014 SRD 5.1) tactical-combat engine: pure Python, no Gymnasium.

Submodules are imported by name (``from dungeonbench_gym.dnd.grid import BattleMap``) so that
importing one part of the engine does not pull in the rest.
"""
