"""TextWorld: BALROG's treasure_hunter, cooking and coin_collector tasks, generated offline.

`games` makes and caches the game pools (TextWorld's generator), `env` is the
decision-stream env, `agent` the walkthrough oracle. Importing this package does
not import TextWorld; the modules do.
"""
