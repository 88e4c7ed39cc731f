"""How long an effect cast between fights lasts on the Day track.

The Day track has no clock between fights, so a spell's duration (in rounds: 10 rounds
are a minute) is read as one of three spans: into the next fight (10 minutes or more),
until a short rest (an hour or more), all day (8 hours or more, or until dispelled).
"""

from __future__ import annotations

from .. import content

NEXT_ENCOUNTER_ROUNDS = 100      # 10 minutes
UNTIL_SHORT_REST_ROUNDS = 600    # 1 hour
ALL_DAY_ROUNDS = 4800            # 8 hours
DURATION_TEXT = {"next_encounter": "into the next fight", "until_short_rest": "until a short rest",
                 "all_day": "all day"}


def effect_duration(spell_key: str) -> str | None:
    """How long a spell cast between fights lasts (None: not worth casting between fights)."""
    rounds = content.spell(spell_key).duration_rounds or 0
    if rounds >= ALL_DAY_ROUNDS or content.spell(spell_key).duration_kind == "until_dispelled":   # Continual Flame
        return "all_day"
    if rounds >= UNTIL_SHORT_REST_ROUNDS:
        return "until_short_rest"
    if rounds >= NEXT_ENCOUNTER_ROUNDS:
        return "next_encounter"
    return None


def wild_shape_duration(druid_level: int) -> str:
    """SRD Wild Shape lasts half the druid level in hours (rounded down): all day from 8 hours."""
    return "all_day" if (druid_level // 2) * UNTIL_SHORT_REST_ROUNDS >= ALL_DAY_ROUNDS else "until_short_rest"


def drop_concentration(c, party) -> None:
    """A caster starts concentrating on something else between fights: the effects its old
    concentration spell keeps on the party end with it."""
    if c.concentration is None:
        return
    for o in party:
        for k in [k for k, v in o.conditions.items() if v.get("by") == c.cid and v.get("spell") == c.concentration]:
            del o.conditions[k]
    c.concentration = None
