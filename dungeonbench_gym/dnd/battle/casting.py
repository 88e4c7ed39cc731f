"""Casting: paying for a spell, its targets one by one, darts, areas, concentration.

Part of :class:`~dungeonbench_gym.dnd.engine.Battle`.
"""

from __future__ import annotations

from .. import (
    content, spell_control, spell_counter,
    spell_summons, spell_walls, spellbook,
)
from ..classes import dispatch
from ..monster_traits import dispatch as monster_traits   # monsters' own traits (one module per trait family)
from ..model.options import Opt
from ..model.slots import spend_slot
from ..rules.hooks import OPTION_KINDS, TARGET_USES, TargetUse
from ..state import Combatant, monster_action
from ..rules import spell_data


class CastingMixin:
    """A spell from its choice to its effect."""

    def _resolve_target(self, c: Combatant, use: tuple, t: Combatant) -> None:
        """A creature was chosen for ``use``: its resolver in rules/hooks.py's TARGET_USES."""
        resolve = TARGET_USES[use[0]].resolve
        if resolve is None:   # the use's options are of their own kind and carry themselves out
            self.back_to_menu(c)
        else:
            resolve(self, c, use, t)

    # ---------------------------------------------------------------- spells and areas
    def begin_spell(self, c: Combatant, key: str, level: int) -> None:
        use = ("spell", key, level)
        if spell_counter.offer(self, c, key, level):   # a foe sees the casting and may counter it
            return
        if spell_data.handles(key):
            spellbook.begin(self, c, key, level)
        else:   # a target (the engine's own spells are aimed at creatures)
            self.pending = {"kind": "target", "actor": c.cid, "use": use}

    def pay_spell(self, c: Combatant, key: str, level: int) -> None:
        sp = content.spell(key)
        e = c.economy
        if sp.casting_time == "bonus_action" or dispatch.casting_as_bonus(c):   # (Quickened Spell)
            e.bonus = False
            e.bonus_spell = True
        else:
            e.actions -= 1
            e.levelled_action_spell |= level > 0
        innate = c.resources.get("innate", {})
        slots = c.resources.get("slots", ())
        if level and dispatch.free_cast(c, key, level):   # Spell Mastery, Signature Spell
            pass
        elif level and innate.get(key, 0) != 0 and (len(slots) < level or not slots[level - 1]):
            if innate[key] > 0:   # "n/day" (at will: -1, never spent)
                innate[key] -= 1
        elif level:
            spend_slot(c, level)
        c.conditions.pop("hidden", None)   # casting gives the caster away
        self.event("cast", f"{c.cid} casts {key}" + (f" at level {level}" if level else ""),
                   creature=c.cid, spell=key, level=level)
        if sp.concentration:   # one concentration spell at a time: a new one ends the old
            self.end_concentration(c)
            c.concentration = key
            c.resources["concentration_until"] = self.round + (sp.duration_rounds or 10) * \
                (2 if dispatch.extended(c) else 1)   # Extended Spell

    def end_concentration(self, c: Combatant) -> None:
        """Concentration ends: the effects this creature keeps up end with it."""
        if c.concentration is None:
            return
        if self.controls:   # the banished return, the dominated go back to their side (dnd/spell_control.py)
            spell_control.concentration_ends(self, c)
        for o in self.creatures.values():   # every effect this spell put on anyone
            for k in [k for k, v in o.conditions.items() if v.get("by") == c.cid and v.get("spell") == c.concentration]:
                del o.conditions[k]
        spell_summons.concentration_ends(self, c)   # forms revert, a conjured blade goes
        if "barriers" in self.__dict__:   # a concentration wall (Wall of Force, Stone, Ice) goes
            spell_walls.concentration_ended(self, c, c.concentration)
        self.event("concentration", f"{c.cid}'s {c.concentration} ends", creature=c.cid)
        c.concentration = None

    def _dart(self, c: Combatant, t: Combatant, left: int, declined: tuple = ()) -> None:
        """One Magic Missile dart (1d4+1 force); then the next dart's target, or back to the menu.
        SRD Shield: a creature the darts target may cast it as its reaction (once per casting:
        ``declined`` are those who let it be), and a shielded creature takes no damage from them."""
        if "ms" in t.resources:   # a tarrasque's Reflective Carapace: unaffected, or the dart turns back
            t = monster_traits.carapace_target(self, c, "magic-missile", t)
        if t is not None and t.cid not in declined and "shield" not in t.conditions and self._can_shield(t):
            self.pending = {"kind": "reaction", "actor": t.cid, "reaction": "shield_missile", "caster": c.cid,
                            "left": left, "declined": declined,
                            "prompt": f"{t.cid}: {c.cid}'s magic missile targets you"}
            self._cache = None
            return
        if t is not None and "shield" in t.conditions:
            self.event("shield", f"{t.cid}'s shield stops the magic missile", creature=t.cid, source=c.cid)
        else:
            amount = self.roller.roll_damage("1d4+1", what="damage magic-missile force")
            if t is not None:
                self.damage(t, amount, "force", magical=True, source=c.cid)
        if left and self.outcome is None and not self.check_outcome() and self.spell_targets(c, "magic-missile"):
            self.pending = {"kind": "target", "actor": c.cid, "use": ("dart", "magic-missile", left, declined)}
        else:
            self.back_to_menu(c)

    def cast_at(self, c: Combatant, key: str, level: int, t: Combatant) -> bool | None:
        if spell_data.handles(key):
            return spellbook.cast_at(self, c, key, level, t)
        self.pay_spell(c, key, level)
        if key == "magic-missile":   # every dart hits; each further dart is its own target decision
            self._dart(c, t, 2 + level - 1)
            return None
        raise ValueError(f"{key}: not an engine spell aimed at a creature")

    def more_targets(self, c: Combatant, key: str, level: int, left: int, chosen: tuple) -> None:
        if left > 0 and self.outcome is None and any(t.cid not in chosen for t in self.spell_targets(c, key)):
            self.pending = {"kind": "target", "actor": c.cid, "use": ("more", key, level, left, chosen)}
        else:
            self.back_to_menu(c)


    def _resolve_area(self, c: Combatant, use: tuple, where) -> None:
        if use[0] == "spell":   # every area spell is a spellbook row (dnd/spellbook.py)
            spellbook.resolve_area(self, c, use, where)
            return
        hits = self.area_hits(c, use, where)
        spec = monster_action(c, use[1])   # a monster's save action placed as an area
        if spec.chosen_creatures:   # it picks who is affected: its foes
            hits = [o for o in hits if o.side != c.side]
        self._monster_save(c, use[1], hits, legendary=use[2:3] == ("legendary",),
                           queued=use[2:3] == ("queue",), origin=self.area_origin(c, use, where))


@OPTION_KINDS.handles("spell")
def _spell(b, c: Combatant, p: dict, opt: Opt) -> None:
    dispatch.before_spell(b, c, opt.data)   # metamagic (Quickened Spell)
    b.begin_spell(c, opt.data[0], opt.data[1])


@OPTION_KINDS.handles("stop")   # no further targets for a multi-target spell
def _stop(b, c: Combatant, p: dict, opt: Opt) -> None:
    b.back_to_menu(c)


# ==================================================================== targets of spells
# (rules/hooks.py TARGET_USES: the creatures a pending target decision offers, and what choosing one does)

def _spell_targets(b, c: Combatant, use: tuple) -> list[Opt]:
    out = []
    for t in b.spell_targets(c, use[1], level=use[2] if len(use) > 2 else None):
        state = f"{t.hp}/{t.max_hp} HP" + ("" if t.conscious else ", dying")
        out.append(Opt(f"Cast {use[1]} on {t.cid} [{state}, AC {b.armour_class(t)}, "
                       f"{b.distance(c, t)} ft]", "target", (t.cid,)))
    return out


def _spell_target(b, c: Combatant, use: tuple, t: Combatant) -> None:
    if b.cast_at(c, use[1], use[2], t) is None:
        return
    b.back_to_menu(c)


def _dart_targets(b, c: Combatant, use: tuple) -> list[Opt]:
    return [Opt(f"Next Magic Missile dart ({use[2]} left) at {t.cid} [{t.hp}/{t.max_hp} HP, "
                f"{b.distance(c, t)} ft]", "target", (t.cid,)) for t in b.spell_targets(c, "magic-missile")]


def _dart_target(b, c: Combatant, use: tuple, t: Combatant) -> None:
    b._dart(c, t, use[2] - 1, use[3])


def _more_targets(b, c: Combatant, use: tuple) -> list[Opt]:
    """Bless, Bane, Hold Person: one more creature, or stop."""
    out = [Opt(f"Also {use[1]} {t.cid} ({use[3]} more) [{t.hp}/{t.max_hp} HP, {b.distance(c, t)} ft]",
               "target", (t.cid,)) for t in b.spell_targets(c, use[1]) if t.cid not in use[4]]
    out.append(Opt("No more targets", "stop"))
    return out


def _more_target(b, c: Combatant, use: tuple, t: Combatant) -> None:
    spellbook.more(b, c, use, t)


TARGET_USES.register("spell", TargetUse(_spell_targets, _spell_target))
TARGET_USES.register("dart", TargetUse(_dart_targets, _dart_target))
TARGET_USES.register("more", TargetUse(_more_targets, _more_target))
