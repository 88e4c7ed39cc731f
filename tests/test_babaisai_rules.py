"""Tests for the pure Baba-style rule engine and its BFS solver."""

import random
import time

from dungeonbench_gym.games.babaisai import (
    from_ascii,
    legal_actions,
    outcome,
    replay,
    rules,
    solve,
    step,
)
from dungeonbench_gym.games.babaisai.rules import CHAR_KIND

UP, RIGHT, DOWN, LEFT = 1, 2, 3, 4


def at(board, ch):
    """Sorted positions (x, y) of every entity drawn as ``ch``."""
    k = CHAR_KIND[ch]
    return sorted((x, y) for kind, x, y in board.entities() if kind == k)


def play(board, actions):
    won = lost = False
    for a in actions:
        board, won, lost = step(board, a)
    return board, won, lost


def test_ascii_roundtrip_and_border():
    text = "B = @ .\n. b . d\nD = $ ."
    b = from_ascii(text)
    assert (b.width, b.height) == (6, 5)
    assert b.to_ascii() == text
    assert at(b, "b") == [(2, 2)]
    assert rules(b) == (("baba", "you"), ("door", "win"))
    assert hash(b) == hash(from_ascii(text)) and b == from_ascii(text)
    assert b.copy() == b


def test_horizontal_and_vertical_rules():
    b = from_ascii(
        """
        B . D .
        = . = .
        @ . # .
        W = > b
        """
    )
    assert rules(b) == (("baba", "you"), ("door", "stop"), ("wall", "push"))


def test_no_rule_from_misaligned_or_reversed_words():
    b = from_ascii("@ = B .\n. b . .\nB . = @")
    assert rules(b) == ()
    assert outcome(b) == (False, True)


def test_walk_and_idle():
    b = from_ascii("B = @ . .\n. . . . .\n. b . . .")
    b1, won, lost = step(b, RIGHT)
    assert at(b1, "b") == [(3, 3)] and not won and not lost
    b2, _, _ = step(b1, UP)
    assert at(b2, "b") == [(3, 2)]
    b3, _, _ = step(b2, 0)
    assert b3 == b2
    # border blocks; board unchanged
    b4, _, _ = play(b, [DOWN, DOWN, DOWN])
    assert at(b4, "b") == [(2, 3)]


def test_form_rule_vertically_by_pushing_win_under_is():
    # "DOOR" over "IS"; push WIN left under them to form DOOR IS WIN.
    b = from_ascii(
        """
        B = @ . . .
        . D . . . .
        . = . . . .
        . . . $ b .
        . . . . . d
        """
    )
    assert ("door", "win") not in rules(b)
    b1, won, _ = play(b, [LEFT, LEFT])
    assert at(b1, "$") == [(2, 4)]
    assert ("door", "win") in rules(b1)
    assert not won


def test_break_rule_by_pushing_word_out():
    b = from_ascii(
        """
        B = @ . .
        . . . . .
        D = # . .
        . . b . d
        """
    )
    assert ("door", "stop") in rules(b)
    # while DOOR IS STOP holds, the door blocks baba
    blocked, _, _ = play(b, [RIGHT, RIGHT])
    assert at(blocked, "b") == [(4, 4)]
    # push STOP up out of the row: the rule is gone
    c, won, lost = step(b, UP)
    assert at(c, "#") == [(3, 2)] and at(c, "b") == [(3, 3)]
    assert rules(c) == (("baba", "you"),) and not won and not lost
    # now the door can be walked onto
    d, _, _ = play(c, [DOWN, RIGHT, RIGHT])
    assert at(d, "b") == [(5, 4)] == at(d, "d")


def test_push_chain_of_three_and_blocked_by_border():
    b = from_ascii(
        """
        B = @ . . .
        . . . . . .
        b D = $ . .
        """
    )
    b1, _, _ = step(b, RIGHT)
    assert at(b1, "b") == [(2, 3)]
    assert at(b1, "D") == [(3, 3)] and at(b1, "$") == [(5, 3)]
    assert at(b1, "=") == [(2, 1), (4, 3)]
    assert ("door", "win") in rules(b1)  # the rule slid along intact
    b2, _, _ = step(b1, RIGHT)
    assert at(b2, "$") == [(6, 3)] and at(b2, "b") == [(3, 3)]
    b3, _, _ = step(b2, RIGHT)  # chain against the border: nothing moves
    assert b3 == b2
    assert legal_actions(b2) == [True, True, False, False, True]  # bottom row


def test_push_chain_blocked_by_stop_wall_and_unblocked_when_wall_not_stop():
    b = from_ascii(
        """
        B = @ . . .
        W = # . . .
        b K O w . .
        """
    )
    b1, _, _ = step(b, RIGHT)
    assert b1 == b
    assert not legal_actions(b)[RIGHT]
    # without WALL IS STOP the chain moves onto the wall cell
    nb = from_ascii(
        """
        B = @ . . .
        W = . . . #
        b K O w . .
        """
    )
    n1, _, _ = step(nb, RIGHT)
    assert at(n1, "O") == [(4, 3)] and at(n1, "w") == [(4, 3)]
    assert at(n1, "b") == [(2, 3)]


def test_stop_blocks_and_non_stop_objects_are_walked_over():
    b = from_ascii(
        """
        B = @ . .
        W = # . .
        b w k . .
        """
    )
    assert step(b, RIGHT)[0] == b
    b2 = from_ascii(
        """
        B = @ . .
        W = # . .
        b k w . .
        """
    )
    c, _, _ = step(b2, RIGHT)
    assert at(c, "b") == [(2, 3)] and at(c, "k") == [(2, 3)]
    assert step(c, RIGHT)[0] == c


def test_push_objects_and_stop_push_object_is_pushed():
    b = from_ascii(
        """
        B = @ . .
        O = > . .
        O = # . .
        b o . . .
        """
    )
    c, _, _ = step(b, RIGHT)
    assert at(c, "o") == [(3, 4)] and at(c, "b") == [(2, 4)]


def test_you_transfer_to_walls():
    b = from_ascii(
        """
        . . . . .
        B = @ . .
        W . . . .
        . b w . w
        """
    )
    assert rules(b) == (("baba", "you"),)
    # baba steps left, then pushes WALL and BABA words up: WALL IS YOU
    d, won, lost = play(b, [LEFT, UP])
    assert at(d, "W") == [(1, 2)] and at(d, "B") == [(1, 1)]
    assert rules(d) == (("wall", "you"),)
    assert not lost and not won
    # now walls move, baba doesn't
    e, _, lost = step(d, RIGHT)
    assert not lost
    assert at(e, "b") == [(1, 3)]
    assert at(e, "w") == [(4, 4), (5, 4)]  # the front wall was at the border
    e2, _, _ = step(e, RIGHT)
    assert at(e2, "w") == [(5, 4), (5, 4)]
    assert not legal_actions(e2)[RIGHT]


def test_no_you_is_loss():
    top = from_ascii(
        """
        B = @ . .
        . b . . .
        . . . . d
        """
    )
    c, won, lost = step(top, UP)  # '=' would be pushed into the border: blocked
    assert c == top and not won and not lost
    b = from_ascii(
        """
        . . . . .
        B = @ . .
        . b . . d
        """
    )
    c, won, lost = step(b, UP)  # '=' pushed up out of line: BABA IS YOU broken
    assert lost and not won
    assert rules(c) == ()
    assert step(c, RIGHT)[2]  # stays lost


def test_win_on_reaching_win_object():
    b = from_ascii(
        """
        B = @ . .
        D = $ . .
        b . . d .
        """
    )
    c, won, lost = play(b, [RIGHT, RIGHT])
    assert not won
    c, won, lost = step(c, RIGHT)
    assert won and not lost
    # texts are never WIN/YOU: standing on a word does not win
    b = from_ascii(
        """
        B = @ . .
        D = $ . .
        b . . . .
        """
    )
    assert outcome(b) == (False, False)


def test_becoming_win_is_not_a_win_but_a_blocked_move_is():
    """baba-is-ai's BabaIsYouEnv.move: a win is tested on the cell a YOU object
    moves to, or the cell it stays on when blocked; its own cell's top object
    is itself. So forming BABA IS WIN, or standing on a WIN object when the rule
    forms, does not win; a blocked move of a YOU-and-WIN object does."""
    b = from_ascii(
        """
        B = @ . .
        B = . $ .
        . . . . b
        """
    )
    assert outcome(b) == (False, False)
    c, won, lost = step(b, UP)
    assert not won and not lost
    c, won, lost = step(c, LEFT)  # pushes WIN into BABA IS _ : baba is you and win
    assert ("baba", "win") in rules(c) and ("baba", "you") in rules(c)
    assert not won and not lost
    c, won, lost = step(c, DOWN)  # a free move: still not a win
    assert not won and not lost
    c, won, lost = step(c, RIGHT)  # a free move to the last column
    assert not won and not lost
    c, won, lost = step(c, RIGHT)  # into the border: blocked, and baba IS WIN
    assert won and not lost


def test_an_object_becoming_win_under_you_is_not_a_win():
    # the key IS YOU too and stands on the door while baba pushes WIN into place
    b = from_ascii(
        """
        B = @ . . .
        K = @ . . .
        D = . $ b .
        . . . . . .
        kd . . . . .
        """
    )
    c, won, _ = step(b, LEFT)  # the key is blocked by the border; DOOR IS WIN forms
    assert ("door", "win") in rules(c) and not won
    c, won, _ = step(c, RIGHT)
    assert not won
    c, won, _ = step(c, LEFT)  # the key steps back onto the door: that move wins
    assert won


def test_idle_never_wins():
    b = from_ascii("B = @ .\nD = $ .\nbd . . .")
    assert ("door", "win") in rules(b)
    assert step(b, 0) == (b, False, False)
    c, won, _ = step(b, RIGHT)  # step off the door ...
    assert not won
    c, won, _ = step(c, LEFT)   # ... and back onto it: that move wins
    assert won


def test_text_pushed_onto_non_stop_object():
    b = from_ascii(
        """
        B = @ . .
        . . . . .
        b $ k . .
        """
    )
    c, _, _ = step(b, RIGHT)
    assert at(c, "$") == [(3, 3)] and at(c, "k") == [(3, 3)]
    # and the key can later be walked over while the word keeps being pushed
    d, _, _ = step(c, RIGHT)
    assert at(d, "$") == [(4, 3)] and at(d, "k") == [(3, 3)] and at(d, "b") == [(3, 3)]


def test_legal_mask_matches_step():
    rng = random.Random(0)
    b = LEVEL_8x8
    for _ in range(300):
        mask = legal_actions(b)
        for a in range(1, 5):
            nb, _, _ = step(b, a)
            assert mask[a] == (nb != b)
        assert mask[0]
        b, won, lost = step(b, rng.randrange(5))
        if won or lost:
            b = LEVEL_8x8


# ------------------------------------------------------------------ solver
LEVEL_8x8 = from_ascii(
    """
    B = @ . . .
    . . . . . .
    . . . . . .
    D = . . $ .
    . b . . . .
    . . . . . d
    """
)


def test_solver_go_to_win_known_length():
    b = from_ascii(
        """
        B = @ . . .
        D = $ . . .
        . b . . d .
        . . . . . .
        """
    )
    plan = solve(b)
    assert plan == [RIGHT, RIGHT, RIGHT]
    assert replay(b, plan)[1]


def test_solver_already_won_and_lost():
    # baba stands on the door that IS WIN: a win needs a move onto it
    on_goal = from_ascii("B = @\nD = $\nbd . .")
    plan = solve(on_goal)
    assert len(plan) == 2 and replay(on_goal, plan)[1]
    lost_board = from_ascii("B . @\n. b .\nD = $")
    assert solve(lost_board) is None


def test_solver_unsolvable_and_node_limit():
    # no WIN word at all -> exhaustive search finds nothing
    b = from_ascii("B = @ .\n. b . .\n. . . d")
    assert solve(b) is None
    assert solve(LEVEL_8x8, max_states=5) is None




def _no_win_within(board, depth):
    """Exhaustive tree search (no state merging): True iff no plan of length
    <= depth wins.  Independent of the solver's BFS."""
    if depth == 0:
        return True
    for a in (1, 2, 3, 4):
        nb, won, lost = step(board, a)
        if won:
            return False
        if not lost and not _no_win_within(nb, depth - 1):
            return False
    return True


def test_solver_make_win_known_plan():
    b = from_ascii(
        """
        B = @ . .
        D = . $ .
        . . . . b
        . d . . .
        """
    )
    plan = solve(b)
    # up, push WIN left (DOOR IS WIN), then down, down, left, left to the door
    assert plan is not None and len(plan) == 6
    _, won, lost = replay(b, plan)
    assert won and not lost
    assert _no_win_within(b, 5)


def test_solver_make_win_plan_wins_and_is_minimal():
    b = from_ascii(
        """
        B = @ . .
        D = . . .
        . . . $ .
        . d . . b
        """
    )
    plan = solve(b)
    assert plan is not None
    _, won, lost = replay(b, plan)
    assert won and not lost
    assert _no_win_within(b, len(plan) - 1)


def test_solver_8x8_make_win_replays():
    plan = solve(LEVEL_8x8)
    assert plan is not None
    final, won, _ = replay(LEVEL_8x8, plan)
    assert won and ("door", "win") in rules(final)


def test_engine_speed_smoke():
    rng = random.Random(1)
    b = LEVEL_8x8
    n = 20_000
    t0 = time.perf_counter()
    for _ in range(n):
        b, won, lost = step(b, rng.randrange(5))
        if won or lost:
            b = LEVEL_8x8
    dt = time.perf_counter() - t0
    assert n / dt > 5_000, f"{n / dt:.0f} steps/s"
