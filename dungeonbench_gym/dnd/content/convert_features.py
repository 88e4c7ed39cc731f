"""Convert the SRD class-feature list (5e-SRD-Features.json) into ``data/class_features.json``:
one row per feature with its key, name, class, subclass, level and parent choice. Facts only, no
prose. The combat status of each feature is ours and lives in :mod:`..features`.

    python -m dungeonbench_gym.dnd.content.convert_features --srd /work/shared/srd/5e-2014 \
        --out dungeonbench_gym/dnd/content/data
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def convert_features(src: list[dict]) -> list[dict]:
    rows = []
    for f in src:
        rows.append({"key": f["index"], "name": f["name"], "class": f["class"]["index"],
                     "subclass": (f.get("subclass") or {}).get("index", ""), "level": f["level"],
                     "parent": (f.get("parent") or {}).get("index", "")})
    rows.sort(key=lambda r: (r["class"], r["level"], r["subclass"], r["key"]))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--srd", default="/work/shared/srd/5e-2014")
    ap.add_argument("--out", default=str(Path(__file__).parent / "data"))
    args = ap.parse_args(argv)
    src = json.loads((Path(args.srd) / "5e-SRD-Features.json").read_text())
    rows = convert_features(src)
    (Path(args.out) / "class_features.json").write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n")
    print(f"{len(rows)} class features")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
