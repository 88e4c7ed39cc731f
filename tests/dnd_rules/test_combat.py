"""SRD 5.1 Combat, rule by rule: each test's docstring names the section and states the rule;
the dice are scripted and the outcome asserted exactly."""

import pytest
from dnd_helpers import OPEN, Script, events, fighter, kinds, mon, pick, turn

from dungeonbench_gym.dnd.builders.pcs import build_pc
from dungeonbench_gym.dnd.dice import Roller
from dungeonbench_gym.dnd.engine import Battle
from dungeonbench_gym.dnd.grid import BattleMap
from dungeonbench_gym.dnd.scenario import parse_encounter
from dungeonbench_gym.core.errors import FileFormatError


def _ambush(*fighters, dice=(), **kw):
    """A battle whose pre-battle and initiative dice come from ``dice`` in order, then 10s."""
    roller = Roller(0)
    roller._int = Script(list(dice) + [10] * 200)
    return Battle(BattleMap.from_dict({"layout": OPEN}), list(fighters), roller=roller, **kw)


def _skip_to(b, cid):
    """End turns (choosing "end") until it is cid's turn."""
    for _ in range(20):
        if b.pending.get("actor") == cid:
            return
        pick(b, None, "End turn")
    raise AssertionError(f"never {cid}'s turn")


def test_surprised_creature_takes_no_turn_in_round_one():
    """Combat > The Order of Combat > Surprise
    A surprised creature can't move or take an action (a bonus action included) on its first turn
    of the combat: its first turn passes with nothing to choose."""
    f, g = fighter(5, at=(2, 2)), mon("goblin", (6, 2))
    b = _ambush(f, g, surprised=("goblin",))
    assert [e["creatures"] for e in events(b, "surprise")] == [["goblin"]]
    seen = []
    for _ in range(4):   # round 1 and the start of round 2
        seen.append((b.round, b.pending.get("actor")))
        if b.round == 2 and b.pending.get("actor") == "goblin":
            break
        pick(b, None, "End turn")
    assert (1, "goblin") not in seen and (2, "goblin") in seen
    assert "surprised" not in g.conditions


def test_surprised_creature_has_no_reaction_until_its_first_turn_ends():
    """Combat > The Order of Combat > Surprise
    A surprised creature can't take a reaction until its first turn ends: a foe leaving its reach
    before then provokes no opportunity attack; after that turn it may react again."""
    f, g = fighter(5, at=(3, 2)), mon("orc", (4, 2))
    b = _ambush(f, g, surprised=("orc",))
    turn(b, "fighter")
    assert "surprised" in g.conditions and not g.economy.reaction
    before = len(b.log)
    pick(b, "move")
    # walk away east->west: any destination two squares off leaves the orc's reach
    dest = next(i for i, o in enumerate(b.decision.options) if o.data and o.data[0][:2] == (1, 2))
    b.choose(dest)
    while b.decision.kind in ("route",):
        b.choose(0)
    assert not any(e.get("event") == "reaction" for e in b.log[before:])
    assert "opportunity" not in kinds(b)
    _skip_to(b, "orc")   # the orc's first turn was skipped (surprised): this is round 2
    assert b.round == 2 and g.economy.reaction


def test_a_hiding_side_surprises_those_whose_passive_perception_is_beaten():
    """Combat > The Order of Combat > Surprise
    When one side hides, each of its creatures makes a Dexterity (Stealth) check; a creature of
    the other side whose passive Wisdom (Perception) is lower than every such check notices no
    threat and is surprised. A member of a group can be surprised while the others are not."""
    rogue = build_pc("rogue", 5, "rogue", (2, 2, 0))
    dull, keen = fighter(5, at=(7, 2), cid="dull"), build_pc("cleric", 5, "keen", (7, 4, 0))
    dull.side = keen.side = "enemies"
    need_dull, need_keen = 10 + dull.mod("wis"), 10 + keen.mod("wis")
    assert need_keen > need_dull   # the cleric's Wisdom is the higher
    stealth_bonus = rogue.mod("dex") + rogue.prof
    natural = need_dull - stealth_bonus + 1   # beats the fighter's passive Perception, not the cleric's
    assert 1 <= natural <= 20 and natural + stealth_bonus <= need_keen
    b = _ambush(rogue, dull, keen, dice=(natural,), hiding="party")
    assert "surprised" in dull.conditions and "surprised" not in keen.conditions
    assert events(b, "stealth")[0]["checks"] == {"rogue": natural + stealth_bonus}


def test_a_stealth_check_equal_to_passive_perception_is_noticed():
    """Combat > The Order of Combat > Surprise
    The hider's check is compared with the passive Perception as with any passive check: the
    watcher notices the threat when its passive score meets or beats the Stealth total."""
    rogue = build_pc("rogue", 5, "rogue", (2, 2, 0))
    watcher = fighter(5, at=(7, 2), cid="watcher")
    watcher.side = "enemies"
    need = 10 + watcher.mod("wis")
    natural = need - (rogue.mod("dex") + rogue.prof)
    b = _ambush(rogue, watcher, dice=(natural,), hiding="party")
    assert "surprised" not in watcher.conditions and not events(b, "surprise")


def test_legendary_creature_has_no_legendary_action_while_surprised():
    """Monsters > Legendary Creatures > Legendary Actions
    A legendary creature can't use legendary actions while surprised: not until after its first
    turn in the combat. (Not surprised, it is offered one at the end of the fighter's turn.)"""
    for surprised in ((), ("unicorn",)):
        f = fighter(5, at=(4, 2))
        b = _ambush(f, mon("unicorn", (5, 2)), dice=(20, 1), surprised=surprised)   # the fighter first
        turn(b, "fighter")
        pick(b, None, "End turn")
        assert (b.pending.get("kind") == "legendary") == (not surprised), surprised


def test_thiefs_reflexes_gives_no_second_turn_when_surprised():
    """Classes > Rogue > Thief's Reflexes
    A 17th-level thief takes two turns in the first round of a combat, but not when it is
    surprised."""
    r = build_pc("rogue", 17, "rogue", (2, 2, 0))
    g = mon("goblin", (8, 6))
    b = _ambush(r, g, surprised=("rogue",))
    assert b.order.count("rogue") == 1
    b2 = _ambush(build_pc("rogue", 17, "rogue", (2, 2, 0)), mon("goblin", (8, 6)))
    assert b2.order.count("rogue") == 2


def test_an_encounter_file_declares_surprise_and_bad_ids_are_refused():
    """Combat > The Order of Combat > Surprise
    The GM determines who might be surprised: an encounter names the surprised creatures, or the
    side that hides; a name that is no combatant of the encounter is refused with the fix."""
    base = {"name": "t", "family": "duel", "round_limit": 3, "map": {"layout": OPEN},
            "objective": {"type": "defeat"},
            "party": [{"id": "f", "archetype": "fighter", "level": 3, "at": [2, 2]}],
            "enemies": [{"id": "g", "monster": "goblin", "at": [6, 2]}]}
    s = parse_encounter({**base, "surprise": {"surprised": ["g"]}})
    b = s.build(0)
    assert [e["creatures"] for e in events(b, "surprise")] == [["g"]]
    with pytest.raises(FileFormatError, match="surprise.surprised"):
        parse_encounter({**base, "surprise": {"surprised": ["nobody"]}})
    with pytest.raises(FileFormatError, match="hiding"):
        parse_encounter({**base, "surprise": {"hiding": "monsters"}})
