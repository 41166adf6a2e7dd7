"""Read a drawn maze of any look: where it is, its grid, each wall segment, its markers.

One reader for every look met in practice (MMGR's lattice walls as wide as corridors,
maze-dataset ``MazePlot`` thin lines with axis ticks and labels, VMEvalKit's medium
lines with a faint cell grid and a caption touching the border...):

1. **Ink**: darkness relative to the paper (the bright end of the image), on unsaturated
   pixels only (coloured markers, paths and icons are not walls).
2. **Where**: the largest ink structure (a perfect maze's walls are one piece with its
   border); its outer border is the outermost rows/columns that are mostly ink, so text,
   ticks or captions glued to the border do not move it. The box is reported as the
   *centres* of the border lines.
3. **Grid**: ink starts and stops within half a wall of a cell boundary (the edges of
   thin lines, the unit boundaries of lattice walls; a light cell grid's lines count too);
   along each axis, the count is the smallest number of cells whose boundaries carry
   (almost) all those edges (``grid=`` overrides). An axis may also take the count the
   other's pitch implies for square cells - stretched as lattice walls are measured
   thicker one way (a square puzzle stretched to another aspect) - as far as its own edges
   lie on those lines (a comb of open boundaries leaves few); reading the walls decides
   between candidates.
4. **Walls**: each boundary segment is read by the darkest ink across the line (any
   thickness, from 1-px lines to lattice-wide walls) along its central half; a segment is
   a wall when that ink is closer to the border's than to the open segments'.
5. **Markers**: coloured blobs; the goal is the largest red one, the start the largest
   blob of another hue (a solution path spanning several cells is ignored).

All lengths are in image pixels unless named in cells; positions are ``(row, col)``.

Modules, in the order they build on each other: :mod:`.reading` (what is returned),
:mod:`.ink`, :mod:`.regions` (mask helpers), :mod:`.strokes` (line thickness), :mod:`.box`
(step 2), :mod:`.walls` (step 4), :mod:`.grid` (step 3), :mod:`.markers` (step 5), :mod:`.rims`
(the sides of the markers' cells read again without a marker's dark rim) and :mod:`.reader`,
which puts them together.
"""

from .box import find_box
from .grid import NARROWEST_CELL, estimate_grid
from .ink import colour_mask, ink_map
from .markers import BLUE, GREEN, HUE_CLASSES, RED_HUES, at_junction, find_markers, find_trails, in_window, on_post
from .reader import (
    KNOWN_AGREEMENT,
    SETTLE_FRAMES,
    keep_hidden_walls,
    known_fit,
    locate,
    locations,
    read_maze,
    read_walls_again,
    settle_walls,
)
from .reading import LATTICE_THICKNESS, Blocked, Box, Marker, MazeLook, MazeReading
from .walls import lattice_from_segments, wall_threshold

__all__ = [
    "BLUE", "GREEN", "HUE_CLASSES", "LATTICE_THICKNESS", "NARROWEST_CELL", "RED_HUES", "Blocked", "Box", "Marker",
    "MazeLook", "MazeReading", "at_junction", "colour_mask", "estimate_grid", "find_box", "find_markers", "find_trails",
    "in_window", "ink_map", "keep_hidden_walls", "KNOWN_AGREEMENT", "known_fit", "lattice_from_segments",
    "locate", "locations", "on_post", "read_maze",
    "read_walls_again", "settle_walls", "SETTLE_FRAMES", "wall_threshold",
]
