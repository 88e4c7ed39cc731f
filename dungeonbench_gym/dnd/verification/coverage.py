"""Coverage tables of the SRD content the engine plays: classes/features, spells, monsters, items.

Each table is a list of rows ``{"key", "name", "status", "reason", ...grouping columns}`` with
``status`` one of :data:`STATUSES`. The classes, spells and items tables come from the
``coverage()`` functions of :mod:`.feature_probes` (a class feature is executable when it has a
probe), :mod:`..spellbook` and :mod:`..items`; the monster table is built here. A monster is *executable* when every part of its stat block (actions, legendary
actions, reactions, traits) is run by the engine or out of scope with a reason; its ``reason``
lists what is missing. ``probe(table, key)`` makes one executable entry happen through the
engine's real decision options and raises AssertionError when it cannot.

    python scripts/dnd_coverage.py          # writes docs/dnd-coverage*.md
    python scripts/dnd_coverage.py --check  # exit 1 if the docs are stale
"""

from __future__ import annotations

import functools
from pathlib import Path

from .. import content, items, lighting, spell_zones, spellbook
from ..builders import pcs
from ..builders.monsters import monster_combatant
from ..builders.pcs import build_pc
from ..content import load_json
from ..dice import Roller
from ..model.archetypes import ARCHETYPES
from ..monster_traits import dispatch as monster_traits
from ..rules import spell_data
from ..state import monster_action
from . import (feature_probes, items_probes, lighting_probes, monster_traits_probes, spell_buffs_probes, spell_probe,
               spell_utility_probes, spell_zones_probes)
from .arena import choose, combatant, duel, play_out

STATUSES = ("executable", "out of scope", "not yet")
TABLES = ("classes", "spells", "monsters", "items")
DOCS = Path("docs")
GROUP_COLUMNS = {"classes": ("class", "level", "kind"), "spells": ("level", "class"), "monsters": ("cr", "type"),
                 "items": ("kind",)}

# trait key -> how to tell the compiled combatant runs it
_TRAIT_RUN = {
    "devils-sight": lambda c: lighting.senses(c)[2] > 0,   # (dnd/lighting.py)
    "antimagic-susceptibility": lambda c: spell_zones.susceptible(c),
    "illumination": lambda c: lighting.carried(c) != (0, 0),   # (lighting)
    "magic-resistance": lambda c: "magic_resistance" in c.features,
    "legendary-resistance": lambda c: "legendary_resistance" in c.resources,
    "pack-tactics": lambda c: "pack_tactics" in c.features,
    "regeneration": lambda c: "regeneration" in c.features,
    "turn-resistance": lambda c: "turn_resistance" in c.features,
    "nimble-escape": lambda c: "nimble_escape" in c.features,
    "flyby": lambda c: "flyby" in c.features,
    "blood-frenzy": lambda c: "blood_frenzy" in c.features,
    "undead-fortitude": lambda c: "undead_fortitude" in c.resources,
    "relentless": lambda c: "relentless" in c.resources,
    "swarm": lambda c: "swarm" in c.features,
    "aggressive": lambda c: "aggressive" in c.features,
    "evasion": lambda c: "evasion" in c.features,
    "gnome-cunning": lambda c: "gnome_cunning" in c.features,
    "reactive": lambda c: "reactive" in c.features,
    "turn-defiance": lambda c: "turn_defiance" in c.features,
    "assassinate": lambda c: "assassinate" in c.features,
    "barbed-hide": lambda c: "barbed_hide" in c.resources,
    "fire-aura": lambda c: "fire_aura" in c.resources,
    "death-throes": lambda c: "death_burst" in c.resources,
    "fear-aura": lambda c: "fear_aura" in c.resources,
    "reckless": lambda c: "reckless" in c.features,
    "rampage": lambda c: "rampage" in c.resources,
    "heated-body": lambda c: "heated_body" in c.resources,
    "sure-footed": lambda c: "sure_footed" in c.features,
    "death-burst": lambda c: "death_burst" in c.resources,
    "stench": lambda c: "stench" in c.resources,
    "petrifying-gaze": lambda c: "gaze" in c.resources,
    "sneak-attack": lambda c: "sneak_attack" in c.features,
    "martial-advantage": lambda c: "martial_advantage" in c.features,
    "cunning-action": lambda c: "cunning_action" in c.features,
    "fire-absorption": lambda c: "fire" in c.resources.get("absorb", ()),
    "lightning-absorption": lambda c: "lightning" in c.resources.get("absorb", ()),
    "invisibility": lambda c: "invisible" in c.conditions,
    "charge": lambda c: "charge" in c.resources,
    "pounce": lambda c: "charge" in c.resources,
    "trampling-charge": lambda c: "charge" in c.resources,
    "magic-weapons": lambda c: all(a.spell for a in c.attacks),
    "angelic-weapons": lambda c: all(a.spell for a in c.attacks),
    "hellish-weapons": lambda c: all(a.spell for a in c.attacks),
    # advantage on saves against named conditions (Battle.saving_throw's ``condition``)
    "dark-devotion": lambda c: {"charmed", "frightened"} <= set(c.resources.get("save_adv_vs", ())),
    "brave": lambda c: "frightened" in c.resources.get("save_adv_vs", ()),
    "two-headed": lambda c: "stunned" in c.resources.get("save_adv_vs", ()),
    "two-heads": lambda c: "stunned" in c.resources.get("save_adv_vs", ()),
    "fey-ancestry": lambda c: "charmed" in c.resources.get("save_adv_vs", ()),
    "incorporeal-movement": lambda c: "incorporeal" in c.features,
    "grappler": lambda c: "grappler" in c.features,
    "air-form": lambda c: "enters_foes" in c.features,
    "water-form": lambda c: "enters_foes" in c.features,
    "freeze": lambda c: "freeze" in c.features,
    "damage-transfer": lambda c: "damage_transfer" in c.features,
    "consume-life": lambda c: "consume_life" in c.resources,
    "divine-eminence": lambda c: "divine_eminence" in c.features,
    "multiple-heads": lambda c: c.resources.get("heads", 0) > 1 and "heads_rule" in c.resources,
    "reactive-heads": lambda c: c.resources.get("oa_extra", 0) > 0,
    "steadfast": lambda c: "frightened" in c.resources.get("ally_ward", {}).get("conditions", ()),
    "tree-stride": lambda c: "tree_stride" in c.features,   # a dryad (dnd/spell_plants.py)
}


# reactions the engine runs besides Parry: what shows in the combatant that it does
_REACTION_RUN = {
    "split": lambda c: "split" in c.features,
    "rock-catching": lambda c: "rock_catching" in c.features,
    "unnerving-mask": lambda c: "unnerving_mask" in c.resources,
}


def _merge_specials() -> None:
    """Traits and reactions run by dnd/monster_traits/."""
    for k, f in monster_traits.TRAIT_RUN.items():
        _TRAIT_RUN.setdefault(k, f)
    for k, f in monster_traits.REACTION_RUN.items():
        _REACTION_RUN.setdefault(k, f)


_merge_specials()


@functools.cache
def _scope() -> dict:
    return load_json("monster_scope")


# ---------------------------------------------------------------- monsters
def monster_parts(key: str) -> list[dict]:
    """Every part of a stat block with its status: {"part", "key", "name", "status", "reason"}."""
    spec, c = content.monster(key), combatant(key)
    scope = _scope()
    runs = {a.key for a in c.attacks} | set(c.save_actions) | set(c.resources.get("teleports", ()))
    runs |= {"invisibility", "invisible-passage"} if "invisibility_action" in c.features else set()
    runs |= {"healing-touch"} if "healing_touch" in c.resources else set()
    runs |= {"engulf"} if "engulf" in c.resources else set()   # a shambling mound (its slams' rider)
    runs |= {"leadership"} if "leadership" in c.features else set()   # a knight
    runs |= {"create-specter"} if "create_specter" in c.resources else set()   # a wraith
    runs |= {"children-of-the-night"} if "children" in c.resources else set()   # a vampire
    runs |= {c.resources["monster_wall"]["action"]} if "monster_wall" in c.resources else set()   # an ice devil
    runs |= monster_traits.runs(c)   # dnd/monster_traits/
    runs |= spell_zones.monster_runs(c)   # Darkness Aura, Ink Cloud (dnd/spell_zones.py)
    legendary = {x[0] for x in c.legendary}
    out = []

    def add(part, a, status, reason=""):
        out.append({"part": part, "key": a.key, "name": a.name, "status": status, "reason": reason})

    for a in spec.actions:
        if a.key in runs or (isinstance(a, content.MultiattackSpec) and c.multiattack):
            add("action", a, "executable")
        elif isinstance(a, content.ChoiceSpec) and any(o.key in runs for o in a.options):
            add("action", a, "executable")
            for o in a.options:
                if o.key not in runs:
                    out.append({"part": "action", "key": o.key, "name": f"{a.name}: {o.name}",
                                "status": "not yet", "reason": o.reason or "not run by the engine yet"})
        elif f"{key}/{a.key}" in scope["actions"]:
            add("action", a, "out of scope", scope["actions"][f"{key}/{a.key}"])
        elif not a.executable and a.reason in scope["action_reasons"]:
            add("action", a, "out of scope", scope["action_reasons"][a.reason])
        else:
            add("action", a, "not yet", a.reason or _why_not(a))
    for a in spec.legendary_actions:
        if a.key in legendary:
            add("legendary", a, "executable")
        elif f"{key}/{a.key}" in scope["legendary"]:
            add("legendary", a, "out of scope", scope["legendary"][f"{key}/{a.key}"])
        elif a.executable and a.kind in scope["legendary_kinds"]:
            add("legendary", a, "out of scope", scope["legendary_kinds"][a.kind])
        else:
            add("legendary", a, "not yet", a.reason or _why_not(a))
    for a in spec.reactions:
        if (isinstance(a, content.ParrySpec) and "parry" in c.features) or (a.key in _REACTION_RUN and _REACTION_RUN[a.key](c)):
            add("reaction", a, "executable")
        elif not a.executable and a.reason in scope["action_reasons"]:
            add("reaction", a, "out of scope", scope["action_reasons"][a.reason])
        else:
            add("reaction", a, "not yet", a.reason or _why_not(a))
    for t in spec.traits:
        run = _TRAIT_RUN.get(t.key)
        if run is not None and run(c):
            add("trait", t, "executable")
        elif t.key in scope["traits"]:
            add("trait", t, "out of scope", scope["traits"][t.key])
        elif t.key in ("spellcasting", "innate-spellcasting"):
            missing = _spells_missing(spec, t.key)
            if missing:
                add("trait", t, "not yet", "spells the engine does not cast yet: " + ", ".join(missing))
            else:
                add("trait", t, "executable")
        else:
            add("trait", t, "not yet", "trait not run by the engine yet")
    return out


@functools.cache
def _spell_status() -> dict:
    return {r["key"]: r["status"] for r in spellbook.coverage()}


def _spells_missing(spec, block_key: str) -> list[str]:
    """The spells of a monster's spellcasting block that are neither cast by the engine nor out
    of scope (the spell table's verdict)."""
    status = _spell_status()
    return [s.spell for b in spec.spellcasting if b.key == block_key for s in b.spells
            if status.get(s.spell, "not yet") == "not yet"]


def _why_not(a) -> str:
    if a.forms:
        return "only in another form"
    if a.usage is not None and a.usage.type not in ("recharge", "per_day"):
        return f"usage {a.usage.type} not run"
    return f"{a.kind} not run by the engine yet"


def monster_coverage() -> list[dict]:
    rows = []
    for key, spec in content.monsters().items():
        parts = monster_parts(key)
        missing = [p for p in parts if p["status"] == "not yet"]
        rows.append({"key": key, "name": spec.name, "cr": _cr(spec.challenge_rating), "type": spec.type,
                     "status": "not yet" if missing else "executable",
                     "reason": "; ".join(f"{p['part']} {p['name']} ({p['reason']})" for p in missing),
                     "parts": len(parts), "run": sum(p["status"] == "executable" for p in parts)})
    return rows


def _cr(cr: float) -> str:
    return {0.125: "1/8", 0.25: "1/4", 0.5: "1/2"}.get(cr, str(int(cr)) if cr == int(cr) else str(cr))


def probe_monster(key: str) -> None:
    """Each action, legendary action and reaction the engine runs for this monster is offered
    in a duel and resolves (an event names it); each run trait is compiled into the combatant."""
    spec = content.monster(key)
    c = combatant(key)
    for p in monster_parts(key):
        if p["status"] != "executable":
            continue
        if monster_traits_probes.probe(key, p):   # a part dnd/monster_traits/ runs: its own probe
            continue
        if p["part"] == "action" and p["key"] in spell_zones.monster_runs(c):   # Darkness Aura, Ink Cloud
            spell_zones_probes.probe_monster(key, p["key"])
            continue
        if p["part"] == "trait" and p["key"] in ("spellcasting", "innate-spellcasting"):
            for sp in {s.spell for b in spec.spellcasting if b.key == p["key"] for s in b.spells} & set(c.spells):
                _probe_spell(key, sp)
        elif p["part"] == "trait" and p["key"] == "consume-life":
            _probe_consume_life(key)
        elif p["part"] == "trait" and p["key"] == "divine-eminence":   # offered and spent as a bonus action
            _probe_turn(key, "divine_eminence", None, "divine_eminence")
        elif p["part"] == "trait":
            assert _TRAIT_RUN[p["key"]](c), f"{key}: trait {p['key']} not compiled"
        elif p["part"] == "reaction" and p["key"] == "split":
            _probe_split(key)
        elif p["part"] == "reaction" and p["key"] == "rock-catching":
            _probe_rock_catching(key)
        elif p["part"] == "reaction" and p["key"] == "unnerving-mask":
            _probe_mask(key)
        elif p["part"] == "reaction":
            _probe_parry(key)
        elif p["part"] == "legendary":
            _probe_legendary(key, p["key"])
        elif isinstance(_action_spec(spec, p["key"]), content.MultiattackSpec):
            _probe_turn(key, "multiattack", None, "attack")
        elif isinstance(_action_spec(spec, p["key"]), content.ChoiceSpec):
            for o in _action_spec(spec, p["key"]).options:
                if o.key in c.save_actions:
                    _probe_turn(key, "save_action", o.key, "save_action")
        elif p["key"] in c.save_actions:
            _probe_turn(key, "save_action", p["key"], "save_action")
        elif p["key"] in ("invisibility", "invisible-passage"):   # an imp; a green hag
            _probe_turn(key, "monster_invisibility", None, "invisibility")
        elif p["key"] == "healing-touch":
            _probe_heal(key)
        elif p["key"] == "children-of-the-night" and "children" in c.resources:
            _probe_children(key)
        elif p["key"] == "create-specter" and "create_specter" in c.resources:
            _probe_create_specter(key)
        elif p["key"] == "leadership" and "leadership" in c.features:
            _probe_turn(key, "leadership", None, "leadership")
        elif p["key"] == "engulf" and "engulf" in c.resources:
            _probe_engulf(key)
        elif p["key"] == c.resources.get("monster_wall", {}).get("action"):   # a wall on the map (spell_walls)
            _probe_turn(key, "monster_wall", None, "wall")
        elif p["key"] in c.resources.get("teleports", ()):
            _probe_turn(key, "monster_teleport", p["key"], "teleport")
        else:
            _probe_turn(key, "attack", p["key"], "attack")


def _action_spec(spec, key):
    return next(a for a in spec.actions if a.key == key)


def _probe_turn(key: str, kind: str, action: str | None, event: str) -> None:
    b, m = duel(key, "m")
    if action and kind == "attack" and ("swallow",) in m.attack(action).on_hit:   # Swallow: a held victim
        foe = b.creatures["a"]
        foe.size = "small"   # small enough for a frog
        foe.conditions["grappled"] = {"by": "m", "dc": 10}
        b.open_menu(m)
    if action and kind == "save_action" and monster_action(m, action).target_filter == "grappled_by_self":
        b.creatures["a"].conditions["grappled"] = {"by": "m", "dc": 10}   # its tentacles need a held victim
        b.open_menu(m)
    choose(b, lambda o: o.kind == kind and (action is None or o.data[0] == action),   # a long menu: its groups
            f"{key}: {kind} {action}")
    play_out(b, "m")
    if kind == "multiattack":   # each step of the sequence is its own attack option
        for _ in range(len(m.multiattack)):
            if b.decision is None or b.decision.actor != "m" or not m.economy.attack_queue:
                break
            j = next(j for j, o in enumerate(b.decision.options) if o.data[1:2] == ("queue",))
            b.choose(j)
            play_out(b, "m")
    done = [e for e in b.log if e.get("event") == event and (e.get("attacker") or e.get("creature")) == "m"]
    if action is not None:
        done = [e for e in done if (e.get("attack") or e.get("action")) == action]
    assert done, f"{key}: {kind} {action} did not resolve"


def _probe_spell(key: str, spell: str) -> None:
    """The monster casts the spell from its block through the spell options, hurt (so healing
    is worth it) and with foes beside it; it must be offered and end in a cast event."""
    if spell_data.mech(spell).get("mech") == "sight":   # Light, Dancing Lights: in a dark duel (dnd/lighting.py)
        lighting_probes.probe_monster_spell(key, spell)
        return
    if spell_data.mech(spell).get("mech") == "utility":   # Water Breathing: in an underwater duel (dnd/spell_utility.py)
        spell_utility_probes.probe_monster_spell(key, spell)
        return
    if spell_data.mech(spell).get("mech") in ("day", "reaction"):   # between fights, Hellish Rebuke, Feather Fall
        spell_buffs_probes.probe_monster_spell(key, spell)
        return
    if content.spell(spell).casting_time == "reaction":
        _probe_reaction_spell(key, spell)
        return
    b, m = duel(key, "m")
    m.hp = max(1, m.max_hp // 2)
    m.conditions.update(poisoned={}, charmed={"by": "a"})   # something for the restoration spells to end
    if spell == "remove-curse":   # a curse to end
        m.conditions["cursed"] = {"by": "a"}
    if spell == "dispel-magic":   # a foe's spell on it to dispel
        m.conditions["baned"] = {"by": "a", "spell": "bane"}
    if spell == "spare-the-dying":   # an ally at 0 HP, dying, beside the caster
        ally = build_pc("fighter", 1, "ally", (2, 2 + m.squares, 0))
        ally.side, ally.hp = "enemies", 0
        ally.conditions["prone"] = {}
        b.creatures["ally"] = ally
        b.order.append("ally")
    b.open_menu(m)
    choose(b, lambda o: o.kind == "spell" and o.data[0] == spell, f"{key}: spell {spell}")
    play_out(b, "m")
    assert any(e.get("event") == "cast" and e.get("spell") == spell and e.get("creature") == "m" for e in b.log), \
        f"{key}: spell {spell} was not cast"


def _probe_heal(key: str) -> None:
    """Healing Touch: a hurt ally beside it is healed through the option and its target."""
    b, m = duel(key, "m")
    ally = combatant(key)
    ally.cid, ally.pos, ally.hp = "ally", (2, 2 + m.squares, 0), 1
    b.creatures["ally"] = ally
    b.order.append("ally")
    b.open_menu(m)
    choose(b, lambda o: o.kind == "monster_heal", f"{key}: healing touch")
    choose(b, lambda o: o.data and o.data[0] == "ally", f"{key}: healing touch target")
    assert ally.hp > 1, f"{key}: healing touch healed nothing"


def _probe_reaction_spell(key: str, spell: str) -> None:
    """Shield: a hit that +5 AC would turn into a miss offers the reaction; it is cast.
    Counterspell: a wizard in sight casts a spell; the monster counters it."""
    if spell == "counterspell":
        _probe_counterspell(key)
        return
    b, m = duel(key, "a")
    f = b.creatures["a"]
    weapon = next(a for a in f.attacks if a.melee)
    m.hp = m.max_hp = 10 ** 6
    for _ in range(400):
        m.economy.reaction = True
        m.conditions.pop("shield", None)
        if b.make_attack(f, weapon, m) is None and b.pending.get("reaction") == spell:
            b.choose(next(i for i, o in enumerate(b.decision.options) if o.data[0] is True))
            assert any(e.get("event") == "cast" and e.get("spell") == spell for e in b.log)
            return
        b.pending = {"kind": "action", "actor": "a"}
        b.forget_options()
    raise AssertionError(f"{key}: reaction spell {spell} never offered")


def _probe_rock_catching(key: str) -> None:
    """Rock Catching: a hill giant on the other side throws rocks until one hits; the reaction comes."""
    b, m = duel(key, "a")
    g = monster_combatant("hill-giant", "g", "party", (10, 8, 0))
    b.creatures["g"] = g
    m.hp = m.max_hp = 10 ** 6
    for _ in range(100):
        m.economy.reaction = True
        b.make_attack(g, g.attack("rock"), m, melee=False)
        if any(e.get("event") == "rock_catching" for e in b.log):
            return
    raise AssertionError(f"{key}: rock catching never came")


def _probe_consume_life(key: str) -> None:
    """Consume Life: the fighter beside it is dying; the bonus action is offered and resolves."""
    b, m = duel(key, "m")
    f = b.creatures["a"]
    f.hp = 0
    f.conditions["unconscious"] = {}
    b.open_menu(m)
    choose(b, lambda o: o.kind == "consume_life", f"{key}: consume life")
    assert any(e.get("event") == "consume_life" for e in b.log)


def _probe_children(key: str) -> None:
    """Children of the Night: called, then on a later turn of the caller they arrive on its side."""
    b, m = duel(key, "m")
    choose(b, lambda o: o.kind == "children_of_the_night", f"{key}: children of the night")
    for _ in range(5):
        b.round += 1
        b.start_turn(m)
    came = [e["creature"] for e in b.log if e.get("event") == "summon" and e.get("by") == "m"]
    assert came and all(b.creatures[x].side == m.side for x in came), f"{key}: nobody came"


def _probe_create_specter(key: str) -> None:
    """Create Specter: the fighter beside it has just died; its spirit rises on the wraith's side."""
    b, m = duel(key, "m")
    b.die(b.creatures["a"], "probe")
    b.open_menu(m)
    choose(b, lambda o: o.kind == "create_specter", f"{key}: create specter")
    new = [e["new"] for e in b.log if e.get("event") == "create_specter"]
    assert new and b.creatures[new[0]].side == m.side and b.creatures[new[0]].monster == "specter"


def _probe_mask(key: str) -> None:
    """Unnerving Mask: the fighter's turn starts beside the devil; the reaction comes."""
    b, _ = duel(key, "a")
    assert any(e.get("event") == "unnerving_mask" and e.get("creature") == "m" for e in b.log), \
        f"{key}: unnerving mask never came"


def _probe_engulf(key: str) -> None:
    """Engulf: multiattacks until both slams of one turn hit the fighter; it is engulfed."""
    for seed in range(1, 41):   # seeded, so repeatable
        b, m = duel(key, "m")
        b.creatures["a"].hp = 10 ** 6
        b.roller = Roller(seed, log=b.log)
        choose(b, lambda o: o.kind == "multiattack", f"{key}: multiattack")
        while b.decision.actor == "m" and m.economy.attack_queue:
            choose(b, lambda o: o.data[1:2] == ("queue",), f"{key}: a multiattack step")
            choose(b, lambda o: o.kind == "target" and o.data[0] == "a", f"{key}: the fighter")
        if any(e.get("event") == "engulf" for e in b.log):
            assert b.creatures["a"].conditions["engulfed"]["by"] == "m"
            return
    raise AssertionError(f"{key}: never engulfed")


def _probe_counterspell(key: str) -> None:
    b, m = duel(key, "a")
    w = build_pc("wizard", 5, "w", (2 + m.squares + 2, 6, 0))
    b.creatures["w"] = w
    b.order = ["w"] + list(b.order)
    b.round, b.turn_index, b.outcome = 0, -1, None
    b.next_turn()
    choose(b, lambda o: o.kind == "spell", f"{key}: a wizard's spell to counter")
    d = b.decision
    assert d.kind == "reaction" and d.actor == "m", f"{key}: counterspell not offered: {d.kind} {d.actor}"
    b.choose(next(i for i, o in enumerate(d.options) if o.data[0] is True))
    assert any(e.get("event") == "cast" and "counterspell" in e.get("text", "") and e["text"].startswith("m ")
               for e in b.log), f"{key}: counterspell was not cast"


def _probe_legendary(key: str, action: str) -> None:
    b, m = duel(key, "a")
    if m.hp == m.max_hp:
        m.hp = m.max_hp // 2   # healing legendary actions need a hurt monster
    b.choose(next(i for i, o in enumerate(b.decision.options) if o.kind == "end_turn"))
    assert b.decision.kind == "legendary", f"{key}: no legendary decision"
    i = next((i for i, o in enumerate(b.decision.options) if o.kind == "legendary" and o.data[0] == action), None)
    assert i is not None, f"{key}: legendary {action} not offered: {[o.label for o in b.decision.options]}"
    b.choose(i)
    play_out(b, "m")
    assert any(e.get("event") == "legendary" and e.get("action") == action for e in b.log), \
        f"{key}: legendary {action} did not resolve"


def _probe_parry(key: str) -> None:
    """Parry: a melee hit inside the +AC window gets the reaction decision, and taking it can turn
    the hit into a miss. Attacks are rolled until one lands in the window (seeded, so repeatable)."""
    b, m = duel(key, "a")
    f = b.creatures["a"]
    weapon = next(a for a in f.attacks if a.melee)
    m.hp = m.max_hp = 10 ** 6   # survives every test swing
    for _ in range(400):
        m.economy.reaction = True
        if b.make_attack(f, weapon, m) is None:
            assert b.decision.kind == "reaction" and b.decision.actor == "m"
            b.choose(next(i for i, o in enumerate(b.decision.options) if o.data[0] is True))
            assert any(e.get("event") == "reaction" and "parries" in e.get("text", "") for e in b.log)
            return
    raise AssertionError(f"{key}: parry never offered")


def _probe_split(key: str) -> None:
    """Split: the fighter's slashing weapon hits it until one hit lands; then there are two."""
    b, m = duel(key, "a")
    f = b.creatures["a"]
    weapon = next(a for a in f.attacks if a.melee and any(d.type == "slashing" for d in a.damage))
    for _ in range(100):
        if b.make_attack(f, weapon, m):
            break
    twins = [e["new"] for e in b.log if e.get("event") == "split" and e.get("creature") == "m"]
    assert twins and b.creatures[twins[0]].hp == m.hp == m.max_hp, f"{key}: no split"


# ---------------------------------------------------------------- all tables
def table(name: str) -> tuple[list[dict] | None, str]:
    """(rows, note): the rows of a table (the note is for a table that cannot be built)."""
    if name == "monsters":
        return monster_coverage(), ""
    rows = {"classes": feature_probes.coverage, "spells": spellbook.coverage, "items": items.coverage}[name]()
    return list(rows), ""


def probe(name: str, key: str) -> None:
    """Make the executable row ``key`` of table ``name`` happen; AssertionError if it cannot."""
    {"classes": feature_probes.probe, "spells": spell_probe.run_probe, "items": items_probes.probe,
     "monsters": probe_monster}[name](key)


def combatants(monster_rows: list[dict]) -> dict:
    """Combatants the benchmark can field: executable monsters plus PC archetype x level builds."""
    archetypes = sorted(ARCHETYPES)
    levels = pcs.MAX_LEVEL
    builds = 0
    for arch in archetypes:
        for lv in range(1, levels + 1):
            try:
                pcs.build_pc(arch, lv, "x", (0, 0, 0))
            except (ValueError, KeyError):
                continue
            builds += 1
    mons = sum(r["status"] == "executable" for r in monster_rows)
    return {"monsters": mons, "pc_builds": builds, "archetypes": len(archetypes), "total": mons + builds}


def counts(rows: list[dict]) -> dict:
    return {s: sum(r["status"] == s for r in rows) for s in STATUSES} | {"total": len(rows)}


def render_summary(tables: dict, notes: dict, combat: dict) -> str:
    out = ["# D&D coverage", "",
           "Generated by `python scripts/dnd_coverage.py` (do not edit by hand). Every *executable* row",
           "is probed by `tests/test_dnd_coverage.py`: the entry happens through the engine's decision",
           "options in a small battle. *Out of scope* rows have no effect in the engine's battles (the",
           "reason says why); *not yet* rows are what is left to do. These tables say what the engine",
           "runs; [dnd-rules.md](dnd-rules.md) says how it holds to the SRD's combat rules, rule by rule",
           "(each with its test, or the reason it is simplified or not modelled).", "",
           "| Table | Executable | Out of scope | Not yet | Total | Details |", "|---|---|---|---|---|---|"]
    for name in TABLES:
        rows = tables.get(name)
        if rows is None:
            out.append(f"| {name} | - | - | - | - | missing: {notes[name]} |")
            continue
        n = counts(rows)
        out.append(f"| {name} | {n['executable']} | {n['out of scope']} | {n['not yet']} | {n['total']} | "
                   f"[dnd-coverage-{name}.md](dnd-coverage-{name}.md) |")
    out += ["", (f"Combatants: {combat['total']} = {combat['monsters']} executable monsters + "
                 f"{combat['pc_builds']} PC builds ({combat['archetypes']} archetypes x levels)."), ""]
    return "\n".join(out)


def render_table(name: str, rows: list[dict]) -> str:
    cols = [c for c in GROUP_COLUMNS.get(name, ()) if any(c in r for r in rows)]
    n = counts(rows)
    out = [f"# D&D coverage: {name}", "",
           (f"Generated by `python scripts/dnd_coverage.py`. {n['executable']} executable, "
            f"{n['out of scope']} out of scope, {n['not yet']} not yet, of {n['total']}. "
            "The combat rules they run under, rule by rule: [dnd-rules.md](dnd-rules.md)."), ""]
    if name == "monsters":
        out += ["A monster is executable when every action, legendary action, reaction and trait of its",
                "stat block is run by the engine or out of scope (`dnd/content/data/monster_scope.json`",
                "gives the reasons); *Missing* lists the rest. *Parts run* counts the parts the engine runs.", ""]
    head = ["Key", "Name", *[c.capitalize() for c in cols], "Status"]
    head += ["Parts run", "Missing"] if name == "monsters" else ["Reason"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for r in rows:
        cells = [r["key"], r["name"], *[_cell(r.get(c, "")) for c in cols], r["status"]]
        if name == "monsters":
            cells += [f"{r['run']}/{r['parts']}", r["reason"]]
        else:
            cells.append(r.get("reason", ""))
        out.append("| " + " | ".join(_cell(x) for x in cells) + " |")
    return "\n".join(out) + "\n"


def _cell(v) -> str:
    if isinstance(v, (list, tuple, set, frozenset)):
        v = ", ".join(str(x) for x in sorted(v))
    return str(v).replace("|", "/").replace("\n", " ")


def documents() -> dict[str, str]:
    """File name -> Markdown text of every coverage document."""
    tables, notes = {}, {}
    for name in TABLES:
        tables[name], notes[name] = table(name)
    docs = {"dnd-coverage.md": render_summary(tables, notes, combatants(tables["monsters"]))}
    for name, rows in tables.items():
        if rows is not None:
            docs[f"dnd-coverage-{name}.md"] = render_table(name, rows)
    return docs


def write(docs_dir: Path = DOCS) -> list[Path]:
    docs_dir.mkdir(parents=True, exist_ok=True)
    out = []
    for fname, text in documents().items():
        path = docs_dir / fname
        path.write_text(text, encoding="utf-8")
        out.append(path)
    return out


def stale(docs_dir: Path = DOCS) -> list[str]:
    """The coverage documents whose file differs from what the generator writes now."""
    return [f for f, text in documents().items()
            if not (docs_dir / f).exists() or (docs_dir / f).read_text(encoding="utf-8") != text]
