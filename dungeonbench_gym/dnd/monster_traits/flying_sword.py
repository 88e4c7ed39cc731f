"""**Flying Sword** (solar): the greatsword hovers beside it; as a bonus action it flies up to 50 ft
to attack (the greatsword's attack) or returns; while it is out the solar makes no greatsword
attacks."""

from __future__ import annotations

from ..grid import SQUARE_FT, box_distance_ft
from ..model.options import Opt
from ..rules import hooks
from .common import _ms, ask_target

FLYING_SWORD_FT = 50


def compile_traits(spec, c, ms, traits) -> None:
    if spec.key == "solar" and any(a.key == "flying-sword" for a in spec.actions):
        ms.setdefault("actions", []).append("flying-sword")
        ms["sword"] = "greatsword"


def own_start(b, c, ms) -> None:
    if ms.get("sword_out"):
        ms["sword_moved"] = False


def action_options(b, c, ms, acts, extra: list) -> None:
    e = c.economy
    if "flying-sword" in acts and not ms.get("sword_out") and not e.attack_queue and not e.attacks_left:
        extra.append(Opt("Flying Sword (release the greatsword to hover beside it)", "ms_release_sword"))


def bonus_options(b, c, ms, extra: list) -> None:
    if ms.get("sword_out") and not ms.get("sword_moved"):
        if _sword_targets(b, c):
            extra.append(Opt(f"Flying Sword: fly up to {FLYING_SWORD_FT} ft and attack (bonus action)",
                             "ms_sword_attack"))
        extra.append(Opt("Flying Sword: return to its hand (bonus action)", "ms_sword_return"))


def without_sword(c, ms, out: list) -> list:
    """No greatsword attacks while it hovers."""
    if ms.get("sword_out"):
        sword = ms["sword"]
        out = [o for o in out if not (o.kind == "attack" and o.data[0] == sword)
               and not (o.kind == "multiattack" and sword in c.multiattack)]
    return out


@hooks.OPTION_KINDS.handles("ms_release_sword")
def _release(b, c, p, opt) -> None:
    ms = _ms(c)
    c.economy.actions -= 1
    ms["sword_out"], ms["sword_pos"], ms["sword_moved"] = True, tuple(c.pos), False
    b.event("flying_sword", f"{c.cid} releases its greatsword to hover beside it", creature=c.cid)
    b.back_to_menu(c)


@hooks.OPTION_KINDS.handles("ms_sword_return")
def _return(b, c, p, opt) -> None:
    ms = _ms(c)
    c.economy.bonus = False
    ms["sword_out"] = False
    b.event("flying_sword", f"{c.cid}'s greatsword returns to its hand", creature=c.cid)
    b.back_to_menu(c)


def _sword_targets(b, c) -> list:
    at = _ms(c).get("sword_pos", c.pos)
    return [t for t in sorted(b.enemies_of(c), key=lambda o: o.cid)
            if b.may_target(c, t) and b.distance(c, t) <= 120
            and box_distance_ft(at[0], at[1], 1, at[2], t.pos[0], t.pos[1], t.squares, t.pos[2])
            <= FLYING_SWORD_FT + SQUARE_FT]


def _sword_options(b, c, use) -> list:
    return [Opt(f"Flying Sword attacks {t.cid} [{t.hp}/{t.max_hp} HP, AC {b.armour_class(t)}]", "target", (t.cid,))
            for t in _sword_targets(b, c)]


def _sword_attack(b, c, use, t) -> None:
    ms = _ms(c)
    c.economy.bonus = False
    ms["sword_moved"], ms["sword_pos"] = True, tuple(t.pos)
    b.event("flying_sword", f"{c.cid}'s greatsword flies at {t.cid}", creature=c.cid, target=t.cid)
    if b.make_attack(c, c.attack(ms["sword"]), t, melee=True, then="menu") is None:
        return
    b.back_to_menu(c)


TARGETS = {"sword_attack": (_sword_options, _sword_attack)}
hooks.OPTION_KINDS.register("ms_sword_attack", ask_target)
