"""Spiritual Weapon (the ``"spiritual"`` spell mechanism): a floating weapon appears within 60 ft
and makes a melee spell attack against a creature within 5 ft of it (the slot's dice, 1d8 at 2nd
level +1d8 per two levels above, + the spellcasting modifier, force); on each later turn for a
minute (10 rounds; it is not concentration) the caster may use a bonus action to move it up to
20 ft and attack again. The weapon's place is the last creature it attacked, so a later attack
reaches a foe within 25 ft of that place that is within 60 ft of the caster.

The whole mechanism is this module: its spell row names ``"mech": "spiritual"``
(``content/data/spell_mechanics.json``), the spellbook asks it for the first targets, whether the
spell is worth casting (not while a weapon is up) and the casting (rules/hooks.py
``SPELL_MECHANISMS``), the menu asks it for the later turns' bonus action (``LATER_OPTIONS``),
choosing that option asks for the creature it attacks (``OPTION_KINDS``: ``spiritual_weapon``,
``TARGET_USES``: ``weapon``), and the start of the caster's turn ends it after its minute
(``TURN_STARTS``). The weapon is the caster's ``spiritual_weapon`` resource.
"""

from __future__ import annotations

from .classes import dispatch
from .grid import box_distance_ft
from .model.options import Opt
from .monster_traits import dispatch as monster_traits
from .rules import hooks, spell_data
from .state import AttackProfile, DamagePart

KEY = "spiritual-weapon"
RESOURCE = "spiritual_weapon"


def targets(b, c, key: str) -> list:
    """The first attack's foes: within the spell's range, in line of effect (a rakshasa's Limited
    Magic Immunity screens them)."""
    sp = spell_data.spell(key)
    rng = dispatch.spell_range(c, key, sp.range_feet or 0)   # (Distant Spell)
    pool = [o for o in b.enemies_of(c) if b.may_target(c, o)]
    if b.specials:   # Limited Magic Immunity (monster_traits/rakshasa.py)
        pool = monster_traits.spell_screen(b, c, key, pool)
    return [t for t in pool if b.distance(c, t) <= rng and b.line_of_effect(c, t)]


def available(b, c, key: str, level: int) -> bool:
    return RESOURCE not in c.resources and bool(b.spell_targets(c, key, first=True))   # one weapon at a time


def cast_at(b, c, key: str, level: int, t):
    """The weapon appears by the chosen foe and attacks it (then the menu: None)."""
    sp = spell_data.spell(key)
    b.pay_spell(c, key, level)
    c.resources[RESOURCE] = {"pos": list(t.pos), "until": b.round + 10,
                             "dice": f"{sp.damage_for(slot_level=level)}+{c.resources['spell_mod']}"}
    attack(b, c, t)
    return None


def later_targets(b, c) -> list:
    """A later turn: it moves up to 20 ft and attacks a creature within 5 ft of it, and it stays
    within 60 ft of the caster (its position is the last creature it attacked)."""
    at = tuple(c.resources[RESOURCE]["pos"])
    out = []
    for t in b.enemies_of(c):
        if b.distance(c, t) <= 60 and b.may_target(c, t) and \
                box_distance_ft(at[0], at[1], 1, at[2], t.pos[0], t.pos[1], t.squares, t.pos[2]) <= 25:
            out.append(t)
    if b.specials:   # Limited Magic Immunity (monster_traits/rakshasa.py)
        out = monster_traits.spell_screen(b, c, KEY, out)
    return out


def attack(b, c, t) -> None:
    """The weapon moves beside t and makes its melee spell attack (a bonus action)."""
    sw = c.resources[RESOURCE]
    sw["pos"] = list(t.pos)
    c.economy.bonus = False
    p = AttackProfile(KEY, "Spiritual Weapon", c.resources["spell_attack"],
                      (DamagePart(sw["dice"], "force"),), True, 5, 0, 0, spell=True)
    if b.make_attack(c, p, t, melee=True, then="menu") is None:
        return
    b.back_to_menu(c)


# ---- what this module answers in the engine's dispatch (dnd/rules/hooks.py)
hooks.SPELL_MECHANISMS.register("spiritual", hooks.SpellMechanism(targets=targets, available=available,
                                                                  cast_at=cast_at))


@hooks.LATER_OPTIONS.step(80)
def _later_options(b, c) -> list:
    """Its bonus action on later turns (the menu's last later option)."""
    sw = c.resources.get(RESOURCE)
    if not (sw and c.economy.bonus and later_targets(b, c)):
        return []
    return [Opt(f"Spiritual Weapon: move it and attack (bonus action, {c.resources['spell_attack']:+d}, "
                f"{sw['dice']} force)", "spiritual_weapon")]


@hooks.TURN_STARTS.step(5)
def _turn_starts(b, c) -> None:
    """The weapon goes after its minute."""
    sw = c.resources.get(RESOURCE)
    if sw and b.round >= sw["until"]:
        del c.resources[RESOURCE]


@hooks.OPTION_KINDS.handles("spiritual_weapon")
def _choose(b, c, p, opt) -> None:
    b.pending = {"kind": "target", "actor": c.cid, "use": ("weapon", KEY)}


def _target_options(b, c, use: tuple) -> list:
    return [Opt(f"Spiritual Weapon attacks {t.cid} [{t.hp}/{t.max_hp} HP, AC {b.armour_class(t)}]",
                "target", (t.cid,)) for t in later_targets(b, c)]


def _target_chosen(b, c, use: tuple, t) -> None:
    attack(b, c, t)


hooks.TARGET_USES.register("weapon", hooks.TargetUse(_target_options, _target_chosen))
