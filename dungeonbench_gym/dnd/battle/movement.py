"""Movement: reachable squares, destinations and routes, the move step by step (opportunity and readied
attacks, hazards, falling), hiding.

Part of :class:`~dungeonbench_gym.dnd.engine.Battle`.
"""

from __future__ import annotations

from typing import NamedTuple
from .. import (
    items as _items, spell_buffs, spell_summons,
    spell_wards, spell_zones, spellbook,
)
from ..classes import dispatch
from ..classes.cleric import TURN_UNDEAD_FT
from ..monster_traits import dispatch as monster_traits   # monsters' own traits (one module per trait family)
from ..grid import SIZE_SQUARES, SQUARE_FT, box_distance_ft, fall_damage_dice, footprint, nearest_box_ft
from ..model.options import DestinationOpt, Opt
from ..rules.conditions import ZERO_SPEED
from ..rules.hooks import MOVE_STEPS, OPTION_KINDS
from ..state import SIZES, Combatant, expected_damage


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


class _PathRoute(NamedTuple):
    cost_ft: int
    path: tuple


def _route_label(i: int, r) -> str:
    parts = [f"{r.cost_ft} ft"]
    parts.append("provokes " + ", ".join(r.provoked) if r.provoked else "provokes no opportunity attack")
    if r.hazards:
        parts.append("hazards " + ", ".join(f"{k} x{n}" for k, n in r.hazards))
    return f"Route {i + 1} (" + "; ".join(parts) + ")"


class MovementMixin:
    """Where a creature may move, and moving it there."""

    def movement_cells(self, c: Combatant) -> tuple[list, list]:
        """(cells that block c's movement, cells it may pass through): foes block, allies do not.
        SRD Moving Around Other Creatures: a foe at least two sizes larger or smaller does not
        block (its space is difficult terrain, as an ally's). SRD Swarm: a swarm and other
        creatures move through each other's spaces (simplified: a move does not end in an occupied
        space). Incorporeal Movement: through any creature as difficult terrain (the grid's walls
        stay solid)."""
        hostile, friends = [], [cell for o in self.allies_of(c) for cell in o.cells]
        # Air / Water Form may also stop in a foe's space (simplified as for swarms: only through it)
        through = "swarm" in c.features or "incorporeal" in c.features or "enters_foes" in c.features
        size = SIZES.index(c.size)
        for o in self.enemies_of(c):
            (friends if through or "swarm" in o.features or abs(SIZES.index(o.size) - size) >= 2
             else hostile).extend(o.cells)
        if self.zones:   # Antilife Shell keeps the living out (dnd/spell_zones.py)
            hostile.extend(spell_zones.barrier_cells(self, c))
        if self.wards:   # Magic Circle keeps its types out (dnd/spell_wards.py)
            hostile.extend(spell_wards.barrier_cells(self, c))
        return hostile, friends

    def _can_step(self, c: Combatant) -> bool:
        if not self.flying(c):
            return self.reach(c, step_only=True)
        # a flyer's full 3D reach is costly: one step (10 ft covers difficult terrain) answers this
        hostile, friends = self.movement_cells(c)
        if self.map.can_fly_step(c.pos, c.size, c.economy.movement, blocked_by=hostile, pass_through=friends,
                                 max_altitude_ft=self.max_altitude_ft):
            return True   # one free 5-ft step settles it, without the numpy window of a flight
        step = self.map.reachable(c.pos, c.size, min(c.economy.movement, 2 * SQUARE_FT), blocked_by=hostile,
                                  pass_through=friends, fly=True, max_altitude_ft=self.max_altitude_ft)
        return len(step) > 1

    def walks_squeezing(self, c: Combatant) -> bool:
        """Whether c's move now is a walk that may squeeze (SRD Squeezing into a Smaller Space):
        every walker may. Simplified: a flight keeps the whole space (no squeezing in the air); a
        squeezing creature that could fly walks out first."""
        return c.squeezing or not self.flying(c)

    def squares_at(self, c: Combatant, pos: tuple, ground: bool = True) -> int:
        """Squares on a side of the space c takes standing at pos: one fewer where a walker's
        whole space does not fit (squeezing)."""
        n = SIZE_SQUARES[c.size]
        return n - 1 if n > 1 and ground and not self.map.fits(pos[0], pos[1], n) else n

    def settle_space(self, c: Combatant, ground: bool = True, was: bool | None = None) -> None:
        """Set whether c squeezes where it stands now (a walker whose whole space does not fit);
        announce it when that differs from ``was`` (given at the end of a move)."""
        n = SIZE_SQUARES[c.size]
        c.squeezing = now = n > 1 and ground and not self.map.fits(c.pos[0], c.pos[1], n)
        if was is not None and now != was:
            self.event("squeezing" if now else "squeezing_end",
                       f"{c.cid} squeezes into a smaller space" if now else f"{c.cid} is no longer squeezing",
                       creature=c.cid)

    def reach(self, c: Combatant, step_only: bool = False):
        # asked several times per decision (menu, destinations, planner): one cached answer.
        # step_only: just whether c can move at all (len(reach) > 1), as cheaply as possible
        fly = self.flying(c) and not c.squeezing   # a squeezing flyer walks out first
        climb = spell_buffs.climb_speed(self, c) if c.conditions else 0   # Spider Climb
        key = (c.cid, c.pos, c.economy.movement, fly, climb, self.map,   # a replaced map: a new answer
               tuple((o.pos, o.side, o.dead) for o in self.creatures.values()))
        if self._reach_cache is not None and self._reach_cache[0] == key:
            return len(self._reach_cache[1]) > 1 if step_only else self._reach_cache[1]
        hostile, friends = self.movement_cells(c)
        ask = {"blocked_by": hostile, "pass_through": friends,
               "fly": fly, "max_altitude_ft": self.max_altitude_ft if fly else None,
               "swim_speed": c.resources.get("swim", 0) or ("water_walk" in c.conditions),   # a swimmer (or
               # a water walker: dnd/spell_utility.py) pays no extra in water
               "climb_speed": climb,
               "difficult_extra": spell_zones.difficult_cells(self, c) if self.zones else ()}
        m = dispatch.walk_map(self, c)   # Land's Stride: the map's difficult terrain costs nothing
        if step_only and m.can_step(c.pos, c.size, c.economy.movement, **ask):
            return True   # a free square one step away settles it: no full search
        r = m.reachable(c.pos, c.size, c.economy.movement, squeeze=not fly, **ask)
        self._reach_cache = (key, r)
        return len(r) > 1 if step_only else r

    def destination_options(self, c: Combatant) -> list[Opt]:
        # asked up to three times a move (the menu, the planner's full list, the chosen row): the
        # list is kept while the cached reach is the same object, nothing else it reads changed
        # and nothing happened (no new event in the log)
        r = self.reach(c)
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
        return next(self._allowed_destinations(c, self.reach(c)), None) is not None

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

    def flying(self, c: Combatant) -> bool:
        """Can fly now: a fly speed, not prone, not held or paralyzed (speed 0)."""
        return spellbook.fly_speed(c) > 0 and c.conscious and "prone" not in c.conditions and \
            not any(k in c.conditions for k in ZERO_SPEED) and c.exhaustion < 5

    def falls(self) -> None:
        """SRD: a flyer knocked prone, with its speed reduced to 0 or unable to move falls, unless
        it can hover: 1d6 bludgeoning per 10 ft fallen, and it lands prone."""
        if self.move_state is not None:
            return   # mid-move (a reaction pending): positions in the air are part of the flight
        standing_z, low = self.map.standing_z, self.map._min_layer * SQUARE_FT   # low: the lowest floor
        if all(c.pos[2] <= low or c.pos[2] <= standing_z(c.pos[0], c.pos[1], c.squares)
               for c in self.creatures.values()):
            return   # nobody is above the floor: nobody falls (the common case, checked cheaply)

        def held_up(c, ground):
            return c.pos[2] <= ground or (self.flying(c) and not c.dead) or (c.hover and c.conscious) \
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
                self.damage(c, dispatch.slow_fall(self, c, self.roller.roll_damage(f"{n}d6", what=f"fall {c.cid}")),
                            "bludgeoning", source="fall")   # (Slow Fall)
            if not c.dead and "prone" not in c.condition_immunities:
                c.conditions.setdefault("prone", {})

    # ---------------------------------------------------------------- movement
    def _choose_destination(self, c: Combatant, dest: tuple) -> None:
        threats = {}
        fly = not self.walks_squeezing(c)
        alt = self.max_altitude_ft if fly else None
        if not c.economy.disengaged and not ("flyby" in c.features and fly):   # Flyby: no OAs
            for o in self.enemies_of(c):
                if o.conscious and not o.incapacitated and o.economy.reaction and o.melee_reach \
                        and self.watches(o, c):   # unseen (invisible, obscured): no opportunity attack
                    threats[o.cid] = self.map.threat_area(o.cells, o.melee_reach, c.size, enemy_z=o.pos[2],
                                                          fly=fly, max_altitude_ft=alt, squeeze=not fly)
        hostile, friends = self.movement_cells(c)
        # Routes differ in consequences only near threats or hazards. Without threats, a cheapest
        # path that crosses no hazard dominates every other route: no need to search.
        r = self.reach(c)
        crosses = self.map.hazard_cells and any(
            self.map.hazard_at(x, y) for p in r.path(dest) for x, y in footprint(p[0], p[1], c.squares))
        if threats and not crosses and not _leaves_a_reach(r.path(dest), threats, fly):
            threats = {}   # the cheapest path provokes nothing: it dominates every other route
        routes = dispatch.walk_map(self, c).routes(c.pos, dest, c.size, c.economy.movement,
                                                         threat_cells_by_creature=threats,
                                 blocked_by=hostile, pass_through=friends, fly=fly,
                                 max_altitude_ft=alt,
                                 swim_speed=c.resources.get("swim", 0) or ("water_walk" in c.conditions),
                                 climb_speed=spell_buffs.climb_speed(self, c) if c.conditions else 0,
                                 difficult_extra=spell_zones.difficult_cells(self, c) if self.zones else (),
                                 squeeze=not fly) \
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
        self.release_grapples_by(c)   # simplification: a grappler that walks away lets go
        self.move_state = {"mover": c.cid, "path": tuple(route.path), "i": 0, "asked": ()}
        if SIZE_SQUARES[c.size] > 1:   # a walk may squeeze: each step's space is worked out as it goes
            self.move_state["ground"] = self.walks_squeezing(c)
            self.move_state["squeezing"] = c.squeezing
        if c.resources.pop("legendary_move", False):
            self.move_state["then"] = "next_turn"
        self._continue_move()

    def _continue_move(self) -> None:
        ms = self.move_state
        c = self.creatures[ms["mover"]]
        path = ms["path"]
        ground = ms.get("ground")   # None: one square wide, never squeezes
        while ms["i"] < len(path) - 1 and c.conscious:
            here, nxt = path[ms["i"]], path[ms["i"] + 1]
            c.pos = tuple(here)
            if ground is not None:
                self.settle_space(c, ground)
            if not c.economy.disengaged and not ("flyby" in c.features and self.flying(c)):   # Flyby: no OAs
                for o in sorted(self.enemies_of(c), key=lambda o: o.cid):
                    if o.cid in ms["asked"] or not o.conscious or o.incapacitated \
                            or not (o.economy.reaction or o.resources.get("oa_extra", 0) > 0) \
                            or "swallowed" in o.conditions \
                            or self.inside_apart(o, c) \
                            or not self.watches(o, c):   # SRD: a creature it can see
                        continue
                    melee = [a for a in o.attacks if a.melee and ("swallow",) not in a.on_hit]   # not a Swallow
                    if not melee:
                        continue
                    reach = max(a.reach for a in melee)
                    there = self.distance_from(c, nxt, o) if ground is None else box_distance_ft(
                        nxt[0], nxt[1], self.squares_at(c, nxt, ground), nxt[2], o.pos[0], o.pos[1], o.squares, o.pos[2])
                    if self.distance_from(c, here, o) <= reach < there:
                        at = self.distance_from(c, here, o)   # a weapon that reaches the mover from here
                        best = max((a for a in melee if a.reach >= at), key=lambda a: (expected_damage(a), a.key))
                        ms["asked"] = ms["asked"] + (o.cid,)
                        self.pending = {"kind": "reaction", "actor": o.cid, "mover": c.cid, "attack": best.key}
                        self._cache = None
                        return
            ms["i"] += 1
            c.pos = tuple(path[ms["i"]])
            if ground is not None:
                self.settle_space(c, ground)
            self.enter_hazards(c, c.pos)
            if self.zones:   # Spike Growth's thorns, Sleet Storm's footing (dnd/spell_zones.py)
                spell_zones.on_step(self, c)
            if self.wards:   # a glyph stepped on, a glowing Symbol entered (dnd/spell_wards.py)
                spell_wards.on_step(self, c)
            if "_spell_summons" in self.__dict__:   # Guardian of Faith (dnd/spell_summons.py)
                spell_summons.on_step(self, c)
            if self._readied_trigger(c, here):
                return
            for step in MOVE_STEPS:   # entering Spirit Guardians' area (rules/hooks.py)
                step(self, c, here)
        if c.conscious:
            c.pos = tuple(path[ms["i"]])
            if ground is not None:
                self.settle_space(c, ground, was=ms["squeezing"])
            self.event("move", f"{c.cid} moves to ({c.pos[0]}, {c.pos[1]})", creature=c.cid, pos=list(c.pos))
            if "ridden" in c.conditions:   # its rider moves with it (dnd/items.py)
                _items.carry_rider(self, c)
            for o in self.swallowed_by(c):   # and those it swallowed
                o.pos = tuple(c.pos)
            for o in self._engulfed_by(c):   # an engulfed creature moves with the mound, beside it
                o.pos = self.free_spot_beside(c, o.squares, exclude=o) or o.pos
        self.move_state = None
        if not self.check_outcome():
            if ms.get("then") == "next_turn":   # a legendary move, between turns
                self.next_turn()
                return
            self.back_to_menu(self.creatures[ms["mover"]] if self.active is None else self.active)

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
            ground = ms.get("ground")
            was = self.distance_from(c, here, o) if ground is None else box_distance_ft(
                here[0], here[1], self.squares_at(c, here, ground), here[2], o.pos[0], o.pos[1], o.squares, o.pos[2])
            if was > reach >= self.distance(c, o):
                ms["asked"] = ms["asked"] + (o.cid,)
                self.pending = {"kind": "reaction", "actor": o.cid, "mover": c.cid, "attack": ready["attack"],
                                "reaction": "readied"}
                self._cache = None
                return True
        return False

    def enter_hazards(self, c: Combatant, pos: tuple) -> None:
        """Damage for each hazard square the creature's space moves onto (spikes, fire)."""
        if "ms" in c.resources:   # Fire Form, Water Susceptibility (dnd/monster_traits/fire_form.py)
            monster_traits.on_step(self, c, pos)
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


@OPTION_KINDS.handles("move")
def _move(b, c: Combatant, p: dict, opt: Opt) -> None:
    b.pending = {"kind": "destination", "actor": c.cid}


@OPTION_KINDS.handles("destination")
def _destination(b, c: Combatant, p: dict, opt: Opt) -> None:
    b._choose_destination(c, opt.data[0])


@OPTION_KINDS.handles("route")
def _route(b, c: Combatant, p: dict, opt: Opt) -> None:
    b._start_move(c, p["routes"][opt.data[0]])
