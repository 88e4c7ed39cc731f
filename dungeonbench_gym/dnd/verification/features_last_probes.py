"""Probes of :mod:`..features_last`: each makes one of its rules happen through the engine's
decision options in a small battle, and raises AssertionError when it cannot."""

from __future__ import annotations

from .. import heuristic
from ..builders.pcs import build_pc, long_rest
from ..engine import Battle
from ..features_last import placed_familiar
from ..grid import BattleMap
from ..spell_buffs import choose_day
from . import feature_harness as fp
from .spell_buffs_probes import day_probe_run


def _foe_attacks(b, text, *values, rest=10):
    """A foe's attack with scripted dice, its target picked when it is asked for."""
    fp.script_dice(b, *values, rest=rest)
    fp.pick(b, "attack", text)
    if b.decision.kind == "target":
        fp.pick(b, "target")


def _day_with(level, choices):
    """A Day track run at its first intermission, its first member swapped for a warlock."""
    run = day_probe_run("eldritch-blast")
    cid = next(iter(run.party))
    w = build_pc("warlock", level, cid, (0, 0, 0), choices=choices)
    run.party[cid], run._menu = w, None
    return run, w


def _thief_probes() -> dict:
    """Rogue (Thief): Thief's Reflexes, two turns in the first round."""
    pc, mon, pick = fp.pc, fp.mon, fp.pick

    def reflexes():
        for level, twice in ((16, False), (17, True)):
            c, o = pc("rogue", level), mon("ogre", (12, 9))
            b = fp.battle(c, o)
            c.initiative, o.initiative = 20, 5
            b.order, b.round, b.turn_index, b.outcome = ["p", "m"], 0, -1, None
            b.next_turn()
            assert b.decision.actor == "p" and b.round == 1
            pick(b, "end_turn")
            assert (b.decision.actor == "p" and b.round == 1) == twice, (level, b.decision.actor, b.round)
            if twice:
                assert b.decision.kind == "action" and c.economy.actions == 1   # a whole new turn
                pick(b, "end_turn")
            assert b.decision.actor == "m", b.decision.actor
            for _ in range(60):   # round 2: one turn each again
                if b.round == 2 or b.outcome is not None:
                    break
                b.choose(heuristic.choose(b))
            assert b.round == 2 and b.order == ["p", "m"], (b.round, b.order)

    return {"thiefs-reflexes": reflexes}


def _warlock_day_probes() -> dict:
    """Warlock choices made between a Day's fights: the Pact of the Chain's familiar (then its sting in
    a fight) and Minions of Chaos."""
    mon, pick, has, dice = fp.mon, fp.pick, fp.has, fp.script_dice

    def chain():
        run, w = _day_with(3, ("pact_of_the_chain",))
        slots = sum(w.resources["slots"])
        assert choose_day(run, lambda o: o.kind == "chain_familiar" and o.data == (w.cid, "imp")), "no ritual"
        assert sum(w.resources["slots"]) == slots, "a ritual spends no slot"
        assert choose_day(run, lambda o: o.kind == "continue")
        fam = [o for o in run.battle.creatures.values() if "chain_attacks" in o.resources]
        assert len(fam) == 1 and fam[0].side == w.side and fam[0].cid in run.battle.order and not fam[0].attacks
        # in a fight: the warlock forgoes its attack, the imp stings with its reaction
        for choices, offered in (((), False), (("pact_of_the_chain",), True)):
            w = build_pc("warlock", 3, "p", (2, 2, 0), choices=choices)
            imp = placed_familiar(w, "imp", (4, 2, 0))
            o = mon("ogre", (5, 2))
            b = fp.battle(w, imp, o, first="p")
            assert has(b, "feature", "Pact of the Chain") == offered, [x.label for x in b.decision.options]
            if offered:
                pick(b, "feature", "Pact of the Chain")
                dice(b, 18, 4, rest=1)
                pick(b, "target", "p_imp attacks m")
                assert o.hp < o.max_hp and not imp.economy.reaction and w.economy.actions == 0, (o.hp, w.economy)
                assert not has(b, "feature", "Pact of the Chain")   # its reaction is spent

    def minions():
        assert "conjure-elemental" not in build_pc("warlock", 9, "w", (0, 0, 0)).spells
        run, w = _day_with(9, ("minions_of_chaos",))
        slots = sum(w.resources["slots"])
        assert choose_day(run, lambda o: o.kind == "prepare_summon" and o.data[1] == "conjure-elemental"), "not offered"
        assert sum(w.resources["slots"]) == slots - 1 and w.resources["minions_of_chaos"] == 0
        run._menu = None
        assert sum(w.resources["slots"]) > 0 and not any(
            o.data[1] == "conjure-elemental" for o in run._options() if o.kind == "prepare_summon"), "twice"
        assert choose_day(run, lambda o: o.kind == "continue")
        mine = [o for o in run.battle.creatures.values() if o.resources.get("prepared") == "conjure-elemental"]
        assert mine and all(o.side == w.side for o in mine)
        long_rest(w)
        assert w.resources["minions_of_chaos"] == 1

    return {"pact-of-the-chain": chain, "eldritch-invocation-minions-of-chaos": minions}


def _lands_stride_probes() -> dict:
    """Land's Stride for the druid and the ranger: rubble costs no extra movement and the save
    against magical plants has advantage."""
    mon, pick, dice = fp.mon, fp.pick, fp.script_dice

    def lands_stride(cls, level, below):
        def run():
            layout = ["#" * 16] + ["#" + "," * 14 + "#"] * 10 + ["#" * 16]   # rubble everywhere
            far = {}
            for lvl in (below, level):
                c = build_pc(cls, lvl, "p", (2, 2, 0))
                b = Battle(BattleMap.from_dict({"layout": layout}), [c, mon("ogre", (12, 9))], seed=0,
                           max_options=10 ** 6)
                fp.again(b, "p")
                pick(b, "move")
                far[lvl] = max(o.data[0][0] for o in b.decision.options
                               if o.kind == "destination" and o.data[0][1] == 2)
            assert far[below] == 2 + c.speed // 10 and far[level] == 2 + c.speed // 5, far
            # Entangle (magical plants): the save is made with advantage (a 2 and a 19: a success)
            for lvl, held in ((below, True), (level, False)):
                d = build_pc("druid", 5, "d", (2, 2, 0), side="enemies", spells=("entangle",))
                t = build_pc(cls, lvl, "p", (6, 2, 0))
                b = fp.battle(d, t, first="d")
                pick(b, "spell", "Entangle")
                pick(b, "point_x", "x = 6")
                dice(b, 2, 19, rest=2)
                pick(b, "point_y", "(6, 2)")
                assert ("restrained" in t.conditions) == held, (lvl, t.conditions)
        return run

    return {
        "druid-lands-stride": lands_stride("druid", 6, 5), "ranger-lands-stride": lands_stride("ranger", 8, 7),
    }


def _reaction_probes() -> dict:
    """Features offered as a reaction decision: Retaliation, Giant Killer and Stand Against the Tide
    (after a foe's attack), Hurl Through Hell (after the warlock's own hit)."""
    pc, mon, pick, has, dice = fp.pc, fp.mon, fp.pick, fp.has, fp.script_dice

    def retaliation():
        for level, offered in ((13, False), (14, True)):
            c, o = pc("barbarian", level), mon("ogre", (3, 2))
            b = fp.battle(c, o, first="m")
            _foe_attacks(b, "Greatclub", 15, 3, 3)   # a hit for 2d8+4 = 10
            assert c.hp < c.max_hp, c.hp
            assert (b.decision.kind == "reaction" and has(b, "reaction", "Retaliation")) == offered, \
                (level, b.decision.prompt, [x.label for x in b.decision.options])
            if offered:
                hp = o.hp
                dice(b, 15, 6, 6)
                pick(b, "reaction", "Retaliation")
                assert o.hp < hp and not c.economy.reaction, (o.hp, hp)
                assert b.decision.actor == "m", b.decision.actor   # the ogre's turn goes on

    def giant_killer():
        for foe, offered in (("ogre", True), ("thug", False)):
            c = build_pc("ranger", 3, "p", (2, 2, 0), choices=("giant_killer",))
            o = mon(foe, (3, 2))
            b = fp.battle(c, o, first="m")
            if foe == "thug":
                pick(b, "multiattack")
            _foe_attacks(b, "Greatclub" if foe == "ogre" else "Mace", 2, rest=2)   # a miss
            assert c.hp == c.max_hp
            assert (b.decision.kind == "reaction" and has(b, "reaction", "Giant Killer")) == offered, \
                (foe, b.decision.prompt)
            if offered:
                hp = o.hp
                dice(b, 15, 5, 5)
                pick(b, "reaction", "Giant Killer")
                assert o.hp < hp and not c.economy.reaction, (o.hp, hp)
        plain = pc("ranger", 3)
        assert "giant_killer" not in plain.features and "colossus_slayer" in plain.features

    def tide():
        c = build_pc("ranger", 15, "p", (2, 2, 0), choices=("stand_against_the_tide",))
        o, o2 = mon("ogre", (3, 2)), mon("ogre", (3, 4), "m2")
        b = fp.battle(c, o, o2, first="m")
        _foe_attacks(b, "Greatclub", 2, rest=2)   # a miss on the ranger
        assert c.hp == c.max_hp and has(b, "reaction", "Stand Against the Tide"), b.decision.prompt
        hp = o2.hp
        dice(b, 19, 6, 6)
        pick(b, "reaction", "against m2")
        assert o2.hp < hp and not c.economy.reaction, (o2.hp, hp)
        assert any(e.get("event") == "attack" and e.get("attacker") == "m" and e.get("target") == "m2"
                   for e in b.log)

    def hurl():
        c = pc("warlock", 14)
        assert c.resources["hurl_through_hell"] == 1
        o, o2 = mon("ogre", (4, 2)), mon("ogre", (8, 8), "m2")
        b = fp.battle(c, o, o2, first="p")
        dice(b, 19, 5, 5)
        pick(b, "spell", "Eldritch Blast")
        if b.decision.kind == "target":
            fp.pick(b, "target", "m")
        while b.decision.kind == "target":   # more beams: same target
            pick(b, "target", "m")
        assert b.decision.kind == "reaction" and has(b, "reaction", "Hurl Through Hell"), \
            (b.decision.kind, [x.label for x in b.decision.options])
        pick(b, "reaction", "Hurl Through Hell")
        assert "removed" in o.conditions and o.dead and c.resources["hurl_through_hell"] == 0
        hp = o.hp
        for _ in range(200):   # play on until the end of the warlock's next turn
            if "removed" not in o.conditions or b.outcome is not None:
                break
            if b.decision.actor == "p" and b.decision.kind == "action":
                pick(b, "end_turn")
            else:
                b.choose(heuristic.choose(b))
        assert "removed" not in o.conditions and b.round == 2, (o.conditions, b.round)
        assert o.hp < hp or o.dead, (o.hp, hp)
        assert any(e.get("event") == "damage" and e.get("creature") == "m" and e.get("type") == "psychic"
                   for e in b.log)

    return {
        "retaliation": retaliation, "hunters-prey-giant-killer": giant_killer,
        "superior-hunters-defense-stand-against-the-tide": tide, "hurl-through-hell": hurl,
    }


def probes() -> dict:
    """SRD feature key -> probe: each plays the feature through the engine's options with fixed
    dice and fails when it has no visible effect."""
    return {**_thief_probes(), **_warlock_day_probes(), **_lands_stride_probes(), **_reaction_probes()}
