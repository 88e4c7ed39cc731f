"""Hashed bags of words: how text games give RL policies their text and options.

A text becomes the indices of its unigrams and bigrams, CRC32 mod HASH_DIM (stable
in every process, unlike Python's hash); an observation row has a 1 at each. A
masked policy can then learn to score commands by their words. Beside the rows,
`core.textcommands` gives each option its verb and object ids (`option_ids`).
docs/text-observation.md lists every key and column.
"""

from __future__ import annotations

import itertools
import re
import zlib

import numpy as np
from gymnasium import spaces

from .textcommands import ids_space

HASH_DIM = 256

_TOKEN = re.compile(r"[a-z0-9]+")
_FEATURE_CACHE: dict[str, int] = {}
_SHORT_TEXT_CACHE: dict[str, list[int]] = {}


def _feature(token: str) -> int:
    index = _FEATURE_CACHE.get(token)
    if index is None:
        index = zlib.crc32(token.encode()) % HASH_DIM
        if len(_FEATURE_CACHE) < 200_000:
            _FEATURE_CACHE[token] = index
    return index


def features(text: str) -> list[int]:
    """Hashed unigrams and bigrams of a text (short texts, i.e. commands, are cached)."""
    cached = _SHORT_TEXT_CACHE.get(text)
    if cached is not None:
        return cached
    words = _TOKEN.findall(text.lower())
    found = [_feature(w) for w in words]
    found += [_feature(a + " " + b) for a, b in itertools.pairwise(words)]
    if len(text) < 80 and len(_SHORT_TEXT_CACHE) < 100_000:
        _SHORT_TEXT_CACHE[text] = found
    return found


def encode_rows(texts, rows: int) -> np.ndarray:
    """A (rows, HASH_DIM) uint8 array: row i holds the features of texts[i]."""
    out = np.zeros((rows, HASH_DIM), np.uint8)
    for row, text in enumerate(texts):
        if row >= rows:
            break
        out[row, features(text)] = 1
    return out


def observation_spaces(text_rows: int, slots: int) -> dict[str, spaces.Box]:
    """A text game's numeric observation: `text` (one row per text) and `options`
    (one row per option slot), both hashed bags of words, and `option_ids` (each
    slot's [verb frame, first object, second object] ids: `core.textcommands`)."""
    return {"text": spaces.Box(0, 1, (text_rows, HASH_DIM), np.uint8),
            "options": spaces.Box(0, 1, (slots, HASH_DIM), np.uint8),
            "option_ids": ids_space(slots)}
