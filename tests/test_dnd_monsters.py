"""Monster traits, reactions and legendary actions against the SRD stat blocks (scripted dice):
Pack Tactics, Regeneration (and what stops it), Parry, legendary save actions (a dragon's Wing
Attack, a kraken's Lightning Storm through "uses its Lightning Storm")."""

from dnd_helpers import WIDE, arena, events, labels, mon, pc, pick, script, turn

from dungeonbench_gym.dnd.verification import arena as probe_arena


# ----------------------------------------------------------------- Pack Tactics
def test_pack_tactics_gives_advantage_with_an_ally_next_to_the_target():
    f = pc("fighter", 5, (4, 4), "f")
    w1, w2 = mon("wolf", (5, 4), "w1"), mon("wolf", (3, 4), "w2")
    b = arena(f, w1, w2, layout=WIDE)
    adv, dis, why = b.attack_modifiers(w1, f, True, w1.attack("bite"))
    assert adv and not dis and "pack tactics" in why
    script(b, 2, 18, 1, 1, 20)  # advantage: the 18 counts (18+4 hits); 2d4+2 = 4; Str save 20
    assert b.make_attack(w1, w1.attack("bite"), f) is True
    assert f.hp == f.max_hp - 4


def test_pack_tactics_needs_a_conscious_ally_within_5_ft_of_the_target():
    f = pc("fighter", 5, (4, 4), "f")
    w1, w2 = mon("wolf", (5, 4), "w1"), mon("wolf", (1, 1), "w2")
    b = arena(f, w1, w2, layout=WIDE)
    assert not b.attack_modifiers(w1, f, True)[0]        # the other wolf is far away
    w2.pos = (3, 4, 0)
    w2.conditions["stunned"] = {}
    assert not b.attack_modifiers(w1, f, True)[0]        # an incapacitated ally does not count
    d = mon("dire-wolf", (3, 4), "d")
    assert "pack_tactics" in d.features and "pack_tactics" not in mon("troll", (1, 1)).features


# ----------------------------------------------------------------- Regeneration
def test_troll_regenerates_10_at_the_start_of_its_turn_unless_fire_or_acid_hit_it():
    f, t = pc("fighter", 5, (2, 2), "f"), mon("troll", (6, 6), "troll")
    b = arena(f, t, layout=WIDE)
    t.hp = 50
    turn(b, "troll")
    assert t.hp == 60 and events(b, "heal")[-1]["amount"] == 10
    b.damage(t, 5, "fire")
    turn(b, "troll")
    assert t.hp == 55                                    # fire: no regeneration this turn
    turn(b, "troll")
    assert t.hp == 65                                    # back the turn after


def test_troll_at_0_hp_lives_until_its_turn_and_dies_only_if_fire_stopped_it():
    f, t = pc("fighter", 5, (2, 2), "f"), mon("troll", (6, 6), "troll")
    b = arena(f, t, layout=WIDE)
    b.damage(t, 200, "slashing")
    assert t.hp == 0 and not t.dead
    turn(b, "troll")
    assert t.hp == 10 and not t.dead                     # regenerates from 0
    f2, t2 = pc("fighter", 5, (2, 2), "f"), mon("troll", (6, 6), "troll")
    b2 = arena(f2, t2, layout=WIDE)
    b2.damage(t2, 200, "slashing")
    b2.damage(t2, 3, "acid")                             # acid on the downed troll
    assert not t2.dead
    turn(b2, "troll")
    assert t2.dead


def test_vampire_spawn_regeneration_stops_at_0_hp_and_after_radiant():
    f, v = pc("fighter", 5, (2, 2), "f"), mon("vampire-spawn", (6, 6), "v")
    b = arena(f, v, layout=WIDE)
    v.hp = 40
    b.damage(v, 4, "radiant")
    turn(b, "v")
    assert v.hp == 36
    turn(b, "v")
    assert v.hp == 46
    b.damage(v, 100, "slashing")
    assert v.dead                                        # needs at least 1 HP: dies at 0


# ----------------------------------------------------------------- Parry
def test_knight_parries_a_melee_hit_that_2_more_ac_turns_into_a_miss():
    f, k = pc("fighter", 5, (2, 2), "f"), mon("knight", (3, 2), "k")
    b = arena(f, k, first="f")
    a = next(x for x in f.attacks if x.melee)
    need = 18 - a.to_hit                                 # the d20 that exactly hits AC 18
    script(b, need)
    assert b.make_attack(f, a, k) is None                # the knight gets a reaction decision
    assert b.decision.kind == "reaction" and b.decision.actor == "k"
    assert any("Parry (+2 AC" in x for x in labels(b))
    pick(b, "reaction", "Parry")
    assert events(b, "attack")[-1]["hit"] is False and k.hp == k.max_hp
    assert k.economy.reaction is False
    dmg = [1] * 8
    script(b, need, *dmg)                                # no reaction left: this one hits
    assert b.make_attack(f, a, k) is True and k.hp < k.max_hp


def test_parry_is_not_offered_when_plus_2_would_not_matter():
    f, k = pc("fighter", 5, (2, 2), "f"), mon("knight", (3, 2), "k")
    b = arena(f, k, first="f")
    a = next(x for x in f.attacks if x.melee)
    script(b, 20 - a.to_hit, *[1] * 8)                   # total 20 hits AC 20 anyway
    assert b.make_attack(f, a, k) is True
    assert k.economy.reaction is True


# ----------------------------------------------------------------- legendary save actions
def test_dragon_wing_attack_is_a_legendary_dex_save_costing_2():
    f, d = pc("fighter", 5, (3, 4), "f"), mon("adult-black-dragon", (4, 4), "d")
    b = arena(f, d, layout=WIDE, first="f")
    pick(b, "end_turn")
    assert b.decision.kind == "legendary" and b.decision.actor == "d"
    assert any("wing-attack" in x and "DC 19 DEX" in x and "costs 2 of 3" in x for x in labels(b))
    script(b, 3, 4, 2)                                   # 2d6+6 = 13; Dex 2+2 = 4 < 19
    pick(b, "legendary", "wing-attack")
    assert f.hp == f.max_hp - 13 and "prone" in f.conditions
    assert events(b, "legendary")[-1]["cost"] == 2
    assert b.decision.actor == "d" and b.decision.kind == "action"   # on to the dragon's own turn


def test_wing_attack_success_takes_nothing_and_it_needs_two_points():
    f, d = pc("fighter", 5, (3, 4), "f"), mon("adult-black-dragon", (4, 4), "d")
    b = arena(f, d, layout=WIDE, first="f")
    d.resources["legendary_left"] = 1
    pick(b, "end_turn")
    assert not any("wing-attack" in x for x in labels(b))
    assert any("tail-attack" in x for x in labels(b))
    f2, d2 = pc("fighter", 5, (3, 4), "f"), mon("adult-black-dragon", (4, 4), "d")
    b2 = arena(f2, d2, layout=WIDE, first="f")
    pick(b2, "end_turn")
    script(b2, 3, 4, 19)                                 # 19+2 = 21 >= 19: no damage, not prone
    pick(b2, "legendary", "wing-attack")
    assert f2.hp == f2.max_hp and "prone" not in f2.conditions


def test_kraken_uses_its_lightning_storm_as_a_legendary_action():
    k = mon("kraken", (6, 4), "k")
    assert ("lightning-storm", 2, "save", "lightning-storm") in k.legendary
    f = pc("fighter", 5, (2, 4), "f")
    b = arena(f, k, layout=WIDE, first="f")
    pick(b, "end_turn")
    assert any("lightning-storm" in x for x in labels(b))


# ----------------------------------------------------------------- Breath Weapons: two breaths, one recharge
def test_silver_dragon_breath_weapons_share_one_recharge():
    d, f = mon("silver-dragon-wyrmling", (2, 2), "d"), pc("fighter", 5, (4, 2), "f")
    b = arena(f, d, layout=WIDE, first="d")
    names = labels(b, "save_action")
    assert any("Cold Breath" in x for x in names) and any("Paralyzing Breath" in x for x in names)
    pick(b, "save_action", "Paralyzing Breath")
    script(b, 1)                                         # Con 1+2 < DC 13: paralyzed
    pick(b, "direction", "hits f")
    assert "paralyzed" in f.conditions and d.recharge["breath-weapons"] is False
    assert not labels(b, "save_action")                  # neither breath until it recharges
    script(b, 5)                                         # 5 on the d6 at its turn's start: recharged
    turn(b, "d")
    assert d.recharge["breath-weapons"] is True and len(labels(b, "save_action")) == 2


# ----------------------------------------------------------------- staying up: Undead Fortitude, Relentless
def test_zombie_undead_fortitude_con_save_dc_5_plus_damage():
    z, f = mon("zombie", (3, 2), "z"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, z)
    script(b, 12)                                        # Con 12+3 = 15 >= 5 + 25 ? no: 15 < 30
    b.damage(z, 25, "slashing")
    assert z.dead
    z2 = mon("zombie", (3, 2), "z")
    b2 = arena(pc("fighter", 5, (2, 2), "f"), z2)
    z2.hp = 4
    script(b2, 12)                                       # 15 >= 5 + 10: 1 HP instead of dying
    b2.damage(z2, 10, "slashing")
    assert not z2.dead and z2.hp == 1


def test_undead_fortitude_does_not_work_against_radiant_or_a_critical_hit():
    z = mon("zombie", (3, 2), "z")
    b = arena(pc("fighter", 5, (2, 2), "f"), z)
    b.damage(z, 22, "radiant")                           # no save rolled (the script is empty)
    assert z.dead
    z2 = mon("zombie", (3, 2), "z")
    b2 = arena(pc("fighter", 5, (2, 2), "f"), z2)
    b2.damage(z2, 22, "slashing", critical=True)
    assert z2.dead


def test_boar_relentless_once_against_7_damage_or_less():
    bo = mon("boar", (3, 2), "b")
    b = arena(pc("fighter", 5, (2, 2), "f"), bo)
    bo.hp = 5
    b.damage(bo, 7, "slashing")
    assert bo.hp == 1 and not bo.dead
    b.damage(bo, 1, "slashing")                          # used up: it dies now
    assert bo.dead
    bo2 = mon("boar", (3, 2), "b")
    b2 = arena(pc("fighter", 5, (2, 2), "f"), bo2)
    bo2.hp = 5
    b2.damage(bo2, 8, "slashing")                        # more than 7: no help
    assert bo2.dead


# ----------------------------------------------------------------- Nimble Escape, Flyby, Blood Frenzy, magic weapons
def test_goblin_nimble_escape_offers_bonus_disengage_but_no_dash():
    g, f = mon("goblin", (3, 2), "g"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, g, first="g")
    names = labels(b)
    assert "Nimble Escape: Disengage" in names and not any("Dash" in x and "Nimble" in x for x in names)
    pick(b, "cunning_disengage")
    assert g.economy.disengaged and g.economy.bonus is False and g.economy.actions == 1


def test_flyby_owl_leaves_reach_without_an_opportunity_attack():
    o, f = mon("giant-owl", (3, 2), "o"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, o, layout=WIDE, first="o")
    b._choose_destination(o, (7, 2, 0))
    assert o.pos == (7, 2, 0) and b.decision.kind == "action" and not events(b, "reaction")
    w, f2 = mon("wolf", (3, 2), "w"), pc("fighter", 5, (2, 2), "f")   # a walker provokes
    b2 = arena(f2, w, layout=WIDE, first="w")
    b2._choose_destination(w, (7, 2, 0))
    assert b2.decision.kind == "reaction" and b2.decision.actor == "f"


def test_hunter_shark_blood_frenzy_against_a_hurt_target():
    s, f = mon("hunter-shark", (3, 2), "s"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, s)
    assert not b.attack_modifiers(s, f, True)[0]
    f.hp -= 1
    adv, _, why = b.attack_modifiers(s, f, True)
    assert adv and "blood frenzy" in why


def test_deva_weapon_attacks_are_magical_against_nonmagical_resistance():
    d, g = mon("deva", (3, 2), "d"), mon("gargoyle", (2, 2), "g")
    g.side = "party"
    b = arena(g, d)
    script(b, 15, 4, 1, 1, 1, 1)                         # hit; 1d6+4 = 8 bludgeoning, 4d8 = 4 radiant
    assert b.make_attack(d, d.attack("mace"), g) is True
    assert g.hp == g.max_hp - 12                         # the gargoyle's resistance does not halve it


# ----------------------------------------------------------------- Charge, Pounce
def test_lion_pounce_after_a_20_ft_run_knocks_prone_and_earns_a_bonus_bite():
    lion, f = mon("lion", (2, 2), "lion"), pc("fighter", 5, (9, 2), "f")
    b = arena(f, lion, layout=WIDE, first="lion")
    b._choose_destination(lion, (7, 2, 0))               # 25 ft straight at the fighter (Large: now adjacent)
    script(b, 18, 3, 5)                                  # claw hits (18+5), 1d6+3 = 6; Str save 5+6 < 13
    assert b.make_attack(lion, lion.attack("claw"), f) is True
    assert "prone" in f.conditions and events(b, "charge")
    b.back_to_menu(lion)
    assert any("Bonus attack with Bite on prone f" in x for x in labels(b))
    pick(b, "attack", "Bonus attack")
    assert [o.data[0] for o in b.decision.options] == ["f"]
    script(b, 15, 2, 4)                                  # advantage on the prone target; bite 1d8+3 = 7
    pick(b, "target", "f")
    assert lion.economy.bonus is False and f.hp == f.max_hp - 13


def test_no_pounce_without_the_run_and_minotaur_charge_adds_2d8_and_pushes():
    lion, f = mon("lion", (6, 2), "lion"), pc("fighter", 5, (9, 2), "f")
    b = arena(f, lion, layout=WIDE, first="lion")
    b._choose_destination(lion, (7, 2, 0))               # only 5 ft: no pounce
    script(b, 18, 3)
    assert b.make_attack(lion, lion.attack("claw"), f) is True
    assert "prone" not in f.conditions and not events(b, "charge")
    m, f2 = mon("minotaur", (1, 2), "m"), pc("fighter", 5, (9, 2), "f")
    b2 = arena(f2, m, layout=WIDE, first="m")
    b2._choose_destination(m, (7, 2, 0))                 # 30 ft toward it (Large: next to the fighter)
    script(b2, 18, 1, 1, 2, 2, 3)                        # gore 2d8+4 = 6, charge 2d8 = 4; Str 3+6 < 14
    assert b2.make_attack(m, m.attack("gore"), f2) is True
    assert f2.hp == f2.max_hp - 10 and "prone" in f2.conditions
    assert f2.pos != (9, 2, 0) and b2.distance(m, f2) >= 10   # pushed away (as far as the walls allow)


# ----------------------------------------------------------------- Swarm
CORRIDOR = ["########", "#......#", "########"]


def test_swarm_moves_through_a_foe_in_a_corridor_and_a_wolf_cannot():
    s, f = mon("swarm-of-rats", (1, 1), "s"), pc("fighter", 5, (2, 1), "f")
    b = arena(f, s, layout=CORRIDOR, first="s")
    assert (3, 1, 0) in b.reach(s).costs
    w, f2 = mon("wolf", (1, 1), "w"), pc("fighter", 5, (2, 1), "f")
    b2 = arena(f2, w, layout=CORRIDOR, first="w")
    assert (3, 1, 0) not in b2.reach(w).costs
    f3, s3 = pc("fighter", 5, (1, 1), "f"), mon("swarm-of-rats", (2, 1), "s")
    b3 = arena(f3, s3, layout=CORRIDOR, first="f")
    assert (3, 1, 0) in b3.reach(f3).costs           # and others pass through the swarm
    f4, w4 = pc("fighter", 5, (1, 1), "f"), mon("wolf", (2, 1), "w")
    b4 = arena(f4, w4, layout=CORRIDOR, first="f")
    assert (3, 1, 0) not in b4.reach(f4).costs


def test_swarm_bites_weaker_at_half_hp_and_never_heals():
    s, f = mon("swarm-of-rats", (3, 2), "s"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, s)
    script(b, 19, 3, 4)                                  # 2d6 = 7 while healthy
    b.make_attack(s, s.attack("bites"), f)
    assert f.hp == f.max_hp - 7
    s.hp = s.max_hp // 2
    script(b, 19, 3)                                     # 1d6 = 3 at half HP
    b.make_attack(s, s.attack("bites"), f)
    assert f.hp == f.max_hp - 10
    assert b.heal(s, 5, "a potion") == 0 and s.hp == s.max_hp // 2


# ----------------------------------------------------------------- extra damage, absorption, invisibility
def test_hobgoblin_martial_advantage_2d6_once_a_turn_with_an_ally_next_to_the_target():
    h, h2, f = mon("hobgoblin", (3, 2), "h"), mon("hobgoblin", (1, 2), "h2"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, h, h2, first="h")
    a = h.attack("longsword")
    script(b, 19, 4, 2, 3)                               # 1d8+1 = 5, Martial Advantage 2d6 = 5
    b.make_attack(h, a, f)
    assert f.hp == f.max_hp - 10 and events(b, "martial_advantage")
    script(b, 19, 4)                                     # second hit this turn: no extra dice
    b.make_attack(h, a, f)
    assert f.hp == f.max_hp - 15


def test_spy_sneak_attack_needs_an_ally_or_advantage():
    s, f = mon("spy", (3, 2), "s"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, s, first="s")
    script(b, 19, 6)                                     # shortsword 1d6+2 = 8, alone: no sneak attack
    b.make_attack(s, s.attack("shortsword"), f)
    assert f.hp == f.max_hp - 8
    f.conditions["prone"] = {}                           # advantage: + 2d6
    script(b, 19, 1, 6, 3, 3)
    b.make_attack(s, s.attack("shortsword"), f)
    assert f.hp == f.max_hp - 8 - 14
    assert "Cunning Action: Disengage" in labels(b)


def test_iron_golem_heals_from_fire_and_the_invisible_stalker_is_invisible():
    g = mon("iron-golem", (3, 2), "g")
    b = arena(pc("fighter", 5, (2, 2), "f"), g)
    g.hp = 100
    assert b.damage(g, 12, "fire") == 0 and g.hp == 112
    st, f = mon("invisible-stalker", (3, 2), "st"), pc("fighter", 5, (2, 2), "f")
    b2 = arena(f, st)
    assert "target invisible" in b2.attack_modifiers(f, st, True)[2]
    assert "attacker invisible" in b2.attack_modifiers(st, f, True)[2]


# ----------------------------------------------------------------- Heated Body, Sure-Footed, Death Burst
def test_azer_heated_body_burns_a_melee_attacker():
    z, f = mon("azer", (3, 2), "z"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, z)
    sword = f.attack("longsword")                        # 1d8+4
    script(b, 15, 1, 6)                                  # a hit for 5; then 1d10 = 6 fire back
    assert b.make_attack(f, sword, z) is True
    assert f.hp == f.max_hp - 6 and z.hp == z.max_hp - 5
    script(b, 1)                                         # a miss: no burn
    b.make_attack(f, sword, z)
    assert f.hp == f.max_hp - 6


def test_goat_sure_footed_saves_with_advantage_against_prone_only():
    g = mon("goat", (3, 2), "g")
    w = mon("wolf", (2, 2), "w")
    w.side = "party"
    b = arena(w, g)
    script(b, 19, 1, 1, 2, 15)                           # bite hits, 2d4+2 = 4; Str save: 2 and 15 (advantage)
    b.make_attack(w, w.attack("bite"), g)
    assert "prone" not in g.conditions                   # 15+1 >= DC 11 with the better die
    g2 = mon("giant-goat", (3, 2), "g")
    assert b._sure_footed(g2, "str", ("prone",)) and not b._sure_footed(g2, "con", ("prone",))
    assert not b._sure_footed(g2, "dex", ("blinded",))


def test_magma_mephit_death_burst_fire_half_on_a_success():
    m = mon("magma-mephit", (3, 2), "m")
    a, c = pc("fighter", 5, (2, 2), "a"), pc("fighter", 5, (4, 2), "c")
    far = pc("fighter", 5, (7, 2), "far")
    b = arena(a, c, far, m)
    script(b, 4, 3, 2, 20)                               # 2d6 = 7 once; a: 2 fails; c: 20 succeeds (3)
    b.damage(m, 100, "slashing")
    assert m.dead and events(b, "death_burst")
    assert a.hp == a.max_hp - 7 and c.hp == c.max_hp - 3 and far.hp == far.max_hp


def test_dust_mephit_death_burst_blinds_for_a_minute_with_repeat_saves():
    m, a = mon("dust-mephit", (3, 2), "m"), pc("fighter", 5, (2, 2), "a")
    b = arena(a, m)
    script(b, 3)                                         # Con 3+2 < 10
    b.damage(m, 100, "slashing")
    blind = a.conditions["blinded"]
    assert blind["repeat"] == "con" and blind["until_round"] == b.round + 10


# ----------------------------------------------------------------- Stench, Petrifying Gaze
def test_ghast_stench_poisons_at_turn_start_and_a_success_gives_immunity():
    g, f = mon("ghast", (3, 2), "g"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, g, first="g")
    f.resources.pop("immune_to", None)                   # the opening turn may already have asked
    f.conditions.pop("poisoned", None)
    script(b, 2)                                         # Con 2+2 < 10
    turn(b, "f")
    assert "poisoned" in f.conditions
    b2 = arena(pc("fighter", 5, (2, 2), "f"), mon("ghast", (3, 2), "g"), first="g")
    f2 = b2.creatures["f"]
    f2.resources.pop("immune_to", None)
    f2.conditions.pop("poisoned", None)
    script(b2, 15)
    turn(b2, "f")
    assert "poisoned" not in f2.conditions and "g:stench" in f2.resources["immune_to"]
    f3 = pc("fighter", 5, (2, 2), "f")
    b3 = arena(f3, mon("ghast", (6, 6), "g"), layout=WIDE, first="g")
    turn(b3, "f")                                        # out of its 5 ft: no save rolled
    assert "poisoned" not in f3.conditions


def _unstone(f):
    """Undo whatever the battle's opening turn did (the gaze may already have been met)."""
    for k in ("restrained", "petrified"):
        f.conditions.pop(k, None)


def test_basilisk_gaze_restrains_then_petrifies_on_a_second_failure():
    g, f = mon("basilisk", (6, 2), "g"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, g, layout=WIDE, first="g")
    _unstone(f)
    script(b, 2)                                         # Con 2+5 = 7 < 12
    turn(b, "f")
    assert f.conditions["restrained"]["petrify"]
    b.round += 1                                         # the end of its next turn
    script(b, 3)
    b._end_of_turn_effects(f)
    assert "petrified" in f.conditions and "restrained" not in f.conditions


def test_gaze_needs_sight_total_cover_or_blindness_blocks_it():
    wall = ["#" * 16] + ["#......#.......#"] * 10 + ["#" * 16]
    g, f = mon("basilisk", (9, 2), "g"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, g, layout=wall, first="g")
    turn(b, "f")                                         # a wall between them: no save (none scripted)
    assert "restrained" not in f.conditions
    g2, f2 = mon("basilisk", (6, 2), "g"), pc("fighter", 5, (2, 2), "f")
    f2.conditions["blinded"] = {}
    b2 = arena(f2, g2, layout=WIDE, first="g")
    turn(b2, "f")
    assert "restrained" not in f2.conditions


def test_medusa_gaze_failing_by_5_petrifies_at_once():
    g, f = mon("medusa", (6, 2), "g"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, g, layout=WIDE, first="g")
    _unstone(f)
    script(b, 1)                                         # Con 1+5 = 6 <= 14 - 5
    turn(b, "f")
    assert "petrified" in f.conditions


# ----------------------------------------------------------------- Reckless, Rampage, Teleport
def test_berserker_reckless_advantage_both_ways_until_its_next_turn():
    k, f = mon("berserker", (3, 2), "k"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, k, first="k")
    pick(b, "reckless")
    assert "reckless" in b.attack_modifiers(k, f, True)[2]
    assert "target reckless" in b.attack_modifiers(f, k, True)[2]
    assert not any(o.kind == "reckless" for o in b.decision.options)   # once a turn
    turn(b, "k")
    assert "reckless" not in k.conditions and "target reckless" not in b.attack_modifiers(f, k, True)[2]


def test_gnoll_rampage_after_dropping_a_creature_moves_and_bites_as_a_bonus_action():
    g, f = mon("gnoll", (3, 2), "g"), pc("fighter", 1, (2, 2), "f")
    b = arena(f, pc("fighter", 5, (7, 5), "other"), g, first="g")   # the party is not wiped out
    f.hp = 1
    script(b, 15, 3, 3)                                  # spear 1d6+2 (or 1d8+2): drops the fighter
    b.make_attack(g, g.attack("spear"), f)
    assert f.hp == 0
    b.back_to_menu(g)
    move = g.economy.movement
    pick(b, "rampage")
    assert g.economy.bonus is False and g.economy.movement == move + 15
    assert any(x.startswith("Rampage: attack with Bite") for x in labels(b))
    g2, f2 = mon("gnoll", (3, 2), "g"), pc("fighter", 5, (2, 2), "f")
    b2 = arena(f2, g2, first="g")
    script(b2, 15, 3)                                    # a hit that leaves it standing: no rampage
    b2.make_attack(g2, g2.attack("spear"), f2)
    b2.back_to_menu(g2)
    assert not any(o.kind == "rampage" for o in b2.decision.options)


def test_balor_teleport_action_to_a_seen_space_within_120_ft():
    m, f = mon("balor", (2, 2), "m"), pc("fighter", 5, (6, 6), "f")
    b = arena(f, m, layout=WIDE, first="m")
    pick(b, "monster_teleport")
    dests = [o.data[0] for o in b.visible_options()]
    assert (12, 8, 0) in dests and (2, 2, 0) not in dests and (6, 6, 0) not in dests
    probe_arena.choose(b, lambda o: o.data[0] == (12, 8, 0), "the far square")   # through the row groups
    assert m.pos == (12, 8, 0) and m.economy.actions == 0


def test_vampire_legendary_move_without_opportunity_attacks_then_play_goes_on():
    v, f = mon("vampire-vampire", (3, 2), "v"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, v, layout=WIDE, first="f")
    pick(b, "end_turn")
    assert any("move up to 30 ft without provoking" in x for x in labels(b))
    pick(b, "legendary", "Legendary action: move")
    assert b.decision.kind in ("destination", "group") and b.decision.actor == "v"
    probe_arena.choose(b, lambda o: o.data[0] == (8, 2, 0), "a square 25 ft away")
    assert v.pos == (8, 2, 0) and not events(b, "reaction")
    assert b.decision.actor == "v" and b.decision.kind == "action"   # its own turn comes next


def test_tarrasque_legendary_move_is_half_its_speed():
    t, f = mon("tarrasque", (2, 2), "t"), pc("fighter", 5, (12, 9), "f")
    b = arena(f, t, layout=WIDE, first="f")
    pick(b, "end_turn")
    assert any("move up to 20 ft" in x for x in labels(b))


# ----------------------------------------------------------------- the metallic dragons' second breaths
def _breathe(dragon, breath, *rolls):
    d, f = mon(dragon, (2, 2), "d"), pc("fighter", 5, (4, 2), "f")
    b = arena(f, d, layout=WIDE, first="d")
    pick(b, "save_action", breath)
    script(b, *rolls)
    pick(b, "direction", "hits f")
    return b, d, f


def test_bronze_wyrmling_repulsion_breath_pushes_30_ft_on_a_failed_str_save():
    _, d, f = _breathe("bronze-dragon-wyrmling", "Repulsion Breath", 2)   # Str 2+6 < 12
    assert f.pos == (10, 2, 0) and f.hp == f.max_hp and d.recharge["breath-weapons"] is False
    _, _, f2 = _breathe("bronze-dragon-wyrmling", "Repulsion Breath", 15)
    assert f2.pos == (4, 2, 0)


def test_copper_wyrmling_slowing_breath_halves_speed_no_reactions_one_attack():
    b, _, f = _breathe("copper-dragon-wyrmling", "Slowing Breath", 2)       # Con 2+5 < 11
    slow = f.conditions["breath_slowed"]
    assert slow["repeat"] == "con" and slow["until_round"] == b.round + 10
    assert f.economy.reaction is False
    turn(b, "f")
    assert b.speed(f) == 15 and f.economy.reaction is False
    pick(b, "attack", "Attack with Javelin")
    script(b, 15, 1)
    pick(b, "target", "d")
    kinds_left = {o.kind for o in b.decision.options}
    assert "attack" not in kinds_left and "spell" not in kinds_left   # no second attack (Extra Attack)
    assert f.economy.bonus is False


def test_gold_wyrmling_weakening_breath_strength_attacks_and_saves_at_disadvantage():
    b, d, f = _breathe("gold-dragon-wyrmling", "Weakening Breath", 2)       # Str 2+6 < 13
    assert "breath_weakened" in f.conditions
    assert "weakened (Strength attack)" in b.attack_modifiers(f, d, True, f.attack("longsword"))[2]
    script(b, 20, 1)                                     # disadvantage: the 1 counts
    assert not b.saving_throw(f, "str", 10)


# ----------------------------------------------------------------- auras, Reactive, Assassinate, Gnome Cunning
def test_pit_fiend_fear_aura_frightens_within_20_ft_until_the_start_of_the_next_turn():
    p, f = mon("pit-fiend", (5, 2), "p"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, p, layout=WIDE, first="p")
    f.resources.pop("immune_to", None)
    f.conditions.pop("frightened", None)
    script(b, 2)                                         # Wis 2+1 < 21
    turn(b, "f")
    assert f.conditions["frightened"]["by"] == "p" and "attacker frightened" in b.attack_modifiers(f, p, True)[2]


def test_balor_fire_aura_burns_neighbours_at_its_turn_start_and_death_throes_explode():
    m, f = mon("balor", (3, 2), "m"), pc("fighter", 5, (2, 2), "f")
    far = pc("fighter", 5, (12, 9), "far")
    b = arena(f, far, m, layout=WIDE, first="f")
    script(b, 1, 1, 1)                                   # 3d6 = 3 fire to the neighbour only
    turn(b, "m")
    assert f.hp == f.max_hp - 3 and far.hp == far.max_hp
    f.hp = f.max_hp = far.hp = far.max_hp = 500
    script(b, *[1] * 20, 2, 20)                          # 20d6 = 20 once; f fails, far (out of 30 ft) untouched
    b.damage(m, 10 ** 4, "radiant")
    assert m.dead and f.hp == 480 and far.hp == 500


def test_barbed_devil_hide_pricks_its_grappler_at_its_turn_start():
    d, f = mon("barbed-devil", (3, 2), "d"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, d, first="f")
    d.conditions["grappled"] = {"by": "f", "dc": 13}
    script(b, 7)                                         # 1d10 = 7
    turn(b, "d")
    assert f.hp == f.max_hp - 7


def test_marilith_reactive_gets_a_reaction_back_on_every_turn():
    m, f = mon("marilith", (3, 2), "m"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, m, first="m")
    m.economy.reaction = False
    turn(b, "f")
    assert m.economy.reaction is True
    k = mon("knight", (3, 2), "k")
    b2 = arena(pc("fighter", 5, (2, 2), "f"), k, first="k")
    k.economy.reaction = False
    turn(b2, "f")
    assert k.economy.reaction is False


def test_assassin_advantage_in_round_one_against_those_yet_to_act_and_evasion():
    a, f = mon("assassin", (3, 2), "a"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, a, first="a")
    assert "assassinate" in b.attack_modifiers(a, f, True)[2]
    turn(b, "f")
    b.round = 2
    assert "assassinate" not in b.attack_modifiers(a, f, True)[2]
    assert "evasion" in a.features


def test_deep_gnome_cunning_advantage_on_mental_saves_against_magic_only():
    g = mon("deep-gnome-svirfneblin", (3, 2), "g")
    b = arena(pc("fighter", 5, (2, 2), "f"), g)
    script(b, 2, 18)                                     # advantage: 18+2 >= 15
    assert b.saving_throw(g, "wis", 15, magic=True)
    script(b, 18)                                        # not magic: one die
    assert b.saving_throw(g, "wis", 15)
    script(b, 2)
    assert not b.saving_throw(g, "wis", 15)


# ----------------------------------------------------------------- Invisibility, Healing Touch
def test_imp_invisibility_lasts_until_it_attacks():
    i, f = mon("imp", (3, 2), "i"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, i, first="i")
    pick(b, "monster_invisibility")
    assert "invisible" in i.conditions and i.concentration == "invisibility" and i.economy.actions == 0
    assert "target invisible" in b.attack_modifiers(f, i, True)[2]
    turn(b, "i")
    script(b, 15, 10, 1, 20, 1, 1, 1)                    # advantage (unseen): sting hits, 1d4+3; Con 20: half of 3d6
    b.make_attack(i, i.attack("sting"), f)
    assert "invisible" not in i.conditions


def test_deva_healing_touch_heals_an_ally_beside_it_three_times_a_day():
    d, ally, f = mon("deva", (3, 2), "d"), mon("deva", (3, 3), "a2"), pc("fighter", 5, (9, 9), "f")
    b = arena(f, d, ally, layout=WIDE, first="d")
    assert not any(o.kind == "monster_heal" for o in b.decision.options)   # nobody hurt
    ally.hp = 50
    b.open_menu(d)
    pick(b, "monster_heal")
    script(b, 1, 1, 1, 1)                                # 4d8+2 = 6
    pick(b, "target", "a2")
    assert ally.hp == 56 and d.resources["uses:healing-touch"] == 2


def test_orc_aggressive_bonus_move_only_toward_a_foe_and_its_own_move_stays():
    o, f = mon("orc", (2, 2), "o"), pc("fighter", 5, (12, 2), "f")
    b = arena(f, o, layout=WIDE, first="o")
    pick(b, "aggressive")
    full = [x.data[0] for x in b.destination_options(o)]
    assert full and all(b.distance_from(o, p, f) < b.distance(o, f) for p in full)
    assert (1, 2, 0) not in full and (2, 5, 0) not in full   # away, or no closer
    probe_arena.choose(b, lambda x: x.data[0] == (8, 2, 0), "30 ft toward the fighter")
    assert o.pos == (8, 2, 0) and o.economy.bonus is False and o.economy.movement == 30


# ----------------------------------------------------------------- Web
def test_giant_spider_web_restrains_recharges_and_a_str_check_bursts_it():
    s, f = mon("giant-spider", (2, 2), "s"), pc("fighter", 5, (6, 2), "f")
    b = arena(f, s, layout=WIDE, first="s")
    pick(b, "attack", "Attack with Web")
    script(b, 15)                                        # 15+5 = 20 hits AC 19
    pick(b, "target", "f")
    assert f.conditions["restrained"]["escape"] == ("str", 12) and f.hp == f.max_hp
    assert s.recharge["web"] is False and not any("Web" in x for x in labels(b))
    turn(b, "f")
    script(b, 1)                                         # 1 + Str: short of DC 12
    pick(b, "escape_web")
    assert "restrained" in f.conditions and f.economy.actions == 0
    f.economy.actions = 1                                # another try (as on a later turn)
    b.open_menu(f)
    script(b, 12 - f.mod("str"))                         # exactly DC 12
    pick(b, "escape_web")
    assert "restrained" not in f.conditions


def test_stone_golem_slow_recharge_wis_save_within_10_ft_foes_only():
    g, f = mon("stone-golem", (2, 2), "g"), pc("fighter", 5, (4, 2), "f")
    ally = mon("ogre", (2, 4), "o")
    far = pc("fighter", 5, (10, 8), "far")
    b = arena(f, far, g, ally, layout=WIDE, first="g")
    script(b, 3)                                         # Wis 3+1 < 17 (the far fighter and the ogre: no save)
    pick(b, "save_action", "Slow")
    assert "breath_slowed" in f.conditions and "breath_slowed" not in far.conditions
    assert "breath_slowed" not in ally.conditions and g.recharge["slow"] is False


def test_mummy_multiattack_is_its_dreadful_glare_then_its_rotting_fist():
    m, f = mon("mummy", (3, 2), "m"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, m, first="m")
    pick(b, "multiattack")
    assert [o.kind for o in b.decision.options if o.data[1:2] == ("queue",)] == ["save_action"]
    pick(b, "save_action", "Multiattack: Dreadful Glare")
    script(b, 2)                                         # Wis 2+1 < 11
    pick(b, "target", "f")
    assert "frightened" in f.conditions and m.economy.attack_queue == ("rotting-fist",)
    assert any(x.startswith("Multiattack: attack with Rotting Fist") for x in labels(b))


# ----------------------------------------------------------------- saves against a named condition
def _glare_at(target_key):
    """A mummy next to a monster fighting on the party's side; the mummy's turn."""
    m, t = mon("mummy", (3, 2), "m"), mon(target_key, (2, 2), "t")
    t.side = "party"
    return arena(t, m, layout=WIDE, first="m"), m, t


def test_cultist_dark_devotion_advantage_on_the_save_against_being_frightened():
    b, _, t = _glare_at("cultist")
    script(b, 2, 15)                                     # Wis +0: the 2 fails DC 11, the 15 succeeds
    pick(b, "save_action", "Dreadful Glare")
    pick(b, "target", "t")
    assert events(b, "save")[-1]["success"] and "frightened" not in t.conditions   # advantage: the better die counts
    b2, _, t2 = _glare_at("bandit")
    script(b2, 2, 15)
    pick(b2, "save_action", "Dreadful Glare")
    pick(b2, "target", "t")
    assert "frightened" in t2.conditions                 # no trait: one die, the 2


def test_condition_advantage_applies_only_to_its_conditions():
    b, _, t = _glare_at("gladiator")                     # Brave: frightened only
    script(b, 3, 18)
    assert b.saving_throw(t, "wis", 12, condition="frightened") is True
    script(b, 3, 18)
    assert b.saving_throw(t, "wis", 12, condition="charmed") is False
    script(b, 3, 18)
    assert b.saving_throw(t, "wis", 12) is False
    e = mon("ettin", (6, 6), "e")                        # Two Heads: stunned and unconscious too, not poisoned
    script(b, 3, 18)
    assert b.saving_throw(e, "con", 15, condition=("stunned",)) is True
    script(b, 3, 18)
    assert b.saving_throw(e, "con", 15, condition=("poisoned",)) is False
    assert set(mon("death-dog", (1, 1)).resources["save_adv_vs"]) >= {"blinded", "deafened", "unconscious"}
    assert mon("drow", (1, 1)).resources["save_adv_vs"] == ["charmed"]


def test_repeat_save_against_a_condition_also_gets_the_advantage():
    b, _, t = _glare_at("cultist")
    t.conditions["charmed"] = {"by": "m", "repeat": "wis", "dc": 13, "magic": False}
    script(b, 4, 13)                                     # end of its turn: Wis +0, the 13 ends it
    turn(b, "t")
    pick(b, "end_turn")
    assert "charmed" not in t.conditions


def test_bearded_devil_steadfast_not_frightened_while_it_sees_an_ally_within_30_ft():
    b, _, t = _glare_at("bearded-devil")
    ally = mon("goblin", (2, 8), "ally")                 # 30 ft away, in sight
    ally.side = "party"
    b.creatures["ally"] = ally
    script(b, 1)                                         # the save fails (magic resistance does not apply)
    pick(b, "save_action", "Dreadful Glare")
    pick(b, "target", "t")
    assert not events(b, "save")[-1]["success"] and "frightened" not in t.conditions
    ally.pos = (2, 9, 0)                                 # 35 ft: too far
    turn(b, "m")
    script(b, 1)
    pick(b, "save_action", "Dreadful Glare")
    pick(b, "target", "t")
    assert "frightened" in t.conditions


# ----------------------------------------------------------------- Incorporeal Movement
def test_specter_moves_through_a_foe_as_difficult_terrain_under_a_low_ceiling():
    s, f = mon("specter", (1, 1), "s"), pc("fighter", 5, (2, 1), "f")
    b = arena(f, s, layout=CORRIDOR, first="s", max_altitude_ft=0)   # no room to fly over the fighter
    costs = b.reach(s).costs
    assert costs[(3, 1, 0)] == 15                        # 10 ft through the fighter's square + 5 ft
    assert (2, 1, 0) not in costs                        # it cannot end its move inside the fighter
    h, f2 = mon("harpy", (1, 1), "h"), pc("fighter", 5, (2, 1), "f")
    b2 = arena(f2, h, layout=CORRIDOR, first="h", max_altitude_ft=0)
    assert (3, 1, 0) not in b2.reach(h).costs           # a corporeal flyer is stopped


# ----------------------------------------------------------------- Swallow
def test_giant_toad_swallows_only_a_creature_it_grapples_then_digests_it():
    t, f, w = mon("giant-toad", (2, 2), "t"), pc("fighter", 5, (4, 2), "f"), pc("wizard", 5, (6, 6), "w")
    b = arena(f, w, t, layout=WIDE, first="t")
    assert not any("Swallow" in x for x in labels(b, "attack"))          # nobody held yet
    f.conditions.update(grappled={"by": "t", "dc": 13}, restrained={"by": "t", "dc": 13})
    b.open_menu(t)
    script(b, 19, 3, 5, 5)                               # restrained: advantage, 19+4 hits; 7 piercing, 5 poison
    pick(b, "attack", "Swallow")
    pick(b, "target", "f")
    assert f.hp == f.max_hp - 12 and f.conditions["swallowed"]["by"] == "t"
    assert "blinded" in f.conditions and "grappled" not in f.conditions and f.pos == t.pos
    assert f.conditions["restrained"].get("swallowed")   # restrained by the stomach, not the grapple
    assert b.cover(w, f).name == "TOTAL" and b.cover(f, w).name == "TOTAL"   # nothing reaches in or out
    assert b.cover(f, t).name != "TOTAL"                 # but it can hit the toad from inside
    hp = f.hp
    script(b, 1, 2, 3)                                   # the toad's next turn: 3d6 acid = 6
    turn(b, "t")
    assert f.hp == hp - 6 and events(b, "damage")[-1]["type"] == "acid"
    b.damage(t, 500, "slashing")                         # the toad dies: out, prone, beside the corpse
    assert "swallowed" not in f.conditions and "blinded" not in f.conditions and "restrained" not in f.conditions
    assert "prone" in f.conditions and f.pos != t.pos and b.distance(f, t) <= 5


def test_giant_frog_swallows_small_creatures_only_and_one_at_a_time():
    fr = mon("giant-frog", (2, 2), "fr")
    g1, g2 = mon("goblin", (3, 2), "g1"), mon("goblin", (2, 3), "g2")
    f = pc("fighter", 5, (1, 2), "f")
    for x in (g1, g2, f):
        x.side = "party"
        x.conditions["grappled"] = {"by": "fr", "dc": 11}
    b = arena(g1, g2, f, fr, layout=WIDE, first="fr")
    assert not b._can_swallow(fr, f)                     # a Medium fighter is too big
    b._swallow(fr, g1)
    assert "swallowed" in g1.conditions and not b._can_swallow(fr, g2)   # room for one only


def test_remorhaz_regurgitates_after_30_damage_from_inside_and_a_failed_con_save():
    r, f = mon("remorhaz", (2, 2), "r"), pc("fighter", 5, (5, 2), "f")
    b = arena(f, r, layout=WIDE, first="f")
    f.conditions["grappled"] = {"by": "r", "dc": 17}
    b._swallow(r, f)
    b.damage(r, 29, "slashing", source="f")             # 29 from inside: no save at the end of the turn
    pick(b, "end_turn")
    assert "swallowed" in f.conditions and not events(b, "spit_out")
    turn(b, "f")
    b.damage(r, 30, "slashing", source="f")
    script(b, 5)                                         # Con 5+5 < DC 15
    pick(b, "end_turn")
    assert "swallowed" not in f.conditions and "prone" in f.conditions and 0 < b.distance(f, r) <= 10


# ----------------------------------------------------------------- Split
def test_ochre_jelly_splits_on_slashing_or_lightning_with_its_reaction_halving_hp_and_size():
    j, f = mon("ochre-jelly", (2, 2), "j"), pc("fighter", 5, (5, 2), "f")
    b = arena(f, j, layout=WIDE, first="f")
    b.damage(j, 12, "bludgeoning")                       # not a splitting type: 45 -> 33
    assert j.hp == 33 and set(b.creatures) == {"f", "j"}
    b.damage(j, 8, "slashing")                           # immune to slashing, yet it splits
    twin = b.creatures["j_2"]
    assert j.hp == twin.hp == twin.max_hp == 16 and j.size == twin.size == "medium"
    assert b.order.index("j_2") == b.order.index("j") + 1 and not set(j.cells) & set(twin.cells)
    b.damage(j, 8, "lightning")                          # its reaction is spent until its turn
    assert set(b.creatures) == {"f", "j", "j_2"}
    b.damage(twin, 8, "lightning")                       # the new jelly has its own reaction
    assert twin.hp == b.creatures["j_2_2"].hp == 8 and twin.size == "small"
    turn(b, "j")                                         # its reaction is back
    b.damage(j, 3, "slashing")
    assert j.hp == b.creatures["j_3"].hp == 8
    turn(b, "j_2")
    b.damage(twin, 3, "slashing")                        # under 10 HP: no more splitting
    assert len(b.creatures) == 5 and twin.hp == 8
    twin.hp = twin.max_hp = 30
    b.damage(twin, 3, "slashing")                        # Small: too small to split
    assert len(b.creatures) == 5


# ----------------------------------------------------------------- counted multiattacks, Multiple Heads
def test_violet_fungus_multiattack_rolls_1d4_rotting_touches():
    v, f = mon("violet-fungus", (2, 2), "v"), pc("fighter", 5, (3, 2), "f")
    b = arena(f, v, first="v")
    script(b, 3)                                         # 1d4 = 3
    pick(b, "multiattack")
    assert v.economy.attack_queue == ("rotting-touch",) * 3


def _hydra():
    h, f = mon("hydra", (2, 2), "h"), pc("fighter", 5, (4, 2), "f")
    return arena(f, h, layout=WIDE, first="f"), h, f


def test_hydra_loses_a_head_to_25_damage_in_one_turn_and_grows_two_back_at_its_turn_end():
    b, h, _ = _hydra()
    b.damage(h, 15, "slashing")
    assert h.resources["heads"] == 5
    b.damage(h, 10, "slashing")                          # 25 this turn: a head dies
    b.damage(h, 30, "slashing")                          # more in the same turn: still one head
    assert h.resources["heads"] == 4
    pick(b, "end_turn")                                  # the fighter's turn ends; the tally restarts
    b.damage(h, 24, "slashing")                          # 24 in the next turn: no head
    assert h.resources["heads"] == 4 and h.hp == h.max_hp - 79
    turn(b, "h")
    pick(b, "multiattack")                               # a bite per head
    assert h.economy.attack_queue == ("bite",) * 4
    h.economy.attack_queue = ()
    b.open_menu(h)
    pick(b, "end_turn")                                  # its turn ends: two heads for the dead one, 20 HP
    assert h.resources["heads"] == 6 and h.hp == h.max_hp - 59


def test_hydra_heads_do_not_grow_after_fire_and_the_last_head_kills_it():
    b, h, _ = _hydra()
    b.damage(h, 25, "slashing")
    b.damage(h, 1, "fire")                               # fire since its last turn
    turn(b, "h")
    pick(b, "end_turn")
    assert h.resources["heads"] == 4 and h.hp == h.max_hp - 26
    h.resources["heads"] = 1
    turn(b, "f")
    script(b, 3, 18)                                     # one head: no advantage against stunning
    assert b.saving_throw(h, "con", 15, condition="stunned") is False
    h.resources["heads"] = 2
    script(b, 3, 18)
    assert b.saving_throw(h, "con", 15, condition="stunned") is True
    h.resources["heads"] = 1
    b.damage(h, 25, "slashing")                          # its last head: the hydra dies
    assert h.dead


def test_hydra_reactive_heads_opportunity_attacks_keep_its_reaction():
    b, h, f = _hydra()
    assert h.resources["oa_extra"] == 4
    h.economy.reaction = False                           # its own reaction is spent
    f.pos = (4, 2, 0)
    turn(b, "f")
    b._choose_destination(f, (9, 2, 0))                  # leaves the 10-ft reach
    assert b.decision.kind == "reaction" and b.decision.actor == "h"
    script(b, 1)                                         # a miss
    b.choose(next(i for i, o in enumerate(b.decision.options) if o.data[0] is True))
    assert h.resources["oa_extra"] == 3 and f.pos[:2] == (9, 2)


def test_mimic_grappler_advantage_only_against_the_creature_it_holds():
    m, f, g = mon("mimic", (2, 2), "m"), pc("fighter", 5, (3, 2), "f"), pc("fighter", 5, (2, 3), "g")
    b = arena(f, g, m, first="m")
    f.conditions["grappled"] = {"by": "m", "dc": 13}
    adv, _, why = b.attack_modifiers(m, f, True, m.attack("bite"))
    assert adv and "grappler" in why
    assert not b.attack_modifiers(m, g, True, m.attack("bite"))[0]


# ----------------------------------------------------------------- Engulf
def test_shambling_mound_engulfs_after_both_slams_hit_then_crushes_until_escape():
    m, f = mon("shambling-mound", (2, 2), "m"), pc("fighter", 5, (4, 2), "f")
    b = arena(f, m, layout=WIDE, first="m")
    pick(b, "multiattack")
    script(b, 15, 3, 3)                                  # 15+7 hits AC 19; 2d8+4 = 10
    pick(b, "attack", "Multiattack")
    pick(b, "target", "f")
    assert "engulfed" not in f.conditions                # one slam is not enough
    script(b, 15, 3, 3)
    pick(b, "attack", "Multiattack")
    pick(b, "target", "f")
    assert f.conditions["engulfed"]["by"] == "m" and f.conditions["grappled"]["dc"] == 14
    assert "blinded" in f.conditions and "restrained" in f.conditions and f.hp == f.max_hp - 20
    script(b, 2, 3, 3)                                   # its next turn: Con 2+save bonus < 14; 2d8+4 = 10
    turn(b, "m")
    assert f.hp == f.max_hp - 30
    script(b, 19)                                        # Con 19: no damage
    turn(b, "m")
    assert f.hp == f.max_hp - 30
    turn(b, "f")
    script(b, 15)                                        # escape: 15 + Athletics >= DC 14
    pick(b, "escape")
    assert not {"engulfed", "blinded", "restrained", "grappled"} & set(f.conditions)


def test_mound_slams_on_two_different_targets_engulf_nobody():
    m, f, g = mon("shambling-mound", (2, 2), "m"), pc("fighter", 5, (4, 2), "f"), pc("fighter", 5, (4, 3), "g")
    b = arena(f, g, m, layout=WIDE, first="m")
    pick(b, "multiattack")
    script(b, 15, 3, 3, 15, 3, 3)
    pick(b, "attack", "Multiattack")
    pick(b, "target", "f")
    pick(b, "attack", "Multiattack")
    pick(b, "target", "g")
    assert "engulfed" not in f.conditions and "engulfed" not in g.conditions


def test_green_hag_invisible_passage_lasts_until_it_attacks():
    h, f = mon("green-hag", (3, 2), "h"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, h, first="h")
    pick(b, "monster_invisibility")
    assert "invisible" in h.conditions and "target invisible" in b.attack_modifiers(f, h, True)[2]
    turn(b, "h")
    script(b, 2, 1, 1, 1)                                # advantage (unseen): both dice miss
    b.make_attack(h, h.attack("claws"), f)
    assert "invisible" not in h.conditions


def test_lamia_intoxicating_touch_curses_wis_saves_and_ability_checks_with_disadvantage():
    l, f = mon("lamia", (3, 2), "l"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, l, first="l")
    script(b, 15)                                        # 15+5 hits AC 19 with no damage
    b.make_attack(l, l.attack("intoxicating-touch"), f)
    assert f.hp == f.max_hp and f.conditions["intoxicated"]["until_round"] == b.round + 600
    script(b, 18, 2)                                     # a Wis save: the lower die counts
    assert b.saving_throw(f, "wis", 10) is False
    script(b, 12, 1)
    assert b.saving_throw(f, "con", 10) is True          # other saves as usual: one die, the 12
    f.conditions["grappled"] = {"by": "l", "dc": 10}
    turn(b, "f")
    script(b, 18, 1)                                     # the escape check: disadvantage too
    pick(b, "escape")
    assert "grappled" in f.conditions


def test_stone_giant_catches_a_hurled_rock_on_a_dex_save_with_its_reaction():
    s = mon("stone-giant", (2, 2), "s")
    g = mon("hill-giant", (8, 2), "g")
    g.side = "party"
    b = arena(g, s, layout=WIDE, first="g")
    script(b, 18, 8)                                     # the rock hits (18+8); Dex 8+5 >= 10: caught
    assert b.make_attack(g, g.attack("rock"), s, melee=False) is False
    assert s.hp == s.max_hp and not s.economy.reaction
    script(b, 18, 6, 6, 6)                               # no reaction left: 3d10+5 = 23
    assert b.make_attack(g, g.attack("rock"), s, melee=False) is True
    assert s.hp == s.max_hp - 23
    s.economy.reaction = True
    script(b, 18, 1, 6, 6, 6)                            # Dex 1+5 < 10: the rock lands
    b.make_attack(g, g.attack("rock"), s, melee=False)
    assert s.hp == s.max_hp - 46 and events(b, "rock_catching")[-1]["success"] is False


# ----------------------------------------------------------------- Divine Eminence, Leadership
def test_priest_divine_eminence_spends_a_slot_for_radiant_dice_on_melee_hits_this_turn():
    p, w = mon("priest", (3, 2), "p"), pc("wizard", 5, (2, 2), "w")
    b = arena(w, p, first="p")
    pick(b, "divine_eminence", "level 2")
    assert p.resources["slots"][1] == 2 and not p.economy.bonus
    hp = w.hp
    script(b, 18, 4, 1, 2, 3, 4)                         # mace hits; 1d6 = 4 bludgeoning, 4d6 = 10 radiant
    b.make_attack(p, p.attack("mace"), w)
    assert w.hp == hp - 14 and events(b, "damage")[-1]["type"] == "radiant"
    pick(b, "end_turn")
    assert "eminence" not in p.conditions                # only until the end of its turn


def test_knight_leadership_adds_a_d4_to_allies_attacks_and_saves_within_30_ft():
    k, a, far = mon("knight", (3, 2), "k"), mon("bandit", (3, 3), "a"), mon("bandit", (12, 9), "far")
    f = pc("fighter", 5, (2, 2), "f")
    b = arena(f, k, a, far, layout=WIDE, first="k")
    pick(b, "leadership")
    assert k.resources["uses:leadership"] == 0 and not any(o.kind == "leadership" for o in b.decision.options)
    script(b, 3, 10)                                     # the d4 (3) comes before the d20 (10)
    b.make_attack(a, a.attack("scimitar"), f)
    assert events(b, "attack")[-1]["total"] == 10 + 3 + 3
    script(b, 2, 10)                                     # a save: 10 + Dex +1 + 2
    assert b.saving_throw(a, "dex", 13) is True
    script(b, 10)                                        # more than 30 ft away: no die
    b.make_attack(far, far.attack("scimitar"), f)
    assert events(b, "attack")[-1]["total"] == 13
    k.conditions["stunned"] = {}                         # an incapacitated knight: it ends
    script(b, 10)
    b.make_attack(a, a.attack("scimitar"), f)
    assert events(b, "attack")[-1]["total"] == 13 and "leading" not in k.conditions


def test_chain_devil_unnerving_mask_frightens_a_creature_starting_its_turn_within_30_ft():
    d, f = mon("chain-devil", (2, 2), "d"), pc("fighter", 5, (6, 2), "f")
    b = arena(f, d, layout=WIDE, first="d")
    script(b, 3)                                         # Wis 3+1 < 14
    turn(b, "f")
    assert f.conditions["frightened"]["by"] == "d" and not d.economy.reaction
    pick(b, "end_turn")
    assert "frightened" not in f.conditions              # only until the end of its turn
    d.economy.reaction = True
    f.pos = (9, 2, 0)                                    # 35 ft away next time: nothing
    turn(b, "f")
    assert len(events(b, "unnerving_mask")) == 1


# ----------------------------------------------------------------- Create Specter
def test_wraith_raises_a_humanoid_dead_within_a_minute_and_10_ft_as_its_specter():
    w = mon("wraith", (2, 2), "w")
    f, g, far = pc("fighter", 5, (3, 2), "f"), pc("fighter", 5, (3, 3), "g"), pc("fighter", 5, (9, 8), "far")
    b = arena(f, g, far, w, layout=WIDE, first="w")
    assert not any(o.kind == "create_specter" for o in b.decision.options)   # nobody dead yet
    b.die(f, "test")
    b.die(far, "test")                                  # too far away
    b.round = 5
    b.open_menu(w)
    assert [o.data for o in b.decision.options if o.kind == "create_specter"] == [("f",)]
    pick(b, "create_specter")
    s = b.creatures["w_specter_1"]
    assert s.side == w.side and s.monster == "specter" and s.pos == f.pos and w.economy.actions == 0
    assert b.order.index("w_specter_1") == b.order.index("w") + 1
    b.die(g, "test")
    b.round = 16                                         # more than 1 minute (10 rounds) after it died
    w.economy.actions = 1
    b.open_menu(w)
    assert not any(o.kind == "create_specter" for o in b.decision.options)


# ----------------------------------------------------------------- Children of the Night
def test_vampire_children_of_the_night_arrive_after_the_rolled_rounds_once_a_day():
    v, f = mon("vampire-vampire", (5, 5), "v"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, v, layout=WIDE, first="v")
    script(b, 2, 2, 1)                                   # arrive in 1d4 = 2 rounds; 2d4 = 3 swarms
    pick(b, "children_of_the_night")
    assert v.resources["children_due"] == (b.round + 2, 3) and v.economy.actions == 0
    assert not any(o.kind == "children_of_the_night" for o in b.decision.options)
    start = b.round
    b.round = start + 1
    b.start_turn(v)
    assert not events(b, "summon")                       # not yet
    b.round = start + 2
    b.start_turn(v)
    kids = [b.creatures[e["creature"]] for e in events(b, "summon")]
    assert len(kids) == 3 and all(k.monster == "swarm-of-bats" and k.side == v.side for k in kids)
    assert all(b.distance(k, v) <= 5 for k in kids)
    assert b.order[b.order.index("v") + 1:b.order.index("v") + 4] == [k.cid for k in kids]


def test_will_o_wisp_consume_life_kills_a_dying_creature_on_a_failed_save_and_heals():
    w, f = mon("will-o-wisp", (3, 2), "w"), pc("fighter", 5, (2, 2), "f")
    b = arena(f, w, first="w")
    assert not any(o.kind == "consume_life" for o in b.decision.options)   # nobody dying
    b.damage(f, f.hp, "lightning")                       # down to 0, dying
    w.hp = 10
    b.open_menu(w)
    script(b, 2, 3, 3, 3)                                # Con 2 + save < 10: dies; 3d6 = 9 back
    pick(b, "consume_life")
    assert f.dead and w.hp == 19 and not w.economy.bonus


# ----------------------------------------------------------------- Smother, Damage Transfer
def test_rug_smothers_one_medium_target_which_takes_damage_each_turn_and_shares_the_rugs_hurts():
    r, f, g = mon("rug-of-smothering", (2, 2), "r"), pc("fighter", 5, (4, 2), "f"), pc("fighter", 5, (4, 3), "g")
    b = arena(f, g, r, layout=WIDE, first="r")
    script(b, 18)                                        # 18+5 hits AC 19
    b.make_attack(r, r.attack("smother"), f)
    assert f.conditions["grappled"]["dc"] == 13 and {"restrained", "blinded", "smothered"} <= set(f.conditions)
    assert b.targets_for_attack(r, r.attack("smother")) == []   # it can't smother another
    hp_r, hp_f = r.hp, f.hp
    b.damage(r, 11, "slashing", source="g")              # Damage Transfer: 5 to the rug, 6 to the fighter
    assert r.hp == hp_r - 5 and f.hp == hp_f - 6
    script(b, 2, 3, 15)                                  # the fighter's turn: 2d6+3 = 8 first
    turn(b, "f")
    assert f.hp == hp_f - 14
    pick(b, "escape")                                    # 15 + Athletics >= 13: free, sees again
    assert not {"grappled", "restrained", "blinded", "smothered"} & set(f.conditions)
    b.damage(r, 10, "slashing", source="g")              # nobody held: all of it
    assert r.hp == hp_r - 15


# ----------------------------------------------------------------- Air / Water Form, Freeze
def test_air_elemental_moves_through_a_foe_and_a_water_elemental_freezes_in_the_cold():
    hall = ["##########", "#........#", "#........#", "##########"]   # two squares wide, a low ceiling
    a, f, f2 = mon("air-elemental", (1, 1), "a"), pc("fighter", 5, (3, 1), "f"), pc("fighter", 5, (3, 2), "f2")
    b = arena(f, f2, a, layout=hall, first="a", max_altitude_ft=0)
    assert (5, 1, 0) in b.reach(a).costs               # through the fighters' squares
    o, h, h2 = mon("ogre", (1, 1), "o"), pc("fighter", 5, (3, 1), "h"), pc("fighter", 5, (3, 2), "h2")
    assert (5, 1, 0) not in arena(h, h2, o, layout=hall, first="o").reach(o).costs   # an ogre is stopped
    w, g, g2 = mon("water-elemental", (1, 1), "w"), pc("fighter", 5, (3, 1), "g"), pc("fighter", 5, (3, 2), "g2")
    b2 = arena(g, g2, w, layout=hall, first="w", max_altitude_ft=0)
    assert (5, 1, 0) in b2.reach(w).costs
    left = w.economy.movement
    b2.damage(w, 4, "cold")                              # on its own turn: 20 ft less now and next turn
    assert w.economy.movement == left - 20 and b2.speed(w) == w.speed - 20
    pick(b2, "end_turn")
    assert "frozen" in w.conditions                      # lasts until the end of its next turn
    turn(b2, "w")
    b2.round = 2                                         # (turn() restarts the round count)
    assert w.economy.movement == w.speed - 20
    pick(b2, "end_turn")
    assert "frozen" not in w.conditions
