"""The Encounter track's validity table from an evaluation run's episode files.

Run the evaluation first (the heuristic party and the random masked party, seeds 0-19 of every
encounter), then this over its output folder:

  dungeonbench-gym eval --suite dnd-encounter --agent random,baseline --episodes 20 --workers 1 --out results/dnd-validity
  python benchmarks/dnd_encounter_validity.py results/dnd-validity

Prints a Markdown table: per encounter its family and objective (from the scenario file), the
wins of each agent out of its episodes, and the most legal choices any decision of those episodes
had before splitting into groups (``legal_options_max``); then the encounters every agent wins
on some seed and loses on most.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from dungeonbench_gym.dnd.scenario import encounter_names, load_encounter


def _camel(key: str) -> str:
    return "".join(part.capitalize() for part in key.split("_"))


def episodes(out: Path, agent: str, env_id: str) -> list[dict]:
    folder = out / "episodes" / agent / env_id
    return [json.loads(p.read_text()) for p in sorted(folder.glob("episode-*.json"))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path, help="the eval --out folder")
    ap.add_argument("--agents", default="baseline,random", help="columns, in order (default: baseline,random)")
    args = ap.parse_args()
    agents = args.agents.split(",")
    names = {"baseline": "heuristic party", "random": "random party"}
    print("| encounter | family | objective | " + " | ".join(names.get(a, a) for a in agents) + " | most legal options |")
    print("|---|---|---|" + "---:|" * (len(agents) + 1))
    won_some = {a: 0 for a in agents}
    lost_most = {a: 0 for a in agents}
    rows = 0
    for key in encounter_names():
        s = load_encounter(key)
        env_id = f"DnD-Encounter-{_camel(key)}-v0"
        cells, most = [], 0
        for a in agents:
            eps = episodes(args.out, a, env_id)
            if not eps:
                raise SystemExit(f"{args.out}: no episodes of {a} on {env_id}; run the evaluation first (see --help)")
            wins = sum(e["metrics"]["win"] >= 1 for e in eps)
            cells.append(f"{wins}/{len(eps)}")
            won_some[a] += wins > 0
            lost_most[a] += wins < len(eps) / 2
            most = max([most] + [e["metrics"]["legal_options_max"] for e in eps])
        rows += 1
        print(f"| {_camel(key)} | {s.family} | {s.objective['type']} | " + " | ".join(cells) + f" | {most} |")
    print()
    print(f"{rows} encounters; " + "; ".join(f"{names.get(a, a)}: wins on some seed {won_some[a]}, "
                                           f"loses most seeds {lost_most[a]}" for a in agents))


if __name__ == "__main__":
    main()
