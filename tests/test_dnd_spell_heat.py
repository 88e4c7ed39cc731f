"""Heat Metal (dnd/spell_heat.py), from the SRD text: the creature touching the glowing metal
object takes 2d8 fire damage (1d8 more per slot level above 2nd) and has disadvantage on attack
rolls and ability checks until the start of the caster's next turn; until the spell ends the
caster can use a bonus action on each later turn to cause the damage again."""

from dnd_helpers import pick

from dungeonbench_gym.dnd import spell_heat
from dungeonbench_gym.dnd.verification.arena import battle


def test_heat_metal_burns_hinders_and_is_heated_again_with_a_bonus_action():
    b = battle("heat-metal", foes=("orc", "ogre", "wolf"))
    c, orc = b.creatures["caster"], b.creatures["orc_0"]
    pick(b, "spell", "Heat Metal")
    targets = [o.data[0] for o in b.decision.options if o.kind == "target"]
    assert "orc_0" in targets and "wolf_2" not in targets   # a wolf wears and holds no metal
    hp = orc.hp
    b.choose(next(i for i, o in enumerate(b.decision.options) if o.data == ("orc_0",)))
    assert orc.hp < hp and orc.conditions["heated"]["attack_dis"] and c.concentration == "heat-metal"
    assert not any(o.kind == "reheat" for o in b.decision.options)   # not on the casting turn
    _adv, dis, why = b.attack_modifiers(orc, c, True, orc.attacks[0])
    assert dis and "attacker heated" in why
    b.round += 1   # the caster's next turn
    c.economy.bonus = True
    b.forget_options()
    hp = orc.hp
    pick(b, "reheat")
    assert orc.hp < hp and not c.economy.bonus
    b.end_concentration(c)
    assert "heated" not in orc.conditions and spell_heat.reheat_options(b, c) == []
