"""Items: magic weapons and armour, rings and wondrous items, potions, scrolls, wands and staffs.

Data: ``content/data/items.json`` (facts only, made by :mod:`.content.convert_items`). A PC's
kit is plain picklable data in its resources: ``items`` holds the consumables and charged items
as ``(key, count)`` pairs, ``charges`` the charges left per item, ``equipped`` what is worn or
wielded. :func:`equip` applies worn items at build time (it recompiles attacks and AC);
consumables are used through the engine's real decision options (:func:`item_options` lists
them in the action menu, :func:`use_item` runs the chosen one): "Use an object: drink ...",
"Read a spell scroll ...", "Use a wand ...". Spells from scrolls, wands and staffs go through
the engine's own spell path (targets, areas, saves) with the item's DC and a slot the item pays.
Between fights the Day track calls :func:`use_out_of_combat` (healing potions) and
:func:`settle` (undo a pending item casting before the state is read).

Mounted combat (SRD "Mounted Combat"): mounting or dismounting a willing allied beast at least one
size larger costs half the rider's speed, once per move; the rider shares the mount's space and
moves with it; a controlled mount acts right after its rider with only Move, Dash, Disengage and
Dodge; a mount that dies, drops or falls prone throws its rider prone; a rider knocked prone stays on
with a DC 10 Dex save. Underwater combat (SRD
"Underwater Combat", ``Battle.underwater``, the scenario field ``underwater = true``): melee
weapon attacks have disadvantage unless the attacker swims or uses a dagger, javelin, shortsword,
spear or trident; ranged weapon attacks cannot hit beyond normal range and have disadvantage
unless made with a crossbow, a net, or a javelin, spear, trident or dart; everyone resists fire.

Simplifications (SRD rules not modelled): attunement limits; the 1-hour effects (giant
strength, resistance, heroism, flying) last the whole battle; a potion of speed gives the haste
spell's +2 AC and doubled speed but not its extra action; a spiritual weapon summoned from a
scroll makes its later attacks with the reader's own spell attack bonus; a mount's knock-down
save against forced movement, a rider's reaction to land on its feet and independent (uncontrolled)
mounts are not modelled; a rider knocked prone makes its DC 10 Dex save when its next menu opens.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from importlib import resources
from typing import Any

from . import content, spellbook
from .dice import Roller, parse
from .model import inventory
from .model.archetypes import ARCHETYPES
from .model.inventory import count  # noqa: F401  (items.count: how many a PC carries)
from .model.options import Opt
from .model.weapons import PROFICIENT, base_weapon, weapon_of, weapon_profile
from .rules import hooks, spell_data
from .spell_utility import give_water_breathing, needs_air
from .state import ABILITIES, METAL_ARMOR, AttackProfile, Combatant, DamagePart, ability_mod

DAMAGE_TYPES = ("acid", "bludgeoning", "cold", "fire", "force", "lightning", "necrotic", "piercing", "poison",
                "psychic", "radiant", "slashing", "thunder")
# spells the engine casts through Battle.begin_spell (Shield is a reaction: it has no menu option)
SCROLL_SPELLS = ("fire-bolt", "ray-of-frost", "shocking-grasp", "chill-touch", "magic-missile", "burning-hands",
                 "thunderwave", "sleep", "mage-armor", "scorching-ray", "misty-step", "hold-person", "fireball",
                 "lightning-bolt", "sacred-flame", "guiding-bolt", "cure-wounds", "healing-word", "bless", "bane",
                 "shield-of-faith", "inflict-wounds", "sanctuary", "spiritual-weapon", "spirit-guardians")
# dnd/spellbook.py mechanisms a scroll may carry (cures, stabilising and dispelling need a situation)
SCROLL_MECHS = ("attack", "save", "word", "area", "pool", "heal", "temp_hp", "max_hp", "buff", "summon", "mark",
                "control", "wall", "zone", "shape", "weapon", "heat", "tiers", "sight", "utility", "plants")
# cast from a scroll like any other spell of those mechanisms, but the item probe's small arena has
# nothing for them to work on (no charm, no curse, no spell to dispel, no dying ally): not counted yet
SCROLL_UNPROBED = ("calm-emotions", "control-water", "meld-into-stone", "wish")
USE_KINDS = ("heal", "score", "resist", "heroism", "haste", "fly", "invisible", "poison", "scroll", "cast", "ray",
             "water_breathing")   # (under water: dnd/spell_utility.py)
WEAR_FIELDS = ("ac", "saves", "resist", "resist_nonmagical", "immune", "condition_immune", "unarmored_ac",
               "score_set", "score_plus", "fly", "spell_attack", "magic_resistance", "max_hp_per_level",
               "light")   # light: [bright, dim] ft its carrier sheds (a torch, a lantern: dnd/lighting.py)
_COUNT = re.compile(r"^(.+?)\*(\d+)$")


# ---------------------------------------------------------------- data
@functools.cache
def _load() -> dict:
    text = resources.files("dungeonbench_gym.dnd.content").joinpath("data", "items.json").read_text(encoding="utf-8")
    return json.loads(text)["items"]


def items() -> Mapping[str, dict]:
    return _load()


def item(key: str) -> dict:
    data = _load()
    if key not in data:
        import difflib
        close = difflib.get_close_matches(key, list(data), n=3)
        raise KeyError(f"no item {key!r}" + (f"; did you mean {close}?" if close else ""))
    return data[key]


def status(key: str) -> tuple[str, str]:
    """("executable" | "out of scope" | "not yet", reason)."""
    rec = item(key)
    if rec.get("scope") == "out":
        return "out of scope", rec.get("reason", "outside a battle")
    if "reason" in rec:
        return "not yet", rec["reason"]
    if rec["kind"] == "weapon":
        if content.weapon(rec["base"]).damage is None:
            return "not yet", "the net's restraining is not modelled"
    use = rec.get("use")
    if use is not None:
        if use["kind"] not in USE_KINDS:
            return "not yet", f"the {use['kind']} effect is not modelled"
        if use["kind"] == "scroll" and not scroll_castable(use["spell"]):
            m = spell_data.mech(use["spell"])
            if "out" in m:   # the spell itself has no effect on a battle
                return "out of scope", f"its spell is out of scope: {spell_data.OUT_REASONS[m['out']]}"
            if spell_data.handles(use["spell"]):
                return "not yet", f"{use['spell']} from a scroll is not probed yet"
            return "not yet", f"the engine does not cast {use['spell']}"
    return "executable", ""


def scroll_castable(spell: str) -> bool:
    """The engine casts it (bespoke or through dnd/spellbook.py) and some PC build can read it."""
    if spell not in SCROLL_SPELLS and not (spell_data.handles(spell) and spell_data.mech(spell)["mech"] in SCROLL_MECHS
                                           and spell not in SCROLL_UNPROBED):
        return False
    sp = content.spell(spell)
    return sp.casting_time in ("action", "bonus_action") and bool(sp.classes & {a["class"] for a in ARCHETYPES.values()})


def parse_entries(keys) -> list[tuple[str, int]]:
    """["potion-of-healing-common*3", "longsword-plus-1"] -> [(key, count), ...] (KeyError on an unknown key)."""
    out: dict[str, int] = {}
    for k in keys:
        m = _COUNT.match(k)
        key, n = (m.group(1), int(m.group(2))) if m else (k, 1)
        item(key)
        if n < 1:
            raise ValueError(f"item {k!r}: the count must be at least 1")
        out[key] = out.get(key, 0) + n
    return list(out.items())


# ---------------------------------------------------------------- equipping
def equip(pc: Combatant, keys) -> Combatant:
    """Give a PC items: worn ones take effect now (attacks and AC recompiled), consumables and
    charged items go to the inventory. Raises ValueError for an item the engine cannot run."""
    if not pc.is_pc:
        raise ValueError(f"{pc.cid} is not a PC: only PCs carry items")
    order = {"armor": 0, "shield": 1, "weapon": 2}   # armour first: worn bonuses stack on its AC
    for key, n in sorted(parse_entries(keys), key=lambda kn: order.get(item(kn[0])["kind"], 3)):
        st, why = status(key)
        if st != "executable":
            raise ValueError(f"item {key!r} is {st}: {why}")
        rec = item(key)
        if rec["kind"] == "ammunition":
            for w in rec["weapons"]:
                _add_ammunition(pc, rec, w, n)
        elif "use" in rec and rec["kind"] not in ("weapon", "armor", "shield"):
            inventory.add(pc, key, n)
            if rec.get("charges"):
                ch = dict(pc.resources.get("charges", {}))
                ch[key] = ch.get(key, 0) + rec["charges"] * n
                pc.resources["charges"] = ch
            if "wear" in rec:
                _wear(pc, rec["wear"])
        else:
            if rec["kind"] == "weapon":
                _equip_weapon(pc, rec)
            elif rec["kind"] == "armor" and "base" in rec:
                _equip_armor(pc, rec)
            elif rec["kind"] == "shield":
                _equip_shield(pc, rec)
            if "wear" in rec:
                _wear(pc, rec["wear"])
        pc.resources["equipped"] = tuple(pc.resources.get("equipped", ())) + (key,)
    return pc


def _shift(dice: str, delta: int) -> str:
    """'1d8+3' shifted by +1 -> '1d8+4' (the constant of an SRD dice expression)."""
    e = parse(dice)
    groups = "+".join(f"{c}d{s}" for c, s in e.dice)
    b = e.bonus + delta
    if not groups:
        return str(max(b, 0))
    return f"{groups}{b:+d}" if b else groups


def _weapon_ability(pc: Combatant, a: AttackProfile) -> int:
    """The ability modifier a weapon profile uses: ranged Dex, finesse the better, melee/thrown Str."""
    s, d = pc.mod("str"), pc.mod("dex")
    if not a.melee and not a.key.endswith("-thrown"):
        return d
    return max(s, d) if a.finesse else s


def _equip_weapon(pc: Combatant, rec: dict) -> None:
    base, bonus = rec["base"], rec.get("bonus", 0)
    current = [a for a in pc.attacks if base_weapon(pc, a) == base and ":" not in a.key]   # not magic ammunition
    if not current:   # a new weapon in hand: its plain profile first
        w = content.weapon(base)
        prof = w.category in PROFICIENT.get(pc.pc_class, set()) or base in PROFICIENT.get(pc.pc_class, set())
        current = weapon_profile(base, pc.abilities, pc.prof, prof, pc.style)
        pc.attacks = tuple(pc.attacks) + tuple(current)
        if w.has("ammunition") and f"ammo_{base}" not in pc.resources:
            pc.resources[f"ammo_{base}"] = 20
    if rec["key"] == base:
        return   # a mundane weapon: its plain profile is the item
    magical = bonus > 0 or rec["rarity"] != "mundane"
    new = []
    for a in pc.attacks:
        if a not in current:
            new.append(a)
            continue
        to_hit, parts, off = a.to_hit + bonus, list(a.damage), list(a.offhand)
        if rec.get("finesse") and not a.finesse:   # Sun Blade: finesse, the better of Str and Dex
            gain = max(0, pc.mod("dex") - pc.mod("str"))
            to_hit += gain
            parts[0] = DamagePart(_shift(parts[0].dice, gain), parts[0].type)
        dtype = rec.get("damage_type") or parts[0].type
        parts[0] = DamagePart(_shift(parts[0].dice, bonus), dtype)
        if off:
            off[0] = DamagePart(_shift(off[0].dice, bonus), dtype)
        parts += [DamagePart(d, t) for d, t in rec.get("extra", ())]
        suffix = "-thrown" if a.key.endswith("-thrown") else ""
        key = rec["key"] + suffix
        name = rec["name"] + (" (thrown)" if suffix else "")
        new.append(a._replace(key=key, name=name, to_hit=to_hit, damage=tuple(parts), offhand=tuple(off),
                              spell=magical or a.spell, finesse=a.finesse or bool(rec.get("finesse"))))
        bases = dict(pc.resources.get("weapon_bases", {}))
        bases[rec["key"]] = base
        pc.resources["weapon_bases"] = bases
        if rec.get("slaying"):   # extra damage against creature types (engine: Battle.land)
            sl = dict(pc.resources.get("slaying", {}))
            sl[key] = tuple((d, t or dtype, tuple(types)) for d, t, types in rec["slaying"])
            pc.resources["slaying"] = sl
    pc.attacks = tuple(new)


def _add_ammunition(pc: Combatant, rec: dict, weapon: str, n: int) -> None:
    """Magic ammunition: a separate attack with the weapon while pieces last (+N to hit and damage)."""
    for a in pc.attacks:
        if base_weapon(pc, a) == weapon and not a.melee:
            key = f"{a.key}:{rec['key']}"
            res = f"ammo_{rec['key']}"
            pc.resources["weapon_bases"] = {**pc.resources.get("weapon_bases", {}), key: weapon}
            pc.resources[res] = pc.resources.get(res, 0) + n
            if any(x.key == key for x in pc.attacks):
                return
            parts = list(a.damage)
            parts[0] = DamagePart(_shift(parts[0].dice, rec["bonus"]), parts[0].type)
            pc.attacks = tuple(pc.attacks) + (a._replace(key=key, name=f"{a.name} with {rec['name']}",
                                                         to_hit=a.to_hit + rec["bonus"], damage=tuple(parts),
                                                         spell=True, ammo=res),)
            return


def _archetype_kit(pc: Combatant) -> tuple[str | None, bool]:
    """(armour key, shield) the PC wears now."""
    if "armor" in pc.resources or "shield" in pc.resources:
        return pc.resources.get("armor"), bool(pc.resources.get("shield"))
    for arch in ARCHETYPES.values():
        if arch["class"] == pc.pc_class and arch["style"] == pc.style:
            return arch["armor"], bool(arch["shield"])
    return None, False


def _armor_ac(key: str | None, dex: int) -> int:
    return content.armor(key).ac(dex) if key else 10 + dex


def _equip_armor(pc: Combatant, rec: dict) -> None:
    old, shield = _archetype_kit(pc)
    dex = pc.dex_mod
    if old:
        before = _armor_ac(old, dex) + pc.resources.get("armor_bonus", 0)
    else:   # unarmoured (Unarmored Defense, Draconic Resilience...): the AC without its shield
        before = pc.ac - (2 + pc.resources.get("shield_bonus", 0) if shield else 0)
    after = _armor_ac(rec["base"], dex) + rec.get("bonus", 0)
    pc.ac += after - before
    if pc.style == "defense" and not pc.armored:   # Defense: +1 while wearing armour
        pc.ac += 1
    pc.armored = True
    pc.metal_armor = rec["base"] in METAL_ARMOR or rec["base"] == "half-plate-armor"
    pc.resources["armor"] = rec["base"]
    pc.resources["armor_bonus"] = rec.get("bonus", 0)
    pc.resources["shield"] = shield


def _equip_shield(pc: Combatant, rec: dict) -> None:
    armor, shield = _archetype_kit(pc)
    old = pc.resources.get("shield_bonus", 0)
    if not shield:   # a shield taken up: its +2 too (the grip of versatile weapons is not recompiled)
        pc.ac += content.shields()["shield"].ac_bonus
    pc.ac += rec.get("bonus", 0) - old
    pc.resources["armor"] = armor
    pc.resources["shield"] = True
    pc.resources["shield_bonus"] = rec.get("bonus", 0)


def set_score(pc: Combatant, ability: str, value: int) -> None:
    """Change an ability score and everything compiled from it (attacks, saves, HP, spell numbers)."""
    old_mods = {a.key: _weapon_ability(pc, a) for a in pc.attacks if base_weapon(pc, a)}
    delta = ability_mod(value) - pc.mod(ability)
    pc.abilities = dict(pc.abilities, **{ability: value})
    pc.saves = dict(pc.saves, **{ability: pc.saves[ability] + delta})
    if ability == "dex" and delta:   # armour (or none) with its Dex allowance
        armor, _ = _archetype_kit(pc)
        if armor:
            pc.ac += content.armor(armor).ac(pc.mod("dex")) - content.armor(armor).ac(pc.mod("dex") - delta)
        else:
            pc.ac += delta
    if ability == "con" and delta:   # SRD: a Con modifier change changes the HP maximum per level
        pc.max_hp += delta * pc.level
        pc.hp = max(0, pc.hp + delta * pc.level) if pc.hp else 0
    new = []
    for a in pc.attacks:
        if a.key not in old_mods:
            new.append(a)
            continue
        d = _weapon_ability(pc, a) - old_mods[a.key]
        parts = list(a.damage)
        parts[0] = DamagePart(_shift(parts[0].dice, d), parts[0].type)
        off = list(a.offhand)
        if off:   # the off-hand attack adds only a negative modifier
            was = old_mods[a.key]
            off[0] = DamagePart(_shift(off[0].dice, min(0, was + d) - min(0, was)), off[0].type)
        new.append(a._replace(to_hit=a.to_hit + d, damage=tuple(parts), offhand=tuple(off)))
    pc.attacks = tuple(new)
    if pc.pc_class and delta:
        cls = content.class_spec(pc.pc_class)
        if cls.spellcasting_ability == ability and "spell_dc" in pc.resources:
            for k in ("spell_dc", "spell_attack", "spell_mod"):
                pc.resources[k] += delta


def _wear(pc: Combatant, wear: dict) -> None:
    for field in wear:
        if field not in WEAR_FIELDS:
            raise ValueError(f"unknown worn effect {field!r}")
    pc.ac += wear.get("ac", 0)
    if wear.get("saves"):
        pc.saves = {ab: v + wear["saves"] for ab, v in pc.saves.items()}
    _resist(pc, wear.get("resist", ()))
    if wear.get("resist_nonmagical"):   # resistance to nonmagical damage of every type
        pc.resist = tuple(pc.resist) + tuple((t, True) for t in DAMAGE_TYPES if (t, True) not in pc.resist)
    pc.immune = tuple(pc.immune) + tuple((t, False) for t in wear.get("immune", ()) if (t, False) not in pc.immune)
    pc.condition_immunities = tuple(sorted({*pc.condition_immunities, *wear.get("condition_immune", ())}))
    if wear.get("unarmored_ac") and not pc.armored and not _archetype_kit(pc)[1]:
        pc.ac += wear["unarmored_ac"]
    for ab, v in wear.get("score_set", {}).items():
        if pc.abilities[ab] < v:   # no effect when the score is already as high
            set_score(pc, ab, v)
    for ab, n in wear.get("score_plus", {}).items():
        if pc.abilities[ab] < 20:
            set_score(pc, ab, min(20, pc.abilities[ab] + n))
    if wear.get("fly"):
        pc.fly = max(pc.fly, pc.speed if wear["fly"] == "walk" else int(wear["fly"]))
    if wear.get("spell_attack") and "spell_attack" in pc.resources:
        pc.resources["spell_attack"] += wear["spell_attack"]
    if wear.get("magic_resistance") and "magic_resistance" not in pc.features:
        pc.features = tuple(pc.features) + ("magic_resistance",)
    if wear.get("max_hp_per_level"):
        pc.max_hp += wear["max_hp_per_level"] * pc.level
        pc.hp += wear["max_hp_per_level"] * pc.level
    if wear.get("light") and tuple(wear["light"]) > tuple(pc.resources.get("light", (0, 0))):
        pc.resources["light"] = tuple(wear["light"])   # the brightest light carried (dnd/lighting.py)


def _resist(c: Combatant, types) -> None:
    c.resist = tuple(c.resist) + tuple((t, False) for t in types if (t, False) not in c.resist)


# ---------------------------------------------------------------- using items in battle
def _casts(rec: dict, c: Combatant):
    """(spell, level, charges) a charged item can cast now."""
    use = rec["use"]
    left = c.resources.get("charges", {}).get(rec["key"], 0)
    for s in use["spells"]:
        base = content.spell(s["spell"]).level
        top = s.get("upcast_to", base)
        for level in range(base, top + 1):
            cost = s["charges"] + (level - base)
            if cost <= left and level <= 9:
                yield s["spell"], level, cost


def _spell_legal(battle, c: Combatant, key: str, level: int, bonus_ok: bool) -> bool:
    """Whether the engine could start this spell now (economy, targets, a place to put it)."""
    sp = content.spell(key)
    e = c.economy
    if sp.casting_time == "bonus_action":
        if not e.bonus or e.levelled_action_spell:
            return False
    elif sp.casting_time == "action":
        if e.actions <= 0 or (e.bonus_spell and sp.level > 0):
            return False
    else:
        return False
    if spell_data.handles(key):
        return spellbook.available(battle, c, key, level)
    return bool(battle.spell_targets(c, key))   # the engine's own spells: a creature


def _max_castable(c: Combatant) -> int:
    top = c.resources.get("slots_max", c.resources.get("slots", ()))
    return max((i + 1 for i, n in enumerate(top) if n), default=0)


def item_options(battle, c: Combatant) -> list:
    """The action-menu options of c's items (the engine's Opt tuples)."""
    settle(c)
    out = _mount_options(battle, c)
    inv = c.resources.get("items", ())
    e = c.economy
    act = e.actions > 0
    for key, n in inv:
        rec = item(key)
        use = rec["use"]
        kind = use["kind"]
        name = rec["name"]
        if kind == "heal":
            if act and c.hp < c.max_hp:
                out.append(Opt(f"Use an object: drink {name} (heal {use['dice']}, {n} left)", "potion", (key,)))
        elif kind == "score":
            ab, v = next(iter(use["set"].items()))
            if act and c.abilities[ab] < v:
                out.append(Opt(f"Use an object: drink {name} ({ab.upper()} becomes {v}, {n} left)", "item", (key,)))
        elif kind == "resist":
            if act and any((t, False) not in c.resist for t in use["types"]):
                out.append(Opt(f"Use an object: drink {name} (resistance to {', '.join(use['types'])}, {n} left)",
                               "item", (key,)))
        elif kind == "heroism":
            if act and "blessed" not in c.conditions:
                out.append(Opt(f"Use an object: drink {name} ({use['temp_hp']} temporary HP and bless, {n} left)",
                               "item", (key,)))
        elif kind == "haste":
            if act and "haste" not in c.conditions:
                out.append(Opt(f"Use an object: drink {name} (+2 AC, double speed, {n} left)", "item", (key,)))
        elif kind == "fly":
            feet = c.speed if use["feet"] == "walk" else use["feet"]
            if act and c.fly < feet:
                out.append(Opt(f"Use {name} (fly {feet} ft, {n} left)", "item", (key,)))
        elif kind == "invisible":
            if act and "invisible" not in c.conditions:
                out.append(Opt(f"Use an object: drink {name} (invisible until you attack or cast, {n} left)",
                               "item", (key,)))
        elif kind == "poison":
            if act:
                out.append(Opt(f"Use an object: drink {name} ({n} left)", "item", (key,)))
        elif kind == "water_breathing":   # only under water, for one who holds its breath (dnd/spell_utility.py)
            if act and battle.underwater and needs_air(c):
                out.append(Opt(f"Use an object: drink {name} (breathe water for 1 hour, {n} left)", "item", (key,)))
        elif kind == "scroll":
            sp = content.spell(use["spell"])
            if c.pc_class in sp.classes and scroll_castable(use["spell"]) and \
                    _spell_legal(battle, c, use["spell"], use["level"], True):
                risk = f", DC {10 + use['level']} check" if use["level"] > _max_castable(c) and use["level"] else ""
                out.append(Opt(f"Read {name}: cast {sp.name}" + (f" at level {use['level']}" if use["level"] else "")
                               + f" (DC {use['dc']}, {use['attack']:+d}{risk}; {n} left)", "item", (key, use["level"])))
        elif kind == "cast":
            if use.get("caster") and "spell_dc" not in c.resources:
                continue   # "using your spell save DC": a spellcaster's item
            for spell, level, cost in _casts(rec, c):
                if _spell_legal(battle, c, spell, level, True):
                    dc = use["dc"] or c.resources.get("spell_dc")
                    how = f"DC {dc}; " if dc and content.spell(spell).save_ability else ""
                    out.append(Opt(f"Use {name}: cast {content.spell(spell).name} at level {level} "
                                   f"({how}{cost} of {c.resources['charges'][key]} charges)", "item",
                                   (key, level, spell, cost)))
        elif kind == "ray":
            if not act or c.resources.get("charges", {}).get(key, 0) <= 0:
                continue
            for t in battle.enemies_of(c):
                if battle.distance(c, t) <= use["range"] and battle.line_of_effect(c, t) and \
                        battle.may_target(c, t) and use["condition"] not in t.conditions:
                    out.append(Opt(f"Use {name} on {t.cid} (DC {use['dc']} {use['save'].upper()} or "
                                   f"{use['condition']}; {c.resources['charges'][key]} charges)", "item",
                                   (key, t.cid)))
    return out


def use_item(battle, c: Combatant, data: tuple) -> None:
    """Run a chosen item option (the engine calls this for option kinds "item" and inventory "potion")."""
    key = data[0]
    if key in ("mount", "dismount"):
        _mount(battle, c, battle.creatures[data[1]]) if key == "mount" else _dismount(battle, c)
        battle.back_to_menu(c)
        return
    rec = item(key)
    use = rec["use"]
    kind = use["kind"]
    r = battle.roller
    if kind in ("scroll", "cast"):
        _cast_from_item(battle, c, rec, data)
        return
    battle.spend(c)
    if kind == "ray":
        inventory.spend(c, key, 1)
        t = battle.creatures[data[1]]
        battle.event("item", f"{c.cid} uses {rec['name']} on {t.cid}", creature=c.cid, item=key, target=t.cid)
        cond = use["condition"]
        if cond in t.condition_immunities:
            battle.event("condition", f"{t.cid} is immune to {cond}", creature=t.cid)
        elif not battle.saving_throw(t, use["save"], use["dc"], magic=True, big=True, origin=c):
            t.conditions[cond] = {"by": c.cid, "dc": use["dc"], "repeat": use["save"], "magic": True,
                                  "until_round": battle.round + use["rounds"], "item": key}
            battle.event("condition", f"{t.cid} is {cond} ({rec['name']})", creature=t.cid, condition=cond)
        battle.back_to_menu(c)
        return
    inventory.spend(c, key)
    battle.event("item", f"{c.cid} uses {rec['name']}", creature=c.cid, item=key)
    if kind == "heal":
        battle.heal(c, r.roll(use["dice"], what=f"potion {c.cid}"), rec["name"])
    elif kind == "score":
        for ab, v in use["set"].items():
            if c.abilities[ab] < v:
                set_score(c, ab, v)
    elif kind == "resist":
        _resist(c, use["types"])
    elif kind == "heroism":   # 10 temporary HP and bless without concentration
        c.temp_hp = max(c.temp_hp, use["temp_hp"])
        c.conditions["blessed"] = {"by": c.cid, "spell": key}
    elif kind == "haste":   # the flags the engine reads for the haste spell: +2 AC, double speed, 1 minute
        before = battle.speed(c)
        c.conditions["haste"] = {"by": c.cid, "item": key, "ac": 2, "speed_double": True,
                                 "until_round": battle.round + use["rounds"]}
        c.economy.movement += battle.speed(c) - before   # the doubled speed counts from now
    elif kind == "fly":
        c.fly = max(c.fly, c.speed if use["feet"] == "walk" else use["feet"])
        c.hover = True
    elif kind == "invisible":   # ends when it attacks or casts (engine: make_attack, _pay_spell)
        c.conditions["invisible"] = {"item": key, "ends_on_attack": True}
    elif kind == "water_breathing":   # breath and suffocation end (dnd/spell_utility.py)
        give_water_breathing(battle, c, c, key)
    elif kind == "poison":
        battle.damage(c, r.roll_damage(use["dice"], what=f"damage {key} poison"), "poison", source=c.cid)
        if c.conscious and "poisoned" not in c.condition_immunities and \
                not battle.saving_throw(c, use["save"], use["dc"]):
            c.conditions["poisoned"] = {"dc": use["dc"], "repeat": use["save"], "magic": False, "item": key}
    battle.back_to_menu(c)


def _cast_from_item(battle, c: Combatant, rec: dict, data: tuple) -> None:
    """Cast through the engine's spell path: the item's DC and attack bonus for the casting, and
    one slot of the spell's level that the item pays (restored by :func:`settle`)."""
    use = rec["use"]
    key = rec["key"]
    if use["kind"] == "scroll":
        spell, level, dc, attack = use["spell"], use["level"], use["dc"], use["attack"]
        inventory.spend(c, key)
        if level > _max_castable(c) and level:   # SRD: a check with the spellcasting ability, DC 10 + level
            roll = battle.roller.roll_d20(bonus=c.resources.get("spell_mod", 0), what=f"scroll check {c.cid}")
            if roll.total < 10 + level:
                battle.spend(c)
                battle.event("item", f"{c.cid} fails to read {rec['name']} ({roll.total} vs DC {10 + level}); "
                             "the spell fades", creature=c.cid, item=key, success=False)
                battle.back_to_menu(c)
                return
    else:
        _, level, spell, cost = data
        dc = use["dc"] or c.resources.get("spell_dc", 10)
        attack = c.resources.get("spell_attack", 0)
        inventory.spend(c, key, cost)
    battle.event("item", f"{c.cid} uses {rec['name']}: {spell}", creature=c.cid, item=key, spell=spell)
    saved = {k: c.resources.get(k) for k in ("spell_dc", "spell_attack", "spell_mod", "slots")}
    c.resources["item_cast"] = saved
    c.resources["spell_dc"], c.resources["spell_attack"] = dc, attack
    c.resources.setdefault("spell_mod", 0)
    slots = list(c.resources.get("slots") or ()) + [0] * 9
    if level:
        slots[level - 1] += 1
    c.resources["slots"] = tuple(slots[:max(len(saved["slots"] or ()), 5, level)])
    battle.begin_spell(c, spell, level)
    if battle.pending.get("kind") == "action" or battle.pending.get("actor") != c.cid:
        settle(c)   # nothing left to choose for it: put the caster's own numbers back


def settle(c: Combatant) -> None:
    """Undo an item casting's temporary spell numbers and slot (once its spell is under way)."""
    saved = c.resources.pop("item_cast", None)
    if saved is None:
        return
    for k, v in saved.items():
        if v is None:
            c.resources.pop(k, None)
        else:
            c.resources[k] = v


# ---------------------------------------------------------------- mounted combat
SIZES = ("tiny", "small", "medium", "large", "huge", "gargantuan")
MOUNT_TYPES = ("beast",)   # our reading of "appropriate anatomy"
CONTROLLED = ("move", "dash", "disengage", "dodge", "stand", "end_turn")


def _half(battle, c: Combatant) -> int:
    return battle.speed(c) // 2


def _switched(c: Combatant) -> bool:   # SRD: mount or dismount once during your move
    return bool(c.economy.extra.get("mount_switch")) if hasattr(c.economy, "extra") else False


def _mount_options(battle, c: Combatant) -> list:
    half = _half(battle, c)
    if half <= 0 or c.economy.movement < half or _switched(c):
        return []
    if "mounted" in c.conditions:
        if _free_square_by(battle, battle.creatures[c.conditions["mounted"]["on"]], c) is None:
            return []
        return [Opt(f"Dismount (costs {half} ft)", "item", ("dismount",))]
    out = []
    for m in sorted(battle.allies_of(c), key=lambda o: o.cid):
        if SIZES.index(m.size) >= SIZES.index(c.size) + 1 and m.creature_type in MOUNT_TYPES and m.conscious \
                and not m.incapacitated and "ridden" not in m.conditions and "mounted" not in m.conditions \
                and battle.distance(c, m) <= 5:
            out.append(Opt(f"Mount {m.cid} (costs {half} ft; it then acts on your initiative: move, Dash, "
                           f"Disengage or Dodge)", "item", ("mount", m.cid)))
    return out


def _mount(battle, c: Combatant, m: Combatant) -> None:
    """SRD: mounting costs half your speed; a controlled mount's initiative becomes yours."""
    c.economy.movement -= _half(battle, c)
    if hasattr(c.economy, "extra"):
        c.economy.extra["mount_switch"] = True
    c.pos = tuple(m.pos)
    c.conditions["mounted"] = {"on": m.cid}
    m.conditions["ridden"] = {"on": c.cid}
    order = [x for x in battle.order if x != m.cid]
    order.insert(order.index(c.cid) + 1, m.cid)   # it acts right after its rider
    battle.order = order
    battle.turn_index = order.index(c.cid)
    battle.event("mount", f"{c.cid} mounts {m.cid}", creature=c.cid, mount=m.cid)


def _free_square_by(battle, m: Combatant, c: Combatant):
    """The free square next to the mount nearest its rider (deterministic), or None."""
    taken = {cell for o in battle.creatures.values() if not o.dead and o is not c for cell in o.cells}
    best = None
    xs = [x for x, _ in m.cells]
    ys = [y for _, y in m.cells]
    for y in range(min(ys) - 1, max(ys) + 2):
        for x in range(min(xs) - 1, max(xs) + 2):
            if (x, y) in taken or not battle.map.in_bounds(x, y) or not battle.map.fits(x, y, c.squares):
                continue
            d = (abs(x - c.pos[0]) + abs(y - c.pos[1]), y, x)
            if best is None or d < best[0]:
                best = (d, (x, y, battle.map.standing_z(x, y, c.squares)))
    return best[1] if best else None


def _dismount(battle, c: Combatant, prone: bool = False) -> None:
    m = battle.creatures[c.conditions["mounted"]["on"]]
    if not prone:
        c.economy.movement -= _half(battle, c)
        if hasattr(c.economy, "extra"):
            c.economy.extra["mount_switch"] = True
    spot = _free_square_by(battle, m, c)
    if spot is not None:
        c.pos = spot
    del c.conditions["mounted"]
    m.conditions.pop("ridden", None)
    if prone:   # SRD: a mount knocked prone (or worse) throws its rider, who lands prone
        c.conditions["prone"] = {}
    battle.event("dismount", f"{c.cid} {'falls from' if prone else 'dismounts'} {m.cid}", creature=c.cid,
                 mount=m.cid)


def carry_rider(battle, m: Combatant) -> None:
    """The rider moves with its mount (engine: the end of a move)."""
    rider = battle.creatures.get(m.conditions["ridden"]["on"])
    if rider is not None and rider.conditions.get("mounted", {}).get("on") == m.cid:
        rider.pos = tuple(m.pos)


def mounted_menu(battle, c: Combatant, out: list) -> list:
    """A rider moves only with its mount; a controlled mount moves, Dashes, Disengages or Dodges."""
    if "mounted" in c.conditions:
        m = battle.creatures[c.conditions["mounted"]["on"]]
        if m.dead or not m.conscious or m.incapacitated or "prone" in m.conditions:
            _dismount(battle, c, prone=True)
            return battle.action_options(c)   # on the ground now: its own menu
        if "prone" in c.conditions:   # SRD: a rider knocked prone saves (Dex DC 10) or falls off
            if battle.saving_throw(c, "dex", 10):
                del c.conditions["prone"]   # it keeps its seat
            else:
                _dismount(battle, c, prone=True)
            return battle.action_options(c)
        return [o for o in out if o.kind not in ("move", "dash", "cunning_dash")]
    rider = battle.creatures[c.conditions["ridden"]["on"]]
    if rider.dead or not rider.conscious or rider.conditions.get("mounted", {}).get("on") != c.cid:
        c.conditions.pop("ridden", None)   # no one holds the reins: it acts on its own
        if rider.conditions.get("mounted", {}).get("on") == c.cid:
            del rider.conditions["mounted"]
        return out
    return [o for o in out if o.kind in CONTROLLED]


# ---------------------------------------------------------------- underwater combat
UNDERWATER_MELEE = ("dagger", "javelin", "shortsword", "spear", "trident")
UNDERWATER_RANGED = ("crossbow-light", "crossbow-heavy", "crossbow-hand", "net", "javelin", "spear", "trident", "dart")


def _swims(c: Combatant) -> bool:
    if c.is_pc or not c.monster:
        return bool(c.resources.get("swim"))
    return bool(content.monster(c.monster).speed.swim)


def underwater_disadvantage(c: Combatant, a: AttackProfile, melee: bool) -> list[str]:
    """SRD underwater combat: a melee weapon attack has disadvantage without a swimming speed unless
    the weapon is a dagger, javelin, shortsword, spear or trident; a ranged weapon attack has it
    unless the weapon is a crossbow, a net, or thrown like a javelin (javelin, spear, trident, dart)."""
    w = weapon_of(c, a)
    if w is None:
        return []
    name = w.replace("light-crossbow", "crossbow-light").replace("heavy-crossbow", "crossbow-heavy")
    if melee:
        return [] if _swims(c) or name in UNDERWATER_MELEE else ["underwater melee"]
    return [] if name in UNDERWATER_RANGED or "crossbow" in name else ["underwater ranged"]


# ---------------------------------------------------------------- between fights
def use_out_of_combat(pc: Combatant, key: str, target: Combatant | None = None, roller=None, seed: int = 0) -> int:
    """Drink (or give) a healing potion between battles: returns the HP regained. ``roller`` is a
    :class:`~.dice.Roller` (one is made from ``seed`` when none is given)."""
    rec = item(key)
    use = rec.get("use") or {}
    if use.get("kind") != "heal":
        raise ValueError(f"{key!r} is not a healing item; out of combat only healing potions are used")
    if count(pc, key) <= 0:
        raise ValueError(f"{pc.cid} carries no {key!r}")
    t = target or pc
    if t.dead:
        raise ValueError(f"{t.cid} is dead: a potion cannot help")
    settle(pc)
    r = roller or Roller(seed)
    amount = r.roll(use["dice"], what=f"potion {t.cid}")
    inventory.add(pc, key, -1)
    before = t.hp
    t.hp = min(t.max_hp, t.hp + amount)
    if before == 0 and t.hp > 0:
        t.death_successes = t.death_failures = 0
        t.stable = False
        t.conditions.pop("unconscious", None)
    return t.hp - before


# ---------------------------------------------------------------- coverage
def coverage() -> list[dict]:
    rows = []
    for key, rec in _load().items():
        st, why = status(key)
        rows.append({"key": key, "name": rec["name"], "status": st, "reason": why, "kind": rec["kind"],
                     "rarity": rec["rarity"]})
    return rows


def state_of(pc: Combatant) -> dict[str, Any]:
    """A summary of a PC's kit (for views and the Day track)."""
    return {"items": dict(pc.resources.get("items", ())), "charges": dict(pc.resources.get("charges", {})),
            "equipped": list(pc.resources.get("equipped", ()))}


__all__ = ["ABILITIES", "coverage", "equip", "item", "item_options", "items", "settle", "status",
           "use_item", "use_out_of_combat"]


# ---- what this module answers in the engine's dispatch (dnd/rules/hooks.py)
@hooks.OPTION_KINDS.handles("item")   # an inventory item (a potion from the inventory too)
def _choose_item(b, c, p, opt) -> None:
    use_item(b, c, opt.data)
