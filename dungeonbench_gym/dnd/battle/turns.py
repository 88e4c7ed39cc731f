"""The round: initiative, the start and end of a turn, legendary actions between turns, the outcome.

Part of :class:`~dungeonbench_gym.dnd.engine.Battle` (a mixin: the methods read and write the
battle's own state).
"""

from __future__ import annotations

from .. import (
    spell_control, spell_plants, spell_utility, spell_walls,
    spell_wards, spell_zones, spellbook,
)
from ..classes import dispatch
from ..monster_traits import dispatch as monster_traits   # monsters' own traits (one module per trait family)
from ..grid import SQUARE_FT
from ..model.options import Opt
from ..rules.conditions import ZERO_SPEED
from ..rules.hooks import OPTION_KINDS, TURN_ENDS, TURN_STARTS
from ..state import Combatant, Economy, monster_action


class TurnsMixin:
    """Initiative, turns and rounds, legendary actions, the end of the battle."""

    # ================================================================ surprise, initiative and turns
    def determine_surprise(self, surprised: tuple = (), hiding: str | None = None) -> None:
        """SRD Surprise: the creatures named are surprised; when a side is ``hiding``, each of its
        creatures makes a Dexterity (Stealth) check, and a creature of another side whose passive
        Wisdom (Perception) beats none of those checks notices no threat and is surprised. A
        surprised creature can't move or act on its first turn and can't take a reaction until
        that turn ends (:meth:`next_turn`)."""
        for cid in surprised:
            if cid not in self.creatures:
                raise ValueError(f"surprised: no combatant {cid!r} (ids: {sorted(self.creatures)})")
        out = set(surprised)
        if hiding is not None:
            hiders = [h for h in sorted(self.creatures.values(), key=lambda c: c.cid) if h.side == hiding and h.conscious]
            if not hiders:
                raise ValueError(f"hiding: no conscious combatant on the side {hiding!r}")
            checks = []
            for h in hiders:
                roll = self.roller.roll_d20(dispatch.stealth_advantage(h), self.check_dis(h), bonus=self.stealth(h),
                                            what=f"stealth {h.cid}")
                checks.append(dispatch.check_total(h, "dex", roll.natural, roll.total, True))
            self.event("stealth", "Stealth before the battle: " + ", ".join(
                f"{h.cid} {t}" for h, t in zip(hiders, checks)), checks=dict(zip([h.cid for h in hiders], checks)))
            for o in self.creatures.values():
                if o.side != hiding and o.conscious and not any(self.passive_perception(o) >= t for t in checks):
                    out.add(o.cid)
        for cid in sorted(out):
            c = self.creatures[cid]
            c.conditions["surprised"] = {"round": 0}
            c.economy.reaction = False
        if out:
            self.event("surprise", "Surprised: " + ", ".join(sorted(out)), creatures=sorted(out))

    def _roll_initiative(self) -> None:
        for c in sorted(self.creatures.values(), key=lambda c: c.cid):
            c.initiative = self.roller.roll_d20(dispatch.initiative_advantage(c),   # Feral Instinct
                                                bonus=c.dex_mod + dispatch.initiative_bonus(c),
                                                what=f"initiative {c.cid}").total
        # SRD: highest first; ties by Dex score (the DM's call), then the stable id
        self.order = [c.cid for c in sorted(self.creatures.values(),
                                            key=lambda c: (-c.initiative, -c.abilities["dex"], c.cid))]
        self.event("initiative", "Initiative: " + ", ".join(
            f"{cid} {self.creatures[cid].initiative}" for cid in self.order), order=list(self.order))

    def next_turn(self) -> None:
        """Advance to the next creature that can act and open its action menu."""
        while self.outcome is None:
            self.turn_index += 1
            if self.turn_index >= len(self.order) or self.round == 0:
                self.turn_index = 0
                if self.round > 0 and self._end_of_round():
                    return
                self.round += 1
                if self.round <= 2:   # Thief's Reflexes: a second turn in round 1 (dnd/dispatch.py)
                    dispatch.reflex_order(self)
                if self.round > self.round_limit:
                    self.round = self.round_limit
                    self._finish("survive" if self.objective["type"] == "survive" else "round_limit")
                    return
                self.event("round", f"Round {self.round}", round=self.round)
            c = self.active
            if c.dead and not (self.controls and spell_control.removed_turn(self, c)):   # Maze, Blink
                continue
            self.start_turn(c)
            if self.check_outcome():
                return
            if c.conscious and not c.incapacitated and ("surprised" not in c.conditions
                                                        or dispatch.acts_surprised(c)):   # Feral Instinct
                self.open_menu(c)
                return
            # an unconscious, incapacitated or surprised creature's turn passes (its repeat saves still come)
            self._end_of_turn_effects(c)
            if c.conditions.pop("surprised", None) is not None:   # its first turn is over: reactions again
                c.economy.reaction = True
                self.event("condition_end", f"{c.cid} is no longer surprised", creature=c.cid, condition="surprised")
            if self.check_outcome():
                return

    def turn_mark(self) -> int:
        """The number of the turn now under way (any creature's): a feature usable "once per
        turn" (Sneak Attack) notes it, so that it comes back on the next creature's turn too."""
        return self.__dict__.get("turns_started", 0)   # (a battle pickled before it was counted)

    def start_turn(self, c: Combatant) -> None:
        self.turns_started = self.turn_mark() + 1
        c.economy = Economy(movement=self.speed(c))
        if "surprised" in c.conditions:   # no move, no action, no reaction until this turn ends
            if dispatch.acts_surprised(c):   # Feral Instinct: it may act, raging first (menu.py), no reaction
                c.economy.reaction = False
            else:
                c.economy = Economy(movement=0, actions=0, bonus=False, reaction=False, object_use=False)
        dispatch.start_turn(self, c)   # class features: rage's minute, Reckless Attack ends, Survivor
        if "barriers" in self.__dict__ or "monster_wall" in c.resources:   # walls end; a wall action recharges
            spell_walls.start_of_turn(self, c)
        if "plant_magic" in self.__dict__:   # Transport via Plants' links end (dnd/spell_plants.py)
            spell_plants.start_of_turn(self, c)
        for key in sorted(c.conditions):   # a stat block's "for 1 minute": ends at its turn's start
            until = c.conditions[key].get("until_round")
            if until is not None and self.round >= until:
                del c.conditions[key]
                self.event("condition_end", f"{c.cid} is no longer {key}", creature=c.cid, condition=key)
        turned = c.conditions.get("turned")
        if turned and self.round >= turned["until"]:   # 1 minute
            del c.conditions["turned"]
            self.event("condition_end", f"{c.cid} is no longer turned", creature=c.cid, condition="turned")
        elif turned:
            c.economy.reaction = False   # a turned creature can't take reactions
        if "breath_slowed" in c.conditions:   # Slowing Breath: no reactions while it lasts
            c.economy.reaction = False
        for o in self.creatures.values():   # Reactive (a marilith): a reaction on every turn
            if "reactive" in o.features and o is not c and "surprised" not in o.conditions:
                o.economy.reaction = True
        if c.squeezing:   # moved (pushed, teleported) to where its whole space fits: no longer squeezing
            self.settle_space(c, True, was=True)
        c.dodging = False   # Dodge, Shield and a readied action last until the start of your next turn
        c.conditions.pop("shield", None)
        c.conditions.pop("readied", None)
        for o in self.creatures.values():   # Help lasts until the start of the helper's turn
            if o.conditions.get("helped", {}).get("by") == c.cid:
                del o.conditions["helped"]
        self.zone_hits = set()
        for o in self.creatures.values():   # riders that last until the start of the caster's next turn
            for k in ("slowed", "chilled", "no_heal"):
                if o.conditions.get(k, {}).get("by") == c.cid:
                    del o.conditions[k]
            for k in [k for k, v in o.conditions.items()
                      if v.get("until") == "start_of_source_next_turn" and v.get("by") == c.cid]:
                del o.conditions[k]
                self.event("condition_end", f"{o.cid} is no longer {k}", creature=o.cid, condition=k)
        if c.concentration and self.round >= c.resources.get("concentration_until", 10 ** 9):
            self.end_concentration(c)   # the spell's duration ran out
        for k in ("pounce_on", "rampage_ready", "rampage_bite"):   # bonus attacks last only for their turn
            c.resources.pop(k, None)
        c.conditions.pop("reckless", None)   # Reckless: attacks against it had advantage until now
        if c.legendary:   # legendary actions come back at the start of its turn
            c.resources["legendary_left"] = c.legendary_per_round
        if "heads" in c.resources:   # Reactive Heads: an opportunity-attack reaction per extra head
            c.resources["oa_extra"] = max(0, c.resources["heads"] - 1)
        if c.dying:
            self._death_save(c)
        if self.underwater or "_utility" in self.__dict__:   # breath under water, Mage Hand (dnd/spell_utility.py)
            spell_utility.start_of_turn(self, c)
        if "regeneration" in c.features and not c.dead:
            self._regenerate(c)
        if not c.conscious:
            return
        for step in TURN_STARTS:   # Spirit Guardians around a foe (rules/hooks.py)
            step(self, c)
        spellbook.start_of_turn(self, c)   # data-driven zones (Cloudkill, Moonbeam)
        if self.zones:   # Sleet Storm, Storm of Vengeance (dnd/spell_zones.py)
            spell_zones.start_of_turn(self, c)
        if not c.conscious:
            return
        self._monster_auras(c)
        if self.specials or "ms" in c.resources:   # Gibbering, Horrific Appearance, Berserk, burning
            monster_traits.start_turn(self, c)
            if not c.conscious:
                return
        for dice, dtype in c.resources.get("fire_aura", ()):   # Fire Aura: everyone within 5 ft burns
            for o in sorted(self.creatures.values(), key=lambda o: o.cid):
                if o is not c and not o.dead and self.distance(c, o) <= SQUARE_FT:
                    self.damage(o, self.roller.roll_damage(dice, what=f"fire aura {c.cid}"), dtype, magical=True,
                                source=c.cid)
        for dice, dtype in c.resources.get("barbed_hide", ()):   # Barbed Hide: whoever grapples it
            holder = self.creatures.get(c.conditions.get("grappled", {}).get("by"))
            if holder is not None and not holder.dead:
                self.damage(holder, self.roller.roll_damage(dice, what=f"barbed hide {c.cid}"), dtype, source=c.cid)
        if "swallow" in c.resources:   # Swallow: acid for those inside
            self._digest(c)
        if "engulf" in c.resources:   # Engulf: a save or be crushed
            self._engulf_tick(c)
        if "children_due" in c.resources:   # a vampire's called swarms arrive
            self._children_arrive(c)
        sm = c.conditions.get("smothered")
        if sm:   # under a rug of smothering: crushed at the start of each of its turns
            self.damage(c, self.roller.roll_damage(sm["dice"], what=f"smother {c.cid}"), sm["type"], source=sm["by"])
        if not c.conscious:
            return
        for key, ready in sorted(c.recharge.items()):
            if not ready:   # SRD "Recharge X-Y": roll at the start of each of its turns
                usage = monster_action(c, key).usage
                roll = self.roller.roll(usage.die or "1d6", what=f"recharge {c.cid} {key}")
                if roll >= usage.min_roll:
                    c.recharge[key] = True
                    self.event("recharge", f"{c.cid}'s {key} recharges ({roll})", creature=c.cid)
        if self.controls:   # Confusion's d10, Compulsion's move (dnd/spell_control.py)
            spell_control.start_of_turn(self, c)
        if self.wards:   # Symbol's insanity staggers (dnd/spell_wards.py)
            spell_wards.start_of_turn(self, c)
        self.event("turn", f"{c.cid}'s turn", creature=c.cid, round=self.round)

    def _stays_up(self, t: Combatant, amount: int, dtype: str, critical: bool) -> bool:
        """Traits that leave a monster at 1 HP instead of 0: Undead Fortitude (a Con save, DC 5 +
        the damage, not against radiant damage or a critical hit), Relentless (damage up to a
        limit, once: it recharges only on a rest)."""
        fort = t.resources.get("undead_fortitude")
        if fort and dtype not in fort["except"] and not (critical and "critical_hit" in fort["except"]):
            if self.saving_throw(t, "con", fort["dc_base"] + amount):
                t.hp = 1
                self.event("fortitude", f"{t.cid} drops to 1 HP instead (Undead Fortitude)", creature=t.cid)
                return True
            return False
        limit = t.resources.get("relentless", 0)
        if limit and amount <= limit:
            t.resources["relentless"] = 0
            t.hp = 1
            self.event("relentless", f"{t.cid} drops to 1 HP instead (Relentless)", creature=t.cid)
            return True
        return False

    def _regenerate(self, c: Combatant) -> None:
        """SRD Regeneration: hit points back at the start of its turn unless the stat block's
        damage types hit it since its last turn; a troll at 0 HP dies then if it cannot regenerate,
        others need at least 1 HP."""
        regen = c.resources["regeneration"]
        blocked = c.resources.pop("regen_blocked", False)
        if c.hp == 0 and (blocked or not regen["at_zero"]):
            self.die(c, "0 hit points and no regeneration")
        elif blocked:
            self.event("regeneration", f"{c.cid} does not regenerate this turn", creature=c.cid)
        elif c.hp < c.max_hp:
            self.heal(c, regen["hp"], "regeneration")

    def speed(self, c: Combatant) -> int:
        if any(k in c.conditions for k in ZERO_SPEED) or c.exhaustion >= 5:
            return 0
        speed = max(c.speed, spellbook.fly_speed(c)) - (10 if "slowed" in c.conditions else 0)   # Ray of Frost; Fly
        if c.resources.get("swim"):   # a swimmer in water: its swim speed (dnd/monster_traits/swimming.py)
            speed = max(speed, monster_traits.swim_speed(self, c) - (10 if "slowed" in c.conditions else 0))
        if "breath_slowed" in c.conditions:   # a copper dragon's Slowing Breath: half speed
            speed //= 2
        for v in c.conditions.values():   # spell flags (spellbook): Longstrider, Haste, Slow
            if v.get("speed_zero"):
                return 0
            speed = (speed + v.get("speed", 0)) * (2 if v.get("speed_double") else 1) // \
                (2 if v.get("speed_half") else 1)
        if c.exhaustion >= 2:
            speed //= 2
        return max(0, speed)

    def _end_turn(self, c: Combatant, silent: bool = False) -> None:
        if not silent:
            self.event("end_turn", f"{c.cid} ends its turn", creature=c.cid)
        self.pending = {}
        self._end_of_turn_effects(c)
        if c.conditions.pop("surprised", None) is not None:   # (Feral Instinct) its first turn is over
            c.economy.reaction = True
            self.event("condition_end", f"{c.cid} is no longer surprised", creature=c.cid, condition="surprised")
        if self.check_outcome() or self._offer_legendary(c):
            return
        self.next_turn()

    def _end_of_turn_effects(self, c: Combatant) -> None:
        """Repeat saves at the end of the creature's turn (Hold Person), riders that end now."""
        for step in TURN_ENDS:   # repeat saves that hurt, Earthquake, Blink, a Symbol (rules/hooks.py)
            step(self, c)
        self._regurgitate_check()   # a swallower hurt enough from inside this turn
        c.conditions.pop("eminence", None)   # Divine Eminence lasts until the end of the turn
        if "heads" in c.resources:   # a hydra's heads grow back
            self._regrow_heads(c)
        stone = c.conditions.get("restrained", {})
        if stone.get("petrify") and stone["round"] < self.round and not c.dead:   # Petrifying Gaze
            if self.saving_throw(c, "con", stone["dc"]):
                del c.conditions["restrained"]
                self.event("condition_end", f"{c.cid} is no longer turning to stone", creature=c.cid,
                           condition="restrained")
            else:
                self._petrify(c, self.creatures[stone["by"]])
        dispatch.end_turn(self, c)   # a rage with no attack and no damage since the last turn ends
        if self.specials:   # a harpy's song that was not kept up (dnd/monster_traits/harpy.py)
            monster_traits.end_turn(self, c)
        for key in sorted(c.conditions):
            cond = c.conditions.get(key)
            if cond and cond.get("repeat") and not c.dead and \
                    self.saving_throw(c, cond["repeat"], cond["dc"], magic=cond.get("magic", True), condition=key,
                                      adv=dispatch.lands_stride_adv(c, cond.get("spell"))):   # Land's Stride
                del c.conditions[key]
                self.event("condition_end", f"{c.cid} is no longer {key}", creature=c.cid, condition=key)
                continue
            if cond and cond.get("until") == "end_of_target_next_turn" and \
                    (cond.get("turn_of") != c.cid or cond.get("round", 0) < self.round):
                del c.conditions[key]
                self.event("condition_end", f"{c.cid} is no longer {key}", creature=c.cid, condition=key)
        for o in self.creatures.values():   # "until the end of the source's next turn"
            for key in sorted(o.conditions):
                cond = o.conditions[key]
                if cond.get("until") == "end_of_source_next_turn" and cond.get("by") == c.cid and \
                        (cond.get("turn_of") != c.cid or cond.get("round", 0) < self.round):
                    del o.conditions[key]
                    self.event("condition_end", f"{o.cid} is no longer {key}", creature=o.cid, condition=key)
        for o in self.creatures.values():   # Guiding Bolt: until the end of the caster's next turn
            g = o.conditions.get("guided")
            if g and g["by"] == c.cid and g["round"] < self.round:
                del o.conditions["guided"]

    # ---------------------------------------------------------------- legendary actions
    def _offer_legendary(self, ended: Combatant) -> bool:
        """SRD: one legendary action at the end of another creature's turn, if points are left."""
        for o in sorted(self.creatures.values(), key=lambda o: o.cid):
            if o is ended or not o.legendary or not o.conscious or o.incapacitated or "surprised" in o.conditions:
                continue
            if o.resources.get("legendary_left", 0) > 0 and len(self._legendary_options(o)) > 1:
                self.pending = {"kind": "legendary", "actor": o.cid, "after": ended.cid}
                self._cache = None
                return True
        return False

    def _legendary_options(self, c: Combatant) -> list[Opt]:
        left = c.resources.get("legendary_left", 0)
        out = []
        for key, cost, kind, payload in c.legendary:
            if cost > left:
                continue
            if kind == "attack" and self.targets_for_attack(c, c.attack(payload)):
                out.append(Opt(f"Legendary action: {key} (an attack with {payload}; costs {cost} of {left})",
                               "legendary", (key,)))
            elif kind == "teleport":
                out.append(Opt(f"Legendary action: {key} (teleport up to {payload} ft; costs {cost} of {left})",
                               "legendary", (key,)))
            elif kind == "move" and self.speed(c) * payload[0] >= SQUARE_FT:
                out.append(Opt(f"Legendary action: {key} (move up to {int(self.speed(c) * payload[0])} ft"
                               f"{'' if payload[1] else ' without provoking opportunity attacks'}; costs {cost} of "
                               f"{left})", "legendary", (key,)))
            elif kind == "heal" and c.hp < c.max_hp:
                out.append(Opt(f"Legendary action: {key} (heal {payload}; costs {cost} of {left})",
                               "legendary", (key,)))
            elif kind == "save":
                spec = monster_action(c, payload)
                if spec.area is not None or self.save_targets(c, spec):
                    out.append(Opt(f"Legendary action: {key} ({spec.name}, DC {spec.save.dc} "
                                   f"{spec.save.ability.upper()}; costs {cost} of {left})", "legendary", (key,)))
            elif kind == "ms" and monster_traits.legendary_ok(self, c, key):   # monster_traits/legendary.py
                out.append(Opt(f"Legendary action: {key} ({payload}; costs {cost} of {left})", "legendary", (key,)))
        out.append(Opt("No legendary action now", "legendary_pass"))
        return out

    def _use_legendary(self, c: Combatant, key: str) -> None:
        _, cost, kind, payload = next(x for x in c.legendary if x[0] == key)
        c.resources["legendary_left"] -= cost
        self.event("legendary", f"{c.cid} uses a legendary action: {key}", creature=c.cid, action=key, cost=cost)
        if kind == "attack":
            self.pending = {"kind": "target", "actor": c.cid, "use": ("attack", payload, "legendary")}
            self._cache = None
            return
        if kind == "save":
            self._start_save_action(c, payload, legendary=True)
            self._cache = None
            return
        if kind == "ms":   # a monster's own legendary action (dnd/monster_traits/legendary.py)
            monster_traits.use_legendary(self, c, key)
            self._cache = None
            return
        if kind == "teleport":
            self.pending = {"kind": "destination", "actor": c.cid,
                            "use": ("monster_teleport", key, payload, "legendary")}
            self._cache = None
            return
        if kind == "move":   # its movement for this legendary move only; the next turn resets it
            c.economy.movement, c.economy.disengaged = int(self.speed(c) * payload[0]), not payload[1]
            c.resources["legendary_move"] = True
            if not self._has_destination(c):
                c.resources.pop("legendary_move")
                self.next_turn()
                return
            self.pending = {"kind": "destination", "actor": c.cid}
            self._cache = None
            return
        self.heal(c, self.roller.roll(payload, what=f"heal {key}"), key)
        self.next_turn()

    def open_menu(self, c: Combatant) -> None:
        self.pending = {"kind": "action", "actor": c.cid}
        self._cache = None

    def hold_status(self) -> tuple[bool, bool]:
        """(a conscious party member stands in the hold area, a conscious foe stands in it)."""
        cells = {tuple(x) for x in self.objective.get("cells", ())}
        ours = theirs = False
        for c in self.creatures.values():
            if c.conscious and any(cell in cells for cell in c.cells):
                if c.side == self.party_side:
                    ours = True
                else:
                    theirs = True
        return ours, theirs

    def _end_of_round(self) -> bool:
        """Checks made at the end of each round (the hold objective); True when the battle ended."""
        obj = self.objective
        if obj["type"] != "hold":
            return False
        ours, theirs = self.hold_status()
        obj["held"] = obj.get("held", 0) + 1 if ours and not theirs else 0
        self.event("hold", f"End of round {self.round}: the area is "
                   + (f"held ({obj['held']}/{obj['rounds']} rounds)" if obj["held"] else
                      "contested" if ours else "not held"), held=obj["held"], round=self.round)
        if obj["held"] >= obj["rounds"]:
            self._finish("hold")
            return True
        return False

    def _finish(self, how: str) -> None:
        if self.controls:   # those away but alive come back to the roster (dnd/spell_control.py)
            spell_control.at_finish(self)
        if "_utility" in self.__dict__:   # unseen servants are dismissed (dnd/spell_utility.py)
            spell_utility.at_finish(self)
        if how in ("defeat", "reach", "survive", "interact", "hold"):
            self.outcome = "win"
        else:
            self.outcome = "loss"
        self.pending = {}
        self._cache = None
        self.event("outcome", f"Battle over: {self.outcome} ({how})", outcome=self.outcome, how=how)

    def check_outcome(self) -> bool:
        if self.outcome is not None:
            return True
        party = [c for c in self.creatures.values() if c.side == self.party_side]
        foes = [c for c in self.creatures.values() if c.side != self.party_side]
        if "_utility" in self.__dict__:   # an unseen servant counts for no outcome (dnd/spell_utility.py)
            party = spell_utility.outcome_party(self, party)
        if self.controls:   # banished foes that will return, dominated ones, an escape (dnd/spell_control.py)
            party, foes = spell_control.outcome_sides(self, party, foes)
            if spell_control.escaped(self, party):
                self._finish("escape")
                return True
        obj = self.objective
        if obj["type"] == "protect":
            ward = self.creatures[obj["creature"]]
            if (ward.dead and "removed" not in ward.conditions) or ward.hp == 0:   # banished or escaped: alive
                self._finish("ward_down")
                return True
        if not any(c.conscious for c in party):
            self._finish("wipe")
            return True
        if obj["type"] == "reach":
            cells = {tuple(x) for x in obj["cells"]}
            if any(c.conscious and any(cell in cells for cell in c.cells) for c in party):
                self._finish("reach")
                return True
        if obj["type"] == "interact" and obj.get("done"):
            self._finish("interact")
            return True
        if obj["type"] in ("defeat", "protect") and not any(c.conscious for c in foes):
            self._finish("defeat")
            return True
        return False


@OPTION_KINDS.handles("end_turn")
def _end_turn(b, c: Combatant, p: dict, opt: Opt) -> None:
    b._end_turn(c)


@OPTION_KINDS.handles("legendary_pass")
def _pass_legendary(b, c: Combatant, p: dict, opt: Opt) -> None:
    b.next_turn()


@OPTION_KINDS.handles("legendary")
def _legendary(b, c: Combatant, p: dict, opt: Opt) -> None:
    b._use_legendary(c, opt.data[0])
