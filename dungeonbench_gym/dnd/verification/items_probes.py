"""Probes of :mod:`..items`: each makes one of its rules happen through the engine's
decision options in a small battle, and raises AssertionError when it cannot."""

from __future__ import annotations

from .. import content
from ..builders.monsters import monster_combatant
from ..builders.pcs import build_pc
from ..dice import parse
from ..engine import Battle
from ..grid import BattleMap
from ..items import equip, item, settle, status
from ..lighting import darken, needs_dark
from ..model.archetypes import ARCHETYPES
from ..spell_plants import scroll_arena as grove
from ..spell_utility import scroll_arena
from ..state import ABILITIES, Combatant
from ..rules import spell_data


def executable(key: str) -> bool:
    return status(key)[0] == "executable"


_ARENA = ["##########", "#........#", "#........#", "#........#", "#........#", "#........#", "#........#",
          "##########"]


def _arena(pc: Combatant, foe: str = "bandit-captain"):
    """A small room: the PC at (2, 2), a humanoid foe next to it; the PC's turn."""
    enemy = monster_combatant(foe, "foe", "enemies", (3, 2, 0))
    b = Battle(BattleMap.from_dict({"layout": _ARENA}), [pc, enemy], seed=0, max_options=4096)   # no groups
    _turn_of(b, pc.cid)
    return b, enemy


def _turn_of(b, cid: str) -> None:
    b.order = [cid] + [o for o in b.order if o != cid]
    b.round, b.turn_index, b.outcome = 0, -1, None
    b.next_turn()


def choose(b, pred, what: str) -> None:
    for i, o in enumerate(b.decision.options):
        if pred(o):
            b.choose(i)
            return
    raise AssertionError(f"{what} is not offered: {[o.label for o in b.decision.options]}")


def _finish(b, cid: str) -> None:
    """Take the first option of every follow-up decision until c is back at its menu."""
    for _ in range(30):
        d = b.decision
        if d is None or (d.kind == "action" and d.actor == cid):
            return
        if d.kind == "reaction":   # a foe's Parry or a Shield: declined (the last option)
            b.choose(len(d.options) - 1)
        elif d.actor == cid:
            b.choose(0)
        else:
            return
    raise AssertionError("the item's follow-up decisions do not end")


def _reader(rec: dict) -> str:
    """An archetype able to use the item: a caster whose class list has the spell, else a fighter."""
    use = rec.get("use") or {}
    spell = use.get("spell") or (use.get("spells") or [{}])[0].get("spell")
    if spell and (use.get("kind") == "scroll" or use.get("caster")):
        classes = content.spell(spell).classes
        for arch in ("wizard", "cleric", *ARCHETYPES):
            if ARCHETYPES[arch]["class"] in classes:
                return arch
        raise AssertionError(f"no PC archetype can read {spell}")
    wear = rec.get("wear") or {}
    if wear.get("spell_attack"):
        return "wizard"
    return "fighter"


def probe(key: str) -> None:
    """Make the item happen through the engine's real decision options; AssertionError otherwise."""
    rec = item(key)
    assert executable(key), f"{key} is not executable: {status(key)[1]}"
    kind = rec["kind"]
    if kind == "weapon":
        pc = equip(build_pc("fighter", 5, "pc", (2, 2, 0)), [key])
        plain = equip(build_pc("fighter", 5, "pc", (2, 2, 0)), [rec["base"]])
        akey = key if key != rec["base"] else rec["base"]
        a = pc.attack(akey)
        p0 = plain.attack(rec["base"])
        assert a.to_hit - p0.to_hit == rec.get("bonus", 0) + (a.to_hit - p0.to_hit - rec.get("bonus", 0)
                                                                if rec.get("finesse") else 0), "to-hit bonus"
        assert parse(a.damage[0].dice).bonus >= parse(p0.damage[0].dice).bonus + rec.get("bonus", 0)
        b, _ = _arena(pc)
        choose(b, lambda o: o.kind == "attack" and o.data[0] == akey, f"an attack with {akey}")
        choose(b, lambda o: o.kind == "target", "a target")
        assert any(e.get("event") == "attack" and e.get("attack") == akey for e in b.log), "no attack event"
        return
    if kind == "ammunition":
        pc = equip(build_pc("fighter", 5, "pc", (2, 2, 0)), [rec["weapons"][0], key])
        b, _ = _arena(pc)
        choose(b, lambda o: o.kind == "attack" and o.data[0].endswith(":" + key), f"a shot with {key}")
        choose(b, lambda o: o.kind == "target", "a target")
        assert pc.resources[f"ammo_{key}"] == 0, "the piece of ammunition is not spent"
        return
    use = rec.get("use")
    if use is not None:
        _probe_use(rec)
        return
    wear = dict(rec.get("wear") or {})
    arch = "wizard" if kind in ("armor", "shield") or wear.get("unarmored_ac") or wear.get("spell_attack") \
        else "fighter"
    fresh = build_pc(arch, 5, "pc", (2, 2, 0))
    pc = equip(build_pc(arch, 5, "pc", (2, 2, 0)), [key])
    seen = False
    if pc.ac != fresh.ac:   # AC: a foe's attack roll is made against the new AC
        b, _ = _arena(pc)
        _turn_of(b, "foe")
        choose(b, lambda o: o.kind in ("attack", "multiattack"), "the foe's attack")
        if b.decision.kind != "target":
            choose(b, lambda o: o.kind == "attack", "the foe's attack")
        choose(b, lambda o: o.kind == "target", "the foe's target")
        if b.decision is not None and b.decision.kind == "reaction":   # a wizard's Shield: not now
            choose(b, lambda o: o.data == (False,), "declining the reaction")
        ev = [e for e in b.log if e.get("event") == "attack" and e.get("target") == "pc"]
        assert ev and ev[0]["ac"] == pc.ac, f"attack against AC {ev and ev[0]['ac']}, expected {pc.ac}"
        seen = True
    for t in [*wear.get("resist", ()), *wear.get("immune", ())]:
        b, _ = _arena(pc)
        lost = b.damage(pc, 10, t)
        assert lost == (0 if t in wear.get("immune", ()) else 5), f"{t} damage not reduced ({lost})"
        seen = True
    if wear.get("resist_nonmagical"):
        b, _ = _arena(pc)
        assert b.damage(pc, 10, "slashing") == 5 and b.damage(pc, 10, "slashing", magical=True) == 10
        seen = True
    if wear.get("saves"):
        assert all(pc.saves[ab] == fresh.saves[ab] + wear["saves"] for ab in ABILITIES)
        seen = True
    for ab in {**wear.get("score_set", {}), **wear.get("score_plus", {})}:
        assert pc.abilities[ab] > fresh.abilities[ab] and pc.saves[ab] >= fresh.saves[ab]
        seen = True
    if wear.get("fly"):
        b, _ = _arena(pc)
        choose(b, lambda o: o.kind == "move", "Move")
        assert any("ft up" in o.label for o in b.destination_options(pc)), "no destination in the air"
        seen = True
    if wear.get("spell_attack"):
        b, _ = _arena(pc)
        want = f"{pc.resources['spell_attack']:+d}"
        assert pc.resources["spell_attack"] == fresh.resources["spell_attack"] + wear["spell_attack"]
        choose(b, lambda o: o.kind == "spell" and o.data[0] == "fire-bolt" and want in o.label, "Fire Bolt")
        seen = True
    if wear.get("magic_resistance"):
        b, _ = _arena(pc)
        b.saving_throw(pc, "wis", 10, magic=True)
        assert any(e.get("advantage") == "advantage" for e in b.log if "save pc wis" in str(e.get("what", ""))) \
            or "magic_resistance" in pc.features
        seen = True
    if wear.get("max_hp_per_level"):
        assert pc.max_hp == fresh.max_hp + pc.level
        seen = True
    if wear.get("light"):   # in a dark room its carrier and the foe beside it see each other (dnd/lighting.py)
        unseen = {"target unseen (obscured)", "attacker unseen (obscured)"}
        for who, sees in ((pc, True), (fresh, False)):
            b, foe = _arena(who)
            darken(b)
            reasons = set(b.attack_modifiers(who, foe, melee=True)[2])
            assert (not reasons & unseen) == sees, f"{key}: light {'not ' if sees else ''}seen ({reasons})"
        seen = True
    assert seen, f"{key}: nothing observable"


def _probe_use(rec: dict) -> None:
    key, use = rec["key"], rec["use"]
    level = 17 if use.get("level", 0) > 3 else 5   # a reader who can cast it without a check
    pc = equip(build_pc(_reader(rec), level, "pc", (2, 2, 0)), [key])
    kind = use["kind"]
    pc.hp = 1 if kind == "heal" else pc.max_hp - 5   # wounded: healing spells have a target
    spell = use.get("spell") or (use.get("spells") or [{}])[0].get("spell")
    beasts = bool(spell) and spell_data.mech(spell).get("types") == ["beast"]   # Animal Friendship: a beast foe
    b, _ = _arena(pc, "wolf" if beasts else "bandit-captain")
    if spell:   # Light, Darkvision, Daylight's light: cast in a dark room (dnd/lighting.py)
        if needs_dark(spell):
            darken(b)
    if kind == "water_breathing":   # drunk under water (dnd/spell_utility.py)
        b.underwater = True
        b.forget_options()
    if spell and spell_data.mech(spell).get("mech") == "utility":   # water, or an object to use (dnd/spell_utility.py)
        scroll_arena(b, spell)
    if spell and spell_data.mech(spell).get("mech") == "plants":   # a room with trees and undergrowth (dnd/spell_plants.py)
        grove(b)
    slots = pc.resources.get("slots")
    before = (pc.hp, pc.ac, dict(pc.abilities), pc.resist, pc.fly, dict(pc.conditions), pc.temp_hp)
    choose(b, lambda o: o.kind in ("item", "potion") and o.data and o.data[0] == key, f"using {key}")
    _finish(b, "pc")
    assert b.decision is not None or b.outcome   # the menu again: the item's casting numbers are settled
    after = (pc.hp, pc.ac, dict(pc.abilities), pc.resist, pc.fly, dict(pc.conditions), pc.temp_hp)
    if kind in ("scroll", "cast"):
        spell = use.get("spell") or use["spells"][0]["spell"]
        assert any(e.get("event") == "cast" and e.get("spell") == spell for e in b.log), f"{spell} not cast"
        if b.outcome is not None:   # the spell ended the battle: the Day track settles the kit
            settle(pc)
        assert pc.resources.get("slots") == slots, "the item spent the caster's own slot"
        assert "item_cast" not in pc.resources, "the item's casting numbers were not settled"
    elif kind == "ray":
        assert any(e.get("event") == "save" and e.get("creature") == "foe" for e in b.log), "no save"
    elif kind == "poison":
        assert any(e.get("event") == "damage" and e.get("creature") == "pc" for e in b.log), "no poison damage"
    else:
        assert after != before, f"{key}: nothing changed"
    assert any(e.get("event") == "item" and e.get("item") == key for e in b.log), "no item event"
