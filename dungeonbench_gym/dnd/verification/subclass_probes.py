"""Probes of the subclass and later class features (:mod:`..classes`: Sculpt Spells to Foe Slayer,
Retaliation, Giant Killer, Stand Against the Tide, Hurl Through Hell, Land's Stride, Thief's
Reflexes, Pact of the Chain, Minions of Chaos): each makes one of its rules happen through the
engine's decision options in a small battle, and raises AssertionError when it cannot."""

from __future__ import annotations

from .. import heuristic
from ..builders.pcs import build_pc, long_rest, short_rest as pc_short_rest
from ..classes.warlock import placed_familiar
from ..day import DayRun, load_day
from ..engine import Battle
from ..grid import BattleMap
from ..spell_buffs import choose_day
from . import feature_harness as fp
from .spell_buffs_probes import day_probe_run


def _target(b, cid):
    """Choose creature ``cid`` in a target decision; AssertionError when it is not offered."""
    for i, o in enumerate(b.decision.options):
        if o.kind == "target" and o.data[:1] == (cid,):
            b.choose(i)
            return
    raise AssertionError(f"no target {cid}: {[o.label for o in b.decision.options]}")


def _battle(*cs, first=None, width=14):
    """A battle in an open room ``width`` squares wide (10 deep), ``first`` (if given) to act."""
    layout = ["#" * (width + 2)] + ["#" + "." * width + "#"] * 10 + ["#" * (width + 2)]
    b = Battle(BattleMap.from_dict({"layout": layout}), list(cs), seed=0, max_options=10 ** 6)
    if first is not None:
        fp.again(b, first)
    return b


def _finish(b, cid="p"):
    """Play the rest of a decision chain (targets, points) as the planner would."""
    for _ in range(40):
        if b.outcome is not None or b.decision is None or b.decision.actor != cid or b.decision.kind == "action":
            return
        b.choose(heuristic.choose(b))


def _casts(b, key, cid="p"):
    """Whether creature ``cid`` has cast spell ``key`` in this battle."""
    return any(e.get("event") == "cast" and e.get("spell") == key and e.get("creature") == cid for e in b.log)


def _lore_hunter_land_and_invocation_probes() -> dict:
    """Bard (Lore) Peerless Skill, ranger (Hunter) Volley, druid (Land) Nature's Sanctuary and the
    warlock invocations Chains of Carceri and Devil's Sight."""
    pc, mon, pick, has, dice, again = fp.pc, fp.mon, fp.pick, fp.has, fp.script_dice, fp.again

    def peerless_skill():
        """A bard's shove: d20 5 + Athletics (+1) against the orc's 10 + 3; the inspiration die (a 10)
        wins it at 14, not at 13."""
        for level, won in ((13, False), (14, True)):
            c, o = pc("bard", level), mon("orc", (3, 2))
            b = _battle(c, o, first="p")
            n = c.resources["bardic_inspiration"]
            dice(b, 5, 10, 10)
            pick(b, "shove", "Shove prone")
            pick(b, "target")
            assert ("prone" in o.conditions) == won, (level, o.conditions)
            assert c.resources["bardic_inspiration"] == n - (1 if won else 0)

    def carceri():
        c = build_pc("warlock", 15, "p", (2, 2, 0), choices=("chains_of_carceri",))
        i, orc = mon("imp", (4, 2), "i"), mon("orc", (5, 5), "o")
        b = _battle(c, i, orc, first="p")
        slots = c.resources["slots"]
        pick(b, "feature", "Chains of Carceri")
        assert [o.data[0] for o in b.decision.options if o.kind == "target"] == ["i"]
        dice(b, 2, rest=2)
        _target(b, "i")
        assert "paralyzed" in i.conditions and c.resources["slots"] == slots and c.economy.actions == 0
        assert c.concentration == "hold-monster"
        again(b, "p")
        assert not has(b, "feature", "Chains of Carceri")   # the imp is bound already

    def volley():
        c = build_pc("ranger", 11, "p", (1, 1, 0), choices=("volley",))
        o1, o2, o3 = mon("orc", (8, 4), "o1"), mon("orc", (9, 5), "o2"), mon("orc", (13, 9), "o3")
        b = _battle(c, o1, o2, o3, first="p")
        arrows = c.resources["ammo_longbow"]
        pick(b, "feature", "Volley")
        dice(b, 18, 4, 18, 4)
        _target(b, "o1")
        hit = {e.get("target") for e in b.log if e.get("event") == "attack" and e.get("attacker") == "p"}
        assert hit == {"o1", "o2"} and c.economy.actions == 0 and c.resources["ammo_longbow"] == arrows - 2, hit

    def natures_sanctuary():
        for level, safe in ((13, False), (14, True)):
            c, w = pc("druid", level), mon("wolf", (3, 2))
            b = _battle(c, w, first="m")
            dice(b, *((2,) if safe else (18, 4, 4)))   # a Wis save of 2; or an attack roll of 18 that hits
            pick(b, "attack", "Bite")
            _target(b, "p")
            turned = any("Nature's Sanctuary" in e.get("text", "") for e in b.log)
            assert turned == safe and (c.hp == c.max_hp) == safe, (level, c.hp)

    def devils_sight():
        for choices, dis in (((), True), (("devils_sight",), False)):
            c = build_pc("warlock", 3, "p", (2, 2, 0), choices=choices, spells=("darkness", "eldritch-blast"))
            o = mon("ogre", (8, 2))
            b = _battle(c, o, mon("ogre", (12, 8), "m2"), first="p")
            pick(b, "spell", "Cast Darkness")
            pick(b, "point_x", "x = 8")
            pick(b, "point_y", "(8, 2)")
            assert b.zones, "no darkness"
            assert b.attack_modifiers(c, o, False, None)[1] == dis, choices

    return {
        "peerless-skill": peerless_skill,
        "eldritch-invocation-chains-of-carceri": carceri,
        "multiattack-volley": volley, "natures-sanctuary": natures_sanctuary,
        "eldritch-invocation-devils-sight": devils_sight,
    }


def _wizard_probes() -> dict:
    """Wizard: the School of Evocation (Sculpt Spells to Overchannel), Spell Mastery, Signature Spell."""
    pc, mon, pick, has, dice, again = fp.pc, fp.mon, fp.pick, fp.has, fp.script_dice, fp.again

    def sculpt():
        w, f, o = pc("wizard", 5), pc("fighter", 5, "f", (9, 6)), mon("ogre", (10, 6))
        b = _battle(w, f, o, first="p")
        pick(b, "spell", "Cast Fireball at level 3")
        pick(b, "point_x", "x = 9")
        dice(b, 6, 6, 6, 6, 6, 6, 6, 6, 2)
        pick(b, "point_y", "(9, 6) (hits")
        assert f.hp == f.max_hp and o.hp == 59 - 48, (f.hp, o.hp)

    def potent():
        for level, hurt in ((5, 0), (6, 4)):
            w = build_pc("wizard", level, "p", (2, 2, 0), spells=("acid-splash",))
            o = mon("ogre", (4, 2))
            b = _battle(w, o, first="p")
            dice(b, 20, 4, 4)   # the ogre saves; 2d6 = 8
            pick(b, "spell", "Cast Acid Splash")
            pick(b, "target", "m")
            assert o.hp == 59 - hurt, (level, o.hp)

    def empowered_evocation():
        for level in (9, 10):
            w, o = pc("wizard", level), mon("ogre", (4, 2))
            b = _battle(w, o, first="p")
            dice(b, 15, 5, 5)
            pick(b, "spell", "Cast Fire Bolt")
            pick(b, "target", "m")
            bonus = fp.mod(w, "int") if level >= 10 else 0
            assert o.hp == 59 - 10 - bonus, (level, o.hp)

    def overchannel():
        w, o = pc("wizard", 14), mon("ogre", (10, 6))
        b = _battle(w, o, mon("ogre", (13, 9), "m2"), first="p")
        pick(b, "feature", "Overchannel: the next wizard damage spell")
        assert w.resources["overchannel"] == 1 and not has(b, "feature", "Overchannel")   # paid as it is cast
        pick(b, "spell", "Cast Magic Missile at level 5")
        dice(b, 1, rest=1)   # every die would show 1: each dart at its maximum, 5
        while b.decision.actor == "p" and b.decision.kind == "target":
            _target(b, "m")
        assert o.hp == 59 - 7 * 5 - fp.mod(w, "int"), o.hp   # (Empowered Evocation on one dart)
        assert w.resources["overchannel"] == 0
        again(b, "p")
        assert not has(b, "spell", "Overchannel")

    def mastery():
        w, o = pc("wizard", 18), mon("ogre", (6, 2))
        b = _battle(w, o, mon("ogre", (12, 8), "m2"), first="p")
        slots = w.resources["slots"]
        pick(b, "spell", "Cast Magic Missile at level 1")
        _finish(b)
        assert _casts(b, "magic-missile") and w.resources["slots"] == slots and o.hp < 59
        w.resources["slots"] = (0,) + slots[1:]
        again(b, "p")
        assert has(b, "spell", "Cast Magic Missile at level 1")

    def signature():
        w, o = pc("wizard", 20), mon("ogre", (10, 6))
        b = _battle(w, o, mon("ogre", (13, 9), "m2"), first="p")
        slots = w.resources["slots"]
        pick(b, "spell", "Cast Fireball at level 3")
        _finish(b)
        assert _casts(b, "fireball") and w.resources["slots"] == slots and w.resources["innate"]["fireball"] == 0
        again(b, "p")
        pick(b, "spell", "Cast Fireball at level 3")
        _finish(b)
        assert w.resources["slots"][2] == slots[2] - 1
        pc_short_rest(w)
        assert w.resources["innate"]["fireball"] == 1

    return {
        "sculpt-spells": sculpt, "potent-cantrip": potent, "empowered-evocation": empowered_evocation,
        "overchannel": overchannel, "spell-mastery": mastery, "signature-spell": signature,
    }


def _sorcerer_probes() -> dict:
    """Sorcerer: Flexible Casting, the Draconic Bloodline and four Metamagic options."""
    pc, mon, pick, has, dice = fp.pc, fp.mon, fp.pick, fp.has, fp.script_dice

    def create_slot():
        c = pc("sorcerer", 5)
        b = _battle(c, mon("ogre", (10, 2)), first="p")
        pts, slots = c.resources["sorcery_points"], c.resources["slots"]
        pick(b, "feature", "Flexible Casting: create a level-1 slot")
        assert c.resources["sorcery_points"] == pts - 2 and c.resources["slots"][0] == slots[0] + 1
        assert not c.economy.bonus

    def convert_slot():
        c = pc("sorcerer", 5)
        c.resources["sorcery_points"] = 0
        b = _battle(c, mon("ogre", (10, 2)), first="p")
        slots = c.resources["slots"]
        pick(b, "feature", "Flexible Casting: turn a level-2 slot into 2 sorcery points")
        assert c.resources["sorcery_points"] == 2 and c.resources["slots"][1] == slots[1] - 1

    def affinity():
        for spell, extra in (("Fire Bolt", True), ("Ray of Frost", False)):
            c, o = pc("sorcerer", 6), mon("ogre", (4, 2))
            assert c.resources["dragon_ancestor"] == "fire"
            b = _battle(c, o, first="p")
            dice(b, 15, 4, 4)
            pick(b, "spell", f"Cast {spell}")
            pick(b, "target", "m")
            assert o.hp == 59 - 8 - (fp.mod(c, "cha") if extra else 0), (spell, o.hp)

    def wings():
        c = pc("sorcerer", 14)
        b = _battle(c, mon("ogre", (10, 2)), first="p")
        assert not c.fly
        pick(b, "feature", "Dragon Wings")
        assert c.fly == c.speed and not c.economy.bonus

    def presence():
        c, o = pc("sorcerer", 18), mon("ogre", (6, 2))
        b = _battle(c, o, mon("ogre", (8, 5), "m2"), first="p")
        pts = c.resources["sorcery_points"]
        dice(b, 2, 2)
        pick(b, "feature", "Draconic Presence")
        assert "frightened" in o.conditions and c.resources["sorcery_points"] == pts - 5

    def subtle():
        for subtle_, countered in ((False, True), (True, False)):
            c = build_pc("sorcerer", 5, "p", (2, 2, 0), choices=("subtle_spell",))
            foe = build_pc("wizard", 5, "w", (9, 6, 0), side="enemies")
            b = _battle(c, foe, first="p")
            pts = c.resources["sorcery_points"]
            if subtle_:
                pick(b, "feature", "Subtle Spell")
            pick(b, "spell", "Cast Fireball at level 3")
            if b.decision.kind == "point_x":
                pick(b, "point_x", "x = 9")
                pick(b, "point_y", "(9, 6)")
            asked = any(o.kind == "reaction" for o in b.decision.options) and b.decision.actor == "w"
            assert asked == countered, (subtle_, b.decision.kind, b.decision.actor)
            assert c.resources["sorcery_points"] == pts - (1 if subtle_ else 0)

    def empowered_spell():
        c, o = build_pc("sorcerer", 3, "p", (2, 2, 0), choices=("empowered_spell",)), mon("ogre", (4, 2))
        b = _battle(c, o, first="p")
        pts = c.resources["sorcery_points"]
        pick(b, "feature", "Empowered Spell")
        dice(b, 15, 1, 9)   # the 1 is rerolled: a 9
        pick(b, "spell", "Cast Fire Bolt")
        pick(b, "target", "m")
        assert o.hp == 59 - 9 and c.resources["sorcery_points"] == pts - 1, o.hp

    def extended():
        c, o = build_pc("sorcerer", 3, "p", (2, 2, 0), choices=("extended_spell",)), mon("orc", (4, 2))
        b = _battle(c, o, first="p")
        pick(b, "feature", "Extended Spell")
        dice(b, 2)
        pick(b, "spell", "Cast Hold Person")
        _finish(b)
        assert c.concentration == "hold-person" and c.resources["concentration_until"] == b.round + 20

    def distant():
        c, o = build_pc("sorcerer", 3, "p", (1, 1, 0), choices=("distant_spell",)), mon("ogre", (14, 1))
        b = _battle(c, o, first="p")
        assert not has(b, "spell", "Cast Ray of Frost")   # 65 ft: beyond its 60
        pick(b, "feature", "Distant Spell")
        dice(b, 15, 4)
        pick(b, "spell", "Cast Ray of Frost")
        pick(b, "target", "m")
        assert o.hp == 59 - 4, o.hp

    return {
        "flexible-casting-creating-spell-slots": create_slot, "flexible-casting-converting-spell-slot": convert_slot,
        "elemental-affinity": affinity, "dragon-ancestor-red---fire-damage": affinity, "dragon-wings": wings,
        "draconic-presence": presence, "metamagic-subtle-spell": subtle, "metamagic-empowered-spell": empowered_spell,
        "metamagic-extended-spell": extended, "metamagic-distant-spell": distant,
    }


def _ranger_probes() -> dict:
    """Ranger: the Hunter's choices (Horde Breaker to Whirlwind Attack), Vanish, Feral Senses, Foe Slayer."""
    pc, mon, pick, has, dice, again = fp.pc, fp.mon, fp.pick, fp.has, fp.script_dice, fp.again

    def horde():
        c = build_pc("ranger", 3, "p", (2, 2, 0), choices=("horde_breaker",))
        o1, o2, o3 = mon("orc", (8, 2), "o1"), mon("orc", (9, 2), "o2"), mon("orc", (12, 8), "o3")
        b = _battle(c, o1, o2, o3, first="p")
        fp.attack(b, "Attack with Longbow", 2, rest=1)   # a miss still opens the second attack
        assert not has(b, "target") and c.economy.attacks_left == 0
        pick(b, "attack", "Horde Breaker")
        targets = [o.data[0] for o in b.decision.options if o.kind == "target"]
        assert targets == ["o2"], targets
        dice(b, 18, 5)
        pick(b, "target", "o2")
        assert o2.hp < o2.max_hp and not has(b, "attack", "Horde Breaker")

    def multiattack_defense():
        c, t = pc("ranger", 7), mon("thug", (3, 2))
        b = _battle(c, t, first="m")
        ac = b.armour_class(c)
        need = ac - t.attack("mace").to_hit   # the d20 that just hits
        pick(b, "multiattack")
        fp.attack(b, "Mace", 18, 2, rest=2)
        hp = c.hp
        fp.attack(b, "Mace", need + 2, 2, rest=2)   # would hit by 2; +4 AC: a miss
        assert c.hp == hp and hp < c.max_hp, (hp, c.hp)

    def escape_horde():
        for choices, mark in (((), False), (("escape_the_horde",), True)):
            c, o = build_pc("ranger", 7, "p", (2, 2, 0), choices=choices), mon("ogre", (3, 2))
            b = _battle(c, o, first="p")
            pick(b, "move")
            opts = [x for x in b.decision.options if x.kind == "destination" and x.data[0][:2] == (1, 2)]
            b.choose(b.decision.options.index(opts[0]))
            dice(b, 15, 15)
            while b.decision.kind == "reaction" and b.decision.actor == "m":
                b.choose(0)   # the ogre takes its opportunity attack
            found = [e for e in b.log if e.get("event") == "attack" and e.get("attacker") == "m"]
            assert found and ("disadvantage" in found[-1]["text"]) == mark, (choices, found)

    def whirlwind():
        c = pc("ranger", 11)
        c.attacks = tuple(a for a in c.attacks if a.melee) + tuple(a for a in c.attacks if not a.melee)
        o1, o2 = mon("orc", (3, 2), "o1"), mon("orc", (2, 3), "o2")
        b = _battle(c, o1, o2, mon("orc", (12, 8), "o3"), first="p")
        dice(b, 18, 4, 18, 4)
        pick(b, "feature", "Whirlwind Attack")
        hit = {e.get("target") for e in b.log if e.get("event") == "attack" and e.get("attacker") == "p"}
        assert hit == {"o1", "o2"} and c.economy.actions == 0, hit

    def vanish():
        layout = ["#" * 16] + ["#" + "." * 6 + "#" + "." * 7 + "#"] * 10 + ["#" * 16]
        c = pc("ranger", 14)
        b = Battle(BattleMap.from_dict({"layout": layout}), [c, mon("ogre", (11, 2))], seed=0, max_options=10 ** 6)
        again(b, "p")
        dice(b, 19)
        pick(b, "cunning_hide", "Vanish")
        assert "hidden" in c.conditions and not c.economy.bonus and c.economy.actions == 1

    def feral():
        for level, dis in ((17, True), (18, False)):
            c, o = pc("ranger", level), mon("ogre", (6, 2))
            o.conditions["invisible"] = {}
            b = _battle(c, o, first="p")
            bow = c.attack("longbow")
            assert b.attack_modifiers(c, o, False, bow)[1] == dis, level
            fp.attack(b, "Attack with Longbow", 15, 4, rest=1)
            ev = [e for e in b.log if e.get("event") == "attack" and e.get("attacker") == "p"][-1]
            assert ev["hit"]

    def foe_slayer():
        for level, bonus in ((19, 0), (20, None)):
            c, o = pc("ranger", level), mon("orc", (6, 2))
            b = _battle(c, o, mon("orc", (12, 8), "o2"), first="p")
            fp.attack(b, "Attack with Longbow", 15, 4)
            want = 4 + fp.mod(c, "dex") + (fp.mod(c, "wis") if bonus is None else 0)
            assert o.max_hp - o.hp == min(o.max_hp, want), (level, o.hp)

    return {
        "hunters-prey-horde-breaker": horde, "defensive-tactics-multiattack-defense": multiattack_defense,
        "defensive-tactics-escape-the-horde": escape_horde, "multiattack-whirlwind-attack": whirlwind,
        "vanish": vanish, "feral-senses": feral, "foe-slayer": foe_slayer,
    }


def _protection_style_probes() -> dict:
    """The Protection fighting style, taken by a paladin, a fighter and a fighter's second style."""
    pc, mon = fp.pc, fp.mon

    def protection(arch, level, **kw):
        def run():
            p = build_pc(arch, level, "p", (2, 2, 0), **kw)
            f, o = pc("wizard", 1, "f", (3, 3)), mon("ogre", (4, 3))
            b = _battle(p, f, o, first="m")
            assert "protection" in p.features
            fp.attack(b, "Greatclub", 19, 1, 1, 1)   # disadvantage: the 1 stands
            assert f.hp == f.max_hp and not p.economy.reaction
        return run

    return {
        "fighting-style-protection": protection("paladin", 2, style="protection"),
        "fighter-fighting-style-protection": protection("fighter", 1, style="protection"),
        "additional-fighting-style": protection("fighter", 10),
    }


def _life_domain_probes() -> dict:
    """Cleric (Life Domain): the healing bonuses of Disciple of Life, Blessed Healer, Supreme Healing."""
    pc, mon, pick, dice = fp.pc, fp.mon, fp.pick, fp.script_dice

    def life_heal(level, extra, blessed):
        def run():
            c, f = pc("cleric", level), pc("fighter", 5, "f", (3, 2))
            b = _battle(c, f, mon("ogre", (12, 8)), first="p")
            f.hp, c.hp = 1, c.max_hp - 20
            b.forget_options()
            dice(b, 3)
            pick(b, "spell", "Cast Cure Wounds at level 1")
            _target(b, "f")
            roll = 8 if level >= 17 else 3
            assert f.hp == 1 + roll + fp.mod(c, "wis") + extra, (level, f.hp)
            assert c.hp == c.max_hp - 20 + (3 if blessed else 0), c.hp
        return run

    return {
        "disciple-of-life": life_heal(1, 3, False), "blessed-healer": life_heal(6, 3, True),
        "supreme-healing": life_heal(17, 3, True),
    }


def _always_prepared_spell_probes() -> dict:
    """The subclass spells always prepared (domain, oath and circle spells): each cast once."""
    pc, mon, pick, dice = fp.pc, fp.mon, fp.pick, fp.script_dice

    def always(arch, level, key, name, setup=None):
        def run():
            c = pc(arch, level)
            assert key in c.spells, (arch, level, key)
            f = pc("fighter", 5, "f", (3, 2))
            o = mon("orc", (6, 2))
            b = _battle(c, f, o, mon("orc", (12, 8), "o2"), first="p")
            if setup:
                setup(b, c, f, o)
            b.forget_options()
            dice(b, 3, rest=4)
            pick(b, "spell", f"Cast {name}")
            _finish(b)
            assert _casts(b, key), (key, [e for e in b.log[-5:]])
        return run

    def wounded(b, c, f, o):
        f.hp = 3

    def poisoned(b, c, f, o):
        f.conditions["poisoned"] = {}

    def dead(b, c, f, o):
        b.damage(f, 200, "slashing")
        assert f.dead

    return {
        "domain-spells-1": always("cleric", 1, "bless", "Bless"),
        "domain-spells-2": always("cleric", 3, "lesser-restoration", "Lesser Restoration", poisoned),
        "domain-spells-3": always("cleric", 5, "revivify", "Revivify", dead),
        "domain-spells-4": always("cleric", 7, "death-ward", "Death Ward"),
        "domain-spells-5": always("cleric", 9, "mass-cure-wounds", "Mass Cure Wounds", wounded),
        "oath-spells": always("paladin", 3, "sanctuary", "Sanctuary"),
        "circle-spells-1": always("druid", 3, "hold-person", "Hold Person"),
        "circle-spells-2": always("druid", 5, "slow", "Slow"),
        "circle-spells-3": always("druid", 7, "ice-storm", "Ice Storm"),
        "circle-spells-4": always("druid", 9, "cone-of-cold", "Cone of Cold"),
    }


def _paladin_and_bard_probes() -> dict:
    """Paladin: Turn the Unholy, Cleansing Touch; bard: Countercharm and Song of Rest at each die size."""
    pc, mon, pick, dice = fp.pc, fp.mon, fp.pick, fp.script_dice

    def unholy():
        c, z = pc("paladin", 3), mon("zombie", (4, 2))
        b = _battle(c, z, mon("imp", (5, 5), "i"), first="p")
        dice(b, 2, 2, rest=2)
        pick(b, "feature", "Turn the Unholy")
        assert "turned" in z.conditions and "turned" in b.creatures["i"].conditions
        assert c.resources["channel_divinity"] == 0

    def cleansing():
        c, f = pc("paladin", 14), pc("fighter", 5, "f", (3, 2))
        o = mon("ogre", (12, 8))
        f.conditions["paralyzed"] = {"by": "m", "spell": "hold-person", "dc": 15, "repeat": "wis"}
        b = _battle(c, f, o, first="p")
        n = c.resources["cleansing_touch"]
        pick(b, "feature", "Cleansing Touch")
        _target(b, "f")
        assert "paralyzed" not in f.conditions and c.resources["cleansing_touch"] == n - 1

    def countercharm():
        c, f = pc("bard", 6), pc("fighter", 5, "f", (4, 2))
        b = _battle(c, f, mon("ogre", (12, 8)), first="p")
        pick(b, "feature", "Countercharm")
        dice(b, 3, 18)
        assert b.saving_throw(f, "wis", 15, condition="frightened")
        dice(b, 3, 18)
        assert not b.saving_throw(f, "wis", 15)   # only against charm and fear

    def song(level, die):
        def run():
            run_ = DayRun(load_day("crypt_watch"), 0)
            bard = build_pc("bard", level, "bard", (1, 1, 0))
            run_.party["bard"] = bard
            f = next(p for p in run_.party.values() if p.cid != "bard")
            f.hp = 1
            f.resources.setdefault("hit_dice", f.level)
            f.resources.setdefault("hit_die", 8)
            run_.phase, run_._menu = "rest", None
            run_.roller._int = fp.FixedDice([2, 5], 5)
            for i, o in enumerate(run_.decision.options):
                if o.kind == "hit_die" and o.data == (f.cid,):
                    run_.choose(i)
                    break
            after_die = f.hp
            for i, o in enumerate(run_.decision.options):
                if o.kind == "finish_rest":
                    run_.choose(i)
                    break
            assert f.hp == after_die + 5, (f.hp, after_die)
            assert bard.resources["song_of_rest"] == die
        return run

    return {
        "channel-divinity-turn-the-unholy": unholy, "cleansing-touch": cleansing, "countercharm": countercharm,
        "song-of-rest-d6": song(2, "1d6"), "song-of-rest-d8": song(9, "1d8"), "song-of-rest-d10": song(13, "1d10"),
        "song-of-rest-d12": song(17, "1d12"),
    }


def _martial_probes() -> dict:
    """Monk Slow Fall, rogue Reliable Talent and Fast Hands, barbarian Indomitable Might."""
    pc, mon, pick, dice, again = fp.pc, fp.mon, fp.pick, fp.script_dice, fp.again

    def slow_fall():
        for level, cut in ((3, 0), (4, 20)):
            c = pc("monk", level)
            b = _battle(c, mon("ogre", (12, 8)), first="p")
            c.pos = (2, 2, 30)
            dice(b, 6, 6, 6, rest=6)
            b.falls()
            assert c.hp == max(0, c.max_hp - max(0, 18 - cut)), (level, c.hp)

    def reliable():
        for level, reliable in ((10, False), (11, True)):
            layout = ["#" * 16] + ["#" + "." * 6 + "#" + "." * 7 + "#"] * 10 + ["#" * 16]
            c = pc("rogue", level)
            b = Battle(BattleMap.from_dict({"layout": layout}), [c, mon("scout", (11, 2))], seed=0, max_options=10 ** 6)
            again(b, "p")
            need = b.passive_perception(b.creatures["m"])
            assert 1 + b.stealth(c) < need <= 10 + b.stealth(c), (need, b.stealth(c))
            dice(b, 1, 1)   # (Supreme Sneak's advantage: both d20s 1)
            pick(b, "cunning_hide")
            assert ("hidden" in c.conditions) == reliable, level

    def might():
        for level, won in ((17, False), (18, True)):
            c, o = pc("barbarian", level), mon("ogre", (3, 2))
            b = _battle(c, o, first="p")
            dice(b, 1, 10)   # the barbarian's d20 1; the ogre's 10 + 4 = 14 < Str 24
            pick(b, "shove", "Shove prone")
            pick(b, "target")
            assert ("prone" in o.conditions) == won, (level, o.conditions)

    def fast_hands():
        c = pc("rogue", 3)
        b = _battle(c, mon("ogre", (12, 8)), first="p")
        c.hp = 1
        b.forget_options()
        dice(b, 2, 2)
        pick(b, "feature", "Fast Hands")
        assert c.hp == 7 and not c.economy.bonus and c.economy.actions == 1

    return {
        "slow-fall": slow_fall, "reliable-talent": reliable, "indomitable-might": might, "fast-hands": fast_hands,
    }


def _warlock_probes() -> dict:
    """Warlock: the Pact of the Blade and of the Tome and the invocations built on them or on a spell."""
    pc, mon, pick, has, dice, again = fp.pc, fp.mon, fp.pick, fp.has, fp.script_dice, fp.again

    def blade(level, choices, check):
        def run():
            c, o = build_pc("warlock", level, "p", (2, 2, 0), choices=choices), mon("ogre", (3, 2))
            b = _battle(c, o, mon("ogre", (12, 8), "m2"), first="p")
            fp.attack(b, "Attack with Pact Blade", 15, 4)
            check(b, c, o)
        return run

    def pact_hit(b, c, o):
        assert o.hp == 59 - (4 + fp.mod(c, "dex")), o.hp

    def thirst(b, c, o):
        assert c.economy.attacks_left == 1

    def drink(b, c, o):
        assert o.hp == 59 - (4 + fp.mod(c, "dex") + fp.mod(c, "cha")), o.hp

    def spear():
        c = build_pc("warlock", 2, "p", (1, 1, 0), choices=("eldritch_spear",))
        o = mon("ogre", (30, 1))
        b = _battle(c, o, first="p", width=34)
        dice(b, 15, 5)
        pick(b, "spell", "Cast Eldritch Blast")
        pick(b, "target", "m")
        assert o.hp < 59

    def tome():
        c = build_pc("warlock", 3, "p", (2, 2, 0), choices=("pact_of_the_tome",))
        assert "sacred-flame" in c.spells and "sacred-flame" not in pc("warlock", 3).spells
        o = mon("ogre", (5, 2))
        b = _battle(c, o, first="p")
        dice(b, 2, 6)
        pick(b, "spell", "Cast Sacred Flame")
        pick(b, "target", "m")
        assert o.hp == 59 - 6

    def invocation(inv, level, name, key):
        def run():
            c = build_pc("warlock", level, "p", (2, 2, 0), choices=(inv,))
            o = mon("orc", (3, 2))   # (Bestow Curse: touch)
            b = _battle(c, o, mon("orc", (12, 8), "o2"), first="p")
            slots = c.resources["slots"]
            dice(b, 2, rest=2)
            pick(b, "spell", f"(once a long rest): Cast {name}")
            _finish(b)
            assert _casts(b, key) and sum(c.resources["slots"]) == sum(slots) - 1
            assert c.resources[f"invocation:{inv}"] == 0
            again(b, "p")
            assert not has(b, "spell", f"(once a long rest): Cast {name}")
        return run

    return {
        "pact-of-the-blade": blade(3, ("pact_of_the_blade",), pact_hit),
        "eldritch-invocation-thirsting-blade": blade(5, ("pact_of_the_blade", "thirsting_blade"), thirst),
        "eldritch-invocation-lifedrinker": blade(12, ("pact_of_the_blade", "lifedrinker"), drink),
        "eldritch-invocation-eldritch-spear": spear, "pact-of-the-tome": tome,
        "eldritch-invocation-thief-of-five-fates": invocation("thief_of_five_fates", 2, "Bane", "bane"),
        "eldritch-invocation-mire-the-mind": invocation("mire_the_mind", 5, "Slow", "slow"),
        "eldritch-invocation-sign-of-ill-omen": invocation("sign_of_ill_omen", 5, "Bestow Curse", "bestow-curse"),
        "eldritch-invocation-dreadful-word": invocation("dreadful_word", 7, "Confusion", "confusion"),
        "eldritch-invocation-bewitching-whispers": invocation("bewitching_whispers", 7, "Compulsion", "compulsion"),
    }


def _thief_probes() -> dict:
    """Rogue (Thief): Supreme Sneak (Fast Hands and Reliable Talent are with the martial probes)."""
    pc, mon, pick, dice, again = fp.pc, fp.mon, fp.pick, fp.script_dice, fp.again

    def supreme_sneak():
        for level, hidden in ((8, False), (9, True)):
            layout = ["#" * 16] + ["#" + "." * 6 + "#" + "." * 7 + "#"] * 10 + ["#" * 16]
            c = pc("rogue", level)
            b = Battle(BattleMap.from_dict({"layout": layout}), [c, mon("scout", (11, 2))], seed=0,
                       max_options=10 ** 6)
            again(b, "p")
            need = b.passive_perception(b.creatures["m"])
            assert 2 + b.stealth(c) < need <= 19 + b.stealth(c), need
            dice(b, 2, 19)   # with advantage the 19 counts
            pick(b, "cunning_hide")
            assert ("hidden" in c.conditions) == hidden, level

    return {"supreme-sneak": supreme_sneak}


def _foe_attacks(b, text, *values, rest=10):
    """A foe's attack with scripted dice, its target picked when it is asked for."""
    fp.script_dice(b, *values, rest=rest)
    fp.pick(b, "attack", text)
    if b.decision.kind == "target":
        fp.pick(b, "target")


def _day_with(level, choices):
    """A Day track run at its first intermission, its first member swapped for a warlock."""
    run = day_probe_run("eldritch-blast")
    cid = next(iter(run.party))
    w = build_pc("warlock", level, cid, (0, 0, 0), choices=choices)
    run.party[cid], run._menu = w, None
    return run, w


def _thiefs_reflexes_probes() -> dict:
    """Rogue (Thief): Thief's Reflexes, two turns in the first round."""
    pc, mon, pick = fp.pc, fp.mon, fp.pick

    def reflexes():
        for level, twice in ((16, False), (17, True)):
            c, o = pc("rogue", level), mon("ogre", (12, 9))
            b = fp.battle(c, o)
            c.initiative, o.initiative = 20, 5
            b.order, b.round, b.turn_index, b.outcome = ["p", "m"], 0, -1, None
            b.next_turn()
            assert b.decision.actor == "p" and b.round == 1
            pick(b, "end_turn")
            assert (b.decision.actor == "p" and b.round == 1) == twice, (level, b.decision.actor, b.round)
            if twice:
                assert b.decision.kind == "action" and c.economy.actions == 1   # a whole new turn
                pick(b, "end_turn")
            assert b.decision.actor == "m", b.decision.actor
            for _ in range(60):   # round 2: one turn each again
                if b.round == 2 or b.outcome is not None:
                    break
                b.choose(heuristic.choose(b))
            assert b.round == 2 and b.order == ["p", "m"], (b.round, b.order)

    return {"thiefs-reflexes": reflexes}


def _warlock_day_probes() -> dict:
    """Warlock choices made between a Day's fights: the Pact of the Chain's familiar (then its sting in
    a fight) and Minions of Chaos."""
    mon, pick, has, dice = fp.mon, fp.pick, fp.has, fp.script_dice

    def chain():
        run, w = _day_with(3, ("pact_of_the_chain",))
        slots = sum(w.resources["slots"])
        assert choose_day(run, lambda o: o.kind == "chain_familiar" and o.data == (w.cid, "imp")), "no ritual"
        assert sum(w.resources["slots"]) == slots, "a ritual spends no slot"
        assert choose_day(run, lambda o: o.kind == "continue")
        fam = [o for o in run.battle.creatures.values() if "chain_attacks" in o.resources]
        assert len(fam) == 1 and fam[0].side == w.side and fam[0].cid in run.battle.order and not fam[0].attacks
        # in a fight: the warlock forgoes its attack, the imp stings with its reaction
        for choices, offered in (((), False), (("pact_of_the_chain",), True)):
            w = build_pc("warlock", 3, "p", (2, 2, 0), choices=choices)
            imp = placed_familiar(w, "imp", (4, 2, 0))
            o = mon("ogre", (5, 2))
            b = fp.battle(w, imp, o, first="p")
            assert has(b, "feature", "Pact of the Chain") == offered, [x.label for x in b.decision.options]
            if offered:
                pick(b, "feature", "Pact of the Chain")
                dice(b, 18, 4, rest=1)
                pick(b, "target", "p_imp attacks m")
                assert o.hp < o.max_hp and not imp.economy.reaction and w.economy.actions == 0, (o.hp, w.economy)
                assert not has(b, "feature", "Pact of the Chain")   # its reaction is spent

    def minions():
        assert "conjure-elemental" not in build_pc("warlock", 9, "w", (0, 0, 0)).spells
        run, w = _day_with(9, ("minions_of_chaos",))
        slots = sum(w.resources["slots"])
        assert choose_day(run, lambda o: o.kind == "prepare_summon" and o.data[1] == "conjure-elemental"), "not offered"
        assert sum(w.resources["slots"]) == slots - 1 and w.resources["minions_of_chaos"] == 0
        run._menu = None
        assert sum(w.resources["slots"]) > 0 and not any(
            o.data[1] == "conjure-elemental" for o in run._options() if o.kind == "prepare_summon"), "twice"
        assert choose_day(run, lambda o: o.kind == "continue")
        mine = [o for o in run.battle.creatures.values() if o.resources.get("prepared") == "conjure-elemental"]
        assert mine and all(o.side == w.side for o in mine)
        long_rest(w)
        assert w.resources["minions_of_chaos"] == 1

    return {"pact-of-the-chain": chain, "eldritch-invocation-minions-of-chaos": minions}


def _lands_stride_probes() -> dict:
    """Land's Stride for the druid and the ranger: rubble costs no extra movement and the save
    against magical plants has advantage."""
    mon, pick, dice = fp.mon, fp.pick, fp.script_dice

    def lands_stride(cls, level, below):
        def run():
            layout = ["#" * 16] + ["#" + "," * 14 + "#"] * 10 + ["#" * 16]   # rubble everywhere
            far = {}
            for lvl in (below, level):
                c = build_pc(cls, lvl, "p", (2, 2, 0))
                b = Battle(BattleMap.from_dict({"layout": layout}), [c, mon("ogre", (12, 9))], seed=0,
                           max_options=10 ** 6)
                fp.again(b, "p")
                pick(b, "move")
                far[lvl] = max(o.data[0][0] for o in b.decision.options
                               if o.kind == "destination" and o.data[0][1] == 2)
            assert far[below] == 2 + c.speed // 10 and far[level] == 2 + c.speed // 5, far
            # Entangle (magical plants): the save is made with advantage (a 2 and a 19: a success)
            for lvl, held in ((below, True), (level, False)):
                d = build_pc("druid", 5, "d", (2, 2, 0), side="enemies", spells=("entangle",))
                t = build_pc(cls, lvl, "p", (6, 2, 0))
                b = fp.battle(d, t, first="d")
                pick(b, "spell", "Entangle")
                pick(b, "point_x", "x = 6")
                dice(b, 2, 19, rest=2)
                pick(b, "point_y", "(6, 2)")
                assert ("restrained" in t.conditions) == held, (lvl, t.conditions)
        return run

    return {
        "druid-lands-stride": lands_stride("druid", 6, 5), "ranger-lands-stride": lands_stride("ranger", 8, 7),
    }


def _reaction_probes() -> dict:
    """Features offered as a reaction decision: Retaliation, Giant Killer and Stand Against the Tide
    (after a foe's attack), Hurl Through Hell (after the warlock's own hit)."""
    pc, mon, pick, has, dice = fp.pc, fp.mon, fp.pick, fp.has, fp.script_dice

    def retaliation():
        for level, offered in ((13, False), (14, True)):
            c, o = pc("barbarian", level), mon("ogre", (3, 2))
            b = fp.battle(c, o, first="m")
            _foe_attacks(b, "Greatclub", 15, 3, 3)   # a hit for 2d8+4 = 10
            assert c.hp < c.max_hp, c.hp
            assert (b.decision.kind == "reaction" and has(b, "reaction", "Retaliation")) == offered, \
                (level, b.decision.prompt, [x.label for x in b.decision.options])
            if offered:
                hp = o.hp
                dice(b, 15, 6, 6)
                pick(b, "reaction", "Retaliation")
                assert o.hp < hp and not c.economy.reaction, (o.hp, hp)
                assert b.decision.actor == "m", b.decision.actor   # the ogre's turn goes on

    def giant_killer():
        for foe, offered in (("ogre", True), ("thug", False)):
            c = build_pc("ranger", 3, "p", (2, 2, 0), choices=("giant_killer",))
            o = mon(foe, (3, 2))
            b = fp.battle(c, o, first="m")
            if foe == "thug":
                pick(b, "multiattack")
            _foe_attacks(b, "Greatclub" if foe == "ogre" else "Mace", 2, rest=2)   # a miss
            assert c.hp == c.max_hp
            assert (b.decision.kind == "reaction" and has(b, "reaction", "Giant Killer")) == offered, \
                (foe, b.decision.prompt)
            if offered:
                hp = o.hp
                dice(b, 15, 5, 5)
                pick(b, "reaction", "Giant Killer")
                assert o.hp < hp and not c.economy.reaction, (o.hp, hp)
        plain = pc("ranger", 3)
        assert "giant_killer" not in plain.features and "colossus_slayer" in plain.features

    def tide():
        c = build_pc("ranger", 15, "p", (2, 2, 0), choices=("stand_against_the_tide",))
        o, o2 = mon("ogre", (3, 2)), mon("ogre", (3, 4), "m2")
        b = fp.battle(c, o, o2, first="m")
        _foe_attacks(b, "Greatclub", 2, rest=2)   # a miss on the ranger
        assert c.hp == c.max_hp and has(b, "reaction", "Stand Against the Tide"), b.decision.prompt
        hp = o2.hp
        dice(b, 19, 6, 6)
        pick(b, "reaction", "against m2")
        assert o2.hp < hp and not c.economy.reaction, (o2.hp, hp)
        assert any(e.get("event") == "attack" and e.get("attacker") == "m" and e.get("target") == "m2"
                   for e in b.log)

    def hurl():
        c = pc("warlock", 14)
        assert c.resources["hurl_through_hell"] == 1
        o, o2 = mon("ogre", (4, 2)), mon("ogre", (8, 8), "m2")
        b = fp.battle(c, o, o2, first="p")
        dice(b, 19, 5, 5)
        pick(b, "spell", "Eldritch Blast")
        if b.decision.kind == "target":
            fp.pick(b, "target", "m")
        while b.decision.kind == "target":   # more beams: same target
            pick(b, "target", "m")
        assert b.decision.kind == "reaction" and has(b, "reaction", "Hurl Through Hell"), \
            (b.decision.kind, [x.label for x in b.decision.options])
        pick(b, "reaction", "Hurl Through Hell")
        assert "removed" in o.conditions and o.dead and c.resources["hurl_through_hell"] == 0
        hp = o.hp
        for _ in range(200):   # play on until the end of the warlock's next turn
            if "removed" not in o.conditions or b.outcome is not None:
                break
            if b.decision.actor == "p" and b.decision.kind == "action":
                pick(b, "end_turn")
            else:
                b.choose(heuristic.choose(b))
        assert "removed" not in o.conditions and b.round == 2, (o.conditions, b.round)
        assert o.hp < hp or o.dead, (o.hp, hp)
        assert any(e.get("event") == "damage" and e.get("creature") == "m" and e.get("type") == "psychic"
                   for e in b.log)

    return {
        "retaliation": retaliation, "hunters-prey-giant-killer": giant_killer,
        "superior-hunters-defense-stand-against-the-tide": tide, "hurl-through-hell": hurl,
    }


def probes() -> dict:
    """SRD feature key -> probe: each plays the feature through the engine's options with fixed
    dice (the helpers of :mod:`.feature_harness`) and fails when it has no visible effect."""
    return {
        **_lore_hunter_land_and_invocation_probes(),
        **_wizard_probes(),
        **_sorcerer_probes(),
        **_ranger_probes(),
        **_protection_style_probes(),
        **_life_domain_probes(),
        **_always_prepared_spell_probes(),
        **_paladin_and_bard_probes(),
        **_martial_probes(),
        **_warlock_probes(),
        **_thief_probes(),
        **_thiefs_reflexes_probes(),
        **_warlock_day_probes(),   # Pact of the Chain, Minions of Chaos
        **_lands_stride_probes(),
        **_reaction_probes(),   # Retaliation, Giant Killer, Stand Against the Tide, Hurl Through Hell
    }
