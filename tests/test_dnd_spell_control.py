"""Removal, control and teleport spells (dnd/spell_control.py), played through the engine's options."""

import pickle

import pytest
from dnd_helpers import WIDE, arena, cast, events, fighter, turn

from dungeonbench_gym.dnd import spell_control, spellbook
from dungeonbench_gym.dnd.builders.monsters import monster_combatant
from dungeonbench_gym.dnd.dice import Roller
from dungeonbench_gym.dnd.verification import coverage, spell_probe
from dungeonbench_gym.dnd.verification.arena import caster

KEYS = ("banishment", "maze", "plane-shift", "etherealness", "blink", "dimension-door", "teleport",
        "word-of-recall", "gaseous-form", "levitate", "telekinesis", "time-stop", "dominate-beast",
        "dominate-person", "dominate-monster", "compulsion", "confusion", "calm-emotions", "eyebite", "wish")


def battle(key, *foes, ally=True, first="caster", at=(4, 5)):
    """A level-5 wizard with the one spell (four slots of every level), a fighter beside it, foes."""
    c = caster(key, at=at)
    fighters = [c] + ([fighter(5, (at[0], at[1] + 1), "ally")] if ally else [])
    fighters += [monster_combatant(m, f"{m}_{i}", "enemies", (*pos, 0)) for i, (m, pos) in enumerate(foes)]
    return arena(*fighters, layout=WIDE, first=first)


def choose(b, want):
    i = next((i for i, o in enumerate(b.decision.options) if want(o)), None)
    assert i is not None, [o.label for o in b.decision.options]
    b.choose(i)


def target(b, cid):
    choose(b, lambda o: o.kind == "target" and o.data[0] == cid)


def end_turn(b):
    choose(b, lambda o: o.kind == "end_turn")


@pytest.mark.parametrize("key", KEYS)
def test_each_spell_is_executable_and_probed(key):
    assert next(r for r in spellbook.coverage() if r["key"] == key)["status"] == "executable"
    spell_probe.run_probe(key)


# ---------------------------------------------------------------- removal
def test_banished_foe_leaves_the_map_and_the_battle_is_not_won_until_it_is_gone():
    b = battle("banishment", ("orc", (5, 5)), ("orc", (9, 5)))
    orc, other = b.creatures["orc_0"], b.creatures["orc_1"]
    orc.saves["cha"] = -30
    cast(b, "banishment", 4)
    target(b, "orc_0")
    assert orc.dead and "removed" in orc.conditions and not events(b, "death")
    assert all(o.data[0] != "orc_0" for o in b.decision.options if o.kind == "target") or b.decision.kind == "action"
    assert orc not in b.enemies_of(b.creatures["caster"])
    b.damage(other, 100, "force")
    assert other.dead and not b.check_outcome() and b.outcome is None   # the banished orc will return
    b.creatures["ally"].pos = (5, 5, 0)   # someone stands in its space: it comes back beside it
    b.end_concentration(b.creatures["caster"])
    assert not orc.dead and "removed" not in orc.conditions and orc.pos != (5, 5, 0)
    assert events(b, "return")


def test_banished_native_of_another_plane_stays_away_after_the_full_minute():
    b = battle("banishment", ("imp", (5, 5)), ally=False)
    imp = b.creatures["imp_0"]
    imp.saves["cha"] = -30
    cast(b, "banishment", 4)
    target(b, "imp_0")
    assert imp.dead and b.outcome is None   # it may still return
    b.round = imp.conditions["removed"]["until_round"]
    b.end_concentration(b.creatures["caster"])
    assert imp.dead and events(b, "banished")
    b.check_outcome()
    assert b.outcome == "win"


def test_banishment_upcast_takes_a_second_target():
    b = battle("banishment", ("orc", (5, 5)), ("orc", (9, 5)))
    for o in ("orc_0", "orc_1"):
        b.creatures[o].saves["cha"] = -30
    cast(b, "banishment", 5)
    target(b, "orc_0")
    assert b.decision.kind == "target"
    target(b, "orc_1")
    assert b.creatures["orc_0"].dead and b.creatures["orc_1"].dead and b.outcome is None


def test_maze_prisoner_escapes_with_the_intelligence_check_at_its_turn():
    b = battle("maze", ("orc", (5, 5)), ("orc", (9, 5)))
    orc = b.creatures["orc_0"]
    cast(b, "maze", 8)
    target(b, "orc_0")
    assert orc.dead and orc.conditions["removed"]["escape_dc"] == 20
    orc.abilities["int"] = 60   # +25: the DC 20 check cannot fail
    turn(b, "orc_0")
    assert not orc.dead and any("escapes the maze" in e["text"] for e in events(b, "return"))
    assert b.creatures["caster"].concentration is None


def test_plane_shift_sends_the_target_away_for_good():
    b = battle("plane-shift", ("orc", (5, 5)), ally=False)
    orc = b.creatures["orc_0"]
    orc.ac, orc.saves["cha"] = -10, -30
    cast(b, "plane-shift", 7)
    target(b, "orc_0")
    assert orc.dead and orc.conditions["removed"]["returns"] is False
    assert b.outcome == "win"   # its only foe is gone


# ---------------------------------------------------------------- teleports and escapes
def test_dimension_door_reaches_farther_than_misty_step():
    b = battle("dimension-door", ("orc", (12, 9)), ally=False, at=(1, 1))
    cast(b, "dimension-door", 4)
    assert b.pending["kind"] == "destination"
    far = [o for o in b.visible_options() if max(abs(o.data[0][0] - 1), abs(o.data[0][1] - 1)) * 5 > 30]
    assert far
    full = b.visible_options()
    dest = far[-1].data[0]
    j = full.index(far[-1])
    while b.decision.kind == "group":
        choose(b, lambda o: (o.data[0] == "key" and o.data[1] == full[j].group) or
               (o.data[0] == "span" and o.data[1] <= j < o.data[2]))
    choose(b, lambda o: o.data[0] == dest)
    assert b.creatures["caster"].pos == dest and events(b, "teleport")


def test_teleport_escape_takes_near_allies_and_scores_an_escape_not_a_wipe():
    b = battle("teleport", ("ogre", (9, 5)))
    cast(b, "teleport", 7)
    assert b.outcome == "loss"
    assert events(b, "outcome")[-1]["how"] == "escape"
    assert {e["creature"] for e in events(b, "escape")} == {"caster", "ally"}
    assert not b.creatures["caster"].dead and not b.creatures["ally"].dead   # alive, elsewhere


def test_word_of_recall_leaves_a_distant_ally_behind():
    b = battle("word-of-recall", ("ogre", (12, 5)))
    b.creatures["ally"].pos = (8, 8, 0)
    cast(b, "word-of-recall", 6)
    assert b.creatures["caster"].dead and not b.creatures["ally"].dead and b.outcome is None
    b.damage(b.creatures["ally"], 1000, "force")
    b.check_outcome()
    assert b.outcome == "loss"


# ---------------------------------------------------------------- domination
def test_dominated_foe_fights_for_the_caster_and_saves_again_when_hurt():
    b = battle("dominate-person", ("orc", (7, 5)), ("orc", (9, 5)))
    orc = b.creatures["orc_0"]
    orc.saves["wis"] = -30
    cast(b, "dominate-person", 5)
    target(b, "orc_0")
    assert orc.side == "party" and "dominated" in orc.conditions
    assert orc in b.enemies_of(b.creatures["orc_1"])
    end_turn(b)
    while b.decision.actor != "orc_0":   # its turn comes: the caster's side decides for it
        d = b.decision
        b.choose(next(i for i, o in enumerate(d.options) if o.kind in ("end_turn", "legendary_pass")) if any(
            o.kind in ("end_turn", "legendary_pass") for o in d.options) else 0)
    assert b.creatures[b.decision.actor].side == "party"
    orc.saves["wis"] = 30
    b.damage(orc, 1, "slashing", source="orc_1")
    assert orc.side == "enemies" and "dominated" not in orc.conditions


def test_dominate_beast_only_targets_beasts():
    b = battle("dominate-beast", ("orc", (5, 5)))
    assert not any(o.kind == "spell" for o in b.decision.options)   # no beast: not offered
    b = battle("dominate-beast", ("wolf", (5, 5)))
    assert any(o.kind == "spell" for o in b.decision.options)


def test_a_dominated_last_foe_does_not_count_for_the_party():
    b = battle("dominate-monster", ("ogre", (6, 5)), ally=False)
    ogre = b.creatures["ogre_0"]
    ogre.saves["wis"] = -30
    cast(b, "dominate-monster", 8)
    target(b, "ogre_0")
    assert ogre.side == "party" and b.outcome is None
    b.damage(b.creatures["caster"], 1000, "force")
    b.check_outcome()
    assert b.outcome == "loss"   # the dominated ogre does not keep the party standing


# ---------------------------------------------------------------- confusion, calm, compulsion
def _fix(monkeypatch, b, prefix, value):
    """The roller's rolls named ``prefix...`` (not a direction or a target) come out as value."""
    real = Roller.roll

    def roll(self, expr, what="roll", critical=False):
        if what.startswith(prefix) and not any(w in what for w in ("direction", "target")):
            return value
        return real(self, expr, what=what, critical=critical)
    monkeypatch.setattr(Roller, "roll", roll)


def _confuse(monkeypatch, d10):
    b = battle("confusion", ("orc", (7, 5)), ("orc", (12, 8)), ally=False)
    orc = b.creatures["orc_0"]
    orc.saves["wis"] = -30
    b.creatures["orc_1"].saves["wis"] = 30
    cast(b, "confusion", 4)
    choose(b, lambda o: o.kind == "point_x" and o.data[0] == 8)
    choose(b, lambda o: o.kind == "point_y" and o.data[0] == 6)
    assert "confused" in orc.conditions
    _fix(monkeypatch, b, "confusion ", d10)
    return b, orc


def test_confusion_two_to_six_the_creature_does_nothing(monkeypatch):
    b, orc = _confuse(monkeypatch, 4)
    turn(b, "orc_0")
    assert b.decision.actor == "orc_0" and [o.kind for o in b.decision.options] == ["end_turn"]
    assert orc.economy.reaction is False and events(b, "confusion")[-1]["roll"] == 4


def test_confusion_nine_or_ten_acts_normally_and_the_repeat_save_ends_it(monkeypatch):
    b, orc = _confuse(monkeypatch, 10)
    turn(b, "orc_0")
    assert any(o.kind == "move" for o in b.decision.options)
    orc.saves["wis"] = 30
    end_turn(b)
    assert "confused" not in orc.conditions


def test_confusion_seven_or_eight_attacks_a_creature_in_reach(monkeypatch):
    b, _orc = _confuse(monkeypatch, 7)
    b.creatures["caster"].pos = (6, 5, 0)
    turn(b, "orc_0")
    assert [e for e in events(b, "attack") if e["attacker"] == "orc_0"]


def test_calm_emotions_ends_fear_on_the_casters_side():
    b = battle("calm-emotions", ("orc", (10, 5)))
    assert not any(o.kind == "spell" for o in b.decision.options)   # nothing to calm yet
    b.creatures["ally"].conditions["frightened"] = {"by": "orc_0"}
    b.open_menu(b.creatures["caster"])
    cast(b, "calm-emotions", 2)
    choose(b, lambda o: o.kind == "point_x" and o.data[0] == 4)
    choose(b, lambda o: o.kind == "point_y" and o.data[0] == 6)
    assert "frightened" not in b.creatures["ally"].conditions


def test_compulsion_moves_the_creature_in_the_chosen_direction():
    b = battle("compulsion", ("orc", (7, 5)), ally=False)
    orc = b.creatures["orc_0"]
    orc.saves["wis"] = -30
    cast(b, "compulsion", 4)
    assert b.decision.kind == "direction"
    choose(b, lambda o: o.data[0] == (1, 0, 0))   # east
    assert "compelled" in orc.conditions
    turn(b, "orc_0")
    assert orc.pos[0] > 7 and orc.economy.movement == 0


# ---------------------------------------------------------------- levitate, telekinesis, eyebite
def test_levitate_lifts_a_foe_out_of_reach_until_the_spell_ends():
    b = battle("levitate", ("orc", (5, 5)), ally=False)
    orc = b.creatures["orc_0"]
    orc.saves["con"] = -30
    cast(b, "levitate", 2)
    target(b, "orc_0")
    assert orc.pos[2] == 15 and b.speed(orc) == 0
    b.falls()
    assert orc.pos[2] == 15   # it does not fall while the spell lasts
    b.end_concentration(b.creatures["caster"])
    assert orc.pos[2] == 0 and "levitated" not in orc.conditions and not events(b, "fall")


def test_telekinesis_flings_and_restrains_on_a_won_contest():
    b = battle("telekinesis", ("orc", (5, 5)), ally=False)
    orc = b.creatures["orc_0"]
    b.creatures["caster"].resources["spell_mod"] = 40
    cast(b, "telekinesis", 5)
    target(b, "orc_0")
    assert "restrained" in orc.conditions and orc.pos[0] > 5
    x = orc.pos[0]
    turn(b, "caster")   # a later turn: the action grips again, no slot
    slots = b.creatures["caster"].resources["slots"]
    choose(b, lambda o: o.kind == "control" and o.data == ("telekinesis", "orc_0"))
    assert orc.pos[0] > x and b.creatures["caster"].resources["slots"] == slots
    assert b.creatures["caster"].economy.actions == 0


def test_eyebite_offers_three_effects_then_again_on_later_turns():
    b = battle("eyebite", ("orc", (7, 5)), ("orc", (9, 5)), ally=False)
    for o in ("orc_0", "orc_1"):
        b.creatures[o].saves["wis"] = -30
    cast(b, "eyebite", 6)
    target(b, "orc_0")
    assert [o.data[0] for o in b.decision.options] == ["asleep", "panicked", "sickened"]
    choose(b, lambda o: o.data == ("sickened",))
    assert "sickened" in b.creatures["orc_0"].conditions
    c = b.creatures["caster"]
    c.economy.actions = 1
    b.open_menu(c)
    choose(b, lambda o: o.kind == "control" and o.data[1] == "orc_1")
    choose(b, lambda o: o.data == ("asleep",))
    assert "unconscious" in b.creatures["orc_1"].conditions


# ---------------------------------------------------------------- wish, blink, time stop, gaseous form
def test_wish_duplicates_an_executable_spell_with_its_ninth_level_slot():
    b = battle("wish", ("orc", (5, 5)), ally=False)
    c = b.creatures["caster"]
    c.spells = ("wish",)
    cast(b, "wish", 9)
    full = b.visible_options()
    assert any(o.data[0] == "fireball" for o in full) and any(o.data[0] == "banishment" for o in full)
    assert all(o.data[1] <= 8 for o in full)
    j = next(i for i, o in enumerate(full) if o.data[0] == "fireball")
    while b.decision.kind == "group":
        choose(b, lambda o: o.data[0] == "span" and o.data[1] <= j < o.data[2])
    choose(b, lambda o: o.data[0] == "fireball")
    assert b.decision.kind == "point_x"   # Fireball's own placement follows
    while b.decision.actor == "caster" and b.decision.kind != "action":
        b.choose(0)
    assert c.resources["slots"] == (4, 4, 4, 4, 4, 4, 4, 4, 3)   # paid with the 9th-level slot
    assert [e["spell"] for e in events(b, "cast")] == ["fireball"] and events(b, "wish")


def test_blink_vanishes_on_eleven_and_returns_at_the_next_turn(monkeypatch):
    b = battle("blink", ("ogre", (12, 9)), ally=False)
    c = b.creatures["caster"]
    cast(b, "blink", 3)
    _fix(monkeypatch, b, "blink", 15)
    end_turn(b)
    assert c.dead and "removed" in c.conditions or any(e["creature"] == "caster" for e in events(b, "return"))
    for _ in range(20):
        if b.decision.actor == "caster":
            break
        from dungeonbench_gym.dnd import heuristic
        b.choose(heuristic.choose(b))
    assert b.decision.actor == "caster" and not c.dead


def test_time_stop_gives_turns_in_a_row():
    b = battle("time-stop", ("ogre", (12, 9)), ally=False)
    c = b.creatures["caster"]
    cast(b, "time-stop", 9)
    n = c.resources["time_stop"]["left"]
    assert 1 <= n <= 4
    end_turn(b)
    assert b.decision.actor == "caster" and c.economy.actions == 1


def test_gaseous_form_resists_nonmagical_damage_and_bars_spells():
    b = battle("gaseous-form", ("ogre", (12, 9)))
    cast(b, "gaseous-form", 3)
    target(b, "ally")
    ally = b.creatures["ally"]
    hp = ally.hp
    b.damage(ally, 10, "slashing")
    assert hp - ally.hp == 5 and spellbook.no_spells(ally)


# ---------------------------------------------------------------- monsters, pickling
def test_spirit_naga_casts_its_whole_block():
    rows = {r["key"]: r for r in coverage.monster_coverage()}
    assert rows["spirit-naga"]["status"] == "executable"
    coverage.probe_monster("spirit-naga")


def test_a_battle_with_a_banished_creature_pickles():
    b = battle("banishment", ("orc", (5, 5)), ("orc", (9, 5)))
    b.creatures["orc_0"].saves["cha"] = -30
    cast(b, "banishment", 4)
    target(b, "orc_0")
    b2 = pickle.loads(pickle.dumps(b))
    assert b2.controls and b2.creatures["orc_0"].dead
    b2.end_concentration(b2.creatures["caster"])
    assert not b2.creatures["orc_0"].dead


def test_a_battle_without_control_spells_keeps_the_flag_off():
    b = battle("fire-bolt", ("orc", (5, 5)))
    assert spell_control and b.controls is False


@pytest.mark.parametrize("monster,spell", [
    ("cloud-giant", "gaseous-form"), ("cloud-giant", "telekinesis"), ("storm-giant", "levitate"),
    ("night-hag", "plane-shift"), ("rakshasa", "dominate-person"), ("lich", "dimension-door"),
    ("lich", "dominate-monster"), ("guardian-naga", "banishment"), ("unicorn", "calm-emotions"),
    ("glabrezu", "confusion"), ("archmage", "time-stop"), ("archmage", "teleport")])
def test_monsters_cast_these_spells_from_their_blocks(monster, spell):
    assert spell in monster_combatant(monster, "m", "enemies", (2, 2, 0)).spells
    coverage._probe_spell(monster, spell)


def test_a_banished_ward_is_not_lost_and_comes_back():
    mage = caster("banishment", cid="foe_mage", at=(9, 5))
    mage.side = "enemies"
    ward = fighter(5, (4, 5), "ward")
    b = arena(ward, fighter(5, (4, 6), "guard"), mage, layout=WIDE, first="foe_mage",
              objective={"type": "protect", "creature": "ward"})
    ward.saves["cha"] = -30
    cast(b, "banishment", 4)
    target(b, "ward")
    assert ward.dead and "removed" in ward.conditions and b.outcome is None
    b.end_concentration(mage)
    assert not ward.dead and ward.pos[:2] == (4, 5)
