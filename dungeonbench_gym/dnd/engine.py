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
* ``point_x`` then ``point_y``: the grid intersection of a point-placed area (Fireball).
* ``direction``: one of 8 compass directions for cones and lines (Burning Hands, breath).
* ``reaction``: an opportunity attack, yes or no, when a creature leaves the reactor's reach.
* ``group``: when a decision has more options than ``max_options``, it is split: first a group
  (a row of destinations, a range), then the choice inside it. Nothing is ever truncated.

Randomness: every roll comes from one :class:`~.dice.Roller` whose log *is* the event log, so
rolls and events interleave and an episode replays from its seed and choices.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from . import areas
from .dice import Roller
from .grid import SQUARE_FT, BattleMap, Cover, box_distance_ft, footprint
from .state import AttackProfile, Combatant, DamagePart, Economy

DIRECTION_NAMES = {v: k for k, v in areas.COMPASS.items()}


class Opt(NamedTuple):
    """One option: what people read, what kind of step it is, and the payload the engine runs."""

    label: str
    kind: str
    data: tuple = ()
    group: str = ""     # key used when the decision must be split (a row of destinations)


class Decision(NamedTuple):
    kind: str
    actor: str
    options: tuple
    prompt: str


class Battle:
    """One encounter. Build it with combatants placed on a map, then read :attr:`decision` and
    call :meth:`choose` until :attr:`outcome` is set ("win" for the party, or "loss")."""

    def __init__(self, battle_map: BattleMap, combatants: list[Combatant], *, seed: int | None = 0,
                 roller: Roller | None = None, objective: dict | None = None,
                 round_limit: int = 20, max_options: int = 64, party_side: str = "party"):
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
        self.options_max = 0
        self._cache: Decision | None = None
        self._reach_cache = None
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

    def cover(self, attacker: Combatant, target: Combatant) -> Cover:
        others = frozenset(cell for o in self.creatures.values()
                           if not o.dead and o is not attacker and o is not target for cell in o.cells)
        return self.map.cover(attacker.cells, target.cells, others,
                              attacker_z=attacker.pos[2], target_z=target.pos[2])

    # ================================================================ initiative and turns
    def _roll_initiative(self) -> None:
        for c in sorted(self.creatures.values(), key=lambda c: c.cid):
            c.initiative = self.roller.roll_d20(bonus=c.dex_mod, what=f"initiative {c.cid}").total
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
                self.round += 1
                if self.round > self.round_limit:
                    self.round = self.round_limit
                    self._finish("survive" if self.objective["type"] == "survive" else "round_limit")
                    return
                self.event("round", f"Round {self.round}", round=self.round)
            c = self.active
            if c.dead:
                continue
            self._start_turn(c)
            if self._check_outcome():
                return
            if c.conscious and not c.incapacitated:
                self._open_menu(c)
                return
            # an unconscious or incapacitated creature's turn passes: the loop moves on

    def _start_turn(self, c: Combatant) -> None:
        c.economy = Economy(movement=self._speed(c))
        c.dodging = False   # Dodge and Shield last until the start of your next turn
        c.conditions.pop("shield", None)
        for o in self.creatures.values():   # Help lasts until the start of the helper's turn
            if o.conditions.get("helped", {}).get("by") == c.cid:
                del o.conditions["helped"]
        if c.dying:
            self._death_save(c)
        if not c.conscious:
            return
        for key, ready in sorted(c.recharge.items()):
            if not ready:   # SRD "Recharge X-Y": roll at the start of each of its turns
                usage = _monster_action(c, key).usage
                roll = self.roller.roll(usage.die or "1d6", what=f"recharge {c.cid} {key}")
                if roll >= usage.min_roll:
                    c.recharge[key] = True
                    self.event("recharge", f"{c.cid}'s {key} recharges ({roll})", creature=c.cid)
        self.event("turn", f"{c.cid}'s turn", creature=c.cid, round=self.round)

    def _speed(self, c: Combatant) -> int:
        if "grappled" in c.conditions or "restrained" in c.conditions:
            return 0
        return c.speed

    def _end_turn(self, c: Combatant, silent: bool = False) -> None:
        if not silent:
            self.event("end_turn", f"{c.cid} ends its turn", creature=c.cid)
        self.pending = {}
        self._next_turn()

    def _open_menu(self, c: Combatant) -> None:
        self.pending = {"kind": "action", "actor": c.cid}
        self._cache = None

    def _finish(self, how: str) -> None:
        if how in ("defeat", "reach", "survive"):
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
        obj = self.objective
        if obj["type"] == "protect":
            ward = self.creatures[obj["creature"]]
            if ward.dead or ward.hp == 0:
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
        opt = d.options[index]
        self._cache = None
        if opt.kind == "group":
            if opt.data[0] == "key":
                self.pending = dict(self.pending, group=opt.data[1])
            else:
                self.pending = dict(self.pending, span=(opt.data[1], opt.data[2]))
            return
        self._apply(self.pending, opt)
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
            opts = self._destination_options(c)
        elif kind == "route":
            opts = [Opt(_route_label(i, r), "route", (i,)) for i, r in enumerate(p["routes"])]
        elif kind == "point_x":
            opts = [Opt(f"x = {x}", "point_x", (x,)) for x in sorted({pt[0] for pt in self._points(c, p)})]
        elif kind == "point_y":
            opts = [Opt(self._area_label(c, p, (p["x"], y)), "point_y", (y,))
                    for y in sorted(pt[1] for pt in self._points(c, p) if pt[0] == p["x"])]
        elif kind == "direction":
            opts = [Opt(self._area_label(c, p, d), "direction", (d,)) for d in areas.DIRECTIONS_8]
        elif kind == "reaction" and p.get("reaction") == "uncanny_dodge":
            st = self.attack_state
            opts = [Opt(f"Uncanny Dodge (halve the damage of {p['attacker']}'s {st['attack'].key})", "reaction",
                        (True,)),
                    Opt("Take the full hit", "reaction", (False,))]
        elif kind == "reaction" and p.get("reaction") == "shield":
            st = self.attack_state
            opts = [Opt(f"Cast Shield (+5 AC: {p['attacker']}'s {st['attack'].key} ({st['total']} vs AC {st['ac']}) "
                        f"misses; uses a spell slot)", "reaction", (True,)),
                    Opt("Take the hit", "reaction", (False,))]
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
        return {"action": f"{actor}: choose an action",
                "target": (f"{actor}: choose the target of the next dart" if p.get("use", ("",))[0] == "dart"
                           else f"{actor}: choose a target for {p.get('use', ('?', '?'))[1]}"),
                "destination": f"{actor}: choose where to move ({self.creatures[actor].economy.movement} ft left)",
                "route": f"{actor}: choose a route",
                "point_x": f"{actor}: choose the x coordinate of the point",
                "point_y": f"{actor}: choose the y coordinate of the point (x = {p.get('x')})",
                "direction": f"{actor}: choose a direction",
                "reaction": (f"{actor}: {p.get('attacker')} hits you" if p.get("attacker") else
                             f"{actor}: {p.get('mover')} is leaving your reach")}.get(kind, kind)

    def _action_options(self, c: Combatant) -> list[Opt]:
        e = c.economy
        out: list[Opt] = []
        has_action = e.actions > 0
        prone = "prone" in c.conditions
        if prone and e.movement >= self._speed(c) // 2 and self._speed(c) > 0:
            out.append(Opt(f"Stand up (costs {self._speed(c) // 2} ft)", "stand"))
        if e.movement >= SQUARE_FT and not prone and self._can_step(c):
            out.append(Opt(f"Move ({e.movement} ft left)", "move"))
        # attacks: the rest of an Attack action, a multiattack in progress, or a new one
        if e.attack_queue:
            a = c.attack(e.attack_queue[0])
            if self._targets_for_attack(c, a):
                out.append(Opt(f"Multiattack: attack with {a.name} ({a.short()})", "attack", (a.key, "queue")))
        elif e.attacks_left > 0 or has_action:
            for a in c.attacks:
                if self._targets_for_attack(c, a):
                    note = f", {e.attacks_left} left" if e.attacks_left else ""
                    out.append(Opt(f"Attack with {a.name} ({a.short()}{note})", "attack", (a.key, "attack")))
            if c.is_pc:   # SRD Shove: one attack of the Attack action, a contest of Athletics
                for mode, what in (("prone", "Shove prone"), ("push", "Shove away 5 ft"), ("grapple", "Grapple")):
                    if self._shove_targets(c, mode):
                        out.append(Opt(f"{what} (Athletics {self._athletics(c):+d}, contested)", "shove", (mode,)))
        if has_action and c.multiattack and not e.attack_queue and e.attacks_left == 0:
            first = c.attack(c.multiattack[0])
            if self._targets_for_attack(c, first):
                out.append(Opt(f"Multiattack ({', '.join(c.multiattack)})", "multiattack"))
        if has_action:
            for key in c.save_actions:
                if c.recharge.get(key, True):
                    spec = _monster_action(c, key)
                    out.append(Opt(f"{spec.name} ({spec.area.size}-ft {spec.area.shape}, DC {spec.save.dc} "
                                   f"{spec.save.ability.upper()}, {spec.save.damage[0].dice})",
                                   "save_action", (key,)))
            out.append(Opt("Dash", "dash"))
            out.append(Opt("Disengage", "disengage"))
            out.append(Opt("Dodge", "dodge"))
            if any(self.distance(c, o) <= SQUARE_FT for o in self.enemies_of(c)):
                out.append(Opt("Help", "help"))
            if "grappled" in c.conditions:
                g = c.conditions["grappled"]
                against = f"DC {g['dc']}" if g.get("dc") is not None else "contested"
                out.append(Opt(f"Escape the grapple ({against})", "escape"))
        out.extend(self._spell_options(c))
        if c.resources.get("potions", 0) > 0 and has_action and c.hp < c.max_hp:
            out.append(Opt(f"Drink a potion of healing (2d4+2, {c.resources['potions']} left)", "potion"))
        if e.bonus and c.resources.get("second_wind", 0) > 0 and c.hp < c.max_hp:
            out.append(Opt(f"Second Wind (bonus action, heal 1d10+{c.level})", "second_wind"))
        if e.bonus and e.light_attack:   # two-weapon fighting: the other light weapon, as a bonus action
            for a in c.attacks:
                if a.offhand and a.key != e.light_attack and self._targets_for_attack(c, a):
                    out.append(Opt(f"Off-hand attack with {a.name} (bonus action, {a.to_hit:+d}, "
                                   f"{'+'.join(p.dice for p in a.offhand)})", "attack", (a.key, "offhand")))
        if "cunning_action" in c.features and e.bonus:
            out.append(Opt("Cunning Action: Dash", "cunning_dash"))
            out.append(Opt("Cunning Action: Disengage", "cunning_disengage"))
        if c.resources.get("action_surge", 0) > 0 and not e.surged:
            out.append(Opt("Action Surge (one more action)", "action_surge"))
        out.append(Opt("End turn", "end_turn"))
        return out

    def _spell_options(self, c: Combatant) -> list[Opt]:
        """Each castable spell at each legal slot level (upcasting), with a target or a placement.

        SRD bonus-action rule: after a bonus-action spell only an action cantrip may follow, and
        after a levelled action spell no bonus-action spell may."""
        from . import content
        out = []
        e = c.economy
        slots = c.resources.get("slots", ())
        for key in c.spells:
            sp = content.spell(key)
            if sp.casting_time == "reaction":   # Shield: offered as a reaction decision, not here
                continue
            bonus = sp.casting_time == "bonus_action"
            if bonus and (not e.bonus or e.levelled_action_spell):
                continue
            if not bonus and (e.actions <= 0 or (e.bonus_spell and sp.level > 0)):
                continue
            levels = [0] if sp.level == 0 else [lv for lv in range(sp.level, len(slots) + 1) if slots[lv - 1] > 0]
            if not levels:
                continue
            if sp.area is None:
                if not self._spell_targets(c, key):
                    continue
            elif sp.area.shape == "sphere" and not self._points(c, {"use": ("spell", key, levels[0])}):
                continue
            how = " (bonus action)" if bonus else ""
            for level in levels:
                at = f" at level {level}" if level else ""
                out.append(Opt(f"Cast {sp.name}{at}{how} ({self._spell_summary(c, key, level)})", "spell",
                               (key, level)))
        return out

    def _spell_summary(self, c: Combatant, key: str, level: int) -> str:
        from . import content
        sp = content.spell(key)
        if key == "magic-missile":
            return f"{2 + level} darts of 1d4+1 force, auto-hit"
        if sp.heal_at_slot_level:
            return f"heal {sp.heal_for(level)}{c.resources['spell_mod']:+d}"
        if key == "shield-of-faith":
            return "+2 AC, concentration"
        dice = sp.damage_for(slot_level=level or None, character_level=c.level)
        if sp.area is not None:
            return (f"{sp.area.size}-ft {sp.area.shape}, DC {c.resources['spell_dc']} "
                    f"{sp.save_ability.upper()}, {dice} {sp.damage_type}")
        if sp.save_ability:
            return f"DC {c.resources['spell_dc']} {sp.save_ability.upper()}, {dice} {sp.damage_type}"
        return f"{c.resources['spell_attack']:+d}, {dice} {sp.damage_type}"

    def _can_step(self, c: Combatant) -> bool:
        return len(self._reach(c)) > 1

    def _reach(self, c: Combatant):
        # asked several times per decision (menu, destinations, planner): one cached answer
        key = (c.cid, c.pos, c.economy.movement,
               tuple((o.pos, o.side, o.dead) for o in self.creatures.values()))
        if self._reach_cache is not None and self._reach_cache[0] == key:
            return self._reach_cache[1]
        hostile = [cell for o in self.enemies_of(c) for cell in o.cells]
        friends = [cell for o in self.allies_of(c) for cell in o.cells]
        r = self.map.reachable(c.pos, c.size, c.economy.movement, blocked_by=hostile, pass_through=friends)
        self._reach_cache = (key, r)
        return r

    def _destination_options(self, c: Combatant) -> list[Opt]:
        r = self._reach(c)
        start = tuple(c.pos)
        n = c.squares
        foes = [(o.cid, o.pos, o.squares) for o in self.enemies_of(c)]
        out = []
        for pos in r.destinations:
            if pos == start:
                continue
            note = ""
            if foes:   # the nearest foe from there, so a reader can judge the square
                d, cid = min((box_distance_ft(pos[0], pos[1], n, pos[2], fp[0], fp[1], fn, fp[2]), cid)
                             for cid, fp, fn in foes)
                note = f", {d} ft from {cid}"
            out.append(Opt(f"Move to ({pos[0]}, {pos[1]}) ({r.costs[pos]} ft{note})", "destination",
                           (pos,), group=f"row y={pos[1]}"))
        return out

    # ---------------------------------------------------------------- targets
    def _attack_range(self, c: Combatant, a: AttackProfile, t: Combatant) -> str | None:
        """"melee", "ranged" or None: how this attack can reach this target now."""
        d = self.distance(c, t)
        if a.melee and d <= a.reach:
            return "melee"
        if a.range_normal and d <= a.range_long:
            return "ranged"
        return None

    def _targets_for_attack(self, c: Combatant, a: AttackProfile) -> list[Combatant]:
        out = []
        for t in self.enemies_of(c):
            if self._attack_range(c, a, t) and self.cover(c, t) != Cover.TOTAL:
                out.append(t)
        return out

    def _spell_targets(self, c: Combatant, key: str) -> list[Combatant]:
        from . import content
        sp = content.spell(key)
        rng = SQUARE_FT if sp.range_kind == "touch" else (sp.range_feet or 0)
        if sp.heal_at_slot_level:   # the living, wounded, self included
            pool = [o for o in self.creatures.values()
                    if o.side == c.side and not o.dead and o.hp < o.max_hp]
        elif key in BUFFS:
            pool = [o for o in self.creatures.values()
                    if o.side == c.side and not o.dead and BUFFS[key] not in o.conditions]
        else:
            pool = self.enemies_of(c)
        return [t for t in pool if (t is c or self.distance(c, t) <= rng) and self.cover(c, t) != Cover.TOTAL]

    def _target_options(self, c: Combatant, p: dict) -> list[Opt]:
        use = p["use"]
        out = []
        if use[0] == "attack":
            a = c.attack(use[1])
            if use[2] == "offhand":
                a = a._replace(damage=a.offhand, range_normal=0, range_long=0)
            for t in self._targets_for_attack(c, a):
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
        elif use[0] == "shove":
            for t in self._shove_targets(c, use[1]):
                what = {"prone": f"Shove {t.cid} prone", "push": f"Shove {t.cid} away", "grapple": f"Grapple {t.cid}"}
                out.append(Opt(f"{what[use[1]]} [contest: your "
                               f"{self._athletics(c):+d} vs its {self._escape_bonus(t):+d}]", "target", (t.cid,)))
        elif use[0] == "help":
            for t in self.enemies_of(c):
                if self.distance(c, t) <= SQUARE_FT:
                    out.append(Opt(f"Help an ally attack {t.cid}", "target", (t.cid,)))
        return out

    # ---------------------------------------------------------------- areas
    def _area(self, c: Combatant, use: tuple, where) -> areas.Area:
        shape, size = self._area_shape(c, use)
        if shape == "sphere":
            return areas.sphere(where, size, self.map)
        if shape == "cone":
            return areas.cone(c.cells, size, where, c.pos[2])
        return areas.line(c.cells, size, where, 5, c.pos[2])

    def _area_shape(self, c: Combatant, use: tuple):
        from . import content
        if use[0] == "spell":
            a = content.spell(use[1]).area
        else:
            a = _monster_action(c, use[1]).area
        return a.shape, a.size

    def area_hits(self, c: Combatant, use: tuple, where) -> list[Combatant]:
        """The creatures (either side, not the user) an area placed there would affect."""
        area = self._area(c, use, where)
        return [o for o in self.creatures.values()
                if not o.dead and o is not c and areas.affects(area, self.map, o.cells, o.pos[2])]

    def _area_label(self, c: Combatant, p: dict, where) -> str:
        hits = self.area_hits(c, p["use"], where)
        names = ", ".join(o.cid for o in hits) or "no one"
        if isinstance(where, tuple) and len(where) == 3:
            return f"Toward {DIRECTION_NAMES[where]} (hits {names})"
        return f"Point ({where[0]}, {where[1]}) (hits {names})"

    def _points(self, c: Combatant, p: dict) -> list:
        """Grid intersections a point-placed area can be centred on: in range and visible."""
        from . import content
        use = p["use"]
        rng = content.spell(use[1]).range_feet or 0
        W, H = self.map.width, self.map.height
        key = ("points", c.cid, c.pos, rng)
        cached = p.get("_points_key")
        if cached == key and "_points" in p:
            return p["_points"]
        out = []
        for y in range(H + 1):
            for x in range(W + 1):
                cell = (min(x, W - 1), min(y, H - 1))
                if self.map.is_wall(*cell):
                    continue
                if self.map.distance_ft(c.cells, [cell], c.pos[2], None) <= rng and \
                        self.map.line_of_effect(c.cells, [cell], a_z=c.pos[2]):
                    out.append((x, y))
        p["_points_key"], p["_points"] = key, out
        return out

    # ================================================================ applying options
    def _apply(self, p: dict, opt: Opt) -> None:
        c = self.creatures[p["actor"]]
        kind = opt.kind
        if p["kind"] == "reaction":
            self._resolve_reaction(c, p, opt.data[0])
            return
        if kind == "end_turn":
            self._end_turn(c)
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
            self.event("multiattack", f"{c.cid} makes a multiattack", creature=c.cid)
            self._back_to_menu(c)
        elif kind == "target":
            self._resolve_target(c, p["use"], self.creatures[opt.data[0]])
        elif kind == "spell":
            self._begin_spell(c, opt.data[0], opt.data[1])
        elif kind == "save_action":
            self.pending = {"kind": "direction", "actor": c.cid, "use": ("save_action", opt.data[0])}
        elif kind == "direction":
            self._resolve_area(c, p["use"], opt.data[0])
        elif kind == "point_x":
            self.pending = {"kind": "point_y", "actor": c.cid, "use": p["use"], "x": opt.data[0]}
        elif kind == "point_y":
            self._resolve_area(c, p["use"], (p["x"], opt.data[0]))
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
        elif kind == "dodge":
            self._spend(c)
            c.dodging = True
            self.event("dodge", f"{c.cid} takes the Dodge action", creature=c.cid)
        elif kind == "help":
            self.pending = {"kind": "target", "actor": c.cid, "use": ("help", "Help")}
            return
        elif kind == "escape":
            self._spend(c)
            g = c.conditions["grappled"]
            roll = self.roller.roll_d20(bonus=self._escape_bonus(c), what=f"escape {c.cid}")
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
        elif kind == "action_surge":
            c.resources["action_surge"] -= 1
            e.actions += 1
            e.surged = True
            self.event("action_surge", f"{c.cid} surges: one more action", creature=c.cid)
        self._back_to_menu(c)

    def _spend(self, c: Combatant, bonus: bool = False) -> None:
        if bonus:
            c.economy.bonus = False
        else:
            c.economy.actions -= 1

    # ---------------------------------------------------------------- movement
    def _choose_destination(self, c: Combatant, dest: tuple) -> None:
        threats = {}
        if not c.economy.disengaged:
            for o in self.enemies_of(c):
                if o.conscious and not o.incapacitated and o.economy.reaction and o.melee_reach:
                    threats[o.cid] = self.map.threat_area(o.cells, o.melee_reach, c.size, enemy_z=o.pos[2])
        hostile = [cell for o in self.enemies_of(c) for cell in o.cells]
        friends = [cell for o in self.allies_of(c) for cell in o.cells]
        # Routes differ in consequences only near threats or hazards. Without threats, a cheapest
        # path that crosses no hazard dominates every other route: no need to search.
        r = self._reach(c)
        crosses = self.map.hazard_cells and any(
            self.map.hazard_at(x, y) for p in r.path(dest) for x, y in footprint(p[0], p[1], c.squares))
        routes = self.map.routes(c.pos, dest, c.size, c.economy.movement, threat_cells_by_creature=threats,
                                 blocked_by=hostile, pass_through=friends) if threats or crosses else []
        if len(routes) > 1:
            self.pending = {"kind": "route", "actor": c.cid, "routes": routes}
            return
        if routes:
            self._start_move(c, routes[0])
            return
        self._start_move(c, _PathRoute(r.costs[dest], r.path(dest)))

    def _start_move(self, c: Combatant, route) -> None:
        c.economy.movement -= route.cost_ft
        c.economy.moved += route.cost_ft
        self._release_grapples_by(c)   # simplification: a grappler that walks away lets go
        self.move_state = {"mover": c.cid, "path": tuple(route.path), "i": 0, "asked": ()}
        self._continue_move()

    def _continue_move(self) -> None:
        ms = self.move_state
        c = self.creatures[ms["mover"]]
        path = ms["path"]
        while ms["i"] < len(path) - 1 and c.conscious:
            here, nxt = path[ms["i"]], path[ms["i"] + 1]
            c.pos = tuple(here)
            if not c.economy.disengaged:
                for o in sorted(self.enemies_of(c), key=lambda o: o.cid):
                    if o.cid in ms["asked"] or not o.conscious or o.incapacitated or not o.economy.reaction:
                        continue
                    melee = [a for a in o.attacks if a.melee]
                    if not melee:
                        continue
                    reach = max(a.reach for a in melee)
                    if self.distance_from(c, here, o) <= reach < self.distance_from(c, nxt, o):
                        best = max(melee, key=lambda a: (_expected(a), a.key))
                        ms["asked"] = ms["asked"] + (o.cid,)
                        self.pending = {"kind": "reaction", "actor": o.cid, "mover": c.cid, "attack": best.key}
                        self._cache = None
                        return
            ms["i"] += 1
            c.pos = tuple(path[ms["i"]])
            self._enter_hazards(c, c.pos)
        if c.conscious:
            c.pos = tuple(path[ms["i"]])
            self.event("move", f"{c.cid} moves to ({c.pos[0]}, {c.pos[1]})", creature=c.cid, pos=list(c.pos))
        self.move_state = None
        if not self._check_outcome():
            self._back_to_menu(self.creatures[ms["mover"]] if self.active is None else self.active)

    def _enter_hazards(self, c: Combatant, pos: tuple) -> None:
        """Damage for each hazard square the creature's space moves onto (spikes, fire)."""
        for cell in footprint(pos[0], pos[1], c.squares):
            hz = self.map.hazard_at(*cell)
            if hz and hz.get("damage") and c.conscious:
                amount = self.roller.roll_damage(hz["damage"], what=f"hazard {hz['kind']}")
                self.event("hazard", f"{c.cid} enters {hz['kind']} at ({cell[0]}, {cell[1]})", creature=c.cid)
                self.damage(c, amount, hz.get("damage_type", hz["kind"]), source=hz["kind"])

    def _resolve_reaction(self, reactor: Combatant, p: dict, take: bool) -> None:
        if p.get("reaction") in ("shield", "uncanny_dodge"):
            st, self.attack_state = self.attack_state, None
            if take and p["reaction"] == "shield":
                self._cast_shield(reactor)
                st = dict(st, ac=st["ac"] + 5, hit=st["total"] >= st["ac"] + 5)
            elif take:
                reactor.economy.reaction = False
                self.event("reaction", f"{reactor.cid} uses Uncanny Dodge: half damage", creature=reactor.cid)
                st = dict(st, halve=True)
            self._land(st)
            if self._check_outcome():
                return
            self._after_attack(st["then"], self.creatures[st["attacker"]])
            return
        mover = self.creatures[p["mover"]]
        if take:
            reactor.economy.reaction = False
            self.event("reaction", f"{reactor.cid} makes an opportunity attack on {mover.cid}",
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

    # ---------------------------------------------------------------- attacks
    def attack_modifiers(self, c: Combatant, t: Combatant, melee: bool, a: AttackProfile | None = None):
        """(advantage, disadvantage, reasons) for c attacking t (SRD conditions, Dodge, Help, range)."""
        adv, dis = [], []
        dist = self.distance(c, t)
        if "prone" in c.conditions:
            dis.append("attacker prone")
        if "restrained" in c.conditions:
            dis.append("attacker restrained")
        if "prone" in t.conditions:
            (adv if dist <= SQUARE_FT else dis).append("target prone")
        if "restrained" in t.conditions:
            adv.append("target restrained")
        if not t.conscious:
            adv.append("target unconscious")
        if t.dodging and not t.incapacitated:
            dis.append("target dodging")
        helped = t.conditions.get("helped")
        if helped and self.creatures[helped["by"]].side == c.side:
            adv.append("helped")
        if not melee:
            if a is not None and a.range_normal and dist > a.range_normal:
                dis.append("long range")
            if any(o.conscious and not o.incapacitated and self.distance(c, o) <= SQUARE_FT
                   for o in self.enemies_of(c)):
                dis.append("hostile within 5 ft")
        return bool(adv), bool(dis), adv + dis

    def make_attack(self, c: Combatant, a: AttackProfile, t: Combatant, melee: bool | None = None,
                    then: str = "none") -> bool | None:
        """Roll one attack with all its consequences; True on a hit, False on a miss, None when
        the target gets a reaction decision first (Shield): the attack then finishes in
        :meth:`_resolve_reaction` and continues with ``then`` ("menu", "move" or "none")."""
        if melee is None:
            melee = self._attack_range(c, a, t) == "melee"
        adv, dis, reasons = self.attack_modifiers(c, t, melee, a)
        if "helped" in reasons:
            del t.conditions["helped"]   # Help grants the first attack only
        cover = self.cover(c, t)
        ac = self.armour_class(t) + (cover.bonus or 0)
        roll = self.roller.roll_d20(adv, dis, bonus=a.to_hit, what=f"attack {c.cid}->{t.cid} {a.key}")
        hit = roll.natural == 20 or (roll.natural != 1 and roll.total >= ac)
        crit = roll.natural == 20
        # SRD: a melee hit on an unconscious creature within 5 ft is a critical hit
        if hit and melee and not t.conscious and self.distance(c, t) <= SQUARE_FT:
            crit = True
        state = {"attacker": c.cid, "target": t.cid, "attack": a, "melee": melee, "hit": hit, "crit": crit,
                 "adv": adv, "dis": dis, "total": roll.total, "ac": ac, "mode": roll.advantage, "then": then}
        reaction = None
        if hit and not crit and roll.total < ac + 5 and self._can_shield(t):
            reaction = "shield"
        elif hit and "uncanny_dodge" in t.features and t.conscious and t.economy.reaction:
            reaction = "uncanny_dodge"
        if reaction:
            self.attack_state = state
            self.pending = {"kind": "reaction", "actor": t.cid, "reaction": reaction, "attacker": c.cid}
            self._cache = None
            return None
        return self._land(state)

    def armour_class(self, t: Combatant) -> int:
        """AC with the spells up on it: Shield +5, Shield of Faith +2."""
        return t.ac + (5 if "shield" in t.conditions else 0) + (2 if "shield_of_faith" in t.conditions else 0)

    def _can_shield(self, t: Combatant) -> bool:
        return ("shield" in t.spells and t.conscious and t.economy.reaction and "shield" not in t.conditions
                and any(t.resources.get("slots", ())))

    def _land(self, st: dict) -> bool:
        """The rest of an attack once the roll stands: the event, damage, on-hit effects."""
        c, t, a = self.creatures[st["attacker"]], self.creatures[st["target"]], st["attack"]
        hit, crit = st["hit"], st["crit"]
        mode = st["mode"]
        self.event("attack", f"{c.cid} {'crits' if crit else ('hits' if hit else 'misses')} {t.cid} with "
                   f"{a.key} ({st['total']} vs AC {st['ac']}{', ' + mode if mode != 'none' else ''})",
                   attacker=c.cid, target=t.cid, attack=a.key, total=st["total"], ac=st["ac"], hit=hit,
                   critical=crit)
        if not hit:
            return False
        melee = st["melee"]
        parts = list(a.damage)
        if "sneak_attack" in c.features and not c.economy.sneak_used and (a.finesse or not melee) \
                and self.sneak_attack_allowed(c, t, st["adv"], st["dis"]):
            c.economy.sneak_used = True
            parts.append(DamagePart(c.resources["sneak_attack_dice"], parts[0].type))
            self.event("sneak_attack", f"{c.cid} adds Sneak Attack ({c.resources['sneak_attack_dice']})",
                       creature=c.cid)
        for part in parts:
            amount = self.roller.roll_damage(part.dice, critical=crit, what=f"damage {a.key} {part.type}")
            if st.get("halve"):   # Uncanny Dodge
                amount //= 2
            self.damage(t, amount, part.type, magical=a.spell, critical=crit, source=c.cid)
        if t.conscious:
            for effect in a.on_hit:
                self._on_hit(c, t, effect)
        return True

    def _cast_shield(self, t: Combatant) -> None:
        slots = list(t.resources["slots"])
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
            return c.mod("str") + (c.prof if c.pc_class == "fighter" else 0)
        return self._skill(c, "athletics", "str")

    def _escape_bonus(self, t: Combatant) -> int:
        """The better of Athletics and Acrobatics (resisting a shove, escaping a grapple)."""
        if t.is_pc:
            return max(self._athletics(t), t.mod("dex") + (t.prof if t.pc_class == "rogue" else 0))
        return max(self._skill(t, "athletics", "str"), self._skill(t, "acrobatics", "dex"))

    @staticmethod
    def _skill(c: Combatant, skill: str, ability: str) -> int:
        from . import content
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

    def _shove_targets(self, c: Combatant, mode: str) -> list[Combatant]:
        out = []
        for t in self.enemies_of(c):
            if self.distance(c, t) > SQUARE_FT or _SIZES.index(t.size) > _SIZES.index(c.size) + 1:
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
        mine = self.roller.roll_d20(bonus=self._athletics(c), what=f"shove {c.cid}")
        theirs = self.roller.roll_d20(bonus=self._escape_bonus(t), what=f"resist shove {t.cid}")
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
        if effect[0] == "save":
            _, ability, dc, conditions, damage, half = effect
            ok = self.saving_throw(t, ability, dc)
            for part in damage:
                amount = self.roller.roll_damage(part.dice, what=f"damage {part.type}")
                if ok:
                    amount = amount // 2 if half else 0
                self.damage(t, amount, part.type, source=c.cid)
            if not ok:
                for cond in conditions:
                    if cond not in t.condition_immunities and t.conscious:
                        t.conditions[cond] = {"by": c.cid}
                        self.event("condition", f"{t.cid} is {cond}", creature=t.cid, condition=cond)
        elif effect[0] == "grapple":
            _, dc, size_max, restrained = effect
            if "grappled" in t.condition_immunities:
                return
            if size_max and _SIZES.index(t.size) > _SIZES.index(size_max):
                return
            t.conditions["grappled"] = {"by": c.cid, "dc": dc}
            if restrained:
                t.conditions["restrained"] = {"by": c.cid, "dc": dc}
            self.event("condition", f"{t.cid} is grappled by {c.cid} (escape DC {dc})", creature=t.cid,
                       condition="grappled")

    def _release(self, c: Combatant) -> None:
        by = c.conditions.get("grappled", {}).get("by")
        for cond in ("grappled", "restrained"):
            if c.conditions.get(cond, {}).get("by") == by:
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
            else:
                if e.attacks_left == 0:   # taking the Attack action
                    e.actions -= 1
                    e.attacks_left = 2 if "extra_attack" in c.features else 1
                e.attacks_left -= 1
                if a.offhand and a.melee:
                    e.light_attack = a.key
            if self.make_attack(c, a, t, then="menu") is None:
                return   # the target decides on a reaction first
        elif use[0] == "spell":
            if self._cast_at(c, use[1], use[2], t) is None:
                return
        elif use[0] == "dart":
            self._dart(c, t, use[2] - 1)
            return
        elif use[0] == "shove":
            if e.attacks_left == 0:   # a shove replaces one attack of the Attack action
                e.actions -= 1
                e.attacks_left = 2 if "extra_attack" in c.features else 1
            e.attacks_left -= 1
            self._shove(c, t, use[1])
        elif use[0] == "help":
            e.actions -= 1
            t.conditions["helped"] = {"by": c.cid}
            self.event("help", f"{c.cid} helps its allies against {t.cid}", creature=c.cid, target=t.cid)
        self._back_to_menu(c)

    # ---------------------------------------------------------------- spells and areas
    def _begin_spell(self, c: Combatant, key: str, level: int) -> None:
        from . import content
        sp = content.spell(key)
        use = ("spell", key, level)
        if sp.area is None:
            self.pending = {"kind": "target", "actor": c.cid, "use": use}
        elif sp.area.shape == "sphere":
            self.pending = {"kind": "point_x", "actor": c.cid, "use": use}
        else:
            self.pending = {"kind": "direction", "actor": c.cid, "use": use}

    def _pay_spell(self, c: Combatant, key: str, level: int) -> None:
        from . import content
        sp = content.spell(key)
        e = c.economy
        if sp.casting_time == "bonus_action":
            e.bonus = False
            e.bonus_spell = True
        else:
            e.actions -= 1
            e.levelled_action_spell |= level > 0
        if level:
            slots = list(c.resources["slots"])
            slots[level - 1] -= 1
            c.resources["slots"] = tuple(slots)
        self.event("cast", f"{c.cid} casts {key}" + (f" at level {level}" if level else ""),
                   creature=c.cid, spell=key, level=level)
        if sp.concentration:   # one concentration spell at a time: a new one ends the old
            self.end_concentration(c)
            c.concentration = key

    def end_concentration(self, c: Combatant) -> None:
        """Concentration ends: the effects this creature keeps up end with it."""
        if c.concentration is None:
            return
        effect = BUFFS.get(c.concentration)
        for o in self.creatures.values():
            if effect and o.conditions.get(effect, {}).get("by") == c.cid:
                del o.conditions[effect]
        self.event("concentration", f"{c.cid}'s {c.concentration} ends", creature=c.cid)
        c.concentration = None

    def _dart(self, c: Combatant, t: Combatant, left: int) -> None:
        """One Magic Missile dart (1d4+1 force); then the next dart's target, or back to the menu."""
        amount = self.roller.roll_damage("1d4+1", what="damage magic-missile force")
        self.damage(t, amount, "force", magical=True, source=c.cid)
        if left and self.outcome is None and not self._check_outcome() and self._spell_targets(c, "magic-missile"):
            self.pending = {"kind": "target", "actor": c.cid, "use": ("dart", "magic-missile", left)}
        else:
            self._back_to_menu(c)

    def _cast_at(self, c: Combatant, key: str, level: int, t: Combatant) -> bool | None:
        from . import content
        sp = content.spell(key)
        self._pay_spell(c, key, level)
        if key == "magic-missile":   # every dart hits; each further dart is its own target decision
            self._dart(c, t, 2 + level - 1)
            return None
        if sp.heal_at_slot_level:
            mod = c.resources["spell_mod"] if sp.heal_adds_modifier else 0
            self.heal(t, max(1, self.roller.roll(sp.heal_for(level), what=f"heal {key}") + mod), key)
            return True
        if key in BUFFS:
            t.conditions[BUFFS[key]] = {"by": c.cid}
            self.event("condition", f"{t.cid} is under {key}", creature=t.cid, condition=BUFFS[key])
            return True
        dice = sp.damage_for(slot_level=level or None, character_level=c.level)
        if sp.save_ability:   # a single-target save cantrip (Sacred Flame): no half on a success
            if not self.saving_throw(t, sp.save_ability, c.resources["spell_dc"]):
                amount = self.roller.roll_damage(dice, what=f"damage {key} {sp.damage_type}")
                self.damage(t, amount, sp.damage_type, magical=True, source=c.cid)
            return True
        profile = AttackProfile(key, sp.name, c.resources["spell_attack"], (DamagePart(dice, sp.damage_type),),
                                sp.attack_type == "melee", 5, sp.range_feet or 0, sp.range_feet or 0, spell=True)
        return self.make_attack(c, profile, t, melee=sp.attack_type == "melee", then="menu")

    def _resolve_area(self, c: Combatant, use: tuple, where) -> None:
        from . import content
        hits = self.area_hits(c, use, where)
        if use[0] == "spell":
            sp = content.spell(use[1])
            self._pay_spell(c, use[1], use[2])
            ability, dc, half = sp.save_ability, c.resources["spell_dc"], sp.save_success == "half"
            parts = (DamagePart(sp.damage_for(slot_level=use[2]), sp.damage_type),)
            magical = True
        else:
            spec = _monster_action(c, use[1])
            c.economy.actions -= 1
            if use[1] in c.recharge:
                c.recharge[use[1]] = False
            self.event("save_action", f"{c.cid} uses {spec.name}", creature=c.cid, action=use[1])
            ability, dc, half = spec.save.ability, spec.save.dc, spec.save.half_on_success
            parts = tuple(DamagePart(d.dice, d.type) for d in spec.save.damage)
            magical = True
        # SRD: roll the damage once for everyone in the area
        rolled = [(p.type, self.roller.roll_damage(p.dice, what=f"damage {use[1]} {p.type}")) for p in parts]
        for t in hits:
            ok = self.saving_throw(t, ability, dc)
            for dtype, amount in rolled:
                self.damage(t, (amount // 2 if half else 0) if ok else amount, dtype, magical=magical,
                            source=c.cid)
        self._back_to_menu(c)

    def saving_throw(self, t: Combatant, ability: str, dc: int) -> bool:
        # SRD: an unconscious creature automatically fails Strength and Dexterity saves
        if not t.conscious and ability in ("str", "dex"):
            self.event("save", f"{t.cid} fails the {ability.upper()} save automatically (unconscious)",
                       creature=t.cid, success=False)
            return False
        dis = "restrained" in t.conditions and ability == "dex"
        roll = self.roller.roll_d20(False, dis, bonus=t.saves[ability], what=f"save {t.cid} {ability}")
        ok = roll.total >= dc
        self.event("save", f"{t.cid} {'succeeds on' if ok else 'fails'} a DC {dc} {ability.upper()} save "
                   f"({roll.total})", creature=t.cid, success=ok)
        return ok

    # ================================================================ damage, healing, dying
    def damage(self, t: Combatant, amount: int, dtype: str, *, magical: bool = False,
               critical: bool = False, source: str | None = None) -> int:
        """Apply damage after immunity, resistance, vulnerability and temp HP; returns HP lost."""
        if t.dead:
            return 0
        amount = self.modified_damage(t, amount, dtype, magical)
        if amount <= 0:
            if amount == 0 and self._mods(t.immune, dtype, magical):
                self.event("damage", f"{t.cid} is immune to {dtype}", creature=t.cid, amount=0)
            return 0
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
        self.event("damage", f"{t.cid} takes {amount} {dtype} damage ({t.hp}/{t.max_hp} HP)",
                   creature=t.cid, amount=amount, type=dtype, source=source)
        if t.hp == 0:
            if not t.is_pc:
                self._die(t, "0 hit points")
            elif amount - lost >= t.max_hp:   # SRD instant death: the rest >= max HP
                self._die(t, "massive damage")
            else:
                self._fall_unconscious(t)
        elif t.concentration:
            self.concentration_check(t, amount)
        return amount

    def modified_damage(self, t: Combatant, amount: int, dtype: str, magical: bool = False) -> int:
        if self._mods(t.immune, dtype, magical):
            return 0
        if self._mods(t.resist, dtype, magical):
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

    def _death_save(self, t: Combatant) -> None:
        roll = self.roller.roll_d20(what=f"death save {t.cid}")
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
        elif t.death_successes >= 3:
            t.stable = True
            self.event("stable", f"{t.cid} is stable", creature=t.cid)

    def heal(self, t: Combatant, amount: int, source: str) -> int:
        if t.dead:
            return 0
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


# concentration buffs: spell -> the condition it puts on its target
BUFFS = {"shield-of-faith": "shield_of_faith"}

_SIZES = ("tiny", "small", "medium", "large", "huge", "gargantuan")


def _monster_action(c: Combatant, key: str):
    from . import content
    return content.monster(c.monster).action(key)


def _expected(a: AttackProfile) -> float:
    from .dice import parse
    return sum(parse(p.dice).average for p in a.damage)


def expected_damage(a: AttackProfile) -> float:
    return _expected(a)


def _route_label(i: int, r) -> str:
    parts = [f"{r.cost_ft} ft"]
    parts.append("provokes " + ", ".join(r.provoked) if r.provoked else "provokes no opportunity attack")
    if r.hazards:
        parts.append("hazards " + ", ".join(f"{k} x{n}" for k, n in r.hazards))
    return f"Route {i + 1} (" + "; ".join(parts) + ")"
