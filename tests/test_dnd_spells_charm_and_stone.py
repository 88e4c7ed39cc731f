"""Charms and stone: Animal Friendship, Suggestion, Mass Suggestion, Stone Shape, Meld into Stone,
and Pass without Trace. Each test casts through the engine's own options."""

from dnd_helpers import turn

from dungeonbench_gym.dnd import spellbook
from dungeonbench_gym.dnd.verification import arena as probe_arena
from dungeonbench_gym.dnd.rules import spell_data


def _cast(b, key, target):
    """Choose the spell, then the target by id; stop any further-target decision."""
    b.choose(next(i for i, o in enumerate(b.decision.options) if o.kind == "spell" and o.data[0] == key))
    if b.decision.kind == "slot":
        b.choose(0)
    b.choose(next(i for i, o in enumerate(b.decision.options) if o.kind == "target" and o.data[0] == target))
    while b.decision is not None and b.decision.actor == "caster" and b.decision.kind == "target":
        b.choose(next(i for i, o in enumerate(b.decision.options) if o.kind == "stop"))


def _failed(key, target, foes=("orc", "orc", "ogre")):
    """A battle where target failed its save against key (the first seed that shows it)."""
    for seed in range(30):
        b = probe_arena.battle(key, seed, foes)
        _cast(b, key, target)
        if spell_data.mech(key)["condition"] in b.creatures[target].conditions:
            return b
    raise AssertionError(f"{target} never failed its save against {key}")


def _target_ids(b, key):
    return {t.cid for t in spellbook.targets(b, b.creatures["caster"], key)}


# ================================================================ Animal Friendship
def test_animal_friendship_only_beasts_with_int_below_4():
    b = probe_arena.battle("animal-friendship", 0, ("wolf", "orc", "giant-ape"))
    ape = b.creatures["giant-ape_2"]
    ape.pos = (6, 6, 0)   # within 30 ft
    assert _target_ids(b, "animal-friendship") == {"wolf_0"}   # the orc is no beast, the ape has Int 7


def test_animal_friendship_charms_the_beast_and_damage_ends_it():
    b = _failed("animal-friendship", "wolf_0", ("wolf", "wolf", "brown-bear"))
    wolf = b.creatures["wolf_0"]
    assert wolf.conditions["charmed"]["by"] == "caster"
    assert not b.may_target(wolf, b.creatures["caster"])   # it can't attack its charmer
    b.damage(wolf, 1, "fire", magical=True, source="ally")
    assert "charmed" not in wolf.conditions


# ================================================================ Suggestion
def test_suggestion_stops_the_target_attacking_and_sends_it_away():
    b = _failed("suggestion", "orc_0")
    orc = b.creatures["orc_0"]
    assert orc.conditions["turned"]["spell"] == "suggestion"
    assert b.creatures["caster"].concentration == "suggestion"
    turn(b, "orc_0")
    kinds = {o.kind for o in b.decision.options}
    assert "attack" not in kinds and kinds <= {"move", "dash", "escape", "stand", "end_turn", "dodge"}
    assert not b.creatures["orc_0"].economy.reaction


def test_suggestion_ends_with_concentration_or_damage():
    b = _failed("suggestion", "orc_0")
    b.end_concentration(b.creatures["caster"])
    assert "turned" not in b.creatures["orc_0"].conditions
    b = _failed("suggestion", "orc_0")
    b.damage(b.creatures["orc_0"], 1, "fire", magical=True, source="ally")
    assert "turned" not in b.creatures["orc_0"].conditions


def test_suggestion_spares_those_that_cannot_be_charmed():
    b = probe_arena.battle("suggestion", 0)
    b.creatures["orc_0"].condition_immunities = ["charmed"]
    assert "orc_0" not in _target_ids(b, "suggestion")
    assert "orc_1" in _target_ids(b, "suggestion")


# ================================================================ Mass Suggestion
def test_mass_suggestion_takes_up_to_twelve_targets_without_concentration():
    assert spell_data.extra_targets("mass-suggestion", 6) == 11
    for seed in range(30):
        b = probe_arena.battle("mass-suggestion", seed)
        c = b.creatures["caster"]
        b.choose(next(i for i, o in enumerate(b.decision.options) if o.kind == "spell" and o.data[0] == "mass-suggestion"))
        if b.decision.kind == "slot":
            b.choose(0)
        for cid in ("orc_0", "orc_1", "ogre_2"):   # three foes, then the decision ends by itself
            d = b.decision
            if d is None or d.actor != "caster" or d.kind != "target":
                break
            b.choose(next(i for i, o in enumerate(d.options) if o.kind == "target" and o.data[0] == cid))
        turned = [o for o in b.creatures.values() if "turned" in o.conditions]
        assert c.concentration is None
        if len(turned) >= 2:
            assert all(o.conditions["turned"]["spell"] == "mass-suggestion" for o in turned)
            return
    raise AssertionError("never more than one target suggested")


# ================================================================ Stone Shape
def _shape(b, d):
    c = b.creatures["caster"]
    b.open_menu(c)
    for kind, want in (("spell", "stone-shape"), ("point_x", c.pos[0]), ("point_y", c.pos[1]), ("direction", d)):
        b.choose(next(i for i, o in enumerate(b.decision.options) if o.kind == kind and o.data[0] == want))


def test_stone_shape_opens_a_wall_square_for_good():
    b = probe_arena.battle("stone-shape")
    c = b.creatures["caster"]
    c.pos = (4, 1, 0)
    assert b.map.is_wall(4, 0)
    slots = sum(c.resources["slots"])
    _shape(b, (0, -1, 0))
    assert not b.map.is_wall(4, 0) and b.map.fits(4, 0, 1)
    assert sum(c.resources["slots"]) == slots - 1
    for _ in range(3):   # instantaneous: still open rounds later
        turn(b, "caster")
    assert not b.map.is_wall(4, 0)


def test_stone_shape_raises_stone_on_an_empty_square_but_not_on_a_creature():
    b = probe_arena.battle("stone-shape")
    c = b.creatures["caster"]
    _shape(b, (0, -1, 0))   # (4, 5): empty floor north of the caster
    assert b.map.is_wall(4, 5)
    c.economy.actions += 1
    _shape(b, (1, 0, 0))   # (5, 6): the orc stands there
    assert not b.map.is_wall(5, 6)
    assert any(e.get("event") == "wall_fails" for e in b.log[-4:])


# ================================================================ Meld into Stone
def _melded(seed=0):
    b = probe_arena.battle("meld-into-stone", seed)
    c = b.creatures["caster"]
    c.pos = (1, 6, 0)
    b.creatures["orc_0"].pos = (2, 6, 0)
    b.open_menu(c)
    assert any(o.kind == "spell" and o.data[0] == "meld-into-stone" for o in b.decision.options)
    b.choose(next(i for i, o in enumerate(b.decision.options) if o.kind == "spell" and o.data[0] == "meld-into-stone"))
    return b, c


def test_meld_into_stone_is_offered_only_beside_a_wall():
    b = probe_arena.battle("meld-into-stone")   # the caster at (4, 6): no wall beside it
    assert not any(o.kind == "spell" and o.data[0] == "meld-into-stone" for o in b.decision.options)


def test_melded_caster_cannot_be_attacked_and_steps_out():
    b, c = _melded()
    assert c.pos[:2] == (0, 6) and b.map.is_wall(0, 6)
    turn(b, "orc_0")
    assert not any(o.kind == "attack" and o.data[-1:] == ("caster",) for o in b.decision.options)
    b.choose(next(i for i, o in enumerate(b.decision.options) if o.kind == "attack"))
    assert all(o.data[0] != "caster" for o in b.decision.options if o.kind == "target")
    turn(b, "caster")
    assert {o.kind for o in b.decision.options} == {"control", "end_turn"}
    b.choose(next(i for i, o in enumerate(b.decision.options) if o.kind == "control"))
    assert c.pos[:2] == (1, 6) and "enclosed" not in c.conditions
    assert any(o.kind == "spell" for o in b.decision.options)   # back to a normal turn


def test_melded_caster_is_expelled_when_its_stone_opens():
    b, c = _melded()
    b.replace_map(b.map.with_cells({(0, 6): "."}))
    hp = c.hp
    turn(b, "caster")
    assert "enclosed" not in c.conditions and c.hp < hp
    assert any(e.get("event") == "meld_end" for e in b.log)


def test_a_battle_with_a_melded_caster_plays_out():
    from dungeonbench_gym.dnd import heuristic
    b, c = _melded(3)
    for _ in range(3000):
        if b.outcome is not None:
            break
        b.choose(heuristic.choose(b))
    assert b.outcome is not None
    assert "enclosed" not in c.conditions   # out of the stone at the end


# ================================================================ Pass without Trace
def test_pass_without_trace_adds_ten_to_hide_checks_near_the_caster():
    b = probe_arena.battle("pass-without-trace")
    c, ally, orc = b.creatures["caster"], b.creatures["ally"], b.creatures["orc_0"]
    before = {o.cid: b.stealth(o) for o in (c, ally, orc)}
    b.choose(next(i for i, o in enumerate(b.decision.options)
                  if o.kind == "spell" and o.data[0] == "pass-without-trace"))
    assert c.concentration == "pass-without-trace"
    assert b.stealth(c) == before["caster"] + 10 and b.stealth(ally) == before["ally"] + 10
    assert b.stealth(orc) == before["orc_0"]   # not the caster's foes
    ally.pos = (15, 11, 0)   # out of the 30-ft aura
    assert b.stealth(ally) == before["ally"]
    ally.pos = (4, 7, 0)
    b.end_concentration(c)
    assert b.stealth(ally) == before["ally"]
