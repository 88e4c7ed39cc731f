"""The D&D engine's data model: what a battle is made of and what a decision offers.

Plain types with no rules in them, imported by every layer above (rules, mechanics,
choices, the engine, the planner); nothing here imports from those layers.
"""
