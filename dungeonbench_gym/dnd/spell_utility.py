"""Water and objects: Water Walk, Water Breathing (with the SRD's suffocation rule), Mage Hand and
Unseen Servant, and the potion of water breathing. The spell table's ``"mech": "utility"`` rows
name a ``kind`` this module runs; the engine reaches it through :mod:`.spellbook` (options,
targets, the casting) and a few guarded hooks: ``Battle.underwater`` (a falsy class default) for
breath, ``"_utility" in Battle.__dict__`` (set once a hand or a servant is in play) for the rest,
``"water_walk" in c.conditions`` for movement. Battles without them pay one falsy test per hook.

* **Suffocation** (SRD "Suffocating"), in an underwater battle (``underwater = true``, also the Day
  track's fights from such a file): a creature that cannot breathe water holds its breath for
  1 + its Con modifier minutes, at least 30 seconds (10 rounds a minute: Con +2 holds 30 rounds,
  Con -1 holds 5); the count runs from the first turn it starts under water (round 1 for everyone
  in the fight: rounds since the battle began count). Out of breath, it survives its Con modifier
  in rounds (at least 1), then at the start of its next turn it drops to 0 HP and is dying
  (``suffocating``: it can't regain hit points, through the engine's ``no_heal``, or be
  stabilised: three death-save successes or Spare the Dying don't make it stable) until it can
  breathe water. A monster at 0 HP dies, as everywhere in the engine. Breath left is
  ``resources["breath"]`` (rounds, at the start of its last turn; in the plain-data state and the
  text view); ``out_of_breath`` and ``suffocating`` are conditions. Breath resets between fights
  (the party surfaces).
  Who breathes water, from the stat blocks' SRD traits: Amphibious, Water Breathing ("can breathe
  only underwater": sharks, octopuses), Limited Amphibiousness (sahuagin), and Water Form (a water
  elemental is water). A swimming speed alone does not (a killer whale swims only, yet its Hold
  Breath trait lasts 30 minutes; snakes and a polar bear swim and hold their breath); Hold Breath
  gives its own minutes (crocodile and lizardfolk 15, giant crocodile and killer whale 30, hydra
  and plesiosaurus 60). Undead and constructs do not breathe and never suffocate (the SRD 5.1 data
  has no "doesn't require air" trait: the type decides; our authored summons are constructs).
  Simplifications: a creature in Wild Shape or Polymorph drops to 0 in its form; no choking.
* **Water Breathing** (3rd, 30 ft, up to ten willing creatures you can see, 24 hours): each a
  target decision like Bless ("No more targets"); allies of the caster's side count as willing,
  a dying one too (it would consent: the way to save a suffocating ally). Offered only in an
  underwater battle with someone who needs air. The **potion of water breathing** (an action,
  1 hour) gives the drinker the same. Day track: cast between fights it lasts all day (24 hours),
  as a ritual without a slot for classes with Ritual Casting (bard, cleric, druid, wizard); the
  potion lasts until a short rest.
* **Water Walk** (3rd, 30 ft, up to ten willing creatures, 1 hour, no concentration): the targets
  cross water squares as solid ground: no extra movement there (the grid's swimmer costs; a water
  square costs 5 ft). Not offered in an underwater battle (SRD: it would carry a submerged target
  to the surface, out of the fight) nor on a map without water, and not on a creature with a
  swimming speed (it already pays nothing in water). Day track: until a short rest (1 hour), offered
  between fights while a later fight's map has water.
* **Mage Hand** (cantrip, 30 ft, 1 minute): the casting puts the spectral hand by the objective's
  object (an ``interact`` objective: a lever, a latch, a strongbox to open: SRD "manipulate an
  object, open an unlocked door or container"; nothing is carried, so the 10-pound limit never
  binds): offered only while that object is unused, within 30 ft of the caster and in its line of
  effect, for the party's casters (the objective is the party's). A later action, "use the
  <object> with Mage Hand", uses it while the hand lasts and the caster is within 30 ft of it (SRD:
  the hand vanishes more than 30 ft from the caster: checked where the caster stands at its menus
  and at the start of its turns). The hand can't attack.
* **Unseen Servant** (1st, 60 ft, 1 hour): an invisible creature on the caster's side (AC 10,
  1 HP, Str 2, can't attack: attacks against it have disadvantage, any damage ends it; mindless: not
  charmed or frightened; stat-block lookups read an animated armor's, a construct). It appears
  in the free ground square within 60 ft of the caster, in its line of effect, with the shortest
  walk to the object (simplification: the SRD's "space of your choice" is not a decision). It takes
  no turns of its own: once on each of the caster's turns a bonus action commands it to move up
  to 15 ft and use the object (option kind ``servant_command``: to a square within 5 ft of it and
  use it, else 15 ft along the shortest walk toward it, never more than 60 ft from the caster).
  Invisible, it provokes no opportunity attacks; its steps ignore hazard squares. Offered only in
  battles with an unused interact objective. It counts for no outcome (a party with only the
  servant up is wiped) and is dismissed when the battle ends. Day track: cast between fights
  (a ritual for wizards and bards) it stands beside the caster at the start of each fight with an
  interact objective until a short rest or its death (in other fights it keeps out of the way).
  Mage Hand and Unseen Servant serve the party's objective only: they are left out of monsters'
  spell lists (``party_only``), like out-of-scope spells.

Spell scrolls of the four are read through the same options (the item probe's room is made fit
for them: :func:`scroll_arena`). The planner (:func:`.advice.spell_utility.heuristic_choice`,
asked early by :mod:`.heuristic`): the object through the hand or the servant at once; Mage Hand
or Unseen Servant when they get the object used before anyone on foot could; Water Breathing when
an ally has under 10 rounds of breath; Water Walk when two allies (or all, if fewer) walk 10 ft
less to their goal; a potion of water breathing when its drinker is short of breath. Between
fights (:func:`plan`): Water Walk before a fight on water, Water Breathing before an underwater
fight someone could not hold its breath through (its round limit), Unseen Servant before an
interact fight.
"""

from __future__ import annotations

import functools

import numpy as np

from . import content, spell_zones
from .grid import SQUARE_FT, WATER, BattleMap, Cover, box_distance_ft
from .model import inventory
from .model.durations import DURATION_TEXT, effect_duration
from .model.options import Opt
from .model.slots import spend_slot
from .rules import hooks, spell_data
from .state import Combatant

KINDS = ("hand_use", "servant_command")   # action-menu options of this module
DAY_KINDS = ("utility_day",)              # intermission options of this module
RITUAL_CLASSES = ("bard", "cleric", "druid", "wizard")   # SRD Ritual Casting
WATER_BREATHERS = frozenset({"amphibious", "water-breathing", "limited-amphibiousness", "water-form"})
HOLD_BREATH_MINUTES = {"crocodile": 15, "giant-crocodile": 30, "hydra": 60, "killer-whale": 30,
                       "lizardfolk": 15, "plesiosaurus": 60}   # SRD Hold Breath traits
AIRLESS_TYPES = ("undead", "construct")
HAND_FT = 30
SERVANT_MOVE_FT, SERVANT_LEASH_FT = 15, 60
POTION = "potion-of-water-breathing"


def _m(key: str) -> dict:
    return spell_data.mech(key)


def kind(key: str) -> str:
    return _m(key).get("kind", "")


def _spell(key: str):
    return content.spell(key)


def _opt(*args):
    return Opt(*args)


# ================================================================ breath
@functools.cache
def _traits(monster: str | None) -> frozenset:
    if not monster:
        return frozenset()
    return frozenset(t.key for t in content.monster(monster).traits)


def breathes_water(c) -> bool:
    return "water_breathing" in c.conditions or bool(_traits(c.monster) & WATER_BREATHERS)


def needs_air(c) -> bool:
    """Whether c holds its breath under water (it breathes, and not water)."""
    return c.creature_type not in AIRLESS_TYPES and not breathes_water(c)


def hold_rounds(c) -> int:
    """SRD: 1 + Con modifier minutes (at least 30 seconds), 10 rounds a minute; Hold Breath's own."""
    if "hold-breath" in _traits(c.monster) and c.monster in HOLD_BREATH_MINUTES:
        return 10 * HOLD_BREATH_MINUTES[c.monster]
    return max(5, 10 * (1 + c.mod("con")))


def survive_rounds(c) -> int:
    """SRD: out of breath, it survives rounds equal to its Con modifier (at least 1)."""
    return max(1, c.mod("con"))


def breath_left(b, c) -> int | None:
    """Rounds of breath c has left now (None: it breathes here)."""
    if not b.underwater or not needs_air(c):
        return None
    since = b.__dict__.get("_breath", {}).get(c.cid, b.round)
    return hold_rounds(c) - (b.round - since)


def _breathe(b, c) -> None:
    reg = b.__dict__.setdefault("_breath", {})
    if not needs_air(c):
        reg.pop(c.cid, None)
        c.resources.pop("breath", None)
        return
    if "suffocating" in c.conditions:   # dying until it can breathe (a Chill Touch's end can't lift it)
        c.conditions["no_heal"] = {"by": "suffocation"}
        return
    since = reg.setdefault(c.cid, b.round)
    left = hold_rounds(c) - (b.round - since)
    c.resources["breath"] = max(0, left)
    if left > 0:
        return
    last = survive_rounds(c)
    if left > -last:   # out of breath: it survives these rounds
        if "out_of_breath" not in c.conditions:
            c.conditions["out_of_breath"] = {"by": "suffocation", "drops_round": b.round + last}
            b.event("breath", f"{c.cid} runs out of breath: it drops at the start of its turn in round "
                    f"{b.round + last}", creature=c.cid, rounds=last)
        return
    c.conditions.pop("out_of_breath", None)
    c.conditions["suffocating"] = {"by": "suffocation"}
    c.conditions["no_heal"] = {"by": "suffocation"}   # SRD: no hit points back until it can breathe
    c.stable = False
    b.event("suffocate", f"{c.cid} suffocates: 0 HP, dying", creature=c.cid)
    if c.hp > 0:
        c.hp, c.temp_hp = 0, 0
        if c.is_pc:
            b.fall_unconscious(c)
        else:
            b.die(c, "suffocation")


def give_water_breathing(b, by, t, source: str, day_duration: str | None = None) -> None:
    """t breathes water from now on: its breath count, running out and suffocating end."""
    entry = {"by": by.cid, "spell" if source == "water-breathing" else "item": source}
    if day_duration:
        entry["day_duration"] = day_duration
    t.conditions["water_breathing"] = entry
    for k in ("out_of_breath", "suffocating"):
        t.conditions.pop(k, None)
    if t.conditions.get("no_heal", {}).get("by") == "suffocation":
        del t.conditions["no_heal"]
    t.resources.pop("breath", None)
    if b is not None:
        b.__dict__.get("_breath", {}).pop(t.cid, None)
        b.event("condition", f"{t.cid} can breathe water ({source})", creature=t.cid, condition="water_breathing")


# ================================================================ the map and the object
def has_water(m) -> bool:
    got = m._cache.get("utility-water")
    if got is None:
        got = m._cache["utility-water"] = any(f & WATER for f in m._flags)
    return got


def _object(b):
    """(x, y, z) of the objective's object while it is unused, else None."""
    obj = b.objective
    if obj["type"] != "interact" or obj.get("done"):
        return None
    x, y = obj["object"]
    return (x, y, b.map.elevation_at(x, y))


def _ft(c, pos: tuple, p) -> int:
    """Feet from c's space (or a position p of it) to the one-square place pos."""
    q = p or c.pos
    return box_distance_ft(q[0], q[1], c.squares, q[2], pos[0], pos[1], 1, pos[2])


def _goal_costs(b, at: tuple) -> dict:
    """Walking cost in feet from each square to one beside the object (a Medium walker, no creatures;
    kept in the map's cache: walls raised mid-battle bring a new map)."""
    key = ("utility-goal", at[:2])
    got = b.map._cache.get(key)
    if got is not None:
        return got
    got = {}
    big = SQUARE_FT * (b.map.width + b.map.height) * 4
    for y in range(at[1] - 1, at[1] + 2):
        for x in range(at[0] - 1, at[0] + 2):
            if (x, y) == tuple(at[:2]) or not b.map.fits(x, y, 1):
                continue
            for pos, cost in b.map.reachable((x, y), "medium", big).costs.items():
                if cost < got.get(pos[:2], 10 ** 9):
                    got[pos[:2]] = cost
    b.map._cache[key] = got
    return got


def _registry(b) -> dict:
    return b.__dict__.setdefault("_utility", {"hands": {}, "servants": {}})


# ================================================================ what the spellbook asks
def placement(key: str) -> str:
    return "target" if kind(key) in ("water_walk", "water_breathing") else "self"


def targets(b, c, key: str) -> list:
    """Willing creatures within range that the caster can see: its own side (a dying ally too)."""
    k = kind(key)
    rng = _spell(key).range_feet or 0
    servants = b.__dict__.get("_utility", {}).get("servants", {})
    out = []
    for o in b.creatures.values():
        if o.dead or o.side != c.side or o.cid in servants:
            continue
        if k == "water_walk" and ("water_walk" in o.conditions or o.resources.get("swim")):
            continue
        if k == "water_breathing" and not needs_air(o):
            continue
        if o is not c:
            if b.distance(c, o) > rng or b.cover(c, o) == Cover.TOTAL:
                continue
            if b.zones and not b.sees(c, o):
                continue
        out.append(o)
    return out


def available(b, c, key: str, level: int) -> bool:
    k = kind(key)
    if k == "water_walk":
        return not b.underwater and has_water(b.map) and bool(targets(b, c, key))
    if k == "water_breathing":
        return b.underwater and bool(targets(b, c, key))
    if c.side != b.party_side:   # the objective is the party's
        return False
    at = _object(b)
    if at is None:
        return False
    reg = b.__dict__.get("_utility", {})
    if k == "mage_hand":
        hand = reg.get("hands", {}).get(c.cid)
        if hand is not None and b.round < hand["until"]:
            return False   # it is by the object already
        return _ft(c, at, None) <= HAND_FT and b.map.line_of_effect(c.cells, [at[:2]], a_z=c.pos[2], b_z=at[2])
    if k == "unseen_servant":
        return not any(owner == c.cid and sid in b.creatures and not b.creatures[sid].dead
                       for sid, owner in reg.get("servants", {}).items())
    return False


def summary(c, key: str, level: int) -> str:
    k = kind(key)
    n = 10
    if k == "water_walk":
        return f"up to {n} willing creatures within 30 ft cross water as solid ground (1 hour)"
    if k == "water_breathing":
        return f"up to {n} willing creatures within 30 ft breathe water (24 hours)"
    if k == "mage_hand":
        return "a spectral hand by the objective's object; a later action uses the object through it (1 minute)"
    return ("an invisible servant (AC 10, 1 HP) near the objective's object; a bonus action moves it 15 ft "
            "and uses the object (1 hour)")


def effect(b, c, key: str, level: int, t) -> bool:
    """One target's share of Water Walk or Water Breathing."""
    if kind(key) == "water_breathing":
        give_water_breathing(b, c, t, key)
        return True
    t.conditions["water_walk"] = {"by": c.cid, "spell": key}
    b.forget_reach()   # its moves through water cost less from now on
    b.event("condition", f"{t.cid} walks on water ({key})", creature=t.cid, condition="water_walk")
    return True


def resolve_self(b, c, key: str, level: int) -> None:
    """Mage Hand and Unseen Servant are cast: the hand by the object, the servant near it."""
    b.pay_spell(c, key, level)
    spell_data.reveal(c)
    reg = _registry(b)
    at = _object(b)
    name = b.objective.get("name", "object")
    if kind(key) == "mage_hand":
        reg["hands"][c.cid] = {"at": list(at), "until": b.round + (_spell(key).duration_rounds or 10)}
        b.event("mage_hand", f"{c.cid}'s spectral hand appears by the {name}", creature=c.cid, spell=key)
    else:
        spot = _servant_spot(b, c, at) or b.free_spot_beside(c, 1)
        if spot is not None:
            s = _servant(b, c, spot)
            reg["servants"][s.cid] = c.cid
            b.event("summon", f"{c.cid}'s unseen servant appears at ({spot[0]}, {spot[1]})", creature=s.cid,
                    by=c.cid, spell=key)
    b.forget_reach()
    b.back_to_menu(c)


def _servant_spot(b, c, at) -> tuple | None:
    """The free ground square within 60 ft of the caster, in its line of effect, closest to the object
    by walking (then in a straight line, then y, x)."""
    m = b.map
    W = m.width
    fits, z, straight, walk = _servant_grid(b, at)
    # the leash: box_distance_ft from the caster's space to each square, for all squares at once
    n, (cx, cy, cz) = c.squares, c.pos
    la = int(cz // SQUARE_FT)
    lb = z // SQUARE_FT
    xs, ys = np.arange(m.size) % W, np.arange(m.size) // W
    gap = np.maximum.reduce([xs - cx - n + 1, cx - xs, ys - cy - n + 1, cy - ys, lb - la - n + 1, la - lb,
                             np.zeros(m.size, dtype=np.int64)])
    ok = fits & (SQUARE_FT * gap <= SERVANT_LEASH_FT)
    for o in b.creatures.values():
        if not o.dead:
            for x, y in o.cells:
                if 0 <= x < W and 0 <= y < m.height:
                    ok[y * W + x] = False
    idx = np.flatnonzero(ok)
    # the rank (walk, straight line, y, x), best first; the first with a line of effect wins
    for i in idx[np.lexsort((xs[idx], ys[idx], straight[idx], walk[idx]))].tolist():
        x, y = i % W, i // W
        if m.line_of_effect(c.cells, [(x, y)], a_z=c.pos[2], b_z=int(z[i])):
            return (x, y, int(z[i]))
    return None


def _servant_grid(b, at) -> tuple:
    """Per square of the map (row-major arrays): can a Medium servant stand there, its floor height,
    and its straight-line and walking distances to the object (0 walking when beside it); kept in
    the map's cache per object square (its ``at``) like :func:`_goal_costs`."""
    key = ("utility-servant-grid", tuple(at) if at is not None else None)
    got = b.map._cache.get(key)
    if got is None:
        m = b.map
        W, H = m.width, m.height
        goal = _goal_costs(b, at) if at is not None else {}
        fits = np.zeros(m.size, dtype=bool)
        z = np.zeros(m.size, dtype=np.int64)
        straight = np.zeros(m.size, dtype=np.int64)
        walk = np.zeros(m.size, dtype=np.int64)
        for y in range(H):
            for x in range(W):
                i = y * W + x
                fits[i] = m.fits(x, y, 1)
                z[i] = m.standing_z(x, y, 1)
                d = box_distance_ft(x, y, 1, z[i], at[0], at[1], 1, at[2]) if at is not None else 0
                straight[i] = d
                walk[i] = 0 if d <= SQUARE_FT else goal.get((x, y), 10 ** 6)
        got = b.map._cache[key] = (fits, z, straight, walk)
    fits, z, straight, walk = got
    return fits.copy(), z, straight, walk


def _servant(b, c, pos: tuple):
    cid, n = f"{c.cid}_unseen_servant", 1
    while cid in b.creatures:   # a servant cast again after the first one was destroyed
        n += 1
        cid = f"{c.cid}_unseen_servant_{n}"
    abilities = {"str": 2, "dex": 10, "con": 10, "int": 1, "wis": 10, "cha": 1}
    s = Combatant(cid=cid, name="Unseen Servant", side=c.side,
                  kind="monster", size="medium", ac=10, max_hp=1, hp=1, pos=tuple(pos), speed=SERVANT_MOVE_FT,
                  abilities=abilities, saves={k: (v - 10) // 2 for k, v in abilities.items()}, prof=0, attacks=(),
                  monster="animated-armor", creature_type="construct",   # a mindless force: it does not breathe
                  condition_immunities=("charmed", "exhaustion", "frightened"))   # (mindless)
    s.conditions["invisible"] = {"by": c.cid, "spell": "unseen-servant"}
    s.resources["servant_of"] = c.cid
    b.creatures[s.cid] = s
    return s


# ================================================================ the engine's hooks
def start_of_turn(b, c) -> None:
    """Breath under water; the caster's hand vanishes at the end of its minute or beyond 30 ft."""
    if b.underwater and not c.dead:
        _breathe(b, c)
    hand = b.__dict__.get("_utility", {}).get("hands", {}).get(c.cid)
    if hand is not None and (b.round >= hand["until"] or _ft(c, tuple(hand["at"]), None) > HAND_FT):
        del b._utility["hands"][c.cid]
        b.event("mage_hand", f"{c.cid}'s spectral hand vanishes", creature=c.cid)


def action_options(b, c) -> list:
    """Use the object through the caster's Mage Hand; command its Unseen Servant."""
    reg = b._utility
    at = _object(b)
    if at is None:
        return []
    name = b.objective.get("name", "object")
    out = []
    hand = reg["hands"].get(c.cid)
    if hand is not None:
        far = _ft(c, tuple(hand["at"]), None)
        if far > HAND_FT or b.round >= hand["until"]:   # it vanished (silently: asking never logs)
            del reg["hands"][c.cid]
        elif c.economy.actions > 0 and c.conscious:
            out.append(_opt(f"Use the {name} with Mage Hand (action; the hand is by it, {far} ft from you)",
                            "hand_use"))
    if c.economy.bonus and c.conscious:
        for sid, owner in sorted(reg["servants"].items()):
            s = b.creatures.get(sid)
            if owner != c.cid or s is None or s.dead:
                continue
            step = servant_step(b, c, s, at)
            if step is None:
                continue
            dest, uses = step
            what = f"move to ({dest[0]}, {dest[1]}) and use the {name}" if uses else \
                f"move 15 ft toward the {name}, to ({dest[0]}, {dest[1]})"
            out.append(_opt(f"Command the Unseen Servant (bonus action): {what}", "servant_command",
                            (sid, tuple(dest), uses)))
    return out


def servant_step(b, c, s, at) -> tuple | None:
    """(destination, uses the object) of the servant's next command; None when it can't get closer."""
    hostile, friends = b.movement_cells(s)
    extra = ()
    if b.zones:
        extra = spell_zones.difficult_cells(b, s)
    r = b.map.reachable(s.pos, s.size, SERVANT_MOVE_FT, blocked_by=hostile, pass_through=friends, difficult_extra=extra)
    leash = [p for p in r.destinations if box_distance_ft(c.pos[0], c.pos[1], c.squares, c.pos[2], p[0], p[1], 1,
                                                          p[2]) <= SERVANT_LEASH_FT]
    use = [p for p in leash if _ft(s, at, p) <= SQUARE_FT]
    if use:
        return min(use, key=lambda p: (r.costs[p], p[1], p[0])), True
    goal = _goal_costs(b, at)
    here = goal.get(tuple(s.pos[:2]), 10 ** 6)
    best = min(leash, key=lambda p: (goal.get(p[:2], 10 ** 6), r.costs[p], p[1], p[0]), default=None)
    if best is None or goal.get(best[:2], 10 ** 6) >= here:
        return None
    return best, False


def apply(b, c, opt) -> None:
    at = _object(b)
    name = b.objective.get("name", "object")
    if opt.kind == "hand_use":
        c.economy.actions -= 1
        b.objective["done"] = True
        b.event("interact", f"{c.cid} uses the {name} with Mage Hand", creature=c.cid, spell="mage-hand")
    else:
        sid, dest, uses = opt.data
        s = b.creatures[sid]
        c.economy.bonus = False
        s.pos = tuple(dest)
        b.forget_reach()
        b.event("servant", f"{c.cid} commands its unseen servant to ({dest[0]}, {dest[1]})", creature=sid, by=c.cid)
        if uses and at is not None:
            b.objective["done"] = True
            b.event("interact", f"{sid} uses the {name}", creature=sid, by=c.cid, spell="unseen-servant")
    b.back_to_menu(c)


def outcome_party(b, party: list) -> list:
    """The party for the outcome: an unseen servant does not count (it can't act on its own)."""
    servants = b._utility["servants"]
    return [o for o in party if o.cid not in servants]


def at_finish(b) -> None:
    """The battle ends: servants are dismissed (counted in no metric); a dead one ends its spell (Day track)."""
    for sid, owner in sorted(b._utility["servants"].items()):
        s = b.creatures.pop(sid, None)
        o = b.creatures.get(owner)
        if s is not None and s.dead and o is not None:
            o.conditions.pop("unseen_servant", None)


# ================================================================ the Day track
def _ritual(c, key: str) -> bool:
    return bool(getattr(_spell(key), "ritual", False)) and c.pc_class in RITUAL_CLASSES


def _levels(c, key: str) -> list:
    sp = _spell(key)
    slots = c.resources.get("slots") or ()
    return [lv for lv in range(sp.level, len(slots) + 1) if slots[lv - 1] > 0]


def _later(run) -> list:
    return [st.scenario for st in run.day.stages[run.stage:]]


def day_options(run, c, living) -> list:
    """Between fights: Water Walk while a later fight has water, Water Breathing while one is under
    water, Unseen Servant before an interact fight; a potion of water breathing."""
    out = []
    later = _later(run)
    nxt = later[0] if later else None
    wet = any(not s.underwater and has_water(s.battle_map()) for s in later)
    deep = any(s.underwater for s in later)
    for key in c.spells:
        m = _m(key)
        if m.get("mech") != "utility":
            continue
        k, sp = m["kind"], _spell(key)
        ritual = _ritual(c, key)
        levels = _levels(c, key)
        if not ritual and not levels:
            continue
        lv = sp.level if ritual else levels[0]
        head = f"{c.cid} casts {sp.name} ({'as a ritual, no slot' if ritual else f'level {lv}'})"
        dur = DURATION_TEXT.get(effect_duration(key) or "", "")
        if k == "water_walk" and wet:
            ids = tuple(t.cid for t in living if "water_walk" not in t.conditions and not t.resources.get("swim"))[:10]
            if ids:
                out.append(_opt(f"{head} on {', '.join(ids)}: water costs no extra movement ({dur})", "utility_day",
                                (c.cid, key, lv, ids, ritual)))
        elif k == "water_breathing" and deep:
            ids = tuple(t.cid for t in living if needs_air(t))[:10]
            if ids:
                out.append(_opt(f"{head} on {', '.join(ids)}: they breathe water ({dur})", "utility_day",
                                (c.cid, key, lv, ids, ritual)))
        elif k == "unseen_servant" and nxt is not None and nxt.objective["type"] == "interact" \
                and "unseen_servant" not in c.conditions:
            out.append(_opt(f"{head}: an unseen servant follows {c.cid} into the fights ({dur})", "utility_day",
                            (c.cid, key, lv, (c.cid,), ritual)))
    n = dict(c.resources.get("items", ())).get(POTION, 0)
    if n > 0 and nxt is not None and nxt.underwater:
        for t in living:
            if needs_air(t):
                who = "drinks" if t is c else f"gives {t.cid}"
                out.append(_opt(f"{c.cid} {who} a potion of water breathing ({n} left; until a short rest)",
                                "utility_day", (c.cid, POTION, 0, (t.cid,), False)))
    return out


def day_apply(run, opt) -> None:
    cid, key, lv, ids, ritual = opt.data
    c = run.party[cid]
    if key == POTION:
        inventory.spend(c, POTION)
        t = run.party[ids[0]]
        give_water_breathing(None, c, t, POTION, "until_short_rest")
        run.event("item", f"{t.cid} drinks a potion of water breathing from {cid} (until a short rest)")
        return
    if not ritual:
        spend_slot(c, lv)
    dur = effect_duration(key)
    k = kind(key)
    for tid in ids:
        t = run.party[tid]
        if k == "water_breathing":
            give_water_breathing(None, c, t, key, dur)
        elif k == "water_walk":
            t.conditions["water_walk"] = {"by": cid, "spell": key, "day_duration": dur}
        else:
            t.conditions["unseen_servant"] = {"by": cid, "spell": key, "day_duration": dur}
    whom = "a servant follows it" if k == "unseen_servant" else f"on {', '.join(ids)}"
    run.event("buff", f"{cid} casts {key}{' as a ritual' if ritual else ''}: {whom} ({DURATION_TEXT[dur]})")


def day_battle(run, b) -> None:
    """A fight starts: each member's servant from between fights stands beside it, in a fight with
    an object to use (elsewhere it has nothing to do and keeps out of the way)."""
    if _object(b) is None:
        return
    for pc in run.party.values():
        if pc.dead or "unseen_servant" not in pc.conditions or pc.cid not in b.creatures:
            continue
        spot = b.free_spot_beside(pc, 1)
        if spot is None:
            continue
        s = _servant(b, pc, spot)
        _registry(b)["servants"][s.cid] = pc.cid
        b.event("summon", f"{pc.cid}'s unseen servant stands at ({spot[0]}, {spot[1]})", creature=s.cid, by=pc.cid,
                spell="unseen-servant")
    if "_utility" in b.__dict__:
        b.forget_options()
        b.forget_reach()


# ================================================================ the item probe's room
def scroll_arena(b, spell: str) -> None:
    """The item probe's room (the reader at (2, 2)) made fit for a scroll of one of these spells:
    under water, with a pool, or with a lever in the west wall 10 ft away."""
    k = kind(spell)
    if k == "water_breathing":
        b.underwater = True
    elif k == "water_walk":
        rows = ["##########"] + ["#........#"] * 3 + ["#.~~~~~~.#"] * 2 + ["#........#", "##########"]
        b.replace_map(BattleMap.from_dict({"layout": rows}))
    else:
        b.objective = {"type": "interact", "object": [0, 4], "name": "lever"}
    b.forget_options()


# ---- what this module answers in the engine's dispatch (dnd/rules/hooks.py)
@hooks.OPTION_KINDS.handles(*KINDS)   # Mage Hand's use of the object, the servant's command
def _choose_utility(b, c, p, opt) -> None:
    apply(b, c, opt)


def _resolve_on_self(b, c, use: tuple, where) -> None:
    resolve_self(b, c, use[1], use[2])


hooks.SPELL_MECHANISMS.register("utility", hooks.SpellMechanism(   # water and objects
    placement=placement, targets=targets, available=available, summary=summary, effect=effect,
    resolve_area=_resolve_on_self))
