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

from typing import Any

from . import (
    items,
    lighting,   # dark battles: light sources, darkvision, Dancing Lights, Enthrall
    spell_buffs,
    spell_control,   # removal (Banishment), domination, confusion, escapes, Wish
    spell_counter,
    spell_guardians,   # Spirit Guardians
    spell_heat,   # Heat Metal
    spell_plants,   # trees and plants: Tree Stride, Transport via Plants, Plant Growth
    spell_spiritual,   # Spiritual Weapon
    spell_summons,   # authored summons, the Polymorph family, conjured weapons
    spell_utility,   # water and objects: suffocation, Water Walk, Mage Hand, Unseen Servant
    spell_walls,   # walls raised mid-battle (the map is replaced), Forcecage, Resilient Sphere
    spell_wards,   # glyphs and circles laid between fights (the Day track)
    spell_zones,   # lasting spell areas: sight, terrain, magic
    spellbook,
)
from .battle.actions import ActionsMixin
from .battle.attacks import AttacksMixin
from .battle.casting import CastingMixin
from .battle.damage import DamageMixin
from .battle.menu import MenuMixin
from .battle.monster_actions import MonsterActionsMixin
from .battle.movement import MovementMixin
from .battle.targets import TargetingMixin, _teleport_there
from .battle.turns import TurnsMixin
from .builders import monsters, pcs
from .classes import dispatch as class_features   # the class features (one module per class)
from .dice import Roller
from .grid import BattleMap, Cover, box_distance_ft
from .model.options import Decision, Opt
from .monster_traits import (   # monsters' own traits: one module per trait family, dispatch the hook points
    androsphinx, corrosion, duergar, fire_form, flying_sword, gelatinous_cube, gibbering_mouther, golems, hags, harpy,
    kraken, legendary, phantasms, rakshasa, roper,
)
from .monster_traits import dispatch as monster_traits
from .rules.hooks import DESTINATION_USES, OPTION_KINDS, REACTIONS, freeze_all
from .state import Combatant


# The mechanics: each registers the option kinds and reactions it answers into rules/hooks.py's
# tables as it is imported (the battle parts above register the engine's own). Once all are
# in, the tables are frozen, so a late registration cannot change how a running battle plays.
MECHANICS = (class_features, items, lighting, monster_traits, spell_buffs, spell_control, spell_counter,
             spell_guardians, spell_heat, spell_plants, spell_spiritual, spell_summons, spell_utility, spell_walls,
             spell_wards, spell_zones, spellbook,
             # the monster-trait families that register option kinds or a spell screen
             androsphinx, corrosion, duergar, fire_form, flying_sword, gelatinous_cube, gibbering_mouther, golems,
             hags, harpy, kraken, legendary, phantasms, rakshasa, roper)
# The builders register into model/factories.py as they are imported (a summons, Wild Shape and
# Simulacrum build creatures through it), so any battle can build them.
BUILDERS = (monsters, pcs)
freeze_all()


class Battle(TurnsMixin, MenuMixin, ActionsMixin, MovementMixin, TargetingMixin, AttacksMixin,
             CastingMixin, MonsterActionsMixin, DamageMixin):
    """One encounter. Build it with combatants placed on a map, then read :attr:`decision` and
    call :meth:`choose` until :attr:`outcome` is set ("win" for the party, or "loss")."""

    controls = False   # True once a control spell is in play (removed, dominated, confused: dnd/spell_control.py)
    underwater = False   # SRD underwater combat (the scenario's field); breath and suffocation: dnd/spell_utility.py
    wards = ()   # glyphs and magic circles laid between fights on this map (dnd/spell_wards.py)

    def __init__(self, battle_map: BattleMap, combatants: list[Combatant], *, seed: int | None = 0,
                 roller: Roller | None = None, objective: dict | None = None,
                 round_limit: int = 20, max_options: int = 64, party_side: str = "party",
                 max_altitude_ft: int = 15, surprised: tuple = (), hiding: str | None = None):
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
        self.turns_started = 0   # counts every turn begun: what "once per turn" is measured against
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
        self.specials = monster_traits.setup(self)   # monsters' own traits (dnd/monster_traits/)
        self.determine_surprise(tuple(surprised), hiding)   # SRD Combat Step by Step: surprise, then initiative
        self._roll_initiative()
        self.next_turn()

    # ================================================================ bookkeeping
    def forget_options(self) -> None:
        """List the pending decision's options afresh: a rule changed what is legal mid-decision."""
        self._cache = None

    def forget_reach(self) -> None:
        """Work out the squares creatures can reach afresh: a creature, a zone or the map changed."""
        self._reach_cache = None

    def event(self, kind: str, text: str, **data) -> None:
        self.log.append({"event": kind, "text": text, **data})
        if kind == "condition":
            # SRD: an incapacitated creature loses concentration (Concentration), and a creature it
            # grapples is free (Grappled). Every rule that imposes a condition announces it here, so
            # this is the one place they all pass; asking `incapacitated` also catches a condition
            # that brings incapacitated along under another name (a harpy's song charms).
            t = self.creatures.get(data.get("creature"))
            if t is not None and t.incapacitated:
                if t.concentration is not None:
                    self.end_concentration(t)
                self.release_grapples_by(t)
            # SRD Wild Shape: the druid reverts by itself when it falls unconscious (Sleep, any rule
            # that announces the condition), not only at 0 hit points (classes/druid.py form_drops)
            if t is not None and data.get("condition") == "unconscious" and "wild_shape_saved" in t.resources \
                    and "unconscious" in t.conditions:
                class_features.revert(self, t)

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
        if self.inside_apart(attacker, target):   # Swallow: total cover from outside the swallower
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
        if self.inside_apart(attacker, target):
            return False
        return self.map.line_of_effect(attacker.cells, target.cells, a_z=attacker.pos[2], b_z=target.pos[2])

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
        self.falls()
        if self.outcome is None:
            self.check_outcome()

    # ================================================================ applying options
    def _apply(self, p: dict, opt: Opt) -> None:
        """Carry out the chosen option: through the tables the rules register into (dnd/rules/hooks.py)."""
        c = self.creatures[p["actor"]]
        if p["kind"] == "reaction":   # an opportunity attack names no reaction
            REACTIONS[p.get("reaction") or "opportunity"].resolve(self, c, p, opt.data)
        elif opt.kind == "destination" and p.get("use"):   # Misty Step, a stat block's Teleport, ...
            DESTINATION_USES.get(p["use"][0], _teleport_there)(self, c, p, opt)
        else:
            OPTION_KINDS[opt.kind](self, c, p, opt)

    def back_to_menu(self, c: Combatant) -> None:
        if self.outcome is not None:
            return
        if not c.conscious or c.incapacitated:
            self._end_turn(c, silent=True)
            return
        self.pending = {"kind": "action", "actor": c.cid}

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
