"""MMGR T1 maze verifier (pixel pipeline): images and videos."""

from .lattice import MazeSpec
from .verify import analyse_maze_image, verify_maze_image

__all__ = ["MazeSpec", "analyse_maze_image", "verify_maze_image"]
