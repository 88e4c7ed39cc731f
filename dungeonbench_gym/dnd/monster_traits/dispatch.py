"""The hook points of the monster traits: what the builders (compiling a monster), the engine (the
battle's set-up, the start and end of a turn, the menu, a target decision, legendary actions,
damage, attacks, movement, a swimmer's speed) and the spells call.

Where several trait families answer one hook, it calls their steps here in a fixed order: the
order of the options offered, of the rolls made and of the events logged, so keep it when adding
a step. A hook only one family answers is that family's own function, imported here (see
``__all__``). Every hook is cheap for a creature without these traits (``resources["ms"]`` empty),
and the engine calls most of them only while ``Battle.specials`` is set (:func:`setup`).
"""

from __future__ import annotations

from ..rules import hooks
from . import (androsphinx, corrosion, duergar, fire_form, flying_sword, gelatinous_cube, gibbering_mouther, golems,
               guardian_naga, hags, harpy, kraken, legendary, phantasms, rakshasa, roper, shield_guardian, swimming,
               tarrasque)
from .common import _ms
from .fire_form import on_step
from .golems import berserk_targets, on_damage
from .legendary import legendary_ok, use_legendary
from .rakshasa import spell_screen
from .shield_guardian import bound_share, guardian_shield
from .swimming import swim_speed
from .tarrasque import carapace_attack, carapace_hits, carapace_target

__all__ = [   # the hooks one family answers, as the engine and the spells call them
    "berserk_targets", "bound_share", "carapace_attack", "carapace_hits", "carapace_target", "guardian_shield",
    "legendary_ok", "on_damage", "on_step", "spell_screen", "swim_speed", "use_legendary",
]


# ================================================================ compiling a monster
# each family's part of a freshly built monster, in this order (the order resources["ms"] is filled in)
_COMPILE = (swimming.compile_traits, golems.compile_traits, corrosion.compile_traits, fire_form.compile_traits,
            hags.compile_traits, duergar.compile_traits, guardian_naga.compile_traits, legendary.compile_traits,
            phantasms.compile_traits, flying_sword.compile_traits, shield_guardian.compile_traits,
            harpy.compile_traits, gibbering_mouther.compile_traits, gelatinous_cube.compile_traits,
            kraken.compile_fling, rakshasa.compile_traits, tarrasque.compile_traits, kraken.compile_freedom,
            roper.compile_traits, androsphinx.compile_traits)


def compile_monster(spec, c):
    """Add what this package runs to a monster combatant built by :func:`..builders.monsters.monster_combatant`."""
    ms: dict = {}
    traits = {t.key for t in spec.traits}
    for step in _COMPILE:
        step(spec, c, ms, traits)
    if ms:
        c.resources["ms"] = ms
    return c


# trait key -> how coverage tells the compiled combatant runs it (merged into coverage._TRAIT_RUN)
TRAIT_RUN = {**golems.TRAIT_RUN, **corrosion.TRAIT_RUN, **fire_form.TRAIT_RUN, **hags.TRAIT_RUN,
             **duergar.TRAIT_RUN, **shield_guardian.TRAIT_RUN, **gibbering_mouther.TRAIT_RUN,
             **gelatinous_cube.TRAIT_RUN, **kraken.TRAIT_RUN, **roper.TRAIT_RUN, **tarrasque.TRAIT_RUN,
             **rakshasa.TRAIT_RUN}
REACTION_RUN = dict(shield_guardian.REACTION_RUN)


def runs(c) -> set:
    """The action keys this package runs for the combatant (for coverage)."""
    out = set(_ms(c).get("actions", ()))
    androsphinx.runs(out)
    return out


# ================================================================ battle set-up and turns
def setup(b) -> bool:
    """Battle start: the shield guardians' amulet wearers; whether any creature needs this package
    at the start or end of turns, in menus or in movement (``Battle.specials``)."""
    any_ms = False
    for c in sorted(b.creatures.values(), key=lambda o: o.cid):
        ms = _ms(c)
        if not ms:
            continue
        any_ms = True
        shield_guardian.setup(b, c, ms)
    return any_ms


def start_turn(b, c) -> None:
    """The start of c's turn: burning, its own traits, the auras of others around it."""
    if fire_form.burn(b, c):   # it fell unconscious
        return
    ms = _ms(c)
    if ms:
        _own_start(b, c, ms)
    gibbering_mouther.clear(c)   # a d8 of its last turn
    for o in sorted(b.creatures.values(), key=lambda o: o.cid):
        if o is c or o.dead or not c.conscious:
            continue
        oms = _ms(o)
        if not oms:
            continue
        hags.aura(b, o, c, oms)   # Horrific Appearance
        gibbering_mouther.aura(b, o, c, oms)   # Gibbering, Aberrant Ground
        harpy.aura(b, o, c, oms)   # a charmed listener walks to the harpy
    harpy.after_auras(c)


def _own_start(b, c, ms) -> None:
    golems.own_start(b, c, ms)   # Berserk
    duergar.own_start(b, c, ms)   # Enlarge's minute is over
    harpy.own_start(b, c, ms)   # an incapacitated harpy stops singing
    flying_sword.own_start(b, c, ms)
    kraken.own_start(b, c, ms)   # Freedom of Movement
    legendary.own_start(b, c, ms)   # a legendary casting cut short
    gelatinous_cube.own_start(b, c, ms)   # acid for everyone inside


def end_turn(b, c) -> None:
    ms = _ms(c)
    harpy.end_turn(b, c, ms)   # a song that was not kept up
    gibbering_mouther.clear(c)
    androsphinx.end_turn(b)   # a second roar's paralysis ends with the fear


# ================================================================ the menu
def menu(b, c, out: list) -> list:
    """Add c's own options before End turn; trim what Berserk, Gibbering or a hovering sword forbid."""
    e = c.economy
    if "gibbering" in c.conditions:   # what the d8 left it: nothing, or one melee attack
        return gibbering_mouther.gibbering_menu(b, c, out)
    ms = _ms(c)
    if ms.get("leg_cast"):   # a legendary action's spell: only spells, then back to the others' turns
        return legendary.leg_cast_menu(c, ms, out)
    extra: list = []
    has_action = e.actions > 0
    if has_action:   # anyone's
        fire_form.douse_option(c, extra)
        gelatinous_cube.escape_options(b, c, extra)   # out of a cube, or pull a friend out
    if ms:
        acts = ms.get("actions", ())
        if has_action:
            golems.action_options(b, c, ms, acts, extra)   # Haste
            corrosion.action_options(b, c, ms, acts, extra)   # Antennae
            hags.action_options(b, c, ms, acts, extra)   # Death Glare, Draining Kiss
            duergar.action_options(b, c, ms, acts, extra)   # Enlarge, Invisibility
            phantasms.action_options(b, c, ms, acts, extra)
            flying_sword.action_options(b, c, ms, acts, extra)   # release the sword
            harpy.action_options(b, c, ms, acts, extra)   # Luring Song
            androsphinx.action_options(b, c, ms, acts, extra)   # Roar
            kraken.action_options(b, c, ms, acts, extra)   # Fling
            gelatinous_cube.action_options(b, c, ms, acts, extra)   # Engulf
        if e.bonus:
            golems.bonus_options(b, c, ms, extra)   # the Haste slam
            harpy.bonus_options(b, c, ms, extra)   # keep singing
            flying_sword.bonus_options(b, c, ms, extra)   # the sword attacks or returns
        out = flying_sword.without_sword(c, ms, out)
    if has_action:
        roper.break_option(b, c, extra)   # anyone a tendril holds
    if ms and "roper" in ms:
        out = roper.roper_menu(b, c, ms, out)
    if extra:
        out = out[:-1] + extra + out[-1:] if out and out[-1].kind == "end_turn" else out + extra
    if "berserk" in c.conditions:
        out = golems.berserk_menu(b, c, out)
    return out


# ================================================================ a monster action's target
# A ("ms", what, ...) target decision: what -> (its options, what picking a creature does), from the
# families' TARGETS
_TARGETS: dict = {}
for _family in (golems, corrosion, hags, flying_sword, kraken, gelatinous_cube, legendary):
    for _what, _entry in _family.TARGETS.items():
        if _what in _TARGETS:
            raise ValueError(f"monster target use {_what!r} is answered twice")
        _TARGETS[_what] = _entry


def target_options(b, c, use) -> list:
    entry = _TARGETS.get(use[1])
    return entry[0](b, c, use) if entry else []


def resolve_target(b, c, use, t) -> None:
    entry = _TARGETS.get(use[1])
    if entry is None:
        b.back_to_menu(c)
        return
    entry[1](b, c, use, t)


# ================================================================ attacks
def after_hit(b, c, t, a, melee: bool) -> None:
    """A hit landed: a corroding target eats the weapon; a corroding, grasping or burning attacker's rider."""
    tms, cms = _ms(t), _ms(c)
    corrosion.after_hit(b, c, t, a, tms, cms)   # Corrosive Form, Rust Metal; a pseudopod on armour
    roper.after_hit(c, t, a, cms)   # a tendril: disadvantage on Str saves
    fire_form.after_hit(b, c, t, a, cms)   # a fire elemental's Touch


# ---- what the package answers in the engine's dispatch (dnd/rules/hooks.py); the families register
# their own option kinds (ms_*) and Limited Magic Immunity's spell screen
hooks.TARGET_USES.register("ms", hooks.TargetUse(target_options, resolve_target))   # a monster's own action
