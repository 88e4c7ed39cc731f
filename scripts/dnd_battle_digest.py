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
"""

from __future__ import annotations

import argparse
import hashlib
import json
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
    from dungeonbench_gym.dnd.day import DayRun, load_day, plan_intermission
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="encounter keys (default: all)")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--save", help="write the digests to this JSON file")
    ap.add_argument("--compare", help="compare with digests saved earlier; exit 1 on any difference")
    ap.add_argument("--labels", action="store_true", help="hash every decision's options too")
    ap.add_argument("--days", action="store_true", help="also every Day-track day (day:<name>)")
    args = ap.parse_args(argv)
    names = args.names or encounter_names()
    now = {f"{n}:{s}": digest(n, s, args.labels) for n in names for s in range(args.seeds)}
    if args.days:
        from dungeonbench_gym.dnd.day import day_names
        now.update({f"day:{d}:{s}": digest_day(d, s, args.labels) for d in day_names() for s in range(args.seeds)})
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
    sys.exit(main())
