"""Saving throws, damage and healing, exhaustion, concentration checks, dropping to 0 HP, dying and
death saves.

Part of :class:`~dungeonbench_gym.dnd.engine.Battle`.
"""

from __future__ import annotations

from .. import (
    spell_buffs, spell_control, spell_summons, spell_zones,
    spellbook,
)
from ..classes import dispatch
from ..monster_traits import dispatch as monster_traits   # monsters' own traits (one module per trait family)
from ..grid import Cover
from ..rules.conditions import AUTO_FAIL
from ..state import Combatant


class DamageMixin:
    """Saves, damage, healing and death."""

    def saving_throw(self, t: Combatant, ability: str, dc: int, *, magic: bool = False, big: bool = False,
                     adv: bool = False, condition=None, origin=None) -> bool:
        """A save with the conditions' effects (SRD appendix A), Bless/Bane, Magic Resistance, and
        Legendary Resistance (spent on a failed save against a big effect: ``big``). ``condition``
        (a name or several) is what a failure imposes: traits like Brave give advantage against it.
        ``origin``: where the effect comes from, a creature or a point (x, y, z) in feet
        (:attr:`.areas.Area.origin_ft`): a Dexterity save adds the cover between it and t (SRD
        Combat > Cover: +2 half, +5 three-quarters; :meth:`save_cover`). None: no cover counts
        (an effect on t itself, a repeat save at the end of its turn, Sacred Flame)."""
        if dispatch.careful_success(self, t):   # Careful Spell: the sorcerer's allies succeed
            return True
        against = (condition,) if isinstance(condition, str) else tuple(condition or ())
        adv = adv or (any(x in t.resources.get("save_adv_vs", ()) for x in against)
                      and t.resources.get("heads", 2) > 1)   # a hydra: while it has more than one head
        # SRD: unconscious, paralyzed, petrified, stunned: automatically fail Str and Dex saves
        if ability in ("str", "dex") and (not t.conscious or any(k in t.conditions for k in AUTO_FAIL)):
            self.event("save", f"{t.cid} fails the {ability.upper()} save automatically",
                       creature=t.cid, success=False)
            return False
        adv = adv or (ability == "dex" and t.dodging and self.dodge_holds(t))   # SRD Dodge: Dex saves
        adv = adv or (magic and "magic_resistance" in t.features) or dispatch.save_advantage(self, t, ability) \
            or (magic and "gnome_cunning" in t.features and ability in ("int", "wis", "cha"))
        dis = (ability == "dex" and ("restrained" in t.conditions or t.squeezing)) or t.exhaustion >= 3 \
            or ("breath_weakened" in t.conditions and ability == "str") \
            or dispatch.save_disadvantage(self, t)   # a gold dragon's Weakening Breath; Heightened Spell
        # (restrained or squeezing into a smaller space: SRD, disadvantage on Dex saves)
        adv = adv or spellbook.save_mode(t, ability, "save_adv", against)   # Holy Aura, Protection from Poison
        dis = dis or spellbook.save_mode(t, ability, "save_dis")   # Irresistible Dance
        adv = adv or (against and dispatch.countercharm_adv(self, t, against))   # Countercharm
        bonus = t.saves[ability] + self.save_bonus(t, ability)
        cover = self.save_cover(origin, t) if origin is not None and ability == "dex" else Cover.NONE
        bonus += cover.save_bonus   # SRD Cover: +2 / +5 to Dex saves
        own = t.saves[ability] + cover.save_bonus   # what a reroll keeps; its dice it rolls anew
        roll = self.roller.roll_d20(adv, dis, bonus=bonus, what=f"save {t.cid} {ability}")
        ok = roll.total >= dc
        note = f", {cover.name.lower().replace('_', '-')} cover" if cover else ""
        self.event("save", f"{t.cid} {'succeeds on' if ok else 'fails'} a DC {dc} {ability.upper()} save "
                   f"({roll.total}{note})", creature=t.cid, success=ok, **({"cover": int(cover)} if cover else {}))
        if not ok and t.is_pc and dispatch.rescue_save(self, t, ability, dc, roll.total, adv, dis, own):
            return True   # Bardic Inspiration, Indomitable, Diamond Soul, Dark One's Own Luck
        if not ok and big and t.resources.get("legendary_resistance", 0) > 0:
            t.resources["legendary_resistance"] -= 1
            self.event("legendary_resistance", f"{t.cid} uses Legendary Resistance: the save succeeds "
                       f"({t.resources['legendary_resistance']} left)", creature=t.cid)
            return True
        return ok

    def save_bonus(self, t: Combatant, ability: str) -> int:
        """What every saving throw of t adds to its d20 besides its own modifier and cover, the
        dice rolled now: a condition's flat bonus (Warding Bond, Raise Dead's penalty), Aura of
        Protection, Resistance's die, Bless's d4, a knight's Leadership, minus Bane's d4. Every
        saving throw comes here: a save (:meth:`saving_throw`), a death save (``ability``
        "death": SRD, a death saving throw is a saving throw) and a save rerolled (Indomitable,
        Diamond Soul: a new saving throw, so its dice are rolled anew)."""
        bonus = sum(v.get("save", 0) for v in t.conditions.values())   # Warding Bond
        bonus += dispatch.save_bonus(self, t, ability)   # Aura of Protection
        bonus += spellbook.save_bonus(self, t)   # Resistance
        if "blessed" in t.conditions:
            bonus += self.roller.roll("1d4", what=f"bless {t.cid}")
        bonus += self._leadership_die(t)   # a knight's Leadership
        if "baned" in t.conditions:
            bonus -= self.roller.roll("1d4", what=f"bane {t.cid}")
        return bonus

    def save_cover(self, origin, t: Combatant) -> Cover:
        """The cover t has against an effect from ``origin``: a creature (as for its attack,
        :meth:`cover`), or a point (x, y, z) in feet (an area's point of origin: lines from that
        point, the other creatures giving half cover as they do against an attack)."""
        if isinstance(origin, Combatant):
            return Cover.NONE if origin is t else self.cover(origin, t)
        others = frozenset(cell for o in self.creatures.values()
                           if not o.dead and o is not t
                           and o.conditions.get("mounted", o.conditions.get("ridden", {})).get("on") != t.cid
                           for cell in o.cells)
        return self.map.cover_from_point(origin, t.cells, others, target_z=t.pos[2])

    def add_exhaustion(self, t: Combatant, levels: int = 1) -> None:
        """SRD exhaustion: 1 disadvantage on ability checks, 2 speed halved, 3 disadvantage on attack
        rolls and saves, 4 hit point maximum halved, 5 speed 0, 6 death (levels are cumulative)."""
        level = min(6, t.exhaustion + levels)
        t.conditions["exhaustion"] = {"level": level}
        if level >= 4 and "base_max_hp" not in t.resources:
            t.resources["base_max_hp"] = t.max_hp
            t.max_hp //= 2
            t.hp = min(t.hp, t.max_hp)
        self.event("condition", f"{t.cid} has exhaustion level {level}", creature=t.cid, condition="exhaustion")
        if level >= 6:
            self.die(t, "exhaustion")

    # ================================================================ damage, healing, dying
    def damage(self, t: Combatant, amount: int, dtype: str, *, magical: bool = False,
               critical: bool = False, source: str | None = None) -> int:
        """Apply damage after immunity, resistance, vulnerability and temp HP; returns HP lost."""
        if t.dead:
            return 0
        if "sculpted" in t.economy.extra and dispatch.sculpted(self, t, source):   # Sculpt Spells
            return 0
        held = next((o for o in self.creatures.values() if not o.dead
                     and o.conditions.get("grappled", {}).get("by") == t.cid), None) \
            if "damage_transfer" in t.features else None
        if held is not None and amount > 0:   # Damage Transfer: the one it grapples takes the other half
            self.damage(held, amount - amount // 2, dtype, magical=magical, source=source)
            amount //= 2
        if dtype in t.resources.get("absorb", ()):   # Fire / Lightning Absorption: it heals instead
            self.heal(t, amount, f"{dtype} absorption")
            return 0
        amount = self.modified_damage(t, amount, dtype, magical)
        if "amulet_of" in t.resources and amount > 0:   # a shield guardian's Bound: it takes half
            amount = monster_traits.bound_share(self, t, amount, dtype, source)
        if amount > 0 and t.conditions.get("unconscious", {}).get("asleep"):   # Sleep: damage wakes it
            del t.conditions["unconscious"]
            self.event("wake", f"{t.cid} wakes up", creature=t.cid)
        if amount <= 0:
            if amount == 0 and self._mods(t.immune, dtype, magical):
                self.event("damage", f"{t.cid} is immune to {dtype}", creature=t.cid, amount=0)
                if "split" in t.features:   # an ochre jelly is immune yet still splits
                    self._split(t, dtype)
            return 0
        regen = t.resources.get("regeneration")
        if regen and dtype in regen["stop"]:   # SRD: no regeneration at the start of its next turn
            t.resources["regen_blocked"] = True
        if regen and regen["at_zero"] and t.hp == 0:   # a downed troll: only its next turn decides
            return 0
        if t.conditions.pop("turned", None) is not None:   # Turn Undead ends when it takes damage
            self.event("condition_end", f"{t.cid} is no longer turned", creature=t.cid, condition="turned")
        for k in [k for k, v in t.conditions.items() if v.get("ends_on_damage")]:   # Hypnotic Pattern
            del t.conditions[k]
            self.event("condition_end", f"{t.cid} is no longer {k}", creature=t.cid, condition=k)
        if t.temp_hp:
            soak = min(t.temp_hp, amount)
            t.temp_hp -= soak
            amount -= soak
        if t.hp == 0:   # already dying: a failed death save (two on a crit), or death
            if amount <= 0:   # SRD temporary hit points: at 0 HP they still absorb the damage
                return 0
            if amount >= t.max_hp:
                self.die(t, "massive damage")
            else:
                t.death_failures += 2 if critical else 1
                self.event("death_save", f"{t.cid} takes damage at 0 HP: {t.death_failures} failures",
                           creature=t.cid, failures=t.death_failures)
                t.stable = False
                if t.death_failures >= 3:
                    self.die(t, "three failed death saves")
            return amount
        lost = min(t.hp, amount)
        t.hp -= lost
        if t.hp == 0 and spellbook.ward_from_death(self, t):   # Death Ward: 1 HP instead, once
            t.hp, lost = 1, lost - 1
        if t.hp == 0 and ("shape_saved" in t.resources or "melts" in t.resources):   # Polymorph; Simulacrum
            lost += spell_summons.at_zero(self, t, amount - lost)
        if t.hp == 0 and t.is_pc:   # Wild Shape (the rest carries over to the druid), Relentless Rage
            lost += dispatch.at_zero(self, t, amount - lost)
        self.event("damage", f"{t.cid} takes {amount} {dtype} damage ({t.hp}/{t.max_hp} HP)",
                   creature=t.cid, amount=amount, type=dtype, source=source)
        if source in self.creatures and \
                self.creatures[source].conditions.get("swallowed", {}).get("by") == t.cid:   # hurt from inside
            t.resources["hurt_inside"] = t.resources.get("hurt_inside", 0) + amount
        if "split" in t.features and t.hp > 0:   # an ochre jelly's Split
            self._split(t, dtype)
        if "heads" in t.resources and not t.dead:   # a hydra loses a head to heavy damage
            self._head_damage(t, amount, dtype)
        if dtype == "cold" and "freeze" in t.features and not t.dead:   # partly frozen: -20 ft speed
            mine = self.active is t
            if "frozen" not in t.conditions:
                t.economy.movement = max(0, t.economy.movement - 20) if mine else t.economy.movement
            t.conditions["frozen"] = {"by": source, "speed": -20, "until": "end_of_target_next_turn",
                                      "turn_of": t.cid if mine else None, "round": self.round}
            self.event("condition", f"{t.cid} partly freezes (speed -20 ft)", creature=t.cid, condition="frozen")
        if "ms" in t.resources and not t.dead:   # Aversion of Fire (dnd/monster_traits/golems.py)
            monster_traits.on_damage(self, t, amount, dtype, source)
        dispatch.on_damaged(self, t, amount, source)   # rage kept up; Dark One's Blessing
        if "dominated" in t.conditions:   # a new Wisdom save (dnd/spell_control.py)
            spell_control.hurt(self, t)
        if t.hp == 0:
            if not t.is_pc and regen and regen["at_zero"]:   # the troll dies only at its turn's start
                self.event("down", f"{t.cid} drops to 0 HP but may regenerate", creature=t.cid)
            elif not t.is_pc and self._stays_up(t, amount, dtype, critical):
                pass
            elif not t.is_pc:
                self.die(t, "0 hit points")
            elif amount - lost >= t.max_hp:   # SRD instant death: the rest >= max HP
                self.die(t, "massive damage")
            else:
                self.fall_unconscious(t)
        elif t.concentration:
            self.concentration_check(t, amount)
        return amount

    def modified_damage(self, t: Combatant, amount: int, dtype: str, magical: bool = False) -> int:
        if self.zones and dtype == "thunder" and spell_zones.silenced(self, t):   # inside Silence
            return 0
        if self._mods(t.immune, dtype, magical) or (t.conditions and spell_buffs.immune(t, dtype)):   # Mind Blank
            return 0
        petrified = "petrified" in t.conditions   # SRD: resistance to all damage, immune to poison
        if petrified and dtype == "poison":
            return 0
        spell_resist = any(dtype in v.get("resist", ()) or (dtype in v.get("resist_nonmagical", ()) and not magical)
                           for v in t.conditions.values())   # spellbook flags: Stoneskin, Warding Bond
        immersed = dtype == "fire" and getattr(self, "underwater", False)   # SRD: fully immersed resist fire
        if petrified or spell_resist or self._mods(t.resist, dtype, magical) or dispatch.resists(t, dtype) \
                or immersed:
            amount //= 2
        if self._mods(t.vulnerable, dtype, magical):
            amount *= 2
        return amount

    @staticmethod
    def _mods(items: tuple, dtype: str, magical: bool) -> bool:
        return any(kind == dtype and not (nonmagical_only and magical) for kind, nonmagical_only in items)

    def concentration_check(self, t: Combatant, damage: int) -> bool:
        """SRD: a Con save, DC 10 or half the damage, whichever is higher; failing ends it."""
        dc = max(10, damage // 2)
        ok = self.saving_throw(t, "con", dc)
        if not ok:
            self.end_concentration(t)
        return ok

    def fall_unconscious(self, t: Combatant) -> None:
        dispatch.on_unconscious(self, t)   # a rage ends
        t.conditions["prone"] = {}
        self.end_concentration(t)
        t.death_successes = t.death_failures = 0
        t.stable = False
        self.release_grapples_by(t)
        self.event("unconscious", f"{t.cid} falls unconscious", creature=t.cid)

    def die(self, t: Combatant, why: str) -> None:
        t.dead = True
        t.hp = 0
        self.end_concentration(t)
        self.release_grapples_by(t)
        self.event("death", f"{t.cid} dies ({why})", creature=t.cid)
        for o in sorted(self.swallowed_by(t), key=lambda o: o.cid):   # simplification: out at once
            self.spit_out(t, o, "the swallower died")
        t.resources["died_round"] = self.round   # a wraith's Create Specter: dead no longer than 1 minute
        if "death_burst" in t.resources:
            self._death_burst(t)

    def _death_save(self, t: Combatant) -> None:
        # a death save is a saving throw: what every save adds counts (Aura of Protection, Bless,
        # Bane, Warding Bond: not on a natural 1 or 20), and exhaustion 3's disadvantage on saves
        roll = self.roller.roll_d20(spell_buffs.death_save_adv(t), t.exhaustion >= 3,   # Beacon of Hope
                                    bonus=self.save_bonus(t, "death"), what=f"death save {t.cid}")
        if roll.natural == 20:   # regain 1 HP
            self.heal(t, 1, "a natural 20 on a death save")
            return
        if roll.natural == 1:
            t.death_failures += 2
        elif roll.total >= 10:
            t.death_successes += 1
        else:
            t.death_failures += 1
        self.event("death_save", f"{t.cid} death save {roll.natural}: {t.death_successes} successes, "
                   f"{t.death_failures} failures", creature=t.cid)
        if t.death_failures >= 3:
            self.die(t, "three failed death saves")
        elif t.death_successes >= 3 and "suffocating" not in t.conditions:   # (SRD Suffocating: not stabilised)
            t.stable = True
            t.death_successes = t.death_failures = 0   # SRD: both counts reset on becoming stable
            self.event("stable", f"{t.cid} is stable", creature=t.cid)

    def heal(self, t: Combatant, amount: int, source: str) -> int:
        if t.dead or "no_heal" in t.conditions or "swarm" in t.features \
                or "negative_energy" in t.conditions:   # Chill Touch; a swarm never heals; a mummy lord's
            return 0
        amount = dispatch.heal_bonus(self, t, amount, source)   # Disciple of Life, Blessed Healer
        before = t.hp
        t.hp = min(t.max_hp, t.hp + amount)
        if before == 0 and t.hp > 0:   # healing from 0: conscious again, saves reset
            t.death_successes = t.death_failures = 0
            t.stable = False
        self.event("heal", f"{t.cid} regains {t.hp - before} HP from {source} ({t.hp}/{t.max_hp})",
                   creature=t.cid, amount=t.hp - before)
        return t.hp - before
