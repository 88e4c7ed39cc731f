"""Spells that make creatures or change shapes: authored summons, the Polymorph family, conjured weapons.

Reached from :mod:`.spellbook` (mechanisms ``summon`` with a ``creature`` or ``choice``, ``shape``
and ``weapon``) and by a few one-line hooks in the engine. Data: ``content/data/spell_creatures.json``
(stat blocks from the spells' SRD numbers, the short lists of forms).

* Summons (Flaming Sphere, Arcane Hand, Arcane Sword, Faithful Hound, Guardian of Faith, Animate
  Objects) join the caster's side and take a turn right after the caster, as Conjure Animals does.
  ``place: "foe"``: it appears in the free space within the spell's range nearest the nearest foe
  (simplification: the SRD's "space of your choice" is not a decision); others beside the caster.
  ``command: "bonus"``: the SRD moves it with the caster's bonus action, so it acts only when the
  caster's bonus action of that turn is unused or went to command this spell's creatures (one
  bonus action commands all of them: Animate Objects). An Arcane Hand at 0 HP ends the spell. ``aura``: damage to creatures that
  end their turn within reach of it (Flaming Sphere; on its own turn it rams the nearest adjacent
  foe) or foes that move within reach, once a turn (Guardian of Faith, which leaves once it has
  dealt its damage budget). ``harmless``: the spell gives no AC or hit points and it can't be harmed.
  ``bound``: it vanishes once its caster can no longer act (simplification: the battle ends with
  the caster's side). They vanish when concentration ends, with the spell's duration, or at 0 HP.
* Animate Objects: after the cast, a choice of object size (how many of that size the slot animates).
* ``shape``: Polymorph / True Polymorph (a creature in range; a foe makes a Wisdom save), Shapechange
  (the caster), Animal Shapes (every willing ally within 30 ft, one form): after the target, a choice
  of form from a data-chosen list limited by CR (the target's level or CR; Shapechange: the caster's
  level; Animal Shapes: CR 4). Game statistics become the form's (Shapechange and Animal Shapes keep
  Int, Wis and Cha); at 0 HP the creature reverts and the excess damage carries over; the form ends
  with concentration.
* ``prepare``: summonings that take a minute or more (Animate Dead, Create Undead, the Conjure
  spells of 1-minute casting, Find Familiar, Find Steed, Planar Ally, Simulacrum) are cast between
  fights, as intermission options of the Day track (:func:`day_options`); the creatures join the
  caster's side at the next fight's start, beside it, with their own initiative. ``lasts``:
  ``all_day`` (Animate Dead's undead, a familiar, a steed, a simulacrum: every later fight while they
  live), ``concentration`` (the Conjure spells: the next fight, while the caster concentrates; a
  broken concentration dismisses the creature, or turns it hostile for Conjure Elemental and Conjure
  Fey), ``next_encounter`` (Planar Ally's service). A familiar can't attack; a simulacrum is the
  member's build without equipment, with half its hit point maximum, and melts at 0 HP.
* ``weapon``: Flame Blade (a melee spell attack, the spell's dice) and Alter Self's natural weapons
  (1d6 + Str, magical, +1 to hit and damage) become an attack while the spell lasts (simplification:
  made with the Attack action).
"""

from __future__ import annotations

from . import content
from .classes import dispatch as class_features
from .classes import warlock
from .grid import SIZE_SQUARES, Cover, box_distance_ft, footprint
from .model.durations import drop_concentration
from .model.factories import build_monster, build_pc
from .model.options import Opt
from .model.slots import spend_slot
from .rules import hooks, spell_data
from .state import ABILITIES, AttackProfile, Combatant, DamagePart, ability_mod

DAMAGE_TYPES = ("acid", "bludgeoning", "cold", "fire", "force", "lightning", "necrotic", "piercing", "poison",
                "psychic", "radiant", "slashing", "thunder")
ALL_CONDITIONS = ("blinded", "charmed", "deafened", "exhaustion", "frightened", "grappled", "incapacitated",
                  "paralyzed", "petrified", "poisoned", "prone", "restrained", "stunned", "unconscious")
# the stats a new form replaces (and reverting restores)
SHAPE_FIELDS = ("name", "size", "ac", "max_hp", "hp", "speed", "fly", "hover", "attacks", "multiattack", "abilities",
                "saves", "creature_type", "spells", "resist", "immune", "vulnerable", "condition_immunities",
                "features", "save_actions", "legendary", "legendary_per_round", "monster", "recharge")
KEEP_MENTAL = ("shapechange", "animal-shapes")
_ENDS_AT_ZERO = ("arcane-hand",)
SELF_SHAPES = ("shapechange", "animal-shapes")


data = spell_data.spell_creatures   # the authored creatures, forms, choices and long summonings


def _mech(key: str) -> dict:
    return spell_data.mech(key)


def _registry(b) -> dict:
    """The battle's own record of what this module has put in play (pickled with the battle)."""
    return b.__dict__.setdefault("_spell_summons", {"auras": [], "shaped": False})


# ================================================================ spellbook entry points
def placement(key: str) -> str:
    return "target" if _mech(key)["mech"] == "shape" and key not in SELF_SHAPES else "self"


def _cr(t) -> float:
    if t.is_pc:
        return t.level
    return content.monster(t.monster).challenge_rating if t.monster else 0


def forms(b, c, key: str, t=None) -> list:
    """The form keys open to this casting (on t), weakest first."""
    cap = {"shapechange": c.level, "animal-shapes": 4}.get(key)
    if cap is None:
        cap = _cr(t) if t is not None else 0
    out = []
    for f in data()["forms"].get(key, ()):
        m = content.monster(f)
        if m.challenge_rating > cap:
            continue
        if key == "animal-shapes" and m.size in ("huge", "gargantuan"):
            continue
        if t is not None and m.size != t.size and _spot_for(b, t, m.size) is None:
            continue   # no room for it here
        out.append(f)
    return sorted(out, key=lambda f: (content.monster(f).challenge_rating, f))


def _shapeable(t) -> bool:
    return not t.dead and t.hp > 0 and "shape_saved" not in t.resources and "wild_shape_saved" not in t.resources


def _shapechanger(o) -> bool:
    return bool(o.monster) and not o.is_pc and content.monster(o.monster).subtype == "shapechanger"


def targets(b, c, key: str, first: bool = False) -> list:
    """Polymorph, True Polymorph: any creature in range (a foe saves; a shapechanger foe is not
    worth it: it succeeds or is unaffected); not one already transformed. ``first``: stop at one."""
    rng = content.spell(key).range_feet or 0
    out = []
    for o in sorted(b.creatures.values(), key=lambda o: o.cid):
        if not _shapeable(o) or (o is not c and b.distance(c, o) > rng):
            continue
        if o.side != c.side and (not b.may_target(c, o) or _shapechanger(o)):
            continue
        if o is not c and b.cover(c, o) == Cover.TOTAL:
            continue
        if forms(b, c, key, o):
            out.append(o)
            if first:
                break
    return out


def _willing(b, c) -> list:
    """Animal Shapes: the caster and its allies within 30 ft who can take a form."""
    return [o for o in sorted(b.creatures.values(), key=lambda o: o.cid)
            if o.side == c.side and _shapeable(o) and (o is c or b.distance(c, o) <= 30)
            and "summoned_by" not in o.resources]


def available(b, c, key: str, level: int) -> bool:
    m = _mech(key)
    if m["mech"] == "weapon":
        return m["condition"] not in c.conditions
    if key == "shapechange":
        return _shapeable(c) and bool(forms(b, c, key, c))
    if key == "animal-shapes":
        return bool(_willing(b, c)) and bool(forms(b, c, key, c))
    return bool(targets(b, c, key, first=True))


def summary(c, key: str, level: int) -> str:
    m, sp = _mech(key), content.spell(key)
    if m["mech"] == "summon":
        if "choice" in m:
            text = "animates objects (choose their size: " + ", ".join(
                f"{_count(key, row, level)} {data()['creatures'][row[0]]['size']}" for row in _choices(key)) + ")"
        else:
            text = f"creates a {data()['creatures'][m['creature']]['name']}"
    elif m["mech"] == "shape":
        text = {"polymorph": "a creature becomes a beast (a foe saves: WIS)",
                "true-polymorph": "a creature becomes another creature (a foe saves: WIS)",
                "shapechange": "you take the form of a creature of your level's CR or lower",
                "animal-shapes": "you and allies within 30 ft become beasts of CR 4 or lower"}[key]
    else:
        a = weapon_attack(c, key, level)
        text = f"a {a.name} attack ({a.short()} {a.damage[0].type})"
    return text + (", concentration" if sp.concentration else "")


def cast_at(b, c, key: str, level: int, t):
    """Polymorph / True Polymorph: the target is chosen; now the form."""
    b.pending = {"kind": "target", "actor": c.cid, "use": ("form", key, level, t.cid)}
    b.forget_options()


def resolve_self(b, c, key: str, level: int) -> None:
    """A self-placed casting: Animate Objects' size choice, Shapechange / Animal Shapes' form
    choice, or a conjured weapon at once."""
    m = _mech(key)
    if m["mech"] == "weapon":
        _conjure_weapon(b, c, key, level)
        return
    b.pending = {"kind": "target", "actor": c.cid, "use": ("form", key, level, None)}
    b.forget_options()


def form_options(b, c, use: tuple) -> list:
    """The options of the form decision (kind "form", data (choice,))."""
    _, key, level, tid = use
    out = []
    if _mech(key)["mech"] == "summon":
        for row in _choices(key):
            d = data()["creatures"][row[0]]
            out.append(Opt(f"Animate {_count(key, row, level)} {d['name']} (AC {d['ac']}, {d['hp']} HP, "
                           f"{d['attacks'][0]['to_hit']:+d}, {d['attacks'][0]['dice']})", "form", (row[0],)))
        return out
    t = b.creatures.get(tid) if tid else c
    fs = forms(b, c, key, t)
    if t is not None and t.side == c.side:
        fs = fs[::-1]   # an ally: the strongest form first
    who = f" {t.cid}" if tid else ""
    for f in fs:
        m = content.monster(f)
        out.append(Opt(f"Turn{who} into: {m.name} (CR {m.challenge_rating:g}, {m.hp} HP, AC {m.ac})", "form", (f,)))
    return out


def apply_form(b, c, use: tuple, choice: str) -> None:
    """The form (or object size) was chosen: pay for the spell and resolve it."""
    _, key, level, tid = use
    if _mech(key)["mech"] == "summon":
        row = next(r for r in _choices(key) if r[0] == choice)
        _summon(b, c, key, level, choice, _count(key, row, level))
        return
    b.pay_spell(c, key, level)
    spell_data.reveal(c)
    if key == "animal-shapes":
        group = _willing(b, c)
    else:
        group = [b.creatures[tid] if tid else c]
    for t in group:
        if t.side != c.side and b.saving_throw(t, "wis", c.resources["spell_dc"], magic=True, big=True):
            b.event("save", f"{t.cid} resists {key}", creature=t.cid, spell=key)
            continue
        transform(b, c, t, choice, key)
    if not any(o.resources.get("shape_by", (None,))[0] == c.cid for o in b.creatures.values()):
        b.end_concentration(c)   # nobody took the form: the spell ends
    b.back_to_menu(c)


# ================================================================ summons
def _choices(key: str) -> list:
    return data()["choices"][key]


def _count(key: str, row: list, level: int) -> int:
    return row[1] + row[2] * (level - content.spell(key).level)


def summon(b, c, key: str, level: int) -> None:
    """The spellbook's summon of an authored creature (a size choice first for Animate Objects)."""
    m = _mech(key)
    if "choice" in m:
        b.pending = {"kind": "target", "actor": c.cid, "use": ("form", key, level, None)}
        b.forget_options()
        return
    _summon(b, c, key, level, m["creature"], m.get("count", 1))


def _summon(b, c, key: str, level: int, ckey: str, count: int) -> None:
    d = data()["creatures"][ckey]
    squares = SIZE_SQUARES[d["size"]]
    b.pay_spell(c, key, level)
    spell_data.reveal(c)
    sp_rounds = None
    sp = content.spell(key)
    if not sp.concentration and sp.duration_rounds:
        sp_rounds = sp.duration_rounds
    idx = b.order.index(c.cid)
    n0 = sum(1 for o in b.creatures.values() if o.resources.get("summoned_by") == c.cid)
    reg = _registry(b)
    spots = _near_foe(b, c, squares, sp.range_feet or 0) if d.get("place") == "foe" else []
    for i, (x, y) in enumerate(spots or spell_data.free_squares(b, c, count, squares)):
        s = build(b, c, ckey, f"{c.cid}_{ckey}_{n0 + i + 1}", (x, y, b.map.standing_z(x, y, squares)), key, level)
        s.conditions["summoned"] = {"by": c.cid, "spell": key}
        if sp_rounds:
            s.conditions["summoned"]["until_round"] = b.round + sp_rounds
        s.resources["summoned_by"] = c.cid
        s.initiative = c.initiative
        b.creatures[s.cid] = s
        b.order.insert(idx + 1 + i, s.cid)
        if idx + 1 + i <= b.turn_index:
            b.turn_index += 1
        if "aura" in d:
            reg["auras"].append(s.cid)
        reg.setdefault("mine", []).append(s.cid)
        b.event("summon", f"{c.cid} conjures {s.cid} at ({x}, {y})", creature=s.cid, by=c.cid, spell=key)
    b.forget_reach()
    b.back_to_menu(c)


def _near_foe(b, c, squares: int, rng: int) -> list:
    """One free space within the spell's range, as close as possible to the nearest foe the
    caster can see (the SRD lets the caster choose it; a foe beside it is what a caster wants)."""
    foes = sorted((o for o in b.enemies_of(c) if o.conscious), key=lambda o: (b.distance(c, o), o.cid))
    if not foes:
        return []
    f = foes[0]
    taken = {cell for o in b.creatures.values() if not o.dead for cell in o.cells}
    best = None
    for y in range(max(0, f.pos[1] - 3), f.pos[1] + f.squares + 3):
        for x in range(max(0, f.pos[0] - 3), f.pos[0] + f.squares + 3):
            if not b.map.fits(x, y, squares) or any(cell in taken for cell in footprint(x, y, squares)):
                continue
            z = b.map.standing_z(x, y, squares)
            if box_distance_ft(c.pos[0], c.pos[1], c.squares, c.pos[2], x, y, squares, z) > rng:
                continue
            d = (box_distance_ft(f.pos[0], f.pos[1], f.squares, f.pos[2], x, y, squares, z),
                 box_distance_ft(c.pos[0], c.pos[1], c.squares, c.pos[2], x, y, squares, z), y, x)
            if best is None or d < best[0]:
                best = (d, (x, y))
    return [best[1]] if best else []


def build(b, c, ckey: str, cid: str, pos: tuple, key: str, level: int) -> Combatant:
    """A combatant from an authored stat block, with the caster's numbers where the spell uses them."""
    d = data()["creatures"][ckey]
    abilities = dict(zip(ABILITIES, d["abilities"]))
    hp = c.max_hp if d["hp"] == "caster_max_hp" else d["hp"]
    attacks = []
    for a in d.get("attacks", ()):
        to_hit = c.resources.get("spell_attack", c.prof) if a["to_hit"] == "spell_attack" else a["to_hit"]
        dice = a["dice"]
        if a.get("per_level"):
            n, die = dice.split("d")
            extra = int(a["per_level"].split("d")[0]) * (level - content.spell(key).level)
            dice = f"{int(n) + extra}d{die}"
        elif a["dice"] == "spell":
            dice = spell_data.dice(c, key, level)
        attacks.append(AttackProfile(a["key"], a["name"], to_hit, (DamagePart(dice, a["type"]),), True,
                                     a.get("reach", 5), 0, 0, spell=True))
    harmless = d.get("harmless", False)
    s = Combatant(cid=cid, name=d["name"], side=c.side, kind="monster", size=d["size"], ac=d["ac"], max_hp=hp,
                  hp=hp, pos=tuple(pos), speed=d["speed"], abilities=abilities,
                  saves={k: ability_mod(v) for k, v in abilities.items()}, prof=c.prof, attacks=tuple(attacks),
                  monster=d["base"], level=0, creature_type=d["type"], fly=d.get("fly", 0), hover=bool(d.get("fly")),
                  immune=tuple((t, False) for t in DAMAGE_TYPES) if harmless else (),
                  condition_immunities=ALL_CONDITIONS if harmless else ("charmed", "frightened", "exhaustion",
                                                                          "poisoned", "paralyzed", "petrified"))
    s.resources.update(spell_dc=c.resources.get("spell_dc", 10), spell_key=key, spell_level=level, creature=ckey)
    if d.get("invisible"):
        s.conditions["invisible"] = {"by": c.cid}
    aura = d.get("aura")
    if aura:
        s.resources["aura_dice"] = spell_data.dice(c, key, level) if aura["dice"] == "spell" else aura["dice"]
        if aura.get("budget"):
            s.resources["aura_budget"] = aura["budget"]
    return s


def _gone(b, s, why: str) -> None:
    s.dead = True
    s.hp = 0
    b.event("vanish", f"{s.cid} vanishes ({why})", creature=s.cid)


def start_of_turn(b, c) -> None:
    """A summon's turn: gone with its caster, held back without the caster's bonus action."""
    reg = b.__dict__.get("_spell_summons")
    if not reg or c.dead:
        return
    reg["turn"] = reg.get("turn", 0) + 1   # (Guardian of Faith: once a turn)
    if "shape_saved" in c.resources and "shaped" not in c.conditions:   # dispelled: its own form back
        revert(b, c, ": the magic is gone")
    if c.concentration and c.concentration in _ENDS_AT_ZERO:   # Arcane Hand: the hand at 0 HP ends the spell
        mine = [o for o in b.creatures.values() if o.resources.get("summoned_by") == c.cid
                and o.resources.get("spell_key") == c.concentration]
        if mine and all(o.dead for o in mine):
            b.end_concentration(c)
    ckey = c.resources.get("creature")
    if ckey is not None and c.resources.get("summoned_by"):
        d = data()["creatures"][ckey]
        owner = b.creatures.get(c.resources["summoned_by"])
        if d.get("bound") and (owner is None or not owner.conscious):
            _gone(b, c, "its caster is down")
            return
        if not c.attacks:   # a sphere, a guardian: it only moves (no Dash, Dodge or Help)
            c.economy.actions = 0
        if d.get("command") == "bonus" and owner is not None:
            spell = c.resources["spell_key"]
            if owner.economy.bonus:   # the caster's bonus action commands it (and all of this spell's)
                owner.economy.bonus = False
                owner.economy.extra["commands"] = spell
            elif owner.economy.extra.get("commands") != spell:
                c.economy.movement = 0
                c.economy.actions = 0
                b.event("idle", f"{c.cid} waits (its caster's bonus action is spent)", creature=c.cid)


def on_step(b, c) -> None:
    """Guardian of Faith: a foe that moves to a space within 10 ft of it, the first time on a
    turn, saves against its radiant damage; the guardian leaves once it has dealt its budget."""
    reg = b.__dict__["_spell_summons"]
    for sid in reg["auras"]:
        g = b.creatures.get(sid)
        if g is None or g.dead or c.dead or c.side == g.side:
            continue
        aura = data()["creatures"][g.resources["creature"]]["aura"]
        if aura["when"] != "enter" or b.distance(g, c) > aura["feet"]:
            continue
        turn = reg.get("turn", 0)
        seen = g.resources.setdefault("aura_seen", {})
        if seen.get(c.cid) == turn:
            continue
        seen[c.cid] = turn
        dealt = _aura_hit(b, g, c, aura)
        if "aura_budget" in g.resources:
            g.resources["aura_budget"] -= dealt
            if g.resources["aura_budget"] <= 0:
                _gone(b, g, "its damage is spent")


def _aura_hit(b, g, t, aura: dict) -> int:
    dice = g.resources["aura_dice"]
    amount = int(dice) if str(dice).isdigit() else b.roller.roll_damage(dice, what=f"damage {g.cid} {aura['type']}")
    ok = b.saving_throw(t, aura["save"], g.resources["spell_dc"], magic=True, big=True, origin=g)
    dealt = class_features.area_damage(t, aura["save"], ok, bool(aura.get("half")), amount)   # (Evasion)
    if dealt:
        return b.damage(t, dealt, aura["type"], magical=True, source=g.cid) or 0
    return 0


def end_of_turn(b, c) -> None:
    """Flaming Sphere: whoever ends its turn within 5 ft of it saves against its fire; the
    sphere's own turn ends with a ram into the nearest foe beside it."""
    reg = b.__dict__.get("_spell_summons")
    if not reg or not reg["auras"]:
        return
    for sid in list(reg["auras"]):
        g = b.creatures.get(sid)
        if g is None or g.dead:
            continue
        aura = data()["creatures"][g.resources["creature"]]["aura"]
        if aura["when"] != "end_of_turn":
            continue
        if c is g:
            near = sorted((o for o in b.enemies_of(g) if b.distance(g, o) <= aura["feet"]),
                          key=lambda o: (b.distance(g, o), o.cid))
            if near:
                b.event("ram", f"{g.cid} rams {near[0].cid}", creature=g.cid, target=near[0].cid)
                _aura_hit(b, g, near[0], aura)
        elif not c.dead and b.distance(g, c) <= aura["feet"]:
            _aura_hit(b, g, c, aura)


# ================================================================ shapes
def _spot_for(b, t, size: str, far: bool = False):
    """Where t stands in a form of this size: its own anchor when the space fits and is free,
    else the nearest free space that fits (None when there is none within 30 ft)."""
    n = SIZE_SQUARES[size]
    taken = {cell for o in b.creatures.values() if not o.dead and o is not t for cell in o.cells}
    x0, y0 = t.pos[0], t.pos[1]
    for r in range(max(b.map.width, b.map.height) if far else 7):
        for y in range(y0 - r, y0 + r + 1):
            for x in range(x0 - r, x0 + r + 1):
                if max(abs(x - x0), abs(y - y0)) != r or not b.map.fits(x, y, n):
                    continue
                if not any(cell in taken for cell in footprint(x, y, n)):
                    return (x, y, b.map.standing_z(x, y, n))
    return None


def transform(b, caster, t, form_key: str, key: str) -> None:
    """t takes the form's game statistics (Shapechange, Animal Shapes: its own Int, Wis, Cha)."""
    form = build_monster(form_key, t.cid, t.side, t.pos)
    t.resources["shape_saved"] = {f: getattr(t, f) for f in SHAPE_FIELDS}
    t.resources["shape_by"] = (caster.cid, key)
    abilities, saves = dict(form.abilities), dict(form.saves)
    if key in KEEP_MENTAL:
        for ab in ("int", "wis", "cha"):
            abilities[ab], saves[ab] = t.abilities[ab], t.saves[ab]
    spot = _spot_for(b, t, form.size)
    if spot is None:   # no room for the form here: the magic fails on this creature
        t.resources.pop("shape_saved")
        t.resources.pop("shape_by")
        b.event("shape_fails", f"{t.cid} has no room to become a {form.name}", creature=t.cid)
        return
    t.name = f"{t.name} (as a {form.name})"
    t.pos = spot
    t.economy.attack_queue = ()
    t.size, t.ac, t.max_hp, t.hp = form.size, form.ac, form.max_hp, form.max_hp
    t.speed, t.fly, t.hover, t.attacks, t.multiattack = form.speed, form.fly, form.hover, form.attacks, form.multiattack
    t.abilities, t.saves, t.creature_type = abilities, saves, form.creature_type
    t.resist, t.immune, t.vulnerable = form.resist, form.immune, form.vulnerable
    t.condition_immunities = form.condition_immunities
    t.spells = t.spells if key == "shapechange" else ()
    t.features = t.features if key == "shapechange" else form.features
    t.legendary, t.legendary_per_round = (), 0
    t.monster = form_key
    t.save_actions = () if t.is_pc else form.save_actions   # a PC's options never run monster save actions
    if t.is_pc:   # its multiattack keeps the attack steps only (a dragon's Frightful Presence goes)
        keys = {a.key for a in form.attacks}
        steps = tuple(k for k in form.multiattack if k in keys)
        t.multiattack = steps if len(steps) >= 2 else ()
    t.recharge = dict(form.recharge)
    t.conditions["shaped"] = {"by": caster.cid, "spell": key}
    _registry(b)["shaped"] = True
    b.forget_reach()
    b.event("shape", f"{t.cid} becomes a {form.name} ({key})", creature=t.cid, form=form_key, spell=key)


def revert(b, t, why: str = "") -> None:
    saved = t.resources.pop("shape_saved", None)
    t.resources.pop("shape_by", None)
    t.conditions.pop("shaped", None)
    if saved is None:
        return
    for f, v in saved.items():
        setattr(t, f, v)
    t.economy.attack_queue = ()   # the form's multiattack steps go with it
    if b is None:   # between fights
        return
    t.pos = _spot_for(b, t, t.size, far=True) or t.pos
    b.forget_reach()
    b.event("shape_end", f"{t.cid} returns to its own form ({t.hp}/{t.max_hp} HP){why}", creature=t.cid)


def at_zero(b, t, excess: int) -> int:
    """A transformed creature at 0 HP: its own form back, the excess damage carried over; the
    spell ends on it (and the caster's concentration with it when nobody else holds a form).
    Returns the hit points its own form lost. A simulacrum melts instead (the engine's 0-HP death
    of a non-PC follows)."""
    if "melts" in t.resources:
        t.kind = "monster"
        b.event("melt", f"{t.cid} reverts to snow and melts", creature=t.cid)
        return 0
    by = t.resources.get("shape_by", (None, None))
    revert(b, t)
    before = t.hp
    t.hp = max(0, t.hp - excess)
    if excess:
        b.event("damage", f"{t.cid} takes {excess} carried-over damage ({t.hp}/{t.max_hp} HP)",
                creature=t.cid, amount=excess, type="carried", source=None)
    caster = b.creatures.get(by[0])
    if caster is not None and caster.concentration == by[1] and \
            not any(o.resources.get("shape_by", (None,))[0] == caster.cid for o in b.creatures.values()):
        b.end_concentration(caster)
    return before - t.hp


def concentration_ends(b, c) -> None:
    """The caster's concentration ends: its shapes revert, its conjured weapon goes."""
    reg = b.__dict__.get("_spell_summons")
    spell = c.concentration
    if reg and reg.get("shaped"):
        for o in sorted(b.creatures.values(), key=lambda o: o.cid):
            if o.resources.get("shape_by") == (c.cid, spell):
                revert(b, o, f": {spell} ends")
    m = _mech(spell) if spell else {}
    if m.get("mech") == "prepare" and _prep(spell).get("hostile_on_break"):
        _break_control(b, c, spell)
    if m.get("mech") == "weapon":
        key = m["attack"]["key"]
        c.attacks = tuple(a for a in c.attacks if a.key != key)


# ================================================================ conjured weapons
def weapon_attack(c, key: str, level: int) -> AttackProfile:
    a = _mech(key)["attack"]
    if a["to_hit"] == "spell_attack":
        to_hit, dice = c.resources.get("spell_attack", c.prof), spell_data.dice(c, key, level)
    else:   # Alter Self: an unarmed strike with Strength, proficient, +1 (magic)
        mod = c.mod("str") + a["plus"]
        to_hit, dice = c.prof + mod, f"{a['dice']}{mod:+d}" if mod else a["dice"]
    return AttackProfile(a["key"], a["name"], to_hit, (DamagePart(dice, a["type"]),), True, a.get("reach", 5), 0, 0,
                         spell=True)


def _conjure_weapon(b, c, key: str, level: int) -> None:
    m = _mech(key)
    b.pay_spell(c, key, level)
    spell_data.reveal(c)
    a = weapon_attack(c, key, level)
    c.attacks = tuple(x for x in c.attacks if x.key != a.key) + (a,)
    c.conditions[m["condition"]] = {"by": c.cid, "spell": key, "level": level}
    b.event("conjure_weapon", f"{c.cid} wields a {a.name} ({a.short()} {a.damage[0].type})", creature=c.cid, spell=key)
    b.back_to_menu(c)


# ================================================================ cast before a fight (the Day track)
DAY_KINDS = ("prepare_summon", "chain_familiar")   # chain_familiar: Pact of the Chain (dnd/classes/warlock.py)
_LASTS_TEXT = {"all_day": "all day", "concentration": "next fight, concentration", "next_encounter": "next fight"}


def _prep(key: str) -> dict:
    return spell_data.prepared_summons(key)


def prep_choices(c, key: str) -> list:
    """(slot level, monster, count) the caster can conjure now: for each distinct result, the
    lowest slot that gives it."""
    p, sp = _prep(key), content.spell(key)
    slots = c.resources.get("slots") or ()
    seen, out = set(), []
    for lv in range(sp.level, len(slots) + 1):
        if slots[lv - 1] <= 0:
            continue
        tier = p["tiers"][str(max(int(k) for k in p["tiers"] if int(k) <= lv))]
        mult = max([1] + [n for k, n in p.get("upcast", {}).items() if int(k) <= lv])
        for monster, n in tier:
            count = (n + p.get("per_level", 0) * (lv - sp.level)) * mult
            if (monster, count) in seen:
                continue
            seen.add((monster, count))
            out.append((lv, monster, count))
    return out


def day_options(run, c, living) -> list:
    """Between fights: a member casts a long summoning (Animate Dead, Conjure Elemental, Find
    Familiar...); the creatures join the party in the next fight (or every fight that day)."""
    out = warlock.chain_day_options(run, c)   # Pact of the Chain: Find Familiar as a ritual
    for key in c.spells:
        if _mech(key).get("mech") != "prepare" or not warlock.minions_ready(c, key):   # Minions of Chaos
            continue
        if key == "simulacrum":
            out.extend(_simulacrum_options(run, c))
            continue
        p, sp = _prep(key), content.spell(key)
        if c.resources.get("gp", 0) < p.get("cost_gp", 0):
            continue
        cost = f", {p['cost_gp']} gp" if p.get("cost_gp") else ""
        for lv, monster, count in prep_choices(c, key):
            out.append(Opt(f"{c.cid} casts {sp.name} (level {lv}{cost}): {count} {content.monster(monster).name}"
                           f" ({_LASTS_TEXT[p['lasts']]})", "prepare_summon", (c.cid, key, lv, monster, count)))
    return out


def _prepared(run) -> list:
    return run.__dict__.setdefault("_prepared_summons", [])


def day_apply(run, opt) -> None:
    """The long casting happens: the slot (and any cost) is paid and the creatures wait for the fight."""
    if opt.kind == "chain_familiar":   # Pact of the Chain's ritual familiar
        warlock.chain_day_apply(run, opt, _prepared(run))
        return
    cid, key, lv, monster, count = opt.data
    warlock.minions_cast(run.party[cid], key)   # Minions of Chaos: once a long rest
    if key == "simulacrum":
        _make_simulacrum(run, run.party[cid], lv, run.party[monster])
        return
    c, p = run.party[cid], _prep(key)
    spend_slot(c, lv)
    if p.get("cost_gp"):
        c.resources["gp"] -= p["cost_gp"]
    if p["lasts"] == "concentration":
        drop_concentration(c, run.party.values())
        c.concentration = key
        c.resources["concentration_until"] = 10 ** 9
        c.conditions["conjuring"] = {"by": c.cid, "spell": key, "day_duration": "next_encounter"}
    if key == "find-familiar":   # one familiar at a time
        run.__dict__["_prepared_summons"] = [e for e in _prepared(run) if not (e["owner"] == cid and e["spell"] == key)]
    n0 = sum(1 for e in _prepared(run) if e["owner"] == cid)
    for i in range(count):
        s = build_monster(monster, f"{cid}_{monster}_{n0 + i + 1}", c.side, (0, 0, 0))
        if p.get("type"):
            s.creature_type = p["type"]
        if p.get("int"):
            s.abilities = dict(s.abilities, int=p["int"])
        if p.get("no_attacks"):   # a familiar can't attack
            s.attacks, s.multiattack, s.save_actions = (), (), ()
        _prepared(run).append({"owner": cid, "spell": key, "creature": s, "lasts": p["lasts"], "fights": 0})
    run.event("cast", f"{cid} casts {key} at level {lv}: {count} {monster} ({_LASTS_TEXT[p['lasts']]})")


def day_fighters(run, bmap, fighters: list) -> list:
    """At a fight's start: the prepared creatures still in play, beside their caster, on its side."""
    for pc in run.party.values():   # a fight's end ended its concentration: forms and conjured blades go
        if "shape_saved" in pc.resources:
            revert(None, pc)
        for key in ("flame-blade", "alter-self"):
            m = _mech(key)
            if m.get("mech") == "weapon" and m["condition"] not in pc.conditions:
                pc.attacks = tuple(a for a in pc.attacks if a.key != m["attack"]["key"])
    keep, out = [], []
    taken = {cell for f in fighters for cell in f.cells}
    for e in _prepared(run):
        s, owner = e["creature"], run.party.get(e["owner"])
        if s.dead or owner is None or owner.dead:
            continue
        if e["lasts"] == "concentration" and owner.concentration != e["spell"]:
            continue
        if e["lasts"] != "all_day" and e["fights"] >= 1:
            continue
        e["fights"] += 1
        keep.append(e)
        n = SIZE_SQUARES[s.size]
        spot = None
        for r in range(1, 8):
            for y in range(owner.pos[1] - r, owner.pos[1] + owner.squares + r):
                for x in range(owner.pos[0] - r, owner.pos[0] + owner.squares + r):
                    if spot is None and bmap.fits(x, y, n) and not set(footprint(x, y, n)) & taken:
                        spot = (x, y)
            if spot:
                break
        if spot is None:
            continue
        taken.update(footprint(*spot, n))
        s.pos = (spot[0], spot[1], bmap.standing_z(spot[0], spot[1], n))
        s.conditions = {"summoned": {"by": owner.cid, "spell": e["spell"]}}
        s.concentration = None
        s.resources.pop("concentration_until", None)
        s.resources["summoned_by"] = owner.cid
        s.resources["prepared"] = e["spell"]
        s.side = owner.side
        out.append(s)
    run.__dict__["_prepared_summons"] = keep
    return out


def _break_control(b, c, spell: str) -> None:
    """Conjure Elemental, Conjure Fey: a broken concentration does not dismiss the creature; it
    turns on the caster's side."""
    for o in sorted(b.creatures.values(), key=lambda o: o.cid):
        if o.resources.get("prepared") == spell and o.resources.get("summoned_by") == c.cid and not o.dead:
            o.resources.pop("summoned_by")
            o.side = "enemies" if c.side == "party" else "party"
            b.event("uncontrolled", f"{o.cid} breaks free of {c.cid} and turns hostile", creature=o.cid)


def _simulacrum_options(run, c) -> list:
    """Simulacrum (12 hours, 1,500 gp of ruby dust): a duplicate of a humanoid member."""
    cost = _prep("simulacrum")["cost_gp"]
    levels = [lv for lv in range(7, len(c.resources.get("slots") or ()) + 1) if c.resources["slots"][lv - 1] > 0]
    if not levels or c.resources.get("gp", 0) < cost:
        return []
    out = []
    for t in sorted(run.party.values(), key=lambda o: o.cid):
        if t.dead or t.creature_type not in ("humanoid", "beast") or not _archetype(run, t.cid):
            continue
        out.append(Opt(f"{c.cid} casts {content.spell('simulacrum').name} (level {levels[0]}, {cost} gp): a duplicate "
                       f"of {t.cid} with {t.max_hp // 2} HP and no equipment (all day, until it melts at 0 HP)",
                       "prepare_summon", (c.cid, "simulacrum", levels[0], t.cid, 1)))
    return out


def _archetype(run, cid: str):
    return next((p for p in run.day.party if p["id"] == cid), None)


def _make_simulacrum(run, c, lv: int, t) -> None:
    """The duplicate: the original's build without weapons, armour or shield, half its hit point
    maximum, the spell slots it has now (never regained); a new casting destroys the old one."""
    spend_slot(c, lv)
    c.resources["gp"] -= _prep("simulacrum")["cost_gp"]
    run.__dict__["_prepared_summons"] = [e for e in _prepared(run)
                                         if not (e["owner"] == c.cid and e["spell"] == "simulacrum")]
    p = _archetype(run, t.cid)
    s = build_pc(p["archetype"], p["level"], f"{t.cid}_simulacrum", (0, 0, 0), weapons=(), armor=None, shield=False)
    s.name = f"Simulacrum of {t.name}"
    s.max_hp = s.hp = t.max_hp // 2
    if "slots" in t.resources:
        s.resources["slots"] = tuple(t.resources["slots"])
    s.resources["melts"] = True
    s.resources.pop("potions", None)
    if not s.attacks:   # SRD unarmed strike: 1 + Str modifier bludgeoning, proficient
        s.attacks = (AttackProfile("unarmed-strike", "Unarmed Strike", s.prof + s.mod("str"),
                                   (DamagePart(str(max(1, 1 + s.mod("str"))), "bludgeoning"),), True, 5, 0, 0),)
    _prepared(run).append({"owner": c.cid, "spell": "simulacrum", "creature": s, "lasts": "all_day", "fights": 0})
    run.event("cast", f"{c.cid} casts simulacrum at level {lv}: a duplicate of {t.cid} ({s.max_hp} HP)")


# ---- what this module answers in the engine's dispatch (dnd/rules/hooks.py)
@hooks.OPTION_KINDS.handles("form")   # the chosen form / object size
def _choose_form(b, c, p, opt) -> None:
    apply_form(b, c, p["use"], opt.data[0])
hooks.TARGET_USES.register("form", hooks.TargetUse(form_options))   # Polymorph's form, Animate Objects' size


def _resolve_on_self(b, c, use: tuple, where) -> None:
    resolve_self(b, c, use[1], use[2])


hooks.SPELL_MECHANISMS.register("shape", hooks.SpellMechanism(   # the Polymorph family
    placement=placement, targets=targets, available=available, summary=summary, cast_at=cast_at,
    resolve_area=_resolve_on_self))
hooks.SPELL_MECHANISMS.register("weapon", hooks.SpellMechanism(   # Flame Blade, Alter Self
    placement=placement, available=available, summary=summary, resolve_area=_resolve_on_self))
