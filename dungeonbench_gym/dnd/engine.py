"""The battle loop: state -> pending decision with legal options -> apply the chosen one -> events.

:class:`Battle` owns the map, the combatants, initiative, rounds, the objective and the event log.
At every moment there is exactly one pending :class:`Decision` (until the battle is over): who
decides (``actor``), its kind and its options. Every option is executable by construction: an
option is only listed when the engine can carry it out, and choosing it never fails.

Decision kinds (the paper's hierarchical decisions)
---------------------------------------------------
* ``action``: the turn menu: Move, each attack, Multiattack, each spell at each legal slot level,
  a monster's save action, Dash, Disengage, Dodge, Help, drink a potion, Second Wind, Action
  Surge, Cunning Action, stand up, escape a grapple, End turn.
* ``target``: a creature for an attack, spell or Help.
* ``destination`` (then ``route`` only when :meth:`BattleMap.routes` finds routes that differ in
  consequences, e.g. which opportunity attacks they provoke).
* ``point_x`` then ``point_y``: the grid intersection of a point-placed area (Fireball); then
  ``point_z``, its height, only while a creature is aloft (more than one height is legal).
* ``direction``: one of 8 compass directions for cones and lines (Burning Hands, breath).
* ``reaction``: an opportunity attack, yes or no, when a creature leaves the reactor's reach; a
  readied attack when one comes within it; Shield; Uncanny Dodge.
* ``legendary``: at the end of another creature's turn, a boss's legendary action or a pass.
* ``group``: when a decision has more options than ``max_options``, it is split: first a group
  (a row of destinations, a range), then the choice inside it. Nothing is ever truncated.

Randomness: every roll comes from one :class:`~.dice.Roller` whose log *is* the event log, so
rolls and events interleave and an episode replays from its seed and choices.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from . import areas, content, features, items as _items, monster_specials, spell_counter, spellbook
from . import spell_buffs
from . import features_more   # subclass and late class features (hooks)
from . import features_last   # Retaliation, Giant Killer, Stand Against the Tide, Hurl Through Hell
from . import spell_zones   # lasting spell areas: sight, terrain, magic
from . import spell_summons   # authored summons, the Polymorph family, conjured weapons
from . import spell_walls   # walls raised mid-battle (the map is replaced), Forcecage, Resilient Sphere
from . import spell_control   # removal (Banishment), domination, confusion, escapes, Wish
from . import spell_utility   # water and objects: suffocation, Water Walk, Mage Hand, Unseen Servant
from . import lighting   # dark battles: light sources, darkvision, Dancing Lights, Enthrall
from . import spell_wards   # glyphs and circles laid between fights (the Day track)
from . import spell_plants   # trees and plants: Tree Stride, Transport via Plants, Plant Growth
from .builders.monsters import monster_combatant
from .dice import Roller
from .grid import (
    SQUARE_FT,
    BattleMap,
    Cover,
    box_distance_ft,
    fall_damage_dice,
    footprint,
    nearest_box_ft,
    size_squares,
)
from .model.options import Decision, DestinationOpt, Opt
from .state import (
    INCAPACITATING,
    SIZES,
    AttackProfile,
    Combatant,
    DamagePart,
    Economy,
    expected_damage,
    monster_action,
)

DIRECTION_NAMES = {v: k for k, v in areas.COMPASS.items()}


def _extents(o: Combatant) -> tuple:
    """A creature's space as inclusive extents (x0, y0, x1, y1, layer0, layer1)."""
    n, layer = o.squares, int(o.pos[2] // SQUARE_FT)
    return (o.pos[0], o.pos[1], o.pos[0] + n - 1, o.pos[1] + n - 1, layer, layer + n - 1)


def _leaves_a_reach(path, threats: dict, fly: bool) -> bool:
    """Whether a path steps out of some foe's threat area (an opportunity attack). Walkers'
    threat areas hold anchors (x, y), flyers' positions (x, y, z), as :meth:`BattleMap.threat_area`."""
    keys = path if fly else [p[:2] for p in path]
    for area in threats.values():
        inside = keys[0] in area
        for k in keys[1:]:
            now = k in area
            if inside and not now:
                return True
            inside = now
    return False


class Battle:
    """One encounter. Build it with combatants placed on a map, then read :attr:`decision` and
    call :meth:`choose` until :attr:`outcome` is set ("win" for the party, or "loss")."""

    controls = False   # True once a control spell is in play (removed, dominated, confused: dnd/spell_control.py)
    underwater = False   # SRD underwater combat (the scenario's field); breath and suffocation: dnd/spell_utility.py
    wards = ()   # glyphs and magic circles laid between fights on this map (dnd/spell_wards.py)

    def __init__(self, battle_map: BattleMap, combatants: list[Combatant], *, seed: int | None = 0,
                 roller: Roller | None = None, objective: dict | None = None,
                 round_limit: int = 20, max_options: int = 64, party_side: str = "party",
                 max_altitude_ft: int = 15):
        self.map = battle_map
        self.creatures: dict[str, Combatant] = {}
        for c in combatants:
            if c.cid in self.creatures:
                raise ValueError(f"two combatants share the id {c.cid!r}")
            self.creatures[c.cid] = c
        self.log: list = []
        self.roller = roller if roller is not None else Roller(seed, log=self.log)
        self.roller.log = self.log
        self.objective = dict(objective or {"type": "defeat"})
        self.round_limit = int(round_limit)
        self.max_options = int(max_options)
        self.party_side = party_side
        self.max_altitude_ft = int(max_altitude_ft)   # how high flyers may go (a cave ceiling, say)
        self.round = 0
        self.order: list[str] = []
        self.turn_index = -1
        self.outcome: str | None = None
        self.pending: dict = {}
        self.move_state: dict | None = None   # a move interrupted by a reaction decision
        self.attack_state: dict | None = None  # an attack waiting for the target's reaction
        self.resume: dict | None = None       # the actor's menu to return to after a reaction
        self.decisions = 0
        self.options_seen = 0
        self.options_max = 0          # the most option slots a decision filled (<= max_options)
        self.legal_count = 0          # legal choices of the pending decision before splitting
        self.legal_max = 0            # the most legal choices any decision had before splitting
        self._cache: Decision | None = None
        self._reach_cache = None
        self.zones: list = []   # lasting spell areas (dnd/spell_zones.py): Darkness, Silence, Spike Growth...
        self.specials = monster_specials.setup(self)   # monsters' own traits (dnd/monster_specials.py)
        self._roll_initiative()
        self._next_turn()

    # ================================================================ bookkeeping
    def event(self, kind: str, text: str, **data) -> None:
        self.log.append({"event": kind, "text": text, **data})

    @property
    def active(self) -> Combatant | None:
        if 0 <= self.turn_index < len(self.order):
            return self.creatures[self.order[self.turn_index]]
        return None

    def enemies_of(self, c: Combatant) -> list[Combatant]:
        return [o for o in self.creatures.values() if o.side != c.side and not o.dead]

    def allies_of(self, c: Combatant) -> list[Combatant]:
        return [o for o in self.creatures.values() if o.side == c.side and not o.dead and o is not c]

    def distance(self, a: Combatant, b: Combatant) -> int:
        pa, pb = a.pos, b.pos
        return box_distance_ft(pa[0], pa[1], a.squares, pa[2], pb[0], pb[1], b.squares, pb[2])

    def distance_from(self, a: Combatant, pos: tuple, b: Combatant) -> int:
        """Distance from a standing at pos (an (x, y, z) position) to b."""
        pb = b.pos
        return box_distance_ft(pos[0], pos[1], a.squares, pos[2], pb[0], pb[1], b.squares, pb[2])

    def replace_map(self, new_map: BattleMap) -> None:
        """Swap the battle's map for another (a wall raised or gone: dnd/spell_walls.py) and drop
        everything cached from the old one: the pending decision, the movement reach, the points."""
        self.map = new_map
        self._cache = None
        self._reach_cache = None
        self.__dict__.pop("_points_cache", None)
        self.__dict__.pop("_dest_cache", None)
        self.__dict__.pop("_area_memo", None)

    def cover(self, attacker: Combatant, target: Combatant) -> Cover:
        # a new source of total cover goes here and in line_of_effect below (the cheap TOTAL test)
        if self._inside_apart(attacker, target):   # Swallow: total cover from outside the swallower
            return Cover.TOTAL
        pair = (attacker.cid, target.cid)   # a rider and its mount give each other no cover
        others = frozenset(cell for o in self.creatures.values()
                           if not o.dead and o is not attacker and o is not target
                           and o.conditions.get("mounted", o.conditions.get("ridden", {})).get("on") not in pair
                           for cell in o.cells)
        return self.map.cover(attacker.cells, target.cells, others,
                              attacker_z=attacker.pos[2], target_z=target.pos[2])

    def line_of_effect(self, attacker: Combatant, target: Combatant) -> bool:
        """``cover(attacker, target) != Cover.TOTAL``, the cheap way: creatures never give total
        cover, so only the walls' lines count, and the first clear one settles it."""
        if self._inside_apart(attacker, target):
            return False
        return self.map.line_of_effect(attacker.cells, target.cells, a_z=attacker.pos[2], b_z=target.pos[2])

    # ================================================================ initiative and turns
    def _roll_initiative(self) -> None:
        for c in sorted(self.creatures.values(), key=lambda c: c.cid):
            c.initiative = self.roller.roll_d20(features.initiative_advantage(c),   # Feral Instinct
                                                bonus=c.dex_mod + features.initiative_bonus(c),
                                                what=f"initiative {c.cid}").total
        # SRD: highest first; ties by Dex score (the DM's call), then the stable id
        self.order = [c.cid for c in sorted(self.creatures.values(),
                                            key=lambda c: (-c.initiative, -c.abilities["dex"], c.cid))]
        self.event("initiative", "Initiative: " + ", ".join(
            f"{cid} {self.creatures[cid].initiative}" for cid in self.order), order=list(self.order))

    def _next_turn(self) -> None:
        """Advance to the next creature that can act and open its action menu."""
        while self.outcome is None:
            self.turn_index += 1
            if self.turn_index >= len(self.order) or self.round == 0:
                self.turn_index = 0
                if self.round > 0 and self._end_of_round():
                    return
                self.round += 1
                if self.round <= 2:   # Thief's Reflexes: a second turn in round 1 (dnd/features_last.py)
                    features_last.reflex_order(self)
                if self.round > self.round_limit:
                    self.round = self.round_limit
                    self._finish("survive" if self.objective["type"] == "survive" else "round_limit")
                    return
                self.event("round", f"Round {self.round}", round=self.round)
            c = self.active
            if c.dead and not (self.controls and spell_control.removed_turn(self, c)):   # Maze, Blink
                continue
            self._start_turn(c)
            if self._check_outcome():
                return
            if c.conscious and not c.incapacitated:
                self._open_menu(c)
                return
            # an unconscious or incapacitated creature's turn passes (its repeat saves still come)
            self._end_of_turn_effects(c)
            if self._check_outcome():
                return

    def _start_turn(self, c: Combatant) -> None:
        c.economy = Economy(movement=self._speed(c))
        features.start_turn(self, c)   # class features: rage's minute, Reckless Attack ends, Survivor
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
            if "reactive" in o.features and o is not c:
                o.economy.reaction = True
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
        if c.concentration and self.round >= c.resources.get("concentration_until", 10 ** 9):
            self.end_concentration(c)   # the spell's duration ran out
        sw = c.resources.get("spiritual_weapon")
        if sw and self.round >= sw["until"]:
            del c.resources["spiritual_weapon"]
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
        started_in_zone = False
        for g in self._guardians():
            if g.side != c.side and self.distance(g, c) <= GUARDIANS_FT and not self._inside_apart(g, c):
                started_in_zone = True
                self._zone_damage(g, c)
        if started_in_zone and c.conscious:   # simplification: half speed for the whole turn
            c.economy.movement //= 2
        spellbook.start_of_turn(self, c)   # data-driven zones (Cloudkill, Moonbeam)
        if self.zones:   # Sleet Storm, Storm of Vengeance (dnd/spell_zones.py)
            spell_zones.start_of_turn(self, c)
        if not c.conscious:
            return
        self._monster_auras(c)
        if self.specials or "ms" in c.resources:   # Gibbering, Horrific Appearance, Berserk, burning
            monster_specials.start_turn(self, c)
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
            self._die(c, "0 hit points and no regeneration")
        elif blocked:
            self.event("regeneration", f"{c.cid} does not regenerate this turn", creature=c.cid)
        elif c.hp < c.max_hp:
            self.heal(c, regen["hp"], "regeneration")

    def _speed(self, c: Combatant) -> int:
        if any(k in c.conditions for k in ZERO_SPEED) or c.exhaustion >= 5:
            return 0
        speed = max(c.speed, spellbook.fly_speed(c)) - (10 if "slowed" in c.conditions else 0)   # Ray of Frost; Fly
        if c.resources.get("swim"):   # a swimmer in water: its swim speed (dnd/monster_specials.py)
            speed = max(speed, monster_specials.swim_speed(self, c) - (10 if "slowed" in c.conditions else 0))
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
        if self._check_outcome() or self._offer_legendary(c):
            return
        self._next_turn()

    def _end_of_turn_effects(self, c: Combatant) -> None:
        """Repeat saves at the end of the creature's turn (Hold Person), riders that end now."""
        spellbook.end_of_turn(self, c)   # repeat saves that also hurt (Phantasmal Killer, Weird)
        if self.zones:   # Earthquake's shaking (dnd/spell_zones.py)
            spell_zones.end_of_turn(self, c)
        if self.controls:   # Blink's d20, Time Stop's next turn (dnd/spell_control.py)
            spell_control.end_of_turn(self, c)
        if self.wards:   # ending a turn in a glowing Symbol (dnd/spell_wards.py)
            spell_wards.end_of_turn(self, c)
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
        features.end_turn(self, c)   # a rage with no attack and no damage since the last turn ends
        if self.specials:   # a harpy's song that was not kept up (dnd/monster_specials.py)
            monster_specials.end_turn(self, c)
        for key in sorted(c.conditions):
            cond = c.conditions.get(key)
            if cond and cond.get("repeat") and not c.dead and \
                    self.saving_throw(c, cond["repeat"], cond["dc"], magic=cond.get("magic", True), condition=key,
                                      adv=features_last.save_adv(c, cond.get("spell"))):   # Land's Stride
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
            if o is ended or not o.legendary or not o.conscious or o.incapacitated:
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
            if kind == "attack" and self._targets_for_attack(c, c.attack(payload)):
                out.append(Opt(f"Legendary action: {key} (an attack with {payload}; costs {cost} of {left})",
                               "legendary", (key,)))
            elif kind == "teleport":
                out.append(Opt(f"Legendary action: {key} (teleport up to {payload} ft; costs {cost} of {left})",
                               "legendary", (key,)))
            elif kind == "move" and self._speed(c) * payload[0] >= SQUARE_FT:
                out.append(Opt(f"Legendary action: {key} (move up to {int(self._speed(c) * payload[0])} ft"
                               f"{'' if payload[1] else ' without provoking opportunity attacks'}; costs {cost} of "
                               f"{left})", "legendary", (key,)))
            elif kind == "heal" and c.hp < c.max_hp:
                out.append(Opt(f"Legendary action: {key} (heal {payload}; costs {cost} of {left})",
                               "legendary", (key,)))
            elif kind == "save":
                spec = monster_action(c, payload)
                if spec.area is not None or self._save_targets(c, spec):
                    out.append(Opt(f"Legendary action: {key} ({spec.name}, DC {spec.save.dc} "
                                   f"{spec.save.ability.upper()}; costs {cost} of {left})", "legendary", (key,)))
            elif kind == "ms" and monster_specials.legendary_ok(self, c, key):   # dnd/monster_specials.py
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
        if kind == "ms":   # a monster's own legendary action (dnd/monster_specials.py)
            monster_specials.use_legendary(self, c, key)
            self._cache = None
            return
        if kind == "teleport":
            self.pending = {"kind": "destination", "actor": c.cid,
                            "use": ("monster_teleport", key, payload, "legendary")}
            self._cache = None
            return
        if kind == "move":   # its movement for this legendary move only; the next turn resets it
            c.economy.movement, c.economy.disengaged = int(self._speed(c) * payload[0]), not payload[1]
            c.resources["legendary_move"] = True
            if not self._has_destination(c):
                c.resources.pop("legendary_move")
                self._next_turn()
                return
            self.pending = {"kind": "destination", "actor": c.cid}
            self._cache = None
            return
        self.heal(c, self.roller.roll(payload, what=f"heal {key}"), key)
        self._next_turn()

    def _open_menu(self, c: Combatant) -> None:
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

    def _check_outcome(self) -> bool:
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

    # ================================================================ the pending decision
    @property
    def decision(self) -> Decision | None:
        if self.outcome is not None or not self.pending:
            return None
        if self._cache is None:
            opts = self.visible_options()
            kind = self.pending["kind"]
            self.legal_count = len(opts)   # the legal choices before any split (the paper's option count)
            if len(opts) > self.max_options:
                opts = self._groups(opts)
                kind = "group"
            self._cache = Decision(kind, self.pending["actor"], tuple(opts), self._prompt(self.pending))
        return self._cache

    def visible_options(self) -> list[Opt]:
        """The pending step's options inside the group or range chosen so far (before splitting)."""
        opts = self._options(self.pending)
        group = self.pending.get("group")
        if group is not None:
            opts = [o for o in opts if o.group == group]
        span = self.pending.get("span")
        if span is not None:
            opts = opts[span[0]:span[1]]
        return opts

    def _groups(self, opts: list[Opt]) -> list[Opt]:
        """Split an oversized decision: by the options' group keys (a row of destinations) when
        that fits, else into ranges of max_options ** k options (as many levels as needed)."""
        n, cap = len(opts), self.max_options
        if "group" not in self.pending and "span" not in self.pending:
            keys: dict[str, int] = {}
            for o in opts:
                keys[o.group] = keys.get(o.group, 0) + 1
            if "" not in keys and len(keys) <= cap and max(keys.values()) <= cap:
                return [Opt(f"{g} ({k} options)", "group", ("key", g)) for g, k in keys.items()]
        base = self.pending.get("span", (0, n))[0]
        step = cap
        while -(-n // step) > cap:
            step *= cap
        return [Opt(f"options {i + 1}-{min(n, i + step)}: {opts[i].label} ... {opts[min(n, i + step) - 1].label}",
                    "group", ("span", base + i, base + min(n, i + step))) for i in range(0, n, step)]

    def choose(self, index: int) -> None:
        """Apply option ``index`` of the pending decision."""
        d = self.decision
        if d is None:
            raise RuntimeError("the battle is over: no decision is pending")
        if not 0 <= index < len(d.options):
            raise IndexError(f"option {index} out of range: {len(d.options)} options")
        self.decisions += 1
        self.options_seen += len(d.options)
        self.options_max = max(self.options_max, len(d.options))
        self.legal_max = max(self.legal_max, self.legal_count)
        opt = d.options[index]
        self._cache = None
        if opt.kind == "group":
            if opt.data[0] == "key":
                self.pending = dict(self.pending, group=opt.data[1])
            else:
                self.pending = dict(self.pending, span=(opt.data[1], opt.data[2]))
            return
        self._apply(self.pending, opt)
        self._falls()
        if self.outcome is None:
            self._check_outcome()

    # ================================================================ option lists
    def _options(self, p: dict) -> list[Opt]:
        kind = p["kind"]
        c = self.creatures[p["actor"]]
        if kind == "action":
            opts = self._action_options(c)
        elif kind == "target":
            opts = self._target_options(c, p)
        elif kind == "destination":
            opts = self._teleport_options(c, p) if p.get("use") else self._destination_options(c)
        elif kind == "route":
            opts = [Opt(_route_label(i, r), "route", (i,)) for i, r in enumerate(p["routes"])]
        elif kind == "point_x":
            opts = [Opt(f"x = {x}", "point_x", (x,)) for x in self._point_xs(c, p)]
        elif kind == "point_y":
            opts = [Opt(self._area_label(c, p, (p["x"], y)), "point_y", (y,))
                    for y in self._point_ys(c, p, p["x"])]
        elif kind == "point_z":
            ground = areas.ground_z_at_point(self.map, p["x"], p["y"])
            opts = [Opt(self._area_label(c, p, (p["x"], p["y"], z)).replace(
                        "Point", f"Height {z - ground} ft above the ground, point", 1), "point_z", (z,))
                    for z in self._point_heights(c, p["use"], p["x"], p["y"])]
        elif kind == "direction":
            opts = [Opt(self._area_label(c, p, d), "direction", (d,)) for d in areas.DIRECTIONS_8]
        elif kind == "reaction" and p.get("reaction") in features.REACTIONS:   # smite/stun rider, deflect
            opts = features.reaction_options(self, c, p)
        elif kind == "reaction" and p.get("reaction") == "counterspell":
            opts = spell_counter.options(self, c, p)
        elif kind == "reaction" and p.get("reaction") in spell_buffs.REACTIONS:   # Hellish Rebuke
            opts = spell_buffs.reaction_options(self, c, p)
        elif kind == "reaction" and p.get("reaction") in features_last.REACTIONS:   # Retaliation, ...
            opts = features_last.reaction_options(self, c, p)
        elif kind == "reaction" and p.get("reaction") == "uncanny_dodge":
            st = self.attack_state
            opts = [Opt(f"Uncanny Dodge (halve the damage of {p['attacker']}'s {st['attack'].key})", "reaction",
                        (True,)),
                    Opt("Take the full hit", "reaction", (False,))]
        elif kind == "reaction" and p.get("reaction") == "parry":
            st = self.attack_state
            opts = [Opt(f"Parry (+{c.resources['parry']} AC: {p['attacker']}'s {st['attack'].key} "
                        f"({st['total']} vs AC {st['ac']}) misses)", "reaction", (True,)),
                    Opt("Take the hit", "reaction", (False,))]
        elif kind == "reaction" and p.get("reaction") == "shield":
            st = self.attack_state
            opts = [Opt(f"Cast Shield (+5 AC: {p['attacker']}'s {st['attack'].key} ({st['total']} vs AC {st['ac']}) "
                        f"misses; uses a spell slot)", "reaction", (True,)),
                    Opt("Take the hit", "reaction", (False,))]
        elif kind == "legendary":
            opts = self._legendary_options(c)
        elif kind == "reaction" and p.get("reaction") == "readied":
            mover = self.creatures[p["mover"]]
            a = c.attack(p["attack"])
            opts = [Opt(f"Readied attack on {mover.cid} with {a.key} ({a.short()})", "reaction", (True,)),
                    Opt("Hold the readied attack (lost at your turn's start)", "reaction", (False,))]
        elif kind == "reaction":
            mover = self.creatures[p["mover"]]
            a = c.attack(p["attack"])
            opts = [Opt(f"Opportunity attack on {mover.cid} with {a.key} ({a.short()})", "reaction", (True,)),
                    Opt(f"Let {mover.cid} go", "reaction", (False,))]
        else:  # pragma: no cover - every pending kind is listed above
            raise RuntimeError(f"unknown decision kind {kind!r}")
        return opts

    def _prompt(self, p: dict) -> str:
        kind, actor = p["kind"], p["actor"]
        if p.get("prompt"):   # a class feature's own question (a rider after a hit)
            return p["prompt"]
        # (only the pending kind's sentence is written: this runs for every decision)
        if kind == "action":
            return f"{actor}: choose an action"
        if kind == "target":
            use = p.get("use", ("?", "?"))
            return (f"{actor}: choose the target of the next {use[0]}" if use[0] in ("dart", "ray", "more")
                    else f"{actor}: choose a target for {use[1]}")
        if kind == "destination":
            return f"{actor}: choose where to move ({self.creatures[actor].economy.movement} ft left)"
        if kind == "route":
            return f"{actor}: choose a route"
        if kind == "point_x":
            return f"{actor}: choose the x coordinate of the point"
        if kind == "point_y":
            return f"{actor}: choose the y coordinate of the point (x = {p.get('x')})"
        if kind == "point_z":
            return f"{actor}: choose the height of the point ({p.get('x')}, {p.get('y')})"
        if kind == "direction":
            return f"{actor}: choose a direction"
        if kind == "legendary":
            return f"{actor}: take a legendary action at the end of {p.get('after')}'s turn?"
        if kind == "reaction":
            if p.get("attacker"):
                return f"{actor}: {p.get('attacker')} hits you"
            if p.get("reaction") == "readied":
                return f"{actor}: {p.get('mover')} comes within your reach (readied attack)"
            return f"{actor}: {p.get('mover')} is leaving your reach"
        return kind

    def _action_options(self, c: Combatant) -> list[Opt]:
        # while one menu is built, its spell list is worked out once: Quickened, Heightened and
        # Careful Spell ask for it again (:meth:`_spell_options` keys it by what they vary)
        outer = self.__dict__.get("_menu_spells")   # a menu may rebuild itself (a rider thrown off)
        self._menu_spells = ()
        try:
            return self._action_menu(c)
        finally:
            if outer is None:
                del self._menu_spells
            else:
                self._menu_spells = outer

    def _action_menu(self, c: Combatant) -> list[Opt]:
        if "enclosed" in c.conditions and c.conditions["enclosed"].get("meld"):   # Meld into Stone
            return spell_control.meld_menu(self, c)
        e = c.economy
        out: list[Opt] = []
        slow = c.conditions.get("breath_slowed")
        if slow is not None and (e.actions < 1 or not e.bonus or slow.get("attacked") == (self.round, c.cid)):
            # Slowing Breath: an action or a bonus action, not both; one attack a turn
            e.actions, e.bonus, e.attacks_left, e.attack_queue = 0, False, 0, ()
        has_action = e.actions > 0
        prone = "prone" in c.conditions
        if prone and e.movement >= self._speed(c) // 2 and self._speed(c) > 0:
            out.append(Opt(f"Stand up (costs {self._speed(c) // 2} ft)", "stand"))
        if e.movement >= SQUARE_FT and not prone and self._can_step(c) and not (
                ("frightened" in c.conditions or "turned" in c.conditions or "aggressive_move" in c.resources)
                and not self._has_destination(c)):   # fear or turning can bar every square left
            out.append(Opt(f"Move ({e.movement} ft left)", "move"))
        # attacks: the rest of an Attack action, a multiattack in progress, or a new one
        while e.attack_queue and e.attack_queue[0] in c.save_actions:   # a save action in the sequence
            step = [o for o in self._save_action_options(c) if o.data[0] == e.attack_queue[0]]
            if step:   # (a mummy's Dreadful Glare, then its fist)
                out.extend(Opt(f"Multiattack: {o.label}", o.kind, (o.data[0], "queue")) for o in step)
                break
            e.attack_queue = e.attack_queue[1:]   # "if it can": not now, so the next step
        if e.attack_queue and e.attack_queue[0] in c.save_actions:
            pass
        elif e.attack_queue:
            a = c.attack(e.attack_queue[0])
            if self._targets_for_attack(c, a):
                out.append(Opt(f"Multiattack: attack with {a.name} ({a.short()})", "attack", (a.key, "queue")))
        elif e.attacks_left > 0 or has_action:
            for a in c.attacks:
                if a.loading and e.attacks_left > 0 and e.loading_fired:
                    continue   # SRD loading: one shot per action, whatever Extra Attack allows
                if not c.recharge.get(a.key, True):
                    continue   # a monster's attack on a recharge (a spider's Web)
                if self._targets_for_attack(c, a):
                    note = f", {e.attacks_left} left" if e.attacks_left else ""
                    out.append(Opt(f"Attack with {a.name} ({a.short()}{note})", "attack", (a.key, "attack")))
            if c.is_pc:   # SRD Shove: one attack of the Attack action, a contest of Athletics
                for mode, what in (("prone", "Shove prone"), ("push", "Shove away 5 ft"), ("grapple", "Grapple")):
                    if self._shove_targets(c, mode):
                        out.append(Opt(f"{what} (Athletics {self._athletics(c):+d}, contested)", "shove", (mode,)))
        if "reckless" in c.features and has_action and not e.moved and not e.attacks_left \
                and "reckless" not in c.conditions and not e.attack_queue:   # at the start of its turn
            out.append(Opt("Reckless: advantage on melee attacks this turn (attacks against it have advantage "
                           "until its next turn)", "reckless"))
        if "aggressive" in c.features and e.bonus and self._speed(c) and any(
                o.conscious for o in self.enemies_of(c)):
            out.append(Opt(f"Aggressive (bonus action): move up to {self._speed(c)} ft toward a foe", "aggressive"))
        if c.resources.get("rampage_ready") and e.bonus:
            out.append(Opt(f"Rampage (bonus action): move up to {self._speed(c) // 2} ft and make a "
                           f"{c.resources['rampage']} attack", "rampage"))
        if c.resources.get("rampage_bite"):
            a = c.attack(c.resources["rampage"])
            if self._targets_for_attack(c, a):
                out.append(Opt(f"Rampage: attack with {a.name} ({a.short()})", "attack", (a.key, "rampage")))
        if has_action and "invisibility_action" in c.features and "invisible" not in c.conditions:
            out.append(Opt("Invisibility (until it attacks or its concentration ends)", "monster_invisibility"))
        if has_action and c.resources.get("uses:healing-touch", 0) > 0 and self._touch_heal_targets(c):
            out.append(Opt(f"Healing Touch ({c.resources['healing_touch']}; "
                           f"{c.resources['uses:healing-touch']} left today)", "monster_heal"))
        if has_action:
            for key, dist in sorted(c.resources.get("teleports", {}).items()):
                if c.recharge.get(key, True):
                    out.append(Opt(f"Teleport (up to {dist} ft to a space it can see)", "monster_teleport", (key,)))
        pounce = c.resources.get("pounce_on")
        if pounce and e.bonus and pounce in self.creatures and "prone" in self.creatures[pounce].conditions:
            a = c.attack(c.resources["charge"]["bonus_attack"])
            if any(t.cid == pounce for t in self._targets_for_attack(c, a)):
                out.append(Opt(f"Bonus attack with {a.name} on prone {pounce} ({a.short()})", "attack",
                               (a.key, "pounce")))
        if has_action and c.multiattack and not e.attack_queue and e.attacks_left == 0:
            hits = [k for k in c.multiattack if k not in c.save_actions]   # its attack steps
            if hits and self._targets_for_attack(c, c.attack(hits[0])):
                out.append(Opt(f"Multiattack ({', '.join(c.multiattack)})", "multiattack"))
        if c.monster:   # a priest's Divine Eminence, a knight's Leadership
            out.extend(self._monster_boost_options(c, has_action))
        if has_action:
            out.extend(self._save_action_options(c))
            undead = self._turnable(c)
            if undead and c.resources.get("channel_divinity", 0) > 0:
                cr = c.resources.get("destroy_undead_cr")
                extra = f"; Destroy Undead: CR {cr} or lower" if cr else ""
                out.append(Opt(f"Channel Divinity: Turn Undead (Wis DC {c.resources['spell_dc']}, "
                               f"{len(undead)} undead within 30 ft{extra}; "
                               f"{c.resources['channel_divinity']} use left)", "turn_undead"))
            out.append(Opt("Dash", "dash"))
            out.append(Opt("Disengage", "disengage"))
            out.append(Opt("Dodge", "dodge"))
            if "hidden" not in c.conditions and self._unseen(c):
                out.append(Opt(f"Hide (Stealth {self._stealth(c):+d} vs passive Perception)", "hide"))
            if c.melee_reach and e.attacks_left == 0:   # Ready: trigger = a foe enters its reach
                out.append(Opt(f"Ready an attack (reaction when a foe comes within {c.melee_reach} ft)", "ready"))
            if any(self.distance(c, o) <= SQUARE_FT for o in self.enemies_of(c)):
                out.append(Opt("Help", "help"))
            if "grappled" in c.conditions:
                g = c.conditions["grappled"]
                against = f"DC {g['dc']}" if g.get("dc") is not None else "contested"
                out.append(Opt(f"Escape the grapple ({against})", "escape"))
            web = c.conditions.get("restrained", {}).get("escape")
            if web:   # a spider's Web: an action and an ability check to burst the webbing
                out.append(Opt(f"Break free of the webbing ({web[0].capitalize()} check DC {web[1]})", "escape_web"))
        out.extend(self._spell_options(c))
        if self._object_in_reach(c):   # the objective's object: the free object interaction
            out.append(Opt(f"Use the {self.objective['name']} (free object interaction)", "interact"))
        if "_utility" in self.__dict__:   # the object through Mage Hand, the Unseen Servant (dnd/spell_utility.py)
            out.extend(spell_utility.action_options(self, c))
        if c.resources.get("potions", 0) > 0 and has_action and c.hp < c.max_hp:
            out.append(Opt(f"Drink a potion of healing (2d4+2, {c.resources['potions']} left)", "potion"))
        if c.is_pc:   # items: potions, scrolls, wands (dnd/items.py)
            from . import items as _items
            out.extend(_items.item_options(self, c))
        if e.bonus and c.resources.get("second_wind", 0) > 0 and c.hp < c.max_hp:
            out.append(Opt(f"Second Wind (bonus action, heal 1d10+{c.level})", "second_wind"))
        if e.bonus and e.light_attack:   # two-weapon fighting: the other light weapon, as a bonus action
            for a in c.attacks:
                if a.offhand and a.key != e.light_attack and self._targets_for_attack(c, a):
                    out.append(Opt(f"Off-hand attack with {a.name} (bonus action, {a.to_hit:+d}, "
                                   f"{'+'.join(p.dice for p in a.offhand)})", "attack", (a.key, "offhand")))
        out.extend(spellbook.recall_options(self, c))   # Call Lightning's next bolt
        if c.concentration == "heat-metal":   # its bonus action on later turns
            out.extend(spell_buffs.reheat_options(self, c))
        if c.monster in spell_zones.MONSTER_ZONES:   # Darkness Aura, Ink Cloud (dnd/spell_zones.py)
            out.extend(spell_zones.monster_options(self, c))
        if c.concentration in ("eyebite", "telekinesis"):   # their action on later turns (dnd/spell_control.py)
            out.extend(spell_control.later_options(self, c))
        if c.concentration == "dancing-lights":   # a bonus action moves the lights (dnd/lighting.py)
            out.extend(lighting.later_options(self, c))
        if "barriers" in self.__dict__ or "monster_wall" in c.resources:   # break a wall section; raise a wall
            out.extend(spell_walls.action_options(self, c))
        if "plant_magic" in self.__dict__ or "tree_stride" in c.features:   # Tree Stride, a link (dnd/spell_plants.py)
            out.extend(spell_plants.menu_options(self, c))
        sw = c.resources.get("spiritual_weapon")
        if sw and e.bonus and self._weapon_targets(c):
            out.append(Opt(f"Spiritual Weapon: move it and attack (bonus action, {c.resources['spell_attack']:+d}, "
                           f"{sw['dice']} force)", "spiritual_weapon"))
        if ("cunning_action" in c.features or "nimble_escape" in c.features) and e.bonus:
            what = "Cunning Action" if "cunning_action" in c.features else "Nimble Escape"   # a goblin's: no Dash
            if "hidden" not in c.conditions and self._unseen(c):
                out.append(Opt(f"{what}: Hide (Stealth {self._stealth(c):+d})", "cunning_hide"))
            if "cunning_action" in c.features:
                out.append(Opt("Cunning Action: Dash", "cunning_dash"))
            out.append(Opt(f"{what}: Disengage", "cunning_disengage"))
        if e.bonus and "cunning_action" not in c.features and spellbook.bonus_dash(c):
            out.append(Opt("Expeditious Retreat: Dash (bonus action)", "cunning_dash"))
        if c.resources.get("action_surge", 0) > 0 and not e.surged:
            out.append(Opt("Action Surge (one more action)", "action_surge"))
        out.extend(features.options(self, c))   # Rage, Lay on Hands, Flurry of Blows, Quickened Spell, ...
        out.append(Opt("End turn", "end_turn"))
        if self.specials or "ms" in c.resources:   # monsters' own actions (dnd/monster_specials.py)
            out = monster_specials.menu(self, c, out)
        if "turned" in c.conditions:   # SRD Turn Undead: move away, Dash or escape; Dodge if stuck
            keep = [o for o in out if o.kind in ("move", "dash", "escape", "stand", "end_turn")
                    and (o.kind != "move" or self._has_destination(c))]
            if not any(o.kind == "move" for o in keep):
                keep[-1:-1] = [o for o in out if o.kind == "dodge"]
            out = keep
        if "mounted" in c.conditions or "ridden" in c.conditions:   # SRD mounted combat (dnd/items.py)
            from . import items as _items
            out = _items.mounted_menu(self, c, out)
        return out

    def _save_action_options(self, c: Combatant) -> list[Opt]:
        """A monster's save actions that are ready (recharged, uses left) and can affect someone."""
        out = []
        for key in c.save_actions:
            if not c.recharge.get(c.resources.get("recharge_of", {}).get(key, key), True) \
                    or c.resources.get(f"uses:{key}", 1) <= 0:
                continue
            spec = monster_action(c, key)
            if spec.requires_no_grapple and any(o.conditions.get("grappled", {}).get("by") == c.cid
                                                for o in self.creatures.values()):
                continue
            if spec.area is None and not self._save_targets(c, spec):
                continue
            sv = spec.save
            what = ", ".join([d.dice + " " + d.type for d in sv.damage] + list(sv.conditions))
            if spec.area is None:
                where = f"one creature within {spec.range or 5} ft"
            elif spec.area.shape == "own_space":
                where = "creatures in its space"
            elif spec.area.shape == "emanation":
                where = f"{spec.area.size}-ft radius around it"
            else:
                where = f"{spec.area.size}-ft {spec.area.shape}"
            abil = "/".join(a.upper() for a in sv.ability_choices) or sv.ability.upper()
            out.append(Opt(f"{spec.name} ({where}, DC {sv.dc} {abil}, {what})", "save_action", (key,)))
        return out

    def _save_targets(self, c: Combatant, spec) -> list[Combatant]:
        """Single-target save actions: a foe in range (or grappled by it), not exempt."""
        if spec.target_filter == "grappled_by_self":
            pool = [o for o in self.enemies_of(c) if o.conditions.get("grappled", {}).get("by") == c.cid]
        else:
            pool = [o for o in self.enemies_of(c) if self.distance(c, o) <= (spec.range or 5)
                    and self.line_of_effect(c, o)]
        return [o for o in pool if self._may_target(c, o) and not self._save_exempt(c, spec, o)]

    def _save_exempt(self, c: Combatant, spec, t: Combatant) -> bool:
        types = set(spec.exempt_types) | set(spec.save.exempt_types)
        sub = content.monster(t.monster).subtype if t.monster else None
        if t.creature_type in types or (sub and any(x in sub for x in types)):
            return True
        if spec.save.size_max and SIZES.index(t.size) > SIZES.index(spec.save.size_max):
            return True
        if self.wards and spell_wards.exempt(self, c, spec, t):   # Magic Circle: no possession inside
            return True
        return f"{c.cid}:{spec.key}" in t.resources.get("immune_to", ())

    def _start_save_action(self, c: Combatant, key: str, legendary: bool = False, queued: bool = False) -> None:
        spec = monster_action(c, key)
        use = ("save_action", key, "legendary" if legendary else "queue") if legendary or queued else ("save_action", key)
        shape = spec.area.shape if spec.area else None
        if shape is None:
            self.pending = {"kind": "target", "actor": c.cid, "use": use}
        elif shape in ("emanation", "own_space"):
            self._resolve_area(c, use, None)
        elif shape in ("sphere", "cylinder"):
            self.pending = {"kind": "point_x", "actor": c.cid, "use": use}
        else:
            self.pending = {"kind": "direction", "actor": c.cid, "use": use}

    def _monster_save(self, c: Combatant, key: str, hits: list, legendary: bool = False, queued: bool = False) -> None:
        """A monster save action on those it affects: damage rolled once for all, half or none on
        a success, conditions on a failure with the stat block's duration and repeat save.
        ``legendary``: taken between turns, costing legendary points, not its action."""
        spec = monster_action(c, key)
        sv = spec.save
        if queued:   # a step of its multiattack: the action is already paid
            c.economy.attack_queue = c.economy.attack_queue[1:]
        elif not legendary:
            c.economy.actions -= 1
        key_of = c.resources.get("recharge_of", {}).get(key, key)   # a breath shares its group's recharge
        if key_of in c.recharge:
            c.recharge[key_of] = False
        if f"uses:{key}" in c.resources:
            c.resources[f"uses:{key}"] -= 1
        c.conditions.pop("hidden", None)
        self.event("save_action", f"{c.cid} uses {spec.name}", creature=c.cid, action=key)
        rolled = [(d.type, self.roller.roll_damage(d.dice, what=f"damage {key} {d.type}")) for d in sv.damage]
        dur = (sv.rounds, sv.until, sv.repeat_save, sv.immune_on_success, tuple(sv.exempt_types))
        for t in hits:
            if t.dead or self._save_exempt(c, spec, t):
                continue
            ability = max(sv.ability_choices, key=lambda a: t.saves[a]) if sv.ability_choices else sv.ability
            ok = self.saving_throw(t, ability, sv.dc, big=True, adv=self._sure_footed(t, ability, sv.conditions),
                                   condition=sv.conditions)
            for dtype, amount in rolled:
                self.damage(t, features.area_damage(t, ability, ok, sv.half_on_success, amount), dtype,
                            magical=True, source=c.cid)   # (Evasion)
            if ok and sv.immune_on_success:
                t.resources["immune_to"] = tuple(t.resources.get("immune_to", ())) + (f"{c.cid}:{key}",)
            if not ok:
                for cond in sv.conditions:
                    self._save_condition(c, t, cond, ability, sv.dc, dur)
                    if cond == "breath_slowed":   # no reactions from now on
                        t.economy.reaction = False
                for _ in range(c.resources.get("breath_push", {}).get(key, 0) // SQUARE_FT):
                    dest = self._push_square(c, t)   # Repulsion Breath: pushed straight away
                    if dest is None:
                        break
                    t.pos = dest
        if legendary:   # between turns: play goes on to the next creature
            if not self._check_outcome():
                self._next_turn()
            return
        self._back_to_menu(c)

    def _save_condition(self, c: Combatant, t: Combatant, cond: str, ability: str, dc: int, dur: tuple) -> None:
        """A condition from a failed save, with its stat-block duration: ``rounds`` (1 minute = 10),
        ``until`` the end of the source's / target's next turn, ``repeat_save`` at the end of each of
        the target's turns (success ends it)."""
        rounds, until, repeat = dur[:3] if dur else (None, None, None)
        if cond in t.condition_immunities or t.dead or (cond != "prone" and not t.conscious):
            return
        if features.blocks_condition(self, t, cond):   # Mindless Rage, Aura of Devotion / Courage
            return
        if self.wards and spell_wards.shields(self, c, t, cond):   # Magic Circle: no charm or fear
            return
        if t.conditions and spell_buffs.wards(t, cond):   # Mind Blank, Heroes' Feast
            return
        if self._ally_ward(t, cond):   # Steadfast
            self.event("condition", f"{t.cid} is not {cond}: an ally stands by it", creature=t.cid)
            return
        entry = {"by": c.cid, "round": self.round, "turn_of": self.pending.get("actor") if self.pending else None}
        if repeat == "end_of_turn":
            entry.update(repeat=ability, dc=dc, magic=False)
        if rounds:
            entry["until_round"] = self.round + rounds
        if until:
            entry["until"] = until
        t.conditions[cond] = entry
        if cond in INCAPACITATING:
            self.end_concentration(t)
        if cond in ("paralyzed", "stunned", "unconscious", "incapacitated", "petrified"):
            self._release_grapples_by(t)
        self.event("condition", f"{t.cid} is {cond}", creature=t.cid, condition=cond)

    def _turnable(self, c: Combatant) -> list[Combatant]:
        """The hostile undead within 30 ft that Turn Undead would affect (they hear the cleric)."""
        return [o for o in self.enemies_of(c) if o.creature_type == "undead" and o.conscious
                and "turned" not in o.conditions and self.distance(c, o) <= TURN_UNDEAD_FT]

    def _turn_undead(self, c: Combatant) -> None:
        """SRD Channel Divinity: Turn Undead. Each undead within 30 ft makes a Wis save against the
        cleric's spell save DC; on a failure it is turned for 1 minute or until it takes damage
        (Destroy Undead at 5: a failed save destroys one of CR 1/2 or lower)."""
        c.economy.actions -= 1
        c.resources["channel_divinity"] -= 1
        c.conditions.pop("hidden", None)
        self.event("channel_divinity", f"{c.cid} presents a holy symbol: Turn Undead", creature=c.cid)
        cap = c.resources.get("destroy_undead_cr")
        for t in self._turnable(c):
            defiance = any("turn_defiance" in o.features and (o is t or (t.monster == "ghoul" and o.side == t.side
                           and not o.incapacitated and self.distance(o, t) <= 30))
                           for o in self.creatures.values() if not o.dead)   # a ghast and ghouls near it
            if self.saving_throw(t, "wis", c.resources["spell_dc"], adv="turn_resistance" in t.features or defiance):
                continue
            if cap and t.monster and content.monster(t.monster).challenge_rating <= cap:
                self._die(t, "Destroy Undead")
                continue
            t.conditions["turned"] = {"by": c.cid, "until": self.round + 10}
            t.economy.reaction = False
            self.end_concentration(t)
            self.event("condition", f"{t.cid} is turned", creature=t.cid, condition="turned")
        self._back_to_menu(c)

    def _spell_options(self, c: Combatant) -> list[Opt]:
        """Each castable spell at each legal slot level (upcasting), with a target or a placement.

        SRD bonus-action rule: after a bonus-action spell only an action cantrip may follow, and
        after a levelled action spell no bonus-action spell may."""
        e = c.economy
        slots = c.resources.get("slots", ())
        memo = self.__dict__.get("_menu_spells")
        key = (c.cid, e.actions, e.bonus, e.bonus_spell, e.levelled_action_spell, c.spells, tuple(slots))
        if memo and memo[0] == key:
            return list(memo[1])
        out = self._spell_options_now(c, content, e, slots)
        if memo is not None:
            self._menu_spells = (key, tuple(out))
        return out

    def _spell_options_now(self, c: Combatant, content, e, slots) -> list[Opt]:
        out = []
        if spellbook.no_spells(c):   # Feeblemind
            return out
        for key in c.spells:
            sp = content.spell(key)
            if sp.casting_time == "reaction":   # Shield: offered as a reaction decision, not here
                continue
            if self.zones and spell_zones.blocks_casting(self, c, key):   # Silence, Antimagic Field
                continue
            bonus = sp.casting_time == "bonus_action"
            if bonus and (not e.bonus or e.levelled_action_spell):
                continue
            if not bonus and (e.actions <= 0 or (e.bonus_spell and sp.level > 0)):
                continue
            levels = [0] if sp.level == 0 else [lv for lv in range(sp.level, len(slots) + 1) if slots[lv - 1] > 0]
            if sp.level and c.resources.get("innate", {}).get(key, 0) != 0 and sp.level not in levels:
                levels = sorted([sp.level, *levels])   # a monster's innate spell: its own level, no slot
            if not levels:
                continue
            if spellbook.handles(key):
                if not spellbook.available(self, c, key, levels[0]):
                    continue
            elif key == "misty-step":
                if not self._teleport_options(c, {"use": ("teleport", key, levels[0])}, first=True):
                    continue
            elif key == "spirit-guardians":
                if c.concentration == key:
                    continue
            elif key == "spiritual-weapon" and "spiritual_weapon" in c.resources:
                continue
            elif sp.area is None:
                if not self._spell_targets(c, key, first=True):
                    continue
            elif sp.area.shape == "sphere" and not self.point_ok(c, c.pos[0], c.pos[1], sp.range_feet or 0):
                continue   # the caster's own corner is a legal point whenever any is: no full scan
            how = " (bonus action)" if bonus else ""
            for level in levels:
                at = f" at level {level}" if level else ""
                out.append(Opt(f"Cast {sp.name}{at}{how} ({self._spell_summary(c, key, level)})", "spell",
                               (key, level)))
        return out

    def _spell_summary(self, c: Combatant, key: str, level: int) -> str:
        if spellbook.handles(key):
            return spellbook.summary(c, key, level)
        sp = content.spell(key)
        if key == "magic-missile":
            return f"{2 + level} darts of 1d4+1 force, auto-hit"
        if sp.heal_at_slot_level:
            return f"heal {sp.heal_for(level)}{c.resources['spell_mod']:+d}"
        if key in SUMMARIES:
            return SUMMARIES[key](c, level)
        dice = sp.damage_for(slot_level=level or None, character_level=c.level)
        if sp.area is not None:
            return (f"{sp.area.size}-ft {sp.area.shape}, DC {c.resources['spell_dc']} "
                    f"{sp.save_ability.upper()}, {dice} {sp.damage_type}")
        if sp.save_ability:
            return f"DC {c.resources['spell_dc']} {sp.save_ability.upper()}, {dice} {sp.damage_type}"
        return f"{c.resources['spell_attack']:+d}, {dice} {sp.damage_type}"

    def _movement_cells(self, c: Combatant) -> tuple[list, list]:
        """(cells that block c's movement, cells it may pass through): foes block, allies do not.
        SRD Swarm: a swarm and other creatures move through each other's spaces (simplified: a
        move does not end in an occupied space). Incorporeal Movement: through any creature as
        difficult terrain (the grid's walls stay solid)."""
        hostile, friends = [], [cell for o in self.allies_of(c) for cell in o.cells]
        # Air / Water Form may also stop in a foe's space (simplified as for swarms: only through it)
        through = "swarm" in c.features or "incorporeal" in c.features or "enters_foes" in c.features
        for o in self.enemies_of(c):
            (friends if through or "swarm" in o.features else hostile).extend(o.cells)
        if self.zones:   # Antilife Shell keeps the living out (dnd/spell_zones.py)
            hostile.extend(spell_zones.barrier_cells(self, c))
        if self.wards:   # Magic Circle keeps its types out (dnd/spell_wards.py)
            hostile.extend(spell_wards.barrier_cells(self, c))
        return hostile, friends

    def _can_step(self, c: Combatant) -> bool:
        if not self._flying(c):
            return self._reach(c, step_only=True)
        # a flyer's full 3D reach is costly: one step (10 ft covers difficult terrain) answers this
        hostile, friends = self._movement_cells(c)
        if self.map.can_fly_step(c.pos, c.size, c.economy.movement, blocked_by=hostile, pass_through=friends,
                                 max_altitude_ft=self.max_altitude_ft):
            return True   # one free 5-ft step settles it, without the numpy window of a flight
        step = self.map.reachable(c.pos, c.size, min(c.economy.movement, 2 * SQUARE_FT), blocked_by=hostile,
                                  pass_through=friends, fly=True, max_altitude_ft=self.max_altitude_ft)
        return len(step) > 1

    def _reach(self, c: Combatant, step_only: bool = False):
        # asked several times per decision (menu, destinations, planner): one cached answer.
        # step_only: just whether c can move at all (len(reach) > 1), as cheaply as possible
        fly = self._flying(c)
        climb = spell_buffs.climb_speed(self, c) if c.conditions else 0   # Spider Climb
        key = (c.cid, c.pos, c.economy.movement, fly, climb, self.map,   # a replaced map: a new answer
               tuple((o.pos, o.side, o.dead) for o in self.creatures.values()))
        if self._reach_cache is not None and self._reach_cache[0] == key:
            return len(self._reach_cache[1]) > 1 if step_only else self._reach_cache[1]
        hostile, friends = self._movement_cells(c)
        ask = {"blocked_by": hostile, "pass_through": friends,
               "fly": fly, "max_altitude_ft": self.max_altitude_ft if fly else None,
               "swim_speed": c.resources.get("swim", 0) or ("water_walk" in c.conditions),   # a swimmer (or
               # a water walker: dnd/spell_utility.py) pays no extra in water
               "climb_speed": climb,
               "difficult_extra": spell_zones.difficult_cells(self, c) if self.zones else ()}
        m = features_last.walk_map(self, c)   # Land's Stride: the map's difficult terrain costs nothing
        if step_only and m.can_step(c.pos, c.size, c.economy.movement, **ask):
            return True   # a free square one step away settles it: no full search
        r = m.reachable(c.pos, c.size, c.economy.movement, **ask)
        self._reach_cache = (key, r)
        return len(r) > 1 if step_only else r

    def _destination_options(self, c: Combatant) -> list[Opt]:
        # asked up to three times a move (the menu, the planner's full list, the chosen row): the
        # list is kept while the cached reach is the same object, nothing else it reads changed
        # and nothing happened (no new event in the log)
        r = self._reach(c)
        dkey = (c.cid, len(self.log), repr(c.conditions.get("frightened")), repr(c.conditions.get("turned")),
                "aggressive_move" in c.resources, tuple(o.conscious for o in self.creatures.values()))
        dc = getattr(self, "_dest_cache", None)
        if dc is not None and dc[0] is r and dc[1] == dkey:
            return list(dc[2])
        out = self._destination_options_uncached(c, r)
        self._dest_cache = (r, dkey, tuple(out))
        return out

    def _limits_destinations(self, c: Combatant) -> bool:
        """Whether fear, turning, Aggressive or a Symbol's fear bar some destinations (see below)."""
        return "frightened" in c.conditions or "turned" in c.conditions or "aggressive_move" in c.resources

    def _allowed_destinations(self, c: Combatant, r):
        """(index, position) of each destination of the reach c may choose now (not its own
        square; fear, turning and Aggressive bar some), in the reach's canonical order."""
        start = tuple(c.pos)
        fear = c.conditions.get("frightened")
        source = self.creatures.get(fear.get("by")) if fear else None
        here = self.distance(c, source) if source is not None and not source.dead else None
        turner = self.creatures.get(c.conditions["turned"]["by"]) if "turned" in c.conditions else None
        away = self.distance(c, turner) if turner is not None else None
        aggressive = "aggressive_move" in c.resources
        # Symbol's fear: never closer to the glyph (dnd/spell_wards.py)
        glyph = spell_wards.away_test(c, fear) if self.wards and fear and fear.get("away_from") else None
        if here is None and away is None and not aggressive and glyph is None:   # the common case: all but its own
            for j, pos in enumerate(r.destinations):
                if pos != start:
                    yield j, pos
            return
        for j, pos in enumerate(r.destinations):
            if pos == start:
                continue
            if away is not None and self.distance_from(c, pos, turner) <= max(away, 0) and \
                    self.distance_from(c, pos, turner) <= TURN_UNDEAD_FT:
                continue   # SRD turned: only away, never to a space within 30 ft (simplified)
            if here is not None and self.distance_from(c, pos, source) < here:
                continue   # SRD Frightened: can't willingly move closer to the source of its fear
            if aggressive and not any(
                    self.distance_from(c, pos, o) < self.distance(c, o) for o in self.enemies_of(c) if o.conscious):
                continue   # Aggressive: the bonus move goes toward a hostile creature
            if glyph is not None and not glyph(pos):
                continue
            yield j, pos

    def _has_destination(self, c: Combatant) -> bool:
        """Whether c may move anywhere now, without labelling every square."""
        return next(self._allowed_destinations(c, self._reach(c)), None) is not None

    def _destination_options_uncached(self, c: Combatant, r) -> list[Opt]:
        n = c.squares
        foes = sorted(self.enemies_of(c), key=lambda o: o.cid)   # by name: ties go to the first
        dests = r.destinations
        # the nearest foe from every destination at once, for the labels (the reach keeps its
        # distances per box: the planner asks the same ones)
        got = r.nearest([_extents(o) for o in foes]) if foes else None
        near_ft, near_i = got if got is not None else \
            nearest_box_ft(dests, n, [(o.pos[0], o.pos[1], o.squares, o.pos[2]) for o in foes])
        names = [o.cid for o in foes]
        costs = r.costs
        ground = getattr(r, "_mode", None) == "ground"   # walking: every destination stands on the floor
        floor, W = self.map._anchors(n)[1], self.map.width   # standing heights (destinations lie on the map)
        new = tuple.__new__   # (NamedTuple's own __new__ is a Python call per option)
        if ground and names and not self._limits_destinations(c):   # the common case, in one sweep
            rows = self.map._row_names()
            start = tuple(c.pos)
            return [new(DestinationOpt, ((p[0], p[1], 0, costs[p], ft, names[i]), "destination", (p,), rows[p[1]]))
                    for p, ft, i in zip(dests, near_ft, near_i) if p != start]
        row_names: dict = {}
        out = []
        add = out.append
        for j, pos in self._allowed_destinations(c, r):
            x, y = pos[0], pos[1]
            up = 0 if ground else pos[2] - floor[y * W + x]
            row = row_names.get(y)
            if row is None:
                row = row_names[y] = f"row y={y}"
            add(new(DestinationOpt, ((x, y, up, costs[pos], near_ft[j] if names else 0,
                                       names[near_i[j]] if names else ""), "destination", (pos,), row)))
        return out

    # ---------------------------------------------------------------- targets
    def _attack_range(self, c: Combatant, a: AttackProfile, t: Combatant) -> str | None:
        """"melee", "ranged" or None: how this attack can reach this target now."""
        d = self.distance(c, t)
        if a.melee and d <= a.reach:
            return "melee"
        if a.range_normal and d <= a.range_long:
            if d > a.range_normal and getattr(self, "underwater", False):
                from . import items as _items   # SRD underwater: a ranged weapon misses beyond normal range
                if _items.weapon_of(c, a):
                    return None
            return "ranged"
        return None

    def _targets_for_attack(self, c: Combatant, a: AttackProfile) -> list[Combatant]:
        if a.ammo and c.resources.get(a.ammo, 0) <= 0:
            return []   # SRD ammunition: none left, no attack with this weapon
        out = []
        for t in self.enemies_of(c):
            if self._attack_range(c, a, t) and self._may_target(c, t) and self.line_of_effect(c, t):
                out.append(t)
        if ("swallow",) in a.on_hit:   # Swallow: only a creature it grapples and has room for
            out = [t for t in out if self._can_swallow(c, t)]
        if any(e[0] == "smother" for e in a.on_hit):   # one smothered target at a time, Medium or smaller
            busy = any(o.conditions.get("smothered", {}).get("by") == c.cid for o in self.creatures.values())
            out = [] if busy else [t for t in out if SIZES.index(t.size) <= SIZES.index("medium")]
        if self.zones and a.melee:   # no reaching through an Antilife Shell (dnd/spell_zones.py)
            out = [t for t in out if self._attack_range(c, a, t) != "melee" or spell_zones.reach_through(self, c, t)]
        return out

    def _spell_targets(self, c: Combatant, key: str, first: bool = False) -> list[Combatant]:
        """Who the spell may target now; ``first``: at most the first (is there anyone?)."""
        if spellbook.handles(key):
            return spellbook.targets(self, c, key, first)
        sp = content.spell(key)
        rng = SQUARE_FT if sp.range_kind == "touch" else features_more.spell_range(c, key, sp.range_feet or 0)
        if sp.heal_at_slot_level:   # the living, wounded, self included
            pool = [o for o in self.creatures.values()
                    if o.side == c.side and not o.dead and o.hp < o.max_hp and "no_heal" not in o.conditions]
        elif key in BUFFS:
            pool = [o for o in self.creatures.values()
                    if o.side == c.side and not o.dead and BUFFS[key] not in o.conditions
                    and not (key == "mage-armor" and o.armored)]
        else:
            pool = self.enemies_of(c)
            if key == "hold-person":
                pool = [o for o in pool if o.creature_type == "humanoid" and "paralyzed" not in o.conditions]
            elif key == "bane":
                pool = [o for o in pool if "baned" not in o.conditions]
            pool = [o for o in pool if self._may_target(c, o)]
            if self.specials:   # a rakshasa's Limited Magic Immunity (dnd/monster_specials.py)
                pool = monster_specials.spell_screen(self, c, key, pool)
        ok = (t for t in pool if (t is c or self.distance(c, t) <= rng) and self.line_of_effect(c, t))
        if first:
            t = next(ok, None)
            return [] if t is None else [t]
        return list(ok)

    def _may_target(self, c: Combatant, t: Combatant) -> bool:
        """SRD Charmed: a charmed creature can't attack or target its charmer with harmful magic."""
        if self.wards and spell_wards.hopeless(c):   # Symbol's hopelessness: nobody (dnd/spell_wards.py)
            return False
        return c.conditions.get("charmed", {}).get("by") != t.cid

    def _weapon_targets(self, c: Combatant) -> list[Combatant]:
        """Spiritual Weapon: it moves up to 20 ft and attacks a creature within 5 ft of it, and it
        stays within 60 ft of the caster (its position is the last creature it attacked)."""
        sw = c.resources["spiritual_weapon"]
        at = tuple(sw["pos"])
        out = []
        for t in self.enemies_of(c):
            if self.distance(c, t) <= 60 and self._may_target(c, t) and \
                    box_distance_ft(at[0], at[1], 1, at[2], t.pos[0], t.pos[1], t.squares, t.pos[2]) <= 25:
                out.append(t)
        if self.specials:   # a rakshasa's Limited Magic Immunity (dnd/monster_specials.py)
            out = monster_specials.spell_screen(self, c, "spiritual-weapon", out)
        return out

    def _teleport_options(self, c: Combatant, p: dict, first: bool = False) -> list[Opt]:
        """Misty Step: an unoccupied space within 30 ft that the caster can see (a monster's
        Teleport: within the stat block's distance). ``first``: stop at the first one found (is there
        any?), looking nearest first."""
        if p["use"][0] == "plants":   # Tree Stride, Transport via Plants (dnd/spell_plants.py)
            return spell_plants.destination_options(self, c, p)
        if p["use"][0] == "lights":   # where the dancing lights go (dnd/lighting.py)
            return lighting.move_options(self, c, p)
        if "enclosed" in c.conditions:   # Forcecage, Resilient Sphere: no way out (simplification: no Cha save)
            return []
        taken = {cell for o in self.creatures.values() if not o.dead and o is not c for cell in o.cells}
        n, (x0, y0, z0) = c.squares, c.pos
        reach = p["use"][2] if p["use"][0] == "monster_teleport" else spell_control.reach(p["use"][1])
        k = reach // SQUARE_FT
        squares = [(x, y) for y in range(max(0, y0 - k), min(self.map.height, y0 + k + 1))
                   for x in range(max(0, x0 - k), min(self.map.width, x0 + k + 1))]
        if first:   # is there any? the squares nearest first: one beside it usually settles it
            squares.sort(key=lambda q: max(abs(q[0] - x0), abs(q[1] - y0)))
        out = []
        for x, y in squares:
            if (x, y) == (x0, y0) or not self.map.fits(x, y, n):
                continue
            cells = footprint(x, y, n)
            if any(cell in taken for cell in cells):
                continue
            z = self.map.standing_z(x, y, n)
            if box_distance_ft(x0, y0, n, z0, x, y, n, z) > reach or \
                    not self.map.can_see(c.cells, cells, viewer_z=z0, target_z=z):
                continue
            out.append(Opt(f"Teleport to ({x}, {y})", "destination", ((x, y, z),), group=f"row y={y}"))
            if first:
                return out
        return out

    def _teleport(self, c: Combatant, use: tuple, dest: tuple) -> None:
        if use[0] != "monster_teleport":
            self._pay_spell(c, use[1], use[2])
        elif len(use) < 4:   # a monster's Teleport action (a legendary one costs its points instead)
            c.economy.actions -= 1
            if use[1] in c.recharge:
                c.recharge[use[1]] = False
        if self.wards:   # into a Magic Circle against its type: a Cha save first (dnd/spell_wards.py)
            dest = spell_wards.teleport_dest(self, c, dest)
        c.pos = tuple(dest)
        self._release(c)   # out of the grappler's reach
        self._release_grapples_by(c)
        self.event("teleport", f"{c.cid} teleports to ({dest[0]}, {dest[1]})", creature=c.cid, pos=list(dest),
                   action=use[1])
        if len(use) > 3:   # legendary: between turns
            self._next_turn()
            return
        self._back_to_menu(c)

    def _target_options(self, c: Combatant, p: dict) -> list[Opt]:
        use = p["use"]
        out = []
        if use[0] == "attack":
            a = c.attack(use[1])
            if use[2] == "offhand":
                a = a._replace(damage=a.offhand, range_normal=0, range_long=0)
            targets = self._targets_for_attack(c, a)
            if use[2] == "horde":   # Horde Breaker: a creature near the first target
                targets = features_more.horde_targets(self, c, targets)
            for t in targets:
                if use[2] == "pounce" and t.cid != c.resources.get("pounce_on"):
                    continue   # Pounce: the bonus attack is against the creature knocked prone
                how = self._attack_range(c, a, t)
                adv, dis, _ = self.attack_modifiers(c, t, how == "melee", a)
                mode = " with advantage" if adv and not dis else (" with disadvantage" if dis and not adv else "")
                cov = self.cover(c, t)
                cov_note = f", {cov.name.lower().replace('_', '-')} cover" if cov else ""
                out.append(Opt(f"Attack {t.cid} with {a.key} ({a.short()}){mode} "
                               f"[{t.hp}/{t.max_hp} HP, AC {t.ac}{cov_note}, {self.distance(c, t)} ft]",
                               "target", (t.cid,)))
        elif use[0] == "spell":
            for t in self._spell_targets(c, use[1]):
                state = f"{t.hp}/{t.max_hp} HP" + ("" if t.conscious else ", dying")
                out.append(Opt(f"Cast {use[1]} on {t.cid} [{state}, AC {self.armour_class(t)}, "
                               f"{self.distance(c, t)} ft]", "target", (t.cid,)))
        elif use[0] == "dart":
            for t in self._spell_targets(c, "magic-missile"):
                out.append(Opt(f"Next Magic Missile dart ({use[2]} left) at {t.cid} [{t.hp}/{t.max_hp} HP, "
                               f"{self.distance(c, t)} ft]", "target", (t.cid,)))
        elif use[0] == "ray":
            for t in self._spell_targets(c, use[1]):
                out.append(Opt(f"Next Scorching Ray ({use[3]} left) at {t.cid} [{t.hp}/{t.max_hp} HP, "
                               f"AC {self.armour_class(t)}, {self.distance(c, t)} ft]", "target", (t.cid,)))
        elif use[0] == "more":   # Bless, Bane, Hold Person: one more creature, or stop
            for t in self._spell_targets(c, use[1]):
                if t.cid not in use[4]:
                    out.append(Opt(f"Also {use[1]} {t.cid} ({use[3]} more) [{t.hp}/{t.max_hp} HP, "
                                   f"{self.distance(c, t)} ft]", "target", (t.cid,)))
            out.append(Opt("No more targets", "stop"))
        elif use[0] == "weapon":
            for t in self._weapon_targets(c):
                out.append(Opt(f"Spiritual Weapon attacks {t.cid} [{t.hp}/{t.max_hp} HP, AC {self.armour_class(t)}]",
                               "target", (t.cid,)))
        elif use[0] == "shove":
            for t in self._shove_targets(c, use[1]):
                what = {"prone": f"Shove {t.cid} prone", "push": f"Shove {t.cid} away", "grapple": f"Grapple {t.cid}"}
                out.append(Opt(f"{what[use[1]]} [contest: your "
                               f"{self._athletics(c):+d} vs its {self._escape_bonus(t):+d}]", "target", (t.cid,)))
        elif use[0] == "help":
            for t in self.enemies_of(c):
                if self.distance(c, t) <= SQUARE_FT:
                    out.append(Opt(f"Help an ally attack {t.cid}", "target", (t.cid,)))
        elif use[0] == "monster_heal":   # Healing Touch: another creature it touches
            for t in self._touch_heal_targets(c):
                out.append(Opt(f"Healing Touch on {t.cid} [{t.hp}/{t.max_hp} HP]", "target", (t.cid,)))
        elif use[0] == "feature":   # Lay on Hands, Bardic Inspiration
            out = features.target_options(self, c, use)
        elif use[0] == "save_action":
            sv = monster_action(c, use[1]).save
            for t in self._save_targets(c, monster_action(c, use[1])):
                out.append(Opt(f"{use[1]} on {t.cid} [{t.hp}/{t.max_hp} HP, {sv.ability.upper()} save "
                               f"{t.saves[sv.ability]:+d} vs DC {sv.dc}, {self.distance(c, t)} ft]", "target", (t.cid,)))
        elif use[0] == "control":   # Eyebite's effect, the spell Wish duplicates (dnd/spell_control.py)
            out = spell_control.target_options(self, c, use)
        elif use[0] == "ms":   # a monster's own action (dnd/monster_specials.py)
            out = monster_specials.target_options(self, c, use)
        elif use[0] == "form":   # Polymorph's form, Animate Objects' size (dnd/spell_summons.py)
            out = spell_summons.form_options(self, c, use)
        if "berserk" in c.conditions:   # Berserk: only the nearest creature
            out = monster_specials.berserk_targets(self, c, out)
        return out

    # ---------------------------------------------------------------- areas
    def _area(self, c: Combatant, use: tuple, where) -> areas.Area:
        # the planner scores the same placements again after every move: an area is a pure function
        # of the map, the use, the placement and the user's place (a wall's anchor or a barrier's
        # cells are not kept)
        if len(use) > 3 or (use[0] == "spell" and spellbook.mech(use[1]).get("barrier")):
            return self._area_now(c, use, where)
        key = (self.map, use[0], use[1], where, c.cid, c.monster, c.pos, c.squares)
        memo = self.__dict__.setdefault("_area_memo", {})
        got = memo.get(key)
        if got is None:
            if len(memo) > 4096:
                memo.clear()
            got = memo[key] = self._area_now(c, use, where)
        return got

    def _area_now(self, c: Combatant, use: tuple, where) -> areas.Area:
        if use[0] == "spell" and spellbook.handles(use[1]):
            return spellbook.area(self, c, use[1], where, use[3] if len(use) > 3 else None)
        shape, size = self._area_shape(c, use)
        if shape in ("sphere", "cylinder"):   # a cylinder's height reaches past our 15-ft ceiling
            return areas.sphere(where, size, self.map)
        if shape in ("emanation", "own_space"):   # own space: those next to it (no shared squares here)
            return areas.emanation(c.cells, size or SQUARE_FT, c.pos[2])
        if shape == "cone":
            return areas.cone(c.cells, size, where, c.pos[2])
        if shape == "cube":
            return areas.cube_from(c.cells, size, where, c.pos[2])
        return areas.line(c.cells, size, where, 5, c.pos[2])

    def _area_shape(self, c: Combatant, use: tuple):
        if use[0] == "spell":
            a = content.spell(use[1]).area
        else:
            a = monster_action(c, use[1]).area
        return a.shape, a.size

    def area_hits(self, c: Combatant, use: tuple, where) -> list[Combatant]:
        """The creatures (either side, not the user) an area placed there would affect."""
        area = self._area(c, use, where)
        affects = areas.affects_space
        out = [o for o in self.creatures.values()
               if not o.dead and o is not c and not self._inside_apart(o, c)
               and affects(area, self.map, o.pos[0], o.pos[1], o.squares, o.pos[2])]
        if use[0] == "spell" and self.specials:   # a rakshasa's Limited Magic Immunity (dnd/monster_specials.py)
            out = monster_specials.spell_screen(self, c, use[1], out, use[2] if len(use) > 2 else None)
        return out

    def _area_label(self, c: Combatant, p: dict, where) -> str:
        hits = self.area_hits(c, p["use"], where)
        names = ", ".join(o.cid for o in hits) or "no one"
        if where is None:
            return f"Around {c.cid} (hits {names})"
        if p["kind"] == "direction":
            return f"Toward {DIRECTION_NAMES[where]} (hits {names})"
        z = f", {where[2]} ft" if len(where) == 3 else ""
        return f"Point ({where[0]}, {where[1]}{z}) (hits {names})"

    def _point_heights(self, c: Combatant, use: tuple, x: int, y: int) -> list[int]:
        """The heights (ft) a point-placed area may be centred at above intersection (x, y): the
        ground, and while some creature is aloft, every 5 ft up to the battle's ceiling that is in
        range and in line of effect (the z coordinate of the paper's x, y, z point)."""
        ground = areas.ground_z_at_point(self.map, x, y)
        aloft = any(not o.dead and o.pos[2] > self.map.standing_z(o.pos[0], o.pos[1], o.squares)
                    for o in self.creatures.values())
        if not aloft:
            return [ground]
        rng = content.spell(use[1]).range_feet or 0 if use[0] == "spell" else \
            min(monster_action(c, use[1]).range or 30, 5 * (self.map.width + self.map.height))
        W, H = self.map.width, self.map.height
        cell = [(min(x, W - 1), min(y, H - 1))]
        out = [ground]
        for z in range(ground + SQUARE_FT, ground + self.max_altitude_ft + 1, SQUARE_FT):
            if self.map.distance_ft(c.cells, cell, c.pos[2], z) <= rng and \
                    self.map.line_of_effect(c.cells, cell, a_z=c.pos[2], b_z=z):
                out.append(z)
        return out

    def _point_range(self, c: Combatant, use: tuple) -> int:
        if use[0] == "spell":
            rng = content.spell(use[1]).range_feet or 0
            if "monster_wall" in c.resources:   # an ice devil's Wall of Ice: its own range
                rng = spell_walls.point_range(c, use) or rng
            return rng
        # a monster's point-placed save (no range given: a point it can see within 30 ft)
        return min(monster_action(c, use[1]).range or 30, 5 * (self.map.width + self.map.height))

    def _point_column(self, c: Combatant, p: dict, x: int, first: bool = False) -> list:
        """The y of every grid intersection (x, y) a point-placed area can be centred on (in range
        and in line of effect: :meth:`point_ok`); ``first``: stop at the first. Kept per battle,
        keyed by the map, the caster's place and the range (walls never move; a replaced map is a
        new key)."""
        rng = self._point_range(c, p["use"])
        key = (self.map, c.pos, c.squares, rng, p["use"][0] == "spell", x)
        cache = self.__dict__.setdefault("_points_cache", {})
        got = cache.get(key)
        if got is not None and (first or got[0]):
            return got[1]
        if len(cache) > 4096:
            cache.clear()
        ys = []
        for y in range(self.map.height + 1):
            if self.point_ok(c, x, y, rng):
                ys.append(y)
                if first:
                    break
        cache[key] = (not first, ys)
        return ys

    def _point_xs(self, c: Combatant, p: dict) -> list:
        """The x of the columns that hold at least one legal point (each column is scanned only
        until its first legal point)."""
        return [x for x in range(self.map.width + 1) if self._point_column(c, p, x, first=True)]

    def _point_ys(self, c: Combatant, p: dict, x: int) -> list:
        return self._point_column(c, p, x)

    def point_ok(self, c: Combatant, x: int, y: int, rng: int) -> bool:
        """Can c centre a point-placed area on intersection (x, y): in range, line of effect."""
        W, H = self.map.width, self.map.height
        if not (0 <= x <= W and 0 <= y <= H):
            return False
        cell = (min(x, W - 1), min(y, H - 1))
        return not self.map.is_wall(*cell) and self.map.distance_ft(c.cells, [cell], c.pos[2], None) <= rng and \
            self.map.line_of_effect(c.cells, [cell], a_z=c.pos[2])

    # ================================================================ applying options
    def _apply(self, p: dict, opt: Opt) -> None:
        c = self.creatures[p["actor"]]
        kind = opt.kind
        if p["kind"] == "reaction" and p.get("reaction") in features.REACTIONS:
            features.resolve_reaction(self, c, p, opt.data)
            return
        if p["kind"] == "reaction" and p.get("reaction") in spell_buffs.REACTIONS:
            spell_buffs.resolve_reaction(self, c, p, opt.data)
            return
        if p["kind"] == "reaction" and p.get("reaction") in features_last.REACTIONS:
            features_last.resolve_reaction(self, c, p, opt.data)
            return
        if p["kind"] == "reaction" and p.get("reaction") == "counterspell":
            spell_counter.answer(self, c, p, opt.data)
            return
        if p["kind"] == "reaction":
            self._resolve_reaction(c, p, opt.data[0])
            return
        if kind == "end_turn":
            self._end_turn(c)
            return
        if kind == "legendary_pass":
            self._next_turn()
            return
        if kind == "legendary":
            self._use_legendary(c, opt.data[0])
            return
        if kind == "stop":   # no further targets for a multi-target spell
            self._back_to_menu(c)
            return
        if kind == "destination" and p.get("use"):   # Misty Step
            if p["use"][0] == "plants":   # out of a tree; a tree chosen (dnd/spell_plants.py)
                spell_plants.arrive(self, c, p, opt.data[0])
                return
            if p["use"][0] == "lights":   # the dancing lights' new point (dnd/lighting.py)
                lighting.apply(self, c, p, opt)
                return
            self._teleport(c, p["use"], opt.data[0])
            return
        if kind == "move":
            self.pending = {"kind": "destination", "actor": c.cid}
        elif kind == "destination":
            self._choose_destination(c, opt.data[0])
        elif kind == "route":
            self._start_move(c, p["routes"][opt.data[0]])
        elif kind == "attack":
            key, source = opt.data
            self.pending = {"kind": "target", "actor": c.cid, "use": ("attack", key, source)}
        elif kind == "shove":
            self.pending = {"kind": "target", "actor": c.cid, "use": ("shove", opt.data[0])}
        elif kind == "multiattack":
            c.economy.actions -= 1
            c.economy.attack_queue = tuple(c.multiattack)
            count = c.resources.get("multi_count")
            if count:   # a violet fungus's 1d4 touches, a hydra's bite per head
                n = c.resources["heads"] if count.get("per_head") else \
                    self.roller.roll(count["dice"], what=f"attacks {c.cid}")
                c.economy.attack_queue = (count["action"],) * max(1, n)
            self.event("multiattack", f"{c.cid} makes a multiattack", creature=c.cid)
            self._back_to_menu(c)
        elif kind == "target":
            self._resolve_target(c, p["use"], self.creatures[opt.data[0]])
        elif kind == "spell":
            features.before_spell(self, c, opt.data)   # metamagic (Quickened Spell)
            self._begin_spell(c, opt.data[0], opt.data[1])
        elif kind == "feature":
            features.apply(self, c, opt)
        elif kind == "recall":
            spellbook.recall(self, c)
        elif kind == "reheat":   # Heat Metal's bonus action
            spell_buffs.reheat(self, c)
        elif kind == "monster_zone":   # Darkness Aura, Ink Cloud (dnd/spell_zones.py)
            spell_zones.monster_zone(self, c, opt.data[0])
        elif kind == "control":   # Eyebite, Wish (dnd/spell_control.py)
            spell_control.apply(self, c, p, opt)
        elif kind == "lights":   # move the dancing lights: where to (dnd/lighting.py)
            lighting.apply(self, c, p, opt)
        elif kind in spell_utility.KINDS:   # Mage Hand's use of the object, the servant's command
            spell_utility.apply(self, c, opt)
        elif kind in spell_walls.KINDS:   # a wall section attacked, a monster's wall raised
            spell_walls.apply(self, c, opt)
        elif kind == "plants":   # Tree Stride, a Transport via Plants link: the square next (dnd/spell_plants.py)
            spell_plants.apply(self, c, opt)
        elif kind == "form":   # the chosen form / object size (dnd/spell_summons.py)
            spell_summons.apply_form(self, c, p["use"], opt.data[0])
        elif kind == "spiritual_weapon":
            self.pending = {"kind": "target", "actor": c.cid, "use": ("weapon", "spiritual-weapon")}
        elif kind == "monster_invisibility":   # an imp's Invisibility: concentration, ends when it attacks
            c.economy.actions -= 1
            self.end_concentration(c)
            c.concentration = "invisibility"
            c.resources["concentration_until"] = self.round + 600
            c.conditions["invisible"] = {"by": c.cid, "spell": "invisibility", "ends_on_attack": True}
            self.event("invisibility", f"{c.cid} turns invisible", creature=c.cid)
            self._back_to_menu(c)
        elif kind == "divine_eminence":   # a bonus action and a slot: radiant dice on its melee hits this turn
            level = opt.data[0]
            c.economy.bonus = False
            slots = list(c.resources["slots"])
            slots[level - 1] -= 1
            c.resources["slots"] = tuple(slots)
            c.conditions["eminence"] = {"dice": f"{2 + level}d6", "until_turn_end": True}
            self.event("divine_eminence", f"{c.cid} spends a level {level} slot: +{2 + level}d6 radiant on "
                       "melee hits this turn", creature=c.cid)
            self._back_to_menu(c)
        elif kind == "consume_life":   # a will-o'-wisp: a Con save against this magic or die; it heals
            eat, t = c.resources["consume_life"], self.creatures[opt.data[0]]
            c.economy.bonus = False
            self.event("consume_life", f"{c.cid} feeds on {t.cid}'s life", creature=c.cid, target=t.cid)
            if not self.saving_throw(t, eat["ability"], eat["dc"], magic=True):
                self._die(t, "Consume Life")
                self.heal(c, self.roller.roll(eat["heal"], what=f"consume life {c.cid}"), "Consume Life")
            self._back_to_menu(c)
        elif kind == "children_of_the_night":   # a vampire
            self._call_children(c)
        elif kind == "create_specter":   # a wraith
            self._create_specter(c, self.creatures[opt.data[0]])
        elif kind == "leadership":   # 1 minute of a d4 for allies' attack rolls and saves
            c.economy.actions -= 1
            c.resources["uses:leadership"] = 0
            c.conditions["leading"] = {"until_round": self.round + 10}
            self.event("leadership", f"{c.cid} takes command: allies within 30 ft add a d4", creature=c.cid)
            self._back_to_menu(c)
        elif kind == "monster_heal":
            self.pending = {"kind": "target", "actor": c.cid, "use": ("monster_heal", "healing-touch")}
        elif kind == "aggressive":   # a destination decision for this move only
            c.economy.bonus = False
            c.resources["aggressive_move"] = c.economy.movement
            c.economy.movement = self._speed(c)
            if self._has_destination(c):
                self.pending = {"kind": "destination", "actor": c.cid}
            else:
                c.economy.movement = c.resources.pop("aggressive_move")
                self._back_to_menu(c)
        elif kind == "reckless":
            c.conditions["reckless"] = {"round": self.round}
            self.event("reckless", f"{c.cid} attacks recklessly", creature=c.cid)
            self._back_to_menu(c)
        elif kind == "rampage":   # half its speed more to move, and the bite it has earned
            c.economy.bonus = False
            c.economy.movement += self._speed(c) // 2
            c.resources.pop("rampage_ready", None)
            c.resources["rampage_bite"] = True
            self._back_to_menu(c)
        elif kind == "monster_teleport":   # a stat block's Teleport: where to, a destination decision
            self.pending = {"kind": "destination", "actor": c.cid,
                            "use": ("monster_teleport", opt.data[0], c.resources["teleports"][opt.data[0]])}
        elif kind == "turn_undead":
            self._turn_undead(c)
        elif kind == "save_action":
            self._start_save_action(c, opt.data[0], queued=len(opt.data) > 1)
        elif kind == "direction":
            self._resolve_area(c, p["use"], opt.data[0])
        elif kind == "point_x":
            self.pending = {"kind": "point_y", "actor": c.cid, "use": p["use"], "x": opt.data[0]}
        elif kind == "point_y":
            x, y = p["x"], opt.data[0]
            if len(self._point_heights(c, p["use"], x, y)) > 1:   # z given x and y
                self.pending = {"kind": "point_z", "actor": c.cid, "use": p["use"], "x": x, "y": y}
            else:
                self._resolve_area(c, p["use"], (x, y))
        elif kind == "point_z":
            self._resolve_area(c, p["use"], (p["x"], p["y"], opt.data[0]))
        elif kind == "item" or (kind == "potion" and opt.data):   # an inventory item (dnd/items.py)
            _items.use_item(self, c, opt.data)
        elif kind.startswith("ms_"):   # a monster's own action (dnd/monster_specials.py)
            monster_specials.apply(self, c, p, opt)
        else:
            self._simple_action(c, kind)

    def _back_to_menu(self, c: Combatant) -> None:
        if self.outcome is not None:
            return
        if not c.conscious or c.incapacitated:
            self._end_turn(c, silent=True)
            return
        self.pending = {"kind": "action", "actor": c.cid}

    def _simple_action(self, c: Combatant, kind: str) -> None:
        e = c.economy
        if kind == "stand":
            e.movement -= self._speed(c) // 2
            del c.conditions["prone"]
            self.event("stand", f"{c.cid} stands up", creature=c.cid)
        elif kind in ("dash", "cunning_dash"):
            self._spend(c, bonus=kind == "cunning_dash")
            e.movement += self._speed(c)
            self.event("dash", f"{c.cid} dashes", creature=c.cid)
        elif kind in ("disengage", "cunning_disengage"):
            self._spend(c, bonus=kind == "cunning_disengage")
            e.disengaged = True
            self.event("disengage", f"{c.cid} disengages", creature=c.cid)
        elif kind in ("hide", "cunning_hide"):
            self._spend(c, bonus=kind == "cunning_hide")
            roll = self.roller.roll_d20(features_more.stealth_advantage(c), self._check_dis(c), bonus=self._stealth(c),
                                        what=f"stealth {c.cid}")   # (Supreme Sneak)
            roll = roll._replace(total=features_more.check_total(c, "dex", roll.natural, roll.total, True))
            need = max((self._passive_perception(o) - (lighting.perception_penalty(self, o, c)   # dim light, Enthrall
                                                       if o.conditions or self.zones else 0)
                        for o in self.enemies_of(c) if o.conscious), default=0)
            roll = roll._replace(total=features_more.peerless(self, c, roll.total, need))   # (Peerless Skill)
            ok = roll.total >= need   # SRD: Stealth against the passive Perception of those looking
            if ok:
                c.conditions["hidden"] = {"stealth": roll.total}
            self.event("hide", f"{c.cid} {'hides' if ok else 'fails to hide'} (Stealth {roll.total} vs {need})",
                       creature=c.cid, success=ok)
        elif kind == "ready":
            self._spend(c)
            best = max((a for a in c.attacks if a.melee and ("swallow",) not in a.on_hit),
                       key=lambda a: (expected_damage(a), a.key))
            c.conditions["readied"] = {"attack": best.key}
            self.event("ready", f"{c.cid} readies an attack with {best.key}", creature=c.cid)
        elif kind == "dodge":
            self._spend(c)
            c.dodging = True
            self.event("dodge", f"{c.cid} takes the Dodge action", creature=c.cid)
        elif kind == "help":
            self.pending = {"kind": "target", "actor": c.cid, "use": ("help", "Help")}
            return
        elif kind == "escape_web":
            self._spend(c)
            ability, dc = c.conditions["restrained"]["escape"]
            roll = self.roller.roll_d20(False, self._check_dis(c), bonus=c.mod(ability) + features.check_bonus(c, ability),
                                        what=f"break free {c.cid}")
            roll = roll._replace(total=features_more.check_total(c, ability, roll.natural, roll.total, False))
            roll = roll._replace(total=features_more.peerless(self, c, roll.total, dc))   # (Peerless Skill)
            if roll.total >= dc:
                del c.conditions["restrained"]
            self.event("escape", f"{c.cid} {'bursts' if roll.total >= dc else 'fails to burst'} the webbing "
                       f"({roll.total} vs {dc})", creature=c.cid, success=roll.total >= dc)
        elif kind == "escape":
            self._spend(c)
            g = c.conditions["grappled"]
            roll = self.roller.roll_d20(False, self._check_dis(c), bonus=self._escape_bonus(c) + spell_buffs.check_die(self, c),
                                        what=f"escape {c.cid}")   # Guidance
            if g.get("dc") is None:   # a PC's grapple: contested by the grappler's Athletics
                grappler = self.creatures[g["by"]]
                dc = self.roller.roll_d20(bonus=self._athletics(grappler), what=f"hold {grappler.cid}").total
                ok = roll.total > dc   # a tie leaves the grapple as it is
            else:
                dc = g["dc"]
                ok = roll.total >= dc
            if ok:
                self._release(c)
            self.event("escape", f"{c.cid} {'escapes the grapple' if ok else 'fails to escape'} "
                       f"({roll.total} vs {dc})", creature=c.cid, success=ok)
        elif kind == "potion":
            self._spend(c)
            c.resources["potions"] -= 1
            self.heal(c, self.roller.roll("2d4+2", what=f"potion {c.cid}"), "a potion of healing")
        elif kind == "second_wind":
            e.bonus = False
            c.resources["second_wind"] -= 1
            self.heal(c, self.roller.roll(f"1d10+{c.level}", what=f"second wind {c.cid}"), "Second Wind")
        elif kind == "interact":
            e.object_use = False
            self.objective["done"] = True
            self.event("interact", f"{c.cid} uses the {self.objective['name']}", creature=c.cid)
        elif kind == "action_surge":
            c.resources["action_surge"] -= 1
            e.actions += 1
            e.surged = True
            self.event("action_surge", f"{c.cid} surges: one more action", creature=c.cid)
        self._back_to_menu(c)

    def _unseen(self, c: Combatant) -> bool:
        """Hiding needs no conscious foe with a line of sight to it (walls, obscurement)."""
        if self.zones:   # Darkness, Fog Cloud: their squares hide too (dnd/spell_zones.py)
            return not any(self.map.can_see(o.cells, c.cells, viewer_z=o.pos[2], target_z=c.pos[2])
                           and spell_zones.sees(self, o, c) for o in self.enemies_of(c) if o.conscious)
        return not any(self.map.can_see(o.cells, c.cells, viewer_z=o.pos[2], target_z=c.pos[2])
                       for o in self.enemies_of(c) if o.conscious)

    def _stealth(self, c: Combatant) -> int:
        aura = spell_control.stealth_aura(self, c) if self.controls else 0   # Pass without Trace
        if c.is_pc:   # our builds: rogues are trained in Stealth
            return aura + c.mod("dex") + (c.prof if c.pc_class == "rogue" else features.check_bonus(c, "dex"))
        return aura + self._skill(c, "stealth", "dex")

    @staticmethod
    def _passive_perception(o: Combatant) -> int:
        if o.is_pc:
            return 10 + o.mod("wis")
        return content.monster(o.monster).senses.get("passive_perception", 10 + o.mod("wis"))

    def _object_in_reach(self, c: Combatant) -> bool:
        obj = self.objective
        if obj["type"] != "interact" or obj.get("done") or c.side != self.party_side or not c.economy.object_use:
            return False
        x, y = obj["object"]
        return box_distance_ft(c.pos[0], c.pos[1], c.squares, c.pos[2], x, y, 1,
                               self.map.elevation_at(x, y)) <= SQUARE_FT

    def _flying(self, c: Combatant) -> bool:
        """Can fly now: a fly speed, not prone, not held or paralyzed (speed 0)."""
        return spellbook.fly_speed(c) > 0 and c.conscious and "prone" not in c.conditions and \
            not any(k in c.conditions for k in ZERO_SPEED) and c.exhaustion < 5

    def _falls(self) -> None:
        """SRD: a flyer knocked prone, with its speed reduced to 0 or unable to move falls, unless
        it can hover: 1d6 bludgeoning per 10 ft fallen, and it lands prone."""
        if self.move_state is not None:
            return   # mid-move (a reaction pending): positions in the air are part of the flight
        standing_z, low = self.map.standing_z, self.map._min_layer * SQUARE_FT   # low: the lowest floor
        if all(c.pos[2] <= low or c.pos[2] <= standing_z(c.pos[0], c.pos[1], c.squares)
               for c in self.creatures.values()):
            return   # nobody is above the floor: nobody falls (the common case, checked cheaply)

        def held_up(c, ground):
            return c.pos[2] <= ground or (self._flying(c) and not c.dead) or (c.hover and c.conscious) \
                or (self.zones and spell_zones.aloft(c))   # held up by Reverse Gravity
        if all(held_up(c, standing_z(c.pos[0], c.pos[1], c.squares)) for c in self.creatures.values()):
            return   # flyers aloft and nobody else: asking changes nothing, so no sorted pass
        for c in sorted(self.creatures.values(), key=lambda o: o.cid):
            ground = standing_z(c.pos[0], c.pos[1], c.squares)
            if held_up(c, ground):
                continue
            height = c.pos[2] - ground
            if spell_buffs.feather_fall(self, c, height):   # a reaction: no damage, lands on its feet
                c.pos = (c.pos[0], c.pos[1], ground)
                continue
            c.pos = (c.pos[0], c.pos[1], ground)
            self.event("fall", f"{c.cid} falls {height} ft", creature=c.cid, height=height)
            n = fall_damage_dice(height)
            if n and not c.dead:
                self.damage(c, features_more.slow_fall(self, c, self.roller.roll_damage(f"{n}d6", what=f"fall {c.cid}")),
                            "bludgeoning", source="fall")   # (Slow Fall)
            if not c.dead and "prone" not in c.condition_immunities:
                c.conditions.setdefault("prone", {})

    def _spend(self, c: Combatant, bonus: bool = False) -> None:
        if bonus:
            c.economy.bonus = False
        else:
            c.economy.actions -= 1

    # ---------------------------------------------------------------- movement
    def _choose_destination(self, c: Combatant, dest: tuple) -> None:
        threats = {}
        fly = self._flying(c)
        alt = self.max_altitude_ft if fly else None
        if not c.economy.disengaged and not ("flyby" in c.features and fly):   # Flyby: no OAs
            for o in self.enemies_of(c):
                if o.conscious and not o.incapacitated and o.economy.reaction and o.melee_reach \
                        and not (self.zones and not spell_zones.sees(self, o, c)):   # unseen: no opportunity attack
                    threats[o.cid] = self.map.threat_area(o.cells, o.melee_reach, c.size, enemy_z=o.pos[2],
                                                          fly=fly, max_altitude_ft=alt)
        hostile, friends = self._movement_cells(c)
        # Routes differ in consequences only near threats or hazards. Without threats, a cheapest
        # path that crosses no hazard dominates every other route: no need to search.
        r = self._reach(c)
        crosses = self.map.hazard_cells and any(
            self.map.hazard_at(x, y) for p in r.path(dest) for x, y in footprint(p[0], p[1], c.squares))
        if threats and not crosses and not _leaves_a_reach(r.path(dest), threats, fly):
            threats = {}   # the cheapest path provokes nothing: it dominates every other route
        routes = features_last.walk_map(self, c).routes(c.pos, dest, c.size, c.economy.movement,
                                                         threat_cells_by_creature=threats,
                                 blocked_by=hostile, pass_through=friends, fly=fly,
                                 max_altitude_ft=alt,
                                 swim_speed=c.resources.get("swim", 0) or ("water_walk" in c.conditions),
                                 climb_speed=spell_buffs.climb_speed(self, c) if c.conditions else 0,
                                 difficult_extra=spell_zones.difficult_cells(self, c) if self.zones else ()) \
            if threats or crosses else []
        if len(routes) > 1:
            self.pending = {"kind": "route", "actor": c.cid, "routes": routes}
            return
        if routes:
            self._start_move(c, routes[0])
            return
        self._start_move(c, _PathRoute(r.costs[dest], r.path(dest)))

    def _start_move(self, c: Combatant, route) -> None:
        c.economy.movement -= route.cost_ft
        if "aggressive_move" in c.resources:   # the Aggressive move spent: its own movement is back
            c.economy.movement = c.resources.pop("aggressive_move")
        c.economy.moved += route.cost_ft
        if "charge" in c.resources:   # Charge / Pounce: where this run began, this turn
            c.resources["charge_run"] = {"from": tuple(c.pos), "ft": route.cost_ft, "round": self.round}
        self._release_grapples_by(c)   # simplification: a grappler that walks away lets go
        self.move_state = {"mover": c.cid, "path": tuple(route.path), "i": 0, "asked": ()}
        if c.resources.pop("legendary_move", False):
            self.move_state["then"] = "next_turn"
        self._continue_move()

    def _continue_move(self) -> None:
        ms = self.move_state
        c = self.creatures[ms["mover"]]
        path = ms["path"]
        while ms["i"] < len(path) - 1 and c.conscious:
            here, nxt = path[ms["i"]], path[ms["i"] + 1]
            c.pos = tuple(here)
            if not c.economy.disengaged and not ("flyby" in c.features and self._flying(c)):   # Flyby: no OAs
                for o in sorted(self.enemies_of(c), key=lambda o: o.cid):
                    if o.cid in ms["asked"] or not o.conscious or o.incapacitated \
                            or not (o.economy.reaction or o.resources.get("oa_extra", 0) > 0) \
                            or "swallowed" in o.conditions \
                            or self._inside_apart(o, c) \
                            or (self.zones and not spell_zones.sees(self, o, c)):   # SRD: a creature it can see
                        continue
                    melee = [a for a in o.attacks if a.melee and ("swallow",) not in a.on_hit]   # not a Swallow
                    if not melee:
                        continue
                    reach = max(a.reach for a in melee)
                    if self.distance_from(c, here, o) <= reach < self.distance_from(c, nxt, o):
                        at = self.distance_from(c, here, o)   # a weapon that reaches the mover from here
                        best = max((a for a in melee if a.reach >= at), key=lambda a: (expected_damage(a), a.key))
                        ms["asked"] = ms["asked"] + (o.cid,)
                        self.pending = {"kind": "reaction", "actor": o.cid, "mover": c.cid, "attack": best.key}
                        self._cache = None
                        return
            ms["i"] += 1
            c.pos = tuple(path[ms["i"]])
            self._enter_hazards(c, c.pos)
            if self.zones:   # Spike Growth's thorns, Sleet Storm's footing (dnd/spell_zones.py)
                spell_zones.on_step(self, c)
            if self.wards:   # a glyph stepped on, a glowing Symbol entered (dnd/spell_wards.py)
                spell_wards.on_step(self, c)
            if "_spell_summons" in self.__dict__:   # Guardian of Faith (dnd/spell_summons.py)
                spell_summons.on_step(self, c)
            if self._readied_trigger(c, here):
                return
            for g in self._guardians():   # entering Spirit Guardians' area
                if g.side != c.side and c.conscious and self.distance_from(c, here, g) > GUARDIANS_FT \
                        >= self.distance(c, g):
                    self._zone_damage(g, c)
        if c.conscious:
            c.pos = tuple(path[ms["i"]])
            self.event("move", f"{c.cid} moves to ({c.pos[0]}, {c.pos[1]})", creature=c.cid, pos=list(c.pos))
            if "ridden" in c.conditions:   # its rider moves with it (dnd/items.py)
                _items.carry_rider(self, c)
            for o in self._swallowed_by(c):   # and those it swallowed
                o.pos = tuple(c.pos)
            for o in self._engulfed_by(c):   # an engulfed creature moves with the mound, beside it
                o.pos = self._free_spot_beside(c, o.squares, exclude=o) or o.pos
        self.move_state = None
        if not self._check_outcome():
            if ms.get("then") == "next_turn":   # a legendary move, between turns
                self._next_turn()
                return
            self._back_to_menu(self.creatures[ms["mover"]] if self.active is None else self.active)

    def _readied_trigger(self, c: Combatant, here: tuple) -> bool:
        """A readied attack's trigger: the mover has just come within the reactor's reach."""
        ms = self.move_state
        for o in sorted(self.enemies_of(c), key=lambda o: o.cid):
            ready = o.conditions.get("readied")
            if ready and all(a.key != ready["attack"] for a in o.attacks):   # the form that readied it is gone
                del o.conditions["readied"]                                   # (a druid back from Wild Shape)
                continue
            if not ready or o.incapacitated or not o.economy.reaction or not c.conscious:
                continue
            reach = o.attack(ready["attack"]).reach
            if self.distance_from(c, here, o) > reach >= self.distance(c, o):
                ms["asked"] = ms["asked"] + (o.cid,)
                self.pending = {"kind": "reaction", "actor": o.cid, "mover": c.cid, "attack": ready["attack"],
                                "reaction": "readied"}
                self._cache = None
                return True
        return False

    def _enter_hazards(self, c: Combatant, pos: tuple) -> None:
        """Damage for each hazard square the creature's space moves onto (spikes, fire)."""
        if "ms" in c.resources:   # Fire Form, Water Susceptibility (dnd/monster_specials.py)
            monster_specials.on_step(self, c, pos)
        if pos[2] > self.map.standing_z(pos[0], pos[1], c.squares):
            return   # flying over it
        for cell in footprint(pos[0], pos[1], c.squares):
            hz = self.map.hazard_at(*cell)
            if hz and hz.get("damage") and c.conscious:
                amount = self.roller.roll_damage(hz["damage"], what=f"hazard {hz['kind']}")
                self.event("hazard", f"{c.cid} enters {hz['kind']} at ({cell[0]}, {cell[1]})", creature=c.cid)
                if hz.get("save") and self.saving_throw(c, hz["save"], hz["dc"], magic=True):
                    amount //= 2   # a hazard with a save: half on a success (Wall of Ice's frigid air)
                self.damage(c, amount, hz.get("damage_type", hz["kind"]), source=hz["kind"])

    def _resolve_reaction(self, reactor: Combatant, p: dict, take: bool) -> None:
        if p.get("reaction") in ("shield", "uncanny_dodge", "parry"):
            st, self.attack_state = self.attack_state, None
            if take and p["reaction"] == "shield":
                self._cast_shield(reactor)
                st = dict(st, ac=st["ac"] + 5, hit=st["total"] >= st["ac"] + 5)
            elif take and p["reaction"] == "parry":   # +AC against this one attack only
                reactor.economy.reaction = False
                bonus = reactor.resources["parry"]
                self.event("reaction", f"{reactor.cid} parries (+{bonus} AC)", creature=reactor.cid)
                st = dict(st, ac=st["ac"] + bonus, hit=st["total"] >= st["ac"] + bonus)
            elif take:
                reactor.economy.reaction = False
                self.event("reaction", f"{reactor.cid} uses Uncanny Dodge: half damage", creature=reactor.cid)
                st = dict(st, halve=True)
            if self._land(st) is None:
                return   # the attacker decides on a rider first (Divine Smite)
            if self._check_outcome():
                return
            self._after_attack(st["then"], self.creatures[st["attacker"]])
            return
        mover = self.creatures[p["mover"]]
        if take:
            if p.get("reaction") != "readied" and reactor.resources.get("oa_extra", 0) > 0:
                reactor.resources["oa_extra"] -= 1   # Reactive Heads: one for opportunity attacks only
            else:
                reactor.economy.reaction = False
            what = "its readied attack" if p.get("reaction") == "readied" else "an opportunity attack"
            reactor.conditions.pop("readied", None)
            self.event("reaction", f"{reactor.cid} makes {what} on {mover.cid}",
                       creature=reactor.cid, target=mover.cid)
            if self.make_attack(reactor, reactor.attack(p["attack"]), mover, melee=True, then="move") is None:
                return   # the mover reacts first (Shield)
        if self._check_outcome():
            return
        self._continue_move()

    def _after_attack(self, then: str, attacker: Combatant) -> None:
        """Carry on after an attack that waited for a reaction."""
        if then == "move":
            self._continue_move()
        elif then == "menu":
            self._back_to_menu(self.active)
        elif then == "next_turn":   # a legendary attack, between turns
            self._next_turn()

    # ---------------------------------------------------------------- attacks
    def attack_modifiers(self, c: Combatant, t: Combatant, melee: bool, a: AttackProfile | None = None):
        """(advantage, disadvantage, reasons) for c attacking t (SRD conditions, Dodge, Help, range)."""
        adv, dis = [], []
        dist = self.distance(c, t)
        for k in ("prone", "restrained", "blinded", "poisoned"):
            if k in c.conditions:
                dis.append(f"attacker {k}")
        fear = c.conditions.get("frightened")
        if fear and fear.get("by") in self.creatures and not self.creatures[fear["by"]].dead:
            dis.append("attacker frightened")
        if c.exhaustion >= 3:
            dis.append("attacker exhausted")
        if "invisible" in c.conditions and not spellbook.sees_invisible(t):   # See Invisibility
            adv.append("attacker invisible")
        if "hidden" in c.conditions:   # an unseen attacker
            adv.append("attacker hidden")
        if "hidden" in t.conditions:   # guessing where it is
            dis.append("target hidden")
        if "invisible" in t.conditions and not spellbook.sees_invisible(c):
            dis.append("target invisible")
        if "prone" in t.conditions:
            (adv if dist <= SQUARE_FT else dis).append("target prone")
        for k in ("restrained", "blinded", "paralyzed", "petrified", "stunned"):
            if k in t.conditions:
                adv.append(f"target {k}")
        if not t.conscious or "unconscious" in t.conditions:
            adv.append("target unconscious")
        if "guided" in t.conditions:
            adv.append("guided")
        chill = c.conditions.get("chilled")
        if chill and chill.get("undead") and chill["by"] == t.cid:
            dis.append("chilled")
        if a is not None and a.heavy and c.size == "small":
            dis.append("heavy weapon, Small attacker")
        if a is not None and a.key == "shocking-grasp" and t.metal_armor:
            adv.append("metal armour")
        if t.dodging and not t.incapacitated:
            dis.append("target dodging")
        helped = t.conditions.get("helped")
        if helped and self.creatures[helped["by"]].side == c.side:
            adv.append("helped")
        for k, v in sorted(t.conditions.items()):   # spellbook flags: Faerie Fire, Blur
            if v.get("attacked_adv") or (v.get("attacked_adv_by_caster") and v.get("by") == c.cid):
                adv.append(f"target {k}")
            if v.get("attacked_dis") or c.creature_type in v.get("attacked_dis_types", ()):
                dis.append(f"target {k}")
        dis.extend(f"attacker {k}" for k, v in sorted(c.conditions.items()) if v.get("attack_dis"))
        adv.extend(spell_buffs.attack_adv(c))   # Foresight
        if "breath_weakened" in c.conditions and melee and a is not None and not a.finesse and not a.spell:
            dis.append("weakened (Strength attack)")   # Weakening Breath: Str-based attack rolls
        if "reckless" in c.conditions and melee:
            adv.append("reckless")
        if "assassinate" in c.features and self.round == 1 and t.cid in self.order \
                and self.order.index(t.cid) > self.turn_index:   # Assassinate: it has not taken a turn yet
            adv.append("assassinate")
        if "reckless" in t.conditions:
            adv.append("target reckless")
        if "pack_tactics" in c.features and any(
                o is not c and o.conscious and not o.incapacitated and self.distance(o, t) <= SQUARE_FT
                for o in self.allies_of(c)):
            adv.append("pack tactics")
        if "blood_frenzy" in c.features and melee and t.hp < t.max_hp:
            adv.append("blood frenzy")
        if "grappler" in c.features and t.conditions.get("grappled", {}).get("by") == c.cid:
            adv.append("grappler")   # a mimic against the creature it holds
        if not melee:
            if a is not None and a.range_normal and dist > a.range_normal:
                dis.append("long range")
            if any(o.conscious and not o.incapacitated and self.distance(c, o) <= SQUARE_FT
                   for o in self.enemies_of(c)):
                dis.append("hostile within 5 ft")
        features.attack_modifiers(self, c, t, melee, a, adv, dis)   # Reckless Attack, Elusive
        if self.zones:   # Darkness, Fog Cloud...: unseen attackers and targets (dnd/spell_zones.py)
            spell_zones.sight_modifiers(self, c, t, adv, dis)
        if self.wards:   # a target inside a Magic Circle against the attacker's type (dnd/spell_wards.py)
            spell_wards.attack_modifiers(self, c, t, dis)
        if a is not None and getattr(self, "underwater", False):   # SRD underwater combat (dnd/items.py)
            dis.extend(_items.underwater_disadvantage(c, a, melee))
        return bool(adv), bool(dis), adv + dis

    def make_attack(self, c: Combatant, a: AttackProfile, t: Combatant, melee: bool | None = None,
                    then: str = "none") -> bool | None:
        """Roll one attack with all its consequences; True on a hit, False on a miss, None when
        the target gets a reaction decision first (Shield): the attack then finishes in
        :meth:`_resolve_reaction` and continues with ``then`` ("menu", "move" or "none")."""
        if melee is None:
            melee = self._attack_range(c, a, t) == "melee"
        a = spellbook.weapon_form(c, a)   # Shillelagh
        c.conditions.pop("sanctuary", None)   # the ward ends when the warded creature attacks
        vanished = [k for k, v in c.conditions.items() if v.get("ends_on_attack")]   # Invisibility
        for k in vanished:
            del c.conditions[k]
        hidden = c.conditions.pop("hidden", None)   # attacking reveals the attacker (after this roll)
        if t.is_pc and "natures_sanctuary" in t.features and features_more.sanctuary_turns(self, c, t, a):
            return False   # Nature's Sanctuary: a beast or plant that fails its save loses the attack
        ward = t.conditions.get("sanctuary")
        if ward and not self.saving_throw(c, "wis", ward["dc"], magic=True):
            # simplification: the attack is lost (the SRD also allows picking another target)
            self.event("attack", f"{c.cid}'s attack on {t.cid} is turned aside by sanctuary", attacker=c.cid,
                       target=t.cid, attack=a.key, hit=False, critical=False, total=0, ac=0)
            return False
        if a.ammo and not melee:   # SRD ammunition: each attack expends one piece
            c.resources[a.ammo] = max(0, c.resources.get(a.ammo, 0) - 1)
        if "ms" in t.resources and a.spell and not melee:   # a tarrasque's Reflective Carapace
            handled, result = monster_specials.carapace_attack(self, c, a, t, then)
            if handled:
                return result
        if spellbook.images_take(self, c, t, a):   # Mirror Image: a duplicate takes the attack
            return False
        adv, dis, reasons = self.attack_modifiers(c, t, melee, a)
        if t.is_pc and features_more.defend(self, c, t, melee, then, reasons):   # Protection, Escape the Horde
            dis = True
        if "invisible" in vanished:   # the attack that ends invisibility is still made unseen
            adv, reasons = True, [*reasons, "attacker invisible"]
        if hidden is not None:   # this attack still has the unseen attacker's advantage
            adv, reasons = True, [*reasons, "attacker hidden"]
        if "helped" in reasons:
            del t.conditions["helped"]   # Help grants the first attack only
        if "guided" in reasons:
            del t.conditions["guided"]   # Guiding Bolt: the next attack roll only
        cover = self.cover(c, t)
        ac = self.armour_class(t) + (cover.bonus or 0)
        if "amulet_of" in t.resources:   # a shield guardian's Shield reaction for its amulet's wearer
            ac += monster_specials.guardian_shield(self, c, t)
        bonus = a.to_hit + features.attack_bonus(self, c, t, a)   # Sacred Weapon; notes the attack (Rage)
        bonus += spellbook.attack_bonus(c, a)   # Magic Weapon
        bonus -= spell_buffs.attack_penalty(c)   # Raise Dead's -4
        if "blessed" in c.conditions:   # Bless +1d4, Bane -1d4 on attack rolls
            bonus += self.roller.roll("1d4", what=f"bless {c.cid}")
        bonus += self._leadership_die(c)   # a knight's Leadership
        if "baned" in c.conditions:
            bonus -= self.roller.roll("1d4", what=f"bane {c.cid}")
        roll = self.roller.roll_d20(adv, dis, bonus=bonus, what=f"attack {c.cid}->{t.cid} {a.key}")
        crit = roll.natural >= features.crit_min(c)   # 20, or 19-20 / 18-20 (Champion)
        hit = crit or (roll.natural != 1 and roll.total >= ac)
        total = roll.total
        if not hit and c.is_pc:   # Bardic Inspiration, Stroke of Luck
            total, hit = features.rescue_attack(self, c, total, ac, roll.natural)
        # SRD: a melee hit on an unconscious or paralyzed creature within 5 ft is a critical hit
        if hit and melee and (not t.conscious or "unconscious" in t.conditions or "paralyzed" in t.conditions) \
                and self.distance(c, t) <= SQUARE_FT:
            crit = True
        state = {"attacker": c.cid, "target": t.cid, "attack": a, "melee": melee, "hit": hit, "crit": crit,
                 "adv": adv, "dis": dis, "total": total, "ac": ac, "mode": roll.advantage, "then": then}
        reaction = None
        if hit and not crit and total < ac + 5 and self._can_shield(t):
            reaction = "shield"
        elif hit and "uncanny_dodge" in t.features and not t.incapacitated and t.economy.reaction:
            reaction = "uncanny_dodge"
        elif hit and melee and not crit and "parry" in t.features and not t.incapacitated and t.economy.reaction \
                and roll.total < ac + t.resources["parry"] and "blinded" not in t.conditions \
                and "invisible" not in c.conditions:   # SRD Parry: it must see the attacker
            reaction = "parry"
        elif hit and features.can_deflect(self, t, a, melee):
            reaction = "deflect_missiles"
        elif hit and not crit and features.cutting_words(self, c, t, state):   # a bard ally's reaction
            reaction = "cutting_words"
        if reaction:
            self.attack_state = state
            self.pending = {"kind": "reaction", "actor": state.get("reactor", t.cid), "reaction": reaction,
                            "attacker": c.cid, "prompt": state.get("reactor_prompt")}
            self._cache = None
            return None
        if hit and a.key == "rock" and "rock_catching" in t.features and t.economy.reaction and not t.incapacitated:
            t.economy.reaction = False   # Rock Catching (always worth it, so taken without a decision)
            caught = self.saving_throw(t, "dex", 10)
            self.event("rock_catching", f"{t.cid} {'catches' if caught else 'fails to catch'} the rock",
                       creature=t.cid, success=caught)
            if caught:   # no damage from it
                self.event("attack", f"{c.cid}'s rock is caught by {t.cid}", attacker=c.cid, target=t.cid,
                           attack=a.key, total=total, ac=ac, hit=False, critical=False)
                return False
        before = t.hp + t.temp_hp
        out = self._land(state)
        if out and "hellish-rebuke" in t.spells and spell_buffs.offer_rebuke(self, c, t, then, before):
            return None   # the damaged creature decides on Hellish Rebuke first
        if (c.is_pc or t.is_pc) and features_last.after_attack(self, c, t, a, melee, out, then, before):
            return None   # Retaliation, Giant Killer, Stand Against the Tide, Hurl Through Hell
        return out

    def armour_class(self, t: Combatant) -> int:
        """AC with the spells up on it: Shield +5, Shield of Faith +2."""
        base = max(t.ac, 13 + t.dex_mod) if "mage_armor" in t.conditions else t.ac
        base = max([base] + [v["ac_min"] for v in t.conditions.values() if "ac_min" in v])   # Barkskin
        base += sum(v.get("ac", 0) for v in t.conditions.values())   # spellbook flags: Haste +2, Slow -2
        return base + (5 if "shield" in t.conditions else 0) + (2 if "shield_of_faith" in t.conditions else 0)

    def _can_shield(self, t: Combatant) -> bool:
        return ("shield" in t.spells and not t.incapacitated and t.economy.reaction and "shield" not in t.conditions
                and (any(t.resources.get("slots", ())) or t.resources.get("innate", {}).get("shield", 0) != 0))

    def _land(self, st: dict) -> bool:
        """The rest of an attack once the roll stands: the event, damage, on-hit effects."""
        c, t, a = self.creatures[st["attacker"]], self.creatures[st["target"]], st["attack"]
        hit, crit = st["hit"], st["crit"]
        mode = st["mode"]
        if not st.get("rider_done"):   # logged once, not again when a rider decision resumes it
            self.event("attack", f"{c.cid} {'crits' if crit else ('hits' if hit else 'misses')} {t.cid} with "
                       f"{a.key} ({st['total']} vs AC {st['ac']}{', ' + mode if mode != 'none' else ''})",
                       attacker=c.cid, target=t.cid, attack=a.key, total=st["total"], ac=st["ac"], hit=hit,
                       critical=crit)
        if not hit:
            return False
        if not st.get("rider_done") and features.rider_options(self, c, t, st):
            # Divine Smite / Stunning Strike / Open Hand: the attacker decides before the damage
            self.attack_state = st
            self.pending = {"kind": "reaction", "actor": c.cid, "reaction": "rider", "attacker": c.cid,
                            "prompt": f"{c.cid}: you hit {t.cid}; add a rider?"}
            self._cache = None
            return None
        melee = st["melee"]
        parts = list(a.damage)
        if melee and "eminence" in c.conditions:   # a priest's Divine Eminence
            parts.append(DamagePart(c.conditions["eminence"]["dice"], "radiant"))
        weak = c.resources.get("swarm_half_hp", {}).get(a.key)
        if weak and c.hp <= c.max_hp // 2:   # a swarm at half its hit points or fewer: the lesser dice
            parts = [DamagePart(d, ty) for d, ty in weak]
        if "sneak_attack" in c.features and not c.economy.sneak_used \
                and (a.finesse or not melee or c.kind == "monster") \
                and self.sneak_attack_allowed(c, t, st["adv"], st["dis"]):   # a monster's: any weapon
            c.economy.sneak_used = True
            parts.append(DamagePart(c.resources["sneak_attack_dice"], parts[0].type))
            self.event("sneak_attack", f"{c.cid} adds Sneak Attack ({c.resources['sneak_attack_dice']})",
                       creature=c.cid)
        parts += [DamagePart(d, ty) for d, ty, types in c.resources.get("slaying", {}).get(a.key, ())
                  if t.creature_type in types]   # a slayer weapon's extra damage (dnd/items.py)
        parts += spellbook.hit_parts(self, c, t, a)   # Divine Favor, Branding Smite, Hunter's Mark
        if parts and "martial_advantage" in c.features and not c.economy.sneak_used and any(
                o.conscious and not o.incapacitated and o is not c and self.distance(o, t) <= SQUARE_FT
                for o in self.allies_of(c)):   # Martial Advantage: once a turn, an ally next to the target
            c.economy.sneak_used = True
            parts.append(DamagePart(c.resources["martial_advantage_dice"], parts[0].type))
            self.event("martial_advantage", f"{c.cid} adds Martial Advantage", creature=c.cid)
        charge = self._charge_hit(c, t, a) if c.kind == "monster" else None
        if charge:   # a monster's Charge: the trait's extra dice (of the attack's type when unnamed)
            parts += [DamagePart(d["dice"], d["type"] or parts[0].type) for d in charge.get("extra_damage", ())]
        # class features: rage, smite, Colossus Slayer, Brutal Critical (not doubled), ...
        for part, doubles in features.damage_parts(self, c, t, a, st, parts):
            amount = features.roll_damage(self, c, a, part.dice, crit and doubles,
                                          f"damage {a.key} {part.type}")   # Great Weapon Fighting
            if st.get("halve"):   # Uncanny Dodge
                amount //= 2
            amount = features.reduce_damage(st, amount)   # Deflect Missiles
            if c.conditions:   # Ray of Enfeeblement
                amount = spell_buffs.weakened(c, a, melee, amount)
            self.damage(t, amount, part.type, magical=a.spell, critical=crit, source=c.cid)
        if t.conscious:
            for effect in a.on_hit:
                self._on_hit(c, t, effect)
        if charge and charge.get("save") and not t.dead:
            self._charge_save(c, t, charge)
        if "rampage" in c.resources and melee and t.hp == 0 and self.active is c and c.economy.bonus:
            c.resources["rampage_ready"] = True   # Rampage: it dropped a creature in melee on its turn
        if "heated_body" in t.resources and melee and not c.dead and self.distance(c, t) <= SQUARE_FT:
            for dice, dtype in t.resources["heated_body"]:   # Heated Body burns the attacker
                self.damage(c, self.roller.roll_damage(dice, what=f"heated body {t.cid}"), dtype, magical=True,
                            source=t.cid)
        if melee:
            spellbook.retort(self, c, t)   # Fire Shield
        if "ms" in t.resources or "ms" in c.resources:   # Rust Metal, Corrosive Form, a burning touch
            monster_specials.after_hit(self, c, t, a, melee)
        features.after_hit(self, c, t, st)   # Stunning Strike's save, Open Hand
        return True

    def _touch_heal_targets(self, c: Combatant) -> list[Combatant]:
        """Healing Touch: another hurt, living creature of its side within 5 ft."""
        return [o for o in self.allies_of(c) if o.hp < o.max_hp and self.distance(c, o) <= SQUARE_FT]

    @staticmethod
    def _sure_footed(t: Combatant, ability: str, conditions) -> bool:
        """Sure-Footed: advantage on Str and Dex saves against being knocked prone."""
        return "sure_footed" in t.features and ability in ("str", "dex") and "prone" in conditions

    def _ally_ward(self, t: Combatant, cond: str) -> bool:
        """Steadfast: the condition cannot take hold while t sees an ally within the ward's range
        (not blinded, the ally visible and not behind total cover)."""
        ward = t.resources.get("ally_ward")
        return bool(ward) and cond in ward["conditions"] and "blinded" not in t.conditions and any(
            self.distance(t, o) <= ward["feet"] and "invisible" not in o.conditions
            and self.line_of_effect(t, o) for o in self.allies_of(t))

    def _monster_auras(self, c: Combatant) -> None:
        """Start of c's turn: the Stench and Petrifying Gaze of foes around it (a gaze needs the
        two to see each other: no total cover, c not blinded, the gazer not invisible)."""
        for o in sorted(self.enemies_of(c), key=lambda o: o.cid):
            if not c.conscious:
                return
            if o.incapacitated:
                continue
            for res, cond in (("stench", "poisoned"), ("fear_aura", "frightened")):   # Stench, Fear Aura
                aura, tag = o.resources.get(res), f"{o.cid}:{res}"
                if not aura or self.distance(o, c) > aura["radius"] or tag in c.resources.get("immune_to", ()):
                    continue
                if self.saving_throw(c, aura["ability"], aura["dc"], condition=cond):   # a success: immune 24 hours
                    c.resources["immune_to"] = tuple(c.resources.get("immune_to", ())) + (tag,)
                elif cond not in c.condition_immunities and not self._ally_ward(c, cond):   # until its next turn
                    c.conditions[cond] = {"by": o.cid, "until_round": self.round + 1}
                    self.event("condition", f"{c.cid} is {cond} by {o.cid}'s {res.replace('_', ' ')}",
                               creature=c.cid, condition=cond)
            mask = o.resources.get("unnerving_mask")   # a chain devil's reaction (always worth it: no decision)
            if mask and o.economy.reaction and self.distance(o, c) <= mask["radius"] \
                    and "blinded" not in c.conditions and "blinded" not in o.conditions \
                    and "invisible" not in o.conditions and self.line_of_effect(o, c) \
                    and "frightened" not in c.conditions and "frightened" not in c.condition_immunities:
                o.economy.reaction = False
                self.event("unnerving_mask", f"{o.cid} shows {c.cid} an unnerving mask", creature=o.cid, target=c.cid)
                if not self.saving_throw(c, "wis", mask["dc"], condition="frightened"):
                    self._save_condition(o, c, "frightened", "wis", mask["dc"], (None, "end_of_target_next_turn", None))
                    if "frightened" in c.conditions:   # until the end of this turn
                        c.conditions["frightened"]["turn_of"] = None
            gaze = o.resources.get("gaze")
            if gaze and self.distance(o, c) <= gaze["radius"] and "petrified" not in c.conditions \
                    and "blinded" not in c.conditions and "invisible" not in o.conditions \
                    and self.line_of_effect(o, c) and not c.conditions.get("restrained", {}).get("petrify"):
                roll_dc = gaze["dc"]
                if self.saving_throw(c, "con", roll_dc):
                    continue
                total = next((e["total"] for e in reversed(self.log)   # the save's roll, for the medusa
                              if str(e.get("what", "")).startswith(f"save {c.cid} con")), roll_dc)
                by = gaze.get("petrified_if_failed_by")
                if by and total <= roll_dc - by:
                    self._petrify(c, o)
                elif "restrained" not in c.condition_immunities:
                    c.conditions["restrained"] = {"by": o.cid, "petrify": True, "dc": roll_dc, "round": self.round}
                    self.event("condition", f"{c.cid} begins to turn to stone", creature=c.cid, condition="restrained")

    def _petrify(self, c: Combatant, by: Combatant) -> None:
        if "petrified" in c.condition_immunities:
            return
        c.conditions.pop("restrained", None)
        c.conditions["petrified"] = {"by": by.cid}
        self.end_concentration(c)
        self._release_grapples_by(c)
        self.event("condition", f"{c.cid} is petrified", creature=c.cid, condition="petrified")

    def _death_burst(self, t: Combatant) -> None:
        """Death Burst: on death, a save for each creature within the radius (damage rolled once,
        half on a success where the stat block says so; or a condition)."""
        burst = t.resources["death_burst"]
        self.event("death_burst", f"{t.cid} bursts", creature=t.cid)
        rolled = [(ty, self.roller.roll_damage(d, what=f"damage death burst {ty}")) for d, ty in burst["damage"]]
        for o in sorted(self.creatures.values(), key=lambda o: o.cid):
            if o is t or o.dead or self.distance(t, o) > burst["radius"]:
                continue
            ok = self.saving_throw(o, burst["ability"], burst["dc"])
            for ty, amount in rolled:
                self.damage(o, (amount // 2 if burst.get("half_on_success") else 0) if ok else amount, ty,
                            magical=True, source=t.cid)
            if not ok:
                dur = (burst.get("rounds"), None, "end_of_turn" if burst.get("repeat_save") else None, False, ())
                for cond in burst.get("conditions", ()):
                    self._save_condition(t, o, cond, burst["ability"], burst["dc"], dur)

    def _charge_hit(self, c: Combatant, t: Combatant, a: AttackProfile) -> dict | None:
        """Charge, Pounce, Trampling Charge: the stat block's attack hits after the creature moved
        at least the trait's distance straight toward the target this turn (simplified: a run this
        turn of that length that brought it that much closer to the target). Once per run."""
        charge, run = c.resources.get("charge"), c.resources.get("charge_run")
        if not charge or not run or a.key != charge["attack"] or run["round"] != self.round \
                or self.active is not c:
            return None
        need = charge["min_distance"]
        if run["ft"] < need or self.distance_from(c, run["from"], t) - self.distance(c, t) < need:
            return None
        del c.resources["charge_run"]
        self.event("charge", f"{c.cid} charges {t.cid}", creature=c.cid, target=t.cid)
        return charge

    def _charge_save(self, c: Combatant, t: Combatant, charge: dict) -> None:
        sv = charge["save"]
        if self.saving_throw(t, sv["ability"], sv["dc"],
                             adv=self._sure_footed(t, sv["ability"], charge.get("on_fail", ())),
                             condition=charge.get("on_fail", ())):
            return
        for _ in range(charge.get("push", 0) // SQUARE_FT):   # the minotaur's gore: pushed away first
            dest = self._push_square(c, t)
            if dest is None:
                break
            t.pos = dest
        for cond in charge.get("on_fail", ()):
            self._save_condition(c, t, cond, sv["ability"], sv["dc"], ())
        if charge.get("bonus_attack") and "prone" in t.conditions and c.economy.bonus:
            c.resources["pounce_on"] = t.cid   # a bonus-action attack against the prone target

    def _cast_shield(self, t: Combatant) -> None:
        slots = list(t.resources.get("slots", ()))
        innate = t.resources.get("innate", {})
        if not any(slots):   # a monster's innate Shield: a use per day (-1: at will)
            level = 1
            innate["shield"] -= 1 if innate["shield"] > 0 else 0
        else:
            level = next(i for i, n in enumerate(slots) if n) + 1   # the lowest slot left
            slots[level - 1] -= 1
            t.resources["slots"] = tuple(slots)
        t.economy.reaction = False
        t.conditions["shield"] = {"until": "start_of_turn"}
        self.event("cast", f"{t.cid} casts shield (+5 AC until its next turn)", creature=t.cid,
                   spell="shield", level=level)

    def sneak_attack_allowed(self, c: Combatant, t: Combatant, adv: bool, dis: bool) -> bool:
        """SRD: advantage on the roll, or another enemy of the target within 5 ft of it (not
        incapacitated) and no disadvantage."""
        if dis and not adv:
            return False
        if adv and not dis:
            return True
        if dis:
            return False
        return any(o.conscious and not o.incapacitated and o.side == c.side and o is not c
                   and self.distance(o, t) <= SQUARE_FT for o in self.creatures.values())

    # ---------------------------------------------------------------- shoving and grappling
    def _athletics(self, c: Combatant) -> int:
        if c.is_pc:   # our builds: fighters are trained in Athletics
            return c.mod("str") + (c.prof if c.pc_class == "fighter" else features.check_bonus(c, "str"))
        return self._skill(c, "athletics", "str")

    @staticmethod
    def _check_dis(c: Combatant) -> bool:
        """Disadvantage on ability checks: a lamia's curse (exhaustion 1 too, SRD appendix A)."""
        return c.exhaustion >= 1 or any(v.get("check_dis") for v in c.conditions.values())

    def _escape_bonus(self, t: Combatant) -> int:
        """The better of Athletics and Acrobatics (resisting a shove, escaping a grapple)."""
        if t.is_pc:
            return max(self._athletics(t), t.mod("dex") + (t.prof if t.pc_class == "rogue" else
                                                           features.check_bonus(t, "dex")))
        return max(self._skill(t, "athletics", "str"), self._skill(t, "acrobatics", "dex"))

    @staticmethod
    def _skill(c: Combatant, skill: str, ability: str) -> int:
        return content.monster(c.monster).skills.get(skill, c.mod(ability))

    def _push_square(self, c: Combatant, t: Combatant):
        """The position 5 ft straight away from the shover, if the target fits there."""
        cx, cy = c.pos[0] * 2 + c.squares, c.pos[1] * 2 + c.squares
        tx, ty = t.pos[0] * 2 + t.squares, t.pos[1] * 2 + t.squares
        dx, dy = (tx > cx) - (tx < cx), (ty > cy) - (ty < cy)
        x, y = t.pos[0] + dx, t.pos[1] + dy
        if not self.map.fits(x, y, t.squares):
            return None
        taken = {cell for o in self.creatures.values() if not o.dead and o is not t for cell in o.cells}
        if any(cell in taken for cell in footprint(x, y, t.squares)):
            return None
        return (x, y, self.map.standing_z(x, y, t.squares))

    def push(self, c: Combatant, t: Combatant, feet: int) -> int:
        """Forced movement straight away from ``c``, 5 ft at a time while the target fits: no
        opportunity attacks, a grapple on it ends, hazards on the way bite. Returns the feet moved."""
        moved = 0
        for _ in range(feet // SQUARE_FT):
            to = self._push_square(c, t)
            if to is None:
                break
            t.pos, moved = to, moved + SQUARE_FT
            self._release(t)
            self._enter_hazards(t, t.pos)
        return moved

    def _shove_targets(self, c: Combatant, mode: str) -> list[Combatant]:
        out = []
        for t in self.enemies_of(c):
            if self.distance(c, t) > SQUARE_FT or SIZES.index(t.size) > SIZES.index(c.size) + 1 \
                    or self._inside_apart(c, t):   # swallowed, or enclosed (Forcecage, Resilient Sphere)
                continue
            if mode == "prone" and "prone" in t.conditions:
                continue
            if mode == "push" and self._push_square(c, t) is None:
                continue
            if mode == "grapple" and ("grappled" in t.conditions or "grappled" in t.condition_immunities):
                continue
            out.append(t)
        return out

    def _shove(self, c: Combatant, t: Combatant, mode: str) -> None:
        mine = self.roller.roll_d20(False, self._check_dis(c), bonus=self._athletics(c) + spell_buffs.check_die(self, c),
                                    what=f"shove {c.cid}")   # Guidance
        mine = mine._replace(total=features_more.check_total(c, "str", mine.natural, mine.total,
                                                             c.pc_class == "fighter"))   # (Reliable Talent)
        theirs = self.roller.roll_d20(False, self._check_dis(t), bonus=self._escape_bonus(t) + spell_buffs.check_die(self, t),
                                      what=f"resist shove {t.cid}")
        mine = mine._replace(total=features_more.peerless(self, c, mine.total, theirs.total + 1))   # (Peerless Skill)
        won = mine.total > theirs.total   # a tie leaves things as they were
        verb = ("grapples" if won else "fails to grapple") if mode == "grapple" else \
            ("shoves" if won else "fails to shove")
        self.event("shove", f"{c.cid} {verb} {t.cid} "
                   f"({mine.total} vs {theirs.total})", creature=c.cid, target=t.cid, success=won)
        if not won:
            return
        if mode == "grapple":   # speed 0 until it escapes or the grappler lets go
            t.conditions["grappled"] = {"by": c.cid, "dc": None}
            self.event("condition", f"{t.cid} is grappled by {c.cid}", creature=t.cid, condition="grappled")
        elif mode == "prone":
            if "prone" not in t.condition_immunities:
                t.conditions["prone"] = {"by": c.cid}
        else:
            t.pos = self._push_square(c, t)   # forced movement provokes no opportunity attack
            self._release(t)
            self._enter_hazards(t, t.pos)

    def _on_hit(self, c: Combatant, t: Combatant, effect: tuple) -> None:
        if effect[0] == "mark":   # a spell's rider on a hit (Guiding Bolt, Ray of Frost, ...)
            for name in effect[1:]:
                t.conditions[name] = {"by": c.cid, "round": self.round, "undead": t.creature_type == "undead"}
            if "no_reactions" in effect:   # Shocking Grasp: until the start of its next turn
                t.conditions.pop("no_reactions")
                t.economy.reaction = False
            return
        if effect[0] == "webbed":   # restrained by webbing until an ability check bursts it
            _, ability, dc, size_max = effect
            if "restrained" not in t.condition_immunities and \
                    (size_max is None or SIZES.index(t.size) <= SIZES.index(size_max)):
                t.conditions["restrained"] = {"by": c.cid, "escape": (ability, dc)}
                self.event("condition", f"{t.cid} is restrained by webbing", creature=t.cid, condition="restrained")
            return
        if effect[0] == "save":
            _, ability, dc, conditions, damage, half = effect[:6]
            dur = effect[6] if len(effect) > 6 else None
            if dur and t.creature_type in dur[4]:   # a ghoul's claws: elves and undead are immune
                conditions = ()
                if not damage:
                    return
            ok = self.saving_throw(t, ability, dc, adv=self._sure_footed(t, ability, conditions), condition=conditions)
            for part in damage:
                amount = self.roller.roll_damage(part.dice, what=f"damage {part.type}")
                if ok:
                    amount = amount // 2 if half else 0
                self.damage(t, amount, part.type, source=c.cid)
            if not ok:
                for cond in conditions:
                    if cond not in t.condition_immunities and t.conscious:
                        self._save_condition(c, t, cond, ability, dc, dur)
        elif effect[0] == "grapple":
            _, dc, size_max, restrained = effect
            if "grappled" in t.condition_immunities:
                return
            if size_max and SIZES.index(t.size) > SIZES.index(size_max):
                return
            t.conditions["grappled"] = {"by": c.cid, "dc": dc}
            if restrained:
                t.conditions["restrained"] = {"by": c.cid, "dc": dc}
            self.event("condition", f"{t.cid} is grappled by {c.cid} (escape DC {dc})", creature=t.cid,
                       condition="grappled")
        elif effect[0] == "swallow":
            self._swallow(c, t)
        elif effect[0] == "engulf_hit":
            self._engulf_hit(c, t)
        elif effect[0] == "smother" and t.conditions.get("grappled", {}).get("by") == c.cid:
            t.conditions["blinded"] = {"by": c.cid, "smothered": True}   # and at risk of suffocating
            t.conditions["smothered"] = {"by": c.cid, "dice": effect[1], "type": effect[2]}
            self.event("condition", f"{t.cid} is smothered by {c.cid}", creature=t.cid, condition="smothered")
        elif effect[0] == "curse":   # disadvantage on one save and on ability checks for its duration
            _, name, ability, rounds = effect
            t.conditions[name] = {"by": c.cid, "save_dis": (ability,), "check_dis": True,   # (spellbook.save_mode)
                                  "until_round": self.round + rounds}
            self.event("condition", f"{t.cid} is {name} by {c.cid}", creature=t.cid, condition=name)

    # ---------------------------------------------------------------- a priest's and a knight's boosts
    def _monster_boost_options(self, c: Combatant, has_action: bool) -> list[Opt]:
        out = []
        slots = c.resources.get("slots", ())
        if "divine_eminence" in c.features and c.economy.bonus and "eminence" not in c.conditions \
                and any(a.melee for a in c.attacks):
            for lv in range(1, len(slots) + 1):
                if slots[lv - 1] > 0:
                    out.append(Opt(f"Divine Eminence (level {lv} slot: +{2 + lv}d6 radiant on melee hits this turn)",
                                   "divine_eminence", (lv,)))
        if "leadership" in c.features and has_action and c.resources.get("uses:leadership", 0) > 0:
            out.append(Opt("Leadership (1 minute: allies within 30 ft add a d4 to attacks and saves)", "leadership"))
        eat = c.resources.get("consume_life")
        if eat and c.economy.bonus:   # a will-o'-wisp on a dying creature it sees within 5 ft
            for t in sorted(self.enemies_of(c), key=lambda o: o.cid):
                if t.hp == 0 and not t.dead and self.distance(c, t) <= eat["range"] and "blinded" not in c.conditions:
                    out.append(Opt(f"Consume Life: {t.cid} (DC {eat['dc']} CON or dies)", "consume_life", (t.cid,)))
        kids = c.resources.get("children")
        if kids and has_action and c.resources.get("uses:children-of-the-night", 0) > 0:
            out.append(Opt(f"Children of the Night ({kids['count']} {kids['monster']} arrive in {kids['delay']} rounds)",
                           "children_of_the_night"))
        rise = c.resources.get("create_specter")
        if rise and has_action and sum(o.resources.get("risen_by") == c.cid and not o.dead
                                       for o in self.creatures.values()) < rise["max"]:
            for t in sorted(self.creatures.values(), key=lambda o: o.cid):
                if t.dead and t.creature_type == "humanoid" and "risen" not in t.resources \
                        and self.round - t.resources.get("died_round", -10 ** 6) <= 10 \
                        and self.distance(c, t) <= rise["range"]:
                    out.append(Opt(f"Create Specter from {t.cid}'s corpse", "create_specter", (t.cid,)))
        return out

    def _call_children(self, c: Combatant) -> None:
        """Children of the Night: the call now; the beasts come at the start of the vampire's turn
        once the rolled rounds have passed."""
        kids = c.resources["children"]
        c.economy.actions -= 1
        c.resources["uses:children-of-the-night"] = 0
        due = self.round + self.roller.roll(kids["delay"], what=f"children delay {c.cid}")
        c.resources["children_due"] = (due, self.roller.roll(kids["count"], what=f"children count {c.cid}"))
        self.event("children_call", f"{c.cid} calls the children of the night (round {due})", creature=c.cid)
        self._back_to_menu(c)

    def _children_arrive(self, c: Combatant) -> None:
        """They arrive beside the vampire (as many as there is room for) and act right after it."""
        due, count = c.resources["children_due"]
        if self.round < due:
            return
        del c.resources["children_due"]
        at = self.order.index(c.cid) + 1
        for i in range(count):
            spot = self._free_spot_beside(c, 1)
            if spot is None:
                break
            s = monster_combatant(c.resources["children"]["monster"], f"{c.cid}_child_{i + 1}", c.side, spot)
            s.initiative = c.initiative
            self.creatures[s.cid] = s
            self.order.insert(at + i, s.cid)
            self.event("summon", f"{s.cid} answers {c.cid}'s call", creature=s.cid, by=c.cid)
        self._reach_cache = None

    def _create_specter(self, c: Combatant, corpse: Combatant) -> None:
        """A wraith raises a humanoid dead this minute as a specter on its side, in the corpse's
        space or the nearest free one; it acts right after the wraith."""
        rise = c.resources["create_specter"]
        c.economy.actions -= 1
        corpse.resources["risen"] = True
        n = sum(o.resources.get("risen_by") == c.cid for o in self.creatures.values()) + 1
        taken = {cell for o in self.creatures.values() if not o.dead for cell in o.cells}
        spot = tuple(corpse.pos) if not set(corpse.cells) & taken else \
            self._free_spot_beside(corpse, size_squares(content.monster(rise["monster"]).size))
        if spot is None:
            spot = tuple(corpse.pos)
        s = monster_combatant(rise["monster"], f"{c.cid}_specter_{n}", c.side, spot)
        s.resources["risen_by"] = c.cid
        s.initiative = c.initiative
        self.creatures[s.cid] = s
        at = self.order.index(c.cid) + 1
        self.order.insert(at, s.cid)
        if at <= self.turn_index:
            self.turn_index += 1
        self._reach_cache = None
        self.event("create_specter", f"{c.cid} raises {corpse.cid}'s spirit as {s.cid}", creature=c.cid, new=s.cid)
        self._back_to_menu(c)

    def _leadership_die(self, t: Combatant) -> int:
        """A d4 for t's attack roll or save when a leading knight that is not incapacitated sees t
        within 30 ft (one die at a time; the knight's own rolls do not count)."""
        for o in sorted(self.allies_of(t), key=lambda o: o.cid):
            if "leading" in o.conditions and o.incapacitated:   # it ends if the knight is incapacitated
                del o.conditions["leading"]
            if "leading" in o.conditions and self.distance(o, t) <= 30 \
                    and "blinded" not in o.conditions and self.line_of_effect(o, t):
                return self.roller.roll("1d4", what=f"leadership {o.cid}->{t.cid}")
        return 0

    # ---------------------------------------------------------------- Engulf (a shambling mound)
    def _engulfed_by(self, c: Combatant) -> list[Combatant]:
        return [o for o in self.creatures.values() if o.conditions.get("engulfed", {}).get("by") == c.cid]

    def _engulf_hit(self, c: Combatant, t: Combatant) -> None:
        """The second slam this turn on one Medium or smaller target: grappled (escape DC 14) and
        engulfed: blinded and restrained while the grapple lasts (one creature at a time)."""
        eg = c.resources["engulf"]
        mark = (self.round, self.turn_index, t.cid)
        tally = c.resources.get("engulf_tally")
        n = tally[1] + 1 if tally and tally[0] == mark else 1
        c.resources["engulf_tally"] = (mark, n)
        if n < eg["hits"] or t.dead or SIZES.index(t.size) > SIZES.index(eg["size_max"]) \
                or "grappled" in t.condition_immunities or len(self._engulfed_by(c)) >= eg["capacity"]:
            return
        t.conditions["grappled"] = {"by": c.cid, "dc": eg["escape_dc"]}
        for cond in ("engulfed", "blinded", "restrained"):
            t.conditions[cond] = {"by": c.cid, "engulfed": True}
        self.event("engulf", f"{c.cid} engulfs {t.cid} (escape DC {eg['escape_dc']})", creature=c.cid, target=t.cid)

    def _engulf_tick(self, c: Combatant) -> None:
        """The start of the mound's turn: each engulfed creature saves or takes its damage."""
        eg = c.resources["engulf"]
        for o in sorted(self._engulfed_by(c), key=lambda o: o.cid):
            if not o.dead and not self.saving_throw(o, eg["ability"], eg["dc"]):
                self.damage(o, self.roller.roll_damage(eg["damage"], what=f"engulf {c.cid}"), eg["type"],
                            source=c.cid)

    # ---------------------------------------------------------------- Swallow (a frog, a remorhaz)
    def _can_swallow(self, c: Combatant, t: Combatant) -> bool:
        """A creature c grapples, small enough, while c has room (a frog holds one at a time)."""
        sw = c.resources.get("swallow")
        return bool(sw) and not t.dead and t.conditions.get("grappled", {}).get("by") == c.cid \
            and SIZES.index(t.size) <= SIZES.index(sw["size_max"]) \
            and (sw["capacity"] is None or len(self._swallowed_by(c)) < sw["capacity"])

    def _swallowed_by(self, c: Combatant) -> list[Combatant]:
        return [o for o in self.creatures.values() if o.conditions.get("swallowed", {}).get("by") == c.cid]

    def _swallow(self, c: Combatant, t: Combatant) -> None:
        """SRD Swallow: the grapple ends; blinded and restrained inside, total cover from outside."""
        if not self._can_swallow(c, t):
            return
        self._release(t)
        for cond in ("swallowed", "blinded", "restrained"):
            t.conditions[cond] = {"by": c.cid, "swallowed": True}
        t.pos = tuple(c.pos)   # inside its space: it moves with it
        self.event("swallow", f"{c.cid} swallows {t.cid}", creature=c.cid, target=t.cid)

    def _inside_apart(self, a: Combatant, b: Combatant) -> bool:
        """Total cover: one of the two is inside a swallower the other is not the swallower of
        (nor inside too), or enclosed (Forcecage, Resilient Sphere: spell_walls.apart)."""
        ca, cb = a.conditions, b.conditions
        if "enclosed" in ca or "enclosed" in cb:
            return spell_walls.apart(a, b)
        if "swallowed" not in ca and "swallowed" not in cb:
            return False   # (asked for every pair, every area and every attack: the common answer first)
        sa, sb = ca.get("swallowed", {}).get("by"), cb.get("swallowed", {}).get("by")
        return (sa is not None or sb is not None) and sa != sb and sa != b.cid and sb != a.cid

    def _digest(self, c: Combatant) -> None:
        """The start of the swallower's turn: acid for everyone inside."""
        for o in sorted(self._swallowed_by(c), key=lambda o: o.cid):
            if not o.dead:
                self.damage(o, self.roller.roll_damage(c.resources["swallow"]["acid"], what=f"acid {c.cid}"),
                            "acid", source=c.cid)

    def _regurgitate_check(self) -> None:
        """End of any turn: a swallower hurt enough from inside this turn saves (Con) or spits out
        everyone, prone within 10 ft."""
        for s in sorted(self.creatures.values(), key=lambda o: o.cid):
            s.resources.pop("turn_damage", None)   # a hydra's tally of damage in one turn
            hurt = s.resources.pop("hurt_inside", 0)
            rule = (s.resources.get("swallow") or {}).get("regurgitate")
            if not rule or s.dead or hurt < rule["damage"] or self.saving_throw(s, "con", rule["dc"]):
                continue
            for o in sorted(self._swallowed_by(s), key=lambda o: o.cid):
                self._spit_out(s, o, "regurgitated")

    def _spit_out(self, s: Combatant, o: Combatant, why: str) -> None:
        """Out of the swallower, prone, in the nearest free space around it."""
        for cond in ("swallowed", "blinded", "restrained"):
            if o.conditions.get(cond, {}).get("swallowed"):
                del o.conditions[cond]
        spot = self._free_spot_beside(s, o.squares, exclude=o)
        if spot:
            o.pos = spot
        if not o.dead:
            o.conditions["prone"] = {}
        self.event("spit_out", f"{o.cid} is out of {s.cid} ({why}), prone", creature=o.cid, source=s.cid)

    def _head_damage(self, t: Combatant, amount: int, dtype: str) -> None:
        """SRD Multiple Heads: 25+ damage in a single turn kills one head (all dead: the hydra dies);
        the stopping type (fire) since its last turn keeps heads from growing back."""
        rule = t.resources["heads_rule"]
        if dtype == rule["stop"]:
            t.resources["heads_stopped"] = True
        before = t.resources.get("turn_damage", 0)
        t.resources["turn_damage"] = before + amount
        if before < rule["lose_at"] <= before + amount and t.resources["heads"] > 0:
            t.resources["heads"] -= 1
            t.resources["heads_lost"] = t.resources.get("heads_lost", 0) + 1
            self.event("head_lost", f"{t.cid} loses a head ({t.resources['heads']} left)", creature=t.cid)
            if t.resources["heads"] == 0:
                self._die(t, "its last head died")

    def _regrow_heads(self, c: Combatant) -> None:
        """The end of a hydra's turn: two heads for each that died, 10 HP each, unless fire hit it."""
        lost, stopped = c.resources.pop("heads_lost", 0), c.resources.pop("heads_stopped", False)
        if lost and not stopped and not c.dead:
            grown = lost * c.resources["heads_rule"]["regrow"]
            c.resources["heads"] += grown
            self.event("heads_grow", f"{c.cid} grows {grown} heads ({c.resources['heads']})", creature=c.cid)
            self.heal(c, grown * c.resources["heads_rule"]["hp_per_head"], "regrown heads")

    def _free_spot_beside(self, s: Combatant, n: int, exclude: Combatant | None = None) -> tuple | None:
        """The nearest free n x n space touching s's space (s's own space counts as taken)."""
        taken = {cell for x in self.creatures.values() if (not x.dead or x is s) and x is not exclude
                 for cell in x.cells}
        spots = [(x, y) for y in range(s.pos[1] - n, s.pos[1] + s.squares + 1)
                 for x in range(s.pos[0] - n, s.pos[0] + s.squares + 1)
                 if self.map.fits(x, y, n) and not any((x + i, y + j) in taken for i in range(n) for j in range(n))]
        if not spots:
            return None
        x, y = min(spots, key=lambda p: (abs(p[0] - s.pos[0]) + abs(p[1] - s.pos[1]), p[1], p[0]))
        return (x, y, self.map.standing_z(x, y, n))

    def _split(self, t: Combatant, dtype: str) -> None:
        """SRD Split (its reaction): a Medium or larger jelly with at least 10 HP hit by lightning or
        slashing damage becomes two, each with half its hit points (rounded down) and one size
        smaller; the new one acts right after it (simplification: no room beside it, no split)."""
        import copy

        if dtype not in ("lightning", "slashing") or t.dead or t.hp < 10 or t.incapacitated \
                or SIZES.index(t.size) < SIZES.index("medium") or not t.economy.reaction:
            return
        size = SIZES[SIZES.index(t.size) - 1]
        spot = self._free_spot_beside(t, size_squares(size))
        if spot is None:
            return
        t.economy.reaction = False
        t.size, t.hp = size, t.hp // 2
        t.max_hp = t.hp
        twin = copy.deepcopy(t)
        k = 2
        while f"{t.cid}_{k}" in self.creatures:
            k += 1
        twin.cid, twin.pos, twin.conditions, twin.concentration = f"{t.cid}_{k}", spot, {}, None
        twin.economy = Economy()
        self.creatures[twin.cid] = twin
        at = self.order.index(t.cid) + 1
        self.order.insert(at, twin.cid)
        if at <= self.turn_index:
            self.turn_index += 1
        self._reach_cache = self._cache = None
        self.event("split", f"{t.cid} splits: {twin.cid} appears ({t.hp} HP each)", creature=t.cid, new=twin.cid)

    def _release(self, c: Combatant) -> None:
        by = c.conditions.get("grappled", {}).get("by")
        for cond in ("grappled", "restrained"):
            if c.conditions.get(cond, {}).get("by") == by:
                c.conditions.pop(cond, None)
        for held in ("engulfed", "smothered"):   # the grapple held it inside a mound / under a rug
            if c.conditions.get(held, {}).get("by") == by:
                for cond in (held, "blinded"):
                    c.conditions.pop(cond, None)

    def _release_grapples_by(self, grappler: Combatant) -> None:
        for o in self.creatures.values():
            if o.conditions.get("grappled", {}).get("by") == grappler.cid:
                self._release(o)

    def _resolve_target(self, c: Combatant, use: tuple, t: Combatant) -> None:
        e = c.economy
        if use[0] == "attack":
            a = c.attack(use[1])
            if use[2] == "queue":
                e.attack_queue = e.attack_queue[1:]
            elif use[2] == "offhand":
                e.bonus = False
                a = a._replace(damage=a.offhand, range_normal=0, range_long=0)
            elif use[2] in features.BONUS_ATTACKS:   # Martial Arts, Flurry of Blows, Frenzy: paid there
                pass
            elif use[2] == "pounce":   # a monster's Pounce / Trampling Charge: a bonus action
                e.bonus = False
                c.resources.pop("pounce_on", None)
            elif use[2] == "rampage":   # paid with the Rampage bonus action
                c.resources.pop("rampage_bite", None)
            else:
                if e.attacks_left == 0:   # taking the Attack action (Extra Attack: 1-3 more)
                    e.actions -= 1
                    e.attacks_left = 1 + c.resources.get("extra_attacks", 1) if "extra_attack" in c.features else 1
                    e.loading_fired = False
                e.attacks_left -= 1
                if a.offhand and a.melee:
                    e.light_attack = a.key
                if a.loading:
                    e.loading_fired = True
            if "breath_slowed" in c.conditions:   # its one attack this turn
                c.conditions["breath_slowed"]["attacked"] = (self.round, c.cid)
            if a.key in c.recharge:   # a recharge attack (Web) is spent until it recharges
                c.recharge[a.key] = False
            if c.is_pc:
                features.begin_attack(self, c, a, use[2])
            if use[2] == "legendary":
                if self.make_attack(c, a, t, then="next_turn") is not None and self.outcome is None:
                    self._next_turn()
                return
            if self.make_attack(c, a, t, then="menu") is None:
                return   # the target decides on a reaction first
        elif use[0] == "spell":
            if self._cast_at(c, use[1], use[2], t) is None:
                return
        elif use[0] == "dart":
            self._dart(c, t, use[2] - 1)
            return
        elif use[0] == "ray":
            self._ray(c, t, use[2], use[3] - 1)
            return
        elif use[0] == "more":
            if spellbook.handles(use[1]):
                spellbook.more(self, c, use, t)
                return
            self._spell_effect(c, use[1], t)
            self._more_targets(c, use[1], use[2], use[3] - 1, use[4] + (t.cid,))
            return
        elif use[0] == "weapon":
            self._weapon_attack(c, t)
            return
        elif use[0] == "save_action":
            spec = monster_action(c, use[1])
            hits = [t]
            if spec.target_filter and spec.targets is None:   # every qualifying creature
                hits = self._save_targets(c, spec)
            self._monster_save(c, use[1], hits, legendary=use[2:3] == ("legendary",),
                               queued=use[2:3] == ("queue",))
            return
        elif use[0] == "shove":
            if e.attacks_left == 0:   # a shove replaces one attack of the Attack action
                e.actions -= 1
                e.attacks_left = 1 + c.resources.get("extra_attacks", 1) if "extra_attack" in c.features else 1
                e.loading_fired = False
            e.attacks_left -= 1
            self._shove(c, t, use[1])
        elif use[0] == "feature":   # Lay on Hands, Bardic Inspiration
            features.resolve_target(self, c, use, t)
            return
        elif use[0] == "ms":   # a monster's own action (dnd/monster_specials.py)
            monster_specials.resolve_target(self, c, use, t)
            return
        elif use[0] == "monster_heal":   # Healing Touch: hit points, and the ills it names end
            e.actions -= 1
            c.resources["uses:healing-touch"] -= 1
            self.heal(t, self.roller.roll(c.resources["healing_touch"], what=f"heal {c.cid} healing-touch"),
                      "Healing Touch")
            for cond in ("blinded", "deafened", "poisoned"):
                t.conditions.pop(cond, None)
        elif use[0] == "help":
            e.actions -= 1
            t.conditions["helped"] = {"by": c.cid}
            self.event("help", f"{c.cid} helps its allies against {t.cid}", creature=c.cid, target=t.cid)
        self._back_to_menu(c)

    # ---------------------------------------------------------------- spells and areas
    def _begin_spell(self, c: Combatant, key: str, level: int) -> None:
        sp = content.spell(key)
        use = ("spell", key, level)
        if spell_counter.offer(self, c, key, level):   # a foe sees the casting and may counter it
            return
        if spellbook.handles(key):
            spellbook.begin(self, c, key, level)
        elif key == "misty-step":   # bonus action; the destination is the decision
            self.pending = {"kind": "destination", "actor": c.cid, "use": ("teleport", key, level)}
        elif key == "spirit-guardians":   # an emanation around the caster: nothing to place
            self._pay_spell(c, key, level)
            c.conditions["spirit_guardians"] = {"by": c.cid, "spell": key, "level": level,
                                                "dc": c.resources["spell_dc"]}
            self._back_to_menu(c)
        elif sp.area is None:
            self.pending = {"kind": "target", "actor": c.cid, "use": use}
        elif sp.area.shape == "sphere":
            self.pending = {"kind": "point_x", "actor": c.cid, "use": use}
        else:
            self.pending = {"kind": "direction", "actor": c.cid, "use": use}

    def _pay_spell(self, c: Combatant, key: str, level: int) -> None:
        sp = content.spell(key)
        e = c.economy
        if sp.casting_time == "bonus_action" or features.casting_as_bonus(c):   # (Quickened Spell)
            e.bonus = False
            e.bonus_spell = True
        else:
            e.actions -= 1
            e.levelled_action_spell |= level > 0
        innate = c.resources.get("innate", {})
        slots = c.resources.get("slots", ())
        if level and features_more.free_cast(c, key, level):   # Spell Mastery, Signature Spell
            pass
        elif level and innate.get(key, 0) != 0 and (len(slots) < level or not slots[level - 1]):
            if innate[key] > 0:   # "n/day" (at will: -1, never spent)
                innate[key] -= 1
        elif level:
            slots = list(c.resources["slots"])
            slots[level - 1] -= 1
            c.resources["slots"] = tuple(slots)
        c.conditions.pop("hidden", None)   # casting gives the caster away
        self.event("cast", f"{c.cid} casts {key}" + (f" at level {level}" if level else ""),
                   creature=c.cid, spell=key, level=level)
        if sp.concentration:   # one concentration spell at a time: a new one ends the old
            self.end_concentration(c)
            c.concentration = key
            c.resources["concentration_until"] = self.round + (sp.duration_rounds or 10) * \
                (2 if features_more.extended(c) else 1)   # Extended Spell

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

    def _dart(self, c: Combatant, t: Combatant, left: int) -> None:
        """One Magic Missile dart (1d4+1 force); then the next dart's target, or back to the menu."""
        if "ms" in t.resources:   # a tarrasque's Reflective Carapace: unaffected, or the dart turns back
            t = monster_specials.carapace_target(self, c, "magic-missile", t)
        amount = self.roller.roll_damage("1d4+1", what="damage magic-missile force")
        if t is not None:
            self.damage(t, amount, "force", magical=True, source=c.cid)
        if left and self.outcome is None and not self._check_outcome() and self._spell_targets(c, "magic-missile"):
            self.pending = {"kind": "target", "actor": c.cid, "use": ("dart", "magic-missile", left)}
        else:
            self._back_to_menu(c)

    def _cast_at(self, c: Combatant, key: str, level: int, t: Combatant) -> bool | None:
        if spellbook.handles(key):
            return spellbook.cast_at(self, c, key, level, t)
        sp = content.spell(key)
        self._pay_spell(c, key, level)
        if key == "magic-missile":   # every dart hits; each further dart is its own target decision
            self._dart(c, t, 2 + level - 1)
            return None
        if key == "scorching-ray":   # 3 rays (+1 per slot level above 2), each its own target
            self._ray(c, t, level, 3 + level - 2 - 1)
            return None
        if key == "spiritual-weapon":
            c.resources["spiritual_weapon"] = {"pos": list(t.pos), "until": self.round + 10,
                                               "dice": f"{sp.damage_for(slot_level=level)}+{c.resources['spell_mod']}"}
            self._weapon_attack(c, t)
            return None
        if key in MULTI:   # Bless, Bane, Hold Person: the first target, then one decision per extra one
            self._spell_effect(c, key, t)
            left = MULTI[key] - 1 + level - sp.level
            self._more_targets(c, key, level, left, (t.cid,))
            return None
        if sp.heal_at_slot_level:
            mod = c.resources["spell_mod"] if sp.heal_adds_modifier else 0
            self.heal(t, max(1, spell_buffs.heal_roll(self, t, sp.heal_for(level), f"heal {key}") + mod), key)
            return True
        if key in BUFFS:
            self._spell_effect(c, key, t)
            return True
        dice = sp.damage_for(slot_level=level or None, character_level=c.level)
        if sp.save_ability:   # a single-target save cantrip (Sacred Flame): no half on a success
            if not self.saving_throw(t, sp.save_ability, c.resources["spell_dc"], magic=True):
                amount = self.roller.roll_damage(dice, what=f"damage {key} {sp.damage_type}")
                self.damage(t, amount, sp.damage_type, magical=True, source=c.cid)
            return True
        rng = features_more.spell_range(c, key, sp.range_feet or 0)   # (Distant Spell)
        profile = AttackProfile(key, sp.name, c.resources["spell_attack"], (DamagePart(dice, sp.damage_type),),
                                sp.attack_type == "melee", 5, rng, rng, spell=True,
                                on_hit=SPELL_RIDERS.get(key, ()))
        return self.make_attack(c, profile, t, melee=sp.attack_type == "melee", then="menu")

    def _spell_effect(self, c: Combatant, key: str, t: Combatant) -> None:
        """A buff on a willing creature, or a debuff after a failed save."""
        if key in BUFFS:
            t.conditions[BUFFS[key]] = {"by": c.cid, "spell": key, "dc": c.resources.get("spell_dc")}
            self.event("condition", f"{t.cid} is under {key}", creature=t.cid, condition=BUFFS[key])
            return
        cond = DEBUFFS[key]
        ability = content.spell(key).save_ability
        if cond in t.condition_immunities or spell_buffs.wards(t, cond):   # Freedom of Movement
            self.event("condition", f"{t.cid} is immune to {cond}", creature=t.cid)
            return
        if not self.saving_throw(t, ability, c.resources["spell_dc"], magic=True, big=True):
            t.conditions[cond] = {"by": c.cid, "spell": key, "dc": c.resources["spell_dc"],
                                  "repeat": ability if key == "hold-person" else None}
            self.event("condition", f"{t.cid} is {cond} ({key})", creature=t.cid, condition=cond)

    def _more_targets(self, c: Combatant, key: str, level: int, left: int, chosen: tuple) -> None:
        if left > 0 and self.outcome is None and any(t.cid not in chosen for t in self._spell_targets(c, key)):
            self.pending = {"kind": "target", "actor": c.cid, "use": ("more", key, level, left, chosen)}
        else:
            self._back_to_menu(c)

    def _ray(self, c: Combatant, t: Combatant, level: int, left: int) -> None:
        """One Scorching Ray: a ranged spell attack for 2d6 fire; then the next ray's target."""
        p = AttackProfile("scorching-ray", "Scorching Ray", c.resources["spell_attack"], (DamagePart("2d6", "fire"),),
                          False, 0, 120, 120, spell=True)
        if self.make_attack(c, p, t, melee=False, then="menu") is None:
            return   # the target reacts (Shield); the rays left are lost
        if left and self.outcome is None and not self._check_outcome() and self._spell_targets(c, "scorching-ray"):
            self.pending = {"kind": "target", "actor": c.cid, "use": ("ray", "scorching-ray", level, left)}
        else:
            self._back_to_menu(c)

    def _weapon_attack(self, c: Combatant, t: Combatant) -> None:
        sw = c.resources["spiritual_weapon"]
        sw["pos"] = list(t.pos)
        c.economy.bonus = False
        p = AttackProfile("spiritual-weapon", "Spiritual Weapon", c.resources["spell_attack"],
                          (DamagePart(sw["dice"], "force"),), True, 5, 0, 0, spell=True)
        if self.make_attack(c, p, t, melee=True, then="menu") is None:
            return
        self._back_to_menu(c)

    def _resolve_area(self, c: Combatant, use: tuple, where) -> None:
        if use[0] == "spell" and spellbook.handles(use[1]):
            spellbook.resolve_area(self, c, use, where)
            return
        hits = self.area_hits(c, use, where)
        if use[0] == "spell" and self.specials:   # a line spell on a tarrasque (Reflective Carapace)
            hits = monster_specials.carapace_hits(self, c, use[1], hits)
        if use[0] == "spell" and use[1] == "sleep":
            self._pay_spell(c, use[1], use[2])
            self._sleep(c, use[2], hits)
            self._back_to_menu(c)
            return
        if use[0] == "spell":
            sp = content.spell(use[1])
            self._pay_spell(c, use[1], use[2])
            ability, dc, half = sp.save_ability, c.resources["spell_dc"], sp.save_success == "half"
            parts = (DamagePart(sp.damage_for(slot_level=use[2]), sp.damage_type),)
            magical = True
        else:
            spec = monster_action(c, use[1])
            if spec.chosen_creatures:   # it picks who is affected: its foes
                hits = [o for o in hits if o.side != c.side]
            self._monster_save(c, use[1], hits, legendary=use[2:3] == ("legendary",),
                               queued=use[2:3] == ("queue",))
            return
        # SRD: roll the damage once for everyone in the area
        rolled = [(p.type, self.roller.roll_damage(p.dice, what=f"damage {use[1]} {p.type}")) for p in parts]
        for t in hits:
            ok = self.saving_throw(t, ability, dc, magic=use[0] == "spell", big=True)
            for dtype, amount in rolled:
                self.damage(t, features.area_damage(t, ability, ok, half, amount), dtype, magical=magical,
                            source=c.cid)   # (Evasion)
            if not ok and use[1] == "thunderwave" and not t.dead:
                self.push(c, t, 10)   # pushed 10 ft away from the caster (forced movement)
                self.event("push", f"{t.cid} is pushed to ({t.pos[0]}, {t.pos[1]})", creature=t.cid)
        self._back_to_menu(c)

    def _sleep(self, c: Combatant, level: int, hits: list) -> None:
        """SRD Sleep: 5d8 HP (+2d8 per slot level above 1) puts creatures to sleep in ascending order
        of current HP, no save; undead and creatures immune to charm are unaffected."""
        pool = self.roller.roll(f"{5 + 2 * (level - 1)}d8", what="sleep hit points")
        self.event("sleep", f"Sleep affects {pool} hit points of creatures", creature=c.cid, pool=pool)
        for t in sorted(hits, key=lambda o: (o.hp, o.cid)):
            if not t.conscious or "unconscious" in t.conditions or t.creature_type == "undead" or \
                    "charmed" in t.condition_immunities:
                continue
            if t.hp > pool:
                break
            pool -= t.hp
            t.conditions["unconscious"] = {"by": c.cid, "spell": "sleep", "asleep": True}
            t.conditions.setdefault("prone", {})
            self._release_grapples_by(t)
            self.end_concentration(t)
            self.event("condition", f"{t.cid} falls asleep", creature=t.cid, condition="unconscious")

    # ---------------------------------------------------------------- Spirit Guardians
    def _guardians(self) -> list[Combatant]:
        return [o for o in self.creatures.values() if "spirit_guardians" in o.conditions and o.conscious]

    def _zone_damage(self, g: Combatant, t: Combatant) -> None:
        """Spirit Guardians: Wis save, 3d8 radiant (+1d8 per slot level above 3), half on a success;
        once per turn per creature (entering the area or starting the turn there)."""
        if (t.cid, g.cid) in self.zone_hits or t.dead:
            return
        self.zone_hits.add((t.cid, g.cid))
        sg = g.conditions["spirit_guardians"]
        ok = self.saving_throw(t, "wis", sg["dc"], magic=True)
        amount = self.roller.roll_damage(f"{sg['level']}d8", what="damage spirit-guardians radiant")
        self.event("zone", f"{t.cid} is struck by {g.cid}'s spirit guardians", creature=t.cid, source=g.cid)
        self.damage(t, amount // 2 if ok else amount, "radiant", magical=True, source=g.cid)

    def saving_throw(self, t: Combatant, ability: str, dc: int, *, magic: bool = False, big: bool = False,
                     adv: bool = False, condition=None) -> bool:
        """A save with the conditions' effects (SRD appendix A), Bless/Bane, Magic Resistance, and
        Legendary Resistance (spent on a failed save against a big effect: ``big``). ``condition``
        (a name or several) is what a failure imposes: traits like Brave give advantage against it."""
        if features.careful_success(self, t):   # Careful Spell: the sorcerer's allies succeed
            return True
        against = (condition,) if isinstance(condition, str) else tuple(condition or ())
        adv = adv or (any(x in t.resources.get("save_adv_vs", ()) for x in against)
                      and t.resources.get("heads", 2) > 1)   # a hydra: while it has more than one head
        # SRD: unconscious, paralyzed, petrified, stunned: automatically fail Str and Dex saves
        if ability in ("str", "dex") and (not t.conscious or any(k in t.conditions for k in AUTO_FAIL)):
            self.event("save", f"{t.cid} fails the {ability.upper()} save automatically",
                       creature=t.cid, success=False)
            return False
        adv = adv or (magic and "magic_resistance" in t.features) or features.save_advantage(self, t, ability) \
            or (magic and "gnome_cunning" in t.features and ability in ("int", "wis", "cha"))
        dis = ("restrained" in t.conditions and ability == "dex") or t.exhaustion >= 3 \
            or ("breath_weakened" in t.conditions and ability == "str") \
            or features.save_disadvantage(self, t)   # a gold dragon's Weakening Breath; Heightened Spell
        adv = adv or spellbook.save_mode(t, ability, "save_adv", against)   # Holy Aura, Protection from Poison
        dis = dis or spellbook.save_mode(t, ability, "save_dis")   # Irresistible Dance
        adv = adv or (against and features_more.save_adv(self, t, against))   # Countercharm
        bonus = t.saves[ability] + sum(v.get("save", 0) for v in t.conditions.values())   # Warding Bond
        bonus += features.save_bonus(self, t, ability)   # Aura of Protection
        bonus += spellbook.save_bonus(self, t)   # Resistance
        if "blessed" in t.conditions:
            bonus += self.roller.roll("1d4", what=f"bless {t.cid}")
        bonus += self._leadership_die(t)   # a knight's Leadership
        if "baned" in t.conditions:
            bonus -= self.roller.roll("1d4", what=f"bane {t.cid}")
        roll = self.roller.roll_d20(adv, dis, bonus=bonus, what=f"save {t.cid} {ability}")
        ok = roll.total >= dc
        self.event("save", f"{t.cid} {'succeeds on' if ok else 'fails'} a DC {dc} {ability.upper()} save "
                   f"({roll.total})", creature=t.cid, success=ok)
        if not ok and t.is_pc and features.rescue_save(self, t, ability, dc, roll.total, adv, dis):
            return True   # Bardic Inspiration, Indomitable, Diamond Soul, Dark One's Own Luck
        if not ok and big and t.resources.get("legendary_resistance", 0) > 0:
            t.resources["legendary_resistance"] -= 1
            self.event("legendary_resistance", f"{t.cid} uses Legendary Resistance: the save succeeds "
                       f"({t.resources['legendary_resistance']} left)", creature=t.cid)
            return True
        return ok

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
            self._die(t, "exhaustion")

    # ================================================================ damage, healing, dying
    def damage(self, t: Combatant, amount: int, dtype: str, *, magical: bool = False,
               critical: bool = False, source: str | None = None) -> int:
        """Apply damage after immunity, resistance, vulnerability and temp HP; returns HP lost."""
        if t.dead:
            return 0
        if "sculpted" in t.economy.extra and features_more.sculpted(self, t, source):   # Sculpt Spells
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
            amount = monster_specials.bound_share(self, t, amount, dtype, source)
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
            if amount >= t.max_hp:
                self._die(t, "massive damage")
            else:
                t.death_failures += 2 if critical else 1
                self.event("death_save", f"{t.cid} takes damage at 0 HP: {t.death_failures} failures",
                           creature=t.cid, failures=t.death_failures)
                t.stable = False
                if t.death_failures >= 3:
                    self._die(t, "three failed death saves")
            return amount
        lost = min(t.hp, amount)
        t.hp -= lost
        if t.hp == 0 and spellbook.ward_from_death(self, t):   # Death Ward: 1 HP instead, once
            t.hp, lost = 1, lost - 1
        if t.hp == 0 and ("shape_saved" in t.resources or "melts" in t.resources):   # Polymorph; Simulacrum
            lost += spell_summons.at_zero(self, t, amount - lost)
        if t.hp == 0 and t.is_pc:   # Wild Shape (the rest carries over to the druid), Relentless Rage
            lost += features.at_zero(self, t, amount - lost)
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
        if "ms" in t.resources and not t.dead:   # Aversion of Fire (dnd/monster_specials.py)
            monster_specials.on_damage(self, t, amount, dtype, source)
        features.on_damaged(self, t, amount, source)   # rage kept up; Dark One's Blessing
        if "dominated" in t.conditions:   # a new Wisdom save (dnd/spell_control.py)
            spell_control.hurt(self, t)
        if t.hp == 0:
            if not t.is_pc and regen and regen["at_zero"]:   # the troll dies only at its turn's start
                self.event("down", f"{t.cid} drops to 0 HP but may regenerate", creature=t.cid)
            elif not t.is_pc and self._stays_up(t, amount, dtype, critical):
                pass
            elif not t.is_pc:
                self._die(t, "0 hit points")
            elif amount - lost >= t.max_hp:   # SRD instant death: the rest >= max HP
                self._die(t, "massive damage")
            else:
                self._fall_unconscious(t)
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
        if petrified or spell_resist or self._mods(t.resist, dtype, magical) or features.resists(t, dtype) \
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

    def _fall_unconscious(self, t: Combatant) -> None:
        features.on_unconscious(self, t)   # a rage ends
        t.conditions["prone"] = {}
        self.end_concentration(t)
        t.death_successes = t.death_failures = 0
        t.stable = False
        self._release_grapples_by(t)
        self.event("unconscious", f"{t.cid} falls unconscious", creature=t.cid)

    def _die(self, t: Combatant, why: str) -> None:
        t.dead = True
        t.hp = 0
        self.end_concentration(t)
        self._release_grapples_by(t)
        self.event("death", f"{t.cid} dies ({why})", creature=t.cid)
        for o in sorted(self._swallowed_by(t), key=lambda o: o.cid):   # simplification: out at once
            self._spit_out(t, o, "the swallower died")
        t.resources["died_round"] = self.round   # a wraith's Create Specter: dead no longer than 1 minute
        if "death_burst" in t.resources:
            self._death_burst(t)

    def _death_save(self, t: Combatant) -> None:
        roll = self.roller.roll_d20(spell_buffs.death_save_adv(t), what=f"death save {t.cid}")   # Beacon of Hope
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
            self._die(t, "three failed death saves")
        elif t.death_successes >= 3 and "suffocating" not in t.conditions:   # (SRD Suffocating: not stabilised)
            t.stable = True
            self.event("stable", f"{t.cid} is stable", creature=t.cid)

    def heal(self, t: Combatant, amount: int, source: str) -> int:
        if t.dead or "no_heal" in t.conditions or "swarm" in t.features \
                or "negative_energy" in t.conditions:   # Chill Touch; a swarm never heals; a mummy lord's
            return 0
        amount = features_more.heal_bonus(self, t, amount, source)   # Disciple of Life, Blessed Healer
        before = t.hp
        t.hp = min(t.max_hp, t.hp + amount)
        if before == 0 and t.hp > 0:   # healing from 0: conscious again, saves reset
            t.death_successes = t.death_failures = 0
            t.stable = False
        self.event("heal", f"{t.cid} regains {t.hp - before} HP from {source} ({t.hp}/{t.max_hp})",
                   creature=t.cid, amount=t.hp - before)
        return t.hp - before

    # ================================================================ serialisation
    def __getstate__(self):
        # the map travels as its data (its sight and cover caches can be large); rebuilt on load
        state = dict(self.__dict__)
        state["map"] = ("battle_map", self.map.to_dict())
        state["_cache"] = state["_reach_cache"] = None
        state.pop("_dest_cache", None)
        state.pop("_points_cache", None)
        state.pop("_area_memo", None)
        return state

    def __setstate__(self, state):
        state["map"] = BattleMap.from_dict(state["map"][1])
        self.__dict__.update(state)

    def to_dict(self, recent_events: int = 8) -> dict[str, Any]:
        """The complete tactical state as plain data (the text and tensor views read this)."""
        d = self.decision
        return {
            "map": self.map.to_dict(), "round": self.round, "round_limit": self.round_limit,
            "objective": self.objective, "outcome": self.outcome, "party_side": self.party_side,
            "initiative": list(self.order), "active": self.active.cid if self.active else None,
            "combatants": [c.to_dict() for c in sorted(self.creatures.values(), key=lambda c: c.cid)],
            "decision": None if d is None else {
                "kind": d.kind, "actor": d.actor, "prompt": d.prompt,
                "options": [self._option_dict(o) for o in d.options]},
            "recent_events": [e["text"] for e in self.events(last=recent_events)],
            "zones": (spell_zones.describe(self) if self.zones else [])   # Darkness, Spike Growth... in words
            + (spell_wards.describe(self) if self.wards else []),   # and glyphs, magic circles (dnd/spell_wards.py)
            **({"light": lighting.describe(self)} if "lighting" in self.__dict__ else {}),   # a dark battle
        }

    def _option_dict(self, o: Opt) -> dict:
        """An option as data: its label, kind and what it points at (creature, square, direction)."""
        out: dict[str, Any] = {"label": o.label, "kind": o.kind}
        if o.kind == "target":
            out["target"] = o.data[0]
        elif o.kind == "destination":
            out["pos"] = list(o.data[0])
        elif o.kind == "point_x":
            out["x"] = o.data[0]
        elif o.kind == "point_y":
            out["y"] = o.data[0]
        elif o.kind == "point_z":
            out["z"] = o.data[0]
        elif o.kind == "direction":
            out["direction"] = list(o.data[0])
        elif o.kind == "route":
            r = self.pending["routes"][o.data[0]]
            out["provokes"] = list(r.provoked)
            out["cost_ft"] = r.cost_ft
        elif o.kind in ("attack", "spell", "save_action"):
            out["use"] = o.data[0]
        return out

    def events(self, last: int | None = None) -> list[dict]:
        """Narrated events (rolls are in the log too, without 'event')."""
        ev = [e for e in self.log if "event" in e]
        return ev if last is None else ev[-last:]


class _PathRoute(NamedTuple):
    cost_ft: int
    path: tuple


# buffs: spell -> the condition it puts on a willing target (ends with concentration if any)
BUFFS = {"shield-of-faith": "shield_of_faith", "bless": "blessed", "mage-armor": "mage_armor",
         "sanctuary": "sanctuary"}
# hostile save spells without damage: spell -> the condition on a failed save
DEBUFFS = {"bane": "baned", "hold-person": "paralyzed"}
# spells with several targets, each its own decision: spell -> targets at its base level (+1 per level)
MULTI = {"bless": 3, "bane": 3, "hold-person": 1}
# spell attack riders on a hit
SPELL_RIDERS = {"guiding-bolt": (("mark", "guided"),), "ray-of-frost": (("mark", "slowed"),),
                "chill-touch": (("mark", "chilled", "no_heal"),), "shocking-grasp": (("mark", "no_reactions"),)}
SUMMARIES = {
    "shield-of-faith": lambda c, lv: "+2 AC, concentration",
    "bless": lambda c, lv: f"{3 + lv - 1} allies +1d4 to attacks and saves, concentration",
    "bane": lambda c, lv: f"{3 + lv - 1} foes, DC {c.resources['spell_dc']} CHA or -1d4, concentration",
    "hold-person": lambda c, lv: f"{lv - 1} humanoids, DC {c.resources['spell_dc']} WIS or paralyzed, concentration",
    "mage-armor": lambda c, lv: "AC 13 + Dex without armour",
    "sanctuary": lambda c, lv: f"attackers of the ward must pass DC {c.resources['spell_dc']} WIS",
    "misty-step": lambda c, lv: "teleport 30 ft",
    "spirit-guardians": lambda c, lv: f"15-ft zone, DC {c.resources['spell_dc']} WIS, {lv}d8 radiant, concentration",
    "sleep": lambda c, lv: f"{5 + 2 * (lv - 1)}d8 HP of creatures fall asleep, 20-ft sphere",
    "scorching-ray": lambda c, lv: f"{lv + 1} rays, {c.resources['spell_attack']:+d}, 2d6 fire each",
    "spiritual-weapon": lambda c, lv: f"{c.resources['spell_attack']:+d}, {lv // 2}d8+{c.resources['spell_mod']} force, "
                                      "then a bonus-action attack each turn",
}
GUARDIANS_FT = 15
TURN_UNDEAD_FT = 30
ZERO_SPEED = ("grappled", "restrained", "paralyzed", "petrified", "stunned", "unconscious")
AUTO_FAIL = ("paralyzed", "petrified", "stunned", "unconscious")

def _route_label(i: int, r) -> str:
    parts = [f"{r.cost_ft} ft"]
    parts.append("provokes " + ", ".join(r.provoked) if r.provoked else "provokes no opportunity attack")
    if r.hazards:
        parts.append("hazards " + ", ".join(f"{k} x{n}" for k, n in r.hazards))
    return f"Route {i + 1} (" + "; ".join(parts) + ")"
