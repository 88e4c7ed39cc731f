"""Heat Metal (the ``"heat"`` spell mechanism): a foe in metal armour or holding a metal weapon
takes fire damage and has disadvantage on its attack rolls and ability checks; on each later turn
of the caster's concentration a bonus action heats the object again (no slot). The disadvantage
lasts until the start of the caster's next turn (SRD), so a heating on a later turn brings it back.
Simplification: the target keeps the object (the engine models no dropped weapons, so the
Constitution save to drop a held weapon is not rolled).

The whole mechanism is this module: its spell row names ``"mech": "heat"`` and ``"needs_metal"``
(``content/data/spell_mechanics.json``), the spellbook runs its target step (a foe carrying
metal: :func:`..model.weapons.has_metal`) and asks this module for the summary and the effect
(rules/hooks.py ``SPELL_MECHANISMS``), the menu asks it for the later turns' option
(``LATER_OPTIONS``), and choosing that option runs ``reheat`` (``OPTION_KINDS``).
"""

from __future__ import annotations

from .model.options import Opt
from .rules import hooks, spell_data

KEY = "heat-metal"


def summary(c, key: str, level: int) -> str:
    bits = [f"{spell_data.dice(c, key, level)} fire to a foe in metal, disadvantage on its attacks; "
            "a bonus action heats it again"]
    n = spell_data.extra_targets(key, level)
    if n > 0:
        bits.append(f"up to {n + 1} targets")
    if spell_data.spell(key).concentration:
        bits.append("concentration")
    return ", ".join(bits)


def heat(b, c, key: str, level: int, t) -> bool:
    """Heat Metal: fire damage to the creature touching the glowing object, and disadvantage on its
    attack rolls and checks until the caster's next turn is over (it keeps the object: the save to
    drop a held weapon is not rolled, the engine models no dropped weapons). Later turns of the
    caster may heat it again with a bonus action (:func:`reheat_options`)."""
    c.resources["heat"] = {"target": t.cid, "level": level, "round": b.round}
    _scorch(b, c, key, level, t)
    return True


def _scorch(b, c, key: str, level: int, t) -> None:
    amount = b.roller.roll_damage(spell_data.dice(c, key, level), what=f"damage {key} fire")
    b.damage(t, amount, "fire", magical=True, source=c.cid)
    if t.dead or c.concentration != key:
        return
    t.conditions["heated"] = {"by": c.cid, "spell": key, "level": level, "attack_dis": True, "check_dis": True,
                              "until": "start_of_source_next_turn", "round": b.round}
    b.event("condition", f"{t.cid} is heated ({key}): disadvantage on attacks and checks", creature=t.cid,
            condition="heated", spell=key)


def reheat_options(b, c) -> list:
    """The caster's later turns: a bonus action heats the object again (no slot)."""
    h = c.resources.get("heat")
    t = b.creatures.get(h["target"]) if h else None
    if t is None or t.dead or not c.economy.bonus or h["round"] >= b.round or b.distance(c, t) > 60:
        return []
    return [Opt(f"Heat Metal again (bonus action): {spell_data.dice(c, KEY, h['level'])} fire to {t.cid}",
                "reheat", (t.cid,))]


def reheat(b, c) -> None:
    h = c.resources["heat"]
    c.economy.bonus = False
    b.event("reheat", f"{c.cid} heats the metal on {h['target']} again", creature=c.cid)
    _scorch(b, c, KEY, h["level"], b.creatures[h["target"]])
    b.back_to_menu(c)


# ---- what this module answers in the engine's dispatch (dnd/rules/hooks.py)
hooks.SPELL_MECHANISMS.register("heat", hooks.SpellMechanism(summary=summary, effect=heat))


@hooks.LATER_OPTIONS.step(20)
def _later_options(b, c) -> list:
    return reheat_options(b, c) if c.concentration == KEY else []   # its bonus action on later turns


@hooks.OPTION_KINDS.handles("reheat")   # Heat Metal's bonus action
def _choose_reheat(b, c, p, opt) -> None:
    reheat(b, c)
