"""The planner's advice on the later class features (:mod:`..classes`): which of them the
baseline heuristic (:mod:`..heuristic`) takes in each of its phases, and a metamagic variant of a
spell it chose when that pays."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import content
from ..classes.paladin import cleanse_targets, unholy
from ..classes.ranger import adjacent_foes, volley_hits, volley_weapon
from ..classes.sorcerer import presence_targets
from ..classes.warlock import carceri_targets

if TYPE_CHECKING:
    from ..engine import Battle
    from ..state import Combatant


def heuristic_choice(b: Battle, c: Combatant, opts: list, phase: str):
    """This module's features (and Step of the Wind, Fiendish Vigor) for the planner's phases:
    "urgent", "early", "before_attack", "bonus" (see :func:`..heuristic._feature_choice`); None: nothing."""
    feats: dict = {}
    for i, o in enumerate(opts):
        if o.kind == "feature" and o.data:
            feats.setdefault(o.data[0], i)
    if not feats:
        return None
    foes = [o for o in b.enemies_of(c) if o.conscious]
    if phase == "urgent":
        if "cleansing_touch" in feats and any(
                k in ("paralyzed", "stunned", "charmed", "frightened", "restrained", "unconscious")
                for t in cleanse_targets(b, c) for k, v in t.conditions.items() if v.get("spell")):
            return feats["cleansing_touch"]
        return None
    if phase == "early":
        arms = {o.data[1]: i for i, o in enumerate(opts) if o.kind == "feature" and o.data[0] == "arm"}
        if arms:
            spells = [content.spell(o.data[0]) for o in opts if o.kind == "spell"]
            if "overchannel" in arms and len(foes) >= 2 and any(sp.area is not None and sp.damage_type
                                                                and sp.level >= 3 for sp in spells):
                return arms["overchannel"]
            if "subtle" in arms and any("counterspell" in t.spells and b.distance(c, t) <= 60 for t in foes) \
                    and any(sp.level >= 3 for sp in spells):
                return arms["subtle"]
            if "empowered" in arms and c.resources.get("sorcery_points", 0) >= 4 and any(
                    sp.damage_type and sp.level >= 3 for sp in spells):
                return arms["empowered"]
        if "fiendish_vigor" in feats and c.temp_hp == 0 and not any(o.kind in ("attack", "spell") for o in opts):
            return feats["fiendish_vigor"]   # nothing to strike yet: temporary hit points for later
        if "to_slot" in feats and not any(c.resources.get("slots", ())) and foes:
            return max((i for i, o in enumerate(opts) if o.kind == "feature" and o.data[0] == "to_slot"),
                       key=lambda i: opts[i].data[1])
        reach = (c.melee_reach or 5) + c.economy.movement
        if "step_dash" in feats and foes and c.economy.attacks_left == 0 and c.economy.actions > 0 \
                and not any(b.distance(c, o) <= reach for o in foes) \
                and any(b.distance(c, o) <= reach + b.speed(c) for o in foes) and not any(not a.melee for a in c.attacks
                                                                                        if a.key != "dart"):
            return feats["step_dash"]
        return None
    if phase == "before_attack":
        if "draconic_presence" in feats and len(presence_targets(b, c)) >= 2:
            return feats["draconic_presence"]
        if "turn_unholy" in feats and (len(unholy(b, c)) >= 2 or any(o.hp >= 30 for o in unholy(b, c))):
            return feats["turn_unholy"]
        if "whirlwind" in feats and len(adjacent_foes(b, c)) >= 2:
            return feats["whirlwind"]
        if "carceri" in feats and c.concentration is None and any(t.hp >= 30 for t in carceri_targets(b, c)):
            return feats["carceri"]
        if "chain" in feats and (c.economy.attacks_left > 0 or not any(o.kind == "spell" for o in opts)):
            return feats["chain"]   # Pact of the Chain: the familiar strikes in place of a weapon attack
        if "volley" in feats:
            a = volley_weapon(b, c)
            if a is not None and any(len(volley_hits(b, c, a, t)) >= 2 for t in b.targets_for_attack(c, a)):
                return feats["volley"]
        return None
    if phase == "bonus":
        if "fast_potion" in feats and c.hp <= 0.5 * c.max_hp:
            return feats["fast_potion"]
        if "step_disengage" in feats and c.hp <= 0.35 * c.max_hp and any(b.distance(c, o) <= 5 for o in foes) \
                and c.resources.get("ki", 0) >= 1 and c.economy.movement >= 10:
            return feats["step_disengage"]   # then the planner's move takes it out of reach, unprovoked
    return None


def upgrade(b: Battle, c: Combatant, opts: list, i: int) -> int:
    """The planner chose a plain spell: take a metamagic variant of the same casting when it pays:
    Heightened (a single-target save spell, 3 points), Careful (an ally near the foes)."""
    o = opts[i] if 0 <= i < len(opts) else None
    if o is None or o.kind != "spell" or len(o.data) != 2 or not c.is_pc:
        return i
    variants = {p.data[2]: j for j, p in enumerate(opts)
                if p.kind == "spell" and len(p.data) > 2 and p.data[:2] == o.data and isinstance(p.data[2], str)}
    if not variants:
        return i
    sp = content.spell(o.data[0])
    pts = c.resources.get("sorcery_points", 0)
    foes = [t for t in b.enemies_of(c) if t.conscious]
    if "heightened" in variants and pts >= 3 and sp.area is None and o.data[1] >= 1:
        return variants["heightened"]
    if "careful" in variants and any(t is not c and t.conscious and any(b.distance(t, f) <= 20 for f in foes)
                                     for t in b.allies_of(c)):
        return variants["careful"]
    return i
