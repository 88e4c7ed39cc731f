"""Warlock (the Fiend): Dark One's Blessing, Dark One's Own Luck, Hurl Through Hell; the pacts
(Blade: a pact weapon, Thirsting Blade, Lifedrinker; Tome: three cantrips; Chain: a familiar that
attacks when the warlock forgoes an attack); the invocations played (Agonizing Blast, Repelling
Blast, Eldritch Spear, Devil's Sight, Armor of Shadows, Fiendish Vigor, the once-a-long-rest spells,
Chains of Carceri, Minions of Chaos)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import content
from ..model.factories import build_monster
from ..model.options import Opt
from ..model.weapons import weapon_profile
from ..rules import removal, spell_data
from ..state import DamagePart
from .common import done, option, react_option

if TYPE_CHECKING:   # pragma: no cover
    from ..rules.api import BattleAPI
    from ..state import Combatant

INVOCATION_SPELLS = {"thief_of_five_fates": "bane", "mire_the_mind": "slow", "sign_of_ill_omen": "bestow-curse",
                     "dreadful_word": "confusion", "bewitching_whispers": "compulsion"}
INVOCATION_LEVEL = {"thief_of_five_fates": 2, "mire_the_mind": 5, "sign_of_ill_omen": 5, "dreadful_word": 7,
                    "bewitching_whispers": 7}
TOME_CANTRIPS = ("sacred-flame", "vicious-mockery", "produce-flame")
CHAIN_FORMS = ("imp", "pseudodragon", "quasit", "sprite")   # the pact's special forms


# ================================================================ builds
def finish_pc(pc: Combatant, arch: dict, lvls: dict, f: list, r: dict, spells: list) -> None:
    """Invocations, Pact of the Tome, Pact of the Blade."""
    choices = arch.get("choices", ())
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


def finish_late(arch: dict, lvls: dict, f: list, r: dict, spells: list) -> None:
    """Pact of the Chain, Minions of Chaos, Hurl Through Hell."""
    choices = arch.get("choices", ())
    war = lvls.get("warlock", 0)
    if war >= 3 and "pact_of_the_chain" in choices:
        f.append("pact_of_the_chain")
    if war >= 9 and "minions_of_chaos" in choices:
        f.append("minions_of_chaos")
        r["minions_of_chaos"] = r["minions_of_chaos_max"] = 1
        spells.append("conjure-elemental")
    if lvls.get("warlock", 0) >= 14 and arch.get("subclass") == "fiend":
        f.append("hurl_through_hell")
        r["hurl_through_hell"] = r["hurl_through_hell_max"] = 1


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
def action_options(c: Combatant, out: list) -> None:
    """Armor of Shadows, Fiendish Vigor."""
    f = c.features
    if "armor_of_shadows" in f and not c.armored and "mage_armor" not in c.conditions:
        out.append(option("Armor of Shadows (action: Mage Armor on yourself, no slot: AC 13 + Dex)", "feature",
                          ("armor_of_shadows",)))
    if "fiendish_vigor" in f and c.temp_hp < 8:
        out.append(option("Fiendish Vigor (action: False Life at 1st level, no slot: 1d4+4 temporary HP)", "feature",
                          ("fiendish_vigor",)))


def carceri_option(b: BattleAPI, c: Combatant, out: list) -> None:
    if "chains_of_carceri" in c.features and carceri_targets(b, c):
        out.append(option("Chains of Carceri (action: Hold Monster at will, no slot, on a celestial, fiend or "
                          "elemental; once per creature a long rest)", "feature", ("carceri",)))


def late_options(b: BattleAPI, c: Combatant, out: list) -> None:
    """The invocations' spells; Pact of the Chain (the familiar attacks in place of one of the
    warlock's attacks)."""
    if "invocation_spells" in c.features:
        out.extend(_invocation_options(b, c))
    if "pact_of_the_chain" in c.features:
        out.extend(chain_options(b, c))


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
            out.append(option(f"{name} (once a long rest): {o.label}", "spell", (*o.data[:2], "invocation", inv)))
    return out


def carceri_targets(b: BattleAPI, c: Combatant) -> list:
    """Chains of Carceri: Hold Monster's targets that are celestials, fiends or elementals, not yet
    bound by this warlock since its last long rest."""
    done_ = c.resources.get("carceri_done", ())
    return [t for t in b.spell_targets(c, "hold-monster")
            if t.creature_type in ("celestial", "fiend", "elemental") and t.cid not in done_]


def _armor_of_shadows(b: BattleAPI, c: Combatant, opt) -> None:
    c.economy.actions -= 1
    c.conditions["mage_armor"] = {"by": c.cid}
    b.event("armor_of_shadows", f"{c.cid} wraps itself in Armor of Shadows", creature=c.cid)
    done(b, c, "armor_of_shadows")


def _fiendish_vigor(b: BattleAPI, c: Combatant, opt) -> None:
    c.economy.actions -= 1
    gain = b.roller.roll("1d4+4", what=f"fiendish vigor {c.cid}")
    c.temp_hp = max(c.temp_hp, gain)   # temporary hit points do not stack: the higher stands
    b.event("temp_hp", f"{c.cid} has {c.temp_hp} temporary HP (Fiendish Vigor)", creature=c.cid)
    done(b, c, "fiendish_vigor")


def _pick_target(b: BattleAPI, c: Combatant, opt) -> None:
    b.pending = {"kind": "target", "actor": c.cid, "use": ("feature", opt.data[0])}


ACTIONS = {"armor_of_shadows": _armor_of_shadows, "fiendish_vigor": _fiendish_vigor, "carceri": _pick_target,
           "chain": _pick_target}


def carceri_options(b: BattleAPI, c: Combatant) -> list:
    return [option(f"Chains of Carceri on {t.cid} ({t.creature_type}) [WIS save {t.saves['wis']:+d}, "
                   f"{b.distance(c, t)} ft]", "target", (t.cid,)) for t in carceri_targets(b, c)]


def chains_of_carceri(b: BattleAPI, c: Combatant, t: Combatant) -> None:
    """Cast through the engine, the slot left alone (:func:`carceri_free`)."""
    c.resources["carceri_done"] = (*c.resources.get("carceri_done", ()), t.cid)
    c.economy.extra["free_spell"] = "hold-monster"
    b.event("chains_of_carceri", f"{c.cid} binds {t.cid} with the Chains of Carceri", creature=c.cid)
    if b.cast_at(c, "hold-monster", 5, t) is None:
        return
    b.back_to_menu(c)


# ================================================================ spells
def invocation_cast(c: Combatant, data: tuple, tag) -> None:
    """An invocation's spell is cast: its use is spent."""
    if tag == "invocation":
        c.resources[f"invocation:{data[3]}"] = 0


def carceri_free(c: Combatant, key: str) -> bool:
    return c.economy.extra.pop("free_spell", None) == key


def eldritch_spear(c: Combatant, key: str, rng: int) -> int:
    """Eldritch Blast at 300 ft."""
    if key == "eldritch-blast" and "eldritch_spear" in c.features:
        rng = 300
    return rng


# ================================================================ attacks, damage
def agonizing_blast(c: Combatant, a, parts: list) -> None:
    if a.key == "eldritch-blast" and "agonizing_blast" in c.features and parts:   # + Cha to each beam
        parts[0] = DamagePart(f"{parts[0].dice}+{max(0, c.mod('cha'))}", parts[0].type)


def lifedrinker(c: Combatant, a, parts: list) -> None:
    """+ Cha modifier necrotic on the pact weapon's hits."""
    if "lifedrinker" in c.features and a.key == "pact-blade":
        parts.append(DamagePart(str(max(1, c.mod("cha"))), "necrotic"))


def extra_attacks(c: Combatant) -> bool:
    """Thirsting Blade: the pact weapon attacks twice in an Attack action."""
    return "thirsting_blade" in c.features


def repelling_blast(b: BattleAPI, c: Combatant, t: Combatant, st: dict) -> None:
    if st["attack"].key == "eldritch-blast" and "repelling_blast" in c.features and not t.dead:
        # SRD Repelling Blast: pushed up to 10 ft straight away (taken in full here)
        moved = b.push(c, t, 10)
        if moved:
            b.event("push", f"{t.cid} is pushed {moved} ft by Repelling Blast", creature=t.cid)


def dark_ones_blessing(b: BattleAPI, t: Combatant, source: str | None) -> None:
    """A killing blow gives the warlock temporary hit points."""
    killer = b.creatures.get(source) if source else None
    if killer is not None and t.hp == 0 and t.side != killer.side and "dark_ones_blessing" in killer.features:
        gain = killer.resources.get("dark_ones_blessing", 1)
        if gain > killer.temp_hp:
            killer.temp_hp = gain
            b.event("temp_hp", f"{killer.cid} gains {gain} temporary HP (Dark One's Blessing)", creature=killer.cid)


def own_luck(b: BattleAPI, t: Combatant, dc: int, total: int) -> tuple[int, bool]:
    """Dark One's Own Luck: a d10 on a failed save it can still turn."""
    key, r = "dark_ones_own_luck", t.resources
    if key in t.features and r.get(key, 0) > 0 and total + 10 >= dc:
        r[key] = 0
        total += b.roller.roll("1d10", what=f"{key} {t.cid}")
        b.event(key, f"{t.cid} uses Dark One's Own Luck ({total})", creature=t.cid)
        if total >= dc:
            return total, True
    return total, False


# ================================================================ Hurl Through Hell (the Fiend, 14)
def hurl_offer(c: Combatant, t: Combatant, st: dict) -> bool:
    return (st["hit"] and "hurl_through_hell" in c.features and c.resources.get("hurl_through_hell", 0) > 0
            and not t.dead and t.hp > 0 and not c.dead)


def hurl_options(target: Combatant) -> list:
    dmg = "no damage: a fiend" if target.creature_type == "fiend" else "then 10d10 psychic"
    return [react_option(f"Hurl Through Hell: {target.cid} vanishes until the end of your next turn ({dmg}; "
                         f"once a long rest)", (True, target.cid))]


def hurl(b: BattleAPI, c: Combatant, t: Combatant) -> None:
    """The creature leaves the map (the removal of :mod:`..rules.removal`) until the end of the
    warlock's next turn."""
    c.resources["hurl_through_hell"] -= 1
    # back at the end of the warlock's next turn: this round's turn when it is still to come
    own_turn = b.active is c
    later_this_round = c.cid in b.order and b.order.index(c.cid) > b.turn_index
    until = b.round + (0 if (not own_turn and later_this_round) else 1)
    removal.leave(b, t)
    t.dead = True
    t.conditions["removed"] = {"by": c.cid, "spell": "hurl-through-hell", "returns": True, "hurl": True,
                               "until_round": until}
    removal.mark_controls(b)
    b.forget_reach()
    b.event("removed", f"{c.cid} hurls {t.cid} through the lower planes", creature=t.cid,
            spell="hurl-through-hell", by=c.cid)


def end_of_turn(b: BattleAPI, c: Combatant) -> None:
    """Hook (:func:`..spell_control.end_of_turn`): those c hurled come back at the end of its next turn."""
    for o in sorted(b.creatures.values(), key=lambda o: o.cid):
        v = o.conditions.get("removed")
        if v and v.get("hurl") and v["by"] == c.cid and b.round >= v["until_round"]:
            _return(b, o)


def removed_turn(b: BattleAPI, t: Combatant) -> None:
    """Hook (:func:`..spell_control.removed_turn`): a hurled creature whose warlock can take no turn
    (dead, down or gone) comes back at its own turn."""
    v = t.conditions.get("removed")
    by = b.creatures.get(v["by"])
    if by is None or by.dead or not by.conscious:
        _return(b, t)


def _return(b: BattleAPI, t: Combatant) -> None:
    removal.come_back(b, t, "back from hell")
    if t.creature_type != "fiend":
        amount = b.roller.roll_damage("10d10", what=f"hurl through hell {t.cid}")
        b.damage(t, amount, "psychic", magical=True, source=None)


# ================================================================ Pact of the Chain
def chain_day_options(run, c) -> list:
    """Between fights (:func:`..spell_summons.day_options`): a chain warlock casts Find Familiar as a
    ritual (no slot), one of the special forms or an ordinary familiar's."""
    if "pact_of_the_chain" not in c.features or c.dead:
        return []
    plain = [m for m, _n in spell_data.prepared_summons("find-familiar")["tiers"]["1"]]
    return [Opt(f"{c.cid} casts Find Familiar as a ritual (Pact of the Chain, no slot): {content.monster(k).name} "
                f"(all day; it attacks when {c.cid} forgoes an attack)", "chain_familiar", (c.cid, k))
            for k in (*CHAIN_FORMS, *plain)]


def chain_familiar(c: Combatant, form: str, cid: str) -> Combatant:
    """The familiar's combatant: its attacks are kept aside (a familiar can't attack on its own;
    the warlock lends it one of its attacks, then it strikes with its reaction)."""
    s = build_monster(form, cid, c.side, (0, 0, 0))
    s.creature_type = spell_data.prepared_summons("find-familiar").get("type", s.creature_type)
    s.resources["chain_attacks"] = tuple(s.attacks)
    s.attacks, s.multiattack, s.save_actions = (), (), ()
    return s


def placed_familiar(c: Combatant, form: str, pos: tuple) -> Combatant:
    """A chain familiar already in a fight beside c (as :func:`..spell_summons.day_fighters` leaves it)."""
    s = chain_familiar(c, form, f"{c.cid}_{form}")
    s.pos = pos
    s.conditions = {"summoned": {"by": c.cid, "spell": "find-familiar"}}
    s.resources.update(summoned_by=c.cid, prepared="find-familiar")
    return s


def chain_day_apply(run, opt, prepared: list) -> None:
    """The ritual: the familiar waits for the next fight (one familiar at a time). ``prepared``:
    the Day's creatures conjured for the next fight (:func:`..spell_summons.day_apply` keeps it)."""
    cid, form = opt.data
    c = run.party[cid]
    prepared[:] = [e for e in prepared if not (e["owner"] == cid and e["spell"] == "find-familiar")]
    s = chain_familiar(c, form, f"{cid}_{form}_familiar")
    prepared.append({"owner": cid, "spell": "find-familiar", "creature": s, "lasts": "all_day", "fights": 0})
    run.event("cast", f"{cid} casts find-familiar as a ritual (Pact of the Chain): {form}")


def _familiar(b: BattleAPI, c: Combatant):
    for o in b.creatures.values():
        if o.resources.get("summoned_by") == c.cid and "chain_attacks" in o.resources and not o.dead:
            return o
    return None


def _familiar_targets(b: BattleAPI, s: Combatant) -> list:
    out = []
    for a in s.resources["chain_attacks"]:
        out += [(a, t) for t in b.targets_for_attack(s, a)]
    return out


def chain_options(b: BattleAPI, c: Combatant) -> list:
    """Menu: forgo one attack of the Attack action so the familiar attacks with its reaction."""
    e = c.economy
    if e.attacks_left == 0 and e.actions <= 0:
        return []
    s = _familiar(b, c)
    if s is None or not s.conscious or s.incapacitated or not s.economy.reaction or not _familiar_targets(b, s):
        return []
    return [option(f"Pact of the Chain: forgo one attack; {s.cid} attacks with its reaction", "feature", ("chain",))]


def chain_target_options(b: BattleAPI, c: Combatant) -> list:
    s = _familiar(b, c)
    if s is None:
        return []
    first = {}
    for a, t in _familiar_targets(b, s):   # one option a creature: the first of its attacks that reaches
        first.setdefault(t.cid, (a, t))
    return [Opt(f"{s.cid} attacks {t.cid} with {a.key} ({a.short()}) [{b.distance(s, t)} ft]", "target",
                (t.cid,)) for a, t in first.values()]


def chain_attack(b: BattleAPI, c: Combatant, t: Combatant) -> None:
    """The warlock's attack is spent; the familiar makes one attack with its reaction."""
    e = c.economy
    s = _familiar(b, c)
    a = next((a for a, o in _familiar_targets(b, s) if o is t), None) if s is not None else None
    if a is None:   # nothing to do (not offered so): back to the menu, nothing spent
        b.back_to_menu(c)
        return
    if e.attacks_left == 0:   # this takes the Attack action
        e.actions -= 1
        e.attacks_left = 1 + c.resources.get("extra_attacks", 1) if "extra_attack" in c.features else 1
    e.attacks_left -= 1
    s.economy.reaction = False
    b.event("pact_of_the_chain", f"{c.cid} forgoes an attack: {s.cid} attacks {t.cid}", creature=c.cid,
            target=t.cid)
    if b.make_attack(s, a, t, then="menu") is None:
        return
    if b.check_outcome():
        return
    b.back_to_menu(c)


# ================================================================ Minions of Chaos
def minions_ready(c: Combatant, key: str) -> bool:
    """Whether a warlock's Conjure Elemental (the invocation's one casting a long rest) is left."""
    return key != "conjure-elemental" or "minions_of_chaos" not in c.features or c.resources.get("minions_of_chaos", 0) > 0


def minions_cast(c: Combatant, key: str) -> None:
    if key == "conjure-elemental" and "minions_of_chaos" in c.features:
        c.resources["minions_of_chaos"] = 0
