"""Channel Divinity (Turn Undead, Destroy Undead) and Arcane Recovery, with the SRD's numbers."""

import pytest
from dnd_helpers import WIDE, arena, events, mon, pc, pick, script

from dungeonbench_gym.dnd import heuristic
from dungeonbench_gym.dnd.builders.pcs import arcane_recovery, short_rest
from dungeonbench_gym.dnd.scenario import load_encounter


def test_class_data_gives_channel_divinity_uses_and_destroy_undead_cr():
    assert "channel_divinity" not in pc("cleric", 1, (1, 1)).features
    c2, c5 = pc("cleric", 2, (1, 1)), pc("cleric", 5, (1, 1))
    assert c2.resources["channel_divinity"] == 1 and "destroy_undead_cr" not in c2.resources
    assert c5.resources["destroy_undead_cr"] == 0.5


def test_turn_undead_wis_save_vs_spell_dc_turns_the_failures():
    c = pc("cleric", 2, (2, 2), "c")            # spell DC 8 + 2 + 3 = 13
    s1, s2 = mon("skeleton", (5, 2), "s1"), mon("skeleton", (5, 4), "s2")   # Wis 8: -1
    far = mon("skeleton", (13, 9), "far")        # beyond 30 ft
    g = mon("goblin", (4, 2), "g")               # not undead
    b = arena(c, s1, s2, far, g, layout=WIDE, first="c")
    script(b, 13, 14)   # s1: 13-1 = 12 < 13 turned; s2: 14-1 = 13 saves
    pick(b, "turn_undead", "Wis DC 13")
    assert "turned" in s1.conditions and "turned" not in s2.conditions
    assert "turned" not in far.conditions and "turned" not in g.conditions
    assert c.resources["channel_divinity"] == 0 and c.economy.actions == 0
    assert s1.conditions["turned"]["until"] == b.round + 10 and not s1.economy.reaction


def test_a_turned_undead_only_flees_dashes_or_dodges_and_damage_ends_it():
    c = pc("cleric", 2, (2, 2), "c")
    s = mon("skeleton", (5, 2), "s")
    b = arena(c, s, layout=WIDE)
    s.conditions["turned"] = {"by": "c", "until": 10}
    from dnd_helpers import turn
    turn(b, "s")
    kinds = {o.kind for o in b.decision.options}
    assert kinds <= {"move", "dash", "dodge", "escape", "stand", "end_turn"} and "attack" not in kinds
    here = b.distance(s, c)
    pick(b, "move")
    assert all(b.distance_from(s, o.data[0], c) > here for o in b._options(b.pending))
    b.damage(s, 1, "bludgeoning")
    assert "turned" not in s.conditions


def test_destroy_undead_at_5_destroys_cr_half_or_lower_on_a_failed_save():
    c = pc("cleric", 5, (2, 2), "c")            # DC 8 + 3 + 4 = 15
    s = mon("skeleton", (5, 2), "s")             # CR 1/4
    gh = mon("ghoul", (5, 4), "gh")              # CR 1: only turned
    b = arena(c, s, gh, layout=WIDE, first="c")
    script(b, 2, 2)
    pick(b, "turn_undead")
    assert s.dead and not gh.dead and "turned" in gh.conditions


def test_turn_resistance_gives_advantage():
    c = pc("cleric", 2, (2, 2), "c")
    lich = mon("lich", (5, 2), "lich")           # Turn Resistance; Wis save +9
    b = arena(c, lich, layout=WIDE, first="c")
    script(b, 1, 5)     # advantage: 5 + 9 = 14 >= 13
    pick(b, "turn_undead")
    assert "turned" not in lich.conditions


def test_short_rest_restores_channel_divinity():
    c = pc("cleric", 2, (2, 2))
    c.resources["channel_divinity"] = 0
    short_rest(c)
    assert c.resources["channel_divinity"] == 1


def test_heuristic_turns_undead_in_the_skeleton_crypt_when_two_are_near():
    s = load_encounter("skeleton_crypt")
    used = 0
    for seed in range(4):
        b = s.build(seed)
        while b.outcome is None:
            b.choose(heuristic.choose(b))
        used += len(events(b, "channel_divinity"))
    assert used >= 1


# ---------------------------------------------------------------- Arcane Recovery
def _spent(level, slots):
    w = pc("wizard", level, (1, 1))
    w.resources["slots"] = tuple(slots)
    return w


def test_arcane_recovery_recovers_up_to_half_the_wizard_level_rounded_up_once_a_day():
    w = _spent(5, (0, 0, 0, 0, 0))               # level 5: 4/3/2 slots, 3 levels back
    assert w.resources["slots_max"][:3] == (4, 3, 2)
    assert arcane_recovery(w) == (3,)            # the highest expended slot that fits
    assert w.resources["slots"][:3] == (0, 0, 1)
    assert arcane_recovery(w) == ()              # once per day
    w2 = _spent(5, (0, 0, 0, 0, 0))
    assert arcane_recovery(w2, (1, 2)) == (1, 2) and w2.resources["slots"][:2] == (1, 1)


def test_arcane_recovery_limits():
    w = _spent(1, (0, 0, 0, 0, 0))
    assert arcane_recovery(w) == (1,)            # level 1: one level
    w3 = _spent(3, (4, 0, 0, 0, 0))             # level 3: 2 levels, only a 2nd-level slot expended
    assert arcane_recovery(w3) == (2,)
    with pytest.raises(ValueError):
        arcane_recovery(_spent(3, (0, 0, 0, 0, 0)), (1, 1, 1))    # 3 levels > 2
    with pytest.raises(ValueError):
        arcane_recovery(_spent(5, (4, 3, 2, 0, 0)), (1,))          # nothing expended at 1st
    full = pc("wizard", 5, (1, 1))
    assert arcane_recovery(full) == () and full.resources["arcane_recovery"] == 1
    assert arcane_recovery(pc("cleric", 5, (1, 1))) == ()
