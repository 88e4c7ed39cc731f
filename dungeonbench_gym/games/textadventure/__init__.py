"""Z-machine text adventures scored by achievement files.

`zmachine` reads a story's memory (dictionary, object tree), `actions` finds the
valid actions by trying candidates, `achievements` parses and tracks achievement
files, `env` is the decision-stream env (Jericho's Frotz as the interpreter),
`check` the `achievements check` command, `agent` the exploring baseline.
"""
