"""Convert the 5e-database JSON (SRD 5.1) into the engine's compact data: facts, no prose.

    python -m dungeonbench_gym.dnd.content.convert --srd /work/shared/srd/5e-2014 \
        --out dungeonbench_gym/dnd/content/data

Structured fields of the source are used where they exist; where they do not, the numbers are
read out of the stat block text (bonus, reach, range, DC, dice, area sizes, durations). The text
itself is never written. Whatever cannot be turned into an executable record is kept as a name
with ``"executable": false`` and a short reason. Output is deterministic (stable order, stable
formatting), so re-running the converter over the same source gives byte-identical files.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from ..dice import DiceError
from ..dice import parse as parse_dice

ABILITY = {"strength": "str", "dexterity": "dex", "constitution": "con",
           "intelligence": "int", "wisdom": "wis", "charisma": "cha"}
DAMAGE_TYPES = ("acid", "bludgeoning", "cold", "fire", "force", "lightning", "necrotic",
                "piercing", "poison", "psychic", "radiant", "slashing", "thunder")
CONDITIONS = ("blinded", "charmed", "deafened", "frightened", "grappled", "incapacitated",
              "invisible", "paralyzed", "petrified", "poisoned", "restrained", "stunned",
              "unconscious")  # prone is "knocked prone" in stat blocks
SIZES = ("tiny", "small", "medium", "large", "huge", "gargantuan")
# Every SRD creature with legendary actions can take 3 per round; the source JSON omits the count.
LEGENDARY_ACTIONS_PER_ROUND = 3

_FT = r"(?:feet|foot|ft\.?)"
_DT = "|".join(DAMAGE_TYPES)
_DICE = r"\d+d\d+(?:\s*[+\-−]\s*\d+)?"
# "19 (2d10 + 8) piercing damage" or the flat "1 piercing damage"
_DMG = re.compile(rf"(?:(\d+) \(({_DICE})\)|\b(\d+)) ((?:{_DT})(?: or (?:{_DT}))?) damage")
_COND_WORD = re.compile(rf"\b(?:knocked (prone)|fall (unconscious)|({'|'.join(CONDITIONS)}))\b")
_SAVE = re.compile(r"DC (\d+) (Strength|Dexterity|Constitution|Intelligence|Wisdom|Charisma)"
                   r"(?: or (Strength|Dexterity|Constitution|Intelligence|Wisdom|Charisma))? "
                   r"saving throw")


# --------------------------------------------------------------------------- helpers

def slug(name: str) -> str:
    name = re.sub(r"\([^)]*\)", "", name)
    return re.sub(r"[^a-z0-9]+", "-", name.lower().replace("'", "")).strip("-")


def norm_dice(text: str) -> str:
    text = re.sub(r"\s+", "", str(text)).replace("−", "-")
    parse_dice(text)  # raises DiceError on anything the engine could not roll
    return text


def feet(text: str | None) -> int | None:
    if text is None:
        return None
    m = re.match(r"\s*(\d+)", str(text))
    return int(m.group(1)) if m else None


def sentences(text: str) -> list[str]:
    text = re.sub(r"\s+", " ", text.replace("\n", " ")).strip()
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", text) if s]


def damage_list(text: str) -> list[dict]:
    out = []
    for m in _DMG.finditer(text):
        dice = norm_dice(m.group(2) if m.group(2) else m.group(3))
        types = m.group(4).split(" or ")
        entry = {"dice": dice, "type": types[0]}
        if len(types) > 1:
            entry["type_choices"] = types
        out.append(entry)
    return out


def conditions_in(text: str) -> list[str]:
    found = []
    for m in _COND_WORD.finditer(text):
        word = next(g for g in m.groups() if g)
        if word not in found:
            found.append(word)
    return found


def usage_record(usage: dict | None) -> dict | None:
    if not usage:
        return None
    kind = usage.get("type")
    if kind == "recharge on roll":
        return {"type": "recharge", "min_roll": int(usage["min_value"]), "die": usage.get("dice", "1d6")}
    if kind == "per day":
        return {"type": "per_day", "times": int(usage["times"])}
    if kind == "recharge after rest":
        return {"type": "per_rest", "rests": sorted(usage.get("rest_types", []))}
    if kind == "at will":
        return {"type": "at_will"}
    raise ValueError(f"unknown usage type {kind!r}")


def duration_of(text: str) -> dict:
    m = re.search(r"for (\d+) (round|minute|hour|day)s?", text)
    if m:
        n = int(m.group(1))
        return {"rounds": n * {"round": 1, "minute": 10, "hour": 600, "day": 14400}[m.group(2)]}
    m = re.search(r"until the end of (?:the )?([\w' -]+?)(?:'s|s')? next turn", text)
    if m:
        who = m.group(1).lower()
        target = who in ("its", "their", "target", "creature", "target's", "creature's")
        return {"until": "end_of_target_next_turn" if target else "end_of_source_next_turn"}
    return {}


# --------------------------------------------------------------------------- areas and targets

def area_of(text: str) -> dict | None:
    t = re.sub(r"\s+", " ", text)
    m = re.search(rf"(\d+)-foot line that is (\d+) {_FT} wide", t) or \
        re.search(rf"line(?: of [\w ]+?)? that is (\d+) {_FT} long and (\d+) {_FT} wide", t)
    if m:
        return {"shape": "line", "size": int(m.group(1)), "width": int(m.group(2))}
    m = re.search(r"(\d+)-foot cone", t)
    if m:
        return {"shape": "cone", "size": int(m.group(1))}
    m = re.search(r"(\d+)-foot cube", t)
    if m:
        return {"shape": "cube", "size": int(m.group(1))}
    m = re.search(rf"within (\d+) {_FT} of that point", t)
    if m:
        return {"shape": "sphere", "size": int(m.group(1))}
    m = re.search(r"(\d+)-foot[- ]radius(?: sphere)?", t)
    if m:
        # A radius "extends out from"/"around" the creature is centred on it.
        centred = re.search(r"(extends|around|from the|its choice in a)", t)
        return {"shape": "emanation" if centred else "sphere", "size": int(m.group(1))}
    m = re.search(rf"[Ee]ach (?:[\w'-]+ )*?creatures?(?: of (?:the )?[\w' -]+? choice)?"
                  rf"(?: that is)? within (\d+) {_FT}(?: of (?:the|it|him|her|its)\b)?", t)
    if m:
        return {"shape": "emanation", "size": int(m.group(1))}
    if re.search(r"in the [\w' -]+'s space", t):
        return {"shape": "own_space", "size": 0}
    return None


def single_target(text: str) -> dict | None:
    t = re.sub(r"\s+", " ", text)
    m = re.search(r"\b(One creature|creatures) grappled by (?:it|the [\w' -]+)\b", t)
    if m:
        return {"targets": 1 if m.group(1) == "One creature" else None, "target_filter": "grappled_by_self"}
    m = re.search(rf"\b(?:[Oo]ne|a|an) (?:[\w'-]+ )*?(?:creature|humanoid|target)[^.]*? within "
                  rf"(\d+) {_FT}", t)
    if m:
        return {"targets": 1, "range": int(m.group(1))}
    if re.search(r"\btouches\b", t):
        return {"targets": 1, "range": 5}
    return None


# --------------------------------------------------------------------------- save effects

def save_effect(text: str, dc: dict | None = None) -> dict | None:
    """The save part of an effect: ability, DC, damage on a failed save, half on success,
    conditions on a failed save, duration, repeated saves."""
    t = re.sub(r"\s+", " ", text)
    m = _SAVE.search(t)
    if dc:
        ability, value = dc["dc_type"]["index"], int(dc["dc_value"])
        ability_choices = None
    elif m:
        ability, value = ABILITY[m.group(2).lower()], int(m.group(1))
        ability_choices = [ABILITY[m.group(2).lower()], ABILITY[m.group(3).lower()]] if m.group(3) else None
    else:
        return None
    rec: dict = {"ability": ability, "dc": value}
    if ability_choices:
        rec["ability_choices"] = ability_choices
    after = t[m.start():] if m else t
    # Damage rolled for this save: phrases before "on a failed save" or after "or take"/"takes".
    fail = re.search(r"(.*?)on a failed save", after)
    scope = fail.group(1) if fail else after
    failed_clause = re.search(r"On a failed save,([^.]*)\.", after)
    dmg = damage_list(scope.split(". ")[0]) or (damage_list(failed_clause.group(1)) if failed_clause else [])
    if not dmg:
        m2 = re.search(r"On a failure, [^.]*?takes ([^.]*)", after)
        if m2:
            dmg = damage_list(m2.group(1).split(" for every ")[0])
    if dmg:
        rec["damage"] = dmg
    rec["half_on_success"] = bool(re.search(r"half as much damage|takes half the", after))
    cond_scope = after.split(". ")[0] + ". " + (failed_clause.group(1) if failed_clause else "")
    conds = [c for c in conditions_in(cond_scope) if not re.search(rf"isn't {c}|isn't knocked {c}", cond_scope)]
    if conds:
        rec["conditions"] = conds
        rec.update(duration_of(cond_scope + " " + after))
    if re.search(r"repeat the saving throw at the end of each of (?:its|their) turns", t):
        rec["repeat_save"] = "end_of_turn"
    if re.search(r"immune to [\w' ]+ for the next 24 hours", t):
        rec["immune_on_success"] = True
    return rec


# --------------------------------------------------------------------------- attacks

_ATTACK_HEAD = re.compile(
    r"^\s*(Melee or Ranged|Melee|Ranged) (Weapon|Spell) Attack:\s*([+\-]\d+) to hit"
    r"(?: \([^)]*\))?, (.*?)\.\s*Hit:\s*(.*)$", re.DOTALL)

_GRAPPLE = re.compile(r"(?:If the target is (?:a (?P<size>\w+) or smaller creature|a creature|"
               r"(?P<size2>\w+) or smaller)(?:[^,]*)?, )?(?:the target|it|that creature|the creature|"
               r"The target|The creature)? ?(?:is|are) grappled \(escape DC (?P<esc>\d+)\)"
               r"(?P<rest>[^.]*)\.(?: Until (?:this|the) grapple ends, the (?:target|creature) is "
               r"(?P<restr>restrained)[^.]*(?:\.|$))?")


def attack_record(action: dict) -> dict | None:
    desc = re.sub(r"[ \t]+", " ", action["desc"])
    m = _ATTACK_HEAD.match(desc)
    if not m:
        return None
    reach_range, hit = m.group(4), m.group(5)
    kind = {"Melee": "melee", "Ranged": "ranged", "Melee or Ranged": "melee_or_ranged"}[m.group(1)]
    rec: dict = {"kind": "attack", "attack_type": f"{kind}_{m.group(2).lower()}",
                 "bonus": int(m.group(3))}
    if "attack_bonus" in action and int(action["attack_bonus"]) != rec["bonus"]:
        raise ValueError(f"attack bonus mismatch in {action['name']!r}")
    r = re.search(rf"reach (\d+) {_FT}", reach_range)
    if r:
        rec["reach"] = int(r.group(1))
    r = re.search(rf"range (\d+)(?:/(\d+))? {_FT}", reach_range)
    if r:
        rec["range"] = [int(r.group(1)), int(r.group(2) or r.group(1))]
    n = re.search(r"\b(one|two|three) (?:[\w'-]+ )*?(?:target|creature)s?\b", reach_range)
    rec["targets"] = {"one": 1, "two": 2, "three": 3}[n.group(1)] if n else 1
    restriction = re.search(r"(?:one|two|three) (.*)$", reach_range)
    if restriction and restriction.group(1) not in ("target", "creature"):
        rec["target_restriction"] = _restriction(restriction.group(1))
    if "creature" in reach_range and "target" not in reach_range:
        rec["creatures_only"] = True

    first, rest = _split_first_sentence(hit)
    # Damage after "the target must make a ... saving throw" belongs to the save, not the hit.
    cut = re.search(r"(?:,? and )?(?:[Tt]he target|it) must (?:make|succeed)", first)
    save_part = first[cut.start():] if cut else ""
    dmg, alt, leftover = _hit_damage(first[:cut.start()] if cut else first)
    leftover += save_part
    if dmg:
        rec["damage"] = dmg
    if alt:
        rec["alt_damage"] = alt
    riders, unmodelled = _riders(f"{leftover}. {rest}" if leftover.strip(" ,") else rest)
    if riders.get("saves"):
        rec["on_hit_saves"] = riders["saves"]
    if riders.get("grapple"):
        rec["on_hit_grapple"] = riders["grapple"]
    if riders.get("conditions"):
        rec["on_hit_conditions"] = riders["conditions"]
    if riders.get("escape_check"):
        rec["on_hit_escape_check"] = riders["escape_check"]
    if unmodelled:
        rec["partial"] = True
    if not dmg and not riders:
        return {"kind": "attack", "executable": False, "reason": "attack without parsed effect"}
    return rec


def _restriction(text: str) -> dict:
    out: dict = {}
    m = re.search(r"(Tiny|Small|Medium|Large|Huge) or smaller", text)
    if m:
        out["size_max"] = m.group(1).lower()
    if "prone" in text:
        out["condition"] = "prone"
    if "swarm's space" in text:
        out["in_own_space"] = True
    if "willing" in text:
        out["any_of"] = ["willing", "grappled_by_self", "incapacitated", "restrained"]
    elif "not grappled" in text:
        out["not_grappled_by_self"] = True
    elif "grappled by" in text:
        out["grappled_by_self"] = True
    return out


def _split_first_sentence(text: str) -> tuple[str, str]:
    m = re.search(r"\.(\s+|$)", text)
    if not m:
        return text, ""
    return text[:m.start()], text[m.end():]


def _hit_damage(first: str) -> tuple[list[dict], list[dict], str]:
    """Split the first Hit sentence into base damage, alternatives (two-handed, at range, ...)
    and the text left after the last damage phrase."""
    phrases = list(_DMG.finditer(first))
    if not phrases:
        return [], [], first
    groups: list[dict] = [{"when": "", "damage": []}]
    end = phrases[0].start()
    for i, p in enumerate(phrases):
        between = first[end:p.start()]
        if i and re.fullmatch(r",? plus ", between):
            if len(groups) > 1 and groups[-1]["when"]:
                # "..., or X if used with two hands, plus Y": Y adds to every form
                for g in groups:
                    g["damage"].extend(damage_list(p.group(0)))
            else:
                groups[-1]["damage"].extend(damage_list(p.group(0)))
        elif i and re.fullmatch(r",? or |, ", between):
            groups.append({"when": "", "damage": damage_list(p.group(0))})
        elif i:
            break
        else:
            groups[0]["damage"].extend(damage_list(p.group(0)))
        end = p.end()
        tail = re.match(r" (if used with two hands(?: to make a melee attack)?|if wielded with two hands|"
                        r"at range|in melee|while enlarged|with shillelagh|in [\w ]+ form|"
                        r"if the swarm has half of its hit points or fewer)", first[end:])
        if tail:
            groups[-1]["when"] = _when(tail.group(1))
            end += tail.end()
    return groups[0]["damage"], [g for g in groups[1:] if g["damage"]], first[end:]


def _when(text: str) -> str:
    if "two hands" in text:
        return "two_handed"
    if text == "at range":
        return "ranged"
    if text == "in melee":
        return "melee"
    if "swarm" in text:
        return "swarm_half_hp"
    if "enlarged" in text:
        return "enlarged"
    if "shillelagh" in text:
        return "shillelagh"
    return "form:" + slug(text.replace("in ", "").replace(" form", ""))


def _riders(text: str) -> tuple[dict, bool]:
    """Effects after the damage of a hit: saves, grapples, conditions. Returns what was
    modelled and whether text remained that was not."""
    out: dict = {}
    rest = re.sub(r"\s+", " ", text).strip()
    if not rest:
        return out, False
    modelled_spans: list[tuple[int, int]] = []
    g = _GRAPPLE.search(rest)
    if g:
        grapple = {"escape_dc": int(g.group("esc"))}
        size = g.group("size") or g.group("size2")
        if size and size.lower() in SIZES:
            grapple["size_max"] = size.lower()
        if g.group("restr") or re.match(r" and restrained", g.group("rest") or ""):
            grapple["restrained"] = True
        out["grapple"] = grapple
        modelled_spans.append(g.span())
    for s in _save_clauses(rest):
        eff = save_effect(s.group(0))
        if eff and (eff.get("damage") or eff.get("conditions")):
            cond = re.match(r"(?:If the target is (?:a (\w+) or smaller creature|a creature(?: other than "
                            r"(?:an? )?([\w ]+?))?|(\w+) or smaller),)", s.group(0))
            if cond:
                size = cond.group(1) or cond.group(3)
                if size and size.lower() in SIZES:
                    eff["size_max"] = size.lower()
                if cond.group(2):
                    eff["exempt_types"] = [slug(x) for x in re.split(r",? or | and |, ", cond.group(2))]
            if eff.get("conditions") and re.search(
                    r"repeat the saving throw at the end of each of its turns", rest[s.end():]):
                eff["repeat_save"] = "end_of_turn"
            out.setdefault("saves", []).append(eff)
            modelled_spans.append(s.span())
    m = re.search(r"(?:^|\. )(?:The target|The creature) is restrained by webbing\.(?: As an action, the "
                  r"restrained (?:target|creature) can make a DC (\d+) Strength check, [^.]*\.)?", rest)
    if m:
        out["conditions"] = ["restrained"]
        if m.group(1):
            out["escape_check"] = {"ability": "str", "dc": int(m.group(1))}
        modelled_spans.append(m.span())
    m = re.match(r"[,\s]*(?:and )?(?:the target|it) is (?:also )?knocked prone\.", rest)
    if m:
        out["conditions"] = ["prone"]
        modelled_spans.append(m.span())
    leftover = rest
    for a, b in sorted(modelled_spans, reverse=True):
        leftover = leftover[:a] + leftover[b:]
    leftover = re.sub(r"^[,.\s]*(and )?", "", leftover)
    leftover = re.sub(r"The (?:target|creature) can repeat the saving throw at the end of each of its "
                      r"turns, ending the effect on itself on a success\.?", "", leftover).strip(" ,.")
    return out, bool(leftover)


def _save_clauses(text: str):
    # A clause runs from an optional "If the target is ..." through the end of its sentence.
    return re.finditer(r"(?:If the target is [^,]+, )?(?:the target|it|The target|the creature|"
                       r"that creature)? ?must (?:make|succeed on)(?: on)? a DC \d+ \w+ saving throw"
                       r"[^.]*\.(?: On a failed save,[^.]*\.)?", text)


# --------------------------------------------------------------------------- other actions

def save_action_record(action: dict) -> dict | None:
    desc = action["desc"]
    eff = save_effect(desc, action.get("dc"))
    if eff is None:
        return None
    structured = [d for d in action.get("damage") or [] if "damage_dice" in d and "dc" not in d]
    if structured and "damage" not in eff:
        eff["damage"] = [{"dice": norm_dice(d["damage_dice"]), "type": d["damage_type"]["index"]}
                         for d in structured]
    area = area_of(desc)
    target = None if area else single_target(desc)
    rec: dict = {"kind": "save", "save": eff}
    if area:
        rec["area"] = area
        m = re.search(rf"at a point (?:it|he|she|the [\w' -]+) can see within (\d+) {_FT}", desc)
        if m:
            rec["range"] = int(m.group(1))
            if area["shape"] == "emanation":  # centred on the chosen point, not on the creature
                area["shape"] = "sphere"
        if re.search(r"of (?:the [\w' -]+|its|her|his) choice", desc):
            rec["chosen_creatures"] = True
    elif target:
        rec.update(target)
        n = re.search(r"\b(two|three|four) bolts\b", desc)
        if n:
            rec["targets"] = _WORD_NUMBERS[n.group(1)]
    exempt = _exempt_types(desc)
    if exempt:
        rec["exempt_types"] = exempt
    if re.search(r"provided that it has no creature grappled", desc):
        rec["requires_no_grapple"] = True
    m = re.search(r"can then fly up to half its flying speed", desc)
    if m:
        rec["then_move"] = {"mode": "fly", "fraction": 0.5}
    if not (area or target):
        return {"kind": "save", "executable": False, "reason": "save effect without a parsed area or target"}
    if not (eff.get("damage") or eff.get("conditions")):
        return {"kind": "save", "executable": False, "reason": "save effect is not damage or a condition"}
    if _unmodelled_sentences(desc):
        rec["partial"] = True
    return rec


def _exempt_types(desc: str) -> list[str]:
    """Creature types an area effect spares: "that isn't an aberration", "non-undead", "living"."""
    out = []
    m = re.search(r"that isn't an? (\w+)", desc)
    if m:
        out.append(m.group(1).lower())
    m = re.search(r"\bnon-(\w+) creature", desc)
    if m:
        out.append(m.group(1).lower())
    if re.search(r"\bEach living creature\b", desc):
        out += ["construct", "undead"]
    return out


_MODELLED_SENTENCE = [
    re.compile(p) for p in (
        r"exhales|spits|emits|beats its wings|hurls a magical",
        r"saving throw",
        r"repeat the saving throw at the end of each of its turns",
        r"immune to [\w' ]+ for the next 24 hours",
        r"can then fly up to half its flying speed",
        r"^The [\w' -]+ (?:targets|fixes its gaze on) one creature",
        r"^(?:Each|One) [^.]*within \d+",
    )
]


def _unmodelled_sentences(desc: str) -> bool:
    for s in sentences(desc):
        if not any(p.search(s) for p in _MODELLED_SENTENCE):
            return True
        if re.search(r"(?:if|If) the save fails by|\bages\b|drop to 0 hit points|hit point maximum|"
                     r"under the [\w' ]+ control|can't|is swallowed|pushed|pulled|flung|"
                     r"teleport|charmed target", s):
            return True
    return False


def heal_record(action: dict) -> dict | None:
    desc = re.sub(r"\s+", " ", action["desc"])
    m = re.search(rf"regains (\d+) \(({_DICE})\) hit points", desc)
    if not m:
        return None
    rec: dict = {"kind": "heal", "dice": norm_dice(m.group(2))}
    if re.search(r"touches another creature|touches another", desc):
        rec.update({"targets": 1, "range": 5, "self": False})
    else:
        rec.update({"targets": 0, "range": 0, "self": True})
    if re.search(r"freed from|removes all|neutralizes", desc):
        rec["partial"] = True
    return rec


def teleport_record(action: dict) -> dict | None:
    desc = re.sub(r"\s+", " ", action["desc"])
    m = re.search(rf"magically teleports, along with any equipment [^,]+, up to (\d+) {_FT} to an "
                  r"unoccupied space (?:it|he|she) can see", desc)
    if not m:
        return None
    rec = {"kind": "teleport", "distance": int(m.group(1))}
    if len(sentences(desc)) > 1:
        rec["partial"] = True
    return rec


def parry_record(action: dict) -> dict | None:
    m = re.search(r"adds (\d+) to its AC against one melee attack that would hit it", action["desc"])
    if not m:
        return None
    return {"kind": "parry", "ac_bonus": int(m.group(1)), "trigger": "hit_by_melee_attack",
            "requires": ["see_attacker", "wielding_melee_weapon"]}


# --------------------------------------------------------------------------- monsters

class _Names:
    """Resolves an action named in prose or in a multiattack record to an action key."""

    def __init__(self, actions: list[dict]):
        self.by_name: dict[str, str] = {}
        for a in actions:
            k = a["key"]
            for variant in (a["name"], re.sub(r"\s*\([^)]*\)", "", a["name"])):
                v = variant.lower().strip()
                self.by_name.setdefault(v, k)
                self.by_name.setdefault(v.rstrip("s"), k)
                self.by_name.setdefault(v + "s", k)

    def resolve(self, name: str) -> str | None:
        n = re.sub(r"\s*\([^)]*\)", "", name).lower().strip()
        for v in (n, n.rstrip("s"), n + "s", re.sub(r" attack$", "", n)):
            if v in self.by_name:
                return self.by_name[v]
        return None


def _unique_keys(items: list[dict]) -> list[str]:
    keys, seen = [], {}
    for a in items:
        k = slug(a["name"]) or "action"
        if k in seen:
            k = slug(a["name"].replace("(", " ").replace(")", " "))
        seen[k] = True
        keys.append(k)
    return keys


def convert_action(a: dict, key: str) -> dict:
    base: dict = {"key": key, "name": a["name"]}
    usage = usage_record(a.get("usage"))
    if usage:
        base["usage"] = usage
    forms = re.search(r"\((\w+(?: or \w+)?) Form Only\)", a["name"])
    if forms:
        base["forms"] = [slug(f) for f in forms.group(1).split(" or ")]
    desc = a.get("desc", "")
    rec = None
    if "Attack:" in desc and "to hit" in desc:
        rec = attack_record(a)
    if rec is None and "options" in a:
        rec = _choice_record(a)
    if rec is None and "attacks" in a:
        rec = {"kind": "choice", "executable": False, "reason": "sequential effects per use"}
    if rec is None:
        for maker in (heal_record, teleport_record, parry_record):
            rec = maker(a)
            if rec:
                break
    if rec is None and ("saving throw" in desc or a.get("dc")):
        rec = save_action_record(a)
    if rec is None:
        rec = {"kind": "other", "executable": False, "reason": _reason(desc, key)}
    out = {**base, **rec}
    out.setdefault("executable", True)
    return out


def _choice_record(a: dict) -> dict:
    opts = []
    paragraphs = [p.strip() for p in a["desc"].split("\n") if p.strip()]
    for o in a["options"]["from"]["options"]:
        text = next((p for p in paragraphs if p.startswith(o["name"])), "")
        body = text[len(o["name"]):].lstrip(". :")
        sub = convert_action({"name": o["name"], "desc": body, "dc": o.get("dc"),
                              "damage": o.get("damage")}, slug(o["name"]))
        opts.append(sub)
    rec = {"kind": "choice", "options": opts}
    if not any(o["executable"] for o in opts):
        return {"kind": "choice", "executable": False, "reason": "no option is executable"}
    return rec


# Reasons for actions whose prose would mislead the keyword guess below.
_REASONS = {
    "split": "splits into new creatures",
    "shriek": "alarm only, no combat effect",
    "leadership": "ally roll bonus aura (not modelled)",
    "haste": "self buff (not modelled)",
    "enlarge": "self buff (not modelled)",
    "read-thoughts": "no combat effect",
    "illusory-appearance": "no combat effect",
    "flying-sword": "detached weapon (not modelled)",
    "psychic-drain": "targets a creature it has charmed",
    "shimmering-shield": "AC buff (not modelled)",
    "channel-negative-energy": "blocks healing (not modelled)",
    "phantasms": "illusory duplicates (not modelled)",
    "shield": "protects the amulet wearer (not modelled)",
    "intoxicating-touch": "curse (not modelled)",
    "nightmare-haunting": "acts on a sleeping creature",
    "teleport": "long-range teleport, no combat use",
}


def _reason(desc: str, key: str = "") -> str:
    if key in _REASONS:
        return _REASONS[key]
    d = desc.lower()
    for words, reason in (
        (("polymorph",), "shape change"),
        (("ethereal plane",), "plane shift"),
        (("invisible",), "invisibility effect"),
        (("swallow",), "swallow"),
        (("teleport",), "teleport with conditions"),
        (("casts a cantrip", "casts a spell", "spellcasting"), "spell casting (spell engine)"),
        (("calls", "summon", "animate", "rises as"), "summons or animates creatures"),
        (("darkness", "ink", "cloud", "obscured"), "obscuring area"),
        (("wall of",), "creates terrain"),
        (("move", "moves"), "special movement"),
        (("grappled by", "grappling"), "acts on a grappled creature"),
    ):
        if any(w in d for w in words):
            return reason
    return "no executable structure in the stat block"


def convert_monster(m: dict) -> dict:
    actions_src = m.get("actions") or []
    keys = _unique_keys(actions_src)
    names = _Names([{"key": k, "name": a["name"]} for a, k in zip(actions_src, keys)])
    actions = [_multiattack(a, k, names) if "multiattack_type" in a else convert_action(a, k)
               for a, k in zip(actions_src, keys)]
    by_key = {a["key"]: a for a in actions}
    for rec in actions:  # executability of a multiattack needs every other action converted
        if rec["kind"] == "multiattack":
            _finish_multiattack(rec, by_key)

    legendary = []
    for a, k in zip(m.get("legendary_actions") or [], _unique_keys(m.get("legendary_actions") or [])):
        legendary.append(_legendary(a, k, names, by_key))
    reactions = [convert_action(a, k) for a, k in
                 zip(m.get("reactions") or [], _unique_keys(m.get("reactions") or []))]

    traits, spellcasting = [], []
    for a, k in zip(m.get("special_abilities") or [], _unique_keys(m.get("special_abilities") or [])):
        if "spellcasting" in a:
            spellcasting.append(_spellcasting(a, k))
        traits.append(_trait(a, k, names))

    saves, skills = {}, {}
    for p in m["proficiencies"]:
        idx = p["proficiency"]["index"]
        if idx.startswith("saving-throw-"):
            saves[idx.removeprefix("saving-throw-")] = int(p["value"])
        elif idx.startswith("skill-"):
            skills[idx.removeprefix("skill-")] = int(p["value"])

    speed = {k: feet(m["speed"].get(k)) or 0 for k in ("walk", "fly", "swim", "climb", "burrow")}
    speed["hover"] = bool(m["speed"].get("hover", False))
    senses = {}
    for k in ("blindsight", "darkvision", "tremorsense", "truesight"):
        if k in m["senses"]:
            senses[k] = feet(m["senses"][k])
            if "blind beyond" in m["senses"][k]:
                senses[f"{k}_blind_beyond"] = True
    senses["passive_perception"] = int(m["senses"]["passive_perception"])

    rec = {
        "key": m["index"], "name": m["name"], "size": m["size"].lower(), "type": m["type"].lower(),
        "subtype": m.get("subtype"), "alignment": m["alignment"],
        "armor_class": _armor_class(m["armor_class"]),
        "hit_points": int(m["hit_points"]), "hit_dice": norm_dice(m["hit_dice"]),
        "hit_points_roll": norm_dice(m["hit_points_roll"]),
        "speed": speed,
        "abilities": {k: int(m[full]) for full, k in ABILITY.items()},
        "saving_throws": saves, "skills": skills,
        "proficiency_bonus": int(m["proficiency_bonus"]),
        "challenge_rating": m["challenge_rating"], "xp": int(m["xp"]),
        "damage_vulnerabilities": _damage_mods(m["damage_vulnerabilities"]),
        "damage_resistances": _damage_mods(m["damage_resistances"]),
        "damage_immunities": _damage_mods(m["damage_immunities"]),
        "condition_immunities": sorted(c["index"] for c in m["condition_immunities"]),
        "senses": senses,
        "actions": actions,
        "legendary_actions": legendary,
        "legendary_actions_per_round": LEGENDARY_ACTIONS_PER_ROUND if legendary else 0,
        "reactions": reactions,
        "traits": traits,
        "spellcasting": spellcasting,
        "forms": sorted(f["index"] for f in m.get("forms") or []),
    }
    return rec


def _multiattack(src: dict, key: str, names: _Names) -> dict:
    alternatives: list[list[dict]] = []

    def ref(item: dict) -> dict:
        k = names.resolve(item["action_name"])
        count = item.get("count", 1)
        r: dict = {"action": k}
        if not k:
            r["name"] = item["action_name"]
        if item.get("type") in ("melee", "ranged"):
            r["mode"] = item["type"]
        if str(count).isdigit():
            r["count"] = int(count)
        else:  # the Hydra: one bite per head
            r.update(count=None, count_from="heads")
        return r

    def flatten(opt: dict) -> list[dict]:
        if opt.get("option_type") == "multiple":
            return [r for i in opt["items"] for r in flatten(i)]
        return [ref(opt)]

    if src["multiattack_type"] == "actions":
        alternatives.append([ref(i) for i in src["actions"]])
    else:
        for opt in src["action_options"]["from"]["options"]:
            alternatives.append(flatten(opt))
    return {"key": key, "name": src["name"], "kind": "multiattack", "alternatives": alternatives}


def _finish_multiattack(rec: dict, by_key: dict) -> None:
    def executable(ref: dict) -> bool:
        a = by_key.get(ref["action"]) if ref["action"] else None
        return bool(a and a["executable"] and a["kind"] != "multiattack")

    usable = [bool(alt) and all(executable(r) for r in alt) for alt in rec["alternatives"]]
    if not any(usable):
        # No alternative runs in full (the Roper's Reel, the Shambling Mound's Engulf): run the
        # attacks and skip the steps that are not executable yet.
        skipped = set()
        for i, alt in enumerate(rec["alternatives"]):
            if all(r["action"] for r in alt) and any(executable(r) for r in alt):
                usable[i] = True
                skipped.update(r["action"] for r in alt if not executable(r))
        if skipped:
            rec["skipped"] = sorted(skipped)
            rec["partial"] = True
    rec["alternatives_executable"] = usable
    rec["executable"] = any(usable)
    if not rec["executable"]:
        rec["reason"] = "no alternative resolves to executable actions"


def _legendary(a: dict, key: str, names: _Names, by_key: dict) -> dict:
    name = a["name"]
    cost_m = re.search(r"\(Costs (\d+) Actions\)", name)
    cost = int(cost_m.group(1)) if cost_m else 1
    desc = re.sub(r"\s+", " ", a["desc"])
    base = {"key": key, "name": re.sub(r"\s*\(Costs \d+ Actions\)", "", name), "cost": cost}
    m = re.fullmatch(r"The [\w' -]+? makes (?:a|one) (\w+) \((\w+)\) check\.", desc)
    if m:
        return {**base, "kind": "check", "ability": ABILITY[m.group(1).lower()],
                "skill": m.group(2).lower(), "executable": True}
    m = re.fullmatch(r"The [\w' -]+? moves up to (half )?its speed( without provoking opportunity attacks)?\.", desc)
    if m:
        return {**base, "kind": "move", "fraction": 0.5 if m.group(1) else 1.0,
                "provokes_opportunity_attacks": not m.group(2), "executable": True}
    m = re.fullmatch(r"The [\w' -]+? (?:makes (?:a|one) (?:attack with its )?([\w ]+?)(?: attack)?"
                     r"(?: or (?:(?:a |one )?([\w ]+?) attack|uses (?:its )?([\w ]+)))?|uses (?:its )?([\w ]+))\.",
                     desc)
    if m:
        refs = [names.resolve(x) for x in m.groups() if x]
        if m.group(1) and m.group(1).endswith("unarmed strike"):
            refs[0] = names.resolve("unarmed strike")
        refs_ok = [r for r in refs if r and by_key.get(r, {}).get("executable")]
        rec = {**base, "kind": "use_action", "actions": [r for r in refs if r]}
        if refs_ok:
            rec["executable"] = True
        else:
            rec.update(executable=False, reason="refers to a non-executable action")
        return rec
    if re.search(r"casts a (?:cantrip|spell)", desc):
        return {**base, "kind": "cast_spell", "max_level": 0 if "cantrip" in desc else None,
                "executable": False, "reason": "spell casting (spell engine)"}
    rec = convert_action({**a, "name": base["name"]}, key)
    rec["cost"] = cost
    return {"key": key, "name": base["name"], "cost": cost,
            **{k: v for k, v in rec.items() if k not in ("key", "name", "cost")}}


def _trait(a: dict, key: str, names: _Names | None = None) -> dict:
    rec: dict = {"key": key, "name": a["name"]}
    usage = usage_record(a.get("usage"))
    if usage:
        rec["usage"] = usage
    if a.get("dc"):
        rec["save"] = {"ability": a["dc"]["dc_type"]["index"], "dc": int(a["dc"]["dc_value"])}
    dmg = [{"dice": norm_dice(d["damage_dice"]), "type": d["damage_type"]["index"]}
           for d in a.get("damage") or [] if "damage_dice" in d]
    if dmg:
        rec["damage"] = dmg
    params = _trait_params(key, a, names)
    if params:
        rec["params"] = params
    per_turn = re.search(r"\((\d+)/Turn\)", a["name"])
    if per_turn:
        rec["per_turn"] = int(per_turn.group(1))
    return rec


def _trait_params(key: str, a: dict, names: _Names | None = None) -> dict:
    desc = re.sub(r"\s+", " ", a["desc"])
    p: dict = {}
    if key == "regeneration":
        m = re.search(r"regains (\d+) hit points at the start of its turn", desc)
        if m:
            p["hp"] = int(m.group(1))
        m = re.search(r"If the [\w' -]+ takes ([\w ,]+?) damage", desc)
        if m:
            p["disabled_by"] = [t for t in DAMAGE_TYPES if re.search(rf"\b{t}\b", m.group(1))]
        p["requires_hp_above_zero"] = "at least 1 hit point" in desc
    elif key in ("charge", "pounce", "trampling-charge"):
        m = re.search(rf"moves at least (\d+) {_FT} straight toward", desc)
        if m:
            p["min_distance"] = int(m.group(1))
        m = re.search(r"hits it with (?:an? |its )?([\w ]+?)(?: attack)? on the same turn", desc)
        if m:
            p["attack"] = (names.resolve(m.group(1)) if names else None) or slug(m.group(1))
        m = re.search(rf"extra (\d+) \(({_DICE})\) (?:(\w+) )?damage", desc)
        if m:  # an untyped extra ("7 (2d6) damage") takes the attack's damage type
            p["extra_damage"] = [{"dice": norm_dice(m.group(2)),
                                  "type": m.group(3) if m.group(3) in DAMAGE_TYPES else None}]
        m = re.search(rf"pushed up to (\d+) {_FT} away", desc)
        if m:
            p["push"] = int(m.group(1))
        s = _SAVE.search(desc)
        if s:
            p["save"] = {"ability": ABILITY[s.group(2).lower()], "dc": int(s.group(1))}
            if "prone" in desc:
                p["on_fail"] = ["prone"]
        m = re.search(r"make (?:one|another) (?:(\w+) attack|attack with its (\w+)) against it as a "
                      r"bonus action", desc)
        if m:
            name = m.group(1) or m.group(2)
            p["bonus_attack"] = (names.resolve(name) if names else None) or slug(name)
    elif key in ("martial-advantage", "sneak-attack"):
        m = re.search(rf"extra (\d+) \(({_DICE})\) damage", desc)
        if m:
            p["extra_dice"] = norm_dice(m.group(2))
    elif key.startswith("keen-"):
        p["senses"] = [s for s in ("hearing", "sight", "smell") if s in desc]
    elif key == "undead-fortitude":
        m = re.search(r"DC of (\d+) ?\+ ?the damage taken", desc)
        if m:
            p["dc_base"] = int(m.group(1))
        p["except"] = [t for t in DAMAGE_TYPES if re.search(rf"\b{t}\b", desc)] + ["critical_hit"]
    elif key == "relentless":
        m = re.search(r"takes (\d+) damage or less", desc)
        if m:
            p["max_damage"] = int(m.group(1))
    elif key == "legendary-resistance":
        if a.get("usage"):
            p["uses_per_day"] = int(a["usage"]["times"])
    elif key == "multiple-heads":
        m = re.search(r"has (\w+) heads", desc)
        if m:
            p["heads"] = _WORD_NUMBERS[m.group(1)]
    elif key == "rampage":
        m = re.search(r"move up to half its speed and make a (\w+) attack", desc)
        if m:
            p["attack"] = (names.resolve(m.group(1)) if names else None) or slug(m.group(1))
    return p


_WORD_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10}


def _spellcasting(a: dict, key: str) -> dict:
    sc = a["spellcasting"]
    rec: dict = {"key": key, "ability": sc["ability"]["index"]}
    if "dc" in sc:
        rec["dc"] = int(sc["dc"])
    if "modifier" in sc:
        rec["attack_bonus"] = int(sc["modifier"])
    if "level" in sc:
        rec["caster_level"] = int(sc["level"])
    if "school" in sc:
        rec["class"] = sc["school"]
    if "slots" in sc:
        rec["slots"] = {str(k): int(v) for k, v in sorted(sc["slots"].items(), key=lambda kv: int(kv[0]))}
    rec["components_required"] = list(sc.get("components_required", []))
    spells = []
    for s in sc["spells"]:
        entry = {"spell": s["url"].rstrip("/").rsplit("/", 1)[1], "level": int(s["level"])}
        u = usage_record(s.get("usage"))
        if u:
            entry["usage"] = u
        spells.append(entry)
    rec["spells"] = spells
    return rec


def _armor_class(entries: list[dict]) -> dict:
    base = [e for e in entries if e["type"] in ("natural", "dex", "armor")]
    best = max(base, key=lambda e: e["value"])
    rec: dict = {"value": int(best["value"]), "source": base[0]["type"]}
    armor = sorted({a["index"] for e in base for a in e.get("armor", [])})
    if armor:
        rec["armor"] = armor
    alts = []
    for e in entries:
        if e["type"] == "spell":
            alts.append({"value": int(e["value"]), "spell": e["spell"]["index"]})
        elif e["type"] == "condition":
            alts.append({"value": int(e["value"]), "condition": e["condition"]["index"]})
    if alts:
        rec["alternatives"] = alts
    return rec


def _damage_mods(entries: list[str]) -> list[dict]:
    out = []
    for text in entries:
        t = text.lower()
        if t in DAMAGE_TYPES:
            out.append({"type": t})
            continue
        if t == "damage from spells":
            out.append({"type": "all", "from_spells_only": True})
            continue
        head = re.split(r" from ", t, maxsplit=1)
        types = [x for x in DAMAGE_TYPES if re.search(rf"\b{x}\b", head[0])]
        if not types:
            raise ValueError(f"unknown damage modifier {text!r}")
        flags: dict = {}
        if "nonmagical" in t:
            flags["nonmagical_only"] = True
        elif "magic weapons" in t:
            flags["magical_only"] = True
        m = re.search(r"aren't (silvered|adamantine)", t)
        if m:
            flags["except_material"] = m.group(1)
        m = re.search(r"wielded by (\w+) creatures", t)
        if m:
            flags["wielder_alignment"] = m.group(1)
        out.extend({"type": x, **flags} for x in types)
    return out


# --------------------------------------------------------------------------- spells

def convert_spell(s: dict) -> dict:
    rec: dict = {
        "key": s["index"], "name": s["name"], "level": int(s["level"]),
        "school": s["school"]["index"],
        "casting_time": _casting_time(s["casting_time"]),
        "range": _spell_range(s["range"]),
        "components": _components(s),
        "duration": _duration(s["duration"]),
        "concentration": bool(s["concentration"]), "ritual": bool(s["ritual"]),
        "classes": sorted(c["index"] for c in s["classes"]),
        "subclasses": sorted(c["index"] for c in s.get("subclasses", [])),
    }
    if s.get("attack_type"):
        rec["attack_type"] = s["attack_type"]
    if s.get("dc"):
        rec["save"] = {"ability": s["dc"]["dc_type"]["index"], "on_success": s["dc"]["dc_success"]}
    dmg = s.get("damage")
    if dmg:
        d: dict = {}
        if "damage_type" in dmg:
            d["type"] = dmg["damage_type"]["index"]
        for src, dst in (("damage_at_slot_level", "at_slot_level"),
                         ("damage_at_character_level", "at_character_level")):
            if src in dmg:
                d[dst], adds = _dice_table(dmg[src])
                if adds:
                    d["adds_modifier"] = True
        rec["damage"] = d
    if s.get("heal_at_slot_level"):
        rec["heal_at_slot_level"], adds = _dice_table(s["heal_at_slot_level"])
        rec["heal_adds_modifier"] = adds
    if s.get("area_of_effect"):
        rec["area"] = _spell_area(s)
    return rec


def _spell_area(s: dict) -> dict:
    area = {"type": s["area_of_effect"]["type"], "size": int(s["area_of_effect"]["size"])}
    text = " ".join(s.get("desc", []))
    if area["type"] == "line":
        m = re.search(r"(\d+) feet long and (\d+) feet wide", text) or \
            re.search(r"(\d+)-foot-wide", text)
        if m:
            area["width"] = int(m.group(m.lastindex))
    elif area["type"] == "cylinder":
        m = re.search(r"(\d+)[- ]foot[- ](?:high|tall) cylinder", text)
        if m:
            area["height"] = int(m.group(1))
        m = re.search(r"(\d+)[- ]foot[- ]radius", text)
        if m:  # the source gives Flame Strike's height as its size; the radius is what spreads
            area["size"] = int(m.group(1))
    return area


def _dice_table(table: dict) -> tuple[dict, bool]:
    out, adds = {}, False
    for k in sorted(table, key=int):
        v = table[k]
        if "MOD" in v:
            adds = True
            v = re.sub(r"\s*\+\s*MOD", "", v)
        out[str(k)] = norm_dice(v) if v.strip() else "0"
    return out, adds


def _casting_time(text: str) -> dict:
    m = re.fullmatch(r"(\d+) (action|bonus action|reaction|minute|hour)s?", text.strip())
    if not m:
        raise ValueError(f"unknown casting time {text!r}")
    return {"amount": int(m.group(1)), "unit": m.group(2).replace(" ", "_")}


def _spell_range(text: str) -> dict:
    t = text.strip().lower()
    if t in ("self", "touch", "sight", "special", "unlimited"):
        return {"kind": t}
    m = re.fullmatch(r"(\d+) (feet|foot|mile|miles)", t)
    if not m:
        raise ValueError(f"unknown spell range {text!r}")
    n = int(m.group(1))
    return {"kind": "feet", "feet": n * 5280 if m.group(2).startswith("mile") else n}


def _components(s: dict) -> dict:
    comps = s["components"]
    rec: dict = {"v": "V" in comps, "s": "S" in comps, "m": "M" in comps}
    material = s.get("material") or ""
    m = re.search(r"worth (?:at least )?([\d,]+) ?gp", material)
    if m:
        rec["material_cost_gp"] = int(m.group(1).replace(",", ""))
    if re.search(r"consume", material):
        rec["material_consumed"] = True
    return rec


def _duration(text: str) -> dict:
    t = text.strip().lower()
    if t == "instantaneous":
        return {"kind": "instantaneous"}
    if t in ("until dispelled", "special"):
        return {"kind": t.replace(" ", "_")}
    m = re.fullmatch(r"(up to )?(\d+) (round|minute|hour|day)s?", t)
    if not m:
        raise ValueError(f"unknown duration {text!r}")
    n, unit = int(m.group(2)), m.group(3)
    rec = {"kind": unit + "s", "amount": n, "up_to": bool(m.group(1))}
    rec["rounds"] = n * {"round": 1, "minute": 10, "hour": 600, "day": 14400}[unit]
    return rec


# --------------------------------------------------------------------------- equipment

def convert_equipment(equipment: list[dict], magic_items: list[dict]) -> dict:
    weapons, armor, shields = {}, {}, {}
    for e in equipment:
        cat = e["equipment_category"]["index"]
        if cat == "weapon":
            rec: dict = {"key": e["index"], "name": e["name"],
                         "category": e["weapon_category"].lower(),
                         "range_type": e["weapon_range"].lower(),
                         "damage": _weapon_damage(e.get("damage")),
                         "range": [int(e["range"]["normal"]), int(e["range"].get("long") or e["range"]["normal"])],
                         "properties": sorted(p["index"] for p in e.get("properties", [])),
                         "weight": e.get("weight", 0), "cost_gp": _cost_gp(e.get("cost"))}
            if e.get("two_handed_damage"):
                rec["two_handed_damage"] = _weapon_damage(e["two_handed_damage"])
            if e.get("throw_range"):
                rec["throw_range"] = [int(e["throw_range"]["normal"]), int(e["throw_range"]["long"])]
            weapons[e["index"]] = rec
        elif cat == "armor":
            ac = e["armor_class"]
            if e["armor_category"] == "Shield":
                shields[e["index"]] = {"key": e["index"], "name": e["name"], "ac_bonus": int(ac["base"]),
                                       "weight": e.get("weight", 0), "cost_gp": _cost_gp(e.get("cost"))}
                continue
            armor[e["index"]] = {
                "key": e["index"], "name": e["name"], "category": e["armor_category"].lower(),
                "base_ac": int(ac["base"]), "dex_bonus": bool(ac["dex_bonus"]),
                "max_dex_bonus": ac.get("max_bonus"), "str_minimum": int(e.get("str_minimum", 0)),
                "stealth_disadvantage": bool(e.get("stealth_disadvantage")),
                "weight": e.get("weight", 0), "cost_gp": _cost_gp(e.get("cost"))}
    potions = {}
    for item in magic_items:
        if item["index"].startswith("potion-of-healing-"):
            text = " ".join(item["desc"])
            m = re.search(rf"regain ({_DICE}) hit points", text)
            if not m:
                raise ValueError(f"no healing dice in {item['index']}")
            potions[item["index"]] = {"key": item["index"], "name": item["name"],
                                      "rarity": slug(item["rarity"]["name"]).replace("-", "_"),
                                      "heal": norm_dice(m.group(1))}
    return {"weapons": _sorted(weapons), "armor": _sorted(armor), "shields": _sorted(shields),
            "potions": _sorted(potions)}


def _weapon_damage(d: dict | None) -> dict | None:
    if not d:
        return None
    return {"dice": norm_dice(d["damage_dice"]), "type": d["damage_type"]["index"]}


def _cost_gp(cost: dict | None) -> float | None:
    if not cost:
        return None
    factor = {"cp": 0.01, "sp": 0.1, "ep": 0.5, "gp": 1, "pp": 10}[cost["unit"]]
    value = cost["quantity"] * factor
    return int(value) if float(value).is_integer() else round(value, 2)


# --------------------------------------------------------------------------- classes

def convert_classes(classes: list[dict], levels: list[dict], features: list[dict]) -> dict:
    feats = {f["index"]: f for f in features}
    out = {}
    for c in classes:
        key = c["index"]
        rows = sorted((l for l in levels if l.get("class", {}).get("index") == key and "subclass" not in l),
                      key=lambda l: l["level"])
        lv = []
        for l in rows:
            row: dict = {"level": l["level"], "proficiency_bonus": l["prof_bonus"],
                         "ability_score_improvements_total": l.get("ability_score_bonuses", 0),
                         "features": [{"key": f["index"], "name": f["name"]} for f in l["features"]]}
            if l.get("spellcasting"):
                sc = l["spellcasting"]
                row["spellcasting"] = {
                    "cantrips_known": sc.get("cantrips_known", 0),
                    "slots": [sc.get(f"spell_slots_level_{i}", 0) for i in range(1, 10)]}
                if "spells_known" in sc:
                    row["spellcasting"]["spells_known"] = sc["spells_known"]
            row["counters"] = _counters(l.get("class_specific") or {})
            lv.append(row)
        subclasses = {}
        for sc in c.get("subclasses", []):
            srows = sorted((l for l in levels if l.get("subclass", {}).get("index") == sc["index"]),
                           key=lambda l: l["level"])
            subclasses[sc["index"]] = {
                "key": sc["index"], "name": sc["name"],
                "levels": [{"level": l["level"],
                            "features": [{"key": f["index"], "name": f["name"]} for f in l["features"]],
                            **({"counters": _counters(l["subclass_specific"])} if l.get("subclass_specific") else {})}
                           for l in srows]}
        choices = {}
        for f in features:
            if f["class"]["index"] == key and "subclass" not in f:
                opts = (f.get("feature_specific") or {}).get("subfeature_options")
                if opts:
                    choices[f["index"]] = sorted(o["item"]["index"] for o in opts["from"]["options"]
                                                 if "item" in o)
        rec = {"key": key, "name": c["name"], "hit_die": c["hit_die"],
               "saving_throws": [s["index"] for s in c["saving_throws"]],
               "proficiencies": sorted(p["index"] for p in c["proficiencies"]
                                       if not p["index"].startswith("saving-throw-")),
               "spellcasting": ({"ability": c["spellcasting"]["spellcasting_ability"]["index"],
                                 "from_level": c["spellcasting"]["level"]} if c.get("spellcasting") else None),
               "levels": lv, "subclasses": subclasses, "feature_choices": choices}
        out[key] = rec
    missing = {f["key"] for c in out.values() for l in c["levels"] for f in l["features"]} - set(feats)
    if missing:
        raise ValueError(f"class levels name unknown features: {sorted(missing)}")
    return out


def _counters(cs: dict) -> dict:
    out = {}
    for k, v in sorted(cs.items()):
        if isinstance(v, dict) and "dice_count" in v:
            out[k] = f"{v['dice_count']}d{v['dice_value']}"
        elif isinstance(v, list):
            out[k] = {str(x["spell_slot_level"]): x["sorcery_point_cost"] for x in v}
        elif v == 9999:  # the source's "unlimited" (Barbarian rages at level 20)
            out[k] = None
        else:
            out[k] = v
    return out


# --------------------------------------------------------------------------- driver

def _sorted(d: dict) -> dict:
    return {k: d[k] for k in sorted(d)}


def _dump(obj: dict, path: Path) -> None:
    # One top-level entry per line: compact, yet diffs stay readable.
    lines = [json.dumps(k) + ": " + json.dumps(v, separators=(",", ":"), ensure_ascii=False)
             for k, v in obj.items()]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")


def load_srd(srd: Path, name: str):
    return json.loads((srd / f"5e-SRD-{name}.json").read_text(encoding="utf-8"))


def convert(srd: Path, out: Path) -> dict[str, int]:
    out.mkdir(parents=True, exist_ok=True)
    monsters = _sorted({m["index"]: convert_monster(m) for m in load_srd(srd, "Monsters")})
    spells = _sorted({s["index"]: convert_spell(s) for s in load_srd(srd, "Spells")})
    equipment = convert_equipment(load_srd(srd, "Equipment"), load_srd(srd, "Magic-Items"))
    classes = _sorted(convert_classes(load_srd(srd, "Classes"), load_srd(srd, "Levels"),
                                      load_srd(srd, "Features")))
    conditions = _sorted({c["index"]: {"key": c["index"], "name": c["name"]}
                          for c in load_srd(srd, "Conditions")})
    _dump(monsters, out / "monsters.json")
    _dump(spells, out / "spells.json")
    _dump(equipment, out / "equipment.json")
    _dump(classes, out / "classes.json")
    _dump(conditions, out / "conditions.json")
    return {"monsters": len(monsters), "spells": len(spells), "weapons": len(equipment["weapons"]),
            "armor": len(equipment["armor"]), "classes": len(classes), "conditions": len(conditions)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--srd", type=Path, required=True, help="folder of 5e-SRD-*.json (2014)")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "data")
    args = ap.parse_args(argv)
    try:
        counts = convert(args.srd, args.out)
    except (DiceError, ValueError, KeyError) as e:
        print(f"convert: {e}", file=sys.stderr)
        return 1
    print(" ".join(f"{k}={v}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
