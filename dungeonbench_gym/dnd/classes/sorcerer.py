"""Sorcerer (Draconic Bloodline, red): Flexible Casting, the Metamagic options (Quickened, Twinned,
Heightened, Careful; Subtle, Empowered, Distant, Extended armed for the next spell), Elemental
Affinity, Dragon Wings, Draconic Presence."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import content
from ..model.slots import spend_slot
from ..rules import spell_data
from .common import extra, option

if TYPE_CHECKING:   # pragma: no cover
    from ..rules.api import BattleAPI
    from ..state import Combatant

SLOT_COST = {1: 2, 2: 3, 3: 5, 4: 6, 5: 7}   # SRD Flexible Casting: sorcery points for a slot
NOT_TWINNABLE = ("magic-missile", "scorching-ray", "eldritch-blast")   # several darts, rays or beams
ARM_TEXT = {
    "subtle": "Subtle Spell: the next spell of 1st level or higher you cast this turn cannot be counterspelled "
              "(1 sorcery point, paid as it is cast)",
    "empowered": "Empowered Spell: the next damage spell you cast this turn rerolls up to {n} low damage dice "
                 "(1 sorcery point, paid as it is cast)",
    "extended": "Extended Spell: the next concentration spell you cast this turn lasts twice as long "
                "(1 sorcery point, paid as it is cast)",
    "distant": "Distant Spell: the next ranged spell you cast this turn has twice its range "
               "(1 sorcery point, paid as it is cast)",
}
ARM_FEATURE = {"subtle": "subtle_spell", "empowered": "empowered_spell", "extended": "extended_spell",
               "distant": "distant_spell"}


def finish_pc(arch: dict, lvls: dict, f: list, r: dict, choices) -> None:
    sor = lvls.get("sorcerer", 0)
    if sor >= 2:
        f.append("flexible_casting")
    if sor and arch.get("subclass") == "draconic":
        r["dragon_ancestor"] = "fire"   # red
        f += [k for lv, k in ((6, "elemental_affinity"), (14, "dragon_wings"), (18, "draconic_presence"))
              if sor >= lv]
    if sor >= 3:
        mm = [k for k in ("subtle_spell", "empowered_spell", "distant_spell", "extended_spell") if k in choices]
        if mm:
            f += mm + ["metamagic_more"]


# ================================================================ the action menu
def spell_metamagic_options(b: BattleAPI, c: Combatant, out: list) -> None:
    """Quickened Spell, Twinned Spell."""
    f, e = c.features, c.economy
    if "quickened_spell" in f and c.resources.get("sorcery_points", 0) >= 2 \
            and e.bonus and not e.levelled_action_spell and not e.bonus_spell:
        out.extend(_quickened(b, c))
    if "twinned_spell" in f and e.actions > 0:
        out.extend(_twinned(b, c))


def save_metamagic_options(b: BattleAPI, c: Combatant, out: list) -> None:
    """Heightened Spell, Careful Spell."""
    f, r, e = c.features, c.resources, c.economy
    if "heightened_spell" in f and r.get("sorcery_points", 0) >= 3 and e.actions > 0:
        out.extend(_heightened(b, c))
    if "careful_spell" in f and r.get("sorcery_points", 0) >= 1 and e.actions > 0:
        out.extend(_careful(b, c))


def bonus_options(c: Combatant, out: list) -> None:
    """Flexible Casting, Dragon Wings."""
    f, e, r = c.features, c.economy, c.resources
    if "flexible_casting" in f and e.bonus:
        pts, slots = r.get("sorcery_points", 0), r.get("slots", ())
        for lv, cost in SLOT_COST.items():
            if pts >= cost and lv <= len(slots) and lv <= _max_slot(c):
                out.append(option(f"Flexible Casting: create a level-{lv} slot (bonus action, {cost} sorcery points; "
                                  f"{pts} left)", "feature", ("to_slot", lv)))
        if pts < r.get("sorcery_points_max", 0):
            for lv, n in enumerate(slots, 1):
                if n > 0:
                    out.append(option(f"Flexible Casting: turn a level-{lv} slot into {lv} sorcery point"
                                      f"{'s' if lv > 1 else ''} (bonus action)", "feature", ("to_points", lv)))
    if "dragon_wings" in f and e.bonus and not c.fly and not c.armored:
        out.append(option(f"Dragon Wings (bonus action: fly speed {c.speed} ft)", "feature", ("dragon_wings",)))


def presence_option(b: BattleAPI, c: Combatant, out: list) -> None:
    r = c.resources
    if "draconic_presence" in c.features and r.get("sorcery_points", 0) >= 5 and presence_targets(b, c):
        out.append(option(f"Draconic Presence (action, 5 sorcery points: foes within 60 ft, WIS save DC "
                          f"{r['spell_dc']} or frightened for 1 minute)", "feature", ("draconic_presence",)))


def arm_options(c: Combatant, out: list) -> None:
    """The Metamagic options a build chose, armed before the spell (see :func:`.common.arm`)."""
    f = c.features
    if "metamagic_more" in f and c.resources.get("sorcery_points", 0) >= 1:
        for tag, feat in ARM_FEATURE.items():
            if feat in f:
                out.append(option(ARM_TEXT[tag].format(n=max(1, c.mod("cha"))), "feature", ("arm", tag)))


def _max_slot(c: Combatant) -> int:
    """Flexible Casting creates slots up to 5th level, and only of a level the sorcerer has."""
    top = c.resources.get("slots_max", ())
    return min(5, max((i + 1 for i, n in enumerate(top) if n), default=0))


def presence_targets(b: BattleAPI, c: Combatant) -> list:
    return [o for o in b.enemies_of(c) if o.conscious and b.distance(c, o) <= 60
            and "frightened" not in o.conditions and "frightened" not in o.condition_immunities]


def _twinned(b: BattleAPI, c: Combatant) -> list:
    """SRD Twinned Spell: a spell that targets only one creature (and not the caster alone) gets a
    second target; sorcery points equal to the spell's level (1 for a cantrip). Here: the action
    spells with an attack roll or a single save, without concentration, at the slot levels where
    the spell takes one target (its data row: ``targets``, ``per_level``; SRD: "incapable of
    targeting more than one creature at the spell's current level")."""
    out = []
    slots = c.resources.get("slots", ())
    for key in c.spells:
        sp = content.spell(key)
        if key in NOT_TWINNABLE or sp.area is not None or sp.concentration or sp.casting_time != "action" \
                or not (sp.attack_type or sp.save_ability) or sp.range_kind == "self":
            continue
        if c.economy.bonus_spell and sp.level > 0:
            continue
        levels = [0] if sp.level == 0 else [lv for lv in range(sp.level, len(slots) + 1) if slots[lv - 1] > 0]
        for lv in levels:
            if spell_data.extra_targets(key, lv):   # Chain Lightning; Command or Charm Person upcast
                continue
            cost = max(1, lv)
            if c.resources.get("sorcery_points", 0) >= cost and len(b.spell_targets(c, key)) >= 2:
                at = f" at level {lv}" if lv else ""
                out.append(option(f"Twinned Spell ({cost} sorcery point{'s' if cost > 1 else ''}): {sp.name}{at} "
                                  f"at two creatures", "feature", ("twin", key, lv)))
    return out


def _quickened(b: BattleAPI, c: Combatant) -> list:
    """SRD Quickened Spell (2 sorcery points): an action spell cast as a bonus action."""
    e = c.economy
    saved = e.actions
    e.actions = max(1, e.actions)   # the spell list as if the action were free: the bonus action pays
    try:
        spell_opts = b.spell_options(c)
    finally:
        e.actions = saved
    out = []
    for o in spell_opts:
        if content.spell(o.data[0]).casting_time == "action":
            out.append(option(f"Quickened Spell (2 sorcery points): {o.label.replace('Cast ', 'cast ', 1)} "
                              f"as a bonus action", "spell", (*o.data, "quickened")))
    return out


def _heightened(b: BattleAPI, c: Combatant) -> list:
    """SRD Heightened Spell (3 sorcery points): one target has disadvantage on its first save
    against the spell. Offered for the action spells that call for a save."""
    return [option(f"Heightened Spell (3 sorcery points): {o.label.replace('Cast ', 'cast ', 1)}; the first foe "
                   f"to save has disadvantage", "spell", (*o.data[:2], "heightened"))
            for o in b.spell_options(c)
            if len(o.data) == 2 and content.spell(o.data[0]).save_ability
            and content.spell(o.data[0]).casting_time == "action"]


def _careful(b: BattleAPI, c: Combatant) -> list:
    """SRD Careful Spell (1 sorcery point): up to Cha modifier (at least 1) creatures of the caster's
    side automatically succeed on their saves against the spell. Offered for the action spells with
    an area and a save."""
    out = []
    for o in b.spell_options(c):
        sp = content.spell(o.data[0])
        if len(o.data) == 2 and sp.save_ability and sp.area is not None and sp.casting_time == "action":
            out.append(option(f"Careful Spell (1 sorcery point): {o.label.replace('Cast ', 'cast ', 1)}; up to "
                              f"{max(1, c.mod('cha'))} allies succeed on their saves", "spell",
                              (*o.data[:2], "careful")))
    return out


# ================================================================ carrying out
def _twin(b: BattleAPI, c: Combatant, opt) -> None:   # the first of the two targets
    b.pending = {"kind": "target", "actor": c.cid, "use": ("feature", "twin", opt.data[1], opt.data[2])}


def _flexible_casting(b: BattleAPI, c: Combatant, opt) -> None:
    key, lv, r = opt.data[0], opt.data[1], c.resources
    c.economy.bonus = False
    if key == "to_slot":   # sorcery points into a slot (it may exceed the table's count)
        r["sorcery_points"] -= SLOT_COST[lv]
        slots = list(r["slots"])
        slots[lv - 1] += 1
        r["slots"] = tuple(slots)
    else:
        spend_slot(c, lv)
        r["sorcery_points"] = min(r["sorcery_points_max"], r["sorcery_points"] + lv)
    what = f"creates a level-{lv} slot" if key == "to_slot" else f"turns a level-{lv} slot into sorcery points"
    b.event("flexible_casting", f"{c.cid} {what}", creature=c.cid)
    b.back_to_menu(c)


def _dragon_wings(b: BattleAPI, c: Combatant, opt) -> None:
    c.economy.bonus = False
    c.fly = c.speed
    b.event("dragon_wings", f"{c.cid} sprouts dragon wings (fly {c.speed} ft)", creature=c.cid)
    b.back_to_menu(c)


def _draconic_presence(b: BattleAPI, c: Combatant, opt) -> None:
    r = c.resources
    c.economy.actions -= 1
    r["sorcery_points"] -= 5
    b.event("draconic_presence", f"{c.cid} exudes a dragon's fearsome presence", creature=c.cid)
    for t in presence_targets(b, c):
        if not b.saving_throw(t, "wis", r["spell_dc"], magic=True, condition="frightened"):
            t.conditions["frightened"] = {"by": c.cid, "until_round": b.round + 10}
            b.event("condition", f"{t.cid} is frightened of {c.cid}", creature=t.cid, condition="frightened")
    b.back_to_menu(c)


ACTIONS = {"twin": _twin, "to_slot": _flexible_casting, "to_points": _flexible_casting,
           "dragon_wings": _dragon_wings, "draconic_presence": _draconic_presence}


def twin_options(b: BattleAPI, c: Combatant, use: tuple) -> list:
    out = []
    for t in b.spell_targets(c, use[2]):
        if use[1] == "twin2" and t.cid == use[4]:
            continue
        which = "first" if use[1] == "twin" else "second"
        out.append(option(f"Twinned {use[2]}: {which} target {t.cid} [{t.hp}/{t.max_hp} HP, "
                          f"{b.distance(c, t)} ft]", "target", (t.cid,)))
    return out


def twin_target(b: BattleAPI, c: Combatant, use: tuple, t: Combatant) -> None:
    if use[1] == "twin":
        b.pending = {"kind": "target", "actor": c.cid, "use": ("feature", "twin2", use[2], use[3], t.cid)}
    else:
        _cast_twinned(b, c, use[2], use[3], b.creatures[use[4]], t)


def _cast_twinned(b: BattleAPI, c: Combatant, key: str, level: int, first: Combatant, second: Combatant) -> None:
    """One casting, two targets: the second resolution gets its slot and action back, so the spell is
    paid once. Simplification: if the first target answers with a reaction (Shield), the second
    target is not affected."""
    c.resources["sorcery_points"] -= max(1, level)
    b.event("metamagic", f"{c.cid} twins {key} ({first.cid} and {second.cid})", creature=c.cid)
    if b.cast_at(c, key, level, first) is None:
        return
    if b.outcome is not None or b.check_outcome():
        return
    if not second.dead:
        c.economy.actions += 1
        if level:
            slots = list(c.resources["slots"])
            slots[level - 1] += 1
            c.resources["slots"] = tuple(slots)
        if b.cast_at(c, key, level, second) is None:
            return
    b.back_to_menu(c)


# ================================================================ spells
def pay_metamagic(b: BattleAPI, c: Combatant, data: tuple) -> None:
    """A spell option with a metamagic was chosen: remember Quickened for :func:`casting_as_bonus`,
    pay Heightened (for :func:`save_disadvantage`) and Careful (for :func:`careful_success`)."""
    if len(data) > 2 and data[2] == "quickened":
        extra(c)["quickened"] = True
    if len(data) > 2 and data[2] == "heightened":
        c.resources["sorcery_points"] -= 3
        extra(c)["heightened"] = True
        b.event("metamagic", f"{c.cid} heightens {data[0]}", creature=c.cid)
    if len(data) > 2 and data[2] == "careful":
        c.resources["sorcery_points"] -= 1
        extra(c)["careful"] = max(1, c.mod("cha"))
        b.event("metamagic", f"{c.cid} casts {data[0]} carefully", creature=c.cid)


def affinity_change(c: Combatant, sp, change: dict) -> None:
    """Elemental Affinity: + Cha modifier to one damage roll of the ancestor's element."""
    if "elemental_affinity" in c.features and sp.damage_type == c.resources.get("dragon_ancestor"):
        change["add"] = change.get("add", 0) + max(0, c.mod("cha"))
        change["type"] = sp.damage_type


def empowered_change(c: Combatant, tag, change: dict) -> None:
    if tag == "empowered":
        change["reroll"] = max(1, c.mod("cha"))


def careful_success(b: BattleAPI, c: Combatant | None, t: Combatant) -> bool:
    """A save of the caster's own side against its Careful spell (the first Cha-modifier many)."""
    if c is None or c.side != t.side or c is t or not extra(c).get("careful"):
        return False
    extra(c)["careful"] -= 1
    b.event("save", f"{t.cid} succeeds automatically (Careful Spell)", creature=t.cid, success=True)
    return True


def save_disadvantage(b: BattleAPI, t: Combatant) -> bool:
    """The first save a foe makes against a Heightened spell of the creature whose turn it is."""
    c = b.active
    if c is None or c.side == t.side or not extra(c).get("heightened"):
        return False
    del extra(c)["heightened"]
    return True


def casting_as_bonus(c: Combatant) -> bool:
    """The spell being paid for is Quickened: a bonus action, 2 sorcery points."""
    if extra(c).pop("quickened", False):
        c.resources["sorcery_points"] -= 2
        return True
    return False


def extended(c: Combatant) -> bool:
    return c.economy.extra.get("metamagic") == "extended"


def range_factor(c: Combatant) -> int:
    """Distant Spell's doubled range (armed, or the spell being cast)."""
    x = c.economy.extra
    return 2 if x.get("armed") == "distant" or x.get("metamagic") == "distant" else 1


def distant_range(c: Combatant, key: str, rng: int) -> int:
    """Distant Spell (armed, or the spell being cast): twice the range; a touch spell's range
    becomes 30 ft (SRD), not twice the 5 ft a touch reaches."""
    if range_factor(c) == 1:
        return rng
    return 30 if content.spell(key).range_kind == "touch" else rng * 2
