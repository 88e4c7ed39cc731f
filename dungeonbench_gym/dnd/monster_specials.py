"""Monsters' own traits and actions that fit none of the engine's general mechanisms, and swimming.

The engine (:mod:`.engine`) calls in here through a few one-line hooks; each is a cheap early-out
when no creature of the battle has one of these mechanics (``Battle.specials`` is False, or the
combatant has no ``resources["ms"]`` entry). :func:`compile_monster` adds to a freshly built
monster combatant what its stat block needs from this module (``resources["ms"]``: the parameters,
taken from the SRD stat blocks; ``resources["swim"]``: its swimming speed).

What runs here (SRD 5.1 stat blocks; simplifications named):

* **Swimming**: a creature with a swimming speed whose space is in water moves at its swimming
  speed (the larger of it and its other speeds) and pays no extra movement in water; a creature
  without one pays 5 ft more per water square (:mod:`.grid`). Simplification: the speed is
  decided at the start of the turn by where the creature stands.
* **Berserk** (clay / flesh golem): starting a turn at or below the threshold, a d6; on a 6 it is
  berserk until it regains all its hit points: it attacks only the nearest creature it can see,
  whatever its side (it becomes hostile to everyone), and takes no other action than moving,
  attacking and Dash. **Aversion of Fire** (flesh golem): fire damage gives it disadvantage on
  attack rolls and ability checks until the end of its next turn. **Acid Absorption** (clay
  golem): acid heals it. **Haste** (clay golem, recharge 5-6): +2 AC, advantage on Dex saves and a
  bonus-action slam until the end of its next turn.
* **Corrosion** (Corrosive Form, Corrode Metal, Rust Metal): a nonmagical metal (the pudding: or
  wooden) manufactured weapon that hits it takes a cumulative -1 to its damage; at -5 it is
  destroyed (the attack is gone). The pudding's acid burns melee attackers within 5 ft (the
  engine's ``heated_body``). A gray ooze's pseudopod and a rust monster's **Antennae** (Dex DC 11)
  corrode worn nonmagical metal armour: -1 AC a time, destroyed at 10 + the armour's remaining
  bonus (the wearer then has AC 10 + Dex; simplification: the armour's base AC comes from a table
  and a shield is not touched). Antennae go for the armour first, else a metal weapon.
* **Fire Form** (fire elemental): melee attackers within 5 ft burn (1d10 fire); it may move
  through and stop in foes' spaces (the engine's ``enters_foes``, simplified as for air
  elementals); the first time a turn it enters a creature's space, that creature takes 1d10 fire
  and catches fire. Its Touch also ignites. A burning creature takes 1d10 fire at the start of each
  of its turns until it takes an action to douse the fire. **Water Susceptibility**: 1 cold damage
  per 5 ft it moves in water.
* **Death Glare** and **Horrific Appearance** (sea hag): a humanoid starting its turn within 30 ft
  that sees her saves (Wis DC 11) or is frightened for 1 minute (a repeat save at the end of each
  of its turns; a success makes it immune). Simplification: no one averts its eyes. Death Glare: a
  frightened creature within 30 ft that sees her saves (Wis DC 11) or drops to 0 HP.
* **Shapechangers** (night hag, oni, succubus/incubus): the battle starts in the creature's true
  form, so its "<true form> Form Only" attacks are used. **Draining Kiss**: a creature charmed by
  the fiend saves (Con DC 15) against 5d10+5 psychic, half on a success; its hit point maximum drops
  by the damage taken (0: it dies).
* **Duergar**: Duergar Resilience (advantage on saves against poison, being charmed or paralyzed,
  and spells: simplified as every magical save); Enlarge (1 minute: Large where there is room, the
  enlarged war pick, advantage on Str saves; once per battle); Invisibility (until it attacks or
  uses Enlarge, concentration; once per battle).
* **Guardian naga**'s Spit Poison: a ranged attack whose hit calls for a Con save (10d8 poison,
  half on a success).
* **Legendary actions**: an aboleth's Psychic Drain (3d6 psychic to a creature it has charmed; it
  heals that much); a mummy lord's Channel Negative Energy (no one within 60 ft regains hit points
  until the end of its next turn) and Whirlwind of Sand (a 60-ft move that provokes nothing); a
  unicorn's Shimmering Shield (+2 AC to it or a creature within 60 ft until the end of its next turn).
* **Phantasms** (cloaker): three duplicates for its concentration (the maps have no bright
  light): an attack (spell attacks included) picks it or a duplicate at random; a hit destroys a
  duplicate (its AC). Simplification: a harmful save spell aimed at it is not diverted.
* **Flying Sword** (solar): the greatsword hovers beside it; as a bonus action it flies up to 50 ft
  to attack (the greatsword's attack) or returns; while it is out the solar makes no greatsword
  attacks.
* **Bound** and **Shield** (shield guardian): the amulet's wearer is the scenario's
  ``amulet_wearer`` (a combatant's resources), else the first ally of the guardian by id; within
  60 ft, half of the wearer's damage (rounded up) goes to the guardian; Shield (always taken) adds
  2 to the wearer's AC against an attack while the guardian is within 5 ft (its reaction).
* **Luring Song** (harpy): hostile humanoids and giants within 300 ft save (Wis DC 11) or are charmed and
  incapacitated; on their turns they walk straight toward the harpy (simplification: no
  opportunity attacks on the way); a save at the end of each of their turns ends it; the harpy keeps
  singing with a bonus action on each later turn, and the song ends when it does not or when it
  is incapacitated.
* **Gibbering** and **Aberrant Ground** (gibbering mouther): a creature starting its turn within
  10 ft saves (Str DC 10) or has speed 0 this turn (any creature but the mouther); within 20 ft (and not deafened), a Wis DC 10
  save or no reactions and a d8: 1-4 nothing, 5-6 a move in a random direction (no opportunity
  attacks) and nothing else, 7-8 a melee attack against a random creature within reach (its only
  option) or nothing. Simplification: the doughy ground is not difficult terrain.
* **Engulf**, **Ooze Cube** (gelatinous cube; Transparent is out of scope: surprise): a Large or
  smaller foe beside it saves (Dex DC 12) or takes 3d6 acid and is inside (restrained, total cover
  from outside, moving with it, 6d6 acid at the start of the cube's turns; one Large or four Medium
  or smaller); a success pushes it 5 ft away. Out with an action and a DC 12 Str check, or pulled
  out by a friend beside the cube (DC 12 Str check, 3d6 acid to the puller). Simplification: the
  cube does not move as part of Engulf (it moves first, then engulfs).
* **Fling** (kraken): a Large or smaller creature it grapples flies up to 60 ft in a random
  direction and lands prone; a wall or creature stops it (1d6 bludgeoning per 10 ft flown; a
  creature hit saves, Dex DC 18, or takes the same and falls prone). **Freedom of Movement**: at the
  start of its turn magical slowing and restraint fall away and 5 ft of movement frees it from a
  grapple or nonmagical restraint (simplification: the map's difficult terrain still costs it).
* **Tendril**, **Reel**, **Grasping Tendrils** (roper): its multiattack is four tendrils (reach 50
  ft, a hit grapples and restrains, disadvantage on Str saves), Reel (each creature it grapples is
  pulled up to 25 ft straight toward it), then its bite; six tendrils at most. Simplification: a
  tendril is not a target of attacks; a held creature breaks it with an action and a DC 15 Str
  check (with disadvantage), or escapes the grapple as usual.
* **Reflective Carapace** (tarrasque): a spell's ranged attack roll, a Magic Missile dart or an
  instant line spell (Lightning Bolt, Sunbeam...) aimed at or catching it rolls a d6: 1-5 it is
  unaffected, 6 the caster becomes the target (the caster's own numbers; a line catches only the
  caster). Lasting walls are not reflected.
* **Limited Magic Immunity** (rakshasa): foes' spells of 6th level or lower (the slot level where
  the engine knows it, else the spell's own) cannot target it or catch it in their areas (lasting
  zones included; Spiritual Weapon's attacks too); advantage on saves against other magic.
* **Roar** (androsphinx, 3 a day): the first (Wis DC 18 or frightened), second (Wis DC 18 or
  deafened and frightened, and paralyzed while frightened) and third roar (Con DC 18, 8d10 thunder,
  half on a success; a failure knocks a Large or smaller creature prone) in turn, on every other
  creature within 500 ft that is not deafened.
"""

from __future__ import annotations

from . import content
from .areas import DIRECTIONS_8
from .grid import SQUARE_FT, box_distance_ft, footprint
from .model.options import Opt
from .model.weapons import weapon_of
from .rules import hooks
from .state import AttackProfile, DamagePart, Economy, expected_damage

# ---------------------------------------------------------------- SRD numbers per monster
BERSERK = {"clay-golem": 60, "flesh-golem": 40}            # hit points at or below which the d6 is rolled
TRUE_FORM = {"night-hag": "hag", "oni": "oni", "succubus-incubus": "fiend"}
CORRODE = {"black-pudding": "metal_wood", "gray-ooze": "metal", "rust-monster": "metal"}
ARMOR_BASE_AC = {"ring-mail": 14, "chain-shirt": 13, "scale-mail": 14, "breastplate": 14, "half-plate": 15,
                 "chain-mail": 16, "splint-armor": 17, "splint": 17, "plate-armor": 18, "plate": 18}
NOT_METAL = frozenset({"club", "greatclub", "quarterstaff", "sling", "shortbow", "longbow", "blowgun", "net",
                       "whip"})
LEGENDARY = {   # monster -> (key, cost, label)
    "aboleth": (("psychic-drain", 2, "3d6 psychic to a creature it has charmed; it regains as much"),),
    "mummy-lord": (("channel-negative-energy", 2, "no healing within 60 ft until the end of its next turn"),),
    "unicorn": (("shimmering-shield", 2, "+2 AC to it or a creature within 60 ft until the end of its next turn"),),
}
WHIRLWIND_FT = 60
ROAR = {"dc": 18, "range": 500, "damage": "8d10", "rounds": 10}
SEA_HAG = {"dc": 11, "range": 30}
KISS = {"dc": 15, "damage": "5d10+5"}
SONG = {"dc": 11, "range": 300, "types": ("humanoid", "giant")}
GIBBER = {"dc": 10, "range": 20, "ground_dc": 10, "ground": 10}
FLYING_SWORD_FT = 50
CUBE = {"dc": 12, "hit": "3d6", "tick": "6d6", "escape_dc": 12, "pull_dc": 12, "pull": "3d6"}
FLING = {"ft": 60, "dc": 18, "size_max": "large"}
ROPER = {"tendrils": 6, "reel": 25, "break_dc": 15}
SIZE_ORDER = ("tiny", "small", "medium", "large", "huge", "gargantuan")


def _ms(c) -> dict:
    return c.resources.get("ms") or {}


# ================================================================ compiling a monster
def compile_monster(spec, c):
    """Add what this module runs to a monster combatant built by :func:`.builders.monsters.monster_combatant`."""
    if spec.speed.swim:
        c.resources["swim"] = spec.speed.swim
    key = spec.key
    ms: dict = {}
    traits = {t.key for t in spec.traits}
    if "acid-absorption" in traits:
        c.resources["absorb"] = list(c.resources.get("absorb", ())) + ["acid"]
    if key in BERSERK and "berserk" in traits:
        ms["berserk"] = BERSERK[key]
    if "aversion-of-fire" in traits:
        ms["aversion_fire"] = True
    if key == "clay-golem" and any(a.key == "haste" for a in spec.actions):
        ms.setdefault("actions", []).append("haste")
        c.recharge["haste"] = True
    corrode = CORRODE.get(key)
    if corrode and ({"corrosive-form", "corrode-metal", "rust-metal"} & traits):
        ms["corrode"] = corrode
    if key == "black-pudding":
        t = spec.trait("corrosive-form")
        c.resources["heated_body"] = [(d.dice, d.type) for d in t.damage]   # acid on melee attackers
    if key == "gray-ooze":
        ms["corrode_armor"] = "pseudopod"
    if key == "rust-monster" and any(a.key == "antennae" for a in spec.actions):
        ms.setdefault("actions", []).append("antennae")
        ms["antennae_dc"] = 11
    if "fire-form" in traits:
        dice = spec.trait("fire-form").damage[0]
        c.resources["heated_body"] = [(dice.dice, dice.type)]
        c.features += ("enters_foes",) if "enters_foes" not in c.features else ()
        ms["fire_form"] = dice.dice
        ms["ignite"] = {"attack": "touch", "dice": dice.dice}
    if "water-susceptibility" in traits:
        ms["water_cold"] = 1
    if key == "sea-hag":
        ms["horrific"] = dict(SEA_HAG)
        ms.setdefault("actions", []).append("death-glare")
    form = TRUE_FORM.get(key)
    if form:   # the battle starts in its true form: its "<form> Form Only" attacks
        extra = []
        for a in spec.actions:
            if getattr(a, "attack_type", None) and a.executable and form in a.forms and a.damage \
                    and all(x.key != a.key for x in c.attacks):
                extra.append(AttackProfile(a.key, a.name, a.bonus, tuple(DamagePart(d.dice, d.type) for d in a.damage),
                                           True, a.reach or 5, 0, 0, spell=any(x.spell for x in c.attacks)))
        c.attacks = c.attacks + tuple(extra)
    if key == "succubus-incubus":
        ms.setdefault("actions", []).append("draining-kiss")
    if key == "duergar":
        c.resources["save_adv_vs"] = sorted(set(c.resources.get("save_adv_vs", ())) | {"charmed", "paralyzed", "poisoned"})
        ms["resilience"] = True
        ms.setdefault("actions", []).extend(["enlarge", "invisibility"])
        c.resources["uses:enlarge"] = c.resources["uses:invisibility"] = 1
    if key == "guardian-naga":
        a = spec.action("spit-poison")
        s = a.on_hit_saves[0]
        c.attacks = c.attacks + (AttackProfile(
            a.key, a.name, a.bonus, (), False, 0, a.range_normal, a.range_long,
            on_hit=(("save", s.ability, s.dc, (), tuple(DamagePart(d.dice, d.type) for d in s.damage),
                     s.half_on_success, None),)),)
    for lkey, cost, label in LEGENDARY.get(key, ()):
        if any(la.key == lkey for la in spec.legendary_actions):
            c.legendary = c.legendary + ((lkey, cost, "ms", label),)
    for la in spec.legendary_actions:   # "casts a spell" / "casts a cantrip": through its spell options
        if la.kind == "cast_spell" and c.spells:
            top = 0 if la.key == "cantrip" else 9
            c.legendary = c.legendary + ((la.key, la.cost, "ms",
                                          "a cantrip" if top == 0 else "a spell, with a slot as normal"),)
            ms.setdefault("leg_spell", {})[la.key] = top
    if key == "mummy-lord" and any(la.key == "whirlwind-of-sand" for la in spec.legendary_actions):
        c.legendary = c.legendary + (("whirlwind-of-sand", 2, "move", (WHIRLWIND_FT / max(c.speed, 5), False)),)
    if c.legendary and not c.legendary_per_round:
        c.legendary_per_round = spec.legendary_actions_per_round or 3
        c.resources["legendary_left"] = c.legendary_per_round
    if key == "cloaker" and any(a.key == "phantasms" for a in spec.actions):
        ms.setdefault("actions", []).append("phantasms")
        c.resources["uses:phantasms"] = 1
    if key == "solar" and any(a.key == "flying-sword" for a in spec.actions):
        ms.setdefault("actions", []).append("flying-sword")
        ms["sword"] = "greatsword"
    if key == "shield-guardian":
        ms["guardian"] = True
    if key == "harpy" and any(a.key == "luring-song" for a in spec.actions):
        ms.setdefault("actions", []).append("luring-song")
    if key == "gibbering-mouther" and {"gibbering", "aberrant-ground"} <= traits:
        ms["gibbering"] = dict(GIBBER)
    if key == "gelatinous-cube" and any(a.key == "engulf" for a in spec.actions):
        ms.setdefault("actions", []).append("engulf")
        ms["cube"] = dict(CUBE)
    if key == "kraken" and any(a.key == "fling" for a in spec.actions):
        ms.setdefault("actions", []).append("fling")
    if "limited-magic-immunity" in traits:   # spells of 6th level or lower; advantage against other magic
        ms["magic_immunity"] = 6
        c.features += ("magic_resistance",) if "magic_resistance" not in c.features else ()
    if "reflective-carapace" in traits:
        ms["carapace"] = True
    if "freedom-of-movement" in traits:
        ms["free_move"] = True
    if key == "roper" and any(a.key == "tendril" for a in spec.actions):
        t = spec.action("tendril")
        g = t.on_hit_grapple
        c.attacks = c.attacks + (AttackProfile(t.key, t.name, t.bonus, (), True, t.reach, 0, 0,
                                               on_hit=(("grapple", g.escape_dc, g.size_max, g.restrained),)),)
        c.multiattack = ("tendril",) * 4 + ("bite",)   # then Reel before the bite (see menu)
        ms["roper"] = dict(ROPER)
        ms.setdefault("actions", []).extend(["multiattack", "tendril", "reel"])
    if key == "androsphinx" and any(a.key == "roar" for a in spec.actions):
        ms.setdefault("actions", []).append("roar")
        ms["roars"] = 0
    if ms:
        c.resources["ms"] = ms
    return c


# trait key -> how coverage tells the compiled combatant runs it (merged into coverage._TRAIT_RUN)
TRAIT_RUN = {
    "acid-absorption": lambda c: "acid" in c.resources.get("absorb", ()),
    "berserk": lambda c: "berserk" in _ms(c),
    "aversion-of-fire": lambda c: "aversion_fire" in _ms(c),
    "corrosive-form": lambda c: _ms(c).get("corrode") == "metal_wood" and "heated_body" in c.resources,
    "corrode-metal": lambda c: _ms(c).get("corrode") == "metal",
    "rust-metal": lambda c: _ms(c).get("corrode") == "metal",
    "fire-form": lambda c: "fire_form" in _ms(c) and "enters_foes" in c.features,
    "water-susceptibility": lambda c: "water_cold" in _ms(c),
    "horrific-appearance": lambda c: "horrific" in _ms(c),
    "duergar-resilience": lambda c: "resilience" in _ms(c),
    "bound": lambda c: "guardian" in _ms(c),
    "gibbering": lambda c: "gibbering" in _ms(c),
    "aberrant-ground": lambda c: "gibbering" in _ms(c),
    "ooze-cube": lambda c: "cube" in _ms(c),
    "freedom-of-movement": lambda c: "free_move" in _ms(c),
    "grasping-tendrils": lambda c: "roper" in _ms(c),
    "reflective-carapace": lambda c: "carapace" in _ms(c),
    "limited-magic-immunity": lambda c: "magic_immunity" in _ms(c) and "magic_resistance" in c.features,
}
REACTION_RUN = {"shield": lambda c: "guardian" in _ms(c)}


def runs(c) -> set:
    """The action keys this module runs for the combatant (for coverage)."""
    out = set(_ms(c).get("actions", ()))
    if "roar" in out:
        out |= {"first-roar", "second-roar", "third-roar"}
    return out


# ================================================================ battle set-up and turns
def setup(b) -> bool:
    """Battle start: the shield guardians' amulet wearers; whether any creature needs this module
    at the start or end of turns, in menus or in movement (``Battle.specials``)."""
    any_ms = False
    for c in sorted(b.creatures.values(), key=lambda o: o.cid):
        ms = _ms(c)
        if not ms:
            continue
        any_ms = True
        if "guardian" in ms:
            want = c.resources.get("amulet_wearer")
            wearer = b.creatures.get(want) if want else next(
                (o for o in sorted(b.allies_of(c), key=lambda o: o.cid) if "guardian" not in _ms(o)), None)
            if wearer is not None and wearer is not c:
                wearer.resources["amulet_of"] = c.cid
                ms["wearer"] = wearer.cid
    return any_ms


def swim_speed(b, c) -> int:
    """A swimmer's speed when its space is in water (0 elsewhere)."""
    sw = c.resources.get("swim") or 0
    if sw is True:   # a PC's swimming (equal to its walking speed)
        sw = c.speed
    return sw if any(b.map.is_water(x, y) for x, y in c.cells) else 0


def start_turn(b, c) -> None:
    """The start of c's turn: burning, its own berserk roll, the auras of others around it."""
    burn = c.conditions.get("burning")
    if burn:
        b.damage(c, b.roller.roll_damage(burn["dice"], what=f"burning {c.cid}"), "fire", magical=True,
                 source=burn.get("by"))
        if not c.conscious:
            return
    ms = _ms(c)
    if ms:
        _own_start(b, c, ms)
    c.conditions.pop("gibbering", None)
    for o in sorted(b.creatures.values(), key=lambda o: o.cid):
        if o is c or o.dead or not c.conscious:
            continue
        oms = _ms(o)
        if not oms:
            continue
        if "horrific" in oms:
            _horrific(b, o, c, oms["horrific"])
        if "gibbering" in oms and not o.incapacitated:
            _gibber(b, o, c, oms["gibbering"])
        if oms.get("singing") and c.conditions.get("charmed", {}).get("song") == o.cid:
            _lured_walk(b, o, c)
    # a song's victims whose incapacitation ended (a repeat save) are no longer charmed by it
    ch = c.conditions.get("charmed")
    if ch and ch.get("song") and c.conditions.get("incapacitated", {}).get("song") != ch["song"]:
        del c.conditions["charmed"]


def _own_start(b, c, ms) -> None:
    if "berserk" in ms:
        if "berserk" in c.conditions and c.hp >= c.max_hp:
            _calm(b, c)
        elif "berserk" not in c.conditions and 0 < c.hp <= ms["berserk"] \
                and b.roller.roll("1d6", what=f"berserk {c.cid}") == 6:
            c.conditions["berserk"] = {"side": c.side}
            c.side = "berserk"   # it attacks the nearest creature, whatever its side
            b.forget_reach()
            b.event("berserk", f"{c.cid} goes berserk", creature=c.cid)
    if ms.get("enlarged") and "enlarged" not in c.conditions:   # Enlarge's minute is over
        _shrink(b, c)
    if ms.get("singing") and c.incapacitated:
        _song_ends(b, c)
    if ms.get("sword_out"):
        ms["sword_moved"] = False
    if "free_move" in ms:
        _free_move(b, c)
    ms.pop("leg_cast", None)   # a legendary casting cut short
    if "cube" in ms:   # acid for everyone inside
        for o in sorted(_inside_cube(b, c), key=lambda o: o.cid):
            b.damage(o, b.roller.roll_damage(ms["cube"]["tick"], what=f"engulf {c.cid}"), "acid", source=c.cid)


def _calm(b, c) -> None:
    c.side = c.conditions.pop("berserk")["side"]
    b.forget_reach()
    b.event("condition_end", f"{c.cid} is no longer berserk", creature=c.cid, condition="berserk")


def end_turn(b, c) -> None:
    ms = _ms(c)
    if ms.get("singing") and ms.get("sung") != b.round and ms.get("song_round") != b.round:
        _song_ends(b, c)
    if "gibbering" in c.conditions:
        del c.conditions["gibbering"]
    for o in b.creatures.values():   # a second roar's paralysis ends with the fear
        par = o.conditions.get("paralyzed")
        if par and par.get("roar") and o.conditions.get("frightened", {}).get("roar") != par["by"]:
            del o.conditions["paralyzed"]
            b.event("condition_end", f"{o.cid} is no longer paralyzed", creature=o.cid, condition="paralyzed")


# ================================================================ the menu
def menu(b, c, out: list) -> list:
    """Add c's own options before End turn; trim what Berserk, Gibbering or a hovering sword forbid."""
    e = c.economy
    if "gibbering" in c.conditions:   # what the d8 left it: nothing, or one melee attack
        g = c.conditions["gibbering"]
        keep = [o for o in out if o.kind == "end_turn"]
        t = b.creatures.get(g.get("target", ""))
        if e.actions > 0 and t is not None and not t.dead and _best_melee(b, c, t) is not None:
            keep.insert(0, Opt(f"Gibbering: attack {t.cid} (the d8's random creature)", "ms_gibber_attack", (t.cid,)))
        return keep
    ms = _ms(c)
    if ms.get("leg_cast"):   # a legendary action's spell: only spells, then back to the others' turns
        top = ms["leg_cast"]["max_level"]
        keep = [o for o in out if o.kind == "spell" and len(o.data) == 2 and o.data[1] <= top
                and e.actions > 0] if e.actions > 0 else []
        return keep + [Opt("End the legendary action", "ms_leg_done")]
    extra = []
    has_action = e.actions > 0
    if "burning" in c.conditions and has_action:
        extra.append(Opt("Douse the fire (action)", "ms_douse"))
    cube = c.conditions.get("swallowed", {}).get("cube")
    if cube and has_action:
        extra.append(Opt(f"Escape the cube (Str check DC {CUBE['escape_dc']})", "ms_cube_escape"))
    elif has_action and _pull_targets(b, c):
        extra.append(Opt(f"Pull a creature out of the cube (Str check DC {CUBE['pull_dc']}; {CUBE['pull']} acid to you)",
                         "ms_cube_pull"))
    if ms:
        acts = ms.get("actions", ())
        if has_action:
            if "haste" in acts and c.recharge.get("haste", True):
                extra.append(Opt("Haste (until the end of its next turn: +2 AC, advantage on Dex saves, "
                                 "a bonus-action slam)", "ms_haste"))
            if "antennae" in acts and _antennae_targets(b, c):
                extra.append(Opt(f"Antennae (corrode a foe's metal armour or weapon, Dex DC {ms['antennae_dc']})",
                                 "ms_antennae"))
            if "death-glare" in acts and _glare_targets(b, c):
                extra.append(Opt(f"Death Glare (a frightened foe within 30 ft: Wis DC {SEA_HAG['dc']} or 0 HP)",
                                 "ms_glare"))
            if "draining-kiss" in acts and _kiss_targets(b, c):
                extra.append(Opt(f"Draining Kiss (a creature it has charmed: Con DC {KISS['dc']}, "
                                 f"{KISS['damage']} psychic, lowers its HP maximum)", "ms_kiss"))
            if "enlarge" in acts and c.resources.get("uses:enlarge", 0) > 0:
                extra.append(Opt("Enlarge (1 minute: Large, war pick 2d8+2, advantage on Str saves)", "ms_enlarge"))
            if "invisibility" in acts and c.resources.get("uses:invisibility", 0) > 0 \
                    and "invisible" not in c.conditions:
                extra.append(Opt("Invisibility (until it attacks or uses Enlarge; concentration)", "ms_invisibility"))
            if "phantasms" in acts and c.resources.get("uses:phantasms", 0) > 0:
                extra.append(Opt("Phantasms (three illusory duplicates; concentration)", "ms_phantasms"))
            if "flying-sword" in acts and not ms.get("sword_out") and not e.attack_queue and not e.attacks_left:
                extra.append(Opt("Flying Sword (release the greatsword to hover beside it)", "ms_release_sword"))
            if "luring-song" in acts and not ms.get("singing") and _song_targets(b, c):
                extra.append(Opt(f"Luring Song (humanoids and giants within {SONG['range']} ft: Wis DC {SONG['dc']} "
                                 "or charmed and incapacitated)", "ms_song"))
            if "roar" in acts and ms.get("roars", 0) < 3:
                n = ms.get("roars", 0)
                what = ("frightened", "deafened and frightened (paralyzed)", f"{ROAR['damage']} thunder and prone")[n]
                extra.append(Opt(f"Roar #{n + 1} (every creature within {ROAR['range']} ft: DC {ROAR['dc']} "
                                 f"{'CON' if n == 2 else 'WIS'} or {what}; {2 - n} left after)", "ms_roar"))
            if "fling" in acts and _fling_targets(b, c):
                extra.append(Opt(f"Fling (a Large or smaller creature it grapples, up to {FLING['ft']} ft in a random "
                                 "direction, prone)", "ms_fling"))
            if "engulf" in acts and _cube_targets(b, c):
                extra.append(Opt(f"Engulf (a Large or smaller foe beside it: Dex DC {CUBE['dc']} or {CUBE['hit']} acid "
                                 f"and engulfed, {CUBE['tick']} acid each turn)", "ms_engulf"))
        if e.bonus:
            if "golem_haste" in c.conditions and _targets(b, c, "slam"):
                extra.append(Opt("Haste: slam (bonus action)", "ms_haste_slam"))
            if ms.get("singing") and ms.get("song_round") != b.round and ms.get("sung") != b.round:
                extra.append(Opt("Keep up the Luring Song (bonus action)", "ms_sing"))
            if ms.get("sword_out") and not ms.get("sword_moved"):
                if _sword_targets(b, c):
                    extra.append(Opt(f"Flying Sword: fly up to {FLYING_SWORD_FT} ft and attack (bonus action)",
                                     "ms_sword_attack"))
                extra.append(Opt("Flying Sword: return to its hand (bonus action)", "ms_sword_return"))
        if ms.get("sword_out"):   # no greatsword attacks while it hovers
            sword = ms["sword"]
            out = [o for o in out if not (o.kind == "attack" and o.data[0] == sword)
                   and not (o.kind == "multiattack" and sword in c.multiattack)]
    if has_action and _tendrils_on(b, c):
        extra.append(Opt(f"Break the tendril (Str check DC {ROPER['break_dc']}, disadvantage)", "ms_break_tendril"))
    if ms and "roper" in ms:
        out = _roper_menu(b, c, ms, out)
    if extra:
        out = out[:-1] + extra + out[-1:] if out and out[-1].kind == "end_turn" else out + extra
    if "berserk" in c.conditions:
        out = _berserk_menu(b, c, out)
    return out


def _targets(b, c, attack_key: str) -> list:
    try:
        a = c.attack(attack_key)
    except KeyError:
        return []
    return b.targets_for_attack(c, a)


def _nearest(b, c) -> list:
    """The nearest creatures c can see (Berserk)."""
    seen = [o for o in b.creatures.values() if o is not c and not o.dead and o.conscious
            and "invisible" not in o.conditions
            and b.map.can_see(c.cells, o.cells, viewer_z=c.pos[2], target_z=o.pos[2])]
    if not seen:
        return []
    d = min(b.distance(c, o) for o in seen)
    return [o for o in seen if b.distance(c, o) == d]


def _berserk_menu(b, c, out: list) -> list:
    near = {o.cid for o in _nearest(b, c)}
    keep = []
    for o in out:
        if o.kind in ("move", "dash", "end_turn", "stand", "escape", "ms_haste_slam") or o.kind == "attack" and any(t.cid in near for t in b.targets_for_attack(c, c.attack(o.data[0]))):
            keep.append(o)
        elif o.kind == "multiattack":
            first = next((k for k in c.multiattack if k not in c.save_actions), None)
            if first and any(t.cid in near for t in b.targets_for_attack(c, c.attack(first))):
                keep.append(o)
    return keep


def berserk_targets(b, c, out: list) -> list:
    """Berserk: only the nearest creature (when the list has one)."""
    near = {o.cid for o in _nearest(b, c)}
    mine = [o for o in out if o.kind != "target" or o.data[0] in near]
    return mine if any(o.kind == "target" for o in mine) else out


# ================================================================ applying options
# every action-menu option kind this module lists (its own actions; :func:`apply` carries them out)
KINDS = ("ms_leg_done", "ms_douse", "ms_haste", "ms_haste_slam", "ms_cube_escape", "ms_break_tendril",
         "ms_antennae", "ms_glare", "ms_kiss", "ms_sword_attack", "ms_engulf", "ms_cube_pull", "ms_fling",
         "ms_gibber_attack", "ms_enlarge", "ms_invisibility", "ms_phantasms", "ms_release_sword",
         "ms_sword_return", "ms_song", "ms_sing", "ms_roar")


def apply(b, c, p, opt) -> None:
    kind, e, ms = opt.kind, c.economy, _ms(c)
    if kind == "ms_leg_done":
        _end_legendary_cast(b, c)
        return
    if kind == "ms_douse":
        e.actions -= 1
        c.conditions.pop("burning", None)
        b.event("douse", f"{c.cid} douses the fire", creature=c.cid)
    elif kind == "ms_haste":
        e.actions -= 1
        c.recharge["haste"] = False
        c.conditions["golem_haste"] = {"by": c.cid, "ac": 2, "save_adv": ("dex",), "until": "end_of_target_next_turn",
                                       "turn_of": c.cid, "round": b.round}
        b.event("haste", f"{c.cid} hastes itself (+2 AC, a bonus-action slam)", creature=c.cid)
    elif kind == "ms_haste_slam":
        b.pending = {"kind": "target", "actor": c.cid, "use": ("ms", "haste-slam")}
        return
    elif kind == "ms_cube_escape":
        e.actions -= 1
        cube = b.creatures[c.conditions["swallowed"]["by"]]
        if _str_check(b, c, CUBE["escape_dc"], "escape cube"):
            _leave_cube(b, cube, c)
    elif kind == "ms_break_tendril":
        e.actions -= 1
        roper = b.creatures[next(o for o in _tendrils_on(b, c))]
        roll = b.roller.roll_d20(False, True, bonus=b.athletics(c), what=f"break tendril {c.cid}")
        ok = roll.total >= ROPER["break_dc"]
        b.event("check", f"{c.cid} {'breaks' if ok else 'fails to break'} {roper.cid}'s tendril ({roll.total})",
                creature=c.cid, success=ok)
        if ok:
            b.release(c)
    elif kind in ("ms_antennae", "ms_glare", "ms_kiss", "ms_sword_attack", "ms_engulf", "ms_cube_pull", "ms_fling"):
        b.pending = {"kind": "target", "actor": c.cid, "use": ("ms", kind[3:])}
        return
    elif kind == "ms_gibber_attack":
        t = b.creatures[opt.data[0]]
        a = _best_melee(b, c, t)
        e.actions = 0
        c.conditions.pop("gibbering", None)
        b.event("gibbering_attack", f"{c.cid} lashes out at {t.cid}", creature=c.cid, target=t.cid)
        if b.make_attack(c, a, t, melee=True, then="menu") is None:
            return
    elif kind == "ms_enlarge":
        e.actions -= 1
        c.resources["uses:enlarge"] -= 1
        _enlarge(b, c)
    elif kind == "ms_invisibility":
        e.actions -= 1
        c.resources["uses:invisibility"] -= 1
        b.end_concentration(c)
        c.concentration = "invisibility"
        c.resources["concentration_until"] = b.round + 600
        c.conditions["invisible"] = {"by": c.cid, "spell": "invisibility", "ends_on_attack": True}
        b.event("invisibility", f"{c.cid} turns invisible", creature=c.cid)
    elif kind == "ms_phantasms":
        e.actions -= 1
        c.resources["uses:phantasms"] -= 1
        b.end_concentration(c)
        c.concentration = "phantasms"
        c.resources["concentration_until"] = b.round + 100
        c.conditions["phantasms"] = {"by": c.cid, "spell": "phantasms", "images": 3, "uniform": True, "ac": c.ac}
        b.event("phantasms", f"{c.cid} creates three illusory duplicates", creature=c.cid)
    elif kind == "ms_release_sword":
        e.actions -= 1
        ms["sword_out"], ms["sword_pos"], ms["sword_moved"] = True, tuple(c.pos), False
        b.event("flying_sword", f"{c.cid} releases its greatsword to hover beside it", creature=c.cid)
    elif kind == "ms_sword_return":
        e.bonus = False
        ms["sword_out"] = False
        b.event("flying_sword", f"{c.cid}'s greatsword returns to its hand", creature=c.cid)
    elif kind == "ms_song":
        _start_song(b, c)
    elif kind == "ms_sing":
        e.bonus = False
        ms["sung"] = b.round
        b.event("luring_song", f"{c.cid} keeps singing", creature=c.cid)
    elif kind == "ms_roar":
        _roar(b, c)
    b.back_to_menu(c)


def target_options(b, c, use) -> list:
    what = use[1]
    if what == "haste-slam":
        return [Opt(f"Slam {t.cid} [{t.hp}/{t.max_hp} HP, AC {b.armour_class(t)}]", "target", (t.cid,))
                for t in _targets(b, c, "slam")]
    if what == "antennae":
        return [Opt(f"Antennae on {t.cid}'s {'armour' if t.metal_armor else 'weapon'}", "target", (t.cid,))
                for t in _antennae_targets(b, c)]
    if what == "glare":
        return [Opt(f"Death Glare at {t.cid} [{t.hp}/{t.max_hp} HP, WIS save {t.saves['wis']:+d}]", "target", (t.cid,))
                for t in _glare_targets(b, c)]
    if what == "kiss":
        return [Opt(f"Draining Kiss on {t.cid} [{t.hp}/{t.max_hp} HP, CON save {t.saves['con']:+d}]", "target",
                    (t.cid,)) for t in _kiss_targets(b, c)]
    if what == "sword_attack":
        return [Opt(f"Flying Sword attacks {t.cid} [{t.hp}/{t.max_hp} HP, AC {b.armour_class(t)}]", "target", (t.cid,))
                for t in _sword_targets(b, c)]
    if what == "fling":
        return [Opt(f"Fling {t.cid} [{t.hp}/{t.max_hp} HP]", "target", (t.cid,)) for t in _fling_targets(b, c)]
    if what == "engulf":
        return [Opt(f"Engulf {t.cid} [{t.hp}/{t.max_hp} HP, DEX save {t.saves['dex']:+d}]", "target", (t.cid,))
                for t in _cube_targets(b, c)]
    if what == "cube_pull":
        return [Opt(f"Pull {t.cid} out of {t.conditions['swallowed']['by']}", "target", (t.cid,))
                for t in _pull_targets(b, c)]
    if what == "psychic-drain":
        return [Opt(f"Psychic Drain on {t.cid} [{t.hp}/{t.max_hp} HP]", "target", (t.cid,)) for t in _drain_targets(b, c)]
    if what == "shimmering-shield":
        return [Opt(f"Shimmering Shield on {t.cid} [AC {b.armour_class(t)}]", "target", (t.cid,))
                for t in _shield_targets(b, c)]
    return []


def resolve_target(b, c, use, t) -> None:
    what, e = use[1], c.economy
    if what == "haste-slam":
        e.bonus = False
        if b.make_attack(c, c.attack("slam"), t, then="menu") is None:
            return
    elif what == "antennae":
        e.actions -= 1
        _antennae(b, c, t)
    elif what == "glare":
        e.actions -= 1
        b.event("death_glare", f"{c.cid} glares at {t.cid}", creature=c.cid, target=t.cid)
        if not b.saving_throw(t, "wis", SEA_HAG["dc"], magic=True) and t.hp > 0:
            t.hp = t.temp_hp = 0   # not damage: it simply drops to 0 hit points
            b.event("down", f"{t.cid} drops to 0 HP (Death Glare)", creature=t.cid)
            if t.is_pc:
                b.fall_unconscious(t)
            else:
                b.die(t, "Death Glare")
    elif what == "kiss":
        e.actions -= 1
        b.event("draining_kiss", f"{c.cid} kisses {t.cid}", creature=c.cid, target=t.cid)
        ok = b.saving_throw(t, "con", KISS["dc"], magic=True)
        amount = b.roller.roll_damage(KISS["damage"], what="damage draining-kiss psychic")
        taken = b.damage(t, amount // 2 if ok else amount, "psychic", magical=True, source=c.cid)
        if taken and not t.dead:
            t.max_hp = max(0, t.max_hp - taken)
            t.hp = min(t.hp, t.max_hp)
            b.event("max_hp", f"{t.cid}'s hit point maximum drops to {t.max_hp}", creature=t.cid)
            if t.max_hp == 0:
                b.die(t, "Draining Kiss")
    elif what == "sword_attack":
        ms = _ms(c)
        e.bonus = False
        ms["sword_moved"], ms["sword_pos"] = True, tuple(t.pos)
        b.event("flying_sword", f"{c.cid}'s greatsword flies at {t.cid}", creature=c.cid, target=t.cid)
        if b.make_attack(c, c.attack(ms["sword"]), t, melee=True, then="menu") is None:
            return
    elif what == "engulf":
        e.actions -= 1
        _engulf(b, c, t)
    elif what == "fling":
        e.actions -= 1
        _fling(b, c, t)
    elif what == "cube_pull":
        e.actions -= 1
        cube = b.creatures[t.conditions["swallowed"]["by"]]
        ok = _str_check(b, c, CUBE["pull_dc"], "pull from cube")
        b.damage(c, b.roller.roll_damage(CUBE["pull"], what=f"cube acid {c.cid}"), "acid", source=cube.cid)
        if ok:
            _leave_cube(b, cube, t)
    elif what == "psychic-drain":
        b.event("psychic_drain", f"{c.cid} drains {t.cid}'s mind", creature=c.cid, target=t.cid)
        taken = b.damage(t, b.roller.roll_damage("3d6", what="damage psychic-drain psychic"), "psychic",
                         magical=True, source=c.cid)
        if taken:
            b.heal(c, taken, "Psychic Drain")
        if not b.check_outcome():
            b.next_turn()
        return
    elif what == "shimmering-shield":
        t.conditions["shimmering_shield"] = {"by": c.cid, "ac": 2, "until": "end_of_source_next_turn",
                                             "turn_of": None, "round": b.round}
        b.event("shimmering_shield", f"{c.cid} shields {t.cid} (+2 AC)", creature=c.cid, target=t.cid)
        if not b.check_outcome():
            b.next_turn()
        return
    b.back_to_menu(c)


# ================================================================ legendary actions
def legendary_ok(b, c, key: str) -> bool:
    if key in _ms(c).get("leg_spell", {}):
        return bool(_legendary_spells(b, c, _ms(c)["leg_spell"][key]))
    if key == "psychic-drain":
        return bool(_drain_targets(b, c))
    if key == "shimmering-shield":
        return bool(_shield_targets(b, c))
    return key == "channel-negative-energy"


def use_legendary(b, c, key: str) -> None:
    if key in _ms(c).get("leg_spell", {}):
        _start_legendary_cast(b, c, _ms(c)["leg_spell"][key])
        return
    if key in ("psychic-drain", "shimmering-shield"):
        b.pending = {"kind": "target", "actor": c.cid, "use": ("ms", key, "legendary")}
        return
    if key == "channel-negative-energy":
        for o in sorted(b.creatures.values(), key=lambda o: o.cid):
            if o is not c and not o.dead and b.distance(c, o) <= 60:
                o.conditions["negative_energy"] = {"by": c.cid, "until": "end_of_source_next_turn", "turn_of": None,
                                                   "round": b.round}
        b.event("negative_energy", f"{c.cid} unleashes negative energy: no healing within 60 ft", creature=c.cid)
    b.next_turn()


def _drain_targets(b, c) -> list:
    return [o for o in sorted(b.creatures.values(), key=lambda o: o.cid)
            if not o.dead and o.conditions.get("charmed", {}).get("by") == c.cid]


def _shield_targets(b, c) -> list:
    return [o for o in [c, *sorted(b.allies_of(c), key=lambda o: o.cid)]
            if o.conscious and "shimmering_shield" not in o.conditions and b.distance(c, o) <= 60]


# ================================================================ damage, attacks, movement
def on_damage(b, t, amount: int, dtype: str, source) -> None:
    """Aversion of Fire: disadvantage on attacks and checks until the end of its next turn."""
    if dtype == "fire" and amount > 0 and "aversion_fire" in _ms(t):
        t.conditions["fire_aversion"] = {"by": source, "attack_dis": True, "check_dis": True,
                                         "until": "end_of_target_next_turn",
                                         "turn_of": t.cid if b.active is t else None, "round": b.round}
        b.event("condition", f"{t.cid} recoils from the fire", creature=t.cid, condition="fire_aversion")


def bound_share(b, t, amount: int, dtype: str, source) -> int:
    """Bound: half of the wearer's damage (rounded up) goes to its guardian within 60 ft."""
    g = b.creatures.get(t.resources["amulet_of"])
    if g is None or g.dead or b.distance(g, t) > 60:
        return amount
    share = amount - amount // 2
    b.event("bound", f"{g.cid} takes {share} of the damage to {t.cid} (Bound)", creature=g.cid, target=t.cid)
    b.damage(g, share, dtype, magical=True, source=source)
    return amount - share


def guardian_shield(b, c, t) -> int:
    """Shield: +2 AC for the wearer against this attack while the guardian is within 5 ft."""
    g = b.creatures.get(t.resources["amulet_of"])
    if g is None or g.dead or g.incapacitated or not g.economy.reaction or b.distance(g, t) > SQUARE_FT \
            or g is c:
        return 0
    g.economy.reaction = False
    b.event("guardian_shield", f"{g.cid} shields {t.cid} (+2 AC)", creature=g.cid, target=t.cid)
    return 2


def after_hit(b, c, t, a, melee: bool) -> None:
    """A hit landed: a corroding target eats the weapon; a corroding or burning attacker's rider."""
    tms, cms = _ms(t), _ms(c)
    if tms.get("corrode") and not t.dead:
        _corrode_weapon(b, c, a, tms["corrode"])
    if cms.get("corrode_armor") == a.key and t.metal_armor:
        _corrode_armor(b, t)
    if "roper" in cms and a.key == "tendril":   # disadvantage on Str saves while the tendril holds it
        r = t.conditions.get("restrained")
        if r and r.get("by") == c.cid:
            r["save_dis"] = ("str",)
    ig = cms.get("ignite")
    if ig and ig["attack"] == a.key and not t.dead:
        _ignite(b, c, t, ig["dice"])


def _metal_weapon(c, a, kinds: str) -> bool:
    if a.spell:
        return False
    w = weapon_of(c, a)
    if w is None or w not in content.weapons():
        return False
    return kinds == "metal_wood" or w not in NOT_METAL


def _corrode_weapon(b, c, a, kinds: str) -> None:
    if (not a.melee and a.ammo) or not _metal_weapon(c, a, kinds):   # ammunition is spent anyway
        return
    worn = c.resources.setdefault("corroded", {})
    worn[a.key] = worn.get(a.key, 0) + 1
    if worn[a.key] >= 5:
        _drop_attack(c, a.key)
        b.event("corrode", f"{c.cid}'s {a.key} corrodes away", creature=c.cid, attack=a.key)
        return
    new = []
    for x in c.attacks:
        if x.key == a.key and x.damage:
            first = x.damage[0]
            x = x._replace(damage=(DamagePart(_minus_one(first.dice), first.type),) + tuple(x.damage[1:]))
        new.append(x)
    c.attacks = tuple(new)
    b.event("corrode", f"{c.cid}'s {a.key} corrodes (-{worn[a.key]} to damage)", creature=c.cid, attack=a.key)


def _drop_attack(c, key: str) -> None:
    """A destroyed weapon: its attack, and every step or reference to it, is gone."""
    c.attacks = tuple(x for x in c.attacks if x.key != key)
    if key in c.multiattack:
        steps = tuple(k for k in c.multiattack if k != key)
        c.multiattack = steps if len(steps) >= 2 else ()
    c.economy.attack_queue = tuple(k for k in c.economy.attack_queue if k != key)
    c.legendary = tuple(x for x in c.legendary if not (x[2] == "attack" and x[3] == key))
    for res in ("rampage", "charge"):
        v = c.resources.get(res)
        if v == key or (isinstance(v, dict) and key in (v.get("attack"), v.get("bonus_attack"))):
            del c.resources[res]
    if c.conditions.get("readied", {}).get("attack") == key:
        del c.conditions["readied"]
    if c.economy.light_attack == key:
        c.economy.light_attack = None


def _minus_one(dice: str) -> str:
    """'1d8+3' -> '1d8+2'; '1d8' -> '1d8-1'; '1d8-1' -> '1d8-2'."""
    for sign in ("+", "-"):
        if sign in dice:
            head, _, n = dice.rpartition(sign)
            if n.isdigit():
                v = (int(n) if sign == "+" else -int(n)) - 1
                return head + (f"+{v}" if v > 0 else f"-{-v}" if v < 0 else "")
    return dice + "-1"


def _corrode_armor(b, t) -> None:
    worn = t.resources.get("armor_corroded", 0) + 1
    t.resources["armor_corroded"] = worn
    base = ARMOR_BASE_AC.get(t.resources.get("armor", ""), 16)
    if base - worn <= 10:   # destroyed: what the armour gave is gone
        t.ac -= (base - 10) - (worn - 1)
        t.metal_armor = False
        b.event("corrode", f"{t.cid}'s armour corrodes away", creature=t.cid)
        return
    t.ac -= 1
    b.event("corrode", f"{t.cid}'s armour corrodes (-{worn} AC)", creature=t.cid)


def _antennae_targets(b, c) -> list:
    return [o for o in sorted(b.enemies_of(c), key=lambda o: o.cid)
            if b.distance(c, o) <= SQUARE_FT and b.may_target(c, o)
            and (o.metal_armor or any(_metal_weapon(o, a, "metal") for a in o.attacks if a.melee))]


def _antennae(b, c, t) -> None:
    b.event("antennae", f"{c.cid} touches {t.cid} with its antennae", creature=c.cid, target=t.cid)
    if b.saving_throw(t, "dex", _ms(c)["antennae_dc"]):
        return
    if t.metal_armor:
        _corrode_armor(b, t)
        return
    a = next((a for a in t.attacks if a.melee and _metal_weapon(t, a, "metal")), None)
    if a is not None:
        _corrode_weapon(b, t, a, "metal")


def _ignite(b, c, t, dice: str) -> None:
    if "burning" not in t.conditions and "fire" not in {k for k, _ in t.immune}:
        t.conditions["burning"] = {"by": c.cid, "dice": dice}
        b.specials = True   # (a summoned elemental joined after the battle began)
        b.event("condition", f"{t.cid} catches fire", creature=t.cid, condition="burning")


def on_step(b, c, pos) -> None:
    """A move's step: Water Susceptibility; Fire Form entering a creature's space."""
    ms = _ms(c)
    if "water_cold" in ms and any(b.map.is_water(x, y) for x, y in footprint(pos[0], pos[1], c.squares)):
        b.damage(c, ms["water_cold"], "cold", source="water")
    if "fire_form" in ms and c.conscious:
        cells = set(footprint(pos[0], pos[1], c.squares))
        done = ms.setdefault("burned", {})
        for o in sorted(b.creatures.values(), key=lambda o: o.cid):
            if o is c or o.dead or done.get(o.cid) == (b.round, b.turn_index) or not cells & set(o.cells):
                continue
            done[o.cid] = (b.round, b.turn_index)
            b.event("fire_form", f"{c.cid} sweeps through {o.cid}'s space", creature=c.cid, target=o.cid)
            b.damage(o, b.roller.roll_damage(ms["fire_form"], what=f"fire form {c.cid}"), "fire", magical=True,
                     source=c.cid)
            if not o.dead:
                _ignite(b, c, o, ms["fire_form"])


# ================================================================ the sea hag, the kiss, the sword
def _sees(b, a, o) -> bool:
    return "blinded" not in a.conditions and "invisible" not in o.conditions \
        and b.map.can_see(a.cells, o.cells, viewer_z=a.pos[2], target_z=o.pos[2])


def _horrific(b, hag, c, h) -> None:
    tag = f"{hag.cid}:horrific"
    if c.creature_type != "humanoid" or b.distance(hag, c) > h["range"] or tag in c.resources.get("immune_to", ()) \
            or "frightened" in c.conditions or not _sees(b, c, hag):
        return
    b.event("horrific_appearance", f"{c.cid} sees {hag.cid}'s true form", creature=c.cid, source=hag.cid)
    if b.saving_throw(c, "wis", h["dc"], magic=True, condition="frightened"):
        c.resources["immune_to"] = tuple(c.resources.get("immune_to", ())) + (tag,)
        return
    b.save_condition(hag, c, "frightened", "wis", h["dc"], (10, None, "end_of_turn", True, ()))
    if "frightened" in c.conditions:   # a success later also makes it immune
        c.resources["immune_to"] = tuple(c.resources.get("immune_to", ())) + (tag,)


def _glare_targets(b, c) -> list:
    return [o for o in sorted(b.enemies_of(c), key=lambda o: o.cid)
            if o.conscious and "frightened" in o.conditions and b.distance(c, o) <= SEA_HAG["range"]
            and _sees(b, c, o) and _sees(b, o, c) and b.may_target(c, o)]


def _kiss_targets(b, c) -> list:
    return [o for o in sorted(b.creatures.values(), key=lambda o: o.cid)
            if o is not c and not o.dead and o.hp > 0 and b.distance(c, o) <= SQUARE_FT
            and o.conditions.get("charmed", {}).get("by") == c.cid]


def _sword_targets(b, c) -> list:
    at = _ms(c).get("sword_pos", c.pos)
    return [t for t in sorted(b.enemies_of(c), key=lambda o: o.cid)
            if b.may_target(c, t) and b.distance(c, t) <= 120
            and box_distance_ft(at[0], at[1], 1, at[2], t.pos[0], t.pos[1], t.squares, t.pos[2])
            <= FLYING_SWORD_FT + SQUARE_FT]


def _best_melee(b, c, t):
    melee = [a for a in c.attacks if a.melee and a.damage and b.distance(c, t) <= a.reach]
    return max(melee, key=lambda a: (expected_damage(a), a.key)) if melee else None


# ================================================================ the duergar's Enlarge
def _enlarge(b, c) -> None:
    ms = _ms(c)
    if c.conditions.get("invisible", {}).get("spell") == "invisibility" and c.concentration == "invisibility":
        b.end_concentration(c)   # Invisibility ends when it uses Enlarge
    taken = {cell for o in b.creatures.values() if not o.dead and o is not c for cell in o.cells}
    if b.map.fits(c.pos[0], c.pos[1], 2) and not set(footprint(c.pos[0], c.pos[1], 2)) & taken:
        ms["small_size"], c.size = c.size, "large"
    spec = content.monster(c.monster)
    ms["base_attacks"] = c.attacks
    alt = {a.key: damage for a in spec.actions if getattr(a, "alt_damage", None)
           for when, damage in a.alt_damage if when == "enlarged"}
    c.attacks = tuple(x._replace(damage=tuple(DamagePart(d.dice, d.type) for d in alt[x.key])) if x.key in alt else x
                      for x in c.attacks)
    ms["enlarged"] = True
    c.conditions["enlarged"] = {"by": c.cid, "until_round": b.round + 10, "save_adv": ("str",)}
    b.forget_reach()
    b.event("enlarge", f"{c.cid} grows{' to Large' if c.size == 'large' else ''}", creature=c.cid)


def _shrink(b, c) -> None:
    ms = _ms(c)
    c.attacks = ms.pop("base_attacks", c.attacks)
    if "small_size" in ms:
        c.size = ms.pop("small_size")
    ms["enlarged"] = False
    b.forget_reach()
    b.event("condition_end", f"{c.cid} shrinks back", creature=c.cid, condition="enlarged")


# ================================================================ the harpy's song
def _song_targets(b, c) -> list:
    tag = f"{c.cid}:song"
    return [o for o in sorted(b.enemies_of(c), key=lambda o: o.cid)
            if o.conscious and o.creature_type in SONG["types"] and b.distance(c, o) <= SONG["range"]
            and "deafened" not in o.conditions and tag not in o.resources.get("immune_to", ())
            and "song" not in o.conditions.get("charmed", {})]


def _start_song(b, c) -> None:
    ms = _ms(c)
    c.economy.actions -= 1
    ms["singing"], ms["song_round"] = True, b.round
    b.event("luring_song", f"{c.cid} sings a luring song", creature=c.cid)
    tag = f"{c.cid}:song"
    for t in _song_targets(b, c):
        if b.saving_throw(t, "wis", SONG["dc"], magic=True, condition="charmed"):
            t.resources["immune_to"] = tuple(t.resources.get("immune_to", ())) + (tag,)
            continue
        if "charmed" in t.condition_immunities:
            continue
        t.conditions["charmed"] = {"by": c.cid, "song": c.cid}
        t.conditions["incapacitated"] = {"by": c.cid, "song": c.cid, "repeat": "wis", "dc": SONG["dc"], "magic": True}
        b.end_concentration(t)
        b.event("condition", f"{t.cid} is charmed by {c.cid}'s song", creature=t.cid, condition="charmed")


def _song_ends(b, c) -> None:
    ms = _ms(c)
    ms["singing"] = False
    for o in b.creatures.values():
        for k in ("charmed", "incapacitated"):
            if o.conditions.get(k, {}).get("song") == c.cid:
                del o.conditions[k]
    b.event("luring_song_end", f"{c.cid}'s song ends", creature=c.cid)


def _lured_walk(b, harpy, c) -> None:
    """A charmed listener walks toward the harpy by the most direct route (no opportunity attacks)."""
    if b.distance(c, harpy) <= SQUARE_FT or c.economy.movement < SQUARE_FT:
        return
    r = b.reach(c)
    best = min(r.destinations, key=lambda p: (b.distance_from(c, p, harpy), r.costs[p], p))
    if b.distance_from(c, best, harpy) >= b.distance(c, harpy):
        return
    c.economy.movement -= r.costs[best]
    c.pos = tuple(best)
    b.forget_reach()
    b.event("move", f"{c.cid} walks toward {harpy.cid} ({best[0]}, {best[1]})", creature=c.cid, pos=list(best))


# ================================================================ the gibbering mouther
def _gibber(b, m, c, g) -> None:
    d = b.distance(m, c)
    if d <= g["ground"] and c.pos[2] <= b.map.standing_z(c.pos[0], c.pos[1], c.squares) \
            and not b.saving_throw(c, "str", g["ground_dc"]):   # Aberrant Ground
        c.economy.movement = 0
        b.event("aberrant_ground", f"{c.cid} is stuck in the doughy ground", creature=c.cid)
    if d > g["range"] or "deafened" in c.conditions or "gibbering" in c.conditions \
            or not any(_sees(b, m, o) for o in b.creatures.values() if o is not m and not o.dead):
        return
    if b.saving_throw(c, "wis", g["dc"]):
        return
    c.economy.reaction = False
    roll = b.roller.roll("1d8", what=f"gibbering {c.cid}")
    b.event("gibbering", f"{c.cid} is overwhelmed by the gibbering ({roll})", creature=c.cid, roll=roll)
    entry = {"by": m.cid, "roll": roll}
    c.economy.bonus = False
    if roll <= 6:
        c.economy.actions = 0
    if 5 <= roll <= 6:
        _random_walk(b, c)
    c.economy.movement = 0
    if roll >= 7:
        near = [o for o in sorted(b.creatures.values(), key=lambda o: o.cid)
                if o is not c and not o.dead and _best_melee(b, c, o) is not None]
        if near:
            entry["target"] = near[b.roller.roll(f"1d{len(near)}", what=f"gibbering target {c.cid}") - 1].cid
    c.conditions["gibbering"] = entry


def _random_walk(b, c) -> None:
    dx, dy = DIRECTIONS_8[b.roller.roll("1d8", what=f"gibbering direction {c.cid}") - 1][:2]
    taken = {cell for o in b.creatures.values() if not o.dead and o is not c for cell in o.cells}
    left = c.economy.movement
    x, y = c.pos[0], c.pos[1]
    moved = False
    while left >= SQUARE_FT:
        nx, ny = x + dx, y + dy
        if not b.map.fits(nx, ny, c.squares) or set(footprint(nx, ny, c.squares)) & taken:
            break
        x, y, left, moved = nx, ny, left - SQUARE_FT, True
    if moved:
        c.pos = (x, y, b.map.standing_z(x, y, c.squares))
        b.forget_reach()
        b.event("move", f"{c.cid} stumbles to ({x}, {y})", creature=c.cid, pos=list(c.pos))


# ================================================================ the androsphinx's roar
def _roar(b, c) -> None:
    ms = _ms(c)
    n = ms["roars"]
    ms["roars"] = n + 1
    c.economy.actions -= 1
    dc = ROAR["dc"]
    b.event("roar", f"{c.cid} roars ({('first', 'second', 'third')[n]} roar)", creature=c.cid, roar=n + 1)
    rolled = b.roller.roll_damage(ROAR["damage"], what="damage roar thunder") if n == 2 else 0
    dur = (ROAR["rounds"], None, "end_of_turn", False, ())
    for t in sorted(b.creatures.values(), key=lambda o: o.cid):
        if t is c or t.dead or "deafened" in t.conditions or b.distance(c, t) > ROAR["range"]:
            continue
        if n < 2:
            if b.saving_throw(t, "wis", dc, magic=True, big=True, condition="frightened"):
                continue
            if n == 1 and "deafened" not in t.condition_immunities:
                t.conditions["deafened"] = {"by": c.cid, "until_round": b.round + ROAR["rounds"]}
            b.save_condition(c, t, "frightened", "wis", dc, dur)
            if "frightened" in t.conditions:
                t.conditions["frightened"]["roar"] = c.cid
                if n == 1 and "paralyzed" not in t.condition_immunities:
                    t.conditions["paralyzed"] = {"by": c.cid, "roar": c.cid, "until_round": b.round + ROAR["rounds"]}
                    b.end_concentration(t)
                    b.release_grapples_by(t)
        else:
            ok = b.saving_throw(t, "con", dc, magic=True, big=True, condition="prone")
            b.damage(t, rolled // 2 if ok else rolled, "thunder", magical=True, source=c.cid)
            if not ok and not t.dead and t.squares <= 2 and "prone" not in t.condition_immunities:
                t.conditions["prone"] = {"by": c.cid}


# ================================================================ the gelatinous cube
def _inside_cube(b, c) -> list:
    return [o for o in b.creatures.values() if not o.dead and o.conditions.get("swallowed", {}).get("cube") == c.cid]


def _room_in_cube(b, c, t) -> bool:
    """One Large creature, or up to four Medium or smaller ones."""
    inside = _inside_cube(b, c)
    if SIZE_ORDER.index(t.size) > SIZE_ORDER.index("large"):
        return False
    if t.size == "large":
        return not inside
    return len(inside) < 4 and all(o.size != "large" for o in inside)


def _cube_targets(b, c) -> list:
    return [o for o in sorted(b.enemies_of(c), key=lambda o: o.cid)
            if not o.dead and "swallowed" not in o.conditions and b.distance(c, o) <= SQUARE_FT
            and b.may_target(c, o) and _room_in_cube(b, c, o)]


def _engulf(b, c, t) -> None:
    """Dex save: on a success pushed 5 ft away; on a failure acid and inside the cube (restrained,
    total cover from outside; it moves with the cube)."""
    cube = _ms(c)["cube"]
    b.event("engulf_try", f"{c.cid} rolls over {t.cid}", creature=c.cid, target=t.cid)
    if b.saving_throw(t, "dex", cube["dc"]):
        b.push(c, t, SQUARE_FT)
        return
    b.damage(t, b.roller.roll_damage(cube["hit"], what=f"engulf {c.cid}"), "acid", source=c.cid)
    if t.dead:
        return
    b.release(t)
    t.conditions["swallowed"] = {"by": c.cid, "swallowed": True, "cube": c.cid}
    if "restrained" not in t.condition_immunities:
        t.conditions["restrained"] = {"by": c.cid, "swallowed": True}
    t.pos = tuple(c.pos)
    b.forget_reach()
    b.event("engulf", f"{c.cid} engulfs {t.cid}", creature=c.cid, target=t.cid)


def _leave_cube(b, cube, t) -> None:
    for k in ("swallowed", "restrained"):
        if t.conditions.get(k, {}).get("by") == cube.cid:
            del t.conditions[k]
    spot = b.free_spot_beside(cube, t.squares, exclude=t)
    if spot:
        t.pos = spot
    b.forget_reach()
    b.event("spit_out", f"{t.cid} gets out of {cube.cid}", creature=t.cid, source=cube.cid)


def _pull_targets(b, c) -> list:
    out = []
    for cube in b.creatures.values():
        if "cube" in _ms(cube) and not cube.dead and cube.side != c.side and b.distance(c, cube) <= SQUARE_FT:
            out += [o for o in _inside_cube(b, cube) if o is not c and o.side == c.side]
    return sorted(out, key=lambda o: o.cid)


def _str_check(b, c, dc: int, what: str) -> bool:
    roll = b.roller.roll_d20(False, b.check_dis(c), bonus=b.athletics(c), what=f"{what} {c.cid}")
    ok = roll.total >= dc
    b.event("check", f"{c.cid} {'succeeds' if ok else 'fails'} a DC {dc} Strength check ({roll.total})",
            creature=c.cid, success=ok)
    return ok


# ================================================================ the kraken
def _fling_targets(b, c) -> list:
    return [o for o in sorted(b.creatures.values(), key=lambda o: o.cid)
            if not o.dead and o.conditions.get("grappled", {}).get("by") == c.cid
            and SIZE_ORDER.index(o.size) <= SIZE_ORDER.index(FLING["size_max"])]


def _fling(b, c, t) -> None:
    """Thrown up to 60 ft in a random direction and knocked prone; a wall (or the map's edge) it hits
    deals 1d6 bludgeoning per 10 ft thrown; a creature it hits saves (Dex DC 18) or takes the same
    and falls prone too (the thrown creature takes it as well)."""
    b.release(t)
    dx, dy = DIRECTIONS_8[b.roller.roll("1d8", what=f"fling direction {t.cid}") - 1][:2]
    others = {cell: o for o in b.creatures.values() if not o.dead and o is not t and o is not c for cell in o.cells}
    x, y, ft, hit, stopped = t.pos[0], t.pos[1], 0, None, False
    while ft < FLING["ft"]:
        nx, ny = x + dx, y + dy
        if not b.map.fits(nx, ny, t.squares) or any(cell in set(c.cells) for cell in footprint(nx, ny, t.squares)):
            stopped = True
            break
        who = next((others[cell] for cell in footprint(nx, ny, t.squares) if cell in others), None)
        if who is not None:
            hit, stopped = who, True
            break
        x, y, ft = nx, ny, ft + SQUARE_FT
    t.pos = (x, y, b.map.standing_z(x, y, t.squares))
    b.forget_reach()
    b.event("fling", f"{c.cid} flings {t.cid} {ft} ft", creature=c.cid, target=t.cid, feet=ft)
    n = ft // 10
    if stopped and n:
        amount = b.roller.roll_damage(f"{n}d6", what=f"fling {t.cid}")
        if hit is not None and not b.saving_throw(hit, "dex", FLING["dc"]):
            b.damage(hit, amount, "bludgeoning", source=c.cid)
            if not hit.dead and "prone" not in hit.condition_immunities:
                hit.conditions["prone"] = {"by": c.cid}
        b.damage(t, amount, "bludgeoning", source=c.cid)
    if not t.dead and "prone" not in t.condition_immunities:
        t.conditions["prone"] = {"by": c.cid}


def _free_move(b, c) -> None:
    """Freedom of Movement at the start of its turn: magical slowing and restraint fall away;
    5 ft of its movement frees it from a nonmagical grapple or restraint."""
    magic = [k for k, v in c.conditions.items() if (v.get("spell") or k == "slowed")
             and (k == "restrained" or k == "slowed" or v.get("speed", 0) < 0 or v.get("speed_half")
                  or v.get("speed_zero"))]
    for k in magic:
        del c.conditions[k]
    held = "grappled" in c.conditions or "restrained" in c.conditions
    if held:
        c.conditions.pop("grappled", None)
        c.conditions.pop("restrained", None)
    if magic or held:
        c.economy.movement = max(0, b.speed(c) - (SQUARE_FT if held else 0))
        b.event("freedom_of_movement", f"{c.cid} slips free", creature=c.cid)


# ================================================================ the roper
def _grappled_by(b, c) -> list:
    return [o for o in b.creatures.values() if not o.dead and o.conditions.get("grappled", {}).get("by") == c.cid]


def _tendrils_on(b, c) -> list:
    by = c.conditions.get("grappled", {}).get("by")
    o = b.creatures.get(by) if by else None
    return [by] if o is not None and "roper" in _ms(o) else []


def _roper_menu(b, c, ms, out: list) -> list:
    """Six tendrils at most; Reel before the multiattack's bite; tendril steps it cannot make are skipped."""
    e = c.economy
    full = len(_grappled_by(b, c)) >= ms["roper"]["tendrils"]
    if full:
        out = [o for o in out if not (o.kind == "attack" and o.data[0] == "tendril")]
    q = e.attack_queue
    if q and q[0] == "tendril" and (full or not _targets(b, c, "tendril")):
        e.attack_queue = tuple(k for k in q if k != "tendril")
        q = e.attack_queue
        a = c.attack("bite")
        if q and b.targets_for_attack(c, a):
            out.insert(0, Opt(f"Multiattack: attack with {a.name} ({a.short()})", "attack", (a.key, "queue")))
    if q and q[0] == "bite" and ms.get("reeled") != (b.round, b.turn_index):
        ms["reeled"] = (b.round, b.turn_index)
        _reel(b, c, ms["roper"]["reel"])
        if not any(o.kind == "attack" and o.data == ("bite", "queue") for o in out):
            a = c.attack("bite")
            if b.targets_for_attack(c, a):
                out.insert(0, Opt(f"Multiattack: attack with {a.name} ({a.short()})", "attack", (a.key, "queue")))
    return out


def _reel(b, c, feet: int) -> None:
    """Each creature it grapples is pulled up to 25 ft straight toward it."""
    for t in sorted(_grappled_by(b, c), key=lambda o: o.cid):
        moved = 0
        while moved < feet and b.distance(c, t) > SQUARE_FT:
            taken = {cell for o in b.creatures.values() if not o.dead and o is not t for cell in o.cells}
            best = None
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    x, y = t.pos[0] + dx, t.pos[1] + dy
                    if (dx or dy) and b.map.fits(x, y, t.squares) and not set(footprint(x, y, t.squares)) & taken:
                        p = (x, y, b.map.standing_z(x, y, t.squares))
                        d = b.distance_from(t, p, c)
                        if d < b.distance(c, t) and (best is None or (d, p) < best[0]):
                            best = ((d, p), p)
            if best is None:
                break
            t.pos, moved = best[1], moved + SQUARE_FT
        if moved:
            b.forget_reach()
            b.event("reel", f"{c.cid} reels {t.cid} in {moved} ft", creature=c.cid, target=t.cid, feet=moved)


# ================================================================ the tarrasque's Reflective Carapace
def _is_spell(key: str) -> bool:
    return key in content.spells()


def _carapace_roll(b, c, key: str, t) -> bool:
    """The d6: True on a 6 (the effect turns back at the caster); it is unaffected either way."""
    roll = b.roller.roll("1d6", what=f"reflective carapace {t.cid}")
    back = roll == 6
    b.event("carapace", f"{t.cid}'s carapace {'reflects' if back else 'turns aside'} {c.cid}'s {key} ({roll})",
            creature=t.cid, source=c.cid, spell=key, reflected=back)
    return back


def carapace_attack(b, c, a, t, then: str):
    """A spell's ranged attack roll against it: (handled, the attack's result)."""
    if "carapace" not in _ms(t) or not _is_spell(a.key) or c is t:
        return False, None
    if not _carapace_roll(b, c, a.key, t):
        return True, False
    return True, b.make_attack(c, a, c, melee=False, then=then)   # the caster is the target now


def carapace_target(b, c, key: str, t):
    """Magic Missile's dart at it: None (unaffected) or the caster (reflected)."""
    if "carapace" not in _ms(t) or c is t:
        return t
    return c if _carapace_roll(b, c, key, t) else None


def carapace_hits(b, c, key: str, hits: list) -> list:
    """A line spell's creatures: the tarrasque is unaffected; on a 6 the caster is caught instead."""
    if not any("carapace" in _ms(o) for o in hits) or not _is_spell(key):
        return hits
    area = content.spell(key).area
    if area is None or area.shape != "line":
        return hits
    out = [o for o in hits if "carapace" not in _ms(o)]
    for o in hits:
        if "carapace" in _ms(o) and _carapace_roll(b, c, key, o) and c not in out and not c.dead:
            out.append(c)
    return out


# ================================================================ a rakshasa's Limited Magic Immunity
def spell_screen(b, c, key: str, pool: list, level: int | None = None) -> list:
    """The creatures of pool a spell from c can affect: a foe with Limited Magic Immunity is left
    out of spells of 6th level or lower (the slot level when known, else the spell's own level);
    it lets its friends' spells in."""
    if not any("magic_immunity" in _ms(o) for o in pool):
        return pool
    lv = level if level is not None else content.spell(key).level
    return [o for o in pool if not ("magic_immunity" in _ms(o) and o.side != c.side
                                    and lv <= _ms(o)["magic_immunity"])]


@hooks.SPELL_SCREENS.step(20)
def _screen_spell(b, c, key: str, pool: list) -> list:
    return spell_screen(b, c, key, pool) if b.specials else pool


# ================================================================ a legendary spell (a sphinx, a lich)
def _cast_economy(c):
    return Economy(actions=1, bonus=False, reaction=c.economy.reaction, movement=0, object_use=False)


def _legendary_spells(b, c, top: int) -> list:
    """The action spells c could cast now as a legendary action (level at most ``top``)."""
    saved = c.economy
    c.economy = _cast_economy(c)
    try:
        return [o for o in b.spell_options(c) if o.data[1] <= top]
    finally:
        c.economy = saved


def _start_legendary_cast(b, c, top: int) -> None:
    """Between others' turns: c becomes the active creature for one spell (its own economy and the
    turn order are kept aside), then :func:`_end_legendary_cast` hands play back."""
    ms = _ms(c)
    ms["leg_cast"] = {"turn_index": b.turn_index, "economy": c.economy, "max_level": top}
    c.economy = _cast_economy(c)
    b.turn_index = b.order.index(c.cid)
    b.pending = {"kind": "action", "actor": c.cid}
    b.forget_options()


def _end_legendary_cast(b, c) -> None:
    st = _ms(c).pop("leg_cast")
    c.economy = st["economy"]
    b.turn_index = st["turn_index"]
    b.pending = {}
    b.forget_options()
    if not b.check_outcome():
        b.next_turn()


# ---- what this module answers in the engine's dispatch (dnd/rules/hooks.py)
hooks.OPTION_KINDS.handles(*KINDS)(apply)   # a monster's own actions
hooks.TARGET_USES.register("ms", hooks.TargetUse(target_options, resolve_target))   # a monster's own action
