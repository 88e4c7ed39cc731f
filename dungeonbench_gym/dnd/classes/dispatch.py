"""The hook points of the class features: what the engine (the menu, an attack's roll and damage, a
save, damage taken, the start and end of a turn), the spells, the builders and the Day track call.

Each hook looks only at the features listed in ``Combatant.features`` (set by
:mod:`..builders.pcs` from the class tables, and by :func:`finish_pc` for the subclass and later
features) and returns quickly for everyone else. Where several classes answer one hook, it calls
their steps here in a fixed order: the order of the options offered, of the rolls made and of the
events logged, so keep it when adding a step. A hook only one class answers is that class's own
function, imported here (see ``__all__``).

Resources live in ``Combatant.resources`` (uses left), effects that last in ``Combatant.conditions``
(``raging``, ``reckless``, ``sacred_weapon``, ``inspired``), and what lasts one turn in
``Economy.extra``. Choices are decisions of the game: a ``feature`` option of the menu
(:data:`ACTIONS`, then a ``target`` decision for some: :func:`target_options`), a metamagic variant
of a spell option, a ``reaction`` decision of the attacker after a melee hit (Divine Smite,
Stunning Strike, Quivering Palm, the Open Hand: one rider a hit), of a creature attacked (Deflect
Missiles, Cutting Words) and after an attack has landed or missed (:func:`after_attack`:
Hurl Through Hell, Retaliation, Giant Killer, Stand Against the Tide). Rules without a choice apply
by themselves. Fighting styles and class options (the Hunter's choices, invocations, metamagic) come
from :func:`..builders.pcs.build_pc`'s ``style``/``choices`` loadout.

The coverage table of class features and their probes live with the other probes, in
:mod:`..verification.feature_probes` and :mod:`..verification.subclass_probes`.
"""

from __future__ import annotations

from ..rules import spell_data
from typing import TYPE_CHECKING

from .. import content
from ..rules import hooks
from . import barbarian, bard, cleric, druid, fighter, monk, paladin, ranger, rogue, sorcerer, warlock, wizard
from .barbarian import end_rage, end_turn, resists, save_advantage
from .bard import countercharm_adv, cutting_words, song_of_rest
from .cleric import heal_bonus
from .common import able, arm, attack_back, extra, fits, is_weapon, option, react_option, reroll_save
from .druid import lands_stride_adv, revert, sanctuary_turns, walk_map
from .fighter import crit_min, roll_damage
from .monk import can_deflect, reduce_damage, slow_fall
from .paladin import save_bonus
from .ranger import horde_targets
from .rogue import area_damage, reflex_order, stealth_advantage
from .sorcerer import casting_as_bonus, extended, save_disadvantage
from .wizard import potent, sculpted, short_rest

if TYPE_CHECKING:   # pragma: no cover
    from ..rules.api import BattleAPI
    from ..state import AttackProfile, Combatant

__all__ = [   # the hooks one class answers, as the engine and the spells call them
    "area_damage", "can_deflect", "casting_as_bonus", "countercharm_adv", "crit_min", "cutting_words", "end_rage",
    "end_turn", "extended", "heal_bonus", "horde_targets", "is_weapon", "lands_stride_adv", "on_unconscious",
    "potent", "reduce_damage", "reflex_order", "resists", "revert", "roll_damage", "sanctuary_turns",
    "save_advantage", "save_bonus", "save_disadvantage", "sculpted", "short_rest", "slow_fall", "song_of_rest",
    "stealth_advantage", "walk_map",
]

RIDER_REACTIONS = ("rider", "deflect_missiles", "cutting_words")
AFTER_ATTACK = ("retaliation", "giant_killer", "stand_against_the_tide", "hurl_through_hell")
STAGES = ("hurl_through_hell", "retaliation", "giant_killer", "stand_against_the_tide")   # the order they are offered
BONUS_ATTACKS = ("martial_arts", "flurry", "frenzy", "horde")   # paid as the attack begins (begin_attack)
# what a ``feature`` option of the menu does, by its first datum
ACTIONS = {"arm": arm, **barbarian.ACTIONS, **bard.ACTIONS, **cleric.ACTIONS, **druid.ACTIONS, **monk.ACTIONS,
           **paladin.ACTIONS, **ranger.ACTIONS, **rogue.ACTIONS, **sorcerer.ACTIONS, **warlock.ACTIONS}


# ================================================================ builds
def finish_pc(pc: Combatant, arch: dict, lvls: dict) -> Combatant:
    """The subclass and later features, their resources, always-prepared spells and pact weapon of a
    freshly built PC (called once by :func:`..builders.pcs.build_pc`)."""
    f, r = list(pc.features), pc.resources
    choices = arch.get("choices", ())
    spells = list(pc.spells)
    max_slot = max((i + 1 for i, n in enumerate(r.get("slots", ())) if n), default=0)
    wizard.finish_pc(lvls, f, r, spells)
    sorcerer.finish_pc(arch, lvls, f, r, choices)
    f = ranger.finish_pc(lvls, f, r, choices)
    fighter.finish_pc(pc, arch, lvls, f, r)
    cleric.finish_pc(lvls, f, spells, max_slot)
    paladin.finish_pc(pc, lvls, f, r, spells, max_slot)
    druid.finish_pc(arch, lvls, f, spells, max_slot)
    warlock.finish_pc(pc, arch, lvls, f, r, spells)
    bard.finish_pc(arch, lvls, f, r)
    monk.finish_pc(lvls, f)
    rogue.finish_pc(arch, lvls, f)
    barbarian.finish_pc(lvls, f)
    barbarian.finish_retaliation(lvls, f)
    f = ranger.finish_hunter(lvls, f, choices)
    druid.finish_lands_stride(arch, lvls, f)
    rogue.finish_reflexes(arch, lvls, f)
    warlock.finish_late(arch, lvls, f, r, spells)
    pc.features = tuple(dict.fromkeys(f))
    pc.spells = tuple(dict.fromkeys(spells))
    return pc


# ================================================================ the action menu
def options(b: BattleAPI, c: Combatant) -> list:
    """Feature options of the turn menu (before End turn)."""
    if not c.features or not c.is_pc:
        return []
    e = c.economy
    out: list = []
    barbarian.rage_options(b, c, out)   # Rage, Intimidating Presence, Reckless Attack
    paladin.menu_options(b, c, out)   # Lay on Hands, Holy Nimbus, Sacred Weapon
    bard.inspire_option(b, c, out)
    monk.menu_options(b, c, out)   # Martial Arts, Flurry of Blows, Patient Defense, Step of the Wind, ...
    barbarian.frenzy_options(b, c, out)
    druid.wild_shape_options(c, out)
    sorcerer.spell_metamagic_options(b, c, out)   # Quickened, Twinned
    if e.actions > 0:
        monk.action_options(b, c, out)   # Empty Body, ending Quivering Palm
        warlock.action_options(c, out)   # Armor of Shadows, Fiendish Vigor
        cleric.action_options(b, c, out)   # Preserve Life
    sorcerer.save_metamagic_options(b, c, out)   # Heightened, Careful
    sorcerer.bonus_options(c, out)   # Flexible Casting, Dragon Wings
    if e.actions > 0:
        sorcerer.presence_option(b, c, out)
        paladin.devotion_options(b, c, out)   # Turn the Unholy, Cleansing Touch
        bard.countercharm_option(c, out)
        warlock.carceri_option(b, c, out)
        ranger.multiattack_options(b, c, out)   # Volley, Whirlwind Attack
        if not extra(c).get("armed"):   # Overchannel and Metamagic: armed for the next spell
            wizard.arm_options(c, out)
            sorcerer.arm_options(c, out)
    ranger.late_options(b, c, out)   # Horde Breaker, Vanish
    rogue.fast_hands_option(c, out)
    warlock.late_options(b, c, out)   # invocations' spells, Pact of the Chain
    return out


def apply(b: BattleAPI, c: Combatant, opt) -> None:
    """Carry out a ``feature`` option of the menu."""
    ACTIONS[opt.data[0]](b, c, opt)


# A feature's target decision (``use = ("feature", kind, ...)``): the creatures it offers, what
# picking one does, and whether the turn's menu comes back after it (the others ask on or end).
_TARGETS = {
    "lay_on_hands": (lambda b, c, use: paladin.lay_options(b, c),
                     lambda b, c, use, t: paladin.lay_on_hands(b, c, t), True),
    "wild_shape": (lambda b, c, use: druid.form_options(b, c), None, True),
    "twin": (sorcerer.twin_options, sorcerer.twin_target, False),
    "twin2": (sorcerer.twin_options, lambda b, c, use, t: _twin_cast(b, c, use, t), False),
    "intimidate": (lambda b, c, use: barbarian.intimidate_options(b, c),
                   lambda b, c, use, t: barbarian.intimidate(b, c, t), True),
    "carceri": (lambda b, c, use: warlock.carceri_options(b, c),
                lambda b, c, use, t: warlock.chains_of_carceri(b, c, t), False),
    "volley": (lambda b, c, use: ranger.volley_options(b, c),
               lambda b, c, use, t: ranger.volley(b, c, t), False),
    "chain": (lambda b, c, use: warlock.chain_target_options(b, c),
              lambda b, c, use, t: warlock.chain_attack(b, c, t), False),
    "cleansing_touch": (lambda b, c, use: paladin.cleanse_options(b, c),
                        lambda b, c, use, t: paladin.cleansing_touch(b, c, t), True),
    "inspire": (lambda b, c, use: bard.inspire_options(b, c),
                lambda b, c, use, t: bard.inspire(b, c, t), True),
}


def _twin_cast(b: BattleAPI, c: Combatant, use: tuple, t: Combatant) -> None:
    """Both twin targets chosen: the casting begins as a spell option's does (:func:`_casting`:
    Elemental Affinity, Empowered Evocation, an armed Empowered Spell), which the twin's own path
    used to skip."""
    _casting(b, c, (use[2], use[3], "twinned"))
    sorcerer.twin_target(b, c, use, t)


def target_options(b: BattleAPI, c: Combatant, use: tuple) -> list:
    entry = _TARGETS.get(use[1])
    return entry[0](b, c, use) if entry else []


def resolve_target(b: BattleAPI, c: Combatant, use: tuple, t: Combatant) -> None:
    entry = _TARGETS.get(use[1])
    if entry and entry[1]:
        entry[1](b, c, use, t)
    if entry is None or entry[2]:
        b.back_to_menu(c)


def on_unconscious(b: BattleAPI, c: Combatant) -> None:
    """A creature dropped to 0 HP: a rage ends, Sacred Weapon ends."""
    barbarian.on_unconscious(b, c)
    paladin.on_unconscious(b, c)


def weapon_magical(c: Combatant, a: AttackProfile) -> bool:
    """A weapon made magical by a feature (Sacred Weapon): resistances to nonmagical attacks do
    not apply to its damage."""
    return "sacred_weapon" in c.conditions and paladin.sacred_weapon(c, a) > 0


def begin_attack(b: BattleAPI, c: Combatant, a: AttackProfile, source: str) -> None:
    """An attack option was chosen (before the roll): pay a bonus attack, note what it enables."""
    extra(c)["source"] = source
    monk.begin_attack(c, a, source)   # Flurry of Blows, Martial Arts
    barbarian.begin_attack(c, source)   # Frenzy
    ranger.begin_attack(c, source)   # Horde Breaker


# ================================================================ spells
def before_spell(b: BattleAPI, c: Combatant, data: tuple) -> None:
    """A spell option was chosen: note the casting, pay a metamagic, arm the damage roll's changes
    (``dice.Roller.changed_roll``), then the metamagic of the option itself (Quickened, ...)."""
    _casting(b, c, data)
    sorcerer.pay_metamagic(b, c, data)


def _casting(b: BattleAPI, c: Combatant, data: tuple) -> None:
    """Note the casting (healing features), spend an invocation's use, fire an armed Overchannel or
    Metamagic, and the roll's changes: Empowered Evocation, Elemental Affinity, Overchannel,
    Empowered Spell, Supreme Healing; Sculpt Spells for an evocation area."""
    mods = getattr(b.roller, "mods", None)
    if mods:
        mods.clear()
    elif mods is None:
        mods = {}
    x = extra(c)
    x.pop("sculpt", None)
    if not c.features or not c.is_pc:
        return
    key, level = data[0], data[1]
    tag = data[2] if len(data) > 2 else None
    x["casting"] = (key, level)
    sp = content.spell(key)
    r = c.resources
    warlock.invocation_cast(c, data, tag)
    x.pop("metamagic", None)
    armed, fired = x.get("armed"), None
    own = tag if tag not in (None, "invocation") else None   # the option's own Metamagic (Heightened, twin...)
    # SRD: one Metamagic option a spell, but Empowered Spell may join another one (and Overchannel
    # is no Metamagic): any other armed option waits for the next spell
    if armed and fits(armed, sp, level) and (armed == "overchannel" or r.get("sorcery_points", 0) >= 1) \
            and (own is None or armed in ("empowered", "overchannel")):
        del x["armed"]
        fired = armed
        tag = armed if own is None else tag
        if armed != "overchannel":
            r["sorcery_points"] -= 1
            x["metamagic"] = armed
            b.event("metamagic", f"{c.cid} casts {key} with {armed.title()} Spell", creature=c.cid)
    change: dict = {}
    wizard.evocation_change(c, sp, change)
    sorcerer.affinity_change(c, sp, change)
    wizard.overchannel_change(b, c, key, fired or tag, change)
    sorcerer.empowered_change(c, fired or tag, change)
    if change and sp.damage_type:
        mods[f"damage {key} "] = change
    cleric.supreme_healing(c, key, sp, mods)
    wizard.sculpt(c, sp, level)


def careful_success(b: BattleAPI, t: Combatant) -> bool:
    """A save of the caster's own side that succeeds by itself: Sculpt Spells, Careful Spell."""
    c = b.active
    if c is not None and "sculpt" in c.economy.extra and wizard.sculpt_saves(b, c, t):
        return True
    return sorcerer.careful_success(b, c, t)


def free_cast(c: Combatant, key: str, level: int) -> bool:
    """A casting that takes no slot: Chains of Carceri, Spell Mastery, Signature Spell."""
    if warlock.carceri_free(c, key):
        return True
    return wizard.free_cast(c, key, level)


def spell_range(c: Combatant, key: str, rng: int) -> int:
    """Eldritch Spear: Eldritch Blast at 300 ft; Distant Spell: twice the range."""
    if c.kind != "pc":
        return rng
    return sorcerer.distant_range(c, key, warlock.eldritch_spear(c, key, rng))


# ================================================================ attacks
def attack_modifiers(b: BattleAPI, c: Combatant, t: Combatant, melee: bool, a, adv: list, dis: list) -> None:
    barbarian.reckless_advantage(b, c, t, melee, a, adv)
    paladin.purity_of_spirit(c, t, dis)


def last_modifiers(b: BattleAPI, c: Combatant, t: Combatant, adv: list, dis: list) -> None:
    """Called last, once every reason is in (zones included): Feral Senses drops the disadvantage
    of not seeing the target, Elusive every advantage against the rogue (an unseen attacker's too)."""
    if dis and c.is_pc:
        ranger.feral_senses(b, c, t, dis)
    if adv and t.is_pc:
        rogue.elusive(t, adv)


def defend(b: BattleAPI, c: Combatant, t: Combatant, melee: bool, then: str, reasons: list) -> bool:
    """Called as an attack is rolled: Escape the Horde (an opportunity attack on the ranger) and
    Fighting Style: Protection (an ally's reaction). True: the attack has disadvantage."""
    return ranger.escape_the_horde(t, then, reasons) or fighter.protection(b, c, t, reasons)


def attack_bonus(b: BattleAPI, c: Combatant, t: Combatant, a: AttackProfile) -> int:
    """To-hit bonus from features (Sacred Weapon, Multiattack Defense); also notes that c attacked
    (Rage, Horde Breaker)."""
    extra(c)["attacked"] = True
    barbarian.note_attack(c)
    more = ranger.attack_bonus(b, c, t, a) if (c.is_pc or t.is_pc) else 0
    return paladin.sacred_weapon(c, a) + more


def rescue_attack(b: BattleAPI, c: Combatant, total: int, ac: int, natural: int) -> tuple[int, bool]:
    """A miss the attacker can still turn: a Bardic Inspiration die, then Stroke of Luck (a hit)."""
    total, hit = bard.inspired_attack(b, c, total, ac, natural)
    if hit:
        return total, True
    return total, rogue.stroke_of_luck(b, c)


def rider_options(b: BattleAPI, c: Combatant, t: Combatant, st: dict) -> list:
    """After a melee weapon hit: Divine Smite at each slot level, Stunning Strike, Open Hand."""
    a = st["attack"]
    if not c.is_pc or not st["melee"] or not is_weapon(a):
        return []
    out: list = []
    paladin.smite_riders(c, t, st, out)
    monk.riders(c, t, a, out)
    if out:
        out.append(option("No rider on this hit", "reaction", (False, None)))
    return out


def reaction_options(b: BattleAPI, c: Combatant, p: dict) -> list:
    """A rider after a hit, Cutting Words, Deflect Missiles."""
    st = b.attack_state
    if p["reaction"] == "rider":
        return rider_options(b, c, b.creatures[st["target"]], st)
    if p["reaction"] == "cutting_words":
        return bard.cutting_words_options(c, st)
    return monk.deflect_options(c, st)


def resolve_reaction(b: BattleAPI, c: Combatant, p: dict, data: tuple) -> None:
    st, b.attack_state = b.attack_state, None
    take, what = data[0], data[1]
    if p["reaction"] == "rider":
        st = dict(st, rider=what if take else None, rider_done=True)
    elif p["reaction"] == "cutting_words":
        st = bard.resolve_cutting_words(b, c, st, take)
    else:
        st = monk.resolve_deflect(b, c, st, take)
    if b.land(st) is None:
        return
    if b.check_outcome():
        return
    b.after_attack(st["then"], b.creatures[st["attacker"]])


def damage_parts(b: BattleAPI, c: Combatant, t: Combatant, a: AttackProfile, st: dict, parts: list) -> list:
    """(part, doubled on a critical) of a hit: the attack's own parts with the feature bonuses."""
    parts = list(parts)
    out_extra: list = []
    barbarian.rage_damage(c, a, st, parts)
    warlock.agonizing_blast(c, a, parts)
    weapon_hit = is_weapon(a)
    paladin.smite_damage(b, c, t, st, weapon_hit, parts)   # Improved Divine Smite, Divine Smite
    cleric.divine_strike(b, c, weapon_hit, parts)
    ranger.colossus_slayer(b, c, t, weapon_hit, parts)
    barbarian.brutal_critical(c, st, weapon_hit, parts, out_extra)
    if c.is_pc:
        warlock.lifedrinker(c, a, parts)
        ranger.foe_slayer(b, c, t, a, parts)
    return [(p, True) for p in parts] + out_extra


def after_hit(b: BattleAPI, c: Combatant, t: Combatant, st: dict) -> None:
    """After the damage: Multiattack Defense remembers the attacker, Repelling Blast, the rider."""
    ranger.multiattack_defense(b, c, t)
    warlock.repelling_blast(b, c, t, st)
    rider = st.get("rider")
    if not rider or t.dead:
        return
    monk.rider_lands(b, c, t, rider)


# ================================================================ after an attack: reactions
def after_attack(b: BattleAPI, c: Combatant, t: Combatant, a: AttackProfile, melee: bool, hit: bool,
                 then: str, before: int, start: int = 0) -> bool:
    """Hook at the end of the engine's ``make_attack``: True when a decision of :data:`STAGES`
    is now pending (the attack then carries on through ``then`` once it is answered)."""
    if then == "none" or b.outcome is not None:
        return False
    st = {"hit": bool(hit), "melee": bool(melee), "damaged": t.hp + t.temp_hp < before, "key": a.key}
    return _later(b, c, t, then, st, start)


def _offer(b: BattleAPI, stage: str, c: Combatant, t: Combatant, st: dict) -> bool:
    """Whether ``stage``'s decision applies to c's attack on t (st: hit, melee, damaged, attack)."""
    if stage == "hurl_through_hell":
        return warlock.hurl_offer(c, t, st)
    if c.dead or t.dead or stage not in t.features or not able(t) or "blinded" in t.conditions \
            or ("invisible" in c.conditions and not sees_invisible(t, b.distance(c, t))):
        return False
    if stage == "retaliation":
        return barbarian.retaliation_offer(b, c, t, st)
    if stage == "giant_killer":
        return ranger.giant_killer_offer(b, c, t, st)
    if stage == "stand_against_the_tide":
        return ranger.tide_offer(b, c, t, st)
    return False


def sees_invisible(t: Combatant, feet: int | None = None) -> bool:
    return spell_data.sees_invisible(t, feet)


def _prompt(stage: str, c: Combatant, t: Combatant) -> str:
    return {"hurl_through_hell": f"{c.cid}: you hit {t.cid}; hurl it through hell?",
            "retaliation": f"{t.cid}: {c.cid} damaged you; retaliate?",
            "giant_killer": f"{t.cid}: {c.cid} (a {c.size} creature) attacked you; Giant Killer?",
            "stand_against_the_tide": f"{t.cid}: {c.cid} missed you; turn its attack on another?"}[stage]


def _later(b: BattleAPI, c: Combatant, t: Combatant, then: str, st: dict, start: int) -> bool:
    for stage in STAGES[start:]:
        if _offer(b, stage, c, t, st):
            b.pending = {"kind": "reaction", "actor": (c if stage == "hurl_through_hell" else t).cid,
                         "reaction": stage, "attacker": c.cid, "target": t.cid, "then": then, "st": st,
                         "stage": STAGES.index(stage), "prompt": _prompt(stage, c, t)}
            b.forget_options()
            return True
    return False


def after_attack_options(b: BattleAPI, c: Combatant, p: dict) -> list:
    stage = p["reaction"]
    attacker, target = b.creatures[p["attacker"]], b.creatures[p["target"]]
    out = []
    if stage == "hurl_through_hell":
        out += warlock.hurl_options(target)
    elif stage == "retaliation":
        out += barbarian.retaliation_options(b, c, attacker)
    elif stage == "giant_killer":
        out += ranger.giant_killer_options(b, c, attacker)
    elif stage == "stand_against_the_tide":
        out += ranger.tide_options(b, c, attacker, p["st"]["key"])
    return out + [react_option("Do not react", (False, None))]


def resolve_after_attack(b: BattleAPI, c: Combatant, p: dict, data: tuple) -> None:
    stage, then, st = p["reaction"], p["then"], p["st"]
    attacker, target = b.creatures[p["attacker"]], b.creatures[p["target"]]
    b.pending = {}
    if data[0]:
        if stage == "hurl_through_hell":
            warlock.hurl(b, c, target)
        elif stage in ("retaliation", "giant_killer"):
            name = "Retaliation" if stage == "retaliation" else "Giant Killer"
            if not attack_back(b, c, attacker, data[1], stage, name, then):
                return   # the attacker reacts in turn (Shield); the chain carries on from there
        elif stage == "stand_against_the_tide":
            if not ranger.stand_against_the_tide(b, c, attacker, b.creatures[data[1]], st["key"], then):
                return
    if b.check_outcome():
        return
    # a later stage of the same attack (Retaliation after the warlock's choice, ...)
    if (not data[0] or stage == "hurl_through_hell") and _later(b, attacker, target, then, st, p["stage"] + 1):
        return
    b.after_attack(then, attacker)


# ================================================================ saves, checks, initiative
def rescue_save(b: BattleAPI, t: Combatant, ability: str, dc: int, total: int, adv: bool, dis: bool,
                own: int) -> bool:
    """A failed save a feature may still turn: Bardic Inspiration, Dark One's Own Luck (a d10),
    Indomitable and Diamond Soul (a reroll: ``own`` is the save's modifier and cover, what the new
    roll keeps; its dice, Bless's and Bane's, are rolled anew)."""
    total, ok = bard.inspired_save(b, t, dc, total)
    if ok:
        return True
    total, ok = warlock.own_luck(b, t, dc, total)
    if ok:
        return True
    for key, cost in (("indomitable", "indomitable"), ("diamond_soul", "ki")):
        got = reroll_save(b, t, key, cost, ability, own, dc, adv, dis)
        if got is not None:
            return got
    return False


def rescue_check(b: BattleAPI, c: Combatant, total: int, need: int) -> int:
    """A failed ability check (one that needs ``need``) a feature may still turn, after the roll:
    Peerless Skill (a Bardic Inspiration die), then Dark One's Own Luck (a d10; SRD: "an ability
    check or a saving throw", so checks come through here as saves do through :func:`rescue_save`)."""
    total = bard.peerless(b, c, total, need)
    if total < need and c.is_pc:
        total, _ok = warlock.own_luck(b, c, need, total)
    return total


def blocks_condition(b: BattleAPI, t: Combatant, cond: str) -> bool:
    """Mindless Rage (charmed/frightened while raging), Aura of Devotion (charmed) and Aura of
    Courage (frightened)."""
    return barbarian.mindless_rage(t, cond) or paladin.aura_blocks(b, t, cond)


def initiative_bonus(c: Combatant) -> int:
    """Initiative is a Dex check: Jack of All Trades adds half the proficiency bonus (rounded down),
    Remarkable Athlete half rounded up (the better one counts)."""
    if not c.is_pc:
        return 0
    return max(bard.jack_of_all_trades(c), fighter.remarkable_athlete(c))


def check_bonus(c: Combatant, ability: str) -> int:
    """An ability check the PC is not proficient in (Athletics, Acrobatics, Stealth, bursting a web):
    Jack of All Trades adds half the proficiency bonus rounded down, Remarkable Athlete (Str, Dex,
    Con) half rounded up; the better one counts."""
    if not c.is_pc:
        return 0
    return max(bard.jack_of_all_trades(c),
               fighter.remarkable_athlete(c) if ability in ("str", "dex", "con") else 0)


def check_total(c: Combatant, ability: str, natural: int, total: int, trained: bool) -> int:
    """An ability check's total: Reliable Talent (a trained check's d20 below 10 counts as 10) and
    Indomitable Might (a Str check totals at least the Str score)."""
    if not c.is_pc or not c.features:
        return total
    total = rogue.reliable_talent(c, natural, total, trained)
    return barbarian.indomitable_might(c, ability, total)


def check_advantage(c: Combatant, ability: str) -> bool:
    """An ability check rolled with advantage by a feature: Rage (Strength)."""
    return barbarian.check_advantage(c, ability)


def acts_surprised(c: Combatant) -> bool:
    """A surprised creature that may still act on its first turn: Feral Instinct (raging first)."""
    return barbarian.feral_surprise(c)


def initiative_advantage(c: Combatant) -> bool:
    """Called as initiative is rolled: Feral Instinct's advantage (returned); Superior Inspiration
    (one Bardic Inspiration back if none is left) and Perfect Self (4 ki if none is left)."""
    bard.superior_inspiration(c)
    monk.perfect_self(c)
    return barbarian.feral_instinct(c)


# ================================================================ damage, turns
def at_zero(b: BattleAPI, t: Combatant, excess: int = 0) -> int:
    """A PC dropped to 0 HP (``excess``: the damage left over). Wild Shape: back to the druid's own
    form and hit points, the excess carrying over. Relentless Rage: a Con save leaves 1 HP. Returns
    the hit points the druid's own form lost to the excess (so the engine's massive-damage check
    sees only what is left after them)."""
    if "wild_shape_saved" in t.resources:
        return druid.form_drops(b, t, excess)
    barbarian.relentless_rage(b, t, excess)
    return 0


def on_damaged(b: BattleAPI, t: Combatant, amount: int, source: str | None) -> None:
    """Damage taken: Rage is kept up; a killing blow feeds Dark One's Blessing."""
    barbarian.keep_rage(t)
    warlock.dark_ones_blessing(b, t, source)


def start_turn(b: BattleAPI, c: Combatant) -> None:
    if getattr(b.roller, "mods", None):   # a casting's roll changes last its turn (before_spell)
        b.roller.mods.clear()
    barbarian.start_turn(b, c)   # Reckless Attack ends; rage's minute
    monk.hold_reactions(b, c)   # the Open Hand's "no reactions"
    paladin.holy_nimbus(b, c)
    fighter.survivor(b, c)


# ---- what the class features answer in the engine's dispatch (dnd/rules/hooks.py)
for _name in RIDER_REACTIONS:   # a smite or stun rider, Deflect Missiles, Cutting Words
    hooks.REACTIONS.register(_name, hooks.Reaction(reaction_options, resolve_reaction))
for _name in AFTER_ATTACK:   # Retaliation, Giant Killer, Stand Against the Tide, Hurl Through Hell
    hooks.REACTIONS.register(_name, hooks.Reaction(after_attack_options, resolve_after_attack))


@hooks.OPTION_KINDS.handles("feature")
def _choose_feature(b, c, p, opt) -> None:
    apply(b, c, opt)


hooks.TARGET_USES.register("feature", hooks.TargetUse(target_options, resolve_target))   # Lay on Hands, ...
