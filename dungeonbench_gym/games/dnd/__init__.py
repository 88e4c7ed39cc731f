"""D&D 5e encounters (our engine in dungeonbench_gym.dnd) behind the decision-stream contract."""
