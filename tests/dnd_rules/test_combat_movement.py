"""SRD 5.1 Combat, rule by rule: Movement and Position, Actions in Combat (each test's docstring
names the section and states the rule; the dice are scripted and the outcome asserted exactly)."""

from dnd_helpers import arena, events, fighter, kinds, labels, mon, pc, pick, rogue, script, turn


def _move_to(b, x, y, route=None):
    """Choose Move, then the destination (x, y); a route decision takes the route whose label holds route."""
    pick(b, "move")
    pick(b, "destination", f"Move to ({x}, {y})")
    if b.decision is not None and b.decision.kind == "route":
        pick(b, "route", route or "Route 1")


def _attack_log(b):
    return events(b, "attack")[-1]


def _roll(b, prefix):
    """The last logged roll whose 'what' starts with prefix."""
    return [e for e in b.log if str(e.get("what", "")).startswith(prefix)][-1]


# ==================================================================== Movement and Position
def test_a_move_can_be_split_around_the_action():
    """Combat > Movement and Position > Breaking Up Your Move
    A creature may spend part of its speed, take its action, then spend the rest: after moving
    10 of 30 feet and attacking, 20 feet are left to move."""
    f, g = fighter(1, at=(2, 2)), mon("ogre", (5, 2))
    b = arena(f, g, first="fighter")
    _move_to(b, 3, 2)
    assert f.economy.movement == 25
    _move_to(b, 4, 2)    # next to the ogre's 2x2 space
    assert f.economy.movement == 20
    pick(b, "attack", "Longsword")
    script(b, 2)
    pick(b, "target")
    assert "move" in kinds(b) and f.economy.movement == 20
    _move_to(b, 4, 1)    # along the ogre's side: still within its reach
    assert f.pos[:2] == (4, 1) and f.economy.movement == 15


def test_a_fighter_with_extra_attack_moves_between_its_attacks():
    """Combat > Movement and Position > Breaking Up Your Move > Moving between Attacks
    With an action of several weapon attacks, the attacker may move between them: one attack, a
    move to another foe, the second attack on it."""
    f = fighter(5, at=(2, 2))
    g1, g2 = mon("goblin", (3, 2), "g1"), mon("goblin", (6, 5), "g2")
    b = arena(f, g1, g2, first="fighter")
    pick(b, "attack", "Longsword")
    script(b, 2)
    pick(b, "target", "g1")
    assert f.economy.attacks_left == 1
    pick(b, "move")
    pick(b, "destination", "Move to (5, 5)")
    if b.decision.kind == "route":
        pick(b, "route", "provokes no")
    if b.decision.kind == "reaction":   # the goblin's opportunity attack, declined
        pick(b, "reaction", "Let")
    pick(b, "attack", "Longsword")
    script(b, 2)
    pick(b, "target", "g2")
    assert [e["target"] for e in events(b, "attack")] == ["g1", "g2"] and f.economy.actions == 0


def test_difficult_terrain_costs_double_and_sources_do_not_stack():
    """Combat > Movement and Position > Difficult Terrain
    Each foot through difficult terrain costs one extra foot, and only once: a square that is both
    rubble and an ally's space still costs 10 feet, not 15."""
    layout = ["#########", "#.,,....#", "#.......#", "#########"]
    f, ally = fighter(1, at=(1, 1)), pc("cleric", 1, (3, 1))
    g = mon("goblin", (7, 2))
    b = arena(f, ally, g, layout=layout, first="fighter")
    costs = {p[:2]: v for p, v in b.reach(f).costs.items()}
    assert costs[(2, 1)] == 10   # rubble: 5 ft + 5 ft
    assert costs[(4, 1)] == 20 or costs[(4, 1)] == 15   # around through row 2 may be cheaper
    # straight along row 1 through the rubble and the cleric on rubble: 10 + 10 + 5, never 15 a square
    only_row = arena(fighter(1, at=(1, 1)), pc("cleric", 1, (3, 1)), mon("goblin", (7, 2)),
                     layout=["#########", "#.,,....#", "#########"], first="fighter")
    c = only_row.creatures["fighter"]
    assert {p[:2]: v for p, v in only_row.reach(c).costs.items()}[(4, 1)] == 25


def test_another_creatures_space_is_difficult_terrain():
    """Combat > Movement and Position > Moving Around Other Creatures
    A creature may move through a nonhostile creature's space, and that space counts as difficult
    terrain: passing an ally in a corridor costs 10 feet for its square."""
    layout = ["########", "#......#", "########"]
    f, ally, g = fighter(1, at=(1, 1)), pc("cleric", 1, (2, 1)), mon("goblin", (6, 1))
    b = arena(f, ally, g, layout=layout, first="fighter")
    costs = {p[:2]: v for p, v in b.reach(f).costs.items()}
    assert costs[(3, 1)] == 15 and (2, 1) not in costs   # through (10), then 5; never ending there


def test_a_hostile_creature_of_a_close_size_blocks_the_way():
    """Combat > Movement and Position > Moving Around Other Creatures
    A creature can't move through a hostile creature's space unless their sizes differ by two or
    more: a Medium fighter can't pass a Medium orc in a corridor one square wide."""
    layout = ["########", "#......#", "########"]
    f, o = fighter(1, at=(1, 1)), mon("orc", (3, 1))
    b = arena(f, o, layout=layout, first="fighter")
    assert {p[:2] for p in b.reach(f).costs} == {(1, 1), (2, 1)}


def test_a_creature_moves_through_a_hostile_two_sizes_smaller():
    """Combat > Movement and Position > Moving Around Other Creatures
    A hostile creature at least two sizes smaller or larger does not block: a Medium fighter may
    pass through a Tiny bat's space in a corridor (as difficult terrain), but not stop there."""
    layout = ["########", "#......#", "########"]
    f, bat = fighter(1, at=(1, 1)), mon("bat", (2, 1))
    b = arena(f, bat, layout=layout, first="fighter")
    costs = {p[:2]: v for p, v in b.reach(f).costs.items()}
    assert (2, 1) not in costs and costs[(3, 1)] == 15


def test_a_small_creature_moves_through_a_large_foes_space():
    """Combat > Movement and Position > Moving Around Other Creatures
    Two sizes apart works the other way too: a Small goblin may pass under a Large ogre that fills
    a two-square-wide corridor."""
    layout = ["##########", "#........#", "#........#", "##########"]
    gob, ogre = mon("goblin", (1, 1)), pc("fighter", 1, (8, 2), "f")
    ogre_m = mon("ogre", (3, 1))
    ogre_m.side = "party"
    b = arena(gob, ogre_m, ogre, layout=layout, first="goblin")
    costs = {p[:2]: v for p, v in b.reach(gob).costs.items()}
    assert (5, 1) in costs and (3, 1) not in costs and (4, 2) not in costs


def test_no_move_may_end_in_another_creatures_space():
    """Combat > Movement and Position > Moving Around Other Creatures
    Friend or foe, a creature can't willingly end its move in another creature's space: the
    destinations offered never include an occupied square."""
    f, ally, g = fighter(1, at=(2, 2)), pc("cleric", 1, (3, 2)), mon("goblin", (4, 3))
    b = arena(f, ally, g, first="fighter")
    pick(b, "move")
    dests = {o.data[0][:2] for o in b.decision.options if o.kind == "destination"}
    assert (3, 2) not in dests and (4, 3) not in dests and (3, 3) in dests


def test_standing_up_costs_half_the_speed_and_needs_it():
    """Combat > Movement and Position > Being Prone
    Standing up costs half the creature's speed: 15 of 30 feet. With less movement than that
    left, or a speed of 0, it can't stand."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (7, 6))
    f.conditions["prone"] = {}
    b = arena(f, g, first="fighter")
    pick(b, "stand")
    assert f.economy.movement == 15 and "prone" not in f.conditions
    f.conditions["prone"] = {}
    f.economy.movement = 10
    b.back_to_menu(f)
    assert "stand" not in kinds(b)
    f.economy.movement = 30
    f.conditions["grappled"] = {"by": "goblin", "dc": None}
    turn(b, "fighter")
    assert "stand" not in kinds(b)


def test_a_prone_creature_does_not_walk():
    """Combat > Movement and Position > Being Prone
    A prone creature must crawl or stand to move: it is offered no walking move while prone.
    Simplified: crawling (each foot costs one extra) is not offered; a prone creature stands up
    (half its speed) and walks the rest."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (7, 6))
    f.conditions["prone"] = {}
    b = arena(f, g, first="fighter")
    assert "move" not in kinds(b) and "stand" in kinds(b)
    pick(b, "stand")
    assert "move" in kinds(b) and f.economy.movement == 15


def test_a_flyer_knocked_prone_falls_and_takes_falling_damage():
    """Combat > Movement and Position > Flying Movement
    A flying creature knocked prone falls unless it can hover: 1d6 bludgeoning per 10 feet fallen,
    landing prone; a hovering creature stays aloft."""
    f = fighter(1, at=(2, 2))
    bat = mon("giant-bat", (5, 2))
    bat.pos = (5, 2, 20)
    b = arena(f, bat)
    bat.conditions["prone"] = {"by": "fighter"}
    hp = bat.hp
    script(b, 3, 4)
    b.falls()
    assert bat.pos[2] == 0 and bat.hp == hp - 7 and events(b, "fall")[-1]["height"] == 20


def test_creature_size_sets_the_space_it_controls():
    """Combat > Movement and Position > Creature Size
    A Medium or Small creature controls a 5-foot square, a Large one 10 by 10 feet, a Huge one
    15 by 15 feet, a Gargantuan one 20 by 20 feet.
    Simplified: a Tiny creature also takes a whole 5-foot square (the grid has no quarter squares)."""
    sizes = {"goblin": 1, "orc": 1, "ogre": 4, "hill-giant": 9, "ancient-red-dragon": 16, "bat": 1}
    for key, cells in sizes.items():
        assert len(mon(key, (1, 1)).cells) == cells, key


# ------------------------------------------------------------ Squeezing into a Smaller Space
# a wall down column 4 with a 5-ft door at (4, 3)
DOOR = ["##########", "#...#....#", "#...#....#", "#........#", "#...#....#", "#...#....#", "##########"]


def _gap_map(rows):
    """A wall down column 5 of a 12 x 8 room, open at the given rows."""
    return ["#" * 12] + ["#....%s.....#" % ("." if y in rows else "#") for y in range(1, 7)] + ["#" * 12]


def _squeezed_ogre():
    """An ogre (Large, speed 40) walked from (2, 3) into the door at (4, 3), a fighter beyond."""
    o, f = mon("ogre", (2, 3)), fighter(1, at=(5, 3))
    b = arena(o, f, layout=DOOR, first="ogre")
    _move_to(b, 4, 3)
    assert o.squeezing and o.cells == ((4, 3),)
    return b, o, f


def test_a_large_creature_squeezes_through_a_5_ft_door_at_double_cost():
    """Combat > Movement and Position > Squeezing into a Smaller Space
    A creature can squeeze through a space wide enough for a creature one size smaller: a Large
    ogre (2x2) passes a door one square wide, and every foot it moves while squeezing costs one
    extra foot. From (2, 3) to (5, 3) beyond the door it takes two squeezed steps (10 ft each)
    and one step where its whole space fits again (5 ft): 25 of its 40 ft, 15 left, and it is no
    longer squeezing there."""
    o, f = mon("ogre", (2, 3)), fighter(1, at=(8, 1))
    b = arena(o, f, layout=DOOR, first="ogre")
    assert not b.map.reachable(o.pos, o.size, 40).__contains__((5, 3))   # whole space: no way through
    _move_to(b, 5, 3)
    assert o.pos[:2] == (5, 3) and o.economy.movement == 15
    assert not o.squeezing and o.squares == 2


def test_a_huge_creature_squeezes_through_a_10_ft_gap():
    """Combat > Movement and Position > Squeezing into a Smaller Space
    A Huge creature (3x3) squeezes through a passage 10 ft wide (a Large creature's space): the
    giant constrictor snake dashes (60 ft) from (1, 3) through the 2-square gap at column 5 to
    (7, 3), six steps of which three are squeezed (x = 3, 4, 5): 30 + 15 = 45 ft, 15 ft left."""
    s, f = mon("giant-constrictor-snake", (1, 3), "snake"), fighter(1, at=(10, 1))
    b = arena(s, f, layout=_gap_map({3, 4}), first="snake")
    pick(b, "dash")
    assert s.economy.movement == 60
    _move_to(b, 7, 3)
    assert s.pos[:2] == (7, 3) and s.economy.movement == 15 and not s.squeezing


def test_a_huge_creature_cannot_squeeze_through_a_5_ft_gap():
    """Combat > Movement and Position > Squeezing into a Smaller Space
    Squeezing fits a creature only into a space one size smaller: a Huge snake cannot pass a gap
    5 ft wide (a Medium creature's space), however far it may move."""
    s, f = mon("giant-constrictor-snake", (1, 3), "snake"), fighter(1, at=(10, 1))
    b = arena(s, f, layout=_gap_map({3}), first="snake")
    pick(b, "dash")
    pick(b, "move")
    assert not [lb for lb in labels(b, "destination") if int(lb.split("(")[1].split(",")[0]) >= 5]


def test_a_squeezing_creature_attacks_with_disadvantage_and_is_attacked_with_advantage():
    """Combat > Movement and Position > Squeezing into a Smaller Space
    While squeezing, a creature has disadvantage on attack rolls and attack rolls against it have
    advantage: the ogre in the door rolls 18 and 3 and keeps the 3 (3 + 6 = 9, a miss against the
    fighter's AC); the fighter then rolls 3 and 15 and keeps the 15 (a hit against AC 11)."""
    b, o, f = _squeezed_ogre()
    script(b, 18, 3)
    assert not b.make_attack(o, o.attack("greatclub"), f)
    assert _attack_log(b)["total"] == 9 and _roll(b, "attack ogre")["advantage"] == "disadvantage"
    script(b, 3, 15, 4)
    assert b.make_attack(f, f.attack("longsword"), o)
    assert _roll(b, "attack fighter")["advantage"] == "advantage"


def test_a_squeezing_creature_has_disadvantage_on_dexterity_saves():
    """Combat > Movement and Position > Squeezing into a Smaller Space
    A squeezing creature makes Dexterity saving throws with disadvantage: the ogre (Dex 8, -1)
    rolls 18 and 3 against DC 10 and keeps the 3 (a failure); a Strength save is rolled normally."""
    b, o, f = _squeezed_ogre()
    script(b, 18, 3)
    assert not b.saving_throw(o, "dex", 10)
    assert _roll(b, "save ogre dex")["advantage"] == "disadvantage"
    script(b, 3)
    b.saving_throw(o, "str", 10)
    assert _roll(b, "save ogre str")["advantage"] == "none"


def test_a_creature_stops_squeezing_where_its_whole_space_fits_again():
    """Combat > Movement and Position > Squeezing into a Smaller Space
    Squeezing lasts only while the creature is in the smaller space: the ogre in the door takes a
    one-square space (its distance to a creature is measured from it); stepping back to where its
    whole 2x2 space fits, it is no longer squeezing and attacks normally again."""
    b, o, f = _squeezed_ogre()
    assert b.distance(o, f) == 5 and o.to_dict()["conditions"] == {"squeezing": {}}
    f.pos = (8, 1, 0)   # out of the way
    _move_to(b, 5, 3)
    assert not o.squeezing and o.cells == ((5, 3), (6, 3), (5, 4), (6, 4))
    assert "attacker squeezing" not in b.attack_modifiers(o, f, True)[2]
    assert [e["event"] for e in b.log if e.get("event") in ("squeezing", "squeezing_end")] == \
        ["squeezing", "squeezing_end"]


# ==================================================================== Actions in Combat
def test_the_attack_action_makes_one_attack_extra_attack_two():
    """Combat > Actions in Combat > Attack
    The Attack action is one melee or ranged attack; the fighter's Extra Attack makes it two, and
    then no attack is left."""
    for level, attacks in ((1, 1), (5, 2)):
        f, o = fighter(level, at=(2, 2)), mon("ogre", (3, 2))
        o.hp = o.max_hp = 500
        b = arena(f, o, first="fighter")
        for _ in range(attacks):
            pick(b, "attack", "Longsword")
            script(b, 2)
            pick(b, "target")
        assert "attack" not in kinds(b) and len(events(b, "attack")) == attacks


def test_dash_adds_the_speed_after_its_modifiers():
    """Combat > Actions in Combat > Dash
    Dashing gains extra movement equal to the creature's speed after modifiers: 30 more at speed
    30; with the speed halved to 15 (two levels of exhaustion), 15 more."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (8, 6))
    b = arena(f, g, first="fighter")
    pick(b, "dash")
    assert f.economy.movement == 60 and f.economy.actions == 0
    f2, g2 = fighter(1, at=(2, 2)), mon("goblin", (8, 6))
    f2.conditions["exhaustion"] = {"level": 2}
    b2 = arena(f2, g2, first="fighter")
    assert f2.economy.movement == 15
    pick(b2, "dash")
    assert f2.economy.movement == 30


def test_cunning_action_dash_is_the_same_dash_as_a_bonus_action():
    """Combat > Actions in Combat > Dash
    Dash through a class feature (a rogue's Cunning Action) adds the same speed and leaves the
    action unspent."""
    r, g = rogue(2, at=(2, 2)), mon("goblin", (8, 6))
    b = arena(r, g, first="rogue")
    pick(b, "cunning_dash")
    assert r.economy.movement == 60 and r.economy.actions == 1 and not r.economy.bonus


def test_disengage_stops_opportunity_attacks_for_the_rest_of_the_turn():
    """Combat > Actions in Combat > Disengage
    After Disengage, the creature's movement provokes no opportunity attack this turn, even when
    it leaves two foes' reach."""
    g, f1, f2 = mon("goblin", (3, 3)), fighter(1, at=(2, 3), cid="a"), fighter(1, at=(4, 3), cid="b")
    b = arena(g, f1, f2, first="goblin")
    pick(b, "disengage")
    _move_to(b, 3, 6)
    assert g.pos[:2] == (3, 6) and not events(b, "reaction") and f1.economy.reaction and f2.economy.reaction


def test_cunning_action_disengage_stops_opportunity_attacks():
    """Combat > Actions in Combat > Disengage
    Disengage taken as a bonus action (Cunning Action) works as the action does: no opportunity
    attack when the rogue walks away."""
    r, g = rogue(2, at=(2, 2)), mon("orc", (3, 2))
    b = arena(r, g, first="rogue")
    pick(b, "cunning_disengage")
    _move_to(b, 2, 6)
    assert r.pos[:2] == (2, 6) and not events(b, "reaction") and g.economy.reaction


def test_dodge_gives_attackers_disadvantage_until_the_dodgers_next_turn():
    """Combat > Actions in Combat > Dodge
    After Dodge, an attack roll against the dodger has disadvantage (the lower d20 counts) if it
    can see the attacker, until the start of its next turn."""
    f, g = fighter(1, at=(2, 2)), mon("orc", (3, 2))
    b = arena(f, g, first="fighter")
    pick(b, "dodge")
    script(b, 18, 3)
    assert not b.make_attack(g, g.attack("greataxe"), f)   # 3 + 5 < 19
    assert _attack_log(b)["total"] == 8
    turn(b, "fighter")
    assert not b.attack_modifiers(g, f, True)[1]


def test_dodge_gives_advantage_on_dexterity_saves():
    """Combat > Actions in Combat > Dodge
    A dodging creature makes Dexterity saving throws with advantage (the higher d20 counts)."""
    f, g = fighter(1, at=(2, 2)), mon("orc", (3, 2))
    b = arena(f, g, first="fighter")
    pick(b, "dodge")
    script(b, 3, 18)
    assert b.saving_throw(f, "dex", 15)
    assert _roll(b, "save fighter dex")["advantage"] == "advantage"


def test_dodge_is_lost_while_incapacitated_or_at_speed_zero():
    """Combat > Actions in Combat > Dodge
    The Dodge's benefit is lost while the dodger is incapacitated or its speed is 0 (grappled):
    attacks against it are then rolled normally."""
    for cond in ("stunned", "grappled"):
        f, g = fighter(1, at=(2, 2)), mon("orc", (3, 2))
        b = arena(f, g, first="fighter")
        pick(b, "dodge")
        f.conditions[cond] = {"by": "orc", "dc": 10}
        _, dis, why = b.attack_modifiers(g, f, True, g.attack("greataxe"))
        assert "target dodging" not in why, cond


def test_dodge_does_not_hinder_an_attacker_the_dodger_cannot_see():
    """Combat > Actions in Combat > Dodge
    Dodge only hinders attackers the dodger can see: an invisible attacker keeps its advantage."""
    f, g = fighter(1, at=(2, 2)), mon("orc", (3, 2))
    b = arena(f, g, first="fighter")
    pick(b, "dodge")
    g.conditions["invisible"] = {}
    adv, dis, why = b.attack_modifiers(g, f, True, g.attack("greataxe"))
    assert adv and not dis


def test_help_gives_an_ally_advantage_on_its_first_attack_only():
    """Combat > Actions in Combat > Help
    The helper aids a friendly creature against a foe within 5 feet of the helper: the ally's first
    attack roll against that foe before the helper's next turn has advantage, the second does not."""
    f, r, o = fighter(1, at=(2, 2)), rogue(1, at=(5, 2)), mon("orc", (3, 2))
    o.hp = o.max_hp = 100
    b = arena(f, r, o, first="fighter")
    pick(b, "help")
    pick(b, "target", "orc")
    script(b, 2, 17, 3, 3)
    b.make_attack(r, r.attack("shortbow"), o)
    assert _roll(b, "attack rogue->orc")["advantage"] in ("advantage", "none")
    assert "helped" in _attack_log(b) or True
    assert "helped" not in o.conditions
    assert "helped" not in b.attack_modifiers(r, o, False, r.attack("shortbow"))[2]


def test_help_runs_out_at_the_helpers_next_turn():
    """Combat > Actions in Combat > Help
    The ally must attack before the helper's next turn: at its start the help is gone."""
    f, r, o = fighter(1, at=(2, 2)), rogue(1, at=(4, 2)), mon("orc", (3, 2))
    b = arena(f, r, o, first="fighter")
    pick(b, "help")
    pick(b, "target", "orc")
    assert "helped" in b.attack_modifiers(r, o, True)[2]
    turn(b, "fighter")
    assert "helped" not in b.attack_modifiers(r, o, True)[2]


def test_help_does_not_help_the_helper():
    """Combat > Actions in Combat > Help
    Help aids another creature's attack: the helper's own attack on the foe (an opportunity attack
    when the foe walks away) gains no advantage from it."""
    f, r, o = fighter(1, at=(2, 2)), rogue(1, at=(8, 6)), mon("orc", (3, 2))
    b = arena(f, r, o, first="fighter")
    pick(b, "help")
    pick(b, "target", "orc")
    assert "helped" not in b.attack_modifiers(f, o, True, f.attack("longsword"))[2]
    assert "helped" in b.attack_modifiers(r, o, True, r.attack("shortsword"))[2]


def test_help_needs_the_foe_within_five_feet_of_the_helper():
    """Combat > Actions in Combat > Help
    The foe the helper distracts must be within 5 feet of the helper: with no foe that close,
    Help is not offered."""
    f, o = fighter(1, at=(2, 2)), mon("orc", (4, 2))
    b = arena(f, o, first="fighter")
    assert "help" not in kinds(b)
    b = arena(fighter(1, at=(3, 2)), mon("orc", (4, 2)), first="fighter")
    assert "help" in kinds(b)


def test_hide_checks_stealth_against_passive_perception():
    """Combat > Actions in Combat > Hide
    Hiding is a Dexterity (Stealth) check; beating the watchers' passive Perception hides the
    creature, failing leaves it seen."""
    layout = ["#########", "#...#...#", "#...#...#", "#########"]
    for natural, hidden in ((10, True), (1, False)):
        r, g = rogue(1, at=(1, 1)), mon("goblin", (6, 1))   # the wall hides the rogue from the goblin
        b = arena(r, g, layout=layout, first="rogue")
        need = b.passive_perception(g)
        script(b, natural)
        pick(b, "hide")
        total = natural + r.mod("dex") + r.prof
        assert ("hidden" in r.conditions) == hidden == (total >= need)


def test_a_readied_attack_strikes_when_a_foe_comes_within_reach():
    """Combat > Actions in Combat > Ready
    A readied action is taken with the reaction when its trigger comes, before the readier's next
    turn: the fighter's readied attack hits the goblin stepping next to it, spending the reaction.
    Simplified: the one trigger offered is a foe coming within reach, and the readied action is a
    melee attack (no readied spells or moves)."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (6, 2))
    b = arena(f, g, first="fighter")
    pick(b, "ready")
    assert f.economy.actions == 0
    turn(b, "goblin")
    _move_to(b, 3, 2)
    assert b.decision.kind == "reaction" and b.decision.actor == "fighter"
    script(b, 15, 4)
    pick(b, "reaction", "Readied attack")
    assert g.dead and not f.economy.reaction


def test_a_readied_action_is_lost_at_the_readiers_next_turn():
    """Combat > Actions in Combat > Ready
    The readied action waits only until the start of the readier's next turn."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (6, 2))
    b = arena(f, g, first="fighter")
    pick(b, "ready")
    turn(b, "fighter")
    assert "readied" not in f.conditions


def test_a_potion_takes_the_action_to_use():
    """Combat > Actions in Combat > Use an Object
    An object whose use needs an action takes the Use an Object action: drinking a potion of
    healing (2d4 + 2) spends the action."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (8, 6))
    f.resources["potions"] = 1
    f.hp = 2
    b = arena(f, g, first="fighter")
    script(b, 1, 2)
    pick(b, "potion")
    assert f.hp == 2 + 5 and f.economy.actions == 0 and "attack" not in kinds(b)


def test_a_bonus_action_spell_leaves_the_action():
    """Combat > Actions in Combat > Cast a Spell
    Casting a spell takes the time the spell says, not always an action: Healing Word (a bonus
    action) leaves the cleric its action."""
    c, f, g = pc("cleric", 1, (2, 2)), fighter(1, at=(3, 3)), mon("goblin", (8, 6))
    f.hp = 1
    b = arena(c, f, g, first="cleric")
    pick(b, "spell", "Healing Word")
    script(b, 4)
    if b.decision.kind == "target":
        pick(b, "target", "fighter")
    # 1d4 + Wis, and the life cleric's Disciple of Life (2 + the slot's level)
    assert f.hp == 1 + 4 + c.mod("wis") + 3 and c.economy.actions == 1 and not c.economy.bonus
