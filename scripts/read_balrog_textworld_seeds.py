"""Write the seeds of BALROG's TextWorld games into `games/textworld/balrog_games.json`.

BALROG plays 25 games per task, made by intelligent-go-explore's scripts
(`textworld/misc/make_*.py`) and kept as files in its `textworld/tw_games/`. Every
game's JSON records the four seeds TextWorld's generator drew it from (map,
objects, quest, grammar); with BALROG's settings they make that very game again
(`benchmarks/balrog_parity_textworld.py` checks it), so the project stores the
seeds, not the games. Games are listed in the order BALROG's TextWorldFactory
registers them (its sorted glob, .ulx files then .z8), which is the order an
episode seed picks them in (game `seed % 25`).

    python scripts/read_balrog_textworld_seeds.py PATH/intelligent-go-explore/textworld/tw_games
"""

from __future__ import annotations

import argparse
import glob
import json
import os
from pathlib import Path

# BALROG's task folder -> our task name
FOLDERS = {"treasure_hunter": "treasure_hunter", "the_cooking_game": "cooking",
           "coin_collector": "coin_collector"}
OUT = Path(__file__).resolve().parent.parent / "dungeonbench_gym/games/textworld/balrog_games.json"


def read(root: str) -> dict:
    found: dict[str, list] = {task: [] for task in FOLDERS.values()}
    for pattern in ("*.ulx", "*.z8"):   # BALROG's registration order
        for story in sorted(glob.glob(os.path.join(root, f"**/{pattern}"), recursive=True)):
            folder = Path(story).parent.name
            if folder not in FOLDERS:
                continue
            with open(os.path.splitext(story)[0] + ".json", encoding="utf-8") as handle:
                meta = json.load(handle)["metadata"]
            found[FOLDERS[folder]].append({"name": Path(story).stem,
                                           "seeds": {k: int(v) for k, v in meta["seeds"].items()},
                                           "walkthrough_steps": len(meta["walkthrough"])})
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tw_games", help="intelligent-go-explore's textworld/tw_games folder")
    args = parser.parse_args()
    found = read(args.tw_games)
    data = {"source": "github.com/conglu1997/intelligent-go-explore, textworld/tw_games/*/*.json "
                      "(metadata.seeds), in BALROG's order", **found}
    OUT.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print({task: len(games) for task, games in found.items()}, "->", OUT)


if __name__ == "__main__":
    main()
