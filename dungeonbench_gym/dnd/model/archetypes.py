"""The PC archetypes builds start from: ability scores, equipment, fighting style, spells, the
order of Ability Score Improvements and the one SRD subclass of each (our own standard-array builds).

Data read by the PC builder (:mod:`..builders.pcs`) and by mechanics that ask what a build can
use (a scroll's readers, a PC's kit), so it sits below both.
"""

from __future__ import annotations

_WIZ = ("fire-bolt", "ray-of-frost", "shocking-grasp", "chill-touch", "magic-missile",
        "burning-hands", "thunderwave", "sleep", "shield", "mage-armor", "scorching-ray",
        "misty-step", "hold-person", "fireball", "lightning-bolt", "counterspell")

# Standard array builds (15 14 13 12 10 8 plus racial +1s). "asi": the order in which Ability Score
# Improvements raise abilities (+2 each, to 20); "subclass": the one SRD subclass of the class.
ARCHETYPES: dict[str, dict] = {
    "fighter": {
        "class": "fighter", "abilities": {"str": 16, "dex": 12, "con": 15, "int": 10, "wis": 12, "cha": 8},
        "primary": "str", "armor": "chain-mail", "shield": True, "style": "defense",
        "weapons": ("longsword", "javelin"), "potions": 1,
    },
    "fighter_dueling": {
        "class": "fighter", "abilities": {"str": 16, "dex": 12, "con": 15, "int": 10, "wis": 12, "cha": 8},
        "primary": "str", "armor": "chain-mail", "shield": True, "style": "dueling",
        "weapons": ("longsword", "javelin"), "potions": 1,
    },
    "rogue": {
        "class": "rogue", "abilities": {"str": 10, "dex": 16, "con": 14, "int": 12, "wis": 12, "cha": 10},
        "primary": "dex", "armor": "leather-armor", "shield": False, "style": None,
        "weapons": ("shortsword", "dagger", "shortbow"), "potions": 1,   # two light blades
    },
    "wizard": {
        "class": "wizard", "abilities": {"str": 8, "dex": 14, "con": 14, "int": 16, "wis": 12, "cha": 10},
        "primary": "int", "armor": None, "shield": False, "style": None,
        "weapons": ("dagger",), "potions": 1,
        # one spell per mechanism: attack cantrips (Fire Bolt, Ray of Frost, Shocking Grasp, Chill
        # Touch), auto-hit darts, a cone, a cube with a push, an HP pool (Sleep), a reaction
        # (Shield), AC (Mage Armor), rays, a teleport, a held target, a sphere and a line at 5
        "spells": _WIZ + ("mage-hand", "unseen-servant", "water-breathing"),   # (an interact objective,
        # an underwater fight: dnd/spell_utility.py)
    },
    "cleric": {
        "class": "cleric", "abilities": {"str": 14, "dex": 10, "con": 14, "int": 10, "wis": 16, "cha": 12},
        "primary": "wis", "armor": "scale-mail", "shield": True, "style": None,
        "weapons": ("mace",), "potions": 1,
        # Sacred Flame (save cantrip), Guiding Bolt (attack with a rider), heals (Cure Wounds by
        # touch, Healing Word as a bonus action), concentration buffs and debuffs (Bless, Bane,
        # Shield of Faith), Inflict Wounds (melee spell attack), Sanctuary, Hold Person, Spiritual
        # Weapon (a bonus-action attack every turn) and Spirit Guardians (a zone) at 5; Glyph of
        # Warding and Magic Circle at 5 are cast only between fights (dnd/spell_wards.py); Light
        # (a cantrip) only in a dark battle or before one (dnd/lighting.py)
        "spells": ("sacred-flame", "guiding-bolt", "cure-wounds", "healing-word", "bless", "bane",
                   "shield-of-faith", "inflict-wounds", "sanctuary", "hold-person", "spiritual-weapon",
                   "spirit-guardians", "glyph-of-warding", "magic-circle", "light",
                   "water-walk"),   # (at 5, on a map with water: dnd/spell_utility.py)
    },
    "barbarian": {   # Path of the Berserker; Unarmored Defense (no armour, no shield)
        "class": "barbarian", "abilities": {"str": 16, "dex": 14, "con": 15, "int": 8, "wis": 12, "cha": 10},
        "primary": "str", "asi": ("str", "con", "dex"), "armor": None, "shield": False, "style": None,
        "weapons": ("greataxe", "handaxe"), "potions": 1, "subclass": "berserker",
    },
    "paladin": {   # Oath of Devotion
        "class": "paladin", "abilities": {"str": 16, "dex": 10, "con": 14, "int": 8, "wis": 12, "cha": 15},
        "primary": "str", "asi": ("str", "cha", "con"), "armor": "chain-mail", "shield": True,
        "style": "defense", "weapons": ("longsword", "javelin"), "potions": 1, "subclass": "devotion",
        "spells": ("bless", "cure-wounds", "shield-of-faith"),
    },
    "monk": {   # Way of the Open Hand; Unarmored Defense and Martial Arts (unarmed strikes)
        "class": "monk", "abilities": {"str": 10, "dex": 16, "con": 14, "int": 10, "wis": 15, "cha": 8},
        "primary": "dex", "asi": ("dex", "wis", "con"), "armor": None, "shield": False, "style": None,
        "weapons": ("shortsword", "dart"), "potions": 1, "subclass": "open-hand",
    },
    "bard": {   # College of Lore
        "class": "bard", "abilities": {"str": 8, "dex": 14, "con": 14, "int": 10, "wis": 12, "cha": 16},
        "primary": "cha", "asi": ("cha", "dex", "con"), "armor": "leather-armor", "shield": False,
        "style": None, "weapons": ("rapier", "dagger"), "potions": 1, "subclass": "lore",
        "spells": ("healing-word", "cure-wounds", "sleep", "thunderwave", "bane", "hold-person",
                   "plant-growth",   # (offered only where the map has plants: dnd/spell_plants.py)
                   "mage-hand", "unseen-servant"),   # (an interact objective: dnd/spell_utility.py)
    },
    "sorcerer": {   # Draconic Bloodline (red: fire)
        "class": "sorcerer", "abilities": {"str": 8, "dex": 14, "con": 14, "int": 10, "wis": 12, "cha": 16},
        "primary": "cha", "asi": ("cha", "dex", "con"), "armor": None, "shield": False, "style": None,
        "weapons": ("dagger",), "potions": 1, "subclass": "draconic",
        "spells": _WIZ + ("mage-hand", "water-breathing", "water-walk"),   # (dnd/spell_utility.py)
    },
    "warlock": {   # The Fiend; Pact of the Blade is not played: Agonizing Blast is the invocation that matters
        "class": "warlock", "abilities": {"str": 8, "dex": 14, "con": 14, "int": 10, "wis": 12, "cha": 16},
        "primary": "cha", "asi": ("cha", "dex", "con"), "armor": "leather-armor", "shield": False,
        "style": None, "weapons": ("dagger",), "potions": 1, "subclass": "fiend",
        "spells": ("eldritch-blast", "chill-touch", "burning-hands", "scorching-ray", "misty-step",
                   "hold-person", "fireball"),
    },
    "ranger": {   # Hunter (Colossus Slayer); Archery style
        "class": "ranger", "abilities": {"str": 12, "dex": 16, "con": 14, "int": 10, "wis": 14, "cha": 8},
        "primary": "dex", "asi": ("dex", "wis", "con"), "armor": "leather-armor", "shield": False,
        "style": "archery", "weapons": ("longbow", "shortsword"), "potions": 1, "subclass": "hunter",
        "spells": ("cure-wounds", "plant-growth", "tree-stride",   # (at 9 and 17; need plants, trees)
                   "water-walk", "water-breathing"),   # (at 9: dnd/spell_utility.py)
    },
    "druid": {   # Circle of the Land
        "class": "druid", "abilities": {"str": 10, "dex": 14, "con": 14, "int": 12, "wis": 16, "cha": 8},
        "primary": "wis", "asi": ("wis", "con", "dex"), "armor": "leather-armor", "shield": True,
        "style": None, "weapons": ("scimitar",), "potions": 1, "subclass": "land",
        "spells": ("healing-word", "cure-wounds", "thunderwave", "hold-person",
                   "plant-growth", "tree-stride", "transport-via-plants",   # (need plants, trees)
                   "water-walk", "water-breathing"),   # (water, an underwater fight: dnd/spell_utility.py)
    },
    # multiclass builds: "classes" gives (class, levels) in the order taken; the level asked for is
    # split by :func:`class_levels` (the first class takes what the others leave)
    "paladin_sorcerer": {
        "class": "paladin", "classes": (("paladin", 2), ("sorcerer", 3), ("paladin", 6), ("sorcerer", 14)),
        "abilities": {"str": 16, "dex": 10, "con": 14, "int": 8, "wis": 10, "cha": 15},
        "primary": "cha", "asi": ("cha", "str", "con"), "armor": "chain-mail", "shield": True,
        "style": "defense", "weapons": ("longsword", "javelin"), "potions": 1, "subclass": "devotion",
        "spells": ("bless", "cure-wounds", "shield-of-faith", "shield", "magic-missile", "thunderwave",
                   "scorching-ray", "misty-step", "fireball", "fire-bolt", "shocking-grasp"),
    },
    "fighter_rogue": {
        "class": "fighter", "classes": (("fighter", 2), ("rogue", 3), ("fighter", 5), ("rogue", 15)),
        "abilities": {"str": 10, "dex": 16, "con": 14, "int": 12, "wis": 12, "cha": 10},
        "primary": "dex", "asi": ("dex", "con", "wis"), "armor": "studded-leather-armor", "shield": False,
        "style": "archery", "weapons": ("shortsword", "dagger", "shortbow"), "potions": 1,
    },
}
