"""The SRD class features in combat: one module per class (its subclass's features with it),
``common`` for the helpers several classes share, and ``dispatch``, the hook points the rest of
the engine (and the spells, the builders, the Day track) calls."""
