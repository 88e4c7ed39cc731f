"""Probes of :mod:`..monster_traits`: each makes one of its rules happen through the engine's
decision options in a small battle, and raises AssertionError when it cannot."""

from __future__ import annotations

from .. import content, heuristic
from ..areas import DIRECTIONS_8
from ..builders.monsters import monster_combatant
from ..builders.pcs import build_pc
from ..engine import Battle
from ..grid import SQUARE_FT, BattleMap, Cover
from ..monster_traits.common import _ms
from ..monster_traits.dispatch import on_step, setup
from ..monster_traits.gelatinous_cube import _engulf
from ..monster_traits.legendary import LEGENDARY
from ..state import AttackProfile, DamagePart
from .arena import choose, combatant as comb, duel


# ================================================================ coverage probes
def probe(key: str, part: dict) -> bool:
    """Run the coverage probe of a part this module owns; False when the part is not ours."""
    pk = part["key"]
    if part["part"] == "legendary" and pk in _ms(combatant(key)).get("leg_spell", {}):
        _probe_legendary_cast(key, pk)
        return True
    if part["part"] == "legendary" and any(x == pk for x, _, _ in LEGENDARY.get(key, ())):
        _probe_legendary(key, pk)
        return True
    if part["part"] == "action" and pk in _PROBE_ACTIONS.get(key, {}):
        _PROBE_ACTIONS[key][pk](key)
        return True
    if part["part"] == "reaction" and key == "shield-guardian" and pk == "shield":
        _probe_guardian(key)
        return True
    if part["part"] == "trait" and pk in _PROBE_TRAITS:
        _PROBE_TRAITS[pk](key)
        return True
    return False


def _probe_option(key: str, kind: str, event: str, prep=None, target=None) -> None:
    b, m = duel(key, "m")
    if prep:
        prep(b, m)
        b.open_menu(m)
    choose(b, lambda o: o.kind == kind, f"{key}: {kind}")
    if b.decision is not None and b.decision.kind == "target" and b.decision.actor == "m":
        choose(b, (lambda o: o.data[:1] == (target,)) if target else (lambda o: o.kind == "target"),
                f"{key}: {kind} target")
    assert any(e.get("event") == event for e in b.log), f"{key}: {kind} did not resolve ({event})"


def _probe_legendary(key: str, action: str) -> None:
    b, _ = duel(key, "a")
    if action == "psychic-drain":
        b.creatures["a"].conditions["charmed"] = {"by": "m"}
    b.choose(next(i for i, o in enumerate(b.decision.options) if o.kind == "end_turn"))
    assert b.decision.kind == "legendary", f"{key}: no legendary decision"
    i = next((i for i, o in enumerate(b.decision.options) if o.kind == "legendary" and o.data[0] == action), None)
    assert i is not None, f"{key}: legendary {action} not offered"
    b.choose(i)
    if b.decision is not None and b.decision.kind == "target" and b.decision.actor == "m":
        b.choose(0)
    ev = {"psychic-drain": "psychic_drain", "shimmering-shield": "shimmering_shield",
          "channel-negative-energy": "negative_energy"}[action]
    assert any(e.get("event") == ev for e in b.log), f"{key}: legendary {action} did not resolve"


def combatant(key: str):
    return comb(key)


def _probe_legendary_cast(key: str, action: str) -> None:
    """At the end of the fighter's turn: the legendary spell is offered, a spell is cast through the
    spell options, and play goes on to the next creature."""
    b, m = duel(key, "a")
    b.choose(next(i for i, o in enumerate(b.decision.options) if o.kind == "end_turn"))
    assert b.decision.kind == "legendary", f"{key}: no legendary decision"
    i = next((i for i, o in enumerate(b.decision.options) if o.kind == "legendary" and o.data[0] == action), None)
    assert i is not None, f"{key}: legendary {action} not offered"
    b.choose(i)
    assert b.decision.actor == "m" and any(o.kind == "spell" for o in b.decision.options), f"{key}: no spell"
    for _ in range(30):
        if b.decision is None or "leg_cast" not in _ms(m):
            break
        b.choose(heuristic.choose(b))
    cast = next((j for j, e in enumerate(b.log) if e.get("event") == "cast" and e.get("creature") == "m"), None)
    assert cast is not None, f"{key}: nothing cast"
    assert "leg_cast" not in _ms(m) and (b.outcome is not None or any(
        e.get("event") == "turn" for e in b.log[cast:])), f"{key}: play did not go on"


def _probe_guardian(key: str) -> None:
    """Shield: the fighter attacks the wizard wearing the amulet beside the guardian; the +2 comes."""
    b, m = duel(key, "a")
    w = build_pc("wizard", 5, "w", (2, 2 + m.squares, 0))
    w.side, w.hp, w.max_hp = m.side, 1000, 1000
    b.creatures["w"] = w
    setup(b)
    f = b.creatures["a"]
    b.make_attack(f, next(a for a in f.attacks if a.melee), w, melee=True)
    assert any(e.get("event") == "guardian_shield" for e in b.log), f"{key}: shield not used"


def _probe_trait_turn(key: str) -> None:
    """Gibbering and Aberrant Ground / Horrific Appearance: the fighter (its saves hopeless) starts
    its turn beside it and suffers them."""
    b, _ = duel(key, "m")
    f = b.creatures["a"]
    f.saves = {k: -30 for k in f.saves}
    b.round += 1
    b.start_turn(f)
    want = {"gibbering-mouther": ("gibbering", "aberrant_ground"), "sea-hag": ("horrific_appearance",)}[key]
    for ev in want:
        assert any(e.get("event") == ev and e.get("creature") == "a" for e in b.log), f"{key}: no {ev}"
    if key == "sea-hag":
        assert "frightened" in f.conditions, f"{key}: not frightened"
    else:
        assert "gibbering" in f.conditions and f.economy.movement == 0 and not f.economy.reaction


def _probe_berserk(key: str) -> None:
    b, m = duel(key, "m")
    m.hp = _ms(m)["berserk"]
    for _ in range(60):
        b.start_turn(m)
        if "berserk" in m.conditions:
            return
    raise AssertionError(f"{key}: never went berserk")


def _probe_corrode(key: str) -> None:
    b, m = duel(key, "a")
    f = b.creatures["a"]
    m.hp = m.max_hp = 10 ** 6
    for _ in range(100):
        a = next(a for a in f.attacks if a.melee)
        if b.make_attack(f, a, m, melee=True):
            break
    assert f.resources.get("corroded"), f"{key}: the weapon did not corrode"


def _probe_fire_trait(key: str, trait: str) -> None:
    m = monster_combatant(key, "m", "enemies", (2, 2, 0))
    f = build_pc("fighter", 5, "a", (5, 2, 0))
    f.hp = f.max_hp = 1000
    layout = ["#" * 12] + ["#" + "~~~" + "." * 7 + "#"] * 6 + ["#" * 12] if trait == "water" else \
        ["#" * 12] + ["#" + "." * 10 + "#"] * 6 + ["#" * 12]
    b = Battle(BattleMap.from_dict({"layout": layout}), [f, m], seed=0)
    hp = m.hp
    on_step(b, m, (1, 2, 0) if trait == "water" else (5, 2, 0))
    if trait == "water":
        assert m.hp == hp - 1, f"{key}: no cold damage in water"
    else:
        assert "burning" in f.conditions, f"{key}: fire form did not ignite"


_PROBE_TRAITS = {
    "berserk": _probe_berserk,
    "aversion-of-fire": lambda k: _probe_damage_flag(k, "fire", "fire_aversion"),
    "acid-absorption": lambda k: _probe_absorb(k),
    "corrosive-form": _probe_corrode, "corrode-metal": _probe_corrode, "rust-metal": _probe_corrode,
    "fire-form": lambda k: _probe_fire_trait(k, "fire"),
    "water-susceptibility": lambda k: _probe_fire_trait(k, "water"),
    "gibbering": _probe_trait_turn, "aberrant-ground": _probe_trait_turn, "horrific-appearance": _probe_trait_turn,
    "duergar-resilience": lambda k: _probe_resilience(k),
    "bound": lambda k: _probe_bound(k),
    "ooze-cube": lambda k: _probe_cube(k),
    "freedom-of-movement": lambda k: _probe_free(k),
    "grasping-tendrils": lambda k: _probe_tendrils(k),
    "reflective-carapace": lambda k: _probe_carapace(k),
    "limited-magic-immunity": lambda k: _probe_immunity(k),
}


def _probe_immunity(key) -> None:
    """A wizard's Magic Missile cannot target it and its Burning Hands cone leaves it out."""
    b, m = duel(key, "a")
    w = build_pc("wizard", 5, "w", (2 + m.squares, 4, 0))
    b.creatures["w"] = w
    b.specials = False
    way = next(d for d in DIRECTIONS_8 if m in b.area_hits(w, ("spell", "burning-hands", 1), d))
    b.specials = True
    assert m not in b.spell_targets(w, "magic-missile"), f"{key}: magic missile can target it"
    assert m not in b.area_hits(w, ("spell", "burning-hands", 1), way), f"{key}: burning hands catches it"
    assert m in b.area_hits(w, ("spell", "burning-hands", 7), way), f"{key}: a 7th-level spell should"


def _probe_carapace(key) -> None:
    """A wizard's Fire Bolt at it: a d6 is rolled and the bolt never touches it."""
    b, m = duel(key, "a")
    w = build_pc("wizard", 5, "w", (2 + m.squares + 3, 8, 0))
    b.creatures["w"] = w
    hp = m.hp
    for _ in range(30):
        w.hp = w.max_hp = 1000
        b.make_attack(w, _bolt(w), m, melee=False)
    assert m.hp == hp and any(e.get("event") == "carapace" for e in b.log), f"{key}: the carapace did nothing"


def _bolt(w):
    sp = content.spell("fire-bolt")
    return AttackProfile("fire-bolt", sp.name, w.resources["spell_attack"], (DamagePart("1d10", "fire"),), False, 0,
                         120, 120, spell=True)


def _probe_free(key) -> None:
    b, m = duel(key, "m")
    m.conditions["grappled"] = {"by": "a", "dc": 10}
    m.conditions["slowed"] = {"by": "a", "spell": "ray-of-frost"}
    b.round += 1
    b.start_turn(m)
    assert not {"grappled", "slowed"} & set(m.conditions) and m.economy.movement == b.speed(m) - SQUARE_FT


def _probe_tendrils(key) -> None:
    """A creature a tendril holds may try to break it (an action, Str check)."""
    b, _ = duel(key, "a")
    f = b.creatures["a"]
    f.conditions["grappled"] = {"by": "m", "dc": 15}
    f.conditions["restrained"] = {"by": "m", "dc": 15}
    b.open_menu(f)
    choose(b, lambda o: o.kind == "ms_break_tendril", f"{key}: break the tendril")
    assert any(e.get("event") == "check" and e.get("creature") == "a" for e in b.log)


def _probe_cube(key) -> None:
    """A fighter (its Dex save hopeless) is engulfed; it is inside: total cover from its friend."""
    b, m = duel(key, "m")
    f, g = b.creatures["a"], b.creatures["b"]
    f.saves = dict(f.saves, dex=-30)
    f.hp = f.max_hp = 1000
    _engulf(b, m, f)
    assert f.conditions.get("swallowed", {}).get("cube") == "m" and b.cover(g, f) == Cover.TOTAL, f"{key}: not inside"


def _probe_damage_flag(key, dtype, cond) -> None:
    b, m = duel(key, "a")
    b.damage(m, 5, dtype, source="a")
    assert cond in m.conditions, f"{key}: no {cond} after {dtype} damage"


def _probe_absorb(key) -> None:
    b, m = duel(key, "a")
    m.hp = m.max_hp - 20
    b.damage(m, 10, "acid", source="a")
    assert m.hp == m.max_hp - 10, f"{key}: acid did not heal"


def _probe_resilience(key) -> None:
    b, m = duel(key, "a")
    for cond in ("poisoned", "charmed", "paralyzed"):
        b.saving_throw(m, "wis", 10, condition=cond)
        roll = next(e for e in reversed(b.log) if str(e.get("what", "")).startswith("save m"))
        assert roll.get("advantage") == "advantage", f"{key}: no advantage against being {cond}"


def _probe_bound(key) -> None:
    b, m = duel(key, "a")
    w = build_pc("wizard", 5, "w", (2, 2 + m.squares, 0))
    w.side, w.hp, w.max_hp = m.side, 1000, 1000
    b.creatures["w"] = w
    setup(b)
    before = m.hp
    b.damage(w, 10, "force", source="a")
    assert m.hp == before - 5 and w.hp == 995, f"{key}: the damage was not shared"


def _probe_antennae(key):
    _probe_option(key, "ms_antennae", "antennae")


def _probe_glare(key):
    _probe_option(key, "ms_glare", "death_glare",
                  prep=lambda b, m: b.creatures["a"].conditions.__setitem__("frightened", {"by": "m"}))


def _probe_kiss(key):
    _probe_option(key, "ms_kiss", "draining_kiss",
                  prep=lambda b, m: b.creatures["a"].conditions.__setitem__("charmed", {"by": "m"}))


def _probe_haste(key):
    _probe_option(key, "ms_haste", "haste")


def _probe_enlarge(key):
    _probe_option(key, "ms_enlarge", "enlarge")


def _probe_invis(key):
    _probe_option(key, "ms_invisibility", "invisibility")


def _probe_phantasms(key):
    _probe_option(key, "ms_phantasms", "phantasms")


def _probe_sword(key):
    b, _ = duel(key, "m")
    choose(b, lambda o: o.kind == "ms_release_sword", f"{key}: release the sword")
    choose(b, lambda o: o.kind == "ms_sword_attack", f"{key}: the sword's attack")
    choose(b, lambda o: o.kind == "target", f"{key}: the sword's target")
    assert any(e.get("event") == "attack" and e.get("attacker") == "m" for e in b.log), f"{key}: no sword attack"


def _probe_song(key):
    _probe_option(key, "ms_song", "luring_song")


def _probe_roar(key):
    b, m = duel(key, "m")
    for n in range(3):
        m.economy.actions = 1
        choose(b, lambda o: o.kind == "ms_roar", f"{key}: roar {n + 1}")
    assert sum(e.get("event") == "roar" for e in b.log) == 3, f"{key}: three roars"


def _probe_engulf(key):
    _probe_option(key, "ms_engulf", "engulf_try")


def _probe_fling(key):
    _probe_option(key, "ms_fling", "fling",
                  prep=lambda b, m: b.creatures["a"].conditions.__setitem__("grappled", {"by": "m", "dc": 18}))


def _probe_roper(key):
    """Multiattack: four tendrils (each grapples on a hit), Reel, then the bite."""
    b, _ = duel(key, "m")
    for f in (b.creatures["a"], b.creatures["b"]):
        f.pos = (f.pos[0] + 3, f.pos[1] + 3, 0)
        f.ac = 1
    choose(b, lambda o: o.kind == "multiattack", f"{key}: multiattack")
    for _ in range(4):
        choose(b, lambda o: o.kind == "attack" and o.data == ("tendril", "queue"), f"{key}: a tendril")
        choose(b, lambda o: o.kind == "target", f"{key}: the tendril's target")
    choose(b, lambda o: o.kind == "attack" and o.data == ("bite", "queue"), f"{key}: the bite")
    assert any(e.get("event") == "reel" for e in b.log), f"{key}: no reel"


_PROBE_ACTIONS = {
    "kraken": {"fling": _probe_fling},
    "roper": {"multiattack": _probe_roper, "tendril": _probe_roper, "reel": _probe_roper},
    "gelatinous-cube": {"engulf": _probe_engulf},
    "rust-monster": {"antennae": _probe_antennae},
    "sea-hag": {"death-glare": _probe_glare},
    "succubus-incubus": {"draining-kiss": _probe_kiss},
    "clay-golem": {"haste": _probe_haste},
    "duergar": {"enlarge": _probe_enlarge, "invisibility": _probe_invis},
    "cloaker": {"phantasms": _probe_phantasms},
    "solar": {"flying-sword": _probe_sword},
    "harpy": {"luring-song": _probe_song},
    "androsphinx": {"roar": _probe_roar},
}
