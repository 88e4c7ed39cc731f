"""Golems.

* **Berserk** (clay / flesh golem): starting a turn at or below the threshold, a d6; on a 6 it is
  berserk until it regains all its hit points: it attacks only the nearest creature it can see,
  whatever its side (it becomes hostile to everyone), and takes no other action than moving,
  attacking and Dash.
* **Aversion of Fire** (flesh golem): fire damage gives it disadvantage on attack rolls and ability
  checks until the end of its next turn.
* **Acid Absorption** (clay golem): acid heals it.
* **Haste** (clay golem, recharge 5-6): +2 AC, advantage on Dex saves and a bonus-action slam until
  the end of its next turn.
"""

from __future__ import annotations

from ..model.options import Opt
from ..rules import hooks
from .common import _ms, _targets

BERSERK = {"clay-golem": 60, "flesh-golem": 40}            # hit points at or below which the d6 is rolled


def compile_traits(spec, c, ms, traits) -> None:
    key = spec.key
    if "acid-absorption" in traits:
        c.resources["absorb"] = list(c.resources.get("absorb", ())) + ["acid"]
    if key in BERSERK and "berserk" in traits:
        ms["berserk"] = BERSERK[key]
    if "aversion-of-fire" in traits:
        ms["aversion_fire"] = True
    if key == "clay-golem" and any(a.key == "haste" for a in spec.actions):
        ms.setdefault("actions", []).append("haste")
        c.recharge["haste"] = True


TRAIT_RUN = {
    "acid-absorption": lambda c: "acid" in c.resources.get("absorb", ()),
    "berserk": lambda c: "berserk" in _ms(c),
    "aversion-of-fire": lambda c: "aversion_fire" in _ms(c),
}


# ================================================================ Berserk
def own_start(b, c, ms) -> None:
    """The start of its turn: calm at full hit points, else the d6 at or below the threshold."""
    if "berserk" in ms:
        if "berserk" in c.conditions and c.hp >= c.max_hp:
            _calm(b, c)
        elif "berserk" not in c.conditions and 0 < c.hp <= ms["berserk"] \
                and b.roller.roll("1d6", what=f"berserk {c.cid}") == 6:
            c.conditions["berserk"] = {"side": c.side}
            c.side = "berserk"   # it attacks the nearest creature, whatever its side
            b.forget_reach()
            b.event("berserk", f"{c.cid} goes berserk", creature=c.cid)


def _calm(b, c) -> None:
    c.side = c.conditions.pop("berserk")["side"]
    b.forget_reach()
    b.event("condition_end", f"{c.cid} is no longer berserk", creature=c.cid, condition="berserk")


def _nearest(b, c) -> list:
    """The nearest creatures c can see (Berserk)."""
    seen = [o for o in b.creatures.values() if o is not c and not o.dead and o.conscious
            and "invisible" not in o.conditions
            and b.map.can_see(c.cells, o.cells, viewer_z=c.pos[2], target_z=o.pos[2])]
    if not seen:
        return []
    d = min(b.distance(c, o) for o in seen)
    return [o for o in seen if b.distance(c, o) == d]


def berserk_menu(b, c, out: list) -> list:
    """Berserk: moving, Dash, standing, escaping, the Haste slam and attacks on the nearest creature."""
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


# ================================================================ Aversion of Fire
def on_damage(b, t, amount: int, dtype: str, source) -> None:
    """Aversion of Fire: disadvantage on attacks and checks until the end of its next turn."""
    if dtype == "fire" and amount > 0 and "aversion_fire" in _ms(t):
        t.conditions["fire_aversion"] = {"by": source, "attack_dis": True, "check_dis": True,
                                         "until": "end_of_target_next_turn",
                                         "turn_of": t.cid if b.active is t else None, "round": b.round}
        b.event("condition", f"{t.cid} recoils from the fire", creature=t.cid, condition="fire_aversion")


# ================================================================ Haste
def action_options(b, c, ms, acts, extra: list) -> None:
    if "haste" in acts and c.recharge.get("haste", True):
        extra.append(Opt("Haste (until the end of its next turn: +2 AC, advantage on Dex saves, "
                         "a bonus-action slam)", "ms_haste"))


def bonus_options(b, c, ms, extra: list) -> None:
    if "golem_haste" in c.conditions and _targets(b, c, "slam"):
        extra.append(Opt("Haste: slam (bonus action)", "ms_haste_slam"))


@hooks.OPTION_KINDS.handles("ms_haste")
def _haste(b, c, p, opt) -> None:
    e = c.economy
    e.actions -= 1
    c.recharge["haste"] = False
    c.conditions["golem_haste"] = {"by": c.cid, "ac": 2, "save_adv": ("dex",), "until": "end_of_target_next_turn",
                                   "turn_of": c.cid, "round": b.round}
    b.event("haste", f"{c.cid} hastes itself (+2 AC, a bonus-action slam)", creature=c.cid)
    b.back_to_menu(c)


@hooks.OPTION_KINDS.handles("ms_haste_slam")
def _haste_slam(b, c, p, opt) -> None:
    b.pending = {"kind": "target", "actor": c.cid, "use": ("ms", "haste-slam")}


def _slam_options(b, c, use) -> list:
    return [Opt(f"Slam {t.cid} [{t.hp}/{t.max_hp} HP, AC {b.armour_class(t)}]", "target", (t.cid,))
            for t in _targets(b, c, "slam")]


def _slam(b, c, use, t) -> None:
    c.economy.bonus = False
    if b.make_attack(c, c.attack("slam"), t, then="menu") is None:
        return
    b.back_to_menu(c)


# a ("ms", what) target decision: its options, what picking a creature does
TARGETS = {"haste-slam": (_slam_options, _slam)}
