"""MMGR T1 maze verifier (pixel pipeline): images and videos.

Arrays in, Result out: :func:`verify_image`, :func:`verify_video` (frames). Files:
:mod:`cvcheck.maze.task` (``verify_video_file``, ``grade_sample``).
"""

from .image import MazeImageAnalysis, analyse_image
from .lattice import MazeSpec
from .verify import as_spec, verify_image, verify_video
from .video import MazeVideoAnalysis, analyse_video

__all__ = ["MazeImageAnalysis", "MazeSpec", "MazeVideoAnalysis", "analyse_image", "analyse_video", "as_spec",
           "verify_image", "verify_video"]
