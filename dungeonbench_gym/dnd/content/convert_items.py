"""Convert the SRD magic items (and the mundane weapons, armour and shields) into ``items.json``.

    python -m dungeonbench_gym.dnd.content.convert_items --srd /work/shared/srd/5e-2014 \
        --out dungeonbench_gym/dnd/content/data

The SRD's item records are prose; the numbers the engine needs (a +1, 7 charges, a DC, the damage
type a ring resists) are written below as structured facts keyed by the SRD index, and the
converter joins them with the SRD's names, rarities and variants and with our converted weapon
and armour tables. No description text is written. Families expand into one item each: +1/+2/+3
of every base weapon and armour, +1/+2/+3 shields and ammunition of each kind, a spell scroll of
every SRD spell. Items whose effect the engine does not run keep a short ``reason``. Output is
deterministic (sorted keys, stable formatting).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

DAMAGE_TYPES = ("acid", "cold", "fire", "force", "lightning", "necrotic", "poison", "psychic", "radiant",
                "thunder")   # the d10 table of potions, rings and armour of resistance
RARITY_BY_BONUS = {"weapon": {1: "uncommon", 2: "rare", 3: "very_rare"},
                   "armor": {1: "rare", 2: "very_rare", 3: "legendary"},
                   "shield": {1: "uncommon", 2: "rare", 3: "very_rare"},
                   "ammunition": {1: "uncommon", 2: "rare", 3: "very_rare"}}
# SRD Equipment: which ammunition each ammunition weapon fires
AMMUNITION = {"arrow": ("shortbow", "longbow"), "crossbow-bolt": ("crossbow-light", "crossbow-heavy", "crossbow-hand"),
              "sling-bullet": ("sling",), "blowgun-needle": ("blowgun",)}
# SRD adventuring gear that sheds light (carried: dnd/lighting.py): key -> (name, bright ft, dim ft more)
LIGHT_GEAR = {"torch": ("Torch", 20, 20), "lantern-hooded": ("Lantern, hooded", 30, 30), "lamp": ("Lamp", 15, 30),
              "candle": ("Candle", 5, 5)}
# SRD Spell Scroll table: spell level -> (save DC, attack bonus)
SCROLL_DC = {0: (13, 5), 1: (13, 5), 2: (13, 5), 3: (15, 7), 4: (15, 7), 5: (17, 9), 6: (17, 9), 7: (18, 10),
             8: (18, 10), 9: (19, 11)}
SCROLL_RARITY = {0: "common", 1: "common", 2: "uncommon", 3: "uncommon", 4: "rare", 5: "rare", 6: "very_rare",
                 7: "very_rare", 8: "very_rare", 9: "legendary"}
HEALING = {"potion-of-healing-common": "2d4+2", "potion-of-healing-greater": "4d4+4",
           "potion-of-healing-superior": "8d4+8", "potion-of-healing-supreme": "10d4+20"}
GIANT_STRENGTH = {"hill": 21, "frost": 23, "stone": 23, "fire": 25, "cloud": 27, "storm": 29}
DRAGON_SCALE = {"black": "acid", "blue": "lightning", "brass": "fire", "bronze": "lightning", "copper": "acid",
                "gold": "fire", "green": "poison", "red": "fire", "silver": "cold", "white": "cold"}
IOUN_SCORE = {"agility": "dex", "strength": "str", "fortitude": "con", "insight": "wis", "intellect": "int",
              "leadership": "cha"}

# Named items: SRD index -> facts. "wear": passive while carried/worn; "use": an action in battle
# (or between battles); weapons and armour name their base item and bonus.
FACTS: dict[str, dict] = {
    # ---- weapons
    "flame-tongue": {"base": "longsword", "extra": [["2d6", "fire"]]},
    "frost-brand": {"base": "longsword", "extra": [["1d6", "cold"]], "wear": {"resist": ["fire"]}},
    "dragon-slayer": {"base": "longsword", "bonus": 1, "slaying": [["3d6", "", ["dragon"]]]},
    "giant-slayer": {"base": "longsword", "bonus": 1, "slaying": [["2d6", "", ["giant"]]]},
    "mace-of-disruption": {"base": "mace", "slaying": [["2d6", "radiant", ["fiend", "undead"]]]},
    "holy-avenger": {"base": "longsword", "bonus": 3, "slaying": [["2d10", "radiant", ["fiend", "undead"]]]},
    "sun-blade": {"base": "longsword", "bonus": 2, "damage_type": "radiant", "finesse": True,
                  "slaying": [["1d8", "radiant", ["undead"]]]},
    "mace-of-smiting": {"base": "mace", "bonus": 1},
    "mace-of-terror": {"base": "mace", "bonus": 0, "reason": "its special property is not modelled"},
    "dagger-of-venom": {"base": "dagger", "bonus": 1},
    "defender": {"base": "longsword", "bonus": 3},
    "luck-blade": {"base": "longsword", "bonus": 1, "wear": {"saves": 1}},
    "vorpal-sword": {"base": "longsword", "bonus": 3},
    "nine-lives-stealer": {"base": "longsword", "bonus": 2},
    "sword-of-sharpness": {"base": "longsword", "bonus": 0, "reason": "its special property is not modelled"},
    "sword-of-life-stealing": {"base": "longsword", "bonus": 0, "reason": "its special property is not modelled"},
    "sword-of-wounding": {"base": "longsword", "bonus": 0, "reason": "its special property is not modelled"},
    "scimitar-of-speed": {"base": "scimitar", "bonus": 2},
    "dwarven-thrower": {"base": "warhammer", "bonus": 3},
    "hammer-of-thunderbolts": {"base": "maul", "bonus": 1},
    "berserker-axe": {"base": "battleaxe", "bonus": 1, "wear": {"max_hp_per_level": 1}},
    "javelin-of-lightning": {"base": "javelin", "bonus": 0, "reason": "its special property is not modelled"},
    "trident-of-fish-command": {"base": "trident", "bonus": 0, "reason": "its special property is not modelled"},
    "vicious-weapon": {"base": "longsword", "bonus": 0, "reason": "its special property is not modelled"},
    "oathbow": {"base": "longbow", "bonus": 0, "reason": "its special property is not modelled"},
    "dancing-sword": {"base": "longsword", "bonus": 0, "reason": "its special property is not modelled"},
    # ---- armour and shields
    "elven-chain": {"base": "chain-shirt", "bonus": 1},
    "dwarven-plate": {"base": "plate-armor", "bonus": 2},
    "demon-armor": {"base": "plate-armor", "bonus": 1},
    "glamoured-studded-leather-armor": {"base": "studded-leather-armor", "bonus": 1},
    "armor-of-invulnerability": {"base": "plate-armor", "bonus": 0, "wear": {"resist_nonmagical": True}},
    "adamantine-armor": {"base": "chain-mail", "bonus": 0, "reason": "crits turning into hits not modelled"},
    "mithral-armor": {"base": "chain-mail", "bonus": 0, "reason": "no stealth or Str minimum rules in battle"},
    "plate-armor-of-etherealness": {"base": "plate-armor", "bonus": 0, "reason": "no Ethereal Plane"},
    "armor-of-vulnerability": {"base": "plate-armor", "bonus": 0, "reason": "a cursed choice of types"},
    "spellguard-shield": {"shield": True, "bonus": 0, "wear": {"magic_resistance": True}},
    "animated-shield": {"shield": True, "bonus": 0, "reason": "the shield fighting on its own not modelled"},
    "arrow-catching-shield": {"shield": True, "bonus": 0, "reason": "AC only against ranged attacks not modelled"},
    "shield-of-missile-attraction": {"shield": True, "bonus": 0, "reason": "redirecting missiles not modelled"},
    # ---- rings and wondrous items worn
    "ring-of-protection": {"wear": {"ac": 1, "saves": 1}},
    "cloak-of-protection": {"wear": {"ac": 1, "saves": 1}},
    "ioun-stone-of-protection": {"wear": {"ac": 1}},
    "stone-of-good-luck-luckstone": {"wear": {"saves": 1}},
    "ring-of-warmth": {"wear": {"resist": ["cold"]}},
    "brooch-of-shielding": {"wear": {"resist": ["force"]}},
    "periapt-of-proof-against-poison": {"wear": {"immune": ["poison"], "condition_immune": ["poisoned"]}},
    "bracers-of-defense": {"wear": {"unarmored_ac": 2}},
    "amulet-of-health": {"wear": {"score_set": {"con": 19}}},
    "gauntlets-of-ogre-power": {"wear": {"score_set": {"str": 19}}},
    "headband-of-intellect": {"wear": {"score_set": {"int": 19}}},
    "winged-boots": {"wear": {"fly": "walk"}},
    "wings-of-flying": {"use": {"kind": "fly", "feet": 60}},
    "staff-of-fire": {"wear": {"resist": ["fire"]}, "charges": 10, "recharge": "1d6+4",
                      "use": {"kind": "cast", "dc": None, "caster": True,
                              "spells": [{"spell": "burning-hands", "charges": 1},
                                         {"spell": "fireball", "charges": 3}]}},
    "staff-of-healing": {"charges": 10, "recharge": "1d6+4",
                         "use": {"kind": "cast", "dc": None, "caster": True,
                                 "spells": [{"spell": "cure-wounds", "charges": 1, "upcast_to": 4}]}},
    "staff-of-striking": {"base": "quarterstaff", "bonus": 3},
    "staff-of-power": {"base": "quarterstaff", "bonus": 2, "wear": {"ac": 2, "saves": 2, "spell_attack": 2}},
    "staff-of-the-magi": {"base": "quarterstaff", "bonus": 2, "wear": {"spell_attack": 2}},
    "staff-of-thunder-and-lightning": {"base": "quarterstaff", "bonus": 2},
    "staff-of-withering": {"base": "quarterstaff", "bonus": 0, "reason": "its special property is not modelled"},
    "staff-of-the-woodlands": {"base": "quarterstaff", "bonus": 2, "wear": {"spell_attack": 2}},
    "staff-of-the-python": {"base": "quarterstaff", "bonus": 0, "reason": "its special property is not modelled"},
    "staff-of-charming": {"base": "quarterstaff", "bonus": 0, "reason": "its special property is not modelled"},
    "staff-of-frost": {"base": "quarterstaff", "bonus": 0, "wear": {"resist": ["cold"]},
                       "reason": "its special property is not modelled"},
    "staff-of-swarming-insects": {"base": "quarterstaff", "bonus": 0, "reason": "its special property is not modelled"},
    "rod-of-lordly-might": {"base": "mace", "bonus": 3},
    "robe-of-the-archmagi": {"wear": {"magic_resistance": True}},
    "mantle-of-spell-resistance": {"wear": {"magic_resistance": True}},
    # ---- wands
    "wand-of-magic-missiles": {"charges": 7, "recharge": "1d6+1",
                               "use": {"kind": "cast", "dc": None,
                                       "spells": [{"spell": "magic-missile", "charges": 1, "upcast_to": 7}]}},
    "wand-of-fireballs": {"charges": 7, "recharge": "1d6+1",
                          "use": {"kind": "cast", "dc": 15,
                                  "spells": [{"spell": "fireball", "charges": 1, "upcast_to": 9}]}},
    "wand-of-lightning-bolts": {"charges": 7, "recharge": "1d6+1",
                                "use": {"kind": "cast", "dc": 15,
                                        "spells": [{"spell": "lightning-bolt", "charges": 1, "upcast_to": 9}]}},
    "wand-of-binding": {"charges": 7, "recharge": "1d6+1",
                        "use": {"kind": "cast", "dc": 17, "spells": [{"spell": "hold-person", "charges": 2}]}},
    "wand-of-paralysis": {"charges": 7, "recharge": "1d6+1",
                          "use": {"kind": "ray", "range": 60, "save": "con", "dc": 15, "condition": "paralyzed",
                                  "rounds": 10}},
    "wand-of-web": {"charges": 7, "recharge": "1d6+1", "reason": "the web spell is not in the engine"},
    "wand-of-the-war-mage-1": {"wear": {"spell_attack": 1}},
    "wand-of-the-war-mage-2": {"wear": {"spell_attack": 2}},
    "wand-of-the-war-mage-3": {"wear": {"spell_attack": 3}},
    "necklace-of-fireballs": {"charges": 6, "use": {"kind": "cast", "dc": 15,
                                                    "spells": [{"spell": "fireball", "charges": 1, "upcast_to": 9}]}},
    # ---- potions
    "potion-of-heroism": {"use": {"kind": "heroism", "temp_hp": 10}},
    "potion-of-speed": {"use": {"kind": "haste", "rounds": 10}},
    "potion-of-flying": {"use": {"kind": "fly", "feet": "walk"}},
    "potion-of-invisibility": {"use": {"kind": "invisible"}},
    "potion-of-poison": {"use": {"kind": "poison", "dice": "3d6", "save": "con", "dc": 13}},
    "potion-of-water-breathing": {"use": {"kind": "water_breathing", "rounds": 600}},   # 1 hour (dnd/spell_utility.py)
    "potion-of-growth": {"reason": "growing a size on the grid not modelled"},
}
REASONS = {"wondrous-items": "no combat effect the engine runs yet", "ring": "no combat effect the engine runs yet",
           "rod": "no combat effect the engine runs yet", "staff": "no combat effect the engine runs yet",
           "wand": "no combat effect the engine runs yet", "potion": "no combat effect the engine runs yet"}
OUT_OF_SCOPE = {   # items whose effects lie outside a tactical battle: exploration, travel, social
    "potion-of-animal-friendship", "potion-of-clairvoyance", "potion-of-climbing", "potion-of-diminution",
    "potion-of-gaseous-form", "potion-of-mind-reading", "philter-of-love",
    "oil-of-etherealness", "oil-of-slipperiness", "bag-of-holding", "handy-haversack", "portable-hole",
    "hat-of-disguise", "helm-of-comprehending-languages", "decanter-of-endless-water", "immovable-rod",
    "lantern-of-revealing", "rope-of-climbing", "wand-of-secrets", "wand-of-magic-detection",
    "wand-of-enemy-detection", "crystal-ball", "crystal-ball-of-mind-reading", "crystal-ball-of-telepathy",
    "crystal-ball-of-true-seeing", "manual-of-golems", "manual-of-golems-clay", "manual-of-golems-flesh",
    "manual-of-golems-iron", "manual-of-golems-stone", "folding-boat", "instant-fortress", "marvelous-pigments",
    "eyes-of-minute-seeing", "eyes-of-the-eagle", "goggles-of-night", "well-of-many-worlds", "chime-of-opening",
    "tome-of-clear-thought", "tome-of-leadership-and-influence", "tome-of-understanding",
    "manual-of-bodily-health", "manual-of-gainful-exercise", "manual-of-quickness-of-action", "sovereign-glue",
    "universal-solvent", "ring-of-water-walking", "ring-of-swimming", "gloves-of-swimming-and-climbing",
    "cloak-of-the-manta-ray", "necklace-of-adaptation", "helm-of-telepathy", "medallion-of-thoughts",
    "amulet-of-proof-against-detection-and-location", "ring-of-mind-shielding", "boots-of-the-winterlands",
}


def _rarity(item: dict) -> str:
    return item["rarity"]["name"].lower().replace(" ", "_")


def convert(srd: Path, equipment: dict, spells: dict) -> dict:
    src = json.loads((srd / "5e-SRD-Magic-Items.json").read_text(encoding="utf-8"))
    by_index = {x["index"]: x for x in src}
    out: dict[str, dict] = {}

    def add(rec: dict) -> None:
        assert rec["key"] not in out, rec["key"]
        out[rec["key"]] = rec

    # mundane equipment and the +1/+2/+3 families
    for k, w in equipment["weapons"].items():
        add({"key": k, "name": w["name"], "kind": "weapon", "rarity": "mundane", "srd": k, "base": k, "bonus": 0})
        for n in (1, 2, 3):
            add({"key": f"{k}-plus-{n}", "name": f"{w['name']}, +{n}", "kind": "weapon",
                 "rarity": RARITY_BY_BONUS["weapon"][n], "srd": f"weapon-{n}", "base": k, "bonus": n})
    for k, a in equipment["armor"].items():
        add({"key": k, "name": a["name"], "kind": "armor", "rarity": "mundane", "srd": k, "base": k, "bonus": 0})
        for n in (1, 2, 3):
            add({"key": f"{k}-plus-{n}", "name": f"{a['name']}, +{n}", "kind": "armor",
                 "rarity": RARITY_BY_BONUS["armor"][n], "srd": f"armor-{n}", "base": k, "bonus": n})
    for t in DAMAGE_TYPES:   # worn over the wearer's own armour: resistance, the same AC
        add({"key": f"armor-of-resistance-{t}", "name": f"Armor of Resistance ({t})", "kind": "armor",
             "rarity": "rare", "srd": "armor-of-resistance", "wear": {"resist": [t]}})
    add({"key": "shield", "name": "Shield", "kind": "shield", "rarity": "mundane", "srd": "shield", "bonus": 0})
    for n in (1, 2, 3):
        add({"key": f"shield-plus-{n}", "name": f"Shield, +{n}", "kind": "shield",
             "rarity": RARITY_BY_BONUS["shield"][n], "srd": "shield-plus", "bonus": n})
    for k, (name, bright, dim) in LIGHT_GEAR.items():   # a light its carrier sheds in a dark battle
        add({"key": k, "name": name, "kind": "gear", "rarity": "mundane", "srd": k, "wear": {"light": [bright, dim]}})
    for ammo, weapons in AMMUNITION.items():
        for n in (1, 2, 3):
            add({"key": f"{ammo}-plus-{n}", "name": f"{ammo.replace('-', ' ').title()}, +{n}", "kind": "ammunition",
                 "rarity": RARITY_BY_BONUS["ammunition"][n], "srd": f"ammunition-{n}", "bonus": n,
                 "weapons": list(weapons)})
    # spell scrolls: one per SRD spell, at the spell's level (cantrips too)
    for sk, sp in spells.items():
        lv = sp["level"]
        dc, atk = SCROLL_DC[lv]
        src_key = "spell-scroll-cantrip" if lv == 0 else f"spell-scroll-{_ordinal(lv)}"
        add({"key": f"spell-scroll-{sk}", "name": f"Spell Scroll ({sp['name']})", "kind": "scroll",
             "rarity": SCROLL_RARITY[lv], "srd": src_key,
             "use": {"kind": "scroll", "spell": sk, "level": lv, "dc": dc, "attack": atk}})
    # the SRD's own entries (families above are skipped: their variants became items)
    families = {"weapon", "weapon-1", "weapon-2", "weapon-3", "armor", "armor-1", "armor-2", "armor-3", "ammunition",
                "ammunition-1", "ammunition-2", "ammunition-3", "armor-of-resistance", "spell-scroll",
                "potion-of-healing", "potion-of-giant-strength", "potion-of-resistance", "ring-of-resistance",
                "dragon-scale-mail", "belt-of-giant-strength", "wand-of-the-war-mage", "ioun-stone"}
    families |= {k for k in by_index if k.startswith("spell-scroll-")}
    for k in sorted(by_index):
        item = by_index[k]
        if k in families:
            continue
        cat = item["equipment_category"]["index"]
        rec: dict = {"key": k, "name": item["name"], "kind": _kind(cat, k), "rarity": _rarity(item), "srd": k}
        if k in HEALING:
            rec["use"] = {"kind": "heal", "dice": HEALING[k]}
        elif k.startswith("potion-of-giant-strength-"):
            rec["use"] = {"kind": "score", "set": {"str": GIANT_STRENGTH[k.rsplit("-", 1)[1]]}}
        elif k.startswith("belt-of-giant-strength-"):
            rec["wear"] = {"score_set": {"str": GIANT_STRENGTH[k.rsplit("-", 1)[1]]}}
        elif k.startswith("potion-of-resistance-"):
            rec["use"] = {"kind": "resist", "types": [k.rsplit("-", 1)[1]]}
        elif k.startswith("ring-of-resistance-"):
            rec["wear"] = {"resist": [k.rsplit("-", 1)[1]]}
        elif k.startswith("dragon-scale-mail-"):
            rec.update(kind="armor", base="scale-mail", bonus=1,
                       wear={"resist": [DRAGON_SCALE[k.rsplit("-", 1)[1]]]})
        elif k.startswith("ioun-stone-of-") and k[len("ioun-stone-of-"):] in IOUN_SCORE:
            rec["wear"] = {"score_plus": {IOUN_SCORE[k[len("ioun-stone-of-"):]]: 2}}
        fact = FACTS.get(k)
        if fact:
            for f, v in fact.items():
                if f == "shield":
                    rec["kind"] = "shield"
                elif f == "base":
                    rec["base"] = v
                    rec["kind"] = "weapon" if v in equipment["weapons"] else "armor"
                    rec.setdefault("bonus", 0)
                else:
                    rec[f] = v
        if "base" in rec and rec["kind"] == "weapon":
            rec.setdefault("bonus", 0)
        if not any(f in rec for f in ("use", "wear", "base", "bonus", "extra", "slaying")):
            rec.setdefault("reason", "outside a battle" if k in OUT_OF_SCOPE else REASONS.get(cat, "not modelled yet"))
        if k in OUT_OF_SCOPE:
            rec["scope"] = "out"
        add(rec)
    return {"items": {k: out[k] for k in sorted(out)}}


def _kind(cat: str, key: str) -> str:
    if cat == "wondrous-items":
        return "wondrous"
    if key.startswith("oil-"):
        return "oil"
    return {"armor": "armor", "weapon": "weapon"}.get(cat, cat)


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def main(argv: list[str] | None = None) -> int:
    here = Path(__file__).parent / "data"
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--srd", type=Path, default=Path("/work/shared/srd/5e-2014"))
    ap.add_argument("--out", type=Path, default=here)
    args = ap.parse_args(argv)
    equipment = json.loads((here / "equipment.json").read_text(encoding="utf-8"))
    spells = json.loads((here / "spells.json").read_text(encoding="utf-8"))
    data = convert(args.srd, equipment, spells)
    lines = ["{", '"items": {']
    rows = [f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in data["items"].items()]
    lines.append(",\n".join(rows))
    lines.append("}}")
    (args.out / "items.json").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(rows)} items to {args.out / 'items.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
