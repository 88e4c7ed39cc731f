"""MiniHack tasks (BALROG's eight) behind the decision stream."""
