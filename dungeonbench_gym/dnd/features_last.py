"""The last SRD class features: reactions after an attack, Hurl Through Hell, Land's Stride,
Thief's Reflexes, Pact of the Chain and Minions of Chaos.

Hooks (one line each, cheap for a creature without the feature): :func:`.engine.Battle.make_attack`
calls :func:`after_attack` once an attack has landed or missed (only when the attack can be paused:
``then`` is not ``"none"``, and a PC is involved); the engine's reaction decisions dispatch
:data:`REACTIONS` here; ``Battle.reach`` and the route search walk :func:`walk_map`;
``Battle.next_turn`` calls :func:`reflex_order` at the start of rounds 1 and 2;
:mod:`.spell_control` hands back hurled creatures; :mod:`.spell_summons` asks for the chain
familiar's ritual and the Minions of Chaos limit; :mod:`.features_more` lists and carries out the
chain familiar's attack. :func:`finish_pc` (called from :func:`.features_more.finish_pc`) gives the
builds of :mod:`.builders.pcs` their feature names, resources and spells.

What is played, and how (every choice is a ``reaction`` decision of the engine, with a "no" option):

* Retaliation (Path of the Berserker, 14): the barbarian took damage from an attack by a creature
  within 5 ft: its reaction buys one melee weapon attack on that creature (one option per melee
  weapon it carries).
* Hunter's Prey: Giant Killer (Hunter, 3; ``choices``: ``giant_killer``, instead of Colossus Slayer):
  a Large or larger creature within 5 ft hit or missed the ranger with an attack, and the ranger sees
  it: its reaction buys one weapon attack on that creature right after.
* Superior Hunter's Defense: Stand Against the Tide (Hunter, 15; ``choices``:
  ``stand_against_the_tide``, instead of Evasion): a hostile creature missed the ranger with a melee
  attack: the ranger's reaction makes it repeat the same attack against another creature of the
  ranger's choice within that attack's reach (one option per creature; the attacker's own allies
  come first).
* Hurl Through Hell (the Fiend, 14): once a long rest, when the warlock hits a creature with an
  attack, it may send the creature away: it leaves the map (the removal of :mod:`.spell_control`)
  and comes back at the end of the warlock's next turn (to its space or the nearest free one),
  then takes 10d10 psychic damage unless it is a fiend. Should the warlock have no such turn (dead
  or down), the creature comes back at its own turn.
* Land's Stride (ranger 8, Circle of the Land druid 6): the map's difficult terrain (nonmagical:
  rubble, undergrowth, low walls) costs the creature no extra movement; difficult terrain made by a
  spell (Spike Growth, Web, ...) still does, and Spike Growth's magical thorns still hurt. The plant
  spells that restrain (Entangle) are saved against with advantage (the first save and the repeats).
* Thief's Reflexes (Thief, 17): in the first round the rogue takes a second turn at its initiative
  minus 10 (a second place in the order for round 1 only). The engine has no surprise, so the
  SRD's "not when surprised" never applies.
* Pact of the Chain (warlock 3; ``choices``: ``pact_of_the_chain``): between fights the warlock casts
  Find Familiar as a ritual (no slot) in an ordinary form or a special one (imp, pseudodragon,
  quasit, sprite); the familiar joins every later fight that day (the machinery of
  :mod:`.spell_summons`). It makes no attacks on its own turns; when the warlock takes the Attack
  action it may forgo one attack (a menu option, then the target) and the familiar attacks with its
  reaction.
* Eldritch Invocation: Minions of Chaos (warlock 9; ``choices``: ``minions_of_chaos``): Conjure
  Elemental joins the warlock's spells, cast between fights with a warlock slot, once a long rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .grid import DIFFICULT, OVERGROWN
from .model.options import Opt
from .model.factories import build_monster
from .rules import hooks

if TYPE_CHECKING:   # pragma: no cover
    from .rules.api import BattleAPI
    from .state import AttackProfile, Combatant

FEATURES = frozenset(("retaliation", "giant_killer", "stand_against_the_tide", "hurl_through_hell"))
REACTIONS = ("retaliation", "giant_killer", "stand_against_the_tide", "hurl_through_hell")
BIG = ("large", "huge", "gargantuan")
PLANT_SPELLS = ("entangle",)   # plants magically made to impede movement: Land's Stride's advantage
STAGES = ("hurl_through_hell", "retaliation", "giant_killer", "stand_against_the_tide")


def _opt(label, data=()):
    return Opt(label, "reaction", tuple(data))


# ================================================================ builds
def finish_pc(pc: Combatant, arch: dict, lvls: dict, f: list, r: dict, spells: list) -> list:
    """This module's feature names, resources and spells (added to ``spells``) for a fresh build;
    returns the new feature list."""
    choices = arch.get("choices", ())
    if lvls.get("barbarian", 0) >= 14 and "frenzy" in f:   # our barbarians walk the Path of the Berserker
        f.append("retaliation")
    ran = lvls.get("ranger", 0)
    if ran >= 3 and "giant_killer" in choices:
        f = [k for k in f if k not in ("colossus_slayer", "horde_breaker")] + ["giant_killer"]
    if ran >= 15 and "stand_against_the_tide" in choices:
        f = [k for k in f if k not in ("evasion", "uncanny_dodge")] + ["stand_against_the_tide"]
    if ran >= 8 or (lvls.get("druid", 0) >= 6 and arch.get("subclass") == "land"):
        f.append("lands_stride")
    war = lvls.get("warlock", 0)
    if lvls.get("rogue", 0) >= 17 and "classes" not in arch:   # our rogues are Thieves
        f.append("thiefs_reflexes")
    if war >= 3 and "pact_of_the_chain" in choices:
        f.append("pact_of_the_chain")
    if war >= 9 and "minions_of_chaos" in choices:
        f.append("minions_of_chaos")
        r["minions_of_chaos"] = r["minions_of_chaos_max"] = 1
        spells.append("conjure-elemental")
    if lvls.get("warlock", 0) >= 14 and arch.get("subclass") == "fiend":
        f.append("hurl_through_hell")
        r["hurl_through_hell"] = r["hurl_through_hell_max"] = 1
    return f


# ================================================================ after an attack
def _melee_weapons(c: Combatant) -> list:
    return [a for a in c.attacks if a.melee and not a.spell]


def _able(c: Combatant) -> bool:
    return c.conscious and not c.incapacitated and c.economy.reaction and not c.dead


def _offer(b: BattleAPI, stage: str, c: Combatant, t: Combatant, st: dict) -> bool:
    """Whether ``stage``'s decision applies to c's attack on t (st: hit, melee, damaged, attack)."""
    if stage == "hurl_through_hell":
        return (st["hit"] and "hurl_through_hell" in c.features and c.resources.get("hurl_through_hell", 0) > 0
                and not t.dead and t.hp > 0 and not c.dead)
    if c.dead or t.dead or stage not in t.features or not _able(t) or "blinded" in t.conditions \
            or ("invisible" in c.conditions and not _sees_invisible(t)):
        return False
    if stage == "retaliation":
        return st["damaged"] and b.distance(c, t) <= 5 and any(b.distance(t, c) <= max(a.reach, 5)
                                                                for a in _melee_weapons(t))
    if stage == "giant_killer":
        return c.size in BIG and b.distance(c, t) <= 5 and bool(_weapons_on(b, t, c))
    if stage == "stand_against_the_tide":
        return not st["hit"] and st["melee"] and st["key"] in {a.key for a in c.attacks} \
            and bool(_tide_targets(b, t, c, st["key"]))
    return False


def _sees_invisible(t: Combatant) -> bool:
    from . import spellbook
    return spellbook.sees_invisible(t)


def _weapons_on(b: BattleAPI, c: Combatant, t: Combatant) -> list:
    """c's weapon attacks that reach t now (melee within reach, or a ranged weapon in long range)."""
    d = b.distance(c, t)
    return [a for a in c.attacks if not a.spell and ((a.melee and d <= max(a.reach, 5))
                                                      or (not a.melee and a.range_long and d <= a.range_long))]


def _tide_targets(b: BattleAPI, reactor: Combatant, attacker: Combatant, key: str) -> list:
    a = attacker.attack(key)
    reach = max(a.reach, 5)
    out = [o for o in b.creatures.values() if o is not attacker and o is not reactor and not o.dead
           and "removed" not in o.conditions and b.distance(attacker, o) <= reach]
    # the attacker's own allies first (the planner takes the first "yes"), then the nearest
    return sorted(out, key=lambda o: (o.side != attacker.side, o.is_pc, o.hp, o.cid))


def after_attack(b: BattleAPI, c: Combatant, t: Combatant, a: AttackProfile, melee: bool, hit: bool,
                 then: str, before: int, start: int = 0) -> bool:
    """Hook at the end of :meth:`.engine.Battle.make_attack`: True when a decision of this module
    is now pending (the attack then carries on through ``then`` once it is answered)."""
    if then == "none" or b.outcome is not None:
        return False
    st = {"hit": bool(hit), "melee": bool(melee), "damaged": t.hp + t.temp_hp < before, "key": a.key}
    for stage in STAGES[start:]:
        if _offer(b, stage, c, t, st):
            actor = c if stage == "hurl_through_hell" else t
            b.pending = {"kind": "reaction", "actor": actor.cid, "reaction": stage, "attacker": c.cid,
                         "target": t.cid, "then": then, "st": st, "stage": STAGES.index(stage),
                         "prompt": _prompt(stage, c, t)}
            b.forget_options()
            return True
    return False


def _prompt(stage: str, c: Combatant, t: Combatant) -> str:
    return {"hurl_through_hell": f"{c.cid}: you hit {t.cid}; hurl it through hell?",
            "retaliation": f"{t.cid}: {c.cid} damaged you; retaliate?",
            "giant_killer": f"{t.cid}: {c.cid} (a {c.size} creature) attacked you; Giant Killer?",
            "stand_against_the_tide": f"{t.cid}: {c.cid} missed you; turn its attack on another?"}[stage]


def reaction_options(b: BattleAPI, c: Combatant, p: dict) -> list:
    stage = p["reaction"]
    attacker, target = b.creatures[p["attacker"]], b.creatures[p["target"]]
    out = []
    if stage == "hurl_through_hell":
        dmg = "no damage: a fiend" if target.creature_type == "fiend" else "then 10d10 psychic"
        out.append(_opt(f"Hurl Through Hell: {target.cid} vanishes until the end of your next turn ({dmg}; "
                        f"once a long rest)", (True, target.cid)))
    elif stage == "retaliation":
        out += [_opt(f"Retaliation: attack {attacker.cid} with {a.key} ({a.short()})", (True, a.key))
                for a in _melee_weapons(c) if b.distance(c, attacker) <= max(a.reach, 5)]
    elif stage == "giant_killer":
        out += [_opt(f"Giant Killer: attack {attacker.cid} with {a.key} ({a.short()})", (True, a.key))
                for a in _weapons_on(b, c, attacker)]
    elif stage == "stand_against_the_tide":
        out += [_opt(f"Stand Against the Tide: {attacker.cid} repeats its {p['st']['key']} against {o.cid}",
                     (True, o.cid)) for o in _tide_targets(b, c, attacker, p["st"]["key"])]
    return out + [_opt("Do not react", (False, None))]


def resolve_reaction(b: BattleAPI, c: Combatant, p: dict, data: tuple) -> None:
    stage, then, st = p["reaction"], p["then"], p["st"]
    attacker, target = b.creatures[p["attacker"]], b.creatures[p["target"]]
    b.pending = {}
    if data[0]:
        if stage == "hurl_through_hell":
            _hurl(b, c, target)
        elif stage in ("retaliation", "giant_killer"):
            c.economy.reaction = False
            a = c.attack(data[1])
            name = "Retaliation" if stage == "retaliation" else "Giant Killer"
            b.event("reaction", f"{c.cid} uses {name} on {attacker.cid}", creature=c.cid, target=attacker.cid,
                    feature=stage)
            if not attacker.dead and b.make_attack(c, a, attacker, melee=a.melee, then=then) is None:
                return   # the attacker reacts in turn (Shield); the chain carries on from there
        elif stage == "stand_against_the_tide":
            c.economy.reaction = False
            other = b.creatures[data[1]]
            b.event("reaction", f"{c.cid} stands against the tide: {attacker.cid}'s attack turns on {other.cid}",
                    creature=c.cid, target=other.cid, feature=stage)
            if not attacker.dead and not other.dead and \
                    b.make_attack(attacker, attacker.attack(st["key"]), other, melee=True, then=then) is None:
                return
    if b.check_outcome():
        return
    # a later stage of the same attack (Retaliation after the warlock's choice, ...)
    if (not data[0] or stage == "hurl_through_hell") and _later(b, attacker, target, then, st, p["stage"] + 1):
        return
    b.after_attack(then, attacker)


def _later(b: BattleAPI, c: Combatant, t: Combatant, then: str, st: dict, start: int) -> bool:
    for stage in STAGES[start:]:
        if _offer(b, stage, c, t, st):
            b.pending = {"kind": "reaction", "actor": (c if stage == "hurl_through_hell" else t).cid,
                         "reaction": stage, "attacker": c.cid, "target": t.cid, "then": then, "st": st,
                         "stage": STAGES.index(stage), "prompt": _prompt(stage, c, t)}
            b.forget_options()
            return True
    return False


# ================================================================ Hurl Through Hell
def _hurl(b: BattleAPI, c: Combatant, t: Combatant) -> None:
    from . import spell_control
    c.resources["hurl_through_hell"] -= 1
    # back at the end of the warlock's next turn: this round's turn when it is still to come
    own_turn = b.active is c
    later_this_round = c.cid in b.order and b.order.index(c.cid) > b.turn_index
    until = b.round + (0 if (not own_turn and later_this_round) else 1)
    spell_control._leave(b, t)
    t.dead = True
    t.conditions["removed"] = {"by": c.cid, "spell": "hurl-through-hell", "returns": True, "hurl": True,
                               "until_round": until}
    spell_control._on(b)
    b.forget_reach()
    b.event("removed", f"{c.cid} hurls {t.cid} through the lower planes", creature=t.cid,
            spell="hurl-through-hell", by=c.cid)


def end_of_turn(b: BattleAPI, c: Combatant) -> None:
    """Hook (:func:`.spell_control.end_of_turn`): those c hurled come back at the end of its next turn."""
    for o in sorted(b.creatures.values(), key=lambda o: o.cid):
        v = o.conditions.get("removed")
        if v and v.get("hurl") and v["by"] == c.cid and b.round >= v["until_round"]:
            _return(b, o)


def removed_turn(b: BattleAPI, t: Combatant) -> None:
    """Hook (:func:`.spell_control.removed_turn`): a hurled creature whose warlock can take no turn
    (dead, down or gone) comes back at its own turn."""
    v = t.conditions.get("removed")
    by = b.creatures.get(v["by"])
    if by is None or by.dead or not by.conscious:
        _return(b, t)


def _return(b: BattleAPI, t: Combatant) -> None:
    from . import spell_control
    spell_control._back(b, t, "back from hell")
    if t.creature_type != "fiend":
        amount = b.roller.roll_damage("10d10", what=f"hurl through hell {t.cid}")
        b.damage(t, amount, "psychic", magical=True, source=None)


# ================================================================ Pact of the Chain
CHAIN_FORMS = ("imp", "pseudodragon", "quasit", "sprite")   # the pact's special forms


def chain_day_options(run, c) -> list:
    """Between fights (:func:`.spell_summons.day_options`): a chain warlock casts Find Familiar as a
    ritual (no slot), one of the special forms or an ordinary familiar's."""
    if "pact_of_the_chain" not in c.features or c.dead:
        return []
    from . import content, spell_summons
    plain = [m for m, _n in spell_summons._prep("find-familiar")["tiers"]["1"]]
    return [Opt(f"{c.cid} casts Find Familiar as a ritual (Pact of the Chain, no slot): {content.monster(k).name} "
                f"(all day; it attacks when {c.cid} forgoes an attack)", "chain_familiar", (c.cid, k))
            for k in (*CHAIN_FORMS, *plain)]


def chain_familiar(c: Combatant, form: str, cid: str) -> Combatant:
    """The familiar's combatant: its attacks are kept aside (a familiar can't attack on its own;
    the warlock lends it one of its attacks, then it strikes with its reaction)."""
    from . import spell_summons
    s = build_monster(form, cid, c.side, (0, 0, 0))
    s.creature_type = spell_summons._prep("find-familiar").get("type", s.creature_type)
    s.resources["chain_attacks"] = tuple(s.attacks)
    s.attacks, s.multiattack, s.save_actions = (), (), ()
    return s


def placed_familiar(c: Combatant, form: str, pos: tuple) -> Combatant:
    """A chain familiar already in a fight beside c (as :func:`.spell_summons.day_fighters` leaves it)."""
    s = chain_familiar(c, form, f"{c.cid}_{form}")
    s.pos = pos
    s.conditions = {"summoned": {"by": c.cid, "spell": "find-familiar"}}
    s.resources.update(summoned_by=c.cid, prepared="find-familiar")
    return s


def chain_day_apply(run, opt) -> None:
    """The ritual: the familiar waits for the next fight (one familiar at a time)."""
    from . import spell_summons
    cid, form = opt.data
    c = run.party[cid]
    kept = [e for e in spell_summons._prepared(run) if not (e["owner"] == cid and e["spell"] == "find-familiar")]
    run.__dict__["_prepared_summons"] = kept
    s = chain_familiar(c, form, f"{cid}_{form}_familiar")
    kept.append({"owner": cid, "spell": "find-familiar", "creature": s, "lasts": "all_day", "fights": 0})
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
    """Menu (through :func:`.features_more.options`): forgo one attack of the Attack action so the
    familiar attacks with its reaction."""
    e = c.economy
    if e.attacks_left == 0 and e.actions <= 0:
        return []
    s = _familiar(b, c)
    if s is None or not s.conscious or s.incapacitated or not s.economy.reaction or not _familiar_targets(b, s):
        return []
    return [_menu(f"Pact of the Chain: forgo one attack; {s.cid} attacks with its reaction", ("chain",))]


def _menu(label, data):
    return Opt(label, "feature", tuple(data))


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


# ================================================================ Thief's Reflexes
def reflex_order(b: BattleAPI) -> None:
    """At the start of round 1: a rogue with Thief's Reflexes gets a second place in the order, at
    its initiative - 10 (after every creature above that count; ties go after); at the start of
    round 2 that place is taken out again."""
    if b.round == 1:
        for c in sorted(b.creatures.values(), key=lambda c: c.cid):
            if "thiefs_reflexes" in c.features and not c.dead and b.order.count(c.cid) == 1:
                late = c.initiative - 10
                i = b.order.index(c.cid) + 1
                while i < len(b.order) and b.creatures[b.order[i]].initiative >= late:
                    i += 1
                b.order.insert(i, c.cid)
                b.__dict__["_reflexes"] = True
                b.event("thiefs_reflexes", f"{c.cid} will take a second turn this round (initiative {late})",
                        creature=c.cid)
    elif b.__dict__.pop("_reflexes", False):
        for cid in sorted({cid for cid in b.order if b.order.count(cid) > 1}):
            j = len(b.order) - 1 - b.order[::-1].index(cid)
            del b.order[j]


# ================================================================ Land's Stride
def stride_map(m):
    """The map as a creature with Land's Stride walks it: the map's own (nonmagical) difficult
    terrain costs nothing extra. Built once per map (kept in the map's cache); the map itself
    when it has no difficult terrain. Spell zones stay difficult (``difficult_extra``). Plant
    Growth's overgrowth is instantaneous, so nonmagical plants: it costs nothing extra either."""
    slow = DIFFICULT | OVERGROWN   # (SRD: "pass through nonmagical plants without being slowed")
    got = m._cache.get("lands-stride")
    if got is not None:
        return got
    if not any(f & slow for f in m._flags):
        got = m
    else:
        import numpy as np
        got = object.__new__(type(m))
        for k in type(m).__slots__:
            setattr(got, k, getattr(m, k))
        got._flags = type(m._flags)(f & ~slow for f in m._flags)
        flags = np.array(got._flags, dtype=np.int32).reshape(m.height, m.width)
        flags.flags.writeable = False
        got.flags = flags
        got._cache, got._pair_cache = {}, {}
    m._cache["lands-stride"] = got
    return got


def walk_map(b: BattleAPI, c: Combatant):
    """The map c's ground moves are searched on (Land's Stride: without the map's difficult terrain)."""
    return stride_map(b.map) if "lands_stride" in c.features else b.map


def save_adv(t: Combatant, spell: str | None) -> bool:
    """Land's Stride: advantage on a save against a plant spell that impedes movement (Entangle)."""
    return spell in PLANT_SPELLS and "lands_stride" in t.features


# ---- what this module answers in the engine's dispatch (dnd/rules/hooks.py)
for _name in REACTIONS:   # Retaliation, Giant Killer, Stand Against the Tide, Hurl Through Hell
    hooks.REACTIONS.register(_name, hooks.Reaction(reaction_options, resolve_reaction))
