"""The Day track: linked fights, what persists between them, intermissions, durations, the env."""

import copy

import gymnasium as gym
import numpy as np
import pytest

import dungeonbench_gym  # noqa: F401  (registers the ids)
from dungeonbench_gym.core.errors import FileFormatError
from dungeonbench_gym.dnd import day as daymod
from dungeonbench_gym.dnd import heuristic
from dungeonbench_gym.dnd.day import DayRun, load_day, parse_day
from dungeonbench_gym.dnd.advice.intermission import plan_intermission
from dungeonbench_gym.dnd.model.durations import effect_duration, wild_shape_duration
from dungeonbench_gym.games.dnd.day_env import DAY_FEATURES, DnDDayEnv
from dnd_helpers import Script

DAY_IDS = [i for i in dungeonbench_gym.ids() if i.startswith("DnD-Day-")]


def _base():
    return {"name": "Test Day", "short_rests": 1,
            "party": [{"id": "fighter", "archetype": "fighter", "level": 2},
                      {"id": "cleric", "archetype": "cleric", "level": 2}],
            "encounters": [{"scenario": "skeleton_crypt"}, {"scenario": "watchtower_hold"},
                           {"scenario": "gate_lever"}]}


def _win_battle(run: DayRun) -> None:
    """Play the current fight with the heuristic on both sides until it ends."""
    while run.phase == "battle":
        run.choose(heuristic.choose(run.battle))


def _to_intermission(name="crypt_watch", seed=0) -> DayRun:
    for s in range(seed, seed + 20):   # the first seed whose opening fight the party wins
        run = DayRun(load_day(name), s)
        _win_battle(run)
        if run.phase == "intermission":
            return run
    raise AssertionError("the heuristic party never won the opening fight")


def _pick(run: DayRun, kind: str, text: str = "") -> None:
    for i, o in enumerate(run.decision.options):
        if o.kind == kind and text in o.label:
            run.choose(i)
            return
    raise AssertionError(f"no {kind} option with {text!r} in {[o.label for o in run.decision.options]}")


# ------------------------------------------------------------------ the file format
def test_every_registered_day_loads_with_three_to_five_fights():
    assert len(DAY_IDS) >= 5
    for name in daymod.day_names():
        d = load_day(name)
        assert 3 <= len(d.stages) <= 5 and d.seeds == (0,)
        for stage in d.stages:   # every member has a square in every fight
            assert set(d.squares(stage)) == {p["id"] for p in d.party}


@pytest.mark.parametrize("change, field, fix", [
    (lambda d: d.pop("short_rests"), "short_rests", "short rests allowed"),
    (lambda d: d.update(encounters=d["encounters"][:2]), "encounters", "3 to 5"),
    (lambda d: d["encounters"].__setitem__(0, {"scenario": "nowhere"}), "encounters[0].scenario", "use one of"),
    (lambda d: d["party"].append({"id": "rogue", "archetype": "rogue", "level": 2}), "encounters[0].place",
     "add place"),
    (lambda d: d["encounters"][0].update(place={"bard": [1, 1]}), "encounters[0].place.bard", "name one of"),
    (lambda d: d["encounters"][0].update(place={"cleric": [0, 0]}), "encounters[0].place.cleric", "floor square"),
    (lambda d: d["encounters"][0].update(place={"cleric": [2, 3]}), "encounters[0].place.cleric", "free square"),
    (lambda d: d["party"][0].update(archetype="paladinn"), "party[0].archetype", "use one of"),
    (lambda d: d["party"][1].update(id="fighter"), "party[1].id", "its own id"),
    (lambda d: d.update(colour="red"), "colour", "use only"),
    (lambda d: d["encounters"].__setitem__(1, {"scenario": "orc_raid", "place": {"cleric": [2, 4]}}),
     "encounters[1].scenario", "apprentice"),
])
def test_a_malformed_day_names_the_file_the_field_and_the_fix(change, field, fix):
    data = copy.deepcopy(_base())
    parse_day(data, "days/test.toml")   # the base is valid
    change(data)
    with pytest.raises(FileFormatError) as err:
        parse_day(data, "days/test.toml")
    text = str(err.value)
    assert "days/test.toml" in text and field in text and fix in text


# ------------------------------------------------------------------ what persists
def test_hp_slots_and_hit_dice_carry_from_fight_to_fight():
    run = _to_intermission()
    before = {cid: (c.hp, c.resources.get("slots"), c.resources["hit_dice"]) for cid, c in run.party.items()}
    assert any(c.hp < c.max_hp for c in run.party.values())   # the opening fight cost something
    _pick(run, "continue")
    assert run.phase == "battle" and run.stage == 1
    for cid, c in run.party.items():
        if not c.dead:
            assert run.battle.creatures[cid] is c   # the same creature walks into the next fight
            assert (c.hp, c.resources.get("slots"), c.resources["hit_dice"]) == before[cid]


def test_combat_only_effects_end_with_the_fight_and_the_dying_are_stabilised():
    run = DayRun(load_day("crypt_watch"), 0)
    pc = run.party["fighter"]
    pc.conditions["blessed"] = {"by": "cleric", "spell": "bless"}
    pc.conditions["exhaustion"] = {"level": 1}
    pc.hp, pc.death_failures = 0, 2
    daymod._clear_combat_state(pc, keep=("until_short_rest", "all_day"))
    assert "blessed" not in pc.conditions and pc.conditions["exhaustion"] == {"level": 1}
    assert pc.stable and pc.death_failures == 0 and pc.hp == 0


def test_the_dead_stay_dead_and_stay_out_of_later_fights():
    run = _to_intermission()
    run.party["rogue"].dead = True
    run.party["rogue"].hp = 0
    _pick(run, "continue")
    assert "rogue" not in run.battle.creatures and "fighter" in run.battle.creatures
    assert all("rogue" not in o.label for o in run.battle.decision.options)


def test_a_lost_fight_ends_the_day_and_rested_mode_starts_every_fight_fresh():
    d = load_day("crypt_watch")
    run = DayRun(d, 0, rested=True)
    hp_at_start = []
    while not run.over:
        if len(hp_at_start) == run.stage:   # a fight has just begun: nobody has acted yet
            hp_at_start.append({cid: c.hp for cid, c in run.party.items()})
        run.choose(heuristic.choose(run.battle))
    assert run.intermission_decisions == 0 and run.short_rests_used == 0
    assert len(hp_at_start) == len(run.results) == len(d.stages)   # played alone: every fight is played
    for hp in hp_at_start:   # every fight began at full strength
        assert hp == {p["id"]: DayRun(d, 0).party[p["id"]].max_hp for p in d.party}
    lost = DayRun(d, 0)
    lost.battle.outcome = "loss"   # however the fight was lost, the day ends there
    lost._after_choice()
    assert lost.over and lost.results == ["loss"] and not lost.full_clear and lost.decision is None


# ------------------------------------------------------------------ the intermission
def test_short_rest_spends_hit_dice_by_the_srd_and_refreshes_short_rest_features():
    run = _to_intermission()
    f = run.party["fighter"]
    f.hp = 5
    f.resources["second_wind"] = 0
    cleric = run.party["cleric"]
    cleric.resources["channel_divinity"] = 0
    run._menu = None
    _pick(run, "short_rest")
    assert run.phase == "rest" and run.short_rests_left == 0 and run.short_rests_used == 1
    dice = f.resources["hit_dice"]
    run.roller._int = Script([7])   # a d10 showing 7, + Con 2
    _pick(run, "hit_die", "fighter spends a hit die (1d10+2")
    assert f.hp == 5 + 9 and f.resources["hit_dice"] == dice - 1
    _pick(run, "finish_rest")
    assert run.phase == "intermission"
    assert f.resources["second_wind"] == 1 and cleric.resources["channel_divinity"] == 1
    assert all(o.kind != "short_rest" for o in run.decision.options)   # the day's one rest is spent


def test_a_hit_die_never_takes_hit_points_away():
    run = _to_intermission()
    w = run.party["cleric"]
    w.hp = 1
    w.abilities = dict(w.abilities, con=6)   # Con -2: a 1 on the d8 would be -1
    run._menu = None
    _pick(run, "short_rest")
    run.roller._int = Script([1])
    _pick(run, "hit_die", "cleric spends a hit die (1d8-2")
    assert w.hp == 1


def test_arcane_recovery_offers_the_maximal_choices_within_its_budget():
    run = DayRun(load_day("border_march"), 0)
    wiz = run.party["apprentice"]
    assert wiz.level == 3 and wiz.resources["arcane_recovery_levels"] == 2
    wiz.resources["slots"] = (1, 0, 0, 0, 0)   # 4 first and 2 second expended of (4, 2)
    assert daymod._arcane_choices(wiz) == [(2,), (1, 1)]
    wiz.resources["slots"] = (3, 2, 0, 0, 0)   # only one first-level slot expended
    assert daymod._arcane_choices(wiz) == [(1,)]
    wiz.resources["arcane_recovery"] = 0
    assert daymod._arcane_choices(wiz) == []


def test_potions_and_healing_spells_between_fights_roll_their_srd_dice():
    run = _to_intermission()
    f, c = run.party["fighter"], run.party["cleric"]
    f.hp, run._menu = 1, None
    potions = c.resources["potions"]
    run.roller._int = Script([3, 4])   # 2d4+2
    _pick(run, "potion", "cleric gives fighter")
    assert f.hp == 1 + 9 and c.resources["potions"] == potions - 1
    c.resources["slots"] = slots = c.resources["slots_max"]
    run._menu = None
    run.roller._int = Script([6])      # 1d8 + Wis 3
    _pick(run, "heal", "Cure Wounds (level 1")
    assert f.hp == 10 + 9 and c.resources["slots"][0] == slots[0] - 1


def test_effect_durations_follow_the_intermission_abstraction():
    assert effect_duration("mage-armor") == "all_day"            # 8 hours
    assert effect_duration("shield-of-faith") == "next_encounter"  # 10 minutes
    assert effect_duration("bless") is None                       # 1 minute: combat only
    assert effect_duration("false-life") == "until_short_rest"     # 1 hour


def test_a_ten_minute_buff_lasts_exactly_the_next_fight_and_an_all_day_buff_the_day():
    run = None
    for seed in range(20):   # a seed where the first two fights are won
        r = DayRun(load_day("dragon_hunt"), seed)
        _win_battle(r)
        if r.phase == "intermission":
            run = r
            break
    assert run is not None
    _pick(run, "day_spell", "Shield of Faith (level 1) on fighter")
    _pick(run, "day_spell", "Mage Armor (level 1) on wizard")
    fighter, wizard, cleric = run.party["fighter"], run.party["wizard"], run.party["cleric"]
    assert cleric.concentration == "shield-of-faith"
    _pick(run, "continue")
    b = run.battle
    ac_plain = fighter.ac
    assert b.armour_class(fighter) == ac_plain + 2   # the buff works in the next fight
    assert "mage_armor" in wizard.conditions
    while run.phase == "battle":
        run.choose(heuristic.choose(run.battle))
    if run.phase == "intermission":
        assert "shield_of_faith" not in fighter.conditions   # gone after that one fight
        assert cleric.concentration is None
        assert "mage_armor" in wizard.conditions or wizard.dead   # all day


def test_a_short_rest_ends_next_fight_effects_but_not_all_day_ones():
    run = _to_intermission("dragon_hunt")
    _pick(run, "day_spell", "Shield of Faith (level 1) on fighter")
    _pick(run, "day_spell", "Mage Armor (level 1) on wizard")
    _pick(run, "short_rest")
    _pick(run, "finish_rest")
    assert "shield_of_faith" not in run.party["fighter"].conditions
    assert "mage_armor" in run.party["wizard"].conditions


def test_more_options_than_slots_are_grouped_by_member_never_cut():
    run = _to_intermission("dragon_hunt")
    run.max_options = 6
    run._menu = None
    full = run._options()
    shown = run.decision.options
    assert len(full) > 6 and len(shown) <= 6 + 4
    groups = [i for i, o in enumerate(shown) if o.kind == "group"]
    inside = 0
    for g in groups:
        run.choose(g)
        inner = run.decision.options
        inside += len(inner) - 1
        assert inner[-1].kind == "back"
        run.choose(len(inner) - 1)
    assert inside + len(shown) - len(groups) == len(full)


def test_the_baseline_plans_rests_and_wins_more_days_than_it_loses_on_an_easy_day():
    clears = 0
    for seed in range(4):
        run = DayRun(load_day("goblin_road"), seed)
        while not run.over:
            run.choose(heuristic.choose(run.battle) if run.phase == "battle" else plan_intermission(run))
        clears += run.full_clear
    assert clears >= 3


# ------------------------------------------------------------------ the env
def _play_env(env, seed, agent="baseline", steps=3000):
    obs, info = env.reset(seed=seed)
    u = env.unwrapped
    rng = np.random.default_rng(seed)
    total, n, seen = 0.0, 0, []
    while True:
        assert env.observation_space.contains(obs)
        seen.append(info["decision"])
        if agent == "baseline":
            a = plan_intermission(u.run) if u.run.phase in ("intermission", "rest") else heuristic.choose(u.run.battle)
        else:
            a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, r, term, trunc, info = env.step(a)
        total += r
        n += 1
        if term or trunc or n >= steps:
            return total, info, seen


def test_env_rewards_sum_to_the_share_of_encounters_won_and_metrics_say_the_day():
    env = gym.make("DungeonBench/DnD-Day-DragonHunt-v0", text=True)
    total, info, seen = _play_env(env, 1)
    m = info["metrics"]
    assert "intermission" in seen
    assert total == pytest.approx(m["encounters_won"] / 4) == pytest.approx(info["progress"])
    assert m["encounters"] == 4 and m["full_clear"] == float(m["encounters_won"] == 4)
    assert 0 <= m["party_hp_fraction"] <= 1 and m["decisions"] == len(seen)
    assert m["short_rests_used"] <= 2 and m["options_max"] <= 64
    assert info["success"] == (m["encounters_won"] == 4)


def test_env_intermission_observation_shows_the_next_fight_and_the_day():
    env = DnDDayEnv("crypt_watch", text=True)
    for seed in range(20):
        obs, info = env.reset(seed=seed)
        u = env
        while u.run.phase == "battle":
            obs, r, term, trunc, info = env.step(heuristic.choose(u.run.battle))
        if info["decision"] == "intermission":
            break
    assert info["decision"] == "intermission" and obs["day"].shape == (DAY_FEATURES,)
    d = obs["day"]
    assert d[0] == 1 and d[1] == 1 and d[2] == 0     # fight 1: there, won, not current
    assert d[3] == 1 and d[4] == 0 and d[5] == 1     # fight 2: there, not won, next
    assert d[15 + 1] == 1                            # phase: intermission
    enemies = [row for row in obs["creatures"] if row[0] and not row[1]]
    assert len(enemies) == 5                         # the watchtower's five goblins
    long_term = info["text"]["long_term"]
    assert "1. Skeleton Crypt (duel, defeat; skeleton, skeleton, skeleton): won" in long_term
    assert "2. Watchtower Hold" in long_term and ": next" in long_term
    assert info["options"][0].label.startswith("Go on to encounter 2: Watchtower Hold")
    assert env.observation_space.contains(obs)


def test_env_is_deterministic_through_intermissions_and_survives_pickling():
    import pickle

    a = DnDDayEnv("goblin_road")
    b = DnDDayEnv("goblin_road")
    ta, ia, _ = _play_env(a, 2)
    tb, ib, _ = _play_env(b, 2)
    assert ta == tb and ia["metrics"] == ib["metrics"]
    c = DnDDayEnv("goblin_road")
    obs, info = c.reset(seed=2)
    while c.run.phase == "battle":
        obs, *_ , info = c.step(heuristic.choose(c.run.battle))
    clone = pickle.loads(pickle.dumps(c))
    for env in (c, clone):
        env.step(0)
    assert c.run.phase == clone.run.phase and c.run.stage == clone.run.stage
    assert [x.hp for x in c.run.party.values()] == [x.hp for x in clone.run.party.values()]


def test_random_party_rarely_clears_a_day():
    env = DnDDayEnv("bandit_hideout")
    clears = sum(_play_env(env, s, agent="random")[1]["metrics"]["full_clear"] for s in range(3))
    assert clears == 0


def test_a_protect_fight_whose_ward_died_earlier_is_lost_at_once():
    run = DayRun(load_day("border_march"), 0)
    _win_battle(run)
    assert run.phase == "intermission"   # seed 0: the wolves are held off
    run.party["apprentice"].dead = True
    _pick(run, "continue")   # the orc raid: protect the apprentice
    assert run.over and run.results[-1] == "loss" and run.encounters_won == 1


def test_a_days_kit_is_carried_and_its_healing_potions_serve_between_fights():
    data = copy.deepcopy(_base())
    data["party"][0]["items"] = ["potion-of-healing-greater*2", "longsword-plus-1"]
    d = parse_day(data, "days/kit.toml")
    run = DayRun(d, 0)
    f = run.party["fighter"]
    assert dict(f.resources["items"])["potion-of-healing-greater"] == 2
    assert any(a.key.startswith("longsword") and a.to_hit == f.prof + f.mod("str") + 1 for a in f.attacks)
    _win_battle(run)
    assert run.phase == "intermission"
    f.hp, run._menu = 1, None
    run.roller._int = Script([1, 2, 1, 3])   # 4d4+4
    _pick(run, "item_potion", "fighter drinks a potion of greater healing (4d4+4; 2 left")
    assert f.hp == 1 + 11 and dict(f.resources["items"])["potion-of-healing-greater"] == 1
    bad = copy.deepcopy(_base())
    bad["party"][0]["items"] = ["potion-of-nothing"]
    with pytest.raises(FileFormatError, match="party\\[0\\].items"):
        parse_day(bad, "days/kit.toml")


def test_natural_recovery_is_a_short_rest_choice_for_a_land_druid():
    data = copy.deepcopy(_base())
    data["party"][1] = {"id": "cleric", "archetype": "druid", "level": 4}
    run = DayRun(parse_day(data, "days/druid.toml"), 0)
    druid = run.party["cleric"]
    top = druid.resources["slots_max"]
    druid.resources["slots"] = (0, 0) + tuple(top[2:])   # every 1st and 2nd slot spent
    run.phase, run._menu = "rest", None
    labels = [o.label for o in run.decision.options if o.kind == "arcane"]
    assert labels == ["cleric uses Natural Recovery: regain a level-2 slot",
                      "cleric uses Natural Recovery: regain a level-1 slot + a level-1 slot"]
    _pick(run, "arcane", "a level-2 slot")
    assert druid.resources["slots"][:2] == (0, 1) and druid.resources["natural_recovery"] == 0


def test_a_frenzy_still_running_when_the_fight_ends_costs_a_level_of_exhaustion():
    data = copy.deepcopy(_base())
    data["party"][0] = {"id": "fighter", "archetype": "barbarian", "level": 3}
    run = DayRun(parse_day(data, "days/berserker.toml"), 0)
    b = run.party["fighter"]
    b.conditions["raging"] = {"kept": True}
    b.conditions["frenzied"] = {"round": 1}
    run.battle.outcome = "win"
    run._after_choice()
    assert "raging" not in b.conditions and b.exhaustion == 1


def test_the_baseline_finds_its_choice_through_member_groups():
    run = _to_intermission("dragon_hunt")
    run.party["fighter"].hp = 3
    run.short_rests_left = 0   # no rest to take: a potion for the fighter, inside a member's group
    run._menu = None
    whole = copy.deepcopy(run)
    want = whole._options()[plan_intermission(whole)]   # the choice with every option on show
    assert want.kind == "potion" and want.data[1] == "fighter"
    run.max_options = 6
    i = plan_intermission(run)
    assert run.decision.options[i].kind == "group"
    run.choose(i)
    i = plan_intermission(run)
    assert run.decision.options[i] == want


# ------------------------------------------------------------------ Wild Shape between fights
def _druid_day(level: int) -> DayRun:
    data = copy.deepcopy(_base())
    data["party"][1] = {"id": "cleric", "archetype": "druid", "level": level}   # (the cleric's squares)
    run = DayRun(parse_day(data, "days/druid.toml"), 0, max_options=1000)   # every option in one list
    run.battle.outcome = "win"   # straight to the first intermission
    run._after_choice()
    assert run.phase == "intermission"
    return run


def test_wild_shape_between_fights_lasts_into_the_next_fight_and_ends_at_a_short_rest():
    run = _druid_day(4)
    druid = run.party["cleric"]
    own_hp, own_ac = druid.hp, druid.ac
    forms = [o.label for o in run.decision.options if o.kind == "wild_shape"]
    assert any("a Wolf (CR 0.25, 11 HP; until a short rest; 2 use(s) left)" in f for f in forms)
    assert not any("Giant Eagle" in f for f in forms)   # no flying forms before level 8
    _pick(run, "wild_shape", "a Wolf")
    assert (druid.hp, druid.max_hp, druid.resources["wild_shape"]) == (11, 11, 1)
    assert "Wolf" in druid.name and druid.spells == ()
    _pick(run, "continue")
    assert run.phase == "battle" and run.battle.creatures["cleric"] is druid
    assert [a.name for a in druid.attacks] == ["Bite"]
    druid.hp = 6   # hurt in the fight, still a wolf when it ends
    run.battle.outcome = "win"
    run._after_choice()
    assert run.phase == "intermission" and "Wolf" in druid.name and druid.hp == 6
    assert any(o.kind == "wild_shape_end" for o in run.decision.options)
    _pick(run, "short_rest")
    assert "Wolf" not in druid.name and (druid.hp, druid.ac) == (own_hp, own_ac)
    assert any("returns to its own form from" in e for e in run.events(20))
    _pick(run, "finish_rest")
    assert druid.resources["wild_shape"] == 2   # a short rest refreshes the uses


def test_a_shape_taken_in_a_fight_ends_with_it_and_an_all_day_shape_outlasts_a_rest():
    from dungeonbench_gym.dnd.classes.druid import wild_shape
    assert [wild_shape_duration(n) for n in (2, 15, 16, 20)] == \
        ["until_short_rest", "until_short_rest", "all_day", "all_day"]
    data = copy.deepcopy(_base())
    data["party"][1] = {"id": "cleric", "archetype": "druid", "level": 4}
    run = DayRun(parse_day(data, "days/druid.toml"), 0)
    druid = run.party["cleric"]
    own_hp = druid.hp
    wild_shape(run.battle, druid, "wolf")
    run.battle.outcome = "win"
    run._after_choice()
    assert "Wolf" not in druid.name and druid.hp == own_hp   # combat-only, as every in-fight effect
    run = _druid_day(16)
    druid = run.party["cleric"]
    _pick(run, "wild_shape", "all day")
    form = druid.name
    _pick(run, "short_rest")
    _pick(run, "finish_rest")
    assert druid.name == form and druid.resources.get("wild_shape_day") == "all_day"
    _pick(run, "wild_shape_end")
    assert "returns" in run.events(1)[0] and "wild_shape_saved" not in druid.resources


def test_a_form_with_no_room_at_its_square_ends_before_the_fight(monkeypatch):
    run = _druid_day(8)
    druid = run.party["cleric"]
    large = [o for o in run.decision.options if o.kind == "wild_shape" and "Brown Bear" in o.label]
    assert large, "a level-8 druid can become a Brown Bear (Large, CR 1)"
    run.choose(run.decision.options.index(large[0]))
    assert druid.squares == 2
    monkeypatch.setattr(DayRun, "_room_for", lambda self, cid, n, squares=None: n == 1)
    _pick(run, "continue")
    assert run.phase == "battle" and druid.squares == 1 and "Bear" not in druid.name
    assert any("no room for its form" in e for e in run.events(20))


def test_env_state_names_the_one_creature_a_spell_between_fights_is_cast_on():
    """The plain-data state an LLM reads: a spell cast between fights on one creature (Mage Armor,
    Shield of Faith, a revival: a day_spell option) names that creature as the option's target."""
    found = 0
    for day in ("bandit_hideout", "gorgon_road", "sunken_temple"):
        env = DnDDayEnv(day)
        env.reset(seed=0)
        for _ in range(3000):
            run = env.run
            if run.phase == "intermission":
                state = env.state()
                for o, row in zip(run.decision.options, state["decision"]["options"]):
                    if o.kind == "day_spell" and len(o.data[3]) == 1:
                        assert row["target"] == o.data[3][0], row
                        found += 1
                    elif o.kind == "day_spell":
                        assert "target" not in row, row
            action = heuristic.choose(run.battle) if run.phase == "battle" else 0
            _obs, _r, term, trunc, _info = env.step(action)
            if term or trunc:
                break
    assert found > 0
