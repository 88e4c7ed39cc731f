"""Class features in combat: the options they add and the rules they change, called by the engine.

:class:`~.engine.Battle` calls the hooks below at fixed points (the action menu, an attack's roll and
damage, a save, damage taken, the start and end of a turn); each hook looks only at the features
listed in ``Combatant.features`` (set by :mod:`.builders.pcs` from the class tables) and returns quickly for
everyone else. Resources live in ``Combatant.resources`` (uses left), effects that last in
``Combatant.conditions`` (``raging``, ``reckless``, ``sacred_weapon``, ``inspired``), and what lasts
one turn in ``Economy.extra``.

Choices are decisions of the game: Rage, Reckless Attack, Lay on Hands, Sacred Weapon, Bardic
Inspiration, Flurry of Blows, Patient Defense, Step of the Wind, Wholeness of Body, Stillness of Mind and
Quickened Spell are menu options, and so are Empty Body, ending Quivering Palm, Armor of Shadows,
Fiendish Vigor and Preserve Life (it shares its pool worst-off first: a simplification of the
cleric's choice); Divine Smite (with its slot level), Stunning Strike, Quivering Palm and the Open
Hand Technique are a ``reaction`` decision of the attacker after a melee hit (one rider per hit);
Deflect Missiles is the target's reaction. Rules without a choice apply by themselves: the rage
damage bonus and resistances, Aura of Protection, Evasion, Danger Sense, Indomitable and Diamond
Soul (spent on the first failed save they can turn), Bardic Inspiration (spent by its holder on the
first missed attack or failed save the die can still turn), Stroke of Luck, Colossus Slayer,
Brutal Critical, Improved Divine Smite, Agonizing Blast, Dark One's Blessing, Relentless Rage,
Survivor, Elusive, Feral Instinct, Improved/Superior Critical, Great Weapon Fighting (:func:`roll_damage`),
Repelling Blast (always the full 10 ft), Steel Will. Fighting styles and class options (Hunter's
choices, invocations) come from :func:`.builders.pcs.build_pc`'s ``style``/``choices`` loadout. The subclass and
late-level features added since (Sculpt Spells to Foe Slayer) live in :mod:`.features_more`, called
from the hooks here with one-line calls.

The coverage table of class features and their probes live with the other probes, in
:mod:`.verification.feature_probes`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import content, features_more
from .dice import parse
from .grid import size_squares
from .model.options import Opt
from .model.factories import build_monster
from .rules import hooks
from .rules.core_spells import MULTI
from .state import DamagePart, ability_mod

if TYPE_CHECKING:   # pragma: no cover
    from .rules.api import BattleAPI
    from .state import AttackProfile, Combatant

RAGE_RESIST = ("bludgeoning", "piercing", "slashing")
REACTIONS = ("rider", "deflect_missiles", "cutting_words")
BONUS_ATTACKS = ("martial_arts", "flurry", "frenzy", "horde")   # (Horde Breaker: features_more)
HEAVY_ARMOR = ("ring-mail", "chain-mail", "splint-armor", "plate-armor")
# SRD protection from evil and good (Purity of Spirit): the creature types it wards against
EVIL_TYPES = ("aberration", "celestial", "elemental", "fey", "fiend", "undead")


def _opt(label, kind, data=()):
    return Opt(label, kind, tuple(data))


def _extra(c: Combatant) -> dict:
    return c.economy.extra


def _uses_str(c: Combatant, a: AttackProfile) -> bool:
    """A melee weapon attack made with Strength (the finesse ones: when Str is the better)."""
    return a.melee and not a.spell and (not a.finesse or c.mod("str") >= c.mod("dex"))


def _weapon(a: AttackProfile) -> bool:
    return not a.spell or a.key == "unarmed-strike"


# ================================================================ the action menu
def options(b: BattleAPI, c: Combatant) -> list:
    """Feature options of the turn menu (before End turn)."""
    f = c.features
    if not f or not c.is_pc:
        return []
    e, r, x = c.economy, c.resources, _extra(c)
    out = []
    foes_near = [o for o in b.enemies_of(c) if o.conscious]
    if "rage" in f and e.bonus and "raging" not in c.conditions and r.get("rage", 0) > 0 \
            and c.concentration is None:
        left = f"{r['rage']} left" if r["rage"] < 99 else "unlimited"
        out.append(_opt(f"Rage (bonus action: +{r['rage_damage']} melee Str damage, resistance to "
                        f"bludgeoning/piercing/slashing, advantage on Str saves; {left})", "feature", ("rage",)))
        if "frenzy" in f:
            out.append(_opt("Rage with Frenzy (as Rage, and a bonus-action melee attack on each later turn of "
                            "it; one level of exhaustion when it ends)", "feature", ("rage", "frenzy")))
    if "intimidating_presence" in f and e.actions > 0 and _intimidate_targets(b, c):
        out.append(_opt(f"Intimidating Presence (action: a creature within 30 ft, WIS save DC "
                        f"{8 + c.prof + c.mod('cha')} or frightened until the end of your next turn)", "feature",
                        ("intimidate",)))
    if "reckless_attack" in f and e.actions > 0 and e.attacks_left == 0 and not x.get("attacked") \
            and "reckless" not in c.conditions and any(a.melee for a in c.attacks):
        out.append(_opt("Reckless Attack (advantage on melee Str attacks this turn; attacks against you have "
                        "advantage until your next turn)", "feature", ("reckless",)))
    if "lay_on_hands" in f and e.actions > 0 and r.get("lay_on_hands", 0) > 0 and _lay_targets(b, c):
        out.append(_opt(f"Lay on Hands (action: heal from a pool of {r['lay_on_hands']} HP, touch)", "feature",
                        ("lay_on_hands",)))
    if "holy_nimbus" in f and e.actions > 0 and r.get("holy_nimbus", 0) > 0:
        # (its advantage on saves against fiends' and undead spells is not modelled: a save here
        # does not know who cast the spell)
        out.append(_opt("Holy Nimbus (action, once a day: 10 radiant damage to each foe starting its turn within "
                        "30 ft, 1 minute)", "feature", ("holy_nimbus",)))
    if "sacred_weapon" in f and e.actions > 0 and r.get("channel_divinity", 0) > 0 \
            and "sacred_weapon" not in c.conditions:
        out.append(_opt(f"Channel Divinity: Sacred Weapon (action: +{max(1, c.mod('cha'))} to weapon attack "
                        f"rolls for 1 minute)", "feature", ("sacred_weapon",)))
    if "bardic_inspiration" in f and e.bonus and r.get("bardic_inspiration", 0) > 0 and _inspire_targets(b, c):
        out.append(_opt(f"Bardic Inspiration (bonus action: an ally gains a {r['inspiration_die']}; "
                        f"{r['bardic_inspiration']} left)", "feature", ("inspire",)))
    if "martial_arts" in f and e.bonus and x.get("monk_attack") and not x.get("flurry_left"):
        ua = c.attack("unarmed-strike")
        if b.targets_for_attack(c, ua):
            out.append(_opt(f"Martial Arts: unarmed strike (bonus action, {ua.short()})", "attack",
                            ("unarmed-strike", "martial_arts")))
            if "flurry_of_blows" in f and r.get("ki", 0) >= 1:
                out.append(_opt(f"Flurry of Blows (bonus action, 1 ki: two unarmed strikes, {ua.short()}; "
                                f"{r['ki']} ki left)", "attack", ("unarmed-strike", "flurry")))
    if x.get("flurry_left"):
        ua = c.attack("unarmed-strike")
        if b.targets_for_attack(c, ua):
            out.append(_opt(f"Flurry of Blows: the second unarmed strike ({ua.short()})", "attack",
                            ("unarmed-strike", "flurry")))
    if e.bonus and r.get("ki", 0) >= 1:
        if "patient_defense" in f:
            out.append(_opt("Patient Defense (bonus action, 1 ki: Dodge)", "feature", ("patient_defense",)))
        if "step_of_the_wind" in f:
            out.append(_opt("Step of the Wind: Dash (bonus action, 1 ki)", "feature", ("step_dash",)))
            out.append(_opt("Step of the Wind: Disengage (bonus action, 1 ki)", "feature", ("step_disengage",)))
    if "wholeness_of_body" in f and e.actions > 0 and r.get("wholeness_of_body", 0) > 0 and c.hp < c.max_hp:
        out.append(_opt(f"Wholeness of Body (action: regain {3 * _class_level(c, 'monk')} HP, once a day)",
                        "feature", ("wholeness",)))
    if "stillness_of_mind" in f and e.actions > 0 and ("charmed" in c.conditions or "frightened" in c.conditions):
        out.append(_opt("Stillness of Mind (action: end being charmed or frightened)", "feature", ("stillness",)))
    if "frenzied" in c.conditions and e.bonus and c.conditions["frenzied"]["round"] < b.round:
        for a in c.attacks:
            if a.melee and b.targets_for_attack(c, a):
                out.append(_opt(f"Frenzy: attack with {a.name} (bonus action, {a.short()})", "attack",
                                (a.key, "frenzy")))
    if "wild_shape" in f and "wild_shape_saved" not in r and e.actions > 0 and r.get("wild_shape", 0) > 0:
        out.append(_opt(f"Wild Shape (action: become a beast of CR {r['wild_shape_cr']} or lower; "
                        f"{r['wild_shape']} use(s) left)", "feature", ("wild_shape",)))
    if "wild_shape_saved" in r and e.bonus:
        out.append(_opt("Revert to your normal form (bonus action)", "feature", ("revert",)))
    if foes_near is not None and ("quickened_spell" in f) and r.get("sorcery_points", 0) >= 2 \
            and e.bonus and not e.levelled_action_spell and not e.bonus_spell:
        out.extend(_quickened(b, c))
    if "twinned_spell" in f and e.actions > 0:
        out.extend(_twinned(b, c))
    if e.actions > 0:
        out.extend(_wave2_options(b, c))
    if "heightened_spell" in f and r.get("sorcery_points", 0) >= 3 and e.actions > 0:
        out.extend(_heightened(b, c))
    if "careful_spell" in f and r.get("sorcery_points", 0) >= 1 and e.actions > 0:
        out.extend(_careful(b, c))
    out.extend(features_more.options(b, c))   # Flexible Casting, Dragon Wings, Overchannel, ...
    return out


def _wave2_options(b: BattleAPI, c: Combatant) -> list:
    """Action options: Empty Body, ending Quivering Palm, Armor of Shadows, Fiendish Vigor, Preserve Life."""
    f, r, out = c.features, c.resources, []
    if "empty_body" in f and r.get("ki", 0) >= 4 and "empty_body" not in c.conditions:
        out.append(_opt("Empty Body (action, 4 ki: invisible and resistance to all damage but force for 1 minute)",
                        "feature", ("empty_body",)))
    palm = b.creatures.get(r.get("quivering_palm_on", ""))
    if "quivering_palm" in f and palm is not None and not palm.dead and palm.hp > 0:
        out.append(_opt(f"Quivering Palm: end the vibrations in {palm.cid} (action: CON save DC {r['ki_dc']} or "
                        f"drop to 0 HP; 10d10 necrotic on a success)", "feature", ("palm_end",)))
    if "armor_of_shadows" in f and not c.armored and "mage_armor" not in c.conditions:
        out.append(_opt("Armor of Shadows (action: Mage Armor on yourself, no slot: AC 13 + Dex)", "feature",
                        ("armor_of_shadows",)))
    if "fiendish_vigor" in f and c.temp_hp < 8:
        out.append(_opt("Fiendish Vigor (action: False Life at 1st level, no slot: 1d4+4 temporary HP)", "feature",
                        ("fiendish_vigor",)))
    if "preserve_life" in f and r.get("channel_divinity", 0) > 0 and _preserve_targets(b, c):
        out.append(_opt(f"Channel Divinity: Preserve Life (action: {5 * _class_level(c, 'cleric')} HP shared among "
                        f"creatures within 30 ft below half their HP, up to half)", "feature", ("preserve_life",)))
    return out


def _preserve_targets(b: BattleAPI, c: Combatant) -> list:
    return [o for o in b.creatures.values() if o.side == c.side and not o.dead and o.hp < o.max_hp // 2
            and o.creature_type not in ("undead", "construct") and (o is c or b.distance(c, o) <= 30)]


NOT_TWINNABLE = ("magic-missile", "scorching-ray", "eldritch-blast")   # several darts, rays or beams


def _twinned(b: BattleAPI, c: Combatant) -> list:
    """SRD Twinned Spell: a spell that targets only one creature (and not the caster alone) gets a
    second target; sorcery points equal to the spell's level (1 for a cantrip). Here: the action
    spells with an attack roll or a single save, without concentration."""
    out = []
    slots = c.resources.get("slots", ())
    for key in c.spells:
        sp = content.spell(key)
        if key in NOT_TWINNABLE or sp.area is not None or sp.concentration or sp.casting_time != "action" \
                or not (sp.attack_type or sp.save_ability) or sp.range_kind == "self" or key in _multi_keys():
            continue
        if c.economy.bonus_spell and sp.level > 0:
            continue
        levels = [0] if sp.level == 0 else [lv for lv in range(sp.level, len(slots) + 1) if slots[lv - 1] > 0]
        for lv in levels:
            cost = max(1, lv)
            if c.resources.get("sorcery_points", 0) >= cost and len(b.spell_targets(c, key)) >= 2:
                at = f" at level {lv}" if lv else ""
                out.append(_opt(f"Twinned Spell ({cost} sorcery point{'s' if cost > 1 else ''}): {sp.name}{at} "
                                f"at two creatures", "feature", ("twin", key, lv)))
    return out


def _multi_keys() -> tuple:
    return tuple(MULTI)


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
            out.append(_opt(f"Quickened Spell (2 sorcery points): {o.label.replace('Cast ', 'cast ', 1)} "
                            f"as a bonus action", "spell", (*o.data, "quickened")))
    return out


def _heightened(b: BattleAPI, c: Combatant) -> list:
    """SRD Heightened Spell (3 sorcery points): one target has disadvantage on its first save
    against the spell. Offered for the action spells that call for a save."""
    return [_opt(f"Heightened Spell (3 sorcery points): {o.label.replace('Cast ', 'cast ', 1)}; the first foe "
                 f"to save has disadvantage", "spell", (*o.data[:2], "heightened"))
            for o in b.spell_options(c)
            if len(o.data) == 2 and content.spell(o.data[0]).save_ability
            and content.spell(o.data[0]).casting_time == "action"]


def before_spell(b: BattleAPI, c: Combatant, data: tuple) -> None:
    """A spell option was chosen: remember a metamagic for :func:`casting_as_bonus` (Quickened) or
    :func:`save_disadvantage` (Heightened, paid now)."""
    features_more.before_spell(b, c, data)   # Sculpt Spells, Overchannel, Empowered Evocation, ...
    if len(data) > 2 and data[2] == "quickened":
        _extra(c)["quickened"] = True
    if len(data) > 2 and data[2] == "heightened":
        c.resources["sorcery_points"] -= 3
        _extra(c)["heightened"] = True
        b.event("metamagic", f"{c.cid} heightens {data[0]}", creature=c.cid)
    if len(data) > 2 and data[2] == "careful":
        c.resources["sorcery_points"] -= 1
        _extra(c)["careful"] = max(1, c.mod("cha"))
        b.event("metamagic", f"{c.cid} casts {data[0]} carefully", creature=c.cid)


def _careful(b: BattleAPI, c: Combatant) -> list:
    """SRD Careful Spell (1 sorcery point): up to Cha modifier (at least 1) creatures of the caster's
    side automatically succeed on their saves against the spell. Offered for the action spells with
    an area and a save."""
    out = []
    for o in b.spell_options(c):
        sp = content.spell(o.data[0])
        if len(o.data) == 2 and sp.save_ability and sp.area is not None and sp.casting_time == "action":
            out.append(_opt(f"Careful Spell (1 sorcery point): {o.label.replace('Cast ', 'cast ', 1)}; up to "
                            f"{max(1, c.mod('cha'))} allies succeed on their saves", "spell", (*o.data[:2], "careful")))
    return out


def careful_success(b: BattleAPI, t: Combatant) -> bool:
    """A save of the caster's own side against its Careful spell (the first Cha-modifier many)."""
    c = b.active
    if c is not None and "sculpt" in c.economy.extra and features_more.careful(b, c, t):   # Sculpt Spells
        return True
    if c is None or c.side != t.side or c is t or not _extra(c).get("careful"):
        return False
    _extra(c)["careful"] -= 1
    b.event("save", f"{t.cid} succeeds automatically (Careful Spell)", creature=t.cid, success=True)
    return True


def save_disadvantage(b: BattleAPI, t: Combatant) -> bool:
    """The first save a foe makes against a Heightened spell of the creature whose turn it is."""
    c = b.active
    if c is None or c.side == t.side or not _extra(c).get("heightened"):
        return False
    del _extra(c)["heightened"]
    return True


def casting_as_bonus(c: Combatant) -> bool:
    """The spell being paid for is Quickened: a bonus action, 2 sorcery points."""
    if _extra(c).pop("quickened", False):
        c.resources["sorcery_points"] -= 2
        return True
    return False


def _class_level(c: Combatant, cls: str) -> int:
    return c.resources.get("class_levels", {}).get(cls, c.level if c.pc_class == cls else 0)


def _lay_targets(b: BattleAPI, c: Combatant) -> list:
    return [o for o in b.creatures.values() if o.side == c.side and not o.dead and o.hp < o.max_hp
            and o.creature_type not in ("undead", "construct") and (o is c or b.distance(c, o) <= 5)]


def _intimidate_targets(b: BattleAPI, c: Combatant) -> list:
    return [o for o in b.enemies_of(c) if o.conscious and b.distance(c, o) <= 30 and "frightened" not in o.conditions
            and "frightened" not in o.condition_immunities and f"intimidate:{c.cid}" not in o.resources]


def _inspire_targets(b: BattleAPI, c: Combatant) -> list:
    return [o for o in b.allies_of(c) if o.conscious and "inspired" not in o.conditions and b.distance(c, o) <= 60]


def apply(b: BattleAPI, c: Combatant, opt) -> None:
    """Carry out a ``feature`` option of the menu."""
    key = opt.data[0]
    e, r, x = c.economy, c.resources, _extra(c)
    if key in features_more.KEYS:
        features_more.apply(b, c, opt)
        return
    if key == "rage":
        e.bonus = False
        r["rage"] -= 1 if r["rage"] < 99 else 0
        c.conditions["raging"] = {"ends": b.round + 10, "kept": False}   # kept: attacked or hurt
        if len(opt.data) > 1:
            c.conditions["frenzied"] = {"round": b.round}
        b.event("rage", f"{c.cid} rages" + (" in a frenzy" if len(opt.data) > 1 else ""), creature=c.cid)
    elif key == "reckless":
        c.conditions["reckless"] = {"round": b.round}
        b.event("reckless", f"{c.cid} attacks recklessly", creature=c.cid)
    elif key in ("lay_on_hands", "inspire", "wild_shape", "intimidate"):
        b.pending = {"kind": "target", "actor": c.cid, "use": ("feature", key)}
        return
    elif key == "twin":   # the first of the two targets
        b.pending = {"kind": "target", "actor": c.cid, "use": ("feature", "twin", opt.data[1], opt.data[2])}
        return
    elif key == "sacred_weapon":
        e.actions -= 1
        r["channel_divinity"] -= 1
        c.conditions["sacred_weapon"] = {"until_round": b.round + 10, "bonus": max(1, c.mod("cha"))}
        b.event("sacred_weapon", f"{c.cid} channels divinity into its weapon", creature=c.cid)
    elif key == "holy_nimbus":
        e.actions -= 1
        r["holy_nimbus"] = 0
        c.conditions["holy_nimbus"] = {"until_round": b.round + 10}
        b.event("holy_nimbus", f"{c.cid} shines with a holy nimbus", creature=c.cid)
    elif key == "patient_defense":
        e.bonus = False
        r["ki"] -= 1
        c.dodging = True
        b.event("dodge", f"{c.cid} uses Patient Defense (Dodge)", creature=c.cid)
    elif key in ("step_dash", "step_disengage"):
        e.bonus = False
        r["ki"] -= 1
        if key == "step_dash":
            e.movement += b.speed(c)
        else:
            e.disengaged = True
        b.event("step_of_the_wind", f"{c.cid} uses Step of the Wind ({key[5:]})", creature=c.cid)
    elif key == "wholeness":
        e.actions -= 1
        r["wholeness_of_body"] = 0
        b.heal(c, 3 * _class_level(c, "monk"), "Wholeness of Body")
    elif key == "wild_shape_into":
        e.actions -= 1
        take_wild_shape(b, c, opt.data[1])
    elif key == "revert":
        e.bonus = False
        revert(b, c, 0)
    elif key in ("empty_body", "palm_end", "armor_of_shadows", "fiendish_vigor", "preserve_life"):
        e.actions -= 1
        _apply_wave2(b, c, key)
    elif key == "stillness":
        e.actions -= 1
        for k in ("charmed", "frightened"):
            if c.conditions.pop(k, None) is not None:
                b.event("condition_end", f"{c.cid} is no longer {k}", creature=c.cid, condition=k)
    x["used_" + key] = True
    b.back_to_menu(c)


def _apply_wave2(b: BattleAPI, c: Combatant, key: str) -> None:
    r = c.resources
    if key == "empty_body":   # (its astral projection use is out of a battle's scope)
        r["ki"] -= 4
        others = ("acid", "bludgeoning", "cold", "fire", "lightning", "necrotic", "piercing", "poison",
                  "psychic", "radiant", "slashing", "thunder")
        c.conditions["invisible"] = {"by": c.cid, "until_round": b.round + 10}
        c.conditions["empty_body"] = {"until_round": b.round + 10, "resist": others}
        b.event("empty_body", f"{c.cid} uses Empty Body", creature=c.cid)
    elif key == "palm_end":
        t = b.creatures[r.pop("quivering_palm_on")]
        b.event("quivering_palm", f"{c.cid} ends the vibrations in {t.cid}", creature=c.cid, target=t.cid)
        if b.saving_throw(t, "con", r["ki_dc"]):
            b.damage(t, b.roller.roll_damage("10d10", what=f"quivering palm {t.cid}"), "necrotic", magical=True,
                     source=c.cid)
        else:   # reduced to 0 hit points (not damage: no resistance applies)
            t.temp_hp, t.hp = 0, 0
            b.event("down", f"{t.cid} is reduced to 0 HP by Quivering Palm", creature=t.cid)
            if t.is_pc:
                b.fall_unconscious(t)
            elif not t.resources.get("regeneration", {}).get("at_zero"):
                b.die(t, "quivering palm")
    elif key == "armor_of_shadows":
        c.conditions["mage_armor"] = {"by": c.cid}
        b.event("armor_of_shadows", f"{c.cid} wraps itself in Armor of Shadows", creature=c.cid)
    elif key == "fiendish_vigor":   # temporary hit points do not stack: the higher stands
        gain = b.roller.roll("1d4+4", what=f"fiendish vigor {c.cid}")
        c.temp_hp = max(c.temp_hp, gain)
        b.event("temp_hp", f"{c.cid} has {c.temp_hp} temporary HP (Fiendish Vigor)", creature=c.cid)
    elif key == "preserve_life":
        # SRD: the cleric divides the pool; here the worst off first (by fraction of HP), each up to half
        r["channel_divinity"] -= 1
        pool = 5 * _class_level(c, "cleric")
        for t in sorted(_preserve_targets(b, c), key=lambda o: (o.hp / o.max_hp, o.cid)):
            give = min(pool, t.max_hp // 2 - t.hp)
            if give > 0:
                pool -= give
                b.heal(t, give, "Preserve Life")


def target_options(b: BattleAPI, c: Combatant, use: tuple) -> list:
    out = []
    if use[1] == "lay_on_hands":
        pool = c.resources["lay_on_hands"]
        for t in _lay_targets(b, c):
            out.append(_opt(f"Lay on Hands on {t.cid}: heal {min(pool, t.max_hp - t.hp)} "
                            f"[{t.hp}/{t.max_hp} HP]", "target", (t.cid,)))
    elif use[1] == "wild_shape":
        for key, cr in beast_forms(c.resources["wild_shape_cr"], _class_level(c, "druid")):
            m = _monster_spec(key)
            if size_squares(m.size) > c.squares and not b.map.fits(c.pos[0], c.pos[1], size_squares(m.size)):
                continue   # a bigger form must fit the map where the druid stands (not into a wall)
            out.append(_opt(f"Wild Shape into: {m.name} (CR {cr}, {m.hp} HP, AC {m.ac}, speed {m.speed.walk} ft)",
                            "feature", ("wild_shape_into", key)))
    elif use[1] in ("twin", "twin2"):
        for t in b.spell_targets(c, use[2]):
            if use[1] == "twin2" and t.cid == use[4]:
                continue
            which = "first" if use[1] == "twin" else "second"
            out.append(_opt(f"Twinned {use[2]}: {which} target {t.cid} [{t.hp}/{t.max_hp} HP, "
                            f"{b.distance(c, t)} ft]", "target", (t.cid,)))
    elif use[1] == "intimidate":
        for t in _intimidate_targets(b, c):
            out.append(_opt(f"Frighten {t.cid} [WIS save {t.saves['wis']:+d}, {b.distance(c, t)} ft]", "target",
                            (t.cid,)))
    elif use[1] in ("cleansing_touch", "volley", "carceri", "chain"):
        out = features_more.target_options(b, c, use)
    elif use[1] == "inspire":
        for t in _inspire_targets(b, c):
            out.append(_opt(f"Inspire {t.cid} ({c.resources['inspiration_die']}) [{t.hp}/{t.max_hp} HP, "
                            f"{b.distance(c, t)} ft]", "target", (t.cid,)))
    return out


def resolve_target(b: BattleAPI, c: Combatant, use: tuple, t: Combatant) -> None:
    r = c.resources
    if use[1] in ("cleansing_touch", "volley", "carceri", "chain"):
        features_more.resolve_target(b, c, use, t)
        return
    if use[1] == "twin":
        b.pending = {"kind": "target", "actor": c.cid, "use": ("feature", "twin2", use[2], use[3], t.cid)}
        return
    if use[1] == "twin2":
        _cast_twinned(b, c, use[2], use[3], b.creatures[use[4]], t)
        return
    if use[1] == "lay_on_hands":   # SRD: as much of the pool as the target is missing
        c.economy.actions -= 1
        amount = min(r["lay_on_hands"], t.max_hp - t.hp)
        r["lay_on_hands"] -= amount
        b.heal(t, amount, "Lay on Hands")
    elif use[1] == "intimidate":   # SRD: a success makes it immune for 24 hours (this battle)
        c.economy.actions -= 1
        if b.saving_throw(t, "wis", 8 + c.prof + c.mod("cha")):
            t.resources[f"intimidate:{c.cid}"] = 1
        else:
            t.conditions["frightened"] = {"by": c.cid, "until": "end_of_source_next_turn", "turn_of": c.cid,
                                          "round": b.round}
            b.event("condition", f"{t.cid} is frightened of {c.cid}", creature=t.cid, condition="frightened")
    elif use[1] == "inspire":
        c.economy.bonus = False
        r["bardic_inspiration"] -= 1
        t.conditions["inspired"] = {"die": r["inspiration_die"], "by": c.cid}
        b.event("inspire", f"{c.cid} inspires {t.cid} ({r['inspiration_die']})", creature=c.cid, target=t.cid)
    b.back_to_menu(c)


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


def begin_attack(b: BattleAPI, c: Combatant, a: AttackProfile, source: str) -> None:
    """An attack option was chosen (before the roll): pay a bonus attack, note what it enables."""
    e, x = c.economy, _extra(c)
    x["source"] = source
    if source == "flurry":
        if not x.get("flurry_left"):
            e.bonus = False
            c.resources["ki"] -= 1
            x["flurry_left"] = 2
        x["flurry_left"] -= 1
    elif source in ("martial_arts", "frenzy"):
        e.bonus = False
    elif source == "horde":   # Horde Breaker: once a turn, no action spent
        x["horde_used"] = True
    elif source == "attack" and "martial_arts" in c.features and \
            (a.key in ("unarmed-strike", "shortsword") or (a.melee and a.finesse and a.key != "rapier")):
        x["monk_attack"] = True   # the Attack action with a monk weapon: the bonus unarmed strike


# ================================================================ attacks
def attack_modifiers(b: BattleAPI, c: Combatant, t: Combatant, melee: bool, a, adv: list, dis: list) -> None:
    if a is not None and "reckless" in c.conditions and c.conditions["reckless"]["round"] == b.round \
            and _uses_str(c, a) and melee:
        adv.append("reckless")
    if "reckless" in t.conditions:
        adv.append("target reckless")
    if "purity_of_spirit" in t.features and c.creature_type in EVIL_TYPES:   # protection from evil and good
        dis.append("purity of spirit")
    if "elusive" in t.features and not t.incapacitated:   # SRD Elusive: no advantage against it
        adv.clear()
    if dis and c.is_pc:
        features_more.attack_modifiers(b, c, t, adv, dis)   # Feral Senses


def attack_bonus(b: BattleAPI, c: Combatant, t: Combatant, a: AttackProfile) -> int:
    """To-hit bonus from features (Sacred Weapon); also notes that c attacked (Rage)."""
    _extra(c)["attacked"] = True
    if "raging" in c.conditions:
        c.conditions["raging"]["kept"] = True
    sw = c.conditions.get("sacred_weapon")
    more = features_more.attack_bonus(b, c, t, a) if (c.is_pc or t.is_pc) else 0   # Multiattack Defense
    return (sw["bonus"] if sw and _weapon(a) and not a.spell else 0) + more


def crit_min(c: Combatant) -> int:
    return c.resources.get("crit_min", 20) if c.is_pc else 20


def rescue_attack(b: BattleAPI, c: Combatant, total: int, ac: int, natural: int) -> tuple[int, bool]:
    """A miss the attacker can still turn: a Bardic Inspiration die, then Stroke of Luck (a hit)."""
    insp = c.conditions.get("inspired")
    if insp and natural != 1 and total + int(insp["die"].split("d")[1]) >= ac:
        del c.conditions["inspired"]
        total += b.roller.roll(insp["die"], what=f"bardic inspiration {c.cid}")
        b.event("inspiration", f"{c.cid} uses Bardic Inspiration on its attack ({total})", creature=c.cid)
        if total >= ac:
            return total, True
    if "stroke_of_luck" in c.features and c.resources.get("stroke_of_luck", 0) > 0:
        c.resources["stroke_of_luck"] = 0
        b.event("stroke_of_luck", f"{c.cid} uses Stroke of Luck: the miss becomes a hit", creature=c.cid)
        return total, True
    return total, False


def rider_options(b: BattleAPI, c: Combatant, t: Combatant, st: dict) -> list:
    """After a melee weapon hit: Divine Smite at each slot level, Stunning Strike, Open Hand."""
    a = st["attack"]
    if not c.is_pc or not st["melee"] or (a.spell and a.key != "unarmed-strike"):
        return []
    out = []
    if "divine_smite" in c.features:
        slots = c.resources.get("slots", ())
        for lv, n in enumerate(slots, 1):
            if n > 0:
                out.append(_opt(f"Divine Smite with a level-{lv} slot (+{_smite_dice(lv, t)}d8 radiant"
                                f"{', doubled: critical' if st['crit'] else ''})", "reaction", (True, ("smite", lv))))
    if "stunning_strike" in c.features and c.resources.get("ki", 0) >= 1 and "stunned" not in t.conditions:
        out.append(_opt(f"Stunning Strike (1 ki: CON save DC {c.resources['ki_dc']} or stunned until the end of "
                        f"your next turn)", "reaction", (True, ("stun",))))
    if "quivering_palm" in c.features and a.key == "unarmed-strike" and c.resources.get("ki", 0) >= 3 \
            and c.resources.get("quivering_palm_on") != t.cid:
        out.append(_opt("Quivering Palm (3 ki: start lethal vibrations; end them later with an action)", "reaction",
                        (True, ("palm",))))
    if "open_hand_technique" in c.features and _extra(c).get("source") == "flurry":
        dc = c.resources["ki_dc"]
        out.append(_opt(f"Open Hand: knock prone (DEX save DC {dc})", "reaction", (True, ("prone",))))
        out.append(_opt(f"Open Hand: push 15 ft (STR save DC {dc})", "reaction", (True, ("push",))))
        out.append(_opt("Open Hand: no reactions until the end of your next turn", "reaction",
                        (True, ("no_reactions",))))
    if out:
        out.append(_opt("No rider on this hit", "reaction", (False, None)))
    return out


def _smite_dice(level: int, t: Combatant) -> int:
    """SRD: 2d8 with a 1st-level slot, +1d8 per level above, at most 5d8; +1d8 against undead or fiends."""
    return min(5, 1 + level) + (1 if t.creature_type in ("undead", "fiend") else 0)


def reaction_options(b: BattleAPI, c: Combatant, p: dict) -> list:
    st = b.attack_state
    if p["reaction"] == "rider":
        return rider_options(b, c, b.creatures[st["target"]], st)
    if p["reaction"] == "cutting_words":
        die = c.resources["inspiration_die"]
        return [_opt(f"Cutting Words (reaction, one Bardic Inspiration: subtract {die} from {st['attacker']}'s "
                     f"attack on {st['target']}: {st['total']} vs AC {st['ac']})", "reaction", (True, ("cut",))),
                _opt("Let the attack stand", "reaction", (False, None))]
    lv = _class_level(c, "monk")
    return [_opt(f"Deflect Missiles (reduce the damage of {st['attacker']}'s {st['attack'].key} by "
                 f"1d10{c.mod('dex') + lv:+d})", "reaction", (True, ("deflect",))),
            _opt("Take the hit", "reaction", (False, None))]


def resolve_reaction(b: BattleAPI, c: Combatant, p: dict, data: tuple) -> None:
    st, b.attack_state = b.attack_state, None
    take, what = data[0], data[1]
    if p["reaction"] == "rider":
        st = dict(st, rider=what if take else None, rider_done=True)
    elif p["reaction"] == "cutting_words":
        if take:
            c.economy.reaction = False
            c.resources["bardic_inspiration"] -= 1
            cut = b.roller.roll(c.resources["inspiration_die"], what=f"cutting words {c.cid}")
            total = st["total"] - cut
            b.event("reaction", f"{c.cid} uses Cutting Words: -{cut} ({total} vs AC {st['ac']})", creature=c.cid)
            st = dict(st, total=total, hit=total >= st["ac"])
        st = dict(st, cut_done=True)
    elif take:   # Deflect Missiles
        c.economy.reaction = False
        cut = b.roller.roll(f"1d10+{c.mod('dex') + _class_level(c, 'monk')}", what=f"deflect missiles {c.cid}")
        b.event("reaction", f"{c.cid} deflects the missile: damage reduced by {cut}", creature=c.cid)
        st = dict(st, reduce=cut, deflect_done=True)
    else:
        st = dict(st, deflect_done=True)
    if b.land(st) is None:
        return
    if b.check_outcome():
        return
    b.after_attack(st["then"], b.creatures[st["attacker"]])


def cutting_words(b: BattleAPI, c: Combatant, t: Combatant, st: dict) -> bool:
    """SRD Cutting Words (College of Lore, 3): a bard within 60 ft of an attacker it can see may
    spend a reaction and a Bardic Inspiration to subtract the die from the attack roll. Offered
    only when the die can turn the hit into a miss; the bard is noted in ``st["reactor"]``."""
    if st.get("cut_done"):
        return False
    for o in b.creatures.values():
        if "cutting_words" in o.features and o.side == t.side and o.side != c.side and not o.incapacitated \
                and o.economy.reaction and o.resources.get("bardic_inspiration", 0) > 0 \
                and "blinded" not in o.conditions and b.distance(o, c) <= 60 \
                and st["total"] - int(o.resources["inspiration_die"].split("d")[1]) < st["ac"]:
            st["reactor"] = o.cid
            st["reactor_prompt"] = f"{o.cid}: {c.cid} hits {t.cid} ({st['total']} vs AC {st['ac']})"
            return True
    return False


def can_deflect(b: BattleAPI, t: Combatant, a: AttackProfile, melee: bool) -> bool:
    return ("deflect_missiles" in t.features and not melee and not a.spell and t.economy.reaction
            and not t.incapacitated)


def damage_parts(b: BattleAPI, c: Combatant, t: Combatant, a: AttackProfile, st: dict, parts: list) -> list:
    """(part, doubled on a critical) of a hit: the attack's own parts with the feature bonuses."""
    parts = list(parts)
    crit = st["crit"]
    out_extra = []
    if "raging" in c.conditions and st["melee"] and _uses_str(c, a) and parts:
        p0 = parts[0]
        parts[0] = DamagePart(f"{p0.dice}+{c.resources['rage_damage']}", p0.type)
    if a.key == "eldritch-blast" and "agonizing_blast" in c.features and parts:   # + Cha to each beam
        parts[0] = DamagePart(f"{parts[0].dice}+{max(0, c.mod('cha'))}", parts[0].type)
    weapon_hit = _weapon(a) and not a.spell or a.key == "unarmed-strike"
    if st["melee"] and weapon_hit and "improved_divine_smite" in c.features:
        parts.append(DamagePart("1d8", "radiant"))
    rider = st.get("rider")
    if rider and rider[0] == "smite":
        slots = list(c.resources["slots"])
        slots[rider[1] - 1] -= 1
        c.resources["slots"] = tuple(slots)
        n = _smite_dice(rider[1], t)
        b.event("smite", f"{c.cid} smites {t.cid} (level-{rider[1]} slot, {n}d8 radiant)", creature=c.cid)
        parts.append(DamagePart(f"{n}d8", "radiant"))
    if "divine_strike" in c.features and weapon_hit and not _extra(c).get("divine_strike_used"):
        _extra(c)["divine_strike_used"] = True   # Life Domain: once on each of its turns
        parts.append(DamagePart(c.resources["divine_strike"], "radiant"))
    if "colossus_slayer" in c.features and weapon_hit and t.hp < t.max_hp \
            and not _extra(c).get("colossus_used"):
        _extra(c)["colossus_used"] = True
        parts.append(DamagePart("1d8", parts[0].type if parts else "slashing"))
    if crit and c.resources.get("brutal_critical") and st["melee"] and weapon_hit and parts:
        die = parts[0].dice.split("+")[0].split("-")[0].split("d")[1]
        out_extra.append((DamagePart(f"{c.resources['brutal_critical']}d{die}", parts[0].type), False))
    if c.is_pc:
        features_more.damage_parts(b, c, t, a, parts)   # Lifedrinker, Foe Slayer
    return [(p, True) for p in parts] + out_extra


def _two_handed_melee(c: Combatant, a: AttackProfile) -> bool:
    """A melee weapon wielded in two hands: a two-handed weapon, or a versatile one rolling its
    two-handed die (no shield, no second weapon: :func:`.model.weapons.weapon_profile` picked that die)."""
    if not a.melee or a.spell or not c.is_pc:
        return False
    try:
        w = content.weapon(a.key)
    except KeyError:
        return False
    if w.has("two-handed"):
        return True
    return bool(w.has("versatile") and w.two_handed_damage and a.damage
                and a.damage[0].dice.startswith(w.two_handed_damage.dice))


def roll_damage(b: BattleAPI, c: Combatant, a: AttackProfile, dice: str, critical: bool, what: str) -> int:
    """One damage roll of a hit. SRD Great Weapon Fighting: with a melee weapon in two hands, a 1 or
    2 on a damage die is rerolled once and the new roll stands (every die of the attack's damage)."""
    if c.style != "great_weapon_fighting" or not _two_handed_melee(c, a):
        return b.roller.roll_damage(dice, critical=critical, what=what)
    e = parse(dice)
    rolls = []
    for count, sides in e.dice:
        for v in b.roller._dice(2 * count if critical else count, sides):
            rolls.append(b.roller._dice(1, sides)[0] if v <= 2 else v)
    total = max(0, sum(rolls) + e.bonus)
    if b.roller.record:
        b.roller.log.append({"what": what + " (great weapon fighting)", "expr": e.text, "rolls": rolls,
                             "bonus": e.bonus, "total": total})
    return total


def reduce_damage(st: dict, amount: int) -> int:
    """Deflect Missiles takes its reduction from the first damage roll."""
    cut = st.get("reduce", 0)
    if cut:
        st["reduce"] = max(0, cut - amount)
        return max(0, amount - cut)
    return amount


def after_hit(b: BattleAPI, c: Combatant, t: Combatant, st: dict) -> None:
    """Riders that act after the damage: Stunning Strike's save, the Open Hand's effects."""
    features_more.after_hit(b, c, t)   # Multiattack Defense remembers the attacker
    if st["attack"].key == "eldritch-blast" and "repelling_blast" in c.features and not t.dead:
        # SRD Repelling Blast: pushed up to 10 ft straight away (taken in full here)
        moved = b.push(c, t, 10)
        if moved:
            b.event("push", f"{t.cid} is pushed {moved} ft by Repelling Blast", creature=t.cid)
    rider = st.get("rider")
    if not rider or t.dead:
        return
    if rider[0] == "palm":   # one creature at a time: a new one replaces the old
        c.resources["ki"] -= 3
        c.resources["quivering_palm_on"] = t.cid
        b.event("quivering_palm", f"{c.cid} sets vibrations in {t.cid}", creature=c.cid, target=t.cid)
        return
    dc = c.resources.get("ki_dc", 0)
    if rider[0] == "stun":
        c.resources["ki"] -= 1
        if not b.saving_throw(t, "con", dc):
            t.conditions["stunned"] = {"by": c.cid, "until": "end_of_source_next_turn", "turn_of": c.cid,
                                       "round": b.round}
            b.event("condition", f"{t.cid} is stunned", creature=t.cid, condition="stunned")
    elif rider[0] == "prone" and not b.saving_throw(t, "dex", dc):
        t.conditions["prone"] = {}
        b.event("condition", f"{t.cid} is knocked prone", creature=t.cid, condition="prone")
    elif rider[0] == "push" and not b.saving_throw(t, "str", dc):
        b.push(c, t, 15)   # 15 ft straight away
        b.event("push", f"{t.cid} is pushed to ({t.pos[0]}, {t.pos[1]})", creature=t.cid)
    elif rider[0] == "no_reactions":
        t.economy.reaction = False
        t.conditions["no_reactions"] = {"by": c.cid, "until": "end_of_source_next_turn", "turn_of": c.cid,
                                        "round": b.round}


# ================================================================ saves, damage, conditions
def save_bonus(b: BattleAPI, t: Combatant, ability: str) -> int:
    """SRD Aura of Protection: + the paladin's Cha modifier (at least +1) within 10 ft (30 at 18),
    while the paladin is conscious; the best one counts (auras do not stack)."""
    best = 0
    for p in b.creatures.values():
        if "aura_of_protection" in p.features and p.side == t.side and p.conscious \
                and (p is t or b.distance(p, t) <= p.resources.get("aura_ft", 10)):
            best = max(best, max(1, p.mod("cha")))
    return best


def save_advantage(b: BattleAPI, t: Combatant, ability: str) -> bool:
    if ability == "str" and "raging" in t.conditions:
        return True
    # Danger Sense: effects it can see (not blinded, deafened or incapacitated)
    return ability == "dex" and "danger_sense" in t.features and not t.incapacitated \
        and "blinded" not in t.conditions and "deafened" not in t.conditions


def rescue_save(b: BattleAPI, t: Combatant, ability: str, dc: int, total: int, adv: bool, dis: bool) -> bool:
    """A failed save a feature may still turn: Bardic Inspiration, Dark One's Own Luck (a d10),
    Indomitable and Diamond Soul (a reroll)."""
    r = t.resources
    for cond, die, key in (("inspired", None, None), (None, "1d10", "dark_ones_own_luck")):
        if cond and cond in t.conditions:
            die = t.conditions[cond]["die"]
            if total + int(die.split("d")[1]) >= dc:
                del t.conditions[cond]
                total += b.roller.roll(die, what=f"bardic inspiration {t.cid}")
                b.event("inspiration", f"{t.cid} uses Bardic Inspiration on its save ({total})", creature=t.cid)
                if total >= dc:
                    return True
        elif key and key in t.features and r.get(key, 0) > 0 and total + 10 >= dc:
            r[key] = 0
            total += b.roller.roll(die, what=f"{key} {t.cid}")
            b.event(key, f"{t.cid} uses Dark One's Own Luck ({total})", creature=t.cid)
            if total >= dc:
                return True
    for key, cost in (("indomitable", "indomitable"), ("diamond_soul", "ki")):
        if key in t.features and r.get(cost, 0) > 0:
            r[cost] -= 1
            roll = b.roller.roll_d20(adv, dis, bonus=t.saves[ability], what=f"{key} {t.cid}")
            b.event(key, f"{t.cid} rerolls the save ({key}: {roll.total})", creature=t.cid)
            return roll.total >= dc
    return False


def area_damage(t: Combatant, ability: str, ok: bool, half: bool, amount: int) -> int:
    """Damage from a save-for-half effect; SRD Evasion (Dex saves): none on a success, half on a failure."""
    if ability == "dex" and half and "evasion" in t.features and not t.incapacitated:
        return 0 if ok else amount // 2
    return (amount // 2 if half else 0) if ok else amount


def resists(t: Combatant, dtype: str) -> bool:
    return "raging" in t.conditions and dtype in RAGE_RESIST


def blocks_condition(b: BattleAPI, t: Combatant, cond: str) -> bool:
    """Mindless Rage (charmed/frightened while raging), Aura of Devotion (charmed) and Aura of
    Courage (frightened) within 10 ft of a conscious paladin (30 ft at 18)."""
    if cond in ("charmed", "frightened") and "mindless_rage" in t.features and "raging" in t.conditions:
        return True
    aura = "aura_of_devotion" if cond == "charmed" else "aura_of_courage" if cond == "frightened" else None
    return aura is not None and any(
        aura in p.features and p.side == t.side and p.conscious
        and (p is t or b.distance(p, t) <= p.resources.get("aura_ft", 10)) for p in b.creatures.values())


def initiative_bonus(c: Combatant) -> int:
    """Initiative is a Dex check: Jack of All Trades adds half the proficiency bonus (rounded down),
    Remarkable Athlete half rounded up (the better one counts)."""
    if not c.is_pc:
        return 0
    return max((c.prof // 2) if "jack_of_all_trades" in c.features else 0,
               (c.prof + 1) // 2 if "remarkable_athlete" in c.features else 0)


def check_bonus(c: Combatant, ability: str) -> int:
    """An ability check the PC is not proficient in (Athletics, Acrobatics, Stealth, bursting a web):
    Jack of All Trades adds half the proficiency bonus rounded down, Remarkable Athlete (Str, Dex,
    Con) half rounded up; the better one counts."""
    if not c.is_pc:
        return 0
    return max((c.prof // 2) if "jack_of_all_trades" in c.features else 0,
               (c.prof + 1) // 2 if "remarkable_athlete" in c.features and ability in ("str", "dex", "con") else 0)


def initiative_advantage(c: Combatant) -> bool:
    """Called as initiative is rolled: Feral Instinct's advantage (returned); Superior Inspiration
    (one Bardic Inspiration back if none is left) and Perfect Self (4 ki if none is left)."""
    r = c.resources
    if "superior_inspiration" in c.features and r.get("bardic_inspiration", 1) == 0:
        r["bardic_inspiration"] = 1
    if "perfect_self" in c.features and r.get("ki", 1) == 0:
        r["ki"] = 4
    return "feral_instinct" in c.features


def at_zero(b: BattleAPI, t: Combatant, excess: int = 0) -> int:
    """A PC dropped to 0 HP (``excess``: the damage left over). Wild Shape: back to the druid's own
    form and hit points, the excess carrying over. SRD Relentless Rage: while raging and not killed
    outright, a DC 10 Con save (+5 per use) leaves 1 HP. Returns the hit points the druid's own form
    lost to the excess (so the engine's massive-damage check sees only what is left after them)."""
    if "wild_shape_saved" in t.resources:
        before = t.resources["wild_shape_saved"]["hp"]
        revert(b, t, excess)
        return before - t.hp
    if "relentless_rage" in t.features and "raging" in t.conditions and excess < t.max_hp:
        dc = 10 + 5 * t.resources.get("relentless_uses", 0)
        t.resources["relentless_uses"] = t.resources.get("relentless_uses", 0) + 1
        if b.saving_throw(t, "con", dc):
            t.hp = 1
            b.event("relentless_rage", f"{t.cid} keeps standing (Relentless Rage, DC {dc})", creature=t.cid)
    return 0


# the stats a beast form replaces (SRD Wild Shape keeps Int, Wis, Cha and the druid's proficiencies)
FORM_FIELDS = ("name", "size", "ac", "max_hp", "hp", "speed", "fly", "attacks", "multiattack", "abilities",
               "saves", "creature_type", "spells", "resist", "immune", "vulnerable")


def _monster_spec(key: str):
    return content.monster(key)


def beast_forms(max_cr: float, druid_level: int) -> list:
    """SRD Wild Shape: beasts up to the CR limit; no fly speed before 8, no swim speed before 4;
    only forms whose attacks the engine runs."""
    out = []
    for key, m in sorted(content.monsters().items()):
        if m.type != "beast" or m.challenge_rating > max_cr:
            continue
        if (m.speed.fly and druid_level < 8) or (m.speed.swim and druid_level < 4) or not m.speed.walk:
            continue
        if not build_monster(key, "x", "party", (0, 0, 0)).attacks:
            continue
        out.append((key, m.challenge_rating))
    out.sort(key=lambda kc: (-kc[1], kc[0]))
    return out


def take_wild_shape(b: BattleAPI | None, c: Combatant, key: str) -> None:
    """Spend a use (an Archdruid's 99 stand for unlimited) and take the beast's form."""
    c.resources["wild_shape"] -= 1 if c.resources["wild_shape"] < 99 else 0
    wild_shape(b, c, key)


def wild_shape(b: BattleAPI | None, c: Combatant, key: str) -> None:
    form = build_monster(key, c.cid, c.side, c.pos)
    c.resources["wild_shape_saved"] = {f: getattr(c, f) for f in FORM_FIELDS}
    abilities = dict(c.abilities, str=form.abilities["str"], dex=form.abilities["dex"],
                     con=form.abilities["con"])
    saves = dict(c.saves)
    for ab in ("str", "dex", "con"):   # its own proficiencies with the beast's scores, or the beast's bonus
        own = ability_mod(abilities[ab]) + (c.saves[ab] - ability_mod(c.abilities[ab]))
        saves[ab] = max(own, form.saves[ab])
    c.name = f"{c.name} (as a {form.name})"
    c.size, c.ac, c.max_hp, c.hp = form.size, form.ac, form.max_hp, form.hp
    c.speed, c.fly, c.attacks, c.multiattack = form.speed, form.fly, form.attacks, form.multiattack
    c.abilities, c.saves, c.creature_type, c.spells = abilities, saves, "beast", ()
    c.resist, c.immune, c.vulnerable = form.resist, form.immune, form.vulnerable
    c.resources["wild_shape_form"] = key
    if b is not None:   # (None: between fights, dnd/day.py)
        b.event("wild_shape", f"{c.cid} takes the shape of a {form.name}", creature=c.cid, form=key)


def revert(b: BattleAPI | None, c: Combatant, excess: int = 0) -> None:
    """Back to the druid's own form; damage left over from the beast's 0 HP carries over."""
    saved = c.resources.pop("wild_shape_saved", None)
    c.resources.pop("wild_shape_form", None)
    c.resources.pop("wild_shape_day", None)   # a shape taken between fights ends here too
    if saved is None:
        return
    for f, v in saved.items():
        setattr(c, f, tuple(v) if f in ("attacks", "multiattack", "spells") else v)
    c.hp = max(0, c.hp - excess)
    if b is not None:
        b.event("wild_shape_end", f"{c.cid} returns to its own form ({c.hp}/{c.max_hp} HP)", creature=c.cid)


def on_damaged(b: BattleAPI, t: Combatant, amount: int, source: str | None) -> None:
    """Damage taken: Rage is kept up; a killing blow feeds Dark One's Blessing."""
    if "raging" in t.conditions:
        t.conditions["raging"]["kept"] = True
    killer = b.creatures.get(source) if source else None
    if killer is not None and t.hp == 0 and t.side != killer.side and "dark_ones_blessing" in killer.features:
        gain = killer.resources.get("dark_ones_blessing", 1)
        if gain > killer.temp_hp:
            killer.temp_hp = gain
            b.event("temp_hp", f"{killer.cid} gains {gain} temporary HP (Dark One's Blessing)", creature=killer.cid)


def start_turn(b: BattleAPI, c: Combatant) -> None:
    if getattr(b.roller, "mods", None):   # a casting's roll changes last its turn (features_more)
        b.roller.mods.clear()
    if c.conditions.get("reckless"):
        del c.conditions["reckless"]
    if "raging" in c.conditions and b.round >= c.conditions["raging"]["ends"]:
        end_rage(b, c, "1 minute")
    for o in b.creatures.values():
        nr = o.conditions.get("no_reactions")
        if nr and nr["by"] == c.cid:
            o.economy.reaction = False
    for p in b.creatures.values():   # Holy Nimbus: a foe starting its turn within 30 ft takes 10 radiant
        if "holy_nimbus" in p.conditions and p.side != c.side and p.conscious and c.conscious \
                and b.distance(p, c) <= 30:
            b.event("nimbus", f"{c.cid} is seared by {p.cid}'s holy nimbus", creature=c.cid)
            b.damage(c, 10, "radiant", magical=True, source=p.cid)
    if "survivor" in c.features and 0 < c.hp <= c.max_hp // 2:
        b.heal(c, 5 + c.mod("con"), "Survivor")


def end_turn(b: BattleAPI, c: Combatant) -> None:
    """Rage ends early when the turn ends with no attack made and no damage taken since the last turn
    (not with Persistent Rage), or when the barbarian is unconscious."""
    rage = c.conditions.get("raging")
    if rage is None:
        return
    if not rage["kept"] and "persistent_rage" not in c.features:
        end_rage(b, c, "no attack and no damage this turn")
    else:
        rage["kept"] = False


def end_rage(b: BattleAPI, c: Combatant, why: str) -> None:
    c.conditions.pop("raging", None)
    b.event("rage_end", f"{c.cid}'s rage ends ({why})", creature=c.cid)
    if c.conditions.pop("frenzied", None) is not None:   # Frenzy: one level of exhaustion
        b.add_exhaustion(c, 1)


def on_unconscious(b: BattleAPI, c: Combatant) -> None:
    if "raging" in c.conditions:
        end_rage(b, c, "unconscious")


# ---- what this module answers in the engine's dispatch (dnd/rules/hooks.py)
for _name in REACTIONS:   # a smite or stun rider, Deflect Missiles, Cutting Words
    hooks.REACTIONS.register(_name, hooks.Reaction(reaction_options, resolve_reaction))


@hooks.OPTION_KINDS.handles("feature")
def _choose_feature(b, c, p, opt) -> None:
    apply(b, c, opt)
hooks.TARGET_USES.register("feature", hooks.TargetUse(target_options, resolve_target))   # Lay on Hands, Bardic Inspiration
