"""The planner's per-mechanic advice: what the baseline heuristic (:mod:`..heuristic`) asks each
mechanic (light, plants, utility spells, monsters' own options, class features, control
spells), and the Day track's baseline between fights (:mod:`.intermission`, with each mechanic's
part in its module here), kept out of the rules so that the rules run without the planner.

One module per mechanics module it advises, named after it; :mod:`.common` holds what the heuristic
and the advice both use (the planner's score of standing on a square), below both. Nothing in the
rules imports this package.
"""

from . import (
    class_features, common, intermission, lighting, monster_traits, spell_buffs, spell_control, spell_plants,
    spell_utility, spell_wards,
)

__all__ = ["class_features", "common", "intermission", "lighting", "monster_traits", "spell_buffs",
           "spell_control", "spell_plants", "spell_utility", "spell_wards"]
