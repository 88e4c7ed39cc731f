"""Breadth-first solver for the Baba-style rule engine (pure Python)."""

from __future__ import annotations

from collections import deque

from .rules import Board, is_lost, step

MOVES = (1, 2, 3, 4)


def solve(board: Board, max_states: int = 200_000) -> list[int] | None:
    """Shortest action list (actions 1-4) that wins from ``board``.

    Returns ``None`` if the board is lost, unsolvable, or more than
    ``max_states`` distinct states would need to be visited.  Breadth-first
    search over canonical states, so the returned plan has minimal length.
    A win is a move that wins (see :func:`.rules.step`), so standing on a WIN
    object at the start is not a win yet.
    """
    if is_lost(board):
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
            if won:  # a win is a move, not a state: it may return to a seen board
                return plan_to(parent, cs) + [a]
            ns = nb.state
            if ns in parent:
                continue
            parent[ns] = (cs, a)
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
    won, lost = False, is_lost(board)
    for a in plan:
        if won or lost:
            break
        board, won, lost = step(board, a)
    return board, won, lost

