"""**Phantasms** (cloaker): three duplicates for its concentration (the maps have no bright light):
an attack (spell attacks included) picks it or a duplicate at random; a hit destroys a duplicate
(its AC). Simplification: a harmful save spell aimed at it is not diverted. The spellbook's
Mirror Image rule runs the duplicates (the ``phantasms`` condition's ``images``: :mod:`..spellbook`)."""

from __future__ import annotations

from ..model.options import Opt
from ..rules import hooks


def compile_traits(spec, c, ms, traits) -> None:
    if spec.key == "cloaker" and any(a.key == "phantasms" for a in spec.actions):
        ms.setdefault("actions", []).append("phantasms")
        c.resources["uses:phantasms"] = 1


def action_options(b, c, ms, acts, extra: list) -> None:
    if "phantasms" in acts and c.resources.get("uses:phantasms", 0) > 0:
        extra.append(Opt("Phantasms (three illusory duplicates; concentration)", "ms_phantasms"))


@hooks.OPTION_KINDS.handles("ms_phantasms")
def _phantasms(b, c, p, opt) -> None:
    c.economy.actions -= 1
    c.resources["uses:phantasms"] -= 1
    b.end_concentration(c)
    c.concentration = "phantasms"
    c.resources["concentration_until"] = b.round + 100
    c.conditions["phantasms"] = {"by": c.cid, "spell": "phantasms", "images": 3, "uniform": True, "ac": c.ac}
    b.event("phantasms", f"{c.cid} creates three illusory duplicates", creature=c.cid)
    b.back_to_menu(c)
