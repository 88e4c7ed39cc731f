"""Breadth-first solver for the Baba-style rule engine (pure Python)."""

from __future__ import annotations

from collections import deque

from .rules import Board, outcome, step

MOVES = (1, 2, 3, 4)


def solve(board: Board, max_states: int = 200_000) -> list[int] | None:
    """Shortest action list (actions 1-4) that wins from ``board``.

    Returns ``[]`` if ``board`` is already won, ``None`` if the board is lost,
    unsolvable, or more than ``max_states`` distinct states would need to be
    visited.  Breadth-first search over canonical states, so the returned
    plan has minimal length.
    """
    won, lost = outcome(board)
    if won:
        return []
    if lost:
        return None
    start = board.state
    # state -> (parent state, action); the start maps to None
    parent: dict[tuple[int, ...], tuple[tuple[int, ...], int] | None] = {start: None}
    frontier: deque[Board] = deque([board])
    while frontier:
        cur = frontier.popleft()
        cs = cur.state
        for a in MOVES:
            nb, won, lost = step(cur, a)
            ns = nb.state
            if ns in parent:
                continue
            parent[ns] = (cs, a)
            if won:
                return plan_to(parent, ns)
            if lost:
                continue
            if len(parent) > max_states:
                return None
            frontier.append(nb)
    return None


def plan_to(parent, s) -> list[int]:
    """The actions from the search's root to state `s`, read back through `parent`
    (state -> (previous state, action), None at the root)."""
    plan = []
    link = parent[s]
    while link is not None:
        s, a = link
        plan.append(a)
        link = parent[s]
    plan.reverse()
    return plan


def replay(board: Board, plan: list[int]) -> tuple[Board, bool, bool]:
    """Play ``plan`` from ``board``; stops at the first win/loss."""
    won, lost = outcome(board)
    for a in plan:
        if won or lost:
            break
        board, won, lost = step(board, a)
    return board, won, lost

