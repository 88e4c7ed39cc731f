"""A fingerprint of seeded heuristic-vs-heuristic battles, to show a change kept behaviour.

For every encounter (or the ones named) and seeds 0..N-1, the planner plays both sides in the
engine and the whole event log (every roll and narrated event) is hashed. A refactor or a speed-up
that must not change play leaves every digest the same; a rule change shows exactly which
encounters it touched.

  python scripts/dnd_battle_digest.py --save /tmp/before.json      # record
  python scripts/dnd_battle_digest.py --compare /tmp/before.json   # exit 1 if any digest moved
  python scripts/dnd_battle_digest.py --seeds 5 harpy_cliffs       # just print

``--labels`` also hashes every decision's kind, actor, prompt and full option list (labels, kinds and
payloads, before any split into groups): what an agent is shown must not move either. ``--days``
adds every Day-track day (fights, intermissions, the day's events and its stage table).
``--probes`` adds a digest per executable coverage row (`dnd.verification.coverage`: class features, spells,
monsters, items): self-play reaches few of them, so each row's probe is run and the event logs of
every battle it builds (or unpickles), and the final state (`to_dict`) of every combatant it
builds, are hashed, as multisets: the order in which a probe builds them does not count, what
happens to each does. Probes iterate sets, so the script runs
itself with a fixed PYTHONHASHSEED.

  python scripts/dnd_battle_digest.py --seeds 2 --labels --days --probes --save before.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys

from dungeonbench_gym.dnd import heuristic
from dungeonbench_gym.dnd.scenario import encounter_names, load_encounter


def digest(name: str, seed: int, labels: bool = False) -> str:
    """sha256 of the event log of one seeded self-play battle (and of its options: ``labels``)."""
    b = load_encounter(name).build(seed)
    h = hashlib.sha256()
    while b.outcome is None:
        if labels:
            d = b.decision
            h.update(repr((d.kind, d.actor, d.prompt, [(o.label, o.kind, o.data, o.group) for o in b.visible_options()])).encode())
        b.choose(heuristic.choose(b))
    h.update(json.dumps(b.log, sort_keys=True, default=repr).encode())
    return h.hexdigest()[:16]


def digest_day(name: str, seed: int, labels: bool = False) -> str:
    """The same for one seeded Day-track day: its fights and its intermissions (plan_intermission)."""
    from dungeonbench_gym.dnd.day import DayRun, load_day
    from dungeonbench_gym.dnd.advice.intermission import plan_intermission
    run = DayRun(load_day(name), seed)
    h = hashlib.sha256()
    while not run.over:
        if labels:
            d = run.decision
            h.update(repr((d.kind, d.actor, d.prompt, [(o.label, o.kind, o.data) for o in d.options])).encode())
        run.choose(heuristic.choose(run.battle) if run.phase == "battle" else plan_intermission(run))
    h.update(repr(run.events(last=10 ** 6)).encode())
    h.update(repr(run.stage_table()).encode())
    return h.hexdigest()[:16]


def probe_digests() -> dict[str, str]:
    """"probe:<table>:<key>" -> the multisets of the event logs of the battles its probe builds and
    of the final states of the combatants it builds."""
    from dungeonbench_gym.dnd import engine, state
    from dungeonbench_gym.dnd.verification import coverage
    battles: list = []
    combatants: list = []
    originals = (engine.Battle.__init__, engine.Battle.__setstate__, state.Combatant.__init__)

    def recording(original, into):
        def record(self, *args, **kwargs):
            original(self, *args, **kwargs)
            into.append(self)
        return record

    engine.Battle.__init__ = recording(originals[0], battles)
    engine.Battle.__setstate__ = recording(originals[1], battles)
    state.Combatant.__init__ = recording(originals[2], combatants)

    def multiset(items) -> str:
        return " ".join(sorted(hashlib.sha256(json.dumps(item, sort_keys=True, default=repr).encode())
                               .hexdigest() for item in items))

    out = {}
    try:
        for table in coverage.TABLES:
            rows, _ = coverage.table(table)
            for row in rows or ():
                if row["status"] != "executable":
                    continue
                battles.clear()
                combatants.clear()
                coverage.probe(table, row["key"])
                both = multiset(b.log for b in battles) + "|" + multiset(c.to_dict() for c in combatants)
                out[f"probe:{table}:{row['key']}"] = hashlib.sha256(both.encode()).hexdigest()[:16]
    finally:
        engine.Battle.__init__, engine.Battle.__setstate__, state.Combatant.__init__ = originals
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="encounter keys (default: all)")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--save", help="write the digests to this JSON file")
    ap.add_argument("--compare", help="compare with digests saved earlier; exit 1 on any difference")
    ap.add_argument("--labels", action="store_true", help="hash every decision's options too")
    ap.add_argument("--days", action="store_true", help="also every Day-track day (day:<name>)")
    ap.add_argument("--probes", action="store_true",
                    help="also every executable coverage row's probe (probe:<table>:<key>)")
    args = ap.parse_args(argv)
    names = args.names or encounter_names()
    now = {f"{n}:{s}": digest(n, s, args.labels) for n in names for s in range(args.seeds)}
    if args.days:
        from dungeonbench_gym.dnd.day import day_names
        now.update({f"day:{d}:{s}": digest_day(d, s, args.labels) for d in day_names() for s in range(args.seeds)})
    if args.probes:
        now.update(probe_digests())
    if args.save:
        with open(args.save, "w") as f:
            json.dump(now, f, indent=1, sort_keys=True)
    if not args.compare:
        for k, v in now.items():
            print(k, v)
        return 0
    with open(args.compare) as f:
        before = json.load(f)
    moved = sorted(k for k in now if k in before and before[k] != now[k])
    for k in moved:
        print(f"changed: {k}")
    print(f"{len(now) - len(moved)} of {len(now)} battles identical"
          + (f" ({len([k for k in now if k not in before])} not in {args.compare})" if any(k not in before for k in now) else ""))
    return 1 if moved else 0


if __name__ == "__main__":
    if os.environ.get("PYTHONHASHSEED") != "0":   # set order must not move a digest
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    sys.exit(main())
