"""Reading a Z-machine story: header, text, dictionary and the object tree.

Written from the Z-machine Standard 1.1 (sections 1, 3, 11, 12, 13). The
interpreter (Jericho's Frotz) runs the game; this module only reads memory, so
the valid-action detector can see the world of any story file, including those
Jericho has no per-game support for (where its own object-tree calls return
nothing).

`Story` reads the static parts once from the file; `objects(ram)` reads the
object tree from a snapshot of dynamic memory (Jericho's `get_state()[0]`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from ...core.errors import FileFormatError

# Z-string alphabets (Standard 3.5.3); A2's first slot is the escape code.
_A0 = "abcdefghijklmnopqrstuvwxyz"
_A1 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_A2 = " \n0123456789.,!?_#'\"/\\-:()"
_A2_V1 = " 0123456789.,!?_#'\"/\\<-:()"

# Inform's dictionary flag bits (byte 0 of an entry's data): verb, preposition, noun.
INFORM_VERB, INFORM_PREP, INFORM_NOUN = 0x01, 0x08, 0x80


@dataclass(frozen=True, slots=True)
class ZObject:
    number: int
    name: str                     # the short name, e.g. "brass key"
    parent: int
    sibling: int
    child: int
    attributes: frozenset[int]
    words: tuple[str, ...]        # dictionary words of its name property (may be empty)
    properties: frozenset[int]    # the numbers of the properties it provides


_FIX_STORY = "give an intact .z3/.z5/.z8 story file (copy or download it again)"


@dataclass(frozen=True, slots=True)
class GrammarLine:
    action: int                   # the action number (the line's routine, e.g. Take)
    slots: tuple[tuple, ...]      # ("prep", words), ("object", token), ("topic",), ...


def _word(data: bytes, address: int) -> int:
    return (data[address] << 8) | data[address + 1]


def validate_story(path: str | Path, data: bytes | None = None) -> bytes:
    """The story file's bytes, checked before an interpreter touches them (Frotz exits the
    whole process on a file it cannot use); a fault raises FileFormatError naming the file.

    Checks (Z-machine Standard 1.1, sections 1 and 11): the 64-byte header is there; the
    version byte is 1-8; the file is as long as the header's length word says (times 2, 4 or 8
    by version) and the checksum of bytes 0x40 up to that length matches; dynamic memory is at
    least 64 bytes and the static and high memory bases, the initial program counter and the
    dictionary, object, global and abbreviation tables lie inside the file.
    """
    path = Path(path)
    if data is None:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise FileFormatError(path, "(file)", "does not exist", "check the story_file path") from None
        except OSError as exc:
            raise FileFormatError(path, "(file)", f"cannot be read ({exc.strerror})",
                                  "give the path of a readable story file, not a folder") from None
    size = len(data)
    if size == 0:
        raise FileFormatError(path, "(file)", "is empty (0 bytes)", _FIX_STORY)
    if data[:4] == b"FORM":
        raise FileFormatError(path, "(file)", "is a Blorb (IFF) file, not a bare story file",
                              "extract the .z5/.z8 story from the Blorb (e.g. with `blorbtool`)")
    if data[:4] == b"Glul":
        raise FileFormatError(path, "(file)", "is a Glulx story, which a Z-machine interpreter cannot run",
                              "use a Z-machine story (.z3/.z5/.z8)")
    if not 1 <= data[0] <= 8:
        raise FileFormatError(path, "header.version (byte 0x00)", f"is {data[0]}, not a Z-machine "
                              "version (1 to 8): this is not a Z-machine story file", _FIX_STORY)
    if size < 64:
        raise FileFormatError(path, "header", f"the file is {size} bytes, shorter than the 64-byte "
                              "header: it is cut short", _FIX_STORY)
    version = data[0]
    scale = 2 if version <= 3 else 4 if version <= 5 else 8
    declared = _word(data, 0x1A) * scale      # 0 in some early files: the length is unknown
    if declared and size < declared:
        raise FileFormatError(path, "header.length (word 0x1A)", f"says {declared} bytes but the file "
                              f"has {size}: it is truncated", _FIX_STORY)
    checksum = _word(data, 0x1C)
    # 0 means the compiler wrote none (early files); otherwise a mismatch means damaged bytes
    if declared and checksum and sum(data[0x40:declared]) & 0xFFFF != checksum:
        raise FileFormatError(path, "header.checksum (word 0x1C)",
                              f"is {checksum:#06x} but bytes 0x40..{declared:#x} sum to "
                              f"{sum(data[0x40:declared]) & 0xFFFF:#06x}: the file is corrupt", _FIX_STORY)
    static = _word(data, 0x0E)
    if not 64 <= static <= size:
        raise FileFormatError(path, "header.static_memory (word 0x0E)", f"is {static:#x}, outside 64.."
                              f"{size:#x} (dynamic memory must hold the header and fit in the file)",
                              _FIX_STORY)
    tables = [("high_memory", 0x04), ("dictionary", 0x08), ("object_table", 0x0A), ("globals", 0x0C)]
    if version < 6:   # from version 6 on this word is a packed routine address
        tables.append(("initial_pc", 0x06))
    if version >= 2:
        tables.append(("abbreviations", 0x18))
    for name, at in tables:
        value = _word(data, at)
        if value >= size:
            raise FileFormatError(path, f"header.{name} (word {at:#04x})", f"is {value:#x}, beyond the "
                                  f"end of the {size}-byte file: it is truncated or corrupt", _FIX_STORY)
    return data


class Story:
    """The static facts of one story file (checked by `validate_story` first)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        data = validate_story(self.path)
        self.data = data
        self.version = data[0]
        self.md5 = hashlib.md5(data).hexdigest()
        self.release = self.word(0x02)
        self.serial = data[0x12:0x18].decode("ascii", "replace")
        self.dictionary_address = self.word(0x08)
        self.object_table = self.word(0x0A)
        self.globals_address = self.word(0x0C)
        self.static_base = self.word(0x0E)
        self.abbreviations = self.word(0x18)
        self.inform_version = data[0x3C:0x40].decode("ascii", "replace")
        alphabet = self.word(0x34) if self.version >= 5 else 0
        if alphabet:
            rows = [data[alphabet + 26 * r:alphabet + 26 * (r + 1)].decode("latin-1")
                    for r in range(3)]
            self._alphabets = (rows[0], rows[1], " \n" + rows[2][2:])
        else:
            self._alphabets = (_A0, _A1, _A2_V1 if self.version == 1 else _A2)
        self._entry = 9 if self.version <= 3 else 14          # object entry size
        self._defaults = 31 if self.version <= 3 else 63      # default property words

    # -------------------------------------------------------------- memory
    def word(self, address: int, memory: bytes | None = None) -> int:
        return _word(self.data if memory is None else memory, address)

    # ---------------------------------------------------------------- text
    def decode(self, address: int, memory: bytes | None = None) -> tuple[str, int]:
        """The Z-string at `address` and the address after it."""
        m = self.data if memory is None else memory
        zchars: list[int] = []
        while True:
            w = (m[address] << 8) | m[address + 1]
            address += 2
            zchars += ((w >> 10) & 31, (w >> 5) & 31, w & 31)
            if w & 0x8000:
                break
        return self._zchars_to_text(zchars, depth=0), address

    def _zchars_to_text(self, zchars: list[int], depth: int) -> str:
        out: list[str] = []
        alphabet = 0
        i = 0
        while i < len(zchars):
            c = zchars[i]
            if c == 0:
                out.append(" ")
            elif c in (1, 2, 3) and self.version >= 2 or c == 1 and self.version == 1:
                if i + 1 < len(zchars) and self.abbreviations and depth == 0:
                    index = 32 * (c - 1) + zchars[i + 1]
                    entry = self.word(self.abbreviations + 2 * index)
                    text, _ = self.decode(2 * entry)
                    out.append(text)
                i += 1
            elif c in (4, 5):
                alphabet = c - 3
                i += 1
                if i >= len(zchars):
                    break
                c = zchars[i]
                out.append(self._char(alphabet, c, zchars, i))
                if alphabet == 2 and c == 6:
                    i += 2            # a ten-bit ZSCII code took two more z-characters
                alphabet = 0
            else:
                out.append(self._char(0, c, zchars, i))
            i += 1
        return "".join(out)

    def _char(self, alphabet: int, c: int, zchars: list[int], i: int) -> str:
        if alphabet == 2 and c == 6:
            if i + 2 < len(zchars):
                code = (zchars[i + 1] << 5) | zchars[i + 2]
                return chr(code) if 32 <= code < 127 else ("\n" if code == 13 else "?")
            return ""
        if c < 6:
            return ""
        return self._alphabets[alphabet][c - 6]

    # ---------------------------------------------------------- dictionary
    @cached_property
    def dictionary(self) -> dict[int, tuple[str, int]]:
        """Dictionary address -> (word, Inform flag byte) for every entry."""
        a = self.dictionary_address
        separators = self.data[a]
        a += 1 + separators
        entry_length = self.data[a]
        count = self.word(a + 1)
        if count >= 0x8000:      # a negative count means unsorted (Standard 13.2.4)
            count = 0x10000 - count
        a += 3
        text_bytes = 4 if self.version <= 3 else 6
        out = {}
        for k in range(count):
            entry = a + k * entry_length
            word, _ = self.decode(entry)
            flags = self.data[entry + text_bytes] if entry_length > text_bytes else 0
            out[entry] = (word.strip(), flags)
        return out

    @cached_property
    def words(self) -> frozenset[str]:
        return frozenset(w for w, _ in self.dictionary.values())

    @cached_property
    def word_length(self) -> int:
        """How many letters of a typed word the parser reads (6 before version 4, else 9)."""
        return 6 if self.version <= 3 else 9

    def cut(self, word: str) -> str:
        """The word as the dictionary holds it: its first 6 (version 1-3) or 9 Z-characters
        (Standard 3.7, 13.3). A lower-case letter is one Z-character, a digit or a mark of
        alphabet A2 ('-', an apostrophe) two, anything else four, so "non-euclidean" is
        "non-eucl", not "non-eucli"."""
        room, out = self.word_length, []
        for ch in word.lower():
            cost = 1 if ch in self._alphabets[0] else 2 if ch in self._alphabets[2] else 4
            if cost > room:
                break
            room -= cost
            out.append(ch)
        return "".join(out)

    def knows(self, word: str) -> bool:
        """Would the game's parser recognise this word (it truncates long words)?"""
        return self.cut(word) in self.words

    # ------------------------------------------------------------- grammar
    @cached_property
    def verb_numbers(self) -> dict[str, int]:
        """Verb word -> its verb number: Inform stores 255 minus the number in the
        entry's second data byte (synonyms share one number)."""
        text_bytes = 4 if self.version <= 3 else 6
        return {word: 255 - self.data[address + text_bytes + 1]
                for address, (word, flags) in self.dictionary.items() if flags & 0x01}

    @cached_property
    def grammar(self) -> dict[str, tuple[GrammarLine, ...]] | None:
        """Each verb word's grammar lines, read from an Inform grammar table of version 2
        (Inform 6 and Inform 7 both write it; Inform Technical Manual, section 8): the table
        starts static memory, one word per verb number (a verb's dictionary entry holds
        255 - its number) pointing at a count of lines; a line is an action word, then
        3-byte tokens up to the end byte 15. A line comes back as its action number and
        its slots: ("prep",
        words) for a preposition with its alternatives, ("object", code) for an object
        token (code: the elementary token, or -type for filters, scopes and parsing
        routines), ("topic",) and ("special",). None when the table does not read as
        version 2 (older Inform, Infocom): then no grammar is known."""
        data, base = self.data, self.static_base
        words: dict[int, list[str]] = {}
        for word, number in self.verb_numbers.items():
            words.setdefault(number, []).append(word)
        if not words or self.inform_version[:1] != "6":
            return None
        out: dict[str, tuple] = {}
        try:
            for number, verb_words in words.items():
                a = self.word(base + 2 * number)
                if not base <= a < len(data):
                    return None
                count, a = data[a], a + 1
                lines = []
                for _ in range(count):
                    action = self.word(a)
                    if action >> 11:                # action numbers fit in 10 bits
                        return None
                    a += 2
                    slots: list = []
                    while data[a] != 15:
                        kind, value = data[a], self.word(a + 1)
                        a += 3
                        typ = kind & 15
                        if typ == 2:
                            if value not in self.dictionary:
                                return None
                            prep = self.dictionary[value][0]
                            if kind & 0x10 and slots and slots[-1][0] == "prep":
                                slots[-1] = ("prep", slots[-1][1] + (prep,))   # 'in'/'into'
                            else:
                                slots.append(("prep", (prep,)))
                        elif typ == 1:
                            slots.append(("topic",) if value == 9 else
                                         ("special",) if value in (7, 8) else ("object", value))
                        elif typ in (3, 4, 5, 6):
                            slots.append(("object", -typ))
                        else:
                            return None
                    a += 1
                    lines.append(GrammarLine(action & 0x3FF, tuple(slots)))
                for word in verb_words:
                    out[word] = tuple(lines)
        except IndexError:
            return None
        return out

    # ------------------------------------------------------------- objects
    @cached_property
    def initial_objects(self) -> dict[int, ZObject]:
        """The object tree as the story file starts it (its dynamic memory's first values)."""
        return self.objects(self.data[:self.static_base])

    def object_count(self, ram: bytes) -> int:
        """Objects run until the lowest property table (Standard 12.1 gives no count)."""
        first = self.object_table + 2 * self._defaults
        lowest = None
        n = 0
        while True:
            entry = first + n * self._entry
            if lowest is not None and entry >= lowest or entry + self._entry > len(ram):
                break
            props = self.word(entry + self._entry - 2, ram)
            if props == 0 or props >= len(ram):
                break
            lowest = props if lowest is None else min(lowest, props)
            n += 1
        return n

    def objects(self, ram: bytes, name_property: int | None = None) -> dict[int, ZObject]:
        """Every object of the tree in this snapshot of dynamic memory."""
        out = {}
        if name_property is None:
            name_property = self.name_property(ram)
        for number in range(1, self.object_count(ram) + 1):
            entry = self.object_table + 2 * self._defaults + (number - 1) * self._entry
            if self.version <= 3:
                attr_bits = int.from_bytes(ram[entry:entry + 4], "big")
                parent, sibling, child = ram[entry + 4], ram[entry + 5], ram[entry + 6]
                width = 32
            else:
                attr_bits = int.from_bytes(ram[entry:entry + 6], "big")
                parent = self.word(entry + 6, ram)
                sibling = self.word(entry + 8, ram)
                child = self.word(entry + 10, ram)
                width = 48
            attributes = frozenset(width - 1 - b for b in range(width) if attr_bits >> b & 1)
            props = self.word(entry + self._entry - 2, ram)
            name = self._short_name(ram, props)
            words: tuple[str, ...] = ()
            provided = []
            for prop, data in self._properties(ram, number):
                provided.append(prop)
                if prop == name_property:
                    words = tuple(self.dictionary[w][0] for w in _words_of(bytes(data))
                                  if w in self.dictionary)
            out[number] = ZObject(number, name, parent, sibling, child, attributes, words,
                                  frozenset(provided))
        return out

    def _short_name(self, ram: bytes, props: int) -> str:
        if not ram[props]:
            return ""
        try:
            return self.decode(props + 1, ram)[0]
        except IndexError:
            return ""

    def _properties(self, ram: bytes, number: int):
        """(property number, data bytes) of one object, in table order."""
        entry = self.object_table + 2 * self._defaults + (number - 1) * self._entry
        a = self.word(entry + self._entry - 2, ram)
        a += 1 + 2 * ram[a]
        while True:
            size = ram[a]
            if size == 0:
                return
            if self.version <= 3:
                prop, length, a = size & 31, (size >> 5) + 1, a + 1
            elif size & 0x80:
                prop, length = size & 63, ram[a + 1] & 63 or 64
                a += 2
            else:
                prop, length, a = size & 63, 2 if size & 0x40 else 1, a + 1
            yield prop, ram[a:a + length]
            a += length

    def property(self, ram: bytes, number: int, prop: int) -> bytes:
        for p, data in self._properties(ram, number):
            if p == prop:
                return bytes(data)
        return b""

    def name_property(self, ram: bytes) -> int:
        """The property that holds objects' vocabulary (Inform: 1; Infocom: varies).

        The one whose values, over all objects, are most often made only of
        dictionary addresses.
        """
        cached = getattr(self, "_name_property", None)
        if cached is not None:
            return cached
        votes: dict[int, int] = {}
        dictionary = self.dictionary
        for number in range(1, self.object_count(ram) + 1):
            for prop, data in self._properties(ram, number):
                addresses = _words_of(bytes(data))
                if addresses and all(a in dictionary for a in addresses):
                    votes[prop] = votes.get(prop, 0) + 1
        self._name_property = max(votes, key=lambda p: (votes[p], -p)) if votes else 0
        return self._name_property


def _words_of(data: bytes) -> list[int]:
    return [(data[i] << 8) | data[i + 1] for i in range(0, len(data) - 1, 2)]
