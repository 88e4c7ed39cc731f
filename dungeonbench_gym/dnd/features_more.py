"""More class features: the subclass and late-level features added after :mod:`.features`.

:mod:`.features` (and, where a rule sits deeper, :mod:`.engine`, :mod:`.dice`, :mod:`.spellbook`
and :mod:`.day`) call the hooks here with one-line calls; each hook returns at once for a creature
without the feature (a look in ``Combatant.features`` or a resource key first). :func:`finish_pc`
gives the builds of :mod:`.builders.pcs` their feature names, resources, always-prepared spells and pact
weapon; it runs once per build.

What is played, and how:

* School of Evocation (wizard): Sculpt Spells (allies in the wizard's evocation area succeed on the
  save and take no damage: 1 + the spell's level of them, automatically), Potent Cantrip (a
  save cantrip's success still takes half), Empowered Evocation (+ Int modifier to one damage roll
  of a wizard evocation spell), Overchannel (a menu choice that arms the next wizard damage spell of
  level 1-5 this turn: maximum damage; once a long rest: the necrotic backlash of later uses is not
  offered), Spell
  Mastery (Magic Missile and Misty Step at their lowest level without a slot) and Signature Spell
  (Fireball and Lightning Bolt once each per short rest at 3rd level without a slot).
* Sorcerer: Flexible Casting (bonus-action options: a slot from sorcery points, points from a slot),
  the red Dragon Ancestor with Elemental Affinity (+ Cha modifier to one damage roll of a fire
  spell; the optional resistance is not offered), Dragon Wings (a bonus action: a fly speed equal to
  the walking speed), Draconic Presence (an action and 5 points: each foe within 60 ft, Wis save or
  frightened for 1 minute; a simplification of the concentration aura: the save is made once), and
  the Metamagic options a build picks in ``choices``, each a menu choice that arms the next spell it
  fits this turn (the point is paid as that spell is cast): Subtle (it cannot be counterspelled),
  Empowered (reroll up to Cha modifier damage dice below the die's half), Distant (a ranged spell's
  range doubled: its options are then built at that range) and Extended (a concentration spell lasts
  twice as long).
* Ranger: Hunter's Prey: Horde Breaker (``choices``: an extra weapon attack on a creature within
  5 ft of the first target, once a turn), Defensive Tactics: Escape the Horde (``choices``:
  opportunity attacks against the ranger have disadvantage) and Multiattack Defense (the default:
  +4 AC against a creature's later attacks in the turn it hit the ranger), Multiattack: Whirlwind
  Attack (the default: an action, a melee attack against each foe within 5 ft) or Volley
  (``choices``: a ranged attack against each foe within 10 ft of a chosen creature), Vanish (Hide as a bonus action),
  Feral Senses (no disadvantage for an invisible or hidden target within 30 ft) and Foe Slayer (+ Wis modifier to
  the first weapon hit each turn on a favored enemy: monstrosities and humanoids in our build).
* Fighting Style: Protection (a shield, a reaction: disadvantage on an attack against an ally
  within 5 ft; used on the first attack it can affect) and the champion's Additional Fighting Style
  (Protection beside Defense in our build).
* Life Domain: Disciple of Life (+2 + level to a healing spell), Blessed Healer (the cleric regains
  2 + level when it heals another), Supreme Healing (healing dice at their maximum); Domain, Oath
  and Circle (arctic) spells always prepared; Oath of Devotion: Turn the Unholy; paladin: Cleansing
  Touch (an action: end one spell's effect on a creature within 5 ft, Cha modifier uses); Circle of
  the Land: Nature's Sanctuary (a beast or plant fails a Wis save: its attack on the druid is lost).
* Warlock: Devil's Sight (sees through magical darkness, 120 ft: :mod:`.spell_zones`), Pact of the Blade (a shortsword pact weapon: proficient, magical), Thirsting Blade
  (Extra Attack with it), Lifedrinker (+ Cha modifier necrotic on its hits), Eldritch Spear (Eldritch
  Blast at 300 ft), Pact of the Tome (three cantrips: Sacred Flame, Vicious Mockery, Produce Flame),
  Thief of Five Fates, Mire the Mind, Sign of Ill Omen, Dreadful Word and Bewitching Whispers (Bane,
  Slow, Bestow Curse, Confusion, Compulsion once a long rest with a warlock slot), Chains of Carceri
  (Hold Monster at will without a slot on a celestial, fiend or elemental, once per creature a long
  rest; a foe's Counterspell is not offered against it).
* Bard: Countercharm (an action: allies within 30 ft have advantage on saves against being charmed
  or frightened until the end of the bard's next turn), Song of Rest (the Day track's short rest) and
  Peerless Skill (a Bardic Inspiration die on its own check: a shove, hiding, bursting a web, spent
  only when it can still succeed). Monk: Slow Fall (falling damage reduced by 5 x monk level). Rogue: Reliable Talent (a d20
  below 10 on a trained check counts as 10), Fast Hands (a potion of healing as a bonus action).
  Barbarian: Indomitable Might (a Str check totals at least the Str score).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import content
from .model.options import Opt
from .model.weapons import weapon_profile
from .state import DamagePart, ability_mod

if TYPE_CHECKING:   # pragma: no cover
    from .rules.api import BattleAPI
    from .state import Combatant

# features with menu options here: a creature without any of them skips :func:`options` at once
MENU = frozenset(("flexible_casting", "dragon_wings", "draconic_presence", "overchannel", "horde_breaker",
                  "whirlwind_attack", "vanish", "turn_the_unholy", "cleansing_touch", "countercharm",
                  "metamagic_more", "invocation_spells", "fast_hands", "volley", "chains_of_carceri",
                  "pact_of_the_chain"))
KEYS = ("arm", "volley", "carceri", "chain", "to_slot", "to_points", "dragon_wings", "draconic_presence", "whirlwind", "turn_unholy",
        "cleansing_touch", "countercharm", "fast_potion")
SLOT_COST = {1: 2, 2: 3, 3: 5, 4: 6, 5: 7}   # SRD Flexible Casting: sorcery points for a slot
INVOCATION_SPELLS = {"thief_of_five_fates": "bane", "mire_the_mind": "slow", "sign_of_ill_omen": "bestow-curse",
                     "dreadful_word": "confusion", "bewitching_whispers": "compulsion"}
INVOCATION_LEVEL = {"thief_of_five_fates": 2, "mire_the_mind": 5, "sign_of_ill_omen": 5, "dreadful_word": 7,
                    "bewitching_whispers": 7}
# always-prepared spells (only those the engine runs): (class level, spells)
DOMAIN_LIFE = ((1, ("bless", "cure-wounds")), (3, ("lesser-restoration", "spiritual-weapon")),
               (5, ("revivify",)), (7, ("death-ward",)), (9, ("mass-cure-wounds",)))
OATH_DEVOTION = ((3, ("protection-from-evil-and-good", "sanctuary")), (5, ("lesser-restoration",)),
                 (9, ("dispel-magic",)), (17, ("flame-strike",)))
CIRCLE_ARCTIC = ((3, ("hold-person",)), (5, ("slow",)), (7, ("ice-storm",)), (9, ("cone-of-cold",)))
TOME_CANTRIPS = ("sacred-flame", "vicious-mockery", "produce-flame")
FAVORED = ("monstrosity", "humanoid")   # our ranger's favored enemies (Foe Slayer)


def _opt(label, kind, data=()):
    return Opt(label, kind, tuple(data))


def _x(c: Combatant) -> dict:
    return c.economy.extra


def _lvl(c: Combatant, cls: str) -> int:
    return c.resources.get("class_levels", {}).get(cls, c.level if c.pc_class == cls else 0)


def _spell(key: str):
    return content.spell(key)


# ================================================================ builds
def finish_pc(pc: Combatant, arch: dict, lvls: dict) -> Combatant:
    """Add this module's features to a freshly built PC (called once by :func:`.builders.pcs.build_pc`)."""
    f, r = list(pc.features), pc.resources
    choices = arch.get("choices", ())
    spells = list(pc.spells)
    max_slot = max((i + 1 for i, n in enumerate(r.get("slots", ())) if n), default=0)

    def prepare(table, level):
        for lv, keys in table:
            if level >= lv:
                spells.extend(k for k in keys if _spell(k).level <= max_slot)

    wiz = lvls.get("wizard", 0)
    if wiz:   # School of Evocation
        f += [k for lv, k in ((2, "sculpt_spells"), (6, "potent_cantrip"), (10, "empowered_evocation"),
                              (14, "overchannel")) if wiz >= lv]
        if wiz >= 14:
            r["overchannel"] = r["overchannel_max"] = 1
        innate = dict(r.get("innate", {}))
        if wiz >= 18:   # Spell Mastery: at will at their lowest level
            r["mastery"] = ("magic-missile", "misty-step")
            innate.update({k: -1 for k in r["mastery"]})
            spells += [k for k in r["mastery"] if k not in spells]
        if wiz >= 20:   # Signature Spell: once each per short rest at 3rd level
            r["signature"] = ("fireball", "lightning-bolt")
            innate.update({k: 1 for k in r["signature"]})
            spells += [k for k in r["signature"] if k not in spells]
        if innate:
            r["innate"], r["innate_max"] = innate, dict(innate)
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
    ran = lvls.get("ranger", 0)
    if ran:
        if ran >= 3 and "horde_breaker" in choices:   # instead of Colossus Slayer
            f = [k for k in f if k != "colossus_slayer"] + ["horde_breaker"]
        if ran >= 7 and "steel_will" not in choices:
            f.append("escape_the_horde" if "escape_the_horde" in choices else "multiattack_defense")
        if ran >= 11:
            f.append("volley" if "volley" in choices else "whirlwind_attack")
        f += [k for lv, k in ((14, "vanish"), (18, "feral_senses"), (20, "foe_slayer")) if ran >= lv]
        r["favored_enemies"] = FAVORED if ran >= 6 else FAVORED[:1]
    fig = lvls.get("fighter", 0)
    if fig >= 10 and arch.get("shield") and arch["class"] == "fighter" and "classes" not in arch:
        r["style2"] = "protection"   # Champion: Additional Fighting Style
    if (pc.style == "protection" or r.get("style2") == "protection") and arch.get("shield"):
        f.append("protection")
    cle = lvls.get("cleric", 0)
    if cle:   # Life Domain
        f += [k for lv, k in ((1, "disciple_of_life"), (6, "blessed_healer"), (17, "supreme_healing"))
              if cle >= lv]
        prepare(DOMAIN_LIFE, cle)
    pal = lvls.get("paladin", 0)
    if pal >= 3:   # Oath of Devotion
        f.append("turn_the_unholy")
        prepare(OATH_DEVOTION, pal)
    if pal >= 14:
        f.append("cleansing_touch")
        r["cleansing_touch"] = r["cleansing_touch_max"] = max(1, ability_mod(pc.abilities["cha"]))
    dru = lvls.get("druid", 0)
    if dru >= 3 and arch.get("subclass") == "land":
        prepare(CIRCLE_ARCTIC, dru)
    if dru >= 14 and arch.get("subclass") == "land":
        f.append("natures_sanctuary")
    war = lvls.get("warlock", 0)
    if war >= 2:
        f += [k for k in ("eldritch_spear", "devils_sight") if k in choices]
        if war >= 15 and "chains_of_carceri" in choices:
            f.append("chains_of_carceri")
            r["carceri_done"], r["carceri_done_max"] = (), ()   # those bound since the last long rest
        inv = [k for k in INVOCATION_SPELLS if k in choices and war >= INVOCATION_LEVEL[k]]
        if inv:
            f += inv + ["invocation_spells"]
            for k in inv:
                r[f"invocation:{k}"] = r[f"invocation:{k}_max"] = 1
    if war >= 3 and "pact_of_the_tome" in choices:
        f.append("pact_of_the_tome")
        spells += [k for k in TOME_CANTRIPS if k not in spells]
    if war >= 3 and "pact_of_the_blade" in choices:
        _pact_weapon(pc, f, r, war, choices)
    if lvls.get("bard", 0) >= 2:
        f.append("song_of_rest")
        r["song_of_rest"] = f"1d{6 if lvls['bard'] < 9 else 8 if lvls['bard'] < 13 else 10 if lvls['bard'] < 17 else 12}"
    if lvls.get("bard", 0) >= 6:
        f.append("countercharm")
    if lvls.get("bard", 0) >= 14 and arch.get("subclass") == "lore":
        f.append("peerless_skill")
    if lvls.get("monk", 0) >= 4:
        f.append("slow_fall")
    rog = lvls.get("rogue", 0)
    if rog >= 3 and "classes" not in arch:   # Thief
        f.append("fast_hands")
    if rog >= 9 and "classes" not in arch:
        f.append("supreme_sneak")
    if rog >= 11:
        f.append("reliable_talent")
    if lvls.get("barbarian", 0) >= 18:
        f.append("indomitable_might")
    from . import features_last
    f = features_last.finish_pc(pc, arch, lvls, f, r, spells)   # Retaliation, Giant Killer, Land's Stride, ...
    pc.features = tuple(dict.fromkeys(f))
    pc.spells = tuple(dict.fromkeys(spells))
    return pc


def _pact_weapon(pc: Combatant, f: list, r: dict, war: int, choices) -> None:
    """SRD Pact of the Blade: a pact weapon the warlock is proficient with, magical; here a shortsword
    (finesse: the better of Str and Dex). Thirsting Blade (5): two attacks with it per Attack action."""
    prof = weapon_profile("shortsword", pc.abilities, pc.prof, True, pc.style)
    pact = [p._replace(key="pact-blade", name="Pact Blade (shortsword)", spell=True) for p in prof if p.melee]
    pc.attacks = tuple(pact) + tuple(pc.attacks)
    f.append("pact_of_the_blade")
    if war >= 5 and "thirsting_blade" in choices:
        f += ["thirsting_blade", "extra_attack"]   # (the Extra Attack counts for its dagger too)
        r.setdefault("extra_attacks", 1)
    if war >= 12 and "lifedrinker" in choices:
        f.append("lifedrinker")


# ================================================================ the action menu
def options(b: BattleAPI, c: Combatant) -> list:
    f = c.features
    if MENU.isdisjoint(f):
        return []
    e, r, x = c.economy, c.resources, _x(c)
    out = []
    if "flexible_casting" in f and e.bonus:
        pts, slots = r.get("sorcery_points", 0), r.get("slots", ())
        for lv, cost in SLOT_COST.items():
            if pts >= cost and lv <= len(slots) and lv <= _max_slot(c):
                out.append(_opt(f"Flexible Casting: create a level-{lv} slot (bonus action, {cost} sorcery points; "
                                f"{pts} left)", "feature", ("to_slot", lv)))
        if pts < r.get("sorcery_points_max", 0):
            for lv, n in enumerate(slots, 1):
                if n > 0:
                    out.append(_opt(f"Flexible Casting: turn a level-{lv} slot into {lv} sorcery point"
                                    f"{'s' if lv > 1 else ''} (bonus action)", "feature", ("to_points", lv)))
    if "dragon_wings" in f and e.bonus and not c.fly and not c.armored:
        out.append(_opt(f"Dragon Wings (bonus action: fly speed {c.speed} ft)", "feature", ("dragon_wings",)))
    if e.actions > 0:
        if "draconic_presence" in f and r.get("sorcery_points", 0) >= 5 and _presence_targets(b, c):
            out.append(_opt(f"Draconic Presence (action, 5 sorcery points: foes within 60 ft, WIS save DC "
                            f"{r['spell_dc']} or frightened for 1 minute)", "feature", ("draconic_presence",)))
        if "turn_the_unholy" in f and r.get("channel_divinity", 0) > 0 and _unholy(b, c):
            out.append(_opt(f"Channel Divinity: Turn the Unholy (WIS DC {r['spell_dc']}: fiends and undead within "
                            f"30 ft are turned)", "feature", ("turn_unholy",)))
        if "cleansing_touch" in f and r.get("cleansing_touch", 0) > 0 and _cleanse_targets(b, c):
            out.append(_opt(f"Cleansing Touch (action: end a spell on a creature you touch; "
                            f"{r['cleansing_touch']} left)", "feature", ("cleansing_touch",)))
        if "countercharm" in f and "countercharm" not in c.conditions:
            out.append(_opt("Countercharm (action: allies within 30 ft have advantage on saves against being "
                            "charmed or frightened until the end of your next turn)", "feature", ("countercharm",)))
        if "chains_of_carceri" in f and _carceri_targets(b, c):
            out.append(_opt("Chains of Carceri (action: Hold Monster at will, no slot, on a celestial, fiend or "
                            "elemental; once per creature a long rest)", "feature", ("carceri",)))
        if "volley" in f and e.attacks_left == 0 and _volley_weapon(b, c) is not None:
            a = _volley_weapon(b, c)
            out.append(_opt(f"Volley (action: a {a.name} attack against each foe within 10 ft of a point; "
                            f"choose the creature at its centre)", "feature", ("volley",)))
        if "whirlwind_attack" in f and e.attacks_left == 0:
            a = next((a for a in c.attacks if a.melee), None)
            if a is not None and len(_adjacent_foes(b, c)) >= 2:
                out.append(_opt(f"Whirlwind Attack (action: {a.name} against each of "
                                f"{len(_adjacent_foes(b, c))} foes within 5 ft)", "feature", ("whirlwind",)))
        if not x.get("armed"):   # Overchannel and Metamagic: armed for the next spell (no enumeration)
            out.extend(_arm_options(c))
    if "horde_breaker" in f and x.get("horde_from") and not x.get("horde_used"):
        out.extend(_horde_options(b, c))
    if "vanish" in f and e.bonus and "hidden" not in c.conditions and "cunning_action" not in f and b.unseen(c):
        out.append(_opt(f"Vanish: Hide (bonus action, Stealth {b.stealth(c):+d})", "cunning_hide"))
    if "fast_hands" in f and e.bonus and r.get("potions", 0) > 0 and c.hp < c.max_hp:
        out.append(_opt(f"Fast Hands: drink a potion of healing as a bonus action (2d4+2, {r['potions']} left)",
                        "feature", ("fast_potion",)))
    if "invocation_spells" in f:
        out.extend(_invocation_options(b, c))
    if "pact_of_the_chain" in f:   # the familiar attacks in place of one of the warlock's attacks
        from . import features_last
        out.extend(features_last.chain_options(b, c))
    return out


def _max_slot(c: Combatant) -> int:
    """Flexible Casting creates slots up to 5th level, and only of a level the sorcerer has."""
    top = c.resources.get("slots_max", ())
    return min(5, max((i + 1 for i, n in enumerate(top) if n), default=0))


ARM_TEXT = {
    "overchannel": "Overchannel: the next wizard damage spell of 1st-5th level you cast this turn deals maximum "
                   "damage (once a long rest)",
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


def _arm_options(c: Combatant) -> list:
    """A choice made before the spell (a hierarchical decision: this option, then the spell):
    Overchannel, and the Metamagic options a build chose. Nothing is paid until a spell it fits
    is cast (:func:`before_spell`); an unused one lapses at the end of the turn."""
    f, r = c.features, c.resources
    out = []
    if "overchannel" in f and r.get("overchannel", 0) > 0:
        out.append(_opt(ARM_TEXT["overchannel"], "feature", ("arm", "overchannel")))
    if "metamagic_more" in f and r.get("sorcery_points", 0) >= 1:
        for tag, feat in ARM_FEATURE.items():
            if feat in f:
                out.append(_opt(ARM_TEXT[tag].format(n=max(1, c.mod("cha"))), "feature", ("arm", tag)))
    return out


def _fits(tag: str, sp, level: int) -> bool:
    """Whether an armed Overchannel or Metamagic applies to this casting."""
    if tag == "overchannel":
        return bool(sp.damage_type) and 1 <= level <= 5
    if tag == "subtle":
        return level >= 1
    if tag == "empowered":
        return bool(sp.damage_type)
    if tag == "extended":
        return bool(sp.concentration)
    return sp.area is None and (sp.range_feet or 0) >= 5 and sp.range_kind != "touch"   # distant


def range_factor(c: Combatant) -> int:
    """Distant Spell's doubled range (armed, or the spell being cast)."""
    x = c.economy.extra
    return 2 if x.get("armed") == "distant" or x.get("metamagic") == "distant" else 1


def _invocation_options(b: BattleAPI, c: Combatant) -> list:
    """SRD invocations that cast a spell once a long rest with a warlock slot."""
    out = []
    for inv, key in INVOCATION_SPELLS.items():
        if inv not in c.features or c.resources.get(f"invocation:{inv}", 0) <= 0 or key in c.spells:
            continue
        saved = c.spells
        c.spells = (key,)
        try:
            opts = b.spell_options(c)
        finally:
            c.spells = saved
        name = inv.replace("_", " ").title().replace(" Of ", " of ").replace(" The ", " the ")
        for o in opts:
            out.append(_opt(f"{name} (once a long rest): {o.label}", "spell", (*o.data[:2], "invocation", inv)))
    return out


def _presence_targets(b: BattleAPI, c: Combatant) -> list:
    return [o for o in b.enemies_of(c) if o.conscious and b.distance(c, o) <= 60
            and "frightened" not in o.conditions and "frightened" not in o.condition_immunities]


def _unholy(b: BattleAPI, c: Combatant) -> list:
    return [o for o in b.enemies_of(c) if o.creature_type in ("fiend", "undead") and o.conscious
            and "turned" not in o.conditions and b.distance(c, o) <= 30]


def _cleanse_targets(b: BattleAPI, c: Combatant) -> list:
    return [o for o in b.creatures.values() if o.side == c.side and not o.dead and b.distance(c, o) <= 5
            and any(v.get("spell") and b.creatures.get(v.get("by")) is not None
                    and b.creatures[v["by"]].side != c.side for v in o.conditions.values())]


def _adjacent_foes(b: BattleAPI, c: Combatant) -> list:
    return [o for o in b.enemies_of(c) if o.conscious and b.distance(c, o) <= 5]


def _horde_options(b: BattleAPI, c: Combatant) -> list:
    first = b.creatures.get(_x(c)["horde_from"])
    if first is None:
        return []
    out = []
    for a in c.attacks:
        if a.spell:
            continue
        if any(t.cid != first.cid and b.distance(first, t) <= 5 for t in b.targets_for_attack(c, a)):
            out.append(_opt(f"Horde Breaker: attack with {a.name} a creature within 5 ft of {first.cid} "
                            f"({a.short()})", "attack", (a.key, "horde")))
    return out


def horde_targets(b: BattleAPI, c: Combatant, targets: list) -> list:
    """The targets of a Horde Breaker attack: near the first target, not it."""
    first = b.creatures.get(_x(c).get("horde_from"))
    return [t for t in targets if first is not None and t is not first and b.distance(first, t) <= 5]


# ================================================================ carrying out
def apply(b: BattleAPI, c: Combatant, opt) -> None:
    key = opt.data[0]
    e, r = c.economy, c.resources
    if key == "arm":   # nothing spent yet: the next spell it fits pays
        _x(c)["armed"] = opt.data[1]
        b.event("metamagic", f"{c.cid} readies {opt.data[1].title()}"
                + ("" if opt.data[1] == "overchannel" else " Spell"), creature=c.cid)
        b.forget_options()
    elif key in ("to_slot", "to_points"):
        e.bonus = False
        lv = opt.data[1]
        slots = list(r["slots"])
        if key == "to_slot":
            r["sorcery_points"] -= SLOT_COST[lv]
            slots[lv - 1] += 1
        else:
            slots[lv - 1] -= 1
            r["sorcery_points"] = min(r["sorcery_points_max"], r["sorcery_points"] + lv)
        r["slots"] = tuple(slots)
        what = f"creates a level-{lv} slot" if key == "to_slot" else f"turns a level-{lv} slot into sorcery points"
        b.event("flexible_casting", f"{c.cid} {what}", creature=c.cid)
    elif key == "dragon_wings":
        e.bonus = False
        c.fly = c.speed
        b.event("dragon_wings", f"{c.cid} sprouts dragon wings (fly {c.speed} ft)", creature=c.cid)
    elif key == "fast_potion":
        e.bonus = False
        r["potions"] -= 1
        b.heal(c, b.roller.roll("2d4+2", what=f"potion {c.cid}"), "a potion of healing (Fast Hands)")
    elif key == "countercharm":
        e.actions -= 1
        c.conditions["countercharm"] = {"until": "end_of_source_next_turn", "by": c.cid, "turn_of": c.cid,
                                        "round": b.round}
        b.event("countercharm", f"{c.cid} performs a Countercharm", creature=c.cid)
    elif key == "draconic_presence":
        e.actions -= 1
        r["sorcery_points"] -= 5
        b.event("draconic_presence", f"{c.cid} exudes a dragon's fearsome presence", creature=c.cid)
        for t in _presence_targets(b, c):
            if not b.saving_throw(t, "wis", r["spell_dc"], magic=True, condition="frightened"):
                t.conditions["frightened"] = {"by": c.cid, "until_round": b.round + 10}
                b.event("condition", f"{t.cid} is frightened of {c.cid}", creature=t.cid, condition="frightened")
    elif key == "turn_unholy":
        e.actions -= 1
        r["channel_divinity"] -= 1
        b.event("channel_divinity", f"{c.cid} presents a holy symbol: Turn the Unholy", creature=c.cid)
        for t in _unholy(b, c):
            if not b.saving_throw(t, "wis", r["spell_dc"], adv="turn_resistance" in t.features):
                t.conditions["turned"] = {"by": c.cid, "until": b.round + 10}
                t.economy.reaction = False
                b.end_concentration(t)
                b.event("condition", f"{t.cid} is turned", creature=t.cid, condition="turned")
    elif key == "whirlwind":
        _whirlwind(b, c)
        return
    elif key in ("cleansing_touch", "volley", "carceri", "chain"):
        b.pending = {"kind": "target", "actor": c.cid, "use": ("feature", key)}
        return
    b.back_to_menu(c)


def _whirlwind(b: BattleAPI, c: Combatant) -> None:
    """SRD Whirlwind Attack: one melee weapon attack roll against each creature within 5 ft; a
    reaction pending (Shield) ends the sweep (like the rays of Scorching Ray)."""
    c.economy.actions -= 1
    a = next(a for a in c.attacks if a.melee)
    b.event("whirlwind", f"{c.cid} makes a Whirlwind Attack", creature=c.cid)
    for t in _adjacent_foes(b, c):
        if b.make_attack(c, a, t, melee=True, then="menu") is None:
            return
        if b.outcome is not None or b.check_outcome():
            return
    b.back_to_menu(c)


def _carceri_targets(b: BattleAPI, c: Combatant) -> list:
    """Chains of Carceri: Hold Monster's targets that are celestials, fiends or elementals, not yet
    bound by this warlock since its last long rest."""
    from . import spellbook
    done = c.resources.get("carceri_done", ())
    return [t for t in spellbook.targets(b, c, "hold-monster")
            if t.creature_type in ("celestial", "fiend", "elemental") and t.cid not in done]


def _volley_weapon(b: BattleAPI, c: Combatant):
    """The ranged weapon a Volley shoots, when it has a target."""
    return next((a for a in c.attacks if not a.melee and not a.spell and b.targets_for_attack(c, a)), None)


def _volley_hits(b: BattleAPI, c: Combatant, a, centre: Combatant) -> list:
    """SRD Volley: every creature within 10 ft of the point (here: of the creature at its centre)
    the weapon can reach; the ranger's foes only, a separate attack roll each."""
    return [t for t in b.targets_for_attack(c, a) if t is centre or b.distance(centre, t) <= 10]


def _volley(b: BattleAPI, c: Combatant, centre: Combatant) -> None:
    c.economy.actions -= 1
    a = _volley_weapon(b, c)
    b.event("volley", f"{c.cid} looses a Volley around {centre.cid}", creature=c.cid)
    for t in _volley_hits(b, c, a, centre) if a is not None else ():
        if a.ammo and c.resources.get(a.ammo, 0) <= 0:
            break   # (each attack takes its own piece of ammunition)
        if b.make_attack(c, a, t, melee=False, then="menu") is None:
            return
        if b.outcome is not None or b.check_outcome():
            return
    b.back_to_menu(c)


def sanctuary_turns(b: BattleAPI, c: Combatant, t: Combatant, a) -> bool:
    """SRD Nature's Sanctuary: a beast or plant attacking the druid makes a Wis save against its
    spell DC; on a failure the attack is lost (as with Sanctuary here: the SRD also lets it choose
    another target)."""
    if c.creature_type not in ("beast", "plant") or b.saving_throw(c, "wis", t.resources.get("spell_dc", 10), magic=True):
        return False
    b.event("attack", f"{c.cid}'s attack on {t.cid} is turned aside by Nature's Sanctuary", attacker=c.cid,
            target=t.cid, attack=a.key, hit=False, critical=False, total=0, ac=0)
    return True


def target_options(b: BattleAPI, c: Combatant, use: tuple) -> list:
    out = []
    if use[1] == "carceri":
        for t in _carceri_targets(b, c):
            out.append(_opt(f"Chains of Carceri on {t.cid} ({t.creature_type}) [WIS save {t.saves['wis']:+d}, "
                            f"{b.distance(c, t)} ft]", "target", (t.cid,)))
    if use[1] == "volley":
        a = _volley_weapon(b, c)
        for t in b.targets_for_attack(c, a) if a is not None else ():
            n = len(_volley_hits(b, c, a, t))
            out.append(_opt(f"Volley centred on {t.cid}: {n} foe{'s' if n > 1 else ''} within 10 ft "
                            f"[{b.distance(c, t)} ft]", "target", (t.cid,)))
    if use[1] == "chain":
        from . import features_last
        out.extend(features_last.chain_target_options(b, c))
    if use[1] == "cleansing_touch":
        for t in _cleanse_targets(b, c):
            spells = sorted({v["spell"] for v in t.conditions.values() if v.get("spell")})
            out.append(_opt(f"Cleansing Touch on {t.cid} (ends {', '.join(spells)})", "target", (t.cid,)))
    return out


def resolve_target(b: BattleAPI, c: Combatant, use: tuple, t: Combatant) -> None:
    if use[1] == "chain":   # Pact of the Chain (dnd/features_last.py)
        from . import features_last
        features_last.chain_attack(b, c, t)
        return
    if use[1] == "volley":
        _volley(b, c, t)
        return
    if use[1] == "carceri":   # cast through the engine, the slot left alone (free_cast)
        c.resources["carceri_done"] = (*c.resources.get("carceri_done", ()), t.cid)
        c.economy.extra["free_spell"] = "hold-monster"
        b.event("chains_of_carceri", f"{c.cid} binds {t.cid} with the Chains of Carceri", creature=c.cid)
        if b.cast_at(c, "hold-monster", 5, t) is None:
            return
        b.back_to_menu(c)
        return
    if use[1] == "cleansing_touch":
        c.economy.actions -= 1
        c.resources["cleansing_touch"] -= 1
        foes = {o.cid for o in b.enemies_of(c)}
        ended = set()
        for k, v in list(t.conditions.items()):
            if v.get("spell") and v.get("by") in foes:
                ended.add(v["spell"])
                del t.conditions[k]
        b.event("cleansing_touch", f"{c.cid} cleanses {t.cid} of {', '.join(sorted(ended))}", creature=c.cid,
                target=t.cid)
    b.back_to_menu(c)


# ================================================================ spells
def before_spell(b: BattleAPI, c: Combatant, data: tuple) -> None:
    """A spell option was chosen: note the casting (healing features), pay a metamagic, and arm the
    damage roll's changes (`dice.Roller.changed_roll`): Empowered Evocation, Elemental Affinity,
    Overchannel, Empowered Spell, Supreme Healing; Sculpt Spells for an evocation area."""
    mods = getattr(b.roller, "mods", None)
    if mods:
        mods.clear()
    elif mods is None:
        mods = {}
    x = _x(c)
    x.pop("sculpt", None)
    f = c.features
    if not f or not c.is_pc:
        return
    key, level = data[0], data[1]
    tag = data[2] if len(data) > 2 else None
    x["casting"] = (key, level)
    sp = _spell(key)
    r = c.resources
    if tag == "invocation":
        r[f"invocation:{data[3]}"] = 0
    x.pop("metamagic", None)
    armed = x.get("armed")
    if armed and _fits(armed, sp, level) and (armed == "overchannel" or r.get("sorcery_points", 0) >= 1):
        del x["armed"]
        tag = armed if tag is None or tag == "invocation" else tag
        if armed != "overchannel":
            r["sorcery_points"] -= 1
            x["metamagic"] = armed
            b.event("metamagic", f"{c.cid} casts {key} with {armed.title()} Spell", creature=c.cid)
    change: dict = {}
    wizard_evo = sp.school == "evocation" and _lvl(c, "wizard") > 0
    if "empowered_evocation" in f and wizard_evo:
        change["add"] = max(0, c.mod("int"))
    if "elemental_affinity" in f and sp.damage_type == r.get("dragon_ancestor"):
        change["add"] = change.get("add", 0) + max(0, c.mod("cha"))
        change["type"] = sp.damage_type
    if tag == "overchannel":
        r["overchannel"] = 0
        change["max"] = True
        b.event("overchannel", f"{c.cid} overchannels {key}", creature=c.cid)
    if tag == "empowered":
        change["reroll"] = max(1, c.mod("cha"))
    if change and sp.damage_type:
        mods[f"damage {key} "] = change
    if "supreme_healing" in f and sp.heal_at_slot_level:
        mods[f"heal {key}"] = {"max": True}
    if "sculpt_spells" in f and wizard_evo and sp.area is not None and sp.save_ability:
        x["sculpt"] = 1 + level


def free_cast(c: Combatant, key: str, level: int) -> bool:
    """Spell Mastery (at will at its level) and Signature Spell (its own uses at 3rd level): the
    casting takes no slot."""
    r = c.resources
    if c.economy.extra.pop("free_spell", None) == key:   # Chains of Carceri
        return True
    if "mastery" not in r and "signature" not in r:
        return False
    if key in r.get("mastery", ()) and level == _spell(key).level:
        return True
    innate = r.get("innate", {})
    if key in r.get("signature", ()) and level == 3 and innate.get(key, 0) > 0:
        innate[key] -= 1
        return True
    return False


def extended(c: Combatant) -> bool:
    return c.economy.extra.get("metamagic") == "extended"


def potent(c: Combatant, sp) -> bool:
    """SRD Potent Cantrip: a cantrip's save success still takes half the damage."""
    return sp.level == 0 and "potent_cantrip" in c.features


def careful(b: BattleAPI, c: Combatant, t: Combatant) -> bool:
    """Sculpt Spells: an ally of the wizard (not the wizard) in its evocation area succeeds, and
    takes no damage (noted for :func:`sculpted`)."""
    x = _x(c)
    if not x.get("sculpt") or c.side != t.side or c is t:
        return False
    x["sculpt"] -= 1
    t.economy.extra["sculpted"] = (c.cid, b.round)
    b.event("save", f"{t.cid} is shielded by Sculpt Spells", creature=t.cid, success=True)
    return True


def sculpted(b: BattleAPI, t: Combatant, source: str | None) -> bool:
    """The sculpted ally's damage from that spell: none."""
    mark = t.economy.extra.pop("sculpted", None)
    return mark is not None and mark == (source, b.round)


def heal_bonus(b: BattleAPI, t: Combatant, amount: int, source: str) -> int:
    """Disciple of Life (+2 + level on a healing spell) and Blessed Healer (the cleric too)."""
    c = b.active
    if c is None or not c.is_pc or "disciple_of_life" not in c.features:
        return amount
    casting = _x(c).get("casting")
    if not casting or casting[0] != source or casting[1] < 1:
        return amount
    extra = 2 + casting[1]
    if "blessed_healer" in c.features and t is not c and _x(c).get("blessed_done") != casting:
        _x(c)["blessed_done"] = casting
        b.heal(c, extra, "Blessed Healer")
    return amount + extra


def save_adv(b: BattleAPI, t: Combatant, against: tuple) -> bool:
    """Countercharm: advantage against being charmed or frightened near a performing bard."""
    if not against or ("charmed" not in against and "frightened" not in against):
        return False
    return any("countercharm" in o.conditions and o.side == t.side and b.distance(o, t) <= 30
               for o in b.creatures.values() if o.conscious)


# ================================================================ attacks
def attack_modifiers(b: BattleAPI, c: Combatant, t: Combatant, adv: list, dis: list) -> None:
    """Feral Senses: an unseen target within 30 ft gives no disadvantage."""
    if "feral_senses" in c.features and b.distance(c, t) <= 30:
        dis[:] = [d for d in dis if d not in ("target invisible", "target hidden")]


def defend(b: BattleAPI, c: Combatant, t: Combatant, melee: bool, then: str, reasons: list) -> bool:
    """Called as an attack is rolled: Escape the Horde (an opportunity attack on the ranger) and
    Fighting Style: Protection (an ally's reaction). True: the attack has disadvantage."""
    if then == "move" and "escape_the_horde" in t.features:
        reasons.append("escape the horde")
        return True
    for p in b.creatures.values():
        if "protection" in p.features and p is not t and p.side == t.side and p.side != c.side \
                and p.economy.reaction and not p.incapacitated and b.distance(p, t) <= 5 \
                and "blinded" not in p.conditions and "invisible" not in c.conditions:
            p.economy.reaction = False
            reasons.append(f"protected by {p.cid}")
            b.event("reaction", f"{p.cid} protects {t.cid}: the attack has disadvantage", creature=p.cid)
            return True
    return False


def attack_bonus(b: BattleAPI, c: Combatant, t: Combatant, a) -> int:
    """Horde Breaker notes the first target; Multiattack Defense: -4 to hit (its +4 AC) for a
    creature that already hit the ranger this turn."""
    if "horde_breaker" in c.features and not a.spell and b.active is c:
        x = _x(c)
        if x.get("source") != "horde":
            x.setdefault("horde_from", t.cid)
    if "multiattack_defense" in t.features and t.resources.get("mad") == (c.cid, b.round, b.turn_index):
        return -4
    return 0


def after_hit(b: BattleAPI, c: Combatant, t: Combatant) -> None:
    if "multiattack_defense" in t.features:
        t.resources["mad"] = (c.cid, b.round, b.turn_index)   # this creature's hit, this turn


def damage_parts(b: BattleAPI, c: Combatant, t: Combatant, a, parts: list) -> None:
    """Lifedrinker (necrotic on the pact weapon), Foe Slayer (once a turn on a favored enemy)."""
    if "lifedrinker" in c.features and a.key == "pact-blade":
        parts.append(DamagePart(str(max(1, c.mod("cha"))), "necrotic"))
    if "foe_slayer" in c.features and not a.spell and t.creature_type in c.resources.get("favored_enemies", ()) \
            and not _x(c).get("foe_slain"):
        _x(c)["foe_slain"] = True
        parts.append(DamagePart(str(max(0, c.mod("wis"))), parts[0].type if parts else "slashing"))


def extra_attacks(c: Combatant) -> bool:
    """Thirsting Blade: the pact weapon attacks twice in an Attack action."""
    return "thirsting_blade" in c.features


def spell_range(c: Combatant, key: str, rng: int) -> int:
    """Eldritch Spear: Eldritch Blast at 300 ft; Distant Spell: twice the range."""
    if c.kind != "pc":
        return rng
    if key == "eldritch-blast" and "eldritch_spear" in c.features:
        rng = 300
    return rng * range_factor(c)


# ================================================================ falls, checks, rests
def slow_fall(b: BattleAPI, c: Combatant, amount: int) -> int:
    """SRD Slow Fall: a reaction that reduces falling damage by 5 x monk level."""
    if "slow_fall" not in c.features or not c.economy.reaction or c.incapacitated:
        return amount
    c.economy.reaction = False
    cut = 5 * _lvl(c, "monk")
    b.event("slow_fall", f"{c.cid} slows its fall (-{cut} damage)", creature=c.cid)
    return max(0, amount - cut)


def peerless(b: BattleAPI, c: Combatant, total: int, need: int) -> int:
    """SRD Peerless Skill (College of Lore, 14): a Bardic Inspiration die added to the bard's own
    ability check, spent only when the die can still reach ``need`` (as for an ally's inspiration)."""
    if not c.is_pc or total >= need or "peerless_skill" not in c.features or c.resources.get("bardic_inspiration", 0) <= 0:
        return total
    die = c.resources["inspiration_die"]
    if total + int(die.split("d")[1]) < need:
        return total
    c.resources["bardic_inspiration"] -= 1
    total += b.roller.roll(die, what=f"peerless skill {c.cid}")
    b.event("inspiration", f"{c.cid} uses Peerless Skill on its check ({total})", creature=c.cid)
    return total


def stealth_advantage(c: Combatant) -> bool:
    """SRD Supreme Sneak: advantage on a Stealth check after moving no more than half the speed."""
    return c.is_pc and "supreme_sneak" in c.features and c.economy.moved <= c.speed // 2


def check_total(c: Combatant, ability: str, natural: int, total: int, trained: bool) -> int:
    """An ability check's total: Reliable Talent (a trained check's d20 below 10 counts as 10) and
    Indomitable Might (a Str check totals at least the Str score)."""
    if not c.is_pc or not c.features:
        return total
    if "reliable_talent" in c.features and trained and natural < 10:
        total += 10 - natural
    if "indomitable_might" in c.features and ability == "str":
        total = max(total, c.abilities["str"])
    return total


def song_of_rest(party) -> list:
    """SRD Song of Rest: a conscious bard's party members who spent hit dice in the short rest
    regain the song die more. Returns (cid, amount) pairs; called by the Day track."""
    party = list(party)
    spent = [p for p in party if p.resources.pop("spent_hit_dice", 0) and not p.dead]
    bards = [p for p in party if "song_of_rest" in p.features and p.conscious]
    if not bards:
        return []
    die = max((p.resources["song_of_rest"] for p in bards), key=lambda d: int(d.split("d")[1]))
    return [(p.cid, die) for p in spent]


def short_rest(pc: Combatant) -> None:
    """Signature Spell's uses come back on a short rest."""
    r = pc.resources
    for key in r.get("signature", ()):
        r["innate"][key] = 1
