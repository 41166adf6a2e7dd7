"""Reader cases found on held-out maze-dataset corpora, drawn here by hand in a few lines:
a lattice whose border is the picture's edge, a maze cut by the frame's edges, the grey seam
video compression leaves along a marker."""

from __future__ import annotations

import numpy as np

from cvcheck.config import Config
from cvcheck.maze.read import read_maze
from cvcheck.maze.spec_io import spec_from_ascii
from cvcheck.maze.video import analyse_video
from cvcheck.schema import Unparseable

# 5 x 3 cells: walls as wide as corridors (MMGR's lattice), S start, E goal
ASCII = """
#######
#   #S#
# ### #
#     #
# #####
#     #
# # # #
# #E# #
# # # #
# # # #
#######
"""


def _lattice(unit: int) -> tuple[np.ndarray, object]:
    spec = spec_from_ascii(ASCII)
    walls = np.array([[ch == "#" for ch in line] for line in ASCII.strip("\n").splitlines()])
    img = np.where(np.kron(walls, np.ones((unit, unit), bool))[:, :, None], 0, 255).astype(np.uint8).repeat(3, axis=2)
    for (r, c), colour in ((spec.start, (0, 255, 0)), (spec.goal, (255, 0, 0))):
        img[r * unit:(r + 1) * unit, c * unit:(c + 1) * unit] = colour
    return img, spec


def test_a_lattice_filling_the_picture_reads_with_its_cell_count() -> None:
    img, spec = _lattice(64)  # 704 x 448: the border walls are the picture's edges
    reading = read_maze(img)
    assert not isinstance(reading, Unparseable), reading
    assert reading.look.grid == (5, 3)  # not 7 x 3 (a finer count paired with the wrong columns)
    assert np.array_equal(reading.spec.walls, spec.walls)


def test_a_grey_seam_along_a_marker_is_not_a_wall() -> None:
    img, spec = _lattice(30)
    r, c = spec.goal  # lattice cell; the corridor below it is open
    img[(r + 1) * 30, c * 30:(c + 1) * 30] = 124  # a 1-px grey seam along the goal's lower edge
    reading = read_maze(img)
    assert not isinstance(reading, Unparseable), reading
    assert np.array_equal(reading.spec.walls, spec.walls)


def test_a_maze_cut_by_the_frame_edges_is_still_analysed() -> None:
    img, spec = _lattice(40)  # 440 x 280, placed so that its border runs past the top and bottom
    frame = np.zeros((420, 640, 3), np.uint8)  # black letterbox bars merge with the border walls
    frame[:, 180:460] = img[10:430]
    frames = [frame.copy() for _ in range(16)]
    analysis = analyse_video(frames, spec, config=Config().maze)
    assert not isinstance(analysis, Unparseable), analysis
    assert float(np.min(analysis.ious)) > 0.9  # the canvas is the maze, not a black strip


def test_a_wall_across_the_whole_maze_is_a_wall_not_its_border() -> None:
    # a percolation maze (maze-dataset) may be cut in two by a wall from border to border;
    # with walls on both sides of it, it is not a frame's inner border
    cut = """
#########
#S      #
# ##### #
#    E  #
#########
# # #   #
#########
"""
    spec = spec_from_ascii(cut)
    walls = np.array([[ch == "#" for ch in line] for line in cut.strip("\n").splitlines()])
    img = np.where(np.kron(walls, np.ones((30, 30), bool))[:, :, None], 0, 255).astype(np.uint8).repeat(3, axis=2)
    for (r, c), colour in ((spec.start, (0, 255, 0)), (spec.goal, (255, 0, 0))):
        img[r * 30:(r + 1) * 30, c * 30:(c + 1) * 30] = colour
    reading = read_maze(img)
    assert not isinstance(reading, Unparseable), reading
    assert reading.look.grid == (3, 4)
    assert np.array_equal(reading.spec.walls, spec.walls)
