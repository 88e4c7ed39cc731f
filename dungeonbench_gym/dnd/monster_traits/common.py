"""Helpers several monster-trait families share: a combatant's parameters of this package
(``resources["ms"]``), the size order, an attack's targets, who sees whom, and the option handler
of an action that picks a creature next."""

from __future__ import annotations

SIZE_ORDER = ("tiny", "small", "medium", "large", "huge", "gargantuan")


def _ms(c) -> dict:
    return c.resources.get("ms") or {}


def _targets(b, c, attack_key: str) -> list:
    try:
        a = c.attack(attack_key)
    except KeyError:
        return []
    return b.targets_for_attack(c, a)


def _sees(b, a, o) -> bool:
    return "blinded" not in a.conditions and "invisible" not in o.conditions \
        and b.map.can_see(a.cells, o.cells, viewer_z=a.pos[2], target_z=o.pos[2])


def ask_target(b, c, p, opt) -> None:
    """An action that picks a creature next: a ``("ms", <its kind without "ms_">)`` target decision
    (:func:`.dispatch.target_options`)."""
    b.pending = {"kind": "target", "actor": c.cid, "use": ("ms", opt.kind[3:])}


def as_action(rule):
    """The resolve step of an action that picks a creature (a module's ``TARGETS`` entry): spend
    the action, apply ``rule(battle, creature, target)``, back to the menu."""
    def resolve(b, c, use, t) -> None:
        c.economy.actions -= 1
        rule(b, c, t)
        b.back_to_menu(c)
    return resolve
