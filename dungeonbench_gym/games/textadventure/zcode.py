"""Reading Z-machine code: enough of an instruction decoder to see which actions an
Inform 6 rule routine (`before`, `life`, `react_before`) can do anything for.

Inform compiles a rule routine such as

    before [; Take, Drop: ...; Push: ...; default: "It is out of reach."; ]

as a chain of tests of the action variable against action numbers
(`je sw__var 12 13 ?~next`), each case's code in between. Following the chain the
way an action named in none of the tests would go, we see what the routine does for
every other action: when that path only prints and returns, the routine cannot
change the world for those actions, and the detector need not try them there. Any
instruction we do not model on that path (a call, a store, another test) makes the
answer "every action" (None): the analysis only ever errs towards trying more.

Instruction formats follow the Z-Machine Standard 1.1, section 4; the opcode table,
section 14.
"""

from __future__ import annotations

from dataclasses import dataclass

# Opcodes that store a result or branch, by (operand count, number); the counts are
# "2OP", "1OP", "0OP", "VAR" (Standard 14.1). Versions 5 and later only.
_STORE = {
    "2OP": {8, 9, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25},
    "1OP": {1, 2, 3, 4, 8, 14},
    "0OP": {9},
    "VAR": {0, 4, 7, 12, 22, 23, 24},
}
_BRANCH = {
    "2OP": {1, 2, 3, 4, 5, 6, 7, 10},
    "1OP": {0, 1, 2},
    "0OP": {13, 15},
    "VAR": {23, 31},
}
_TEXT_0OP = {2, 3}        # print, print_ret: a Z-string follows the opcode


@dataclass(frozen=True, slots=True)
class Instruction:
    address: int
    kind: str                         # "2OP", "1OP", "0OP", "VAR", "EXT"
    number: int                       # opcode number within its kind
    operands: tuple[tuple[str, int], ...]   # ("const", value) or ("var", variable number)
    branch: tuple[bool, int] | None   # (branch when true?, target: 0 rfalse, 1 rtrue, else address)
    next: int                         # the address after the instruction


def decode(data: bytes, address: int, version: int) -> Instruction:
    """The instruction at `address` (versions 5 and 8; raises ValueError otherwise)."""
    if version not in (5, 8):
        raise ValueError("only versions 5 and 8 are decoded")
    a = address
    op = data[a]
    a += 1
    types: list[int] = []
    if op == 0xBE:
        kind, number = "EXT", data[a]
        a += 1
        types = _types(data[a])
        a += 1
    elif op >> 6 == 3:
        kind = "VAR" if op & 0x20 else "2OP"
        number = op & 0x1F
        types = _types(data[a])
        a += 1
        if kind == "VAR" and number in (12, 26):          # call_vs2, call_vn2: 8 operands
            types += _types(data[a])
            a += 1
    elif op >> 6 == 2:
        t = (op >> 4) & 3
        kind, number = ("0OP", op & 15) if t == 3 else ("1OP", op & 15)
        types = [] if t == 3 else [t]
    else:
        kind, number = "2OP", op & 0x1F
        types = [2 if op & 0x40 else 1, 2 if op & 0x20 else 1]
    operands = []
    for t in types:
        if t == 0:
            operands.append(("const", data[a] << 8 | data[a + 1]))
            a += 2
        elif t == 1:
            operands.append(("const", data[a]))
            a += 1
        else:
            operands.append(("var", data[a]))
            a += 1
    if kind != "EXT" and number in _STORE.get(kind, ()):
        a += 1
    if kind == "EXT":
        a += 1 if number in (0, 1, 2, 3, 4, 9, 10, 12) else 0
    branch = None
    if kind != "EXT" and number in _BRANCH.get(kind, ()):
        b = data[a]
        a += 1
        on_true = bool(b & 0x80)
        if b & 0x40:
            offset = b & 0x3F
        else:
            offset = ((b & 0x3F) << 8) | data[a]
            a += 1
            if offset & 0x2000:
                offset -= 0x4000
        branch = (on_true, offset if offset in (0, 1) else a + offset - 2)
    if kind == "0OP" and number in _TEXT_0OP:
        while a + 1 < len(data) and not data[a] & 0x80:
            a += 2
        a += 2
    return Instruction(address, kind, number, tuple(operands), branch, a)


def _types(byte: int) -> list[int]:
    out = []
    for shift in (6, 4, 2, 0):
        t = (byte >> shift) & 3
        if t == 3:
            break
        out.append(t)
    return out


def routine_start(data: bytes, packed: int, version: int) -> int | None:
    """The first instruction of the routine at a packed address (None if out of range)."""
    if version not in (5, 8) or not packed:
        return None
    address = packed * (4 if version == 5 else 8)
    high = data[4] << 8 | data[5]              # routines live in high memory
    if not high <= address < len(data) or data[address] > 15:
        return None
    return address + 1       # versions 5+: a locals count, no initial values


# Printing instructions: they change nothing an effect is made of.
_PRINTS = {("0OP", 2), ("0OP", 3), ("0OP", 11), ("1OP", 7), ("1OP", 10), ("1OP", 13),
           ("VAR", 5), ("VAR", 6), ("EXT", 11)}


def action_cases(data: bytes, packed: int, version: int,
                 action_variables: frozenset[int]) -> frozenset[int] | None:
    """The action numbers a rule routine tests for, when for every other action it only
    prints and returns; None when that cannot be shown (the routine may act on any)."""
    a = routine_start(data, packed, version)
    if a is None:
        return None
    cases: set[int] = set()
    seen = set()
    for _ in range(400):
        if a in seen or not 0 < a < len(data):
            return None
        seen.add(a)
        try:
            ins = decode(data, a, version)
        except (IndexError, ValueError):
            return None
        key = (ins.kind, ins.number)
        if key == ("2OP", 1):                              # je
            first, rest = ins.operands[0], ins.operands[1:]
            if first[0] != "var" or first[1] not in action_variables or \
                    any(kind != "const" for kind, _ in rest):
                return None
            cases.update(value for _, value in rest)
            on_true, target = ins.branch
            if on_true:              # an action named in none of the tests: not equal
                a = ins.next
                continue
            if target in (0, 1):     # return on "not equal"
                return frozenset(cases)
            a = target
            continue
        if key == ("1OP", 12):                             # jump
            kind, offset = ins.operands[0]
            if kind != "const":
                return None
            if offset & 0x8000:
                offset -= 0x10000
            a = ins.next + offset - 2
            continue
        if key in (("0OP", 0), ("0OP", 1), ("0OP", 3)):   # rtrue, rfalse, print_ret
            return frozenset(cases)
        if key == ("1OP", 11) and ins.operands[0][0] == "const":   # ret constant
            return frozenset(cases)
        if key in _PRINTS:
            a = ins.next
            continue
        return None
    return None


_CALLS = {("VAR", 0), ("VAR", 12), ("VAR", 25), ("VAR", 26), ("2OP", 25), ("2OP", 26),
          ("1OP", 8), ("1OP", 15)}
_ENDS = {("0OP", 0), ("0OP", 1), ("0OP", 3), ("0OP", 8), ("0OP", 10), ("1OP", 11),
         ("2OP", 28)}       # rtrue rfalse print_ret ret_popped quit ret throw


def routine_words(data: bytes, packed: int, version: int, dictionary, depth: int = 2,
                  budget: list[int] | None = None) -> frozenset[int] | None:
    """The dictionary words (their addresses) a routine names as constants, and the
    routines it calls by address, `depth` calls deep: the words a conversation rule
    can compare a topic with ('weather', or TopicHas('fog', 'mist')). None when the
    code cannot be read."""
    budget = [40] if budget is None else budget
    start = routine_start(data, packed, version)
    if start is None:
        return None
    words: set[int] = set()
    todo, seen = [start], set()
    calls = []
    while todo:
        a = todo.pop()
        if a in seen:
            continue
        seen.add(a)
        if len(seen) > 5000 or not 0 < a < len(data):
            return None
        try:
            ins = decode(data, a, version)
        except (IndexError, ValueError):
            return None
        key = (ins.kind, ins.number)
        words.update(v for kind, v in ins.operands if kind == "const" and v in dictionary)
        if key in _CALLS and ins.operands and ins.operands[0][0] == "const":
            calls.append(ins.operands[0][1])
        if ins.branch is not None and ins.branch[1] not in (0, 1):
            todo.append(ins.branch[1])
        if key == ("1OP", 12):
            kind, offset = ins.operands[0]
            if kind != "const":
                return None
            todo.append(ins.next + (offset - 0x10000 if offset & 0x8000 else offset) - 2)
        elif key not in _ENDS:
            todo.append(ins.next)
    if depth > 0:
        for callee in dict.fromkeys(calls):
            budget[0] -= 1
            if budget[0] < 0:
                return None          # too much code to read: any word may count
            inner = routine_words(data, callee, version, dictionary, depth - 1, budget)
            if inner is not None:
                words |= inner
    return frozenset(words)
