"""**Corrosion** (Corrosive Form, Corrode Metal, Rust Metal): a nonmagical metal (the pudding: or
wooden) manufactured weapon that hits it takes a cumulative -1 to its damage; at -5 it is destroyed
(the attack is gone). The pudding's acid burns melee attackers within 5 ft (the engine's
``heated_body``). A gray ooze's pseudopod and a rust monster's **Antennae** (Dex DC 11) corrode worn
nonmagical metal armour: -1 AC a time, destroyed at 10 + the armour's remaining bonus (the wearer
then has AC 10 + Dex; simplification: the armour's base AC comes from a table and a shield is not
touched). Antennae go for the armour first, else a metal weapon.
"""

from __future__ import annotations

from .. import content
from ..grid import SQUARE_FT
from ..model.options import Opt
from ..model.weapons import weapon_of
from ..rules import hooks
from ..state import DamagePart
from .common import _ms, as_action, ask_target

CORRODE = {"black-pudding": "metal_wood", "gray-ooze": "metal", "rust-monster": "metal"}
ARMOR_BASE_AC = {"ring-mail": 14, "chain-shirt": 13, "scale-mail": 14, "breastplate": 14, "half-plate": 15,
                 "chain-mail": 16, "splint-armor": 17, "splint": 17, "plate-armor": 18, "plate": 18}
NOT_METAL = frozenset({"club", "greatclub", "quarterstaff", "sling", "shortbow", "longbow", "blowgun", "net",
                       "whip"})


def compile_traits(spec, c, ms, traits) -> None:
    key = spec.key
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


TRAIT_RUN = {
    "corrosive-form": lambda c: _ms(c).get("corrode") == "metal_wood" and "heated_body" in c.resources,
    "corrode-metal": lambda c: _ms(c).get("corrode") == "metal",
    "rust-metal": lambda c: _ms(c).get("corrode") == "metal",
}


def after_hit(b, c, t, a, tms, cms) -> None:
    """A hit landed: a corroding target eats the weapon; a pseudopod corrodes the armour."""
    if tms.get("corrode") and not t.dead:
        _corrode_weapon(b, c, a, tms["corrode"])
    if cms.get("corrode_armor") == a.key and t.metal_armor:
        _corrode_armor(b, t)


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


# ================================================================ a rust monster's Antennae
def action_options(b, c, ms, acts, extra: list) -> None:
    if "antennae" in acts and _antennae_targets(b, c):
        extra.append(Opt(f"Antennae (corrode a foe's metal armour or weapon, Dex DC {ms['antennae_dc']})",
                         "ms_antennae"))


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


def _antennae_options(b, c, use) -> list:
    return [Opt(f"Antennae on {t.cid}'s {'armour' if t.metal_armor else 'weapon'}", "target", (t.cid,))
            for t in _antennae_targets(b, c)]


TARGETS = {"antennae": (_antennae_options, as_action(_antennae))}
hooks.OPTION_KINDS.register("ms_antennae", ask_target)
