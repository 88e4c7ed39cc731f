"""Dice: SRD expressions, seeded rolls in the event log, advantage, criticals, exact odds."""

from fractions import Fraction

import numpy as np
import pytest

from dungeonbench_gym.dnd.dice import (
    DiceError,
    Roller,
    d20_single_probability,
    distribution,
    p_at_least,
    p_d20_success,
    parse,
)

# ---------------------------------------------------------------- parsing

@pytest.mark.parametrize("text, dice, bonus, lo, hi, avg", [
    ("2d6+3", ((2, 6),), 3, 5, 15, 10.0),
    ("1d8", ((1, 8),), 0, 1, 8, 4.5),
    ("3d4 - 1", ((3, 4),), -1, 2, 11, 6.5),
    ("10", (), 10, 10, 10, 10.0),
    ("2d10+1d6", ((2, 10), (1, 6)), 0, 3, 26, 14.5),
    ("18d6", ((18, 6),), 0, 18, 108, 63.0),
    ("2d6 + 8", ((2, 6),), 8, 10, 20, 15.0),
    ("d20", ((1, 20),), 0, 1, 20, 10.5),
    ("1d4+1+1", ((1, 4),), 2, 3, 6, 4.5),
])
def test_parse_forms(text, dice, bonus, lo, hi, avg):
    e = parse(text)
    assert (e.dice, e.bonus, e.min, e.max, e.average) == (dice, bonus, lo, hi, avg)


def test_parse_int_and_canonical_text():
    assert parse(7).bonus == 7 and parse(7).dice == ()
    assert parse("3d4 - 1").text == "3d4-1"
    assert parse(" 2d6 + 8 ").text == "2d6+8"


def test_parse_is_cached():
    assert parse("4d6+2") is parse("4d6+2")


@pytest.mark.parametrize("bad, words", [
    ("", "empty"),
    ("2d6+", "2d6+"),
    ("abc", "abc"),
    ("1d8 + MOD", "MOD"),
    ("2d6 3", "2d6 3"),
    ("0d6", "count >= 1"),
    ("1d0", "sides >= 1"),
    ("1d6-1d4", "subtracting dice"),
])
def test_parse_errors_are_clear(bad, words):
    with pytest.raises(DiceError) as e:
        parse(bad)
    assert words in str(e.value)


def test_parse_rejects_non_text():
    with pytest.raises(DiceError, match="string or int"):
        parse(None)  # type: ignore[arg-type]


# ---------------------------------------------------------------- rolling and the log

def _episode(seed):
    r = Roller(seed)
    r.roll_d20(advantage=True, bonus=5, what="attack")
    r.roll_damage("1d6+2", what="damage")
    r.roll_damage("2d6", critical=True)
    r.roll("18d6", what="breath")
    r.roll_d20(disadvantage=True)
    r.die(6, what="recharge")
    return r.log


def test_same_seed_same_log():
    assert _episode(42) == _episode(42)
    assert _episode(42) != _episode(43)


def test_roller_accepts_the_envs_generator_and_logs_plain_values():
    gen = np.random.default_rng(5)
    r = Roller(gen)
    assert r.rng is gen
    r.roll_d20(bonus=3)
    r.roll("2d6+1")
    for event in r.log:
        for v in event["rolls"]:
            assert type(v) is int
        assert type(event["total"]) is int


def test_log_records_d20_details():
    r = Roller(0)
    res = r.roll_d20(advantage=True, bonus=4, what="attack")
    ev = r.log[-1]
    assert ev["what"] == "attack" and ev["advantage"] == "advantage"
    assert len(ev["rolls"]) == 2 and ev["natural"] == max(ev["rolls"]) == res.natural
    assert ev["rolls"][ev["kept"]] == res.natural and ev["total"] == res.natural + 4


def test_record_false_logs_nothing():
    r = Roller(0, record=False)
    r.roll_d20()
    r.roll("2d6")
    assert r.log == []


@pytest.mark.parametrize("adv, dis, n_dice, state", [
    (False, False, 1, "none"),
    (True, False, 2, "advantage"),
    (False, True, 2, "disadvantage"),
    (True, True, 1, "none"),  # any advantage and any disadvantage cancel to a straight roll
])
def test_advantage_states(adv, dis, n_dice, state):
    r = Roller(1)
    for _ in range(50):
        res = r.roll_d20(advantage=adv, disadvantage=dis)
        assert res.advantage == state and len(res.rolls) == n_dice
        if state == "advantage":
            assert res.natural == max(res.rolls)
        if state == "disadvantage":
            assert res.natural == min(res.rolls)


def test_nat20_and_nat1_flags():
    r = Roller(3)
    seen = {1: False, 20: False}
    for _ in range(400):
        res = r.roll_d20()
        assert res.nat20 == (res.natural == 20) and res.nat1 == (res.natural == 1)
        if res.natural in seen:
            seen[res.natural] = True
    assert all(seen.values())


def test_critical_doubles_dice_not_bonus():
    r = Roller(9)
    for _ in range(200):
        total = r.roll_damage("1d6+2", critical=True)
        ev = r.log[-1]
        assert len(ev["rolls"]) == 2 and ev["bonus"] == 2 and ev["critical"]
        assert total == sum(ev["rolls"]) + 2
        assert 4 <= total <= 14  # 2d6+2, not 2d6+4
    crit = parse("2d8+4").doubled()
    assert (crit.dice, crit.bonus, crit.text) == (((4, 8),), 4, "4d8+4")


def test_damage_never_negative():
    r = Roller(0)
    assert all(r.roll_damage("1d4-3") >= 0 for _ in range(100))


# ---------------------------------------------------------------- exact probabilities

def test_d20_probabilities():
    assert p_d20_success(15, bonus=5) == Fraction(55, 100)
    assert p_d20_success(15, bonus=5, advantage=True) == 1 - Fraction(45, 100) ** 2 == Fraction(7975, 10000)
    assert p_d20_success(15, bonus=5, disadvantage=True) == Fraction(55, 100) ** 2
    assert p_d20_success(15, bonus=5, advantage=True, disadvantage=True) == Fraction(55, 100)


def test_natural_20_and_1_rules_for_attacks():
    # Only a natural 20 hits AC 30 at +5; a plain check cannot succeed at all.
    assert p_d20_success(30, bonus=5, attack_roll=True) == Fraction(1, 20)
    assert p_d20_success(30, bonus=5) == 0
    # A natural 1 misses AC 2 at +10.
    assert p_d20_success(2, bonus=10, attack_roll=True) == Fraction(19, 20)
    assert p_d20_success(2, bonus=10) == 1
    # Improved Critical: 19 and 20 both hit.
    assert d20_single_probability(40, 0, attack_roll=True, crit_min=19) == Fraction(2, 20)


def test_distribution_of_2d6():
    d = distribution("2d6")
    assert d[7] == Fraction(6, 36) and d[2] == d[12] == Fraction(1, 36)
    assert sum(d.values()) == 1 and min(d) == 2 and max(d) == 12


def test_distribution_with_bonus_and_mixed_dice():
    d = distribution("1d4+1d6+2")
    assert min(d) == 4 and max(d) == 12 and sum(d.values()) == 1
    mean = sum(v * p for v, p in d.items())
    assert mean == Fraction(parse("1d4+1d6+2").average).limit_denominator()
    assert distribution("5") == {5: Fraction(1)}
    assert p_at_least("2d6", 7) == Fraction(21, 36)
    assert sum(distribution("26d6").values()) == 1


@pytest.mark.parametrize("expr", ["2d6", "1d8+2", "3d4-1"])
def test_rolls_match_exact_distribution(expr):
    r = Roller(2024, record=False)
    n = 20000
    counts: dict[int, int] = {}
    for _ in range(n):
        v = r.roll(expr)
        counts[v] = counts.get(v, 0) + 1
    exact = distribution(expr)
    assert set(counts) <= set(exact)
    for v, p in exact.items():
        # 5 standard errors: a wrong distribution fails, chance alone essentially never does
        se = (float(p) * (1 - float(p)) / n) ** 0.5
        assert abs(counts.get(v, 0) / n - float(p)) < 5 * se + 1e-9, (expr, v)


def test_d20_advantage_matches_exact_probability():
    r = Roller(77, record=False)
    n = 20000
    hits = sum(r.roll_d20(advantage=True, bonus=5).total >= 15 for _ in range(n))
    p = float(p_d20_success(15, 5, advantage=True))
    assert abs(hits / n - p) < 5 * (p * (1 - p) / n) ** 0.5
