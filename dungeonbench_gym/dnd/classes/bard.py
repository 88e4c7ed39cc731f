"""Bard (College of Lore): Bardic Inspiration (an ally's die on an attack or a save), Jack of All
Trades, Song of Rest, Cutting Words, Countercharm, Superior Inspiration, Peerless Skill."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .common import option

if TYPE_CHECKING:   # pragma: no cover
    from ..rules.api import BattleAPI
    from ..state import Combatant


def inspire_targets(b: BattleAPI, c: Combatant) -> list:
    return [o for o in b.allies_of(c) if o.conscious and "inspired" not in o.conditions and b.distance(c, o) <= 60]


# ================================================================ builds
def finish_pc(arch: dict, lvls: dict, f: list, r: dict) -> None:
    if lvls.get("bard", 0) >= 2:
        f.append("song_of_rest")
        r["song_of_rest"] = f"1d{6 if lvls['bard'] < 9 else 8 if lvls['bard'] < 13 else 10 if lvls['bard'] < 17 else 12}"
    if lvls.get("bard", 0) >= 6:
        f.append("countercharm")
    if lvls.get("bard", 0) >= 14 and arch.get("subclass") == "lore":
        f.append("peerless_skill")


# ================================================================ the action menu
def inspire_option(b: BattleAPI, c: Combatant, out: list) -> None:
    r = c.resources
    if "bardic_inspiration" in c.features and c.economy.bonus and r.get("bardic_inspiration", 0) > 0 \
            and inspire_targets(b, c):
        out.append(option(f"Bardic Inspiration (bonus action: an ally gains a {r['inspiration_die']}; "
                          f"{r['bardic_inspiration']} left)", "feature", ("inspire",)))


def countercharm_option(c: Combatant, out: list) -> None:
    if "countercharm" in c.features and "countercharm" not in c.conditions:
        out.append(option("Countercharm (action: allies within 30 ft have advantage on saves against being "
                          "charmed or frightened until the end of your next turn)", "feature", ("countercharm",)))


def _inspire(b: BattleAPI, c: Combatant, opt) -> None:
    b.pending = {"kind": "target", "actor": c.cid, "use": ("feature", "inspire")}


def _countercharm(b: BattleAPI, c: Combatant, opt) -> None:
    c.economy.actions -= 1
    c.conditions["countercharm"] = {"until": "end_of_source_next_turn", "by": c.cid, "turn_of": c.cid,
                                    "round": b.round}
    b.event("countercharm", f"{c.cid} performs a Countercharm", creature=c.cid)
    b.back_to_menu(c)


ACTIONS = {"inspire": _inspire, "countercharm": _countercharm}


def inspire_options(b: BattleAPI, c: Combatant) -> list:
    return [option(f"Inspire {t.cid} ({c.resources['inspiration_die']}) [{t.hp}/{t.max_hp} HP, "
                   f"{b.distance(c, t)} ft]", "target", (t.cid,)) for t in inspire_targets(b, c)]


def inspire(b: BattleAPI, c: Combatant, t: Combatant) -> None:
    r = c.resources
    c.economy.bonus = False
    r["bardic_inspiration"] -= 1
    t.conditions["inspired"] = {"die": r["inspiration_die"], "by": c.cid}
    b.event("inspire", f"{c.cid} inspires {t.cid} ({r['inspiration_die']})", creature=c.cid, target=t.cid)


# ================================================================ the die spent
def inspired_attack(b: BattleAPI, c: Combatant, total: int, ac: int, natural: int) -> tuple[int, bool]:
    """A miss the attacker's Bardic Inspiration die can still turn."""
    insp = c.conditions.get("inspired")
    if insp and natural != 1 and total + int(insp["die"].split("d")[1]) >= ac:
        del c.conditions["inspired"]
        total += b.roller.roll(insp["die"], what=f"bardic inspiration {c.cid}")
        b.event("inspiration", f"{c.cid} uses Bardic Inspiration on its attack ({total})", creature=c.cid)
        if total >= ac:
            return total, True
    return total, False


def inspired_save(b: BattleAPI, t: Combatant, dc: int, total: int) -> tuple[int, bool]:
    """A failed save the holder's Bardic Inspiration die can still turn."""
    if "inspired" in t.conditions:
        die = t.conditions["inspired"]["die"]
        if total + int(die.split("d")[1]) >= dc:
            del t.conditions["inspired"]
            total += b.roller.roll(die, what=f"bardic inspiration {t.cid}")
            b.event("inspiration", f"{t.cid} uses Bardic Inspiration on its save ({total})", creature=t.cid)
            if total >= dc:
                return total, True
    return total, False


def cutting_words(b: BattleAPI, c: Combatant, t: Combatant, st: dict) -> bool:
    """SRD Cutting Words (College of Lore, 3): a bard within 60 ft of an attacker it can see
    (:meth:`BattleAPI.watches`: not blinded, the attacker not invisible to it, no fog or darkness
    hiding it) and that can hear the bard (:meth:`BattleAPI.hears`) may spend a reaction and a
    Bardic Inspiration to subtract the die from the attack roll. Offered only when the die can
    turn the hit into a miss; the bard is noted in ``st["reactor"]``."""
    if st.get("cut_done"):
        return False
    # SRD: a creature that can't hear the bard, or is immune to being charmed, is immune to it
    if "charmed" in c.condition_immunities:
        return False
    for o in b.creatures.values():
        if "cutting_words" in o.features and o.side == t.side and o.side != c.side and not o.incapacitated \
                and o.economy.reaction and o.resources.get("bardic_inspiration", 0) > 0 \
                and b.distance(o, c) <= 60 and b.watches(o, c) and b.hears(c, o) \
                and st["total"] - int(o.resources["inspiration_die"].split("d")[1]) < st["ac"]:
            st["reactor"] = o.cid
            st["reactor_prompt"] = f"{o.cid}: {c.cid} hits {t.cid} ({st['total']} vs AC {st['ac']})"
            return True
    return False


def cutting_words_options(c: Combatant, st: dict) -> list:
    die = c.resources["inspiration_die"]
    return [option(f"Cutting Words (reaction, one Bardic Inspiration: subtract {die} from {st['attacker']}'s "
                   f"attack on {st['target']}: {st['total']} vs AC {st['ac']})", "reaction", (True, ("cut",))),
            option("Let the attack stand", "reaction", (False, None))]


def resolve_cutting_words(b: BattleAPI, c: Combatant, st: dict, take: bool) -> dict:
    if take:
        c.economy.reaction = False
        c.resources["bardic_inspiration"] -= 1
        cut = b.roller.roll(c.resources["inspiration_die"], what=f"cutting words {c.cid}")
        total = st["total"] - cut
        b.event("reaction", f"{c.cid} uses Cutting Words: -{cut} ({total} vs AC {st['ac']})", creature=c.cid)
        st = dict(st, total=total, hit=total >= st["ac"])
    return dict(st, cut_done=True)


def peerless(b: BattleAPI, c: Combatant, total: int, need: int) -> int:
    """An ability check's total short of ``need``: a Bardic Inspiration die the creature holds
    (SRD: the die is for "one ability check, attack roll, or saving throw"), then SRD Peerless
    Skill (College of Lore, 14): a Bardic Inspiration die added to the bard's own ability check.
    Each is spent only when the die can still reach ``need`` (as for an attack or a save)."""
    insp = c.conditions.get("inspired")
    if insp and total < need and total + int(insp["die"].split("d")[1]) >= need:
        del c.conditions["inspired"]
        total += b.roller.roll(insp["die"], what=f"bardic inspiration {c.cid}")
        b.event("inspiration", f"{c.cid} uses Bardic Inspiration on its check ({total})", creature=c.cid)
    if not c.is_pc or total >= need or "peerless_skill" not in c.features or c.resources.get("bardic_inspiration", 0) <= 0:
        return total
    die = c.resources["inspiration_die"]
    if total + int(die.split("d")[1]) < need:
        return total
    c.resources["bardic_inspiration"] -= 1
    total += b.roller.roll(die, what=f"peerless skill {c.cid}")
    b.event("inspiration", f"{c.cid} uses Peerless Skill on its check ({total})", creature=c.cid)
    return total


def superior_inspiration(c: Combatant) -> None:
    """As initiative is rolled: one Bardic Inspiration back if none is left."""
    if "superior_inspiration" in c.features and c.resources.get("bardic_inspiration", 1) == 0:
        c.resources["bardic_inspiration"] = 1


# ================================================================ checks, saves, rests
def jack_of_all_trades(c: Combatant) -> int:
    """Half the proficiency bonus (rounded down) on a check the bard is not proficient in."""
    return (c.prof // 2) if "jack_of_all_trades" in c.features else 0


def countercharm_adv(b: BattleAPI, t: Combatant, against: tuple) -> bool:
    """Countercharm: advantage against being charmed or frightened near a performing bard."""
    if not against or ("charmed" not in against and "frightened" not in against):
        return False
    if "deafened" in t.conditions or (b.zones and b.silenced(t)):   # it must hear the performance
        return False
    for o in b.creatures.values():
        if "countercharm" not in o.conditions:
            continue
        if o.incapacitated or (b.zones and b.silenced(o)):   # SRD: the performance ends early
            del o.conditions["countercharm"]
            b.event("condition_end", f"{o.cid}'s Countercharm ends", creature=o.cid, condition="countercharm")
            continue
        if o.conscious and o.side == t.side and b.distance(o, t) <= 30:
            return True
    return False


def song_of_rest(party) -> list:
    """SRD Song of Rest: a conscious bard's party members who spent hit dice in the short rest
    regain the song die more. Returns (cid, amount) pairs; called by the Day track."""
    party = list(party)
    spent = [p for p in party if p.resources.pop("spent_hit_dice", 0) and not p.dead]
    bards = [p for p in party if "song_of_rest" in p.features and p.conscious]
    if not bards:
        return []
    die = max((p.resources["song_of_rest"] for p in bards), key=lambda d: int(d.split("d")[1]))
    return [(p.cid, die) for p in spent]
