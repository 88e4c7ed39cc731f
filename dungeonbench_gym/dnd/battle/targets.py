"""Targets, points and directions: who and where an attack, spell or area may reach.

Part of :class:`~dungeonbench_gym.dnd.engine.Battle`.
"""

from __future__ import annotations

from .. import areas, content
from .. import items as _items
from .. import lighting, spell_control, spell_plants, spell_walls, spell_wards, spell_zones, spellbook
from ..classes import dispatch
from ..monster_traits import dispatch as monster_traits   # monsters' own traits (one module per trait family)
from ..grid import SQUARE_FT, box_distance_ft, footprint
from ..model.options import Opt
from ..rules import spell_data
from ..rules.hooks import OPTION_KINDS, TARGET_USES
from ..state import SIZES, AttackProfile, Combatant, monster_action

DIRECTION_NAMES = {v: k for k, v in areas.COMPASS.items()}


class TargetingMixin:
    """Legal targets, teleport destinations, area points and directions."""

    # ---------------------------------------------------------------- targets
    def attack_range(self, c: Combatant, a: AttackProfile, t: Combatant) -> str | None:
        """"melee", "ranged" or None: how this attack can reach this target now."""
        d = self.distance(c, t)
        if a.melee and d <= a.reach:
            return "melee"
        if a.range_normal and d <= a.range_long:
            if d > a.range_normal and getattr(self, "underwater", False):
                # SRD underwater: a ranged weapon misses beyond normal range
                if _items.weapon_of(c, a):
                    return None
            return "ranged"
        return None

    def targets_for_attack(self, c: Combatant, a: AttackProfile) -> list[Combatant]:
        if a.ammo and c.resources.get(a.ammo, 0) <= 0:
            return []   # SRD ammunition: none left, no attack with this weapon
        out = []
        for t in self.enemies_of(c):
            if self.attack_range(c, a, t) and self.may_target(c, t) and self.line_of_effect(c, t):
                out.append(t)
        if ("swallow",) in a.on_hit:   # Swallow: only a creature it grapples and has room for
            out = [t for t in out if self._can_swallow(c, t)]
        if any(e[0] == "smother" for e in a.on_hit):   # one smothered target at a time, Medium or smaller
            busy = any(o.conditions.get("smothered", {}).get("by") == c.cid for o in self.creatures.values())
            out = [] if busy else [t for t in out if SIZES.index(t.size) <= SIZES.index("medium")]
        if self.zones and a.melee:   # no reaching through an Antilife Shell (dnd/spell_zones.py)
            out = [t for t in out if self.attack_range(c, a, t) != "melee" or spell_zones.reach_through(self, c, t)]
        return out

    def spell_targets(self, c: Combatant, key: str, first: bool = False, level: int | None = None) -> list[Combatant]:
        """Who the spell may target now; ``first``: at most the first (is there anyone?)."""
        if spell_data.handles(key):
            return spellbook.targets(self, c, key, first, level)
        sp = content.spell(key)
        rng = SQUARE_FT if sp.range_kind == "touch" else dispatch.spell_range(c, key, sp.range_feet or 0)
        pool = [o for o in self.enemies_of(c) if self.may_target(c, o)]   # Spiritual Weapon, Magic Missile...
        if self.specials:   # Limited Magic Immunity (monster_traits/rakshasa.py)
            pool = monster_traits.spell_screen(self, c, key, pool)
        ok = (t for t in pool if (t is c or self.distance(c, t) <= rng) and self.line_of_effect(c, t))
        if first:
            t = next(ok, None)
            return [] if t is None else [t]
        return list(ok)

    def sees(self, v: Combatant, t: Combatant) -> bool:
        """Whether v can see t through the zones that obscure (fog, darkness, walls of them) and the
        battle's light (dnd/spell_zones.py, dnd/lighting.py); ask it only when ``zones`` is set."""
        return spell_zones.sees(self, v, t)

    def watches(self, v: Combatant, t: Combatant) -> bool:
        """Whether v can see t now (SRD: who makes an opportunity attack, who spoils a ranged attack
        in close combat): not blinded, t not invisible to it (See Invisibility), and no zone or
        darkness hiding t (dnd/spell_zones.py)."""
        if "blinded" in v.conditions or ("invisible" in t.conditions and not spell_data.sees_invisible(v)):
            return False
        return not self.zones or spell_zones.sees(self, v, t)

    def hears(self, v: Combatant, t: Combatant) -> bool:
        """Whether v can hear t now (Turn Undead, Turn the Unholy, Cutting Words): v not deafened,
        and neither inside a Silence (SRD Silence: no sound is created within it or passes through
        it). Simplified: a Silence lying between two creatures outside it does not stop the sound."""
        if "deafened" in v.conditions:
            return False
        return not self.zones or not (spell_zones.silenced(self, v) or spell_zones.silenced(self, t))

    def silenced(self, t: Combatant) -> bool:
        """Whether t is inside a Silence (dnd/spell_zones.py); ask it only when ``zones`` is set."""
        return spell_zones.silenced(self, t)

    def may_target(self, c: Combatant, t: Combatant) -> bool:
        """SRD Charmed: a charmed creature can't attack or target its charmer with harmful magic."""
        if self.wards and spell_wards.hopeless(c):   # Symbol's hopelessness: nobody (dnd/spell_wards.py)
            return False
        return c.conditions.get("charmed", {}).get("by") != t.cid

    def teleport_options(self, c: Combatant, p: dict, first: bool = False) -> list[Opt]:
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
            self.pay_spell(c, use[1], use[2])
        elif len(use) < 4:   # a monster's Teleport action (a legendary one costs its points instead)
            c.economy.actions -= 1
            if use[1] in c.recharge:
                c.recharge[use[1]] = False
        if self.wards:   # into a Magic Circle against its type: a Cha save first (dnd/spell_wards.py)
            dest = spell_wards.teleport_dest(self, c, dest)
        c.pos = tuple(dest)
        self.release(c)   # out of the grappler's reach
        self.release_grapples_by(c)
        self.event("teleport", f"{c.cid} teleports to ({dest[0]}, {dest[1]})", creature=c.cid, pos=list(dest),
                   action=use[1])
        if len(use) > 3:   # legendary: between turns
            self.next_turn()
            return
        self.back_to_menu(c)

    def _target_options(self, c: Combatant, p: dict) -> list[Opt]:
        """The creatures a pending target decision offers: its use's entry in TARGET_USES."""
        use = p["use"]
        out = TARGET_USES[use[0]].options(self, c, use)
        if "berserk" in c.conditions:   # Berserk: only the nearest creature
            out = monster_traits.berserk_targets(self, c, out)
        return out

    # ---------------------------------------------------------------- areas
    def _area(self, c: Combatant, use: tuple, where) -> areas.Area:
        # the planner scores the same placements again after every move: an area is a pure function
        # of the map, the use, the placement and the user's place (a wall's anchor or a barrier's
        # cells are not kept)
        if len(use) > 3 or (use[0] == "spell" and spell_data.mech(use[1]).get("barrier")):
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
        if use[0] == "spell" and spell_data.handles(use[1]):
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

    def area_origin(self, c: Combatant, use: tuple, where):
        """Where the engine's own area (a spell's, a monster's save action's) comes from, for the
        cover a Dexterity save adds (SRD Combat > Cover): the point of origin (feet) of a sphere
        or cylinder placed on a point, else the user (a cone, a line, a cube from it, an emanation);
        the spellbook's spells as it says (:func:`.spellbook.origin`)."""
        if use[0] == "spell" and spell_data.handles(use[1]):
            return spellbook.origin(self, c, use[1], where, use[3] if len(use) > 3 else None)
        if where is None:
            return c
        a = self._area(c, use, where)
        return a.origin_ft if a.shape in ("sphere", "cylinder") else c

    def area_hits(self, c: Combatant, use: tuple, where) -> list[Combatant]:
        """The creatures (either side, not the user) an area placed there would affect."""
        area = self._area(c, use, where)
        affects = areas.affects_space
        out = [o for o in self.creatures.values()
               if not o.dead and o is not c and not self.inside_apart(o, c)
               and affects(area, self.map, o.pos[0], o.pos[1], o.squares, o.pos[2])]
        if use[0] == "spell" and self.specials:   # Limited Magic Immunity (monster_traits/rakshasa.py)
            out = monster_traits.spell_screen(self, c, use[1], out, use[2] if len(use) > 2 else None)
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


def _teleport_there(b, c: Combatant, p: dict, opt: Opt) -> None:
    """A destination chosen for Misty Step, a stat block's Teleport, ... (DESTINATION_USES' default)."""
    b._teleport(c, p["use"], opt.data[0])


@OPTION_KINDS.handles("target")
def _target(b, c: Combatant, p: dict, opt: Opt) -> None:
    b._resolve_target(c, p["use"], b.creatures[opt.data[0]])


@OPTION_KINDS.handles("direction")
def _direction(b, c: Combatant, p: dict, opt: Opt) -> None:
    b._resolve_area(c, p["use"], opt.data[0])


@OPTION_KINDS.handles("point_x")
def _point_x(b, c: Combatant, p: dict, opt: Opt) -> None:
    b.pending = {"kind": "point_y", "actor": c.cid, "use": p["use"], "x": opt.data[0]}


@OPTION_KINDS.handles("point_y")
def _point_y(b, c: Combatant, p: dict, opt: Opt) -> None:
    x, y = p["x"], opt.data[0]
    if len(b._point_heights(c, p["use"], x, y)) > 1:   # z given x and y
        b.pending = {"kind": "point_z", "actor": c.cid, "use": p["use"], "x": x, "y": y}
    else:
        b._resolve_area(c, p["use"], (x, y))


@OPTION_KINDS.handles("point_z")
def _point_z(b, c: Combatant, p: dict, opt: Opt) -> None:
    b._resolve_area(c, p["use"], (p["x"], p["y"], opt.data[0]))
