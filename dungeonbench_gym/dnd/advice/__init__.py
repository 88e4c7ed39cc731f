"""The planner's per-mechanic advice: what the baseline heuristic (:mod:`..heuristic`) asks each
mechanic (light, plants, utility spells, monsters' own options, the later class features, control
spells), kept out of the rules so that the rules run without the planner.

One module per mechanics module it advises, named after it; :mod:`.common` holds what the heuristic
and the advice both use (the planner's score of standing on a square), below both. Nothing in the
rules imports this package.
"""

from . import class_features, common, lighting, monster_specials, spell_control, spell_plants, spell_utility

__all__ = ["class_features", "common", "lighting", "monster_specials", "spell_control", "spell_plants",
           "spell_utility"]
