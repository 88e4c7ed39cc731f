"""Buffs, debuffs, reactions and between-fight spells (dnd/spell_buffs.py), played through the
engine's options (battles) and the Day track's intermission options."""

import pytest
from dnd_helpers import pick, turn

from dungeonbench_gym.dnd import spell_buffs, spellbook
from dungeonbench_gym.dnd.builders.pcs import build_pc
from dungeonbench_gym.dnd.day import DayRun, load_day, parse_day
from dungeonbench_gym.dnd.advice.intermission import plan_intermission
from dungeonbench_gym.dnd.verification import spell_buffs_probes, spell_probe
from dungeonbench_gym.dnd.verification.arena import battle


def _cast_on(b, key, target_cid):
    """The caster casts key (lowest level) on target_cid through the options."""
    b.choose(next(i for i, o in enumerate(b.decision.options) if o.kind == "spell" and o.data[0] == key))
    opts = b.decision.options
    b.choose(next(i for i, o in enumerate(opts) if o.kind == "target" and o.data[0] == target_cid))
    while b.decision is not None and b.decision.actor == "caster" and b.decision.kind == "target":
        b.choose(next(i for i, o in enumerate(b.decision.options) if o.kind == "stop"))


def _greataxe_on(b, orc_cid, target_cid):
    turn(b, orc_cid)
    pick(b, "attack", "Greataxe")
    b.choose(next(i for i, o in enumerate(b.decision.options) if o.data == (target_cid,)))


# ---------------------------------------------------------------- battle buffs
def test_enlarge_adds_a_d4_to_each_weapon_hit_of_the_target():
    b = battle("enlarge-reduce")
    _cast_on(b, "enlarge-reduce", "ally")
    ally, orc = b.creatures["ally"], b.creatures["orc_0"]
    assert "enlarged" in ally.conditions and b.creatures["caster"].concentration == "enlarge-reduce"
    sword = ally.attacks[0]
    assert [p.dice for p in spellbook.hit_parts(b, ally, orc, sword)] == ["1d4"]
    assert spellbook.save_mode(ally, "str", "save_adv") and not spellbook.save_mode(ally, "dex", "save_adv")
    b.end_concentration(b.creatures["caster"])
    assert spellbook.hit_parts(b, ally, orc, sword) == []


def test_beacon_of_hope_maximises_healing_and_favours_death_saves():
    b = battle("beacon-of-hope")
    _cast_on(b, "beacon-of-hope", "ally")
    ally = b.creatures["ally"]
    assert spell_buffs.death_save_adv(ally) and spellbook.save_mode(ally, "wis", "save_adv")
    assert spell_buffs.heal_roll(b, ally, "2d8", "x") == 16
    # a real Cure Wounds through the options gives its maximum: 8 + the modifier
    healer = build_pc("cleric", 5, "healer", (3, 7, 0))
    healer.side = "party"
    b.creatures[healer.cid] = healer
    turn(b, "healer")
    hp = ally.hp
    pick(b, "spell", "Cure Wounds")
    b.choose(next(i for i, o in enumerate(b.decision.options) if o.data == ("ally",)))
    assert ally.hp >= hp + 8 + healer.resources["spell_mod"]   # (Disciple of Life may add more)
    assert any(e.get("event") == "max_heal" for e in b.log)
    assert not spell_buffs.death_save_adv(b.creatures["orc_0"])


def test_protection_from_energy_resists_the_type_the_foes_deal():
    b = battle("protection-from-energy", foes=("winter-wolf", "orc", "orc"))
    _cast_on(b, "protection-from-energy", "ally")
    ally = b.creatures["ally"]
    assert ally.conditions["protected_from_energy"]["resist"] == ["cold"]
    assert b.modified_damage(ally, 10, "cold") == 5 and b.modified_damage(ally, 10, "fire") == 10
    plain = battle("protection-from-energy")   # orcs deal no energy: fire
    _cast_on(plain, "protection-from-energy", "ally")
    assert plain.creatures["ally"].conditions["protected_from_energy"]["resist"] == ["fire"]


def test_ray_of_enfeeblement_halves_strength_weapon_damage_until_a_con_save():
    for seed in range(12):
        b = battle("ray-of-enfeeblement", seed)
        pick(b, "spell", "Ray of Enfeeblement")
        b.choose(next(i for i, o in enumerate(b.decision.options) if o.data == ("orc_0",)))
        if "enfeebled" in b.creatures["orc_0"].conditions:
            break
    else:
        raise AssertionError("the ray never hit")
    orc = b.creatures["orc_0"]
    assert orc.conditions["enfeebled"]["repeat"] == "con"
    b.roller.record = True
    for _ in range(6):   # until a greataxe hit lands on the ally
        n = len(b.log)
        _greataxe_on(b, "orc_0", "ally")
        rolled = [e["total"] for e in b.log[n:] if e.get("what", "").startswith("damage greataxe")]
        dealt = [e["amount"] for e in b.log[n:] if e.get("event") == "damage" and e.get("creature") == "ally"]
        if rolled:
            assert dealt == [rolled[0] // 2]
            return
    raise AssertionError("the orc never hit")


def test_mind_blank_stops_psychic_damage_and_charm():
    b = battle("mind-blank")
    _cast_on(b, "mind-blank", "ally")
    ally = b.creatures["ally"]
    hp = ally.hp
    b.damage(ally, 12, "psychic", magical=True)
    assert ally.hp == hp
    b.save_condition(b.creatures["orc_0"], ally, "charmed", "wis", 30, None)
    assert "charmed" not in ally.conditions
    b.save_condition(b.creatures["orc_0"], ally, "frightened", "wis", 30, None)
    assert "frightened" in ally.conditions   # only charm is warded


def test_remove_curse_ends_bestow_curse():
    b = battle("remove-curse")
    ally = b.creatures["ally"]
    ally.conditions["cursed"] = {"by": "orc_0", "spell": "bestow-curse", "marked_any": True, "marked_dice": "1d8"}
    _cast_on(b, "remove-curse", "ally")
    assert "cursed" not in ally.conditions


# ---------------------------------------------------------------- reactions
def test_hellish_rebuke_is_a_reaction_decision_after_damage():
    for seed in range(12):
        b = battle("hellish-rebuke", seed)
        orc, c = b.creatures["orc_0"], b.creatures["caster"]
        _greataxe_on(b, "orc_0", "caster")
        d = b.decision
        if d.kind != "reaction":
            assert c.hp == c.max_hp or not c.conscious   # missed (or dropped it): nothing offered
            continue
        assert d.actor == "caster" and "Hellish Rebuke at level 1" in d.options[0].label
        assert d.options[-1].data == (False, None)
        hp = orc.hp
        b.choose(0)
        assert orc.hp < hp and not c.economy.reaction and sum(c.resources["slots"]) == 35
        assert b.decision.actor == "orc_0"   # the orc's turn goes on
        return
    raise AssertionError("never offered")


def test_hellish_rebuke_can_be_declined_and_needs_the_spell():
    for seed in range(12):
        b = battle("hellish-rebuke", seed)
        _greataxe_on(b, "orc_0", "caster")
        if b.decision.kind == "reaction":
            b.choose(len(b.decision.options) - 1)
            assert sum(b.creatures["caster"].resources["slots"]) == 36 and b.decision.actor == "orc_0"
            break
    b = battle("fire-bolt")
    for _ in range(4):
        _greataxe_on(b, "orc_0", "caster")
        assert b.decision is None or b.decision.kind != "reaction"


def test_feather_fall_saves_an_ally_from_a_fall():
    b = battle("feather-fall")
    ally = b.creatures["ally"]
    ally.pos = (ally.pos[0], ally.pos[1], 30)
    hp = ally.hp
    b.falls()
    assert ally.pos[2] == 0 and ally.hp == hp and "prone" not in ally.conditions
    assert any(e.get("event") == "feather_fall" for e in b.log)
    b2 = battle("fire-bolt")   # no Feather Fall: 3d6 and prone
    a2 = b2.creatures["ally"]
    a2.pos = (a2.pos[0], a2.pos[1], 30)
    hp = a2.hp
    b2.falls()
    assert a2.hp < hp and "prone" in a2.conditions


# ---------------------------------------------------------------- between fights
def _pick_day(run, kind, key=None):
    return spell_buffs.choose_day(run, lambda o: o.kind == kind and (key is None or o.data[1] == key))


def test_raise_dead_returns_a_dead_member_with_the_penalty_and_spends_the_diamond():
    run = spell_buffs_probes.day_probe_run("raise-dead")
    caster_, dead = list(run.party.values())[:2]
    assert _pick_day(run, "day_spell", "raise-dead")
    assert not dead.dead and dead.hp == 1 and caster_.resources["gp"] == 29500
    pen = dead.conditions["back_from_death"]
    assert pen["attack_penalty"] == 4 and pen["save"] == -4 and pen["day_duration"] == "all_day"
    assert spell_buffs.attack_penalty(dead) == 4
    poor = spell_buffs_probes.day_probe_run("raise-dead")
    next(iter(poor.party.values())).resources["gp"] = 499
    assert not _pick_day(poor, "day_spell", "raise-dead")
    run._start_battle()   # the raised member fights the next encounter
    assert dead.cid in run.battle.creatures


def test_resurrection_restores_all_hp_and_true_resurrection_has_no_penalty():
    run = spell_buffs_probes.day_probe_run("resurrection")
    dead = list(run.party.values())[1]
    assert _pick_day(run, "day_spell", "resurrection") and dead.hp == dead.max_hp and "back_from_death" in dead.conditions
    run = spell_buffs_probes.day_probe_run("true-resurrection")
    dead = list(run.party.values())[1]
    assert _pick_day(run, "day_spell", "true-resurrection") and dead.hp == dead.max_hp and not dead.conditions


def test_the_planner_brings_the_dead_back_first():
    run = spell_buffs_probes.day_probe_run("raise-dead")
    dead = list(run.party.values())[1]
    for _ in range(4):
        if not dead.dead:
            break
        run.choose(plan_intermission(run))
    assert not dead.dead


def test_heroes_feast_raises_max_hp_and_wards_fear_in_the_next_fight():
    run = spell_buffs_probes.day_probe_run("heroes-feast")
    members = list(run.party.values())
    maxes = [c.max_hp for c in members]
    assert _pick_day(run, "day_spell", "heroes-feast")
    assert all(c.max_hp > m for c, m in zip(members, maxes))
    run._start_battle()
    b = run.battle
    t = members[0]
    foe = next(o for o in b.creatures.values() if o.side != t.side)
    b.save_condition(foe, t, "frightened", "wis", 40, None)
    assert "frightened" not in t.conditions and b.modified_damage(t, 10, "poison") == 0
    assert spellbook.save_mode(t, "wis", "save_adv")


def test_goodberry_and_regenerate_heal_between_fights():
    run = spell_buffs_probes.day_probe_run("goodberry")
    hurt = list(run.party.values())[1]
    hp = hurt.hp
    assert _pick_day(run, "day_spell", "goodberry")
    assert hurt.hp == hp + 10
    run = spell_buffs_probes.day_probe_run("regenerate")
    hurt = list(run.party.values())[1]
    hp = hurt.hp
    assert spell_buffs.choose_day(run, lambda o: o.kind == "day_spell" and o.data[3] == (hurt.cid,))
    assert hurt.hp >= min(hurt.max_hp, hp + 19) and "regenerate" in hurt.conditions
    run._start_battle()   # 1 HP at the start of each of its turns in the next fight
    b = run.battle
    hurt.hp = 5
    turn(b, hurt.cid)
    assert hurt.hp == 6


def _intermission(run):
    run.battle, run.results, run.stage, run.phase, run._menu, run._group = None, ["win"], 1, "intermission", None, None
    return run


def test_lay_on_hands_heals_between_fights_and_the_planner_uses_it():
    run = _intermission(DayRun(load_day("bandit_hideout")))
    pal = build_pc("paladin", 3, "fighter", (0, 0, 0))   # the day's fighter, as a paladin
    run.party["fighter"] = pal
    other = run.party["rogue"]
    other.hp = 1
    pool = pal.resources["lay_on_hands"]
    assert pool and not any(o.kind == "lay_on_hands" and o.data[1] == "cleric" for o in run._options())
    run.choose(plan_intermission(run))
    if run._group is not None:   # the options were grouped by member
        run.choose(plan_intermission(run))
    assert other.hp == 1 + pool and pal.resources["lay_on_hands"] == 0


def test_day_files_may_give_gold():
    day = load_day("bandit_hideout")
    party = [dict(p, gp=500) for p in day.party]
    good = parse_day({"name": "x", "short_rests": 0, "party": party,
                      "encounters": [{"scenario": s.scenario.key, "place": {k: list(v) for k, v in s.place.items()}}
                                     for s in day.stages]})
    assert all(c.resources["gp"] == 500 for c in DayRun(good).party.values())
    with pytest.raises(Exception, match="gp"):
        parse_day({"name": "x", "short_rests": 0,
                   "party": [{"id": "fighter", "archetype": "fighter", "level": 3, "gp": "lots"}],
                   "encounters": [{"scenario": s.scenario.key} for s in day.stages][:3]})


def test_day_probe_fails_when_the_option_is_missing(monkeypatch):
    spell_probe.run_probe("raise-dead")
    monkeypatch.setattr(spell_buffs, "day_options", lambda run, c, living: [])
    with pytest.raises(AssertionError, match="not offered"):
        spell_probe.run_probe("raise-dead")


def test_day_spells_are_never_offered_in_a_battle():
    b = battle("raise-dead")
    c = b.creatures["caster"]
    c.spells = ("raise-dead", "goodberry", "hellish-rebuke", "feather-fall", "fire-bolt")
    b.forget_options()
    offered = {o.data[0] for o in b.action_options(c) if o.kind == "spell"}
    assert offered == {"fire-bolt"}


def test_new_rows_are_executable_and_probe():
    keys = ("beacon-of-hope", "enlarge-reduce", "protection-from-energy", "ray-of-enfeeblement", "mind-blank",
            "remove-curse", "hellish-rebuke", "feather-fall", "goodberry", "heroes-feast", "raise-dead",
            "resurrection", "true-resurrection", "reincarnate", "regenerate", "prayer-of-healing", "foresight",
            "enhance-ability", "freedom-of-movement", "contagion", "mass-heal", "heat-metal", "spider-climb",
            "guidance", "gentle-repose")
    rows = {r["key"]: r for r in spellbook.coverage()}
    for k in keys:
        assert rows[k]["status"] == "executable", k
        spell_probe.run_probe(k)


# ---------------------------------------------------------------- more buffs and debuffs
def test_foresight_is_an_all_day_buff_cast_between_fights():
    run = spell_buffs_probes.day_probe_run("foresight")
    member = list(run.party.values())[1]
    assert spell_buffs.choose_day(run, lambda o: o.kind == "day_spell" and o.data[3] == (member.cid,))
    assert member.conditions["foresight"]["day_duration"] == "all_day"
    run._start_battle()
    b = run.battle
    foe = next(o for o in b.creatures.values() if o.side != member.side)
    adv, _dis, why = b.attack_modifiers(member, foe, True, member.attacks[0])
    assert adv and "attacker foresight" in why
    _adv, dis, why = b.attack_modifiers(foe, member, True, foe.attacks[0])
    assert dis and "target foresight" in why
    assert spellbook.save_mode(member, "dex", "save_adv")
    b2 = battle("foresight")   # a 1-minute casting: never offered in a battle
    assert not any(o.kind == "spell" for o in b2.decision.options)


def test_enhance_ability_gives_temporary_hit_points():
    b = battle("enhance-ability")
    _cast_on(b, "enhance-ability", "ally")
    ally = b.creatures["ally"]
    assert "enhanced" in ally.conditions and 2 <= ally.temp_hp <= 12


def test_freedom_of_movement_wards_paralysis_and_slips_grapples():
    b = battle("freedom-of-movement")
    _cast_on(b, "freedom-of-movement", "ally")
    ally, orc = b.creatures["ally"], b.creatures["orc_0"]
    b.save_condition(orc, ally, "paralyzed", "wis", 40, None)
    b.save_condition(orc, ally, "restrained", "str", 40, None)
    assert "paralyzed" not in ally.conditions and "restrained" not in ally.conditions
    ally.conditions["grappled"] = {"by": "orc_0", "dc": 13}
    turn(b, "ally")
    assert "grappled" not in ally.conditions and ally.economy.movement == b.speed(ally) - 5
    b.save_condition(orc, ally, "frightened", "wis", 40, None)
    assert "frightened" in ally.conditions


def test_contagion_poisons_on_a_hit_then_three_failed_saves_bring_the_disease():
    from dnd_helpers import script
    for seed in range(12):
        b = battle("contagion", seed)
        pick(b, "spell", "Contagion")
        b.choose(next(i for i, o in enumerate(b.decision.options) if o.data == ("orc_0",)))
        orc = b.creatures["orc_0"]
        if "poisoned" in orc.conditions:
            break
    else:
        raise AssertionError("never hit")
    v = orc.conditions["poisoned"]
    assert v["contagion"] and v["saves_lost"] == 0 and "repeat" not in v
    script(b, 1, 1, 1)
    for _ in range(3):
        spellbook.end_of_turn(b, orc)
    assert "poisoned" not in orc.conditions and "blinded" in orc.conditions
    assert spellbook.save_mode(orc, "wis", "save_dis")


def test_mass_heal_shares_its_pool_in_battle_and_between_fights():
    b = battle("mass-heal")
    ally, c = b.creatures["ally"], b.creatures["caster"]
    ally.conditions["blinded"] = {"by": "orc_0"}
    c.hp = 10
    pick(b, "spell", "Mass Heal")
    assert ally.hp == ally.max_hp and c.hp == c.max_hp and "blinded" not in ally.conditions
    assert b.creatures["orc_0"].hp == b.creatures["orc_0"].max_hp   # foes get nothing
    run = spell_buffs_probes.day_probe_run("mass-heal")
    hurt = list(run.party.values())[1]
    assert spell_buffs.choose_day(run, lambda o: o.kind == "day_spell" and o.data[1] == "mass-heal")
    assert hurt.hp == hurt.max_hp


def test_spider_climb_makes_a_ledge_cost_no_extra_movement():
    from dungeonbench_gym.dnd.engine import Battle
    from dungeonbench_gym.dnd.grid import BattleMap
    from dungeonbench_gym.dnd.builders.monsters import monster_combatant
    from dungeonbench_gym.dnd.verification.arena import caster
    bmap = BattleMap.from_dict({"layout": ["........"] * 5, "heights": ["0 0 0 10 10 10 10 10"] * 5})
    c = caster("spider-climb", at=(1, 1))
    ally = build_pc("fighter", 5, "ally", (2, 2, 0))
    b = Battle(bmap, [c, ally, monster_combatant("orc", "orc_0", "enemies", (7, 4, 10))], seed=0)
    turn(b, "ally")
    assert b.reach(ally).cost((3, 2)) == 25   # 5 ft + 10 ft climbed at double cost
    turn(b, "caster")
    _cast_on(b, "spider-climb", "ally")
    turn(b, "ally")
    assert b.reach(ally).cost((3, 2)) == 15 and spell_buffs.climb_speed(b, ally) == ally.speed


def test_guidance_adds_a_die_to_one_grapple_contest_then_ends():
    from dnd_helpers import script
    b = battle("guidance")
    c, ally = b.creatures["caster"], b.creatures["ally"]
    _cast_on(b, "guidance", "ally")
    assert "guidance" in ally.conditions and c.concentration == "guidance"
    orc = b.creatures["orc_0"]
    b.roller.record = True
    script(b, 4, 10, 10)   # the guidance die (4), then both d20s
    b._shove(ally, orc, "grapple")
    rolls = [e for e in b.log if e.get("what") == "guidance ally"]
    assert rolls and rolls[0]["total"] == 4 and "guidance" not in ally.conditions and c.concentration is None
    mine = next(e for e in b.log if e.get("what") == "shove ally")
    assert mine["total"] == 10 + b.athletics(ally) + 4


def test_the_heuristic_reheats_and_never_wastes_an_action_on_guidance():
    from dungeonbench_gym.dnd import heuristic
    b = battle("guidance")
    c = b.creatures["caster"]
    c.spells = ("guidance", "fire-bolt")
    b.forget_options()
    choice = b.decision.options[heuristic.choose(b)]
    assert not (choice.kind == "spell" and choice.data[0] == "guidance")
    b = battle("heat-metal")
    pick(b, "spell", "Heat Metal")
    b.choose(next(i for i, o in enumerate(b.decision.options) if o.data == ("orc_0",)))
    b.round += 1
    b.creatures["caster"].economy.bonus = True
    b.forget_options()
    assert b.decision.options[heuristic.choose(b)].kind == "reheat"


def test_revivify_between_fights_only_within_its_minute_unless_gentle_repose():
    run = spell_buffs_probes.day_probe_run("gentle-repose")
    c, dead = list(run.party.values())[:2]
    c.spells += ("revivify",)
    def revive(o):
        return o.kind == "day_spell" and o.data[1] == "revivify"

    assert any(revive(o) for o in run._options())   # died this fight, no rest yet
    run.choose(run._visible().index(next(o for o in run._visible() if o.kind == "short_rest")))
    run.choose(next(i for i, o in enumerate(run._visible()) if o.kind == "finish_rest"))
    assert not any(revive(o) for o in run._options())   # an hour later: too late
    run = spell_buffs_probes.day_probe_run("gentle-repose")
    c, dead = list(run.party.values())[:2]
    c.spells += ("revivify",)
    assert spell_buffs.choose_day(run, lambda o: o.kind == "day_spell" and o.data[1] == "gentle-repose")
    assert "gentle_repose" in dead.conditions
    run.choose(next(i for i, o in enumerate(run._visible()) if o.kind == "short_rest"))
    run.choose(next(i for i, o in enumerate(run._visible()) if o.kind == "finish_rest"))
    gp = c.resources["gp"]
    assert spell_buffs.choose_day(run, revive)
    assert not dead.dead and dead.hp == 1 and c.resources["gp"] == gp - 300


def test_long_buffs_cast_between_fights_last_into_the_next_fight():
    run = _intermission(DayRun(load_day("dragon_hunt")))
    run.stage = 2   # the white dragon wyrmling is next: Protection from Energy takes cold
    c, t = list(run.party.values())[:2]
    c.spells += ("protection-from-energy", "mind-blank")
    c.resources.update(slots=(4,) * 9, spell_dc=13, spell_mod=3)
    assert spell_buffs.choose_day(run, lambda o: o.kind == "day_spell" and o.data[1] == "protection-from-energy"
                                  and o.data[3] == (t.cid,))
    assert t.conditions["protected_from_energy"]["resist"] == ["cold"] and c.concentration == "protection-from-energy"
    assert t.conditions["protected_from_energy"]["day_duration"] == "until_short_rest"
    i = plan_intermission(run)   # everyone is well: the planner puts the all-day Mind Blank up
    opt = run._visible()[i]
    if opt.kind == "group":
        run.choose(i)
        i = plan_intermission(run)
        opt = run._visible()[i]
    assert opt.kind == "day_spell" and opt.data[1] == "mind-blank"
    run.choose(i)
    run._start_battle()
    assert run.battle.modified_damage(t, 10, "cold") == 5 and "mind_blank" in run.party[opt.data[3][0]].conditions


MINE = ("beacon-of-hope", "enlarge-reduce", "protection-from-energy", "ray-of-enfeeblement", "mind-blank",
        "remove-curse", "hellish-rebuke", "feather-fall", "enhance-ability", "freedom-of-movement", "contagion",
        "mass-heal", "heat-metal", "spider-climb", "guidance", "goodberry", "raise-dead")


def test_random_and_heuristic_play_with_these_spells_never_crashes():
    import random

    from dungeonbench_gym.dnd import heuristic
    for seed in range(4):
        b = battle("fire-bolt", seed, foes=("orc", "hobgoblin", "ogre"))
        for cid in ("caster", "ally"):
            c = b.creatures[cid]
            c.spells = MINE
            c.resources.update(slots=(4,) * 9, spell_dc=14, spell_attack=6, spell_mod=3)
        rng = random.Random(seed)
        for _ in range(300):
            d = b.decision
            if d is None or b.outcome is not None:
                break
            b.choose(heuristic.choose(b) if seed % 2 else rng.randrange(len(d.options)))
        assert b.outcome is not None or len(b.log) > 50
