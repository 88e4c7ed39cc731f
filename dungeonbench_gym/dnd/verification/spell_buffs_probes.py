"""Probes of :mod:`..spell_buffs`: each makes one of its rules happen through the engine's
decision options in a small battle, and raises AssertionError when it cannot."""

from __future__ import annotations

from ..builders.pcs import build_pc
from ..day import DayRun, day_names, load_day
from ..spell_buffs import _mech, choose_day
from .arena import SEEDS, battle, duel, orc_first


def probe(key: str) -> None:
    """Reaction and between-fight spells: shown through the engine's reaction decision, a fall,
    or the Day track's intermission options; AssertionError when nothing happens."""
    kind = _mech(key)["mech"]
    if kind == "day":
        return _probe_day(key)
    if key == "hellish-rebuke":
        return _probe_rebuke()
    if key == "feather-fall":
        return _probe_feather_fall()
    raise AssertionError(f"{key}: no probe for mechanism {kind!r}")


def _probe_rebuke() -> None:
    """An orc hits the caster with its greataxe: the caster is offered Hellish Rebuke and burns it."""
    for seed in SEEDS:
        b = orc_first("hellish-rebuke", seed)
        orc = b.creatures["orc_0"]
        i = next((i for i, o in enumerate(b.decision.options) if o.kind == "attack" and o.data[0] == "greataxe"), None)
        if i is None:
            continue
        b.choose(i)
        b.choose(next(i for i, o in enumerate(b.decision.options) if o.data == ("caster",)))
        d = b.decision
        if d is None or d.kind != "reaction" or "Hellish Rebuke" not in d.options[0].label:
            continue
        hp = orc.hp
        b.choose(0)
        if orc.hp < hp or orc.dead:
            assert sum(b.creatures["caster"].resources["slots"]) == 35, "hellish-rebuke: no slot spent"
            return
    raise AssertionError("hellish-rebuke: never offered after damage, or it never burned")


def _probe_feather_fall() -> None:
    """The ally is 30 ft up with nothing to hold it: instead of falling hard (3d6, prone) it drifts
    down on its feet, the caster's reaction and a slot spent."""
    b = battle("feather-fall")
    ally = b.creatures["ally"]
    ally.pos = (ally.pos[0], ally.pos[1], 30)   # no fly speed: it falls
    hp = ally.hp
    b.falls()
    caster = b.creatures["caster"]
    assert ally.pos[2] == 0 and ally.hp == hp and "prone" not in ally.conditions, "feather-fall: the fall still hurt"
    assert not caster.economy.reaction and sum(caster.resources["slots"]) == 35, "feather-fall: nothing spent"


def day_probe_run(key: str, seed: int = 0):
    """A Day track run at its first intermission, one member (the caster) knowing the spell with
    slots of every level and gold for components; a second member hurt or dead as the spell needs."""
    run = DayRun(load_day(day_names()[0]), seed)   # its first fight stands for the one just played
    run.results, run.stage, run.phase, run._menu, run._group = ["win"], 1, "intermission", None, None
    run.event("fight", "Encounter 1: won (probe)")
    caster, other = list(run.party.values())[:2]
    caster.spells = tuple(caster.spells) + (key,)
    caster.resources.update(slots=(4,) * 9, gp=30000)
    caster.resources.setdefault("spell_mod", 3)
    caster.resources.setdefault("spell_dc", 13)
    m = _mech(key)
    if m.get("day") in ("revive", "repose"):   # it died in the fight just played
        other.dead, other.hp = True, 0
        other.resources["died_round"] = run.battle.round
    else:
        other.hp = max(1, other.max_hp // 3)
    return run


def _probe_day(key: str) -> None:
    run = day_probe_run(key)
    before = {c.cid: (c.hp, c.max_hp, c.dead, tuple(sorted(c.conditions))) for c in run.party.values()}
    slots = sum(next(c for c in run.party.values() if key in c.spells).resources["slots"])
    ok = choose_day(run, lambda o: o.kind in ("day_spell", "heal") and len(o.data) > 1 and o.data[1] == key)
    assert ok, f"{key}: not offered between fights"
    after = {c.cid: (c.hp, c.max_hp, c.dead, tuple(sorted(c.conditions))) for c in run.party.values()}
    assert after != before, f"{key}: nothing changed between fights"
    assert sum(next(c for c in run.party.values() if key in c.spells).resources["slots"]) == slots - 1, \
        f"{key}: no slot spent"


def probe_monster_spell(key: str, spell: str) -> None:
    """A monster's spell of this module (dnd/verification/coverage.py's monster probe). A between-fights spell
    is never offered in a battle (its effect is the party's, shown by :func:`probe`); Hellish Rebuke
    is offered when a fighter's attack through the options damages the monster; Feather Fall saves
    an ally of its side from a fall."""
    b, m = duel(key, "a" if spell == "hellish-rebuke" else "m")
    m.conditions.pop("invisible", None)
    if _mech(spell)["mech"] == "day":
        b.open_menu(m)
        assert not any(o.kind == "spell" and o.data[0] == spell for o in b.action_options(m)), \
            f"{key}: {spell} offered in a battle"
        probe(spell)
        return
    if spell == "feather-fall":
        ally = build_pc("fighter", 5, "ally", (m.pos[0], m.pos[1] + m.squares, 30))
        ally.side = m.side
        b.creatures["ally"] = ally
        b.falls()
        assert ally.pos[2] == 0 and ally.hp == ally.max_hp and any(
            e.get("event") == "cast" and e.get("spell") == spell and e.get("creature") == "m" for e in b.log), \
            f"{key}: feather-fall not cast"
        return
    m.hp = m.max_hp = 10 ** 6
    f = b.creatures["a"]
    weapon = next(a for a in f.attacks if a.melee)
    for _ in range(100):
        m.economy.reaction = True
        b.pending = {"kind": "action", "actor": "a"}
        b.forget_options()
        f.economy.actions, f.economy.attacks_left = 1, 0
        b.choose(next(i for i, o in enumerate(b.decision.options) if o.kind == "attack" and o.data[0] == weapon.key))
        if b.decision.kind == "target":
            b.choose(next(i for i, o in enumerate(b.decision.options) if o.data == ("m",)))
        d = b.decision
        if d is not None and d.kind == "reaction" and d.actor == "m" and "Hellish Rebuke" in d.options[0].label:
            b.choose(0)
            assert any(e.get("event") == "cast" and e.get("spell") == spell for e in b.log)
            return
    raise AssertionError(f"{key}: reaction spell {spell} never offered")
