"""dungeonbench_gym: many games behind one Gymnasium decision stream.

Importing the package registers every id of `envs/` in Gymnasium's
`DungeonBench` namespace; `gymnasium.make("dungeonbench_gym:DungeonBench/<id>")`
does that import by itself.
"""

from .core import REGISTRY, ids, make, register_all, register_file

__version__ = "0.1.0"
__all__ = ["REGISTRY", "ids", "make", "register_file", "__version__"]

register_all()
