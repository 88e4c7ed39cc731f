"""The spells the engine resolves itself, by name, rather than through the spellbook's mechanisms.

Read by the engine's casting code, the planner, the Day track and two mechanics; kept below all
of them so none has to import the engine for it. (Issue 17's step 3 turns these into rows of
the spell data like the others.)
"""

# buffs: spell -> the condition it puts on a willing target (ends with concentration if any)
BUFFS = {"shield-of-faith": "shield_of_faith", "bless": "blessed", "mage-armor": "mage_armor",
         "sanctuary": "sanctuary"}
# hostile save spells without damage: spell -> the condition on a failed save
DEBUFFS = {"bane": "baned", "hold-person": "paralyzed"}
# spells with several targets, each its own decision: spell -> targets at its base level (+1 per level)
MULTI = {"bless": 3, "bane": 3, "hold-person": 1}
# spell attack riders on a hit
SPELL_RIDERS = {"guiding-bolt": (("mark", "guided"),), "ray-of-frost": (("mark", "slowed"),),
                "chill-touch": (("mark", "chilled", "no_heal"),), "shocking-grasp": (("mark", "no_reactions"),)}
SUMMARIES = {
    "shield-of-faith": lambda c, lv: "+2 AC, concentration",
    "bless": lambda c, lv: f"{3 + lv - 1} allies +1d4 to attacks and saves, concentration",
    "bane": lambda c, lv: f"{3 + lv - 1} foes, DC {c.resources['spell_dc']} CHA or -1d4, concentration",
    "hold-person": lambda c, lv: f"{lv - 1} humanoids, DC {c.resources['spell_dc']} WIS or paralyzed, concentration",
    "mage-armor": lambda c, lv: "AC 13 + Dex without armour",
    "sanctuary": lambda c, lv: f"attackers of the ward must pass DC {c.resources['spell_dc']} WIS",
    "misty-step": lambda c, lv: "teleport 30 ft",
    "spirit-guardians": lambda c, lv: f"15-ft zone, DC {c.resources['spell_dc']} WIS, {lv}d8 radiant, concentration",
    "sleep": lambda c, lv: f"{5 + 2 * (lv - 1)}d8 HP of creatures fall asleep, 20-ft sphere",
    "scorching-ray": lambda c, lv: f"{lv + 1} rays, {c.resources['spell_attack']:+d}, 2d6 fire each",
    "spiritual-weapon": lambda c, lv: f"{c.resources['spell_attack']:+d}, {lv // 2}d8+{c.resources['spell_mod']} force, "
                                      "then a bonus-action attack each turn",
}
GUARDIANS_FT = 15
TURN_UNDEAD_FT = 30
