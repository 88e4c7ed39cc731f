"""**Duergar**: Duergar Resilience (advantage on saves against poison, being charmed or paralyzed,
and spells: simplified as every magical save); Enlarge (1 minute: Large where there is room, the
enlarged war pick, advantage on Str saves; once per battle); Invisibility (until it attacks or uses
Enlarge, concentration; once per battle)."""

from __future__ import annotations

from .. import content
from ..grid import footprint
from ..model.options import Opt
from ..rules import hooks, spell_data
from ..state import DamagePart
from .common import _ms


def compile_traits(spec, c, ms, traits) -> None:
    if spec.key == "duergar":
        c.resources["save_adv_vs"] = sorted(set(c.resources.get("save_adv_vs", ())) | {"charmed", "paralyzed", "poisoned"})
        ms["resilience"] = True
        ms.setdefault("actions", []).extend(["enlarge", "invisibility"])
        c.resources["uses:enlarge"] = c.resources["uses:invisibility"] = 1


TRAIT_RUN = {"duergar-resilience": lambda c: "resilience" in _ms(c)}


def own_start(b, c, ms) -> None:
    if ms.get("enlarged") and "enlarged" not in c.conditions:   # Enlarge's minute is over
        _shrink(b, c)


def action_options(b, c, ms, acts, extra: list) -> None:
    if "enlarge" in acts and c.resources.get("uses:enlarge", 0) > 0:
        extra.append(Opt("Enlarge (1 minute: Large, war pick 2d8+2, advantage on Str saves)", "ms_enlarge"))
    if "invisibility" in acts and c.resources.get("uses:invisibility", 0) > 0 \
            and "invisible" not in c.conditions:
        extra.append(Opt("Invisibility (until it attacks or uses Enlarge; concentration)", "ms_invisibility"))


@hooks.OPTION_KINDS.handles("ms_enlarge")
def _enlarge_action(b, c, p, opt) -> None:
    c.economy.actions -= 1
    c.resources["uses:enlarge"] -= 1
    _enlarge(b, c)
    b.back_to_menu(c)


@hooks.OPTION_KINDS.handles("ms_invisibility")
def _invisibility(b, c, p, opt) -> None:
    c.economy.actions -= 1
    c.resources["uses:invisibility"] -= 1
    spell_data.turn_invisible(b, c)
    b.back_to_menu(c)


def _enlarge(b, c) -> None:
    ms = _ms(c)
    if c.conditions.get("invisible", {}).get("spell") == "invisibility" and c.concentration == "invisibility":
        b.end_concentration(c)   # Invisibility ends when it uses Enlarge
    taken = {cell for o in b.creatures.values() if not o.dead and o is not c for cell in o.cells}
    if b.map.fits(c.pos[0], c.pos[1], 2) and not set(footprint(c.pos[0], c.pos[1], 2)) & taken:
        ms["small_size"], c.size = c.size, "large"
    spec = content.monster(c.monster)
    ms["base_attacks"] = c.attacks
    alt = {a.key: damage for a in spec.actions if getattr(a, "alt_damage", None)
           for when, damage in a.alt_damage if when == "enlarged"}
    c.attacks = tuple(x._replace(damage=tuple(DamagePart(d.dice, d.type) for d in alt[x.key])) if x.key in alt else x
                      for x in c.attacks)
    ms["enlarged"] = True
    c.conditions["enlarged"] = {"by": c.cid, "until_round": b.round + 10, "save_adv": ("str",)}
    b.forget_reach()
    b.event("enlarge", f"{c.cid} grows{' to Large' if c.size == 'large' else ''}", creature=c.cid)


def _shrink(b, c) -> None:
    ms = _ms(c)
    c.attacks = ms.pop("base_attacks", c.attacks)
    if "small_size" in ms:
        c.size = ms.pop("small_size")
    ms["enlarged"] = False
    b.forget_reach()
    b.event("condition_end", f"{c.cid} shrinks back", creature=c.cid, condition="enlarged")
