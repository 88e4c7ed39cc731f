"""The small battles probes play in, and the helpers that steer them.

A spell probe's arena: a caster with the one spell and four slots of every level, a wounded
fighter beside it and three foes; a monster probe's duel: the monster beside two sturdy level-5
fighters on open ground. The helpers answer a probe's follow-up decisions (targets, points,
directions, the groups of a split decision) the way that shows the rule working.
"""

from __future__ import annotations

from .. import heuristic
from ..builders.monsters import monster_combatant
from ..builders.pcs import build_pc
from ..engine import Battle
from ..grid import BattleMap
from ..rules import spell_data

ARENA = ["#" * 18] + ["#" + "." * 16 + "#"] * 12 + ["#" * 18]
SEEDS = range(12)


def caster(key: str, level: int = 5, cid: str = "caster", at=(4, 6)):
    """A wizard build with this one spell and four slots of every level 1-9."""
    c = build_pc("wizard", level, cid, (*at, 0))
    c.spells = (key,)
    c.resources["slots"] = (4,) * 9
    return c


def battle(key: str, seed: int = 0, foes=("orc", "orc", "ogre")) -> Battle:
    """The caster at (4, 6) with a wounded fighter beside it and foes: one adjacent (east), others
    10-20 ft east; it is the caster's turn."""
    m = spell_data.mech(key)
    c = caster(key)
    ally = build_pc("fighter", 5, "ally", (4, 7, 0))
    ally.hp = ally.max_hp // 2
    if m.get("mech") == "stabilize":
        ally.hp = 0
        ally.conditions.update(unconscious={}, prone={})
    if m.get("mech") == "cure":
        ally.conditions[m["cures"][0]] = {"by": "nobody"}
        if m.get("exhaustion"):
            ally.conditions["exhaustion"] = {"level": 2}
    spots = [(5, 6), (8, 6), (8, 8)]
    fighters = [c, ally] + [monster_combatant(f, f"{f}_{i}", "enemies", (*spots[i], 0))
                            for i, f in enumerate(foes)]
    if m.get("mech") == "dispel":   # a foe's spell on the ally
        ally.conditions["baned"] = {"by": "orc_0", "spell": "bane"}
    b = Battle(BattleMap.from_dict({"layout": ARENA}), fighters, seed=seed)
    b.order = [c.cid] + [o for o in b.order if o != c.cid]   # the caster's turn, now
    b.round, b.turn_index, b.outcome = 0, -1, None
    b.next_turn()
    if m.get("mech") == "revive":   # the ally died this round
        b.die(ally, "probe")
    return b


def snapshot(b: Battle) -> tuple:
    return tuple((o.cid, o.hp, o.max_hp, o.temp_hp, tuple(o.pos), o.dead, o.stable, o.exhaustion,
                  tuple(sorted(o.conditions)), bool(o.resources.get("zone")), bool(o.resources.get("spiritual_weapon")))
                 for o in sorted(b.creatures.values(), key=lambda o: o.cid))


def _foe_hits(label: str) -> int:
    hits = label.split("(hits ")[-1] if "(hits " in label else ""
    bad = ("caster" in hits) + ("ally" in hits)
    return sum(hits.count(f) for f in ("orc", "ogre")) * 3 - bad * 2


def steer(b: Battle, key: str, support: bool) -> None:
    """Answer the caster's follow-up decisions: a target (a foe, or the ally for support), the
    point/direction that hits the most foes, one further target at most, a teleport square."""
    for _ in range(40):
        d = b.decision
        if d is None or d.actor != "caster" or d.kind == "action":
            return
        opts = d.options
        if d.kind == "group":
            pick = 0
        elif d.kind == "target":
            def score(o):
                if o.kind != "target":
                    return -1
                t = b.creatures[o.data[0]]
                return (2 if t.cid == "ally" else 1) if support else (t.side != "party") * 2
            pick = max(range(len(opts)), key=lambda i: (score(opts[i]), -i))
            if b.pending["use"][0] == "more":
                pick = next((i for i, o in enumerate(opts) if o.kind == "stop"), pick)
        elif d.kind == "point_x":
            want = {o.pos[0] for o in b.creatures.values() if o.side == "enemies"}
            pick = next((i for i, o in enumerate(opts) if o.data[0] in want), 0)
            xs = [o.data[0] for o in opts]
            if b.pending["use"][1] and not any(x in want for x in xs):
                pick = len(opts) // 2
        elif d.kind in ("point_y", "point_z", "direction"):
            pick = max(range(len(opts)), key=lambda i: (_foe_hits(opts[i].label), -i))
        else:
            pick = 0
        b.choose(pick)


def orc_first(key: str, seed: int) -> Battle:
    """The probe battle for `key`, but the adjacent orc takes the first turn (for reactions to an attack)."""
    b = battle(key, seed)
    orc = b.creatures["orc_0"]
    b.order = [orc.cid] + [o for o in b.order if o != orc.cid]
    b.round, b.turn_index, b.outcome = 0, -1, None
    b.next_turn()
    return b


def combatant(key: str):
    return monster_combatant(key, "m", "enemies", (2, 2, 0))


def duel(key: str, first: str):
    """The monster at (2, 2) and a sturdy level-5 fighter beside it (another one behind), on open ground."""
    m = combatant(key)
    n = m.squares
    foes = [build_pc("fighter", 5, "a", (2 + n, 2, 0)), build_pc("fighter", 5, "b", (2 + n, 3, 0))]
    for f in foes:
        f.hp = f.max_hp = 1000
    layout = ["#" * 16] + ["#" + "." * 14 + "#"] * 10 + ["#" * 16]
    b = Battle(BattleMap.from_dict({"layout": layout}), [*foes, m], seed=0)
    b.order = [first] + [o for o in b.order if o != first]
    b.round, b.turn_index, b.outcome = 0, -1, None
    b.next_turn()
    return b, m


def play_out(b, actor: str) -> None:
    """Let the heuristic answer the follow-up decisions (targets, points, directions) of actor."""
    for _ in range(50):
        d = b.decision
        if d is None or d.actor != actor or d.kind == "action":
            return
        b.choose(heuristic.choose(b))


def choose(b, want, what: str) -> None:
    """Choose the option that ``want`` accepts, through the group decisions of a long list."""
    for _ in range(8):
        full = b.visible_options()
        j = next((j for j, o in enumerate(full) if want(o)), None)
        assert j is not None, f"{what} not offered: {[o.label for o in full]}"
        if b.decision.kind != "group":
            b.choose(j)
            return
        base = b.pending.get("span", (0, 0))[0]
        b.choose(next(i for i, o in enumerate(b.decision.options)
                      if (o.data[0] == "key" and o.data[1] == full[j].group)
                      or (o.data[0] == "span" and o.data[1] <= base + j < o.data[2])))
    raise AssertionError(f"{what}: too many group levels")
