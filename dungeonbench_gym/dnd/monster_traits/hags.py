"""Hags and shapechangers.

* **Death Glare** and **Horrific Appearance** (sea hag): a humanoid starting its turn within 30 ft
  that sees her saves (Wis DC 11) or is frightened for 1 minute (a repeat save at the end of each of
  its turns; a success makes it immune). Simplification: no one averts its eyes. Death Glare: a
  frightened creature within 30 ft that sees her saves (Wis DC 11) or drops to 0 HP.
* **Shapechangers** (night hag, oni, succubus/incubus): the battle starts in the creature's true
  form, so its "<true form> Form Only" attacks are used. **Draining Kiss**: a creature charmed by the
  fiend saves (Con DC 15) against 5d10+5 psychic, half on a success; its hit point maximum drops by
  the damage taken (0: it dies).
"""

from __future__ import annotations

from ..grid import SQUARE_FT
from ..model.options import Opt
from ..rules import hooks
from ..state import AttackProfile, DamagePart
from .common import _ms, _sees, ask_target

TRUE_FORM = {"night-hag": "hag", "oni": "oni", "succubus-incubus": "fiend"}
SEA_HAG = {"dc": 11, "range": 30}
KISS = {"dc": 15, "damage": "5d10+5"}


def compile_traits(spec, c, ms, traits) -> None:
    key = spec.key
    if key == "sea-hag":
        ms["horrific"] = dict(SEA_HAG)
        ms.setdefault("actions", []).append("death-glare")
    form = TRUE_FORM.get(key)
    if form:   # the battle starts in its true form: its "<form> Form Only" attacks
        extra = []
        for a in spec.actions:
            if getattr(a, "attack_type", None) and a.executable and form in a.forms and a.damage \
                    and all(x.key != a.key for x in c.attacks):
                extra.append(AttackProfile(a.key, a.name, a.bonus, tuple(DamagePart(d.dice, d.type) for d in a.damage),
                                           True, a.reach or 5, 0, 0, spell=any(x.spell for x in c.attacks)))
        c.attacks = c.attacks + tuple(extra)
    if key == "succubus-incubus":
        ms.setdefault("actions", []).append("draining-kiss")


TRAIT_RUN = {"horrific-appearance": lambda c: "horrific" in _ms(c)}


def aura(b, hag, c, hms) -> None:
    """The start of another creature's turn near her: Horrific Appearance."""
    if "horrific" in hms:
        _horrific(b, hag, c, hms["horrific"])


def _horrific(b, hag, c, h) -> None:
    tag = f"{hag.cid}:horrific"
    if c.creature_type != "humanoid" or b.distance(hag, c) > h["range"] or tag in c.resources.get("immune_to", ()) \
            or "frightened" in c.conditions or not _sees(b, c, hag):
        return
    b.event("horrific_appearance", f"{c.cid} sees {hag.cid}'s true form", creature=c.cid, source=hag.cid)
    if b.saving_throw(c, "wis", h["dc"], magic=True, condition="frightened"):
        c.resources["immune_to"] = tuple(c.resources.get("immune_to", ())) + (tag,)
        return
    b.save_condition(hag, c, "frightened", "wis", h["dc"], (10, None, "end_of_turn", True, ()))
    if "frightened" in c.conditions:   # a success later also makes it immune
        c.resources["immune_to"] = tuple(c.resources.get("immune_to", ())) + (tag,)


def action_options(b, c, ms, acts, extra: list) -> None:
    if "death-glare" in acts and _glare_targets(b, c):
        extra.append(Opt(f"Death Glare (a frightened foe within 30 ft: Wis DC {SEA_HAG['dc']} or 0 HP)",
                         "ms_glare"))
    if "draining-kiss" in acts and _kiss_targets(b, c):
        extra.append(Opt(f"Draining Kiss (a creature it has charmed: Con DC {KISS['dc']}, "
                         f"{KISS['damage']} psychic, lowers its HP maximum)", "ms_kiss"))


def _glare_targets(b, c) -> list:
    return [o for o in sorted(b.enemies_of(c), key=lambda o: o.cid)
            if o.conscious and "frightened" in o.conditions and b.distance(c, o) <= SEA_HAG["range"]
            and _sees(b, c, o) and _sees(b, o, c) and b.may_target(c, o)]


def _kiss_targets(b, c) -> list:
    return [o for o in sorted(b.creatures.values(), key=lambda o: o.cid)
            if o is not c and not o.dead and o.hp > 0 and b.distance(c, o) <= SQUARE_FT
            and o.conditions.get("charmed", {}).get("by") == c.cid]


def _glare_options(b, c, use) -> list:
    return [Opt(f"Death Glare at {t.cid} [{t.hp}/{t.max_hp} HP, WIS save {t.saves['wis']:+d}]", "target", (t.cid,))
            for t in _glare_targets(b, c)]


def _glare(b, c, use, t) -> None:
    c.economy.actions -= 1
    b.event("death_glare", f"{c.cid} glares at {t.cid}", creature=c.cid, target=t.cid)
    if not b.saving_throw(t, "wis", SEA_HAG["dc"], magic=True) and t.hp > 0:
        t.hp = t.temp_hp = 0   # not damage: it simply drops to 0 hit points
        b.event("down", f"{t.cid} drops to 0 HP (Death Glare)", creature=t.cid)
        if t.is_pc:
            b.fall_unconscious(t)
        else:
            b.die(t, "Death Glare")
    b.back_to_menu(c)


def _kiss_options(b, c, use) -> list:
    return [Opt(f"Draining Kiss on {t.cid} [{t.hp}/{t.max_hp} HP, CON save {t.saves['con']:+d}]", "target",
                (t.cid,)) for t in _kiss_targets(b, c)]


def _kiss(b, c, use, t) -> None:
    c.economy.actions -= 1
    b.event("draining_kiss", f"{c.cid} kisses {t.cid}", creature=c.cid, target=t.cid)
    ok = b.saving_throw(t, "con", KISS["dc"], magic=True)
    amount = b.roller.roll_damage(KISS["damage"], what="damage draining-kiss psychic")
    taken = b.damage(t, amount // 2 if ok else amount, "psychic", magical=True, source=c.cid)
    if taken and not t.dead:
        t.max_hp = max(0, t.max_hp - taken)
        t.hp = min(t.hp, t.max_hp)
        b.event("max_hp", f"{t.cid}'s hit point maximum drops to {t.max_hp}", creature=t.cid)
        if t.max_hp == 0:
            b.die(t, "Draining Kiss")
    b.back_to_menu(c)


TARGETS = {"glare": (_glare_options, _glare), "kiss": (_kiss_options, _kiss)}
hooks.OPTION_KINDS.register("ms_glare", ask_target)
hooks.OPTION_KINDS.register("ms_kiss", ask_target)
