"""The SRD conditions (appendix A) and their effects on attacks, saves, movement and actions."""

from dnd_helpers import arena, events, mon, pc, pick, script, turn


def _duel(cond_on_attacker=None, cond_on_target=None, **detail):
    f, o = pc("fighter", 1, (2, 2)), mon("ogre", (3, 2))
    b = arena(f, o)
    if cond_on_attacker:
        f.conditions[cond_on_attacker] = dict(detail)
    if cond_on_target:
        o.conditions[cond_on_target] = dict(detail)
    return b, f, o


def test_blinded_attacker_has_disadvantage_and_attacks_against_it_have_advantage():
    b, f, o = _duel("blinded")
    assert b.attack_modifiers(f, o, True)[1] and b.attack_modifiers(o, f, True)[0]


def test_invisible_attacker_has_advantage_and_attacks_against_it_disadvantage():
    b, f, o = _duel("invisible")
    assert b.attack_modifiers(f, o, True)[:2] == (True, False)
    assert b.attack_modifiers(o, f, True)[:2] == (False, True)


def test_poisoned_attacker_has_disadvantage():
    b, f, o = _duel("poisoned")
    assert b.attack_modifiers(f, o, True)[:2] == (False, True)


def test_deafened_changes_no_attack_or_save():
    b, f, o = _duel("deafened")
    assert b.attack_modifiers(f, o, True)[:2] == (False, False)
    script(b, 10)
    assert b.saving_throw(f, "dex", 11)     # 10 + 1


def test_frightened_attacker_has_disadvantage_while_the_source_lives_and_cannot_approach():
    f, o = pc("fighter", 1, (1, 1)), mon("ogre", (6, 4))
    b = arena(f, o, first="fighter")
    f.conditions["frightened"] = {"by": "ogre"}
    assert b.attack_modifiers(f, o, False)[1]
    pick(b, "move")
    opts = b._options(b.pending)
    here = b.distance(f, o)
    assert opts and all(b.distance_from(f, x.data[0], o) >= here for x in opts)
    o.dead = True
    assert not b.attack_modifiers(f, o, False)[1]


def test_charmed_creature_cannot_attack_its_charmer():
    f, o, g = pc("fighter", 1, (2, 2)), mon("ogre", (3, 2)), mon("goblin", (2, 3))
    b = arena(f, o, g, first="fighter")
    f.conditions["charmed"] = {"by": "ogre"}
    b.forget_options()
    pick(b, "attack", "Longsword")
    assert [x.data[0] for x in b.decision.options] == ["goblin"]


def test_stunned_creature_is_incapacitated_fails_str_dex_saves_and_is_easy_to_hit():
    b, f, o = _duel(cond_on_target="stunned")
    assert o.incapacitated and b.speed(o) == 0
    assert not b.saving_throw(o, "str", 1) and b.attack_modifiers(f, o, True)[0]
    script(b, 1)
    assert not b.saving_throw(o, "con", 5)   # other saves are rolled (1 + 3 < 5)


def test_an_incapacitated_creature_skips_its_turn_and_makes_no_opportunity_attack():
    f, o = pc("fighter", 1, (2, 2)), mon("ogre", (3, 2))
    b = arena(f, o, first="fighter")
    o.conditions["incapacitated"] = {}
    pick(b, "move")
    pick(b, "destination", "Move to (2, 5)")
    assert b.decision.kind == "action" and not events(b, "reaction")
    pick(b, "end_turn")
    assert b.decision.actor == "fighter"   # the ogre's turn passed


def test_petrified_resists_all_damage_is_immune_to_poison_and_fails_dex_saves():
    b, f, o = _duel(cond_on_target="petrified")
    b.damage(o, 10, "fire", magical=True)
    b.damage(o, 10, "poison")
    assert o.hp == 59 - 5 and not b.saving_throw(o, "dex", 1) and o.incapacitated
    assert b.attack_modifiers(f, o, True)[0]


def test_paralyzed_and_unconscious_hits_within_5_ft_are_critical():
    for cond in ("paralyzed", "unconscious"):
        b, f, o = _duel(cond_on_target=cond)
        script(b, 5, 12, 4, 4)           # advantage keeps 12: 15 hits; 2d8+3
        b.make_attack(f, f.attack("longsword"), o)
        assert events(b, "attack")[-1]["critical"] and o.hp == 59 - 11


def test_restrained_has_disadvantage_on_dex_saves_and_speed_0():
    b, _f, o = _duel(cond_on_target="restrained")
    assert b.speed(o) == 0
    script(b, 18, 2)                     # disadvantage keeps 2
    assert not b.saving_throw(o, "dex", 5)


def test_prone_attacker_has_disadvantage_and_ranged_attacks_on_prone_too():
    b, f, o = _duel("prone")
    assert b.attack_modifiers(f, o, True)[1]
    far = mon("goblin", (7, 5))
    far.conditions["prone"] = {}
    b.creatures["far"] = far
    assert b.attack_modifiers(f, far, False)[1]


def test_exhaustion_levels_are_cumulative():
    f, o = pc("fighter", 1, (2, 2)), mon("ogre", (6, 5))
    b = arena(f, o)
    b.add_exhaustion(f)
    assert b.speed(f) == 30 and not b.attack_modifiers(f, o, True)[1]
    b.add_exhaustion(f)
    assert b.speed(f) == 15                           # 2: speed halved
    b.add_exhaustion(f)
    assert b.attack_modifiers(f, o, True)[1]           # 3: disadvantage on attacks and saves
    script(b, 15, 2)
    assert not b.saving_throw(f, "dex", 5)
    hp = f.max_hp
    b.add_exhaustion(f)
    assert f.max_hp == hp // 2                         # 4: hit point maximum halved
    b.add_exhaustion(f)
    assert b.speed(f) == 0                            # 5: speed 0
    b.add_exhaustion(f)
    assert f.dead                                      # 6: death


def test_a_grappled_creature_has_speed_0():
    b, _f, o = _duel(cond_on_target="grappled", by="fighter")
    assert b.speed(o) == 0


def test_conditions_show_in_the_state_dict():
    b, _f, _o = _duel(cond_on_target="stunned")
    d = b.to_dict()
    assert "stunned" in next(c for c in d["combatants"] if c["id"] == "ogre")["conditions"]


# ----------------------------------------------------------------- flying and falling
def _flyer():
    f, w = pc("fighter", 1, (1, 1)), mon("white-dragon-wyrmling", (5, 3))   # fly 60, no hover
    b = arena(f, w, first="white-dragon-wyrmling")
    return b, f, w


def test_a_flyer_moves_in_3d_up_to_the_altitude_cap():
    b, f, _w = _flyer()
    pick(b, "move")
    opts = b._options(b.pending)
    heights = {o.data[0][2] for o in opts}
    assert heights == {0, 5, 10, 15}                   # Battle(max_altitude_ft=15)
    assert any("ft up" in o.label for o in opts)
    walker = b.reach(f)
    assert all(p[2] == 0 for p in walker.destinations)


def test_a_flyer_knocked_prone_falls_1d6_per_10_ft_and_lands_prone():
    b, _f, w = _flyer()
    w.pos = (5, 3, 20)
    w.conditions["prone"] = {}
    script(b, 3, 4)
    b.falls()
    assert w.pos[2] == 0 and w.hp == w.max_hp - 7 and events(b, "fall")[-1]["height"] == 20


def test_a_flyer_held_at_speed_0_falls_but_a_hoverer_does_not():
    b, _f, w = _flyer()
    w.pos = (5, 3, 10)
    w.conditions["grappled"] = {"by": "fighter", "dc": None}
    script(b, 2)
    b.falls()
    assert w.pos[2] == 0 and w.hp == w.max_hp - 2
    s = mon("flying-sword", (2, 5))
    s.pos = (2, 5, 10)
    s.conditions["prone"] = {}
    b.creatures["flying-sword"] = s
    b.falls()
    assert s.pos[2] == 10


def test_a_flying_creature_stays_aloft_between_turns():
    b, _f, w = _flyer()
    w.pos = (5, 3, 10)
    b.falls()
    assert w.pos[2] == 10 and not events(b, "fall")


# ----------------------------------------------------------------- Ready
def test_a_readied_attack_fires_when_a_foe_comes_within_reach():
    f, g = pc("fighter", 1, (2, 2)), mon("goblin", (6, 2))
    b = arena(f, g, first="fighter")
    pick(b, "ready")
    assert f.economy.actions == 0 and "readied" in f.conditions
    pick(b, "end_turn")
    turn(b, "goblin")
    pick(b, "move")
    pick(b, "destination", "Move to (3, 2)")
    if b.decision.kind == "route":
        pick(b, "route", "Route 1")
    d = b.decision
    assert d.kind == "reaction" and d.actor == "fighter" and "Readied attack" in d.options[0].label
    script(b, 15, 6)                 # 1d8+3 = 9 kills the goblin (7 HP)
    pick(b, "reaction", "Readied attack")
    assert g.dead and not f.economy.reaction and "readied" not in f.conditions


def test_a_readied_attack_lapses_at_the_start_of_the_readiers_turn():
    f, g = pc("fighter", 1, (2, 2)), mon("goblin", (6, 2))
    b = arena(f, g, first="fighter")
    pick(b, "ready")
    turn(b, "fighter")
    assert "readied" not in f.conditions


# ----------------------------------------------------------------- Hide
HIDE_MAP = ["#########", "#...#...#", "#...#...#", "#.......#", "#########"]


def test_hide_needs_to_be_out_of_sight_and_beats_passive_perception():
    r, g = pc("rogue", 2, (1, 1)), mon("goblin", (6, 1))       # a wall between them
    b = arena(r, g, layout=HIDE_MAP, first="rogue")
    assert any(o.kind == "cunning_hide" for o in b.decision.options)
    script(b, 5)                      # 5 + 3 Dex + 2 prof = 10 >= goblin passive Perception 9
    pick(b, "cunning_hide")
    assert "hidden" in r.conditions and r.economy.bonus is False
    assert b.attack_modifiers(g, r, False)[1]                   # attacks against it: disadvantage
    r.pos = (3, 3, 0)
    script(b, 4, 15, 1, 1)            # advantage (hidden): 15 + 5 hits; 1d6+3 and Sneak Attack 1d6
    b.make_attack(r, r.attack("shortbow"), g)
    assert events(b, "attack")[-1]["hit"] and "hidden" not in r.conditions    # attacking reveals it


def test_hide_is_not_offered_in_plain_sight_and_fails_below_passive_perception():
    r, g = pc("rogue", 2, (1, 3)), mon("goblin", (6, 3))
    b = arena(r, g, layout=HIDE_MAP, first="rogue")
    assert not any(o.kind in ("hide", "cunning_hide") for o in b.decision.options)
    r.pos = (1, 1, 0)
    g.pos = (6, 1, 0)
    b.forget_options()
    script(b, 3)                      # 8 < 9
    pick(b, "hide")
    assert "hidden" not in r.conditions and r.economy.actions == 0
