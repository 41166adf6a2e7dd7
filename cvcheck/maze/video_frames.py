"""Per-frame analysis of a maze video on a small rectified canvas.

Every frame is cropped to the maze (located once, re-located only when the layout
suddenly stops matching) and resampled to ``k`` pixels per lattice cell; all work
after that is on the canvas (a few hundred pixels a side), so the per-frame cost
stays a fraction of decoding.

Positions are *lattice coordinates*: lattice cell ``(i, j)`` spans ``[i, i+1) x
[j, j+1)``, so maze cell ``(r, c)`` has its centre at ``(2r+1.5, 2c+1.5)``. For the
thin-line style the maze box spans ``rows x cols`` cells whose boundary lines sit
at the centres of the wall lattice cells (``L = 2u + 0.5`` with ``u`` in cells), so
both styles share the lattice geometry of :class:`~cvcheck.maze.lattice.MazeSpec`.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from ..config import MazeConfig
from ..vision import colors
from ..vision.canvas import CanvasSampler, Runs
from ..vision.geometry import Box
from ..vision.labels import components
from ..vision.runs import lines_set
from ..vision.yuv import Frame, as_rgb_frame
from .extract import ecc_affine, refine_alignment
from .lattice import MazeSpec
from .metrics import _disk, upscale_cells
from .read import MazeLook, at_junction, locate, locations
from .style import StyleProfile, hue_mask

Rect = tuple[int, int, int, int]  #: (x, y, w, h) of a mask's set pixels; w = 0 when none

MERGE_RADIUS = 1.0   #: blobs of one colour closer than this (lattice cells) are one object
PART_OF = 0.6        #: ... unless both are at least this share of a whole one (two objects)
TRAIL_FACTOR = 2.2   #: an agent blob this much larger than the agent itself drags a trail
POST_RADIUS = 0.3    #: lattice cells: a blob smaller than PART_OF x the agent centred this near a wall
                     #: junction is a speck there (a distractor, a fringe), not the agent or part of it
RELOCATE_EVERY = 6   #: frames between attempts to re-locate a maze that stopped matching well
RELOCATE_BELOW = 0.92  #: wall IoU under which the maze is re-located (camera drift, zoom)
RELOCATE_DROP = 0.03   #: ... and again before RELOCATE_EVERY frames when it fell this much more since
RELOCATE_GAIN = 0.1    #: a maze matching below the layout threshold is re-located where it matches this much better
RELOCATE_RESIZE = 0.2  #: ... and, found elsewhere than the likeliest place, only this near its size (a share)
RELOCATE_ASPECT = 0.1  #: ... and anywhere only this near its aspect (a share: a camera's moves keep a maze's shape)
FAINT = 0.5           #: an agent blob down to this share of the minimum area is kept when it continues
                      #: an object seen in the last few frames that has no full-size continuation
CONTINUE_FRAMES = 8   #: ... last seen at most this many frames before
CONTINUE_RADIUS = 3.0  #: ... at most this far away (lattice cells; as far as the tracker links objects
CONTINUE_PER_FRAME = 0.5  #: between frames), plus this per frame it was not seen
GOAL_FAINT = 0.6      #: a goal found nowhere is still in place where its cell holds an object of its hue
                      #: at this share of the colour floor (paled by compression or grain, not gone)
FADE_SHARE = 0.75     #: line walls drawn this share as dark as they have been are read as drawn at that
                      #: darkness (a flickering frame); fainter, as faded out
VIVID_SHARE = 0.7     #: the agent's saturation floor: this share of how vivid it was last seen (its
                      #: upper-quartile saturation), never above the floor learned from the first frames
MOVER_SHARE = 0.4     #: a pale agent-hued object down to this share of the agent's learned saturation,
MOVER_NEW = 0.25      #: ... with at least this share of the agent's area coloured anew
MOVER_MIN_SATURATION = 40  #: ... and never under this saturation, is the agent moving (see _movers)
MOVER_SIZE = (0.3, 2.0)  #: a mover is the agent's size (its new and vivid pixels, shares of its area)
MOVER_ELONGATION = 3.0   #: ... and shape: its long axis at most this many times its short one
MOVER_STILL = 0.35    #: lattice cells: a mover is kept only beside an object that moved at most this far
STRIP_FPS = 4.0       #: frames this far apart or more (a strip: the agent steps a cell a frame) ...
MOVER_REACH = 1.0     #: ... need a mover's new pixels as far as this many agent radii from what was there
GHOST_PALER = 0.85    #: a blob at most this share as vivid as the agent beside it,
GHOST_FADED = 0.9     #: ... and at most this share as vivid as what stood there
GHOST_STILL = 0.5     #: ... a frame before (within this many lattice cells), is the agent's ghost (see _without_ghosts)
GHOST_SIZE = (0.3, 2.0)  #: ... where it is about the agent's size (shares of the agent blob's area)
NEAR_GOAL_FRAMES = 64  #: the canvas around the goal is kept for this many last frames (see pale_near_goal)
PALE_SHARE = 0.3      #: an object down to this share of the agent's learned saturation is the agent paled ...
PALE_MIN_SATURATION = 40  #: ... and never under this saturation (see pale_near_goal)
MIN_TURN = 0.3       #: degrees: a thin-line maze turned this much is also looked for turned upright,
TURN_STEP = 0.3      #: ... by the turn its lines suggest and by this much more and less
ALIGN_CELL_PX = 8    #: thin lines are lined up on pictures of at most this many pixels a cell
BALANCE_SECONDS = 0.5  #: video time between readings of the paper's colour (a white balance drifts slowly)
BALANCE_FROM = 0.015  #: the canvas is white-balanced once a channel's gain would move this far from 1,
BALANCE_STEP = 0.01  #: ... its gains set anew when they would move this much more,
BALANCE_UNTIL = 0.0075  #: ... and left alone again when every gain would come back this close to 1
PAPER_MIN_VALUE = 120  #: paper samples: at least this bright (V) ...
PAPER_MAX_CHROMA = 0.3  #: ... and at most this share of V in chroma (a cast paper, not a coloured object)
WALL_SPLIT_MAX = 150  #: lattice walls: a neutral pixel under halfway from the walls' value to the paper's, and
                      #: under this V, is wall too (see _wall_split)


@dataclass(frozen=True)
class Blob:
    """A coloured object in one frame (lattice coordinates)."""

    row: float
    col: float
    area: float           #: lattice cells^2
    overlap: float = 0.0  #: share of its pixels inside eroded wall cores (lattice style)
    fresh: bool = True    #: False when the position is held from an earlier frame (a still trail)


@dataclass(frozen=True)
class _AgentMemo:
    """What a frame's agent mask gave, kept for the next frame if its canvas is the same."""

    floor: int                  #: the saturation floor it was read at
    mask: np.ndarray
    rect: Rect
    blobs: list[Blob]
    largest: float | None       #: the area handed to ``_reference_area`` (None: none was)


@dataclass(frozen=True)
class FrameObs:
    """What one frame shows."""

    index: int                      #: analysed frame number (0-based, after stride)
    iou: float                      #: wall layout IoU against the reference
    agents: tuple[Blob, ...]        #: agent-coloured objects
    goal: Blob | None               #: the largest goal-coloured object
    located: bool = True
    goal_covered: float = 0.0       #: share of the reference goal cell covered by agent-coloured pixels
    goal_faint: bool = False        #: the goal was found only paled in its cell (its size not measured)


class FrameAnalyser:
    """Turns frames into :class:`FrameObs` for one reference maze and style.

    Parameters
    ----------
    spec : MazeSpec
    style : StyleProfile
    config : MazeConfig
        ``video_canvas_cell_px`` (canvas pixels per lattice cell), ``video_wall_erosion``.
    fps : float
        The frames' rate (the paper's colour is read every BALANCE_SECONDS of video).
    agent_seen : (frame, row, col), optional
        Where the agent was seen when its look was learned (maze cells; see
        :attr:`~cvcheck.maze.look.AgentLook.seen_at`): until an agent blob is first kept, a
        faint blob continuing it is kept, as one continuing an agent kept lately (a small
        agent paled by blur and drift is at its faintest on the start, where nothing came
        before it).
    """

    def __init__(self, spec: MazeSpec, style: StyleProfile, config: MazeConfig, *,
                 look: MazeLook | None = None, k: int | None = None, fps: float = 24.0,
                 agent_seen: tuple[int, float, float] | None = None) -> None:
        self.spec, self.style, self.cfg = spec, style, config
        self.k = k = int(k or config.video_canvas_cell_px)
        rows, cols = spec.shape
        self.lines = style.walls == "lines"
        self.pad = k // 4 if self.lines else 0  #: canvas margin (px) so jittered border lines stay inside
        self.grid = (2 * rows, 2 * cols) if self.lines else spec.walls.shape
        self.offset = 0.5 if self.lines else 0.0
        self.box: Box | None = None
        self.warp: np.ndarray | None = None
        self._sampler: CanvasSampler | None = None
        # kept across frames, brought up to date in the canvas rows that changed
        self._stale = False                         # rebuild them all on the next frame
        self._hsv: np.ndarray | None = None
        self._raw: np.ndarray | None = None         # the canvas as sampled, before the white balance
        self._balanced: np.ndarray | None = None    # ... after it (while a balance is applied)
        self._balance_gains: np.ndarray | None = None  # (3,) the per-channel gains applied (None: none)
        self._balance_lut: np.ndarray | None = None    # ... as a (1, 256, 3) uint8 table
        self._paper_cast: np.ndarray | None = None  # the paper's colour over its mean in the first frame read
        self._paper_every = max(1, int(round(BALANCE_SECONDS * fps)))  # frames between readings ...
        self._strip = fps <= STRIP_FPS              # frames a step of the agent apart (see _movers)
        self._paper_due = 0                         # ... and frames until the next (a changed frame's)
        self._goal_mask: np.ndarray | None = None
        self._goals: list[Blob] | None = None
        self._agent_hue: np.ndarray | None = None   # agent-hued pixels at the lowest floor (see _agent_mask)
        self._agent_rows = np.zeros(0, bool)        # ... which of its rows have any
        self._goal_rows = np.zeros(0, bool)         # which rows of the goal mask have any
        self._iou: float | None = None
        self._row_counts: np.ndarray | None = None  # lattice: (intersection, union) per canvas row
        self._split: int | None = None              # lattice: the V a neutral wall pixel is under (_wall_split)
        self._slot_sums: dict[bool, tuple[np.ndarray, np.ndarray]] = {}  # lines: per segment, see _line_means
        self.relocations = 0
        self._last_relocate = -RELOCATE_EVERY
        self._relocate_iou = 1.0  # the wall IoU at the last attempt
        self._missed = 0  # attempts in a row that kept nothing
        self._wall_cells = look.wall_thickness if look is not None else 0.0  # drawn wall width, cells
        self._line_templates: dict[tuple[tuple[int, int], float], np.ndarray] = {}  # (lines) see _line_warp
        self._ecc_found: np.ndarray | None = None  # ... the warp its first seed converged to
        if self.lines:
            self._init_slots()
            self.core = None
        else:
            self.ref_px = upscale_cells(spec.walls, k)
            # Layout IoU ignores a 1-px band along the reference wall edges (1/k of a cell):
            # frame jitter, blur and resampling move edges, never whole walls.
            ring = cv2.dilate(self.ref_px.astype(np.uint8), np.ones((3, 3), np.uint8)) \
                - cv2.erode(self.ref_px.astype(np.uint8), np.ones((3, 3), np.uint8))
            self.iou_care = ring == 0
            self.ref_care = self.ref_px & self.iou_care
            e = max(1, int(round(config.video_wall_erosion * k)))
            self.core = cv2.erode(self.ref_px.astype(np.uint8), _disk(e)) * np.uint8(255)  # 0/255
        self.agent_min_px = max(2.0, style.agent_min_area * k * k)
        self.agent_px = style.agent_area * k * k if style.agent_area else None  # learned (detected looks)
        self._ref_samples: list[float] = []      # agent areas (px) in the first frames it is seen
        self._prev_agent: np.ndarray | None = None
        self._prev_box: Rect = (0, 0, 0, 0)  # where _prev_agent has pixels
        self._one = np.ones((1, 1), np.uint8)
        self._last_head: tuple[float, float] | None = None
        self._agent_memo: _AgentMemo | None = None
        self._trail_read: tuple[float | None, bool] = (None, False)
        self._recent: list[tuple[int, float, float]] = []  # (frame, row, col) of agent blobs kept lately
        # the last frame analysed, its fresh agent blobs kept and how vivid each was (see _without_ghosts)
        self._last_agents: tuple[int, list[tuple[Blob, float | None]]] | None = None
        # where the agent's look was learned, as if kept the frame before: continued by faint
        # blobs only, and only until an agent blob is first kept (see _continued)
        self._seed = None if agent_seen is None else (agent_seen[0] - 1, 2 * agent_seen[1] + 0.5,
                                                      2 * agent_seen[2] + 0.5)
        self.agent_floor = style.agent_saturation  #: follows the agent's vividness down (see _follow_vividness)
        vivid = style.agent_vividness
        self.mover_floor = int(max(MOVER_MIN_SATURATION, MOVER_SHARE * vivid)) if vivid and self.agent_px else None
        self._pale: np.ndarray | None = None      # agent-hued pixels at the mover floor (see _movers)
        self.lowest_agent_floor = self.agent_floor
        self.goal_min_px = max(2.0, style.goal_min_area * k * k)
        self._goal_px = (np.array(spec.goal, float) + 0.5 - self.offset) * k + self.pad  # goal cell centre, canvas px
        self._goal_window = tuple(slice(max(0, int(c - 0.6 * k)), int(c + 0.6 * k) + 1) for c in self._goal_px)
        # the goal's cell and its neighbours (a maze cell is 2k canvas px wide on a lines
        # canvas, k on a lattice one, 2k from the next), kept for the last frames
        self._near_goal_at = tuple(slice(max(0, int(c) - 3 * k), int(c) + 3 * k + 1) for c in self._goal_px)
        half = k if self.lines else k // 2 + 1  # the goal's own cell (see _faint_goal)
        self._goal_cell_at = tuple(slice(max(0, int(c) - half), int(c) + half + 1) for c in self._goal_px)
        self._near_goal: deque[tuple[int, np.ndarray]] = deque(maxlen=NEAR_GOAL_FRAMES)
        self.pale_floor = int(max(PALE_MIN_SATURATION, PALE_SHARE * vivid)) if vivid and self.agent_px else None
        self._paper_at = self._paper_points()
        if look is not None:
            self._place(look.box)

    def _paper_points(self) -> tuple[np.ndarray, np.ndarray]:
        """Canvas pixels (rows, columns) where the paper shows: each maze cell's centre and
        four points half a lattice cell from it (thin lines), or the centres of the
        reference's open lattice cells (lattice walls)."""
        k, pad = self.k, self.pad
        if self.lines:
            rows, cols = self.spec.shape
            cy, cx = np.meshgrid((2 * np.arange(rows) + 1) * k + pad, (2 * np.arange(cols) + 1) * k + pad,
                                 indexing="ij")
            d = k // 2
            offsets = [(0, 0), (-d, 0), (d, 0), (0, -d), (0, d)]
            ys = np.concatenate([(cy + dy).ravel() for dy, _ in offsets])
            xs = np.concatenate([(cx + dx).ravel() for _, dx in offsets])
        else:
            ys, xs = np.nonzero(~self.spec.walls)
            ys, xs = ys * k + k // 2, xs * k + k // 2
        return ys.astype(np.intp), xs.astype(np.intp)

    # -- geometry ----------------------------------------------------------------------------
    def _lattice(self, canvas_px: float) -> float:
        """A canvas pixel coordinate (row or column, pixel centres at +0.5) in lattice cells."""
        return float((canvas_px + 0.5 - self.pad) / float(self.k) + self.offset)

    @property
    def _full_size(self) -> float:
        """The smallest full-size agent blob, lattice cells^2 (fainter ones: see _continued)."""
        return self.agent_min_px / (self.k * self.k)

    def _place(self, centre: tuple[float, float, float, float]) -> None:
        """Set the crop box from the border lines' centres (lines: those; lattice: the outer
        edges of walls half a cell pitch wide)."""
        t, l, b, r = centre
        if self.lines:
            self.box = (int(round(t)), int(round(l)), int(round(b)), int(round(r)))
        else:
            hy, hx = (b - t) / self.spec.shape[0] / 4, (r - l) / self.spec.shape[1] / 4
            self.box = (int(round(t - hy + 0.5)), int(round(l - hx + 0.5)), int(round(b + hy + 0.5)),
                        int(round(r + hx + 0.5)))
        self.warp = None

    def _located(self, frame: Frame, near: Box | None) -> Iterator[bool]:
        """Place the maze at each place :func:`~.read.locations` finds it in ``frame`` in turn
        (the alignment polished), the likeliest first, and the others only where they are
        about the size of ``near`` (where it was placed: RELOCATE_RESIZE) - a maze redrawn
        matches a part of itself, placed as the whole, better than as it is (mazeworld 84848
        v00074: walls redrawn, re-located onto its lower three quarters, crossings read
        against the wrong walls); any only at about its aspect (RELOCATE_ASPECT: a plot's
        frame a half column wider than a small maze matched it stretched, 27182 v00052)."""
        for i, box in enumerate(locations(as_rgb_frame(frame), self.spec.shape)):
            self._place(box)
            if near is not None and self.box is not None and \
                    (i and not _about_as_large(self.box, near) or not _shaped_alike(self.box, near)):
                continue
            if self.box is not None:
                canvas = self.canvas(frame)
                self.warp = self._line_warp(canvas) if self.lines else refine_alignment(canvas, self.ref_px)[1]
            yield True

    def _relocate(self, frame: Frame, iou: float) -> tuple[float, np.ndarray, np.ndarray] | None:
        """Place the maze anew where it matches better (:meth:`_placings`, the best of them);
        returns the wall IoU, canvas and HSV canvas there, or None where it stays put."""
        old = (self.box, self.warp)
        good = max(RELOCATE_BELOW, self.cfg.layout_iou_min)
        # (the costlier ways of thin lines: on the 1st, 2nd, 4th, 8th ... attempt in a row that
        # kept nothing - a maze redrawn for good is tried again and again)
        thorough = (self._missed & (self._missed - 1)) == 0
        best: tuple[float, np.ndarray, np.ndarray, tuple[Box | None, np.ndarray | None]] | None = None
        last = None
        for placed in self._placings(frame, old[0], thorough=thorough):
            if placed:
                canvas = self.canvas(frame)
                hsv = cv2.cvtColor(canvas, cv2.COLOR_RGB2HSV)
                new_iou = self._layout(canvas, hsv, None)
                last = (self.box, self.warp)
                if best is None or new_iou > best[0]:
                    best = (new_iou, canvas.copy(), hsv, last)
                if best[0] >= good:
                    break
        # the maze moved, not changed: it matches well where it was found again - or, when it
        # no longer matches well anywhere (walls redrawn), clearly better there
        if best is None or not (best[0] > iou + 0.02 and best[0] > self.cfg.layout_iou_min
                                or best[0] > iou + RELOCATE_GAIN):
            self.box, self.warp = old
            self._missed += 1
            return None
        self.box, self.warp = best[3]
        if best[3] is not last:
            self._sample(frame)  # (the sampler set up again for the place kept)
        self.relocations += 1
        self._relocate_iou = best[0]
        self._missed = 0
        return best[0], best[1], best[2]

    def _placings(self, frame: Frame, box: Box | None, *, thorough: bool = True) -> Iterator[bool]:
        """Place the maze anew in each way there is to try, saying whether it was placed: found again
        (:meth:`_located`: each place it may be) and, for thin lines, also where it was, turned,
        tilted or zoomed further from how it was lined up to line up again (a camera that rolled:
        the border found again is then no longer where the lines were, mazeworld 81818 v00099
        rolled), placed where that warp says its border now is (:meth:`_follow`: a camera that
        tilted or drifted, mazeworld 81818 v00101 tilted), and found again in the frame turned
        upright by as much as that warp turns (a camera that rolled and drifted: the maze partly out
        of where it was, 60606 v00021 rolled); the thin lines' ways only when ``thorough``."""
        warp = self.warp
        yield from self._located(frame, box)
        if self.lines and box is not None and thorough:
            self.box, self.warp = box, None
            self.warp = self._line_warp(self.canvas(frame), start=warp)
            yield self.warp is not None
            if (found := self._ecc_found) is not None:
                yield self._follow(frame, box, found)
                if abs(turn := _turn(found)) >= MIN_TURN:
                    for degrees in (turn, turn - TURN_STEP, turn + TURN_STEP):  # (upright to a few tenths)
                        yield self._locate_turned(frame, box, degrees)

    def _follow(self, frame: Frame, box: Box, warp: np.ndarray) -> bool:
        """Place the maze where ``warp`` (found on the canvas of ``box``) says its border lines
        are now - a camera that drifted, zoomed or tilted has carried it partly out of that
        canvas, which no warp of it brings back - and line it up there."""
        self.box, self.warp = box, None
        window, (cw, ch), _ = self.sampling(frame.shape)
        k, pad = self.k, self.pad
        hk, wk = self.grid[0] * k, self.grid[1] * k
        corners = np.array([[pad, pad, 1.0], [pad + wk, pad, 1.0], [pad + wk, pad + hk, 1.0], [pad, pad + hk, 1.0]])
        xs, ys = (corners @ warp.astype(np.float64).T).T  # on the canvas
        wt, wl, wb, wr = window
        fx = wl + (xs + 0.5) * (wr - wl) / cw - 0.5  # in the frame
        fy = wt + (ys + 0.5) * (wb - wt) / ch - 0.5
        self._place((float(fy[:2].mean()), float(fx[[0, 3]].mean()), float(fy[2:].mean()), float(fx[1:3].mean())))
        self.warp = self._line_warp(self.canvas(frame))  # (None: it lines up as well as it is)
        return True

    def _locate_turned(self, frame: Frame, box: Box, degrees: float) -> bool:
        """Find the maze in ``frame`` turned upright (by ``degrees`` about the centre of
        ``box``, where it was), then place it there in the frame as it is, lined up by a warp
        from that turn where that lines it up better; False when it is not found."""
        rgb = as_rgb_frame(frame)
        h, w = rgb.shape[:2]
        cx, cy = (box[1] + box[3]) / 2, (box[0] + box[2]) / 2
        upright = cv2.warpAffine(rgb, cv2.getRotationMatrix2D((cx, cy), -degrees, 1.0), (w, h),
                                 flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        centre = locate(upright, self.spec.shape)
        if centre is None:
            return False
        t, l, b, r = centre
        # the found box's centre, back in the frame as it is (turned by ``degrees`` about (cx, cy))
        back = cv2.getRotationMatrix2D((cx, cy), degrees, 1.0) @ np.array([(l + r) / 2, (t + b) / 2, 1.0])
        dx, dy = float(back[0]) - (l + r) / 2, float(back[1]) - (t + b) / 2
        self._place((t + dy, l + dx, b + dy, r + dx))
        canvas = self.canvas(frame)
        ch, cw = canvas.shape[:2]
        start = cv2.getRotationMatrix2D((cw / 2, ch / 2), degrees, 1.0).astype(np.float32)
        self.warp = self._line_warp(canvas, start=start)  # (None: it lines up as well unturned)
        return True

    def _line_warp(self, canvas: np.ndarray, start: np.ndarray | None = None) -> np.ndarray | None:
        """The affine warp that lines a thin-line maze's canvas up with the reference's lines
        (a camera that turned, tilted or zoomed since the first frame), or None where it lines
        up no better: ECC between the canvas's neutral ink and the reference's lines drawn as
        thick as the maze's, both blurred - coarsely first (thin lines a few pixels off have
        no overlap to climb), then finely - from ``start`` (the identity by default). Both
        are compared at ALIGN_CELL_PX pixels a cell at most (a large canvas costs ECC dearly)."""
        hsv = cv2.cvtColor(canvas, cv2.COLOR_RGB2HSV)
        h, w = canvas.shape[:2]
        scale = min(1.0, ALIGN_CELL_PX / (2 * self.k))
        size = (max(8, int(round(w * scale))), max(8, int(round(h * scale))))
        to_small = np.array([[size[0] / w, 0, 0.5 * size[0] / w - 0.5], [0, size[1] / h, 0.5 * size[1] / h - 0.5],
                             [0, 0, 1]])  # canvas pixel centres -> the compared pictures'
        ink = _neutral_dark(hsv, self.style)[0].astype(np.float32)
        pictures = [(self._lines_drawn(canvas.shape[:2], size, sigma), _shrunk(ink, size, sigma))
                    for sigma in (max(3.0, 0.5 * self.k) * scale, max(1.0, 0.15 * self.k * scale))]
        # seeds: how it was lined up, and the shift that best lines it up as it is (a camera that
        # drifted farther than the coarse blur reaches)
        (dx, dy), _ = cv2.phaseCorrelate(*pictures[0])
        seeds = [np.eye(2, 3, dtype=np.float32) if start is None else _conjugate(start, to_small),
                 np.array([[1, 0, dx], [0, 1, dy]], np.float32)]
        before = self._layout(canvas, hsv, None)
        best, best_iou = None, before + 0.005
        self._ecc_found = None
        for seed in seeds:
            warp: np.ndarray | None = seed
            for template, picture in pictures:
                warp = None if warp is None else ecc_affine(template, picture, start=warp)
            if warp is None:
                continue
            warp = _conjugate(warp, np.linalg.inv(to_small))
            if self._ecc_found is None:  # (the turn it suggests: see _placings)
                self._ecc_found = warp
            warped = cv2.warpAffine(canvas, warp, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                    borderMode=cv2.BORDER_REPLICATE)
            after = self._layout(warped, cv2.cvtColor(warped, cv2.COLOR_RGB2HSV), None)
            if after > best_iou:
                best, best_iou = warp, after
        return best

    def _lines_drawn(self, shape: tuple[int, ...], size: tuple[int, int], sigma: float) -> np.ndarray:
        """The reference's wall lines on a canvas of ``shape``, as thick as the maze draws its
        walls, shrunk to ``size`` (width, height) and blurred by ``sigma`` (float32; what
        the ink of a canvas in place looks like; kept)."""
        if (template := self._line_templates.get((size, sigma))) is not None:
            return template
        k, pad = self.k, self.pad
        out = np.zeros(shape[:2], np.float32)
        width = max(1, int(round(self._wall_cells * 2 * k)))
        for r, c in zip(*np.nonzero(self.ref_v)):
            x = c * 2 * k + pad
            cv2.line(out, (int(x), int(r * 2 * k + pad)), (int(x), int((r + 1) * 2 * k + pad)), 255.0, width)
        for r, c in zip(*np.nonzero(self.ref_h)):
            y = r * 2 * k + pad
            cv2.line(out, (int(c * 2 * k + pad), int(y)), (int((c + 1) * 2 * k + pad), int(y)), 255.0, width)
        template = self._line_templates[(size, sigma)] = _shrunk(out, size, sigma)
        return template

    def sampling(self, shape: tuple[int, ...]) -> tuple[tuple[int, int, int, int], tuple[int, int], bool]:
        """How a frame of ``shape`` is sampled onto the canvas: the window (top, left,
        bottom, right; frame pixels, may reach past the frame), the canvas size (width,
        height) and whether by point samples (else area, then linear)."""
        assert self.box is not None
        t, l, b, r = self.box
        if self.lines:  # area resampling with a margin: thin border lines must survive
            hk, wk = self.grid[0] * self.k, self.grid[1] * self.k
            mr = int(round(self.pad * (b - t) / hk))
            mc = int(round(self.pad * (r - l) / wk))
            return (t - mr, l - mc, b + mr, r + mc), (wk + 2 * self.pad, hk + 2 * self.pad), False
        size = (self.grid[1] * self.k, self.grid[0] * self.k)
        # Point sampling where the maze lies inside the frame at 2x the canvas or more: ~10x
        # cheaper than area-resampling the whole crop, and thick lattice walls and markers
        # (several canvas pixels wide) lose nothing.
        inside = t >= 0 and l >= 0 and b <= shape[0] and r <= shape[1]
        return (t, l, b, r), size, inside and b - t >= 2 * size[1] and r - l >= 2 * size[0]

    def canvas(self, frame: Frame) -> np.ndarray:
        """The maze region of ``frame`` at ``k`` pixels per lattice cell (RGB uint8, owned
        by the analyser until the next frame); a :class:`~cvcheck.vision.yuv.YuvFrame` is
        resampled in YUV and only the canvas converted."""
        return self._sample(frame)[0]

    def _sample(self, frame: Frame) -> tuple[np.ndarray, Runs]:
        """The canvas (white-balanced, see :meth:`_read_paper`) and the runs of its rows that
        were resampled anew (all, when warped)."""
        window, size, nearest = self.sampling(frame.shape)
        sampler = self._sampler
        if sampler is None or sampler.window != window or sampler.size != size or sampler.nearest != nearest:
            sampler = self._sampler = CanvasSampler(window, size, nearest=nearest,
                                                    tolerance=self.cfg.video_reuse_tolerance)
            self._stale = True
        canvas, runs = sampler.sample(frame)
        if self.warp is not None:
            h, w = canvas.shape[:2]
            canvas = cv2.warpAffine(canvas, self.warp, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                    borderMode=cv2.BORDER_REPLICATE)
            runs = [(0, h)]
        self._raw = canvas
        return self._balance(canvas, runs)

    def _balance(self, canvas: np.ndarray, runs: Runs) -> tuple[np.ndarray, Runs]:
        """``canvas`` through the white balance in force (none: as it is), brought up to date
        in ``runs`` (a buffer kept across frames)."""
        lut = self._balance_lut
        if lut is None:
            return canvas, runs
        out = self._balanced
        if out is None or out.shape != canvas.shape:
            out = self._balanced = np.empty_like(canvas)
            runs = [(0, canvas.shape[0])]
        for r0, r1 in runs:
            cv2.LUT(canvas[r0:r1], lut, dst=out[r0:r1])
        return out, runs

    def _read_paper(self) -> bool:
        """Read the paper's colour on the last canvas sampled and set the white balance that
        brings it back to the paper's colour in the first frame read (the same brightness:
        only the ratios between channels - a video's white balance drifts, warm or cool, and
        a faint line's ink, measured as darkness less chroma, would fade into a tinted paper);
        True when the balance in force changed (the canvas must be balanced anew)."""
        raw = self._raw
        if raw is None:
            return False
        px = raw[self._paper_at]
        hsv = cv2.cvtColor(px[:, None], cv2.COLOR_RGB2HSV)[:, 0]  # (S: chroma over V, 0-255)
        paper = px[(hsv[:, 2] >= PAPER_MIN_VALUE) & (hsv[:, 1] <= int(PAPER_MAX_CHROMA * 255))]
        if len(paper) < max(4, len(px) // 4):  # mostly covered or dark: no paper to read
            return False
        colour = np.sort(paper, axis=0)[len(paper) // 2].astype(np.float32)  # (each channel's median)
        mean = max(1.0, float(colour.sum()) / 3)
        cast = colour / mean
        if self._paper_cast is None:
            self._paper_cast = cast
            return False
        gains = self._paper_cast / cast
        gains *= mean / max(1.0, float(colour @ gains) / 3)  # (the same brightness)
        off = float(np.abs(gains - 1.0).max())
        applied = self._balance_gains
        if applied is None:
            if off < BALANCE_FROM:
                return False
        elif off < BALANCE_UNTIL:
            self._balance_gains = self._balance_lut = None
            return True
        elif float(np.abs(gains - applied).max()) < BALANCE_STEP:
            return False
        levels = np.arange(256, dtype=np.float32)[:, None] * gains[None, :]
        self._balance_gains = gains
        self._balance_lut = np.clip(np.rint(levels), 0, 255).astype(np.uint8)[None]
        return True

    # -- per frame ---------------------------------------------------------------------------
    def analyse(self, frame: Frame, index: int) -> tuple[FrameObs, np.ndarray]:
        """What ``frame`` shows, and its canvas (owned by the analyser until the next frame).

        Work on the canvas follows the rows the sampler resampled anew: the colours, the
        layout and the goal of the rows that did not change are kept from the last frame."""
        canvas, runs = self._sample(frame)
        self._paper_due -= 1
        if runs and self._paper_due <= 0:  # (an unchanged frame shows the same paper)
            self._paper_due = self._paper_every
            if self._read_paper():
                assert self._raw is not None
                canvas, runs = self._balance(self._raw, [(0, self._raw.shape[0])])
        if self._stale:
            runs, self._stale = [(0, canvas.shape[0])], False
        hsv = self._hsv_rows(canvas, runs)
        iou = self._layout(canvas, hsv, runs)
        # a camera drifting slowly is re-located again as soon as the match keeps falling
        due = index - self._last_relocate >= RELOCATE_EVERY or iou < self._relocate_iou - RELOCATE_DROP
        if iou < max(RELOCATE_BELOW, self.cfg.layout_iou_min) and due:
            self._last_relocate, self._relocate_iou = index, iou
            if (moved := self._relocate(frame, iou)) is not None:
                iou, canvas, hsv = moved
                runs, self._stale = [(0, canvas.shape[0])], True  # what is kept followed the old place
        agent, agents = self._agents(index, hsv, runs)
        goals = self._goal_blobs(hsv, runs)
        best_goal = max(goals, key=lambda b: b.area) if goals else self._faint_goal(hsv)
        faint = best_goal is not None and not goals
        covered = float(np.count_nonzero(agent[self._goal_window])) / max(1, agent[self._goal_window].size)
        if self.pale_floor is not None:
            self._near_goal.append((index, hsv[self._near_goal_at].copy()))
        return FrameObs(index=index, iou=iou, agents=tuple(agents), goal=best_goal, goal_covered=covered,
                        goal_faint=faint), canvas

    def _agents(self, index: int, hsv: np.ndarray, runs: Runs) -> tuple[np.ndarray, list[Blob]]:
        """The agent mask of frame ``index`` and the agent blobs kept in it (its objects less
        the agent's ghost, then its movers: :meth:`_continued`); the saturation floor follows
        how vivid they are."""
        agent, found = self._agent_objects(hsv, runs)
        found = self._without_ghosts(index, hsv, found)
        agents = self._continued(index, found, self._movers(hsv, runs, agent, look=not self._seen_moving(found)))
        around = []
        for b in agents:
            if b.fresh:
                sat = self._saturations_around(hsv, b)
                around.append((b, sat, _vivid(sat)))
        self._last_agents = (index, [(b, vivid) for b, _, vivid in around])
        self._follow_vividness(around)
        return agent, agents

    def pale_near_goal(self) -> list[tuple[int, list[Blob]]]:
        """Per frame of the last NEAR_GOAL_FRAMES analysed: the agent-hued objects in and
        around the goal's cell down to the pale floor (PALE_SHARE of the agent's learned
        saturation, at least PALE_MIN_SATURATION) and of about the agent's size (MOVER_SIZE),
        as ``(frame, objects)``; empty for a fixed style (no look learned). Heavy compression
        wipes most of a small agent's colour once it stops, far under the floor it is followed
        at (mazeworld 60606 v00145 zoomed, drifted and crushed: saturation 45-65 once it
        left the goal, 130-140 before); :func:`~.video_metrics.seen_pale_off_goal` reads them.

        A piece of something larger that was there the frame before - most of its pixels
        in a larger object then, or in such a piece - is left out, in every frame it stands:
        a trail an arrival icon cuts off where the agent stood, the agent-sized part left
        showing (mazeworld 15151 v00103, a 1-fps strip: "the agent left the goal")."""
        if self.pale_floor is None or self.agent_px is None:
            return []
        origin = (self._near_goal_at[0].start, self._near_goal_at[1].start)
        lo, hi = MOVER_SIZE[0] * self.agent_px, MOVER_SIZE[1] * self.agent_px
        out: list[tuple[int, list[Blob]]] = []
        was_there: np.ndarray | None = None  # the last frame's pixels of larger objects and their pieces
        for index, window in self._near_goal:
            found, labels = self._labelled_objects(window, origin, self.style.agent_hue, self.pale_floor)
            there = np.zeros(window.shape[:2], bool)
            kept = []
            for i, (px, b) in enumerate(found, start=1):
                if lo <= px <= hi:
                    if was_there is None or 2 * np.count_nonzero(was_there[labels == i]) < px:
                        kept.append(b)
                        continue
                if px >= lo:  # (a larger object, or a piece of one)
                    there |= labels == i
            out.append((index, kept))
            was_there = there
        return out

    def _objects_in(self, window: np.ndarray, origin: tuple[int, int], hue: tuple[int, int],
                    floor: int) -> list[tuple[float, Blob]]:
        """The objects of ``hue`` at saturation ``floor`` or more in ``window`` (HSV, a part of
        the canvas from canvas pixel ``origin``), each as (area in canvas pixels, Blob)."""
        return self._labelled_objects(window, origin, hue, floor)[0]

    def _labelled_objects(self, window: np.ndarray, origin: tuple[int, int], hue: tuple[int, int],
                          floor: int) -> tuple[list[tuple[float, Blob]], np.ndarray]:
        """:meth:`_objects_in`, and the label image (object ``i`` of the list is label ``i + 1``)."""
        if window.size == 0:
            return [], np.zeros(window.shape[:2], np.int32)
        mask = hue_mask(window, hue, min_saturation=floor, min_value=self.style.min_value)
        count, labels, stats, cents = components(mask)
        k, (y0, x0) = float(self.k), origin
        out = []
        for i in range(1, count):
            px = float(stats[i, cv2.CC_STAT_AREA])
            out.append((px, Blob(row=self._lattice(cents[i][1] + y0), col=self._lattice(cents[i][0] + x0),
                                 area=px / (k * k))))
        return out, labels

    def _hsv_rows(self, canvas: np.ndarray, runs: Runs) -> np.ndarray:
        """The canvas in HSV, converted again in ``runs`` only (a buffer kept across frames)."""
        if self._hsv is None or self._hsv.shape != canvas.shape:
            self._hsv = np.empty_like(canvas)
            runs = [(0, canvas.shape[0])]
        for r0, r1 in runs:
            self._hsv[r0:r1] = cv2.cvtColor(canvas[r0:r1], cv2.COLOR_RGB2HSV)
        return self._hsv

    def _agent_objects(self, hsv: np.ndarray, runs: Runs) -> tuple[np.ndarray, list[Blob]]:
        """The agent mask and the agent-coloured objects in it. A frame whose canvas did not
        change at all, read at the same saturation floor, has the last frame's (unless a
        trail was followed: where it ends depends on when its pixels turned)."""
        memo = self._agent_memo
        if not runs and memo is not None and memo.floor == self.agent_floor:
            self._count_trail(memo.mask, memo.rect)
            if memo.largest is not None:
                self._reference_area(memo.largest)  # (its state moves on as if the frame were read)
            return memo.mask, memo.blobs
        floor = self.agent_floor
        mask, rect = self._agent_mask(hsv, runs)
        self._count_trail(mask, rect)
        self._trail_read = (None, False)
        blobs = self._blobs(mask, rect, FAINT * self.agent_min_px, with_overlap=True, trail=True)
        largest, followed = self._trail_read
        self._agent_memo = None if followed else _AgentMemo(floor, mask, rect, blobs, largest)
        return mask, blobs

    def _count_trail(self, mask: np.ndarray, rect: Rect) -> None:
        """Count the frames each canvas pixel has been agent-coloured for (saturating at 255;
        ``mask`` is 0/255), only where it or the last frame's mask has pixels (elsewhere 0)."""
        if self._prev_agent is None or self._prev_agent.shape != mask.shape:
            self._prev_agent, self._prev_box = np.zeros(mask.shape, np.uint8), (0, 0, 0, 0)
            self._one = np.ones(mask.shape, np.uint8)
        bx, by, bw, bh = _union(self._prev_box, rect)
        if bw:
            region = self._prev_agent[by:by + bh, bx:bx + bw]
            cv2.add(region, self._one[by:by + bh, bx:bx + bw], dst=region)
            cv2.bitwise_and(region, mask[by:by + bh, bx:bx + bw], dst=region)
            x, y, w, h = _rect(region)
            self._prev_box = (x + bx, y + by, w, h)

    def _agent_mask(self, hsv: np.ndarray, runs: Runs) -> tuple[np.ndarray, Rect]:
        """Agent-coloured pixels at today's saturation floor (uint8 0/255) and the box
        around them: those of the agent's hue and value as vivid as the floor can ever be
        (kept, brought up to date in ``runs``), less those under today's floor (looked at
        only where there are any)."""
        st = self.style
        lowest = min(st.min_saturation, st.agent_saturation)  # (_follow_vividness never goes below)
        if self._agent_hue is None or self._agent_hue.shape != hsv.shape[:2]:
            self._agent_hue, self._agent_rows = np.zeros(hsv.shape[:2], np.uint8), np.zeros(hsv.shape[0], bool)
            runs = [(0, hsv.shape[0])]
        for r0, r1 in runs:
            self._agent_hue[r0:r1] = hue_mask(hsv[r0:r1], st.agent_hue, min_saturation=lowest, min_value=st.min_value)
            self._agent_rows[r0:r1] = lines_set(self._agent_hue[r0:r1], 1)
        mask = self._agent_hue.copy()
        x, y, w, h = rect = _rect_within(mask, self._agent_rows)
        if self.agent_floor > lowest and w:
            sat = np.ascontiguousarray(hsv[y:y + h, x:x + w, 1])
            _, vivid = cv2.threshold(sat, self.agent_floor - 1, 255, cv2.THRESH_BINARY)
            cv2.bitwise_and(mask[y:y + h, x:x + w], vivid, dst=mask[y:y + h, x:x + w])
            bx, by, w, h = _rect(mask[y:y + h, x:x + w])
            rect = (x + bx, y + by, w, h) if w else (0, 0, 0, 0)
        return mask, rect

    def _goal_blobs(self, hsv: np.ndarray, runs: Runs) -> list[Blob]:
        """Goal-coloured objects; the last frame's when the goal-coloured pixels did not change
        (most frames: the agent moves elsewhere)."""
        st = self.style
        if self._goal_mask is None or self._goal_mask.shape != hsv.shape[:2]:
            self._goal_mask, self._goal_rows = np.zeros(hsv.shape[:2], np.uint8), np.zeros(hsv.shape[0], bool)
            runs, self._goals = [(0, hsv.shape[0])], None
        changed = self._goals is None
        for r0, r1 in runs:
            rows = hue_mask(hsv[r0:r1], st.goal_hue, min_saturation=st.min_saturation, min_value=st.min_value)
            if changed or not np.array_equal(rows, self._goal_mask[r0:r1]):
                changed = True
                self._goal_mask[r0:r1] = rows
                self._goal_rows[r0:r1] = lines_set(rows, 1)
        if changed:  # (the objects are those of the mask alone: an unchanged mask has the same)
            self._goals = self._blobs(self._goal_mask, _rect_within(self._goal_mask, self._goal_rows),
                                      self.goal_min_px, with_overlap=False)
        assert self._goals is not None
        return self._goals

    def _faint_goal(self, hsv: np.ndarray) -> Blob | None:
        """The goal paled in place, for a frame with no goal-coloured object: the largest object
        of the goal's hue in its cell at GOAL_FAINT of the colour floor, at least the goal's
        minimum area (a thin red flag resampled onto the canvas and re-encoded at a low bit rate,
        its colour flickering around the floor: mazeworld 73737 v00031 shaken, flickered and
        crushed read "goal missing" in 10 frames), or None."""
        st, (rows, cols) = self.style, self._goal_cell_at  # (its cell: 2k wide on a lines canvas, k on a lattice one)
        found = self._objects_in(hsv[rows, cols], (rows.start, cols.start), st.goal_hue,
                                 int(GOAL_FAINT * st.min_saturation))
        if not found:
            return None
        px, largest = max(found, key=lambda f: f[0])
        return largest if px >= self.goal_min_px else None

    def _layout(self, canvas: np.ndarray, hsv: np.ndarray, runs: Runs | None) -> float:
        """The wall layout IoU; ``runs``: the rows changed since the last frame, whose cached
        per-row (lattice) or per-segment (lines) sums are brought up to date (None: all, from
        scratch, leaving the caches alone)."""
        if runs == [] and self._iou is not None:  # nothing changed: nor did what was read from it
            return self._iou
        if not self.lines:
            inter, union = self._lattice_counts(canvas, hsv, runs)
        else:
            est_v, est_h, seen_v, seen_h = self.read_slots(hsv, runs)
            inter = np.count_nonzero(est_v & self.ref_v & seen_v) + np.count_nonzero(est_h & self.ref_h & seen_h)
            union = np.count_nonzero((est_v | self.ref_v) & seen_v) + np.count_nonzero((est_h | self.ref_h) & seen_h)
        iou = float(inter / union) if union else 0.0
        if runs is not None:
            self._iou = iou
        return iou

    def _lattice_counts(self, canvas: np.ndarray, hsv: np.ndarray, runs: Runs | None) -> tuple[int, int]:
        """Wall pixels drawn over the reference's (intersection) and either's (union), cared-for
        pixels only; per canvas row, kept across frames. A wall pixel is dark (the fixed rule,
        :func:`~cvcheck.vision.colors.dark_mask`) or neutral and under :meth:`_wall_split`."""
        split = self._wall_split(hsv)
        neutral = self.style.min_saturation - 1

        def count(r0: int, r1: int) -> tuple[np.ndarray, np.ndarray]:
            dark = colors.dark_mask(canvas[r0:r1])
            if split > colors.DEFAULT_RULES.dark_max_value:
                dark |= cv2.inRange(hsv[r0:r1], (0, 0, 0), (180, neutral, split - 1)) > 0
            dark &= self.iou_care[r0:r1]
            ref = self.ref_care[r0:r1]
            return np.count_nonzero(dark & ref, axis=1), np.count_nonzero(dark | ref, axis=1)

        h = canvas.shape[0]
        if runs is None:
            inter, union = count(0, h)
            return int(inter.sum()), int(union.sum())
        if self._row_counts is None:
            self._row_counts = np.zeros((2, h), np.int64)
            runs = [(0, h)]
        for r0, r1 in runs:
            self._row_counts[0, r0:r1], self._row_counts[1, r0:r1] = count(r0, r1)
        return int(self._row_counts[0].sum()), int(self._row_counts[1].sum())

    def _wall_split(self, hsv: np.ndarray) -> int:
        """The value (V) under which a neutral lattice canvas pixel is wall: halfway from the
        reference's walls to its open cells in the first canvas read (their medians; at most
        WALL_SPLIT_MAX), or the fixed rule's where that read no dark walls. Fixed for the
        video: a wall that fades in or out - drawn half-transparent, or blended with the frame
        before by a long shutter (a one-frame change at 60 %: V ~100 over white paper) -
        counts once it is nearer the walls' darkness than the paper's, as it does in either
        direction."""
        if self._split is None:
            floor = colors.DEFAULT_RULES.dark_max_value
            value = hsv[..., 2]
            walls, paper = value[self.ref_care], value[self._paper_at]
            split = floor
            if walls.size and paper.size:
                wall, open_ = float(np.median(walls)), float(np.median(paper))
                if wall < floor < open_:
                    split = int(np.clip((wall + open_) / 2, floor, WALL_SPLIT_MAX))
            self._split = split
        return self._split

    def _blobs(self, mask: np.ndarray, rect: Rect, min_px: float, *, with_overlap: bool,
               trail: bool = False) -> list[Blob]:
        """The objects of ``mask`` (0/255; ``rect``: the box around its pixels). With
        ``trail`` (the agent's mask, its trail counted first: :meth:`_count_trail`), a blob
        much larger than the agent is read as the agent dragging a trail, and
        ``_trail_read`` says what that looked at: (the largest area handed to
        :meth:`_reference_area` or None, whether a trail was followed)."""
        prev = self._prev_agent
        x0, y0, w, h = rect  # label only the part of the canvas that has pixels
        if w == 0 or h == 0:
            return []
        count, labels, stats, cents = components(mask[y0:y0 + h, x0:x0 + w])
        if count <= 1:
            return []
        cents = cents + (x0, y0)
        areas = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
        keep = [i for i in range(1, count) if areas[i] >= 2]
        inside = None
        if with_overlap and self.core is not None and keep:  # pixels in eroded wall cores, per blob
            hits = cv2.findNonZero(cv2.bitwise_and(mask[y0:y0 + h, x0:x0 + w], self.core[y0:y0 + h, x0:x0 + w]))
            inside = np.zeros(count, np.int64) if hits is None else \
                np.bincount(labels[hits[:, 0, 1], hits[:, 0, 0]], minlength=count)
        k = float(self.k)
        raw = [(self._lattice(cents[i][1]), self._lattice(cents[i][0]), areas[i],
                float(inside[i] / areas[i]) if inside is not None else 0.0) for i in keep]
        stale: set[int] = set()
        whole = self.agent_px if trail else None  # the agent's own size (agents only)
        if trail and keep:
            largest = float(areas[keep].max())
            ref = self._reference_area(largest)
            self._trail_read = (largest, False)
            for n, i in enumerate(keep):
                if ref and prev is not None and areas[i] > TRAIL_FACTOR * ref:
                    self._trail_read = (largest, True)
                    head = self._head(labels[:, :] == i, prev[y0:y0 + h, x0:x0 + w], (x0, y0), ref)
                    if head is None:  # a trail with nothing moving at its end: left behind
                        stale.add(n)
                    else:
                        cx, cy, a, o, moved = head
                        raw[n] = (self._lattice(cy), self._lattice(cx), a, o)
                        stale.add(n)
                        if moved:
                            stale.discard(n)
        specks = {n for n, (r, c, a, _) in enumerate(raw)
                  if whole and n not in stale and a < PART_OF * whole
                  and _on_post(r, c)}
        merged = _merge([b for n, b in enumerate(raw) if n not in stale and n not in specks], whole=whole)
        fresh = [Blob(row=r, col=c, area=a / (k * k), overlap=o) for r, c, a, o in merged if a >= min_px]
        # held positions are kept apart from merging and flagged
        return [Blob(row=r, col=c, area=a / (k * k), overlap=o, fresh=False)
                for r, c, a, o in (raw[n] for n in sorted(stale))] + fresh

    def _continued(self, index: int, blobs: list[Blob], movers: Sequence[Blob] = ()) -> list[Blob]:
        """The agent blobs of frame ``index``: those of full size, and a faint one (down to
        FAINT x the minimum) only where it continues an object last kept in the previous
        CONTINUE_FRAMES frames that no full-size blob continues now (within the distance an
        object moves between frames) - a small agent paled by compression, a colour drift or
        the goal marker it overlaps stays followed, while specks elsewhere, and pieces of a
        trail behind an agent still seen, stay out. A full-size blob continues one object
        only, the nearest (the start marker beside an agent that just left it continues the
        marker, not the agent: mazeworld 60606 v00117 blurred). A mover (:meth:`_movers`) is
        kept where the object it continues (the nearest) has no full-size continuation, or
        one that stood still (within MOVER_STILL) and is nearer to it: the pale agent moving
        away from the vivid start marker it sat on, not the piece of a trail drawn up to
        where a vivid agent was a frame ago (mazeworld 81818 v00077)."""
        kept = [b for b in blobs if not b.fresh or b.area >= self._full_size]
        faint = [b for b in blobs if b.fresh and b.area < self._full_size]

        def near(p: tuple[int, float, float], b: Blob) -> bool:
            reach = CONTINUE_RADIUS + CONTINUE_PER_FRAME * (index - p[0] - 1)
            return float(np.hypot(b.row - p[1], b.col - p[2])) <= reach

        self._recent = [p for p in self._recent if index - p[0] <= CONTINUE_FRAMES]
        continued = _continued_objects(self._recent, kept, near) if faint or movers else {}
        took = False
        for m in movers:  # kept where what else continues the object it continues stood still
            if objects := [p for p in self._recent if near(p, m)]:
                p = min(objects, key=lambda p: (np.hypot(m.row - p[1], m.col - p[2]), -p[0]))
                away = float(np.hypot(m.row - p[1], m.col - p[2]))
                if p not in continued or continued[p] <= MOVER_STILL and continued[p] < away:
                    kept.append(m)
                    took = True
        if took and faint:  # (a faint part of a mover kept continues nothing more)
            continued = _continued_objects(self._recent, kept, near)
        history = self._recent
        if self._seed is not None and not history and faint and index - self._seed[0] <= CONTINUE_FRAMES:
            # nothing kept yet: a faint blob may continue where the agent's look was learned
            # (not a mover: the agent sitting there would pass for an object standing still)
            history = [self._seed]
            continued = _continued_objects(history, kept, near)
        for p in sorted(history, reverse=True):  # the latest first
            if faint and p not in continued:
                if candidates := [b for b in faint if near(p, b)]:
                    best = max(candidates, key=lambda b: b.area)
                    kept.append(best)
                    faint.remove(best)
        fresh = [b for b in kept if b.fresh]
        # each object by its last sighting: a blob kept replaces the object it continues (not
        # every one within reach: a still look-alike beside the agent's path stays an object
        # of its own, or it continues the agent the next frame, mazeworld 73737 v00075 ghosted)
        seen = _continued_objects(self._recent, fresh, near)
        self._recent = [p for p in self._recent if p not in seen] + [(index, b.row, b.col) for b in fresh]
        if fresh:
            self._seed = None
        return kept

    def _movers(self, hsv: np.ndarray, runs: Runs, agent: np.ndarray, *, look: bool = True) -> list[Blob]:
        """Pale agent-hued objects that moved in: an agent drawn paler while it moves (frame
        blending, a long shutter: a fast agent is a blend of where it is and where it was,
        mazeworld 81818 ghosted) drops under the saturation floor that keeps a paler trail out.

        Pixels at least MOVER_SHARE as vivid as the agent (the mover floor) are new where
        they were under it in the last frame. An object at the mover floor is a mover where
        it has at least MOVER_NEW x the agent's area of new pixels; where its new pixels and
        those at today's agent floor (where the pale agent overlaps where it was, the two
        blends add up) make the agent's size (MOVER_SIZE) and no longer a shape than
        MOVER_ELONGATION (a piece of a trail); and where those at the agent floor are fewer
        than a whole agent's minimum (else the agent is seen, and what is joined to it is
        its trail). The mover is where those pixels are. Detected looks only (the agent's
        area and saturation learned); whether a mover is kept is :meth:`_continued`'s call.
        Without ``look`` (the agent is seen moving: what is new is its own edge, ghost or
        trail) the floor's mask is only brought up to date."""
        if self.mover_floor is None or self.agent_px is None:
            return []
        st = self.style
        first = self._pale is None or self._pale.shape != hsv.shape[:2]
        if first:
            self._pale = np.zeros(hsv.shape[:2], np.uint8)
            runs = [(0, hsv.shape[0])]
        assert self._pale is not None
        new: np.ndarray | None = None
        for r0, r1 in runs:
            now = hue_mask(hsv[r0:r1], st.agent_hue, min_saturation=self.mover_floor, min_value=st.min_value)
            if look and not first:
                came = cv2.bitwise_and(now, cv2.bitwise_not(self._pale[r0:r1]))
                if cv2.countNonZero(came):
                    if new is None:
                        new = np.zeros(hsv.shape[:2], np.uint8)
                    new[r0:r1] = came
            self._pale[r0:r1] = now
        need = MOVER_NEW * self.agent_px  # new pixels, at least
        if new is None or cv2.countNonZero(new) < need:
            return []
        # (labelled within the box around the floor's pixels, looked at around the new and vivid ones)
        px, py, pw, ph = cv2.boundingRect(self._pale)
        count, labels = cv2.connectedComponents(self._pale[py:py + ph, px:px + pw], connectivity=8)
        both = cv2.bitwise_or(new, cv2.bitwise_and(agent, self._pale))
        bx, by, bw, bh = cv2.boundingRect(both)
        ys, xs = np.nonzero(both[by:by + bh, bx:bx + bw])
        ys, xs = ys + by, xs + bx
        owner = labels[ys - py, xs - px]
        came_in = np.bincount(owner[new[ys, xs] > 0], minlength=count)
        seen = np.bincount(owner[agent[ys, xs] > 0], minlength=count)
        out = []
        size = came_in + seen
        for i in np.flatnonzero((size >= MOVER_SIZE[0] * self.agent_px) & (size <= MOVER_SIZE[1] * self.agent_px)
                                & (came_in >= need) & (seen < self.agent_min_px)):
            mine = owner == i  # (never 0, the background: new and vivid pixels are at the floor too)
            my, mx = ys[mine], xs[mine]
            if _elongation(my, mx) > MOVER_ELONGATION:  # (a flickering piece of a trail)
                continue
            if self._strip and not self._came_far(new, labels == i, (px, py)):
                continue
            overlap = float(np.count_nonzero(self.core[my, mx])) / my.size if self.core is not None else 0.0
            out.append(Blob(row=self._lattice(my.mean()), col=self._lattice(mx.mean()),
                            area=float(my.size) / (self.k * self.k), overlap=overlap))
        return out

    def _came_far(self, new: np.ndarray, mine: np.ndarray, at: tuple[int, int]) -> bool:
        """Whether some of an object's new pixels (``mine``: its mask in the box of the pale
        mask from ``at`` = (x, y)) lie MOVER_REACH agent radii or more from its pixels that were
        there the frame before. In a strip the agent comes a cell away from where it was: a
        whole new disk. A trail that shifted by a pixel or two (a camera zooming in, and the
        maze re-located a little off) is new only along its edges: mazeworld 15151 v00038
        zoomed, a 2-fps strip, where the trail was taken for the agent once the agent had
        turned into an arrival icon (a "teleport across a wall")."""
        assert self.agent_px is not None
        x, y = at
        h, w = mine.shape
        came = np.logical_and(mine, new[y:y + h, x:x + w] > 0)
        stayed = np.logical_and(mine, ~came)
        if not stayed.any():
            return True
        far = cv2.distanceTransform(np.where(stayed, 0, 255).astype(np.uint8), cv2.DIST_L2, 3)
        return float(far[came].max(initial=0.0)) >= MOVER_REACH * math.sqrt(self.agent_px / math.pi)

    def _seen_moving(self, blobs: list[Blob]) -> bool:
        """Whether a full-size agent blob is farther than MOVER_STILL from the nearest object
        kept lately, within the reach of one frame: the agent seen moving."""
        for b in blobs:
            if b.fresh and b.area >= self._full_size and self._recent:
                d = min(float(np.hypot(b.row - p[1], b.col - p[2])) for p in self._recent)
                if MOVER_STILL < d <= CONTINUE_RADIUS:
                    return True
        return False

    def _follow_vividness(self, agents: list[tuple[Blob, np.ndarray, float | None]]) -> None:
        """Set the agent's saturation floor for the next frame from how vivid it is now
        (``agents``: the fresh agent blobs kept, each with :meth:`_saturations_around` it and
        their :func:`_vivid`).

        The floor learned from the first frames holds an agent that sits still on the start;
        one that pales as the video goes on (a colour drift, a moving agent smeared by H.264)
        would drop under it and be lost (mazeworld 41313 v00015: a 7-px star at saturation 230
        on the start, 130-160 once it moves). Where fresh agent blobs are kept, the floor
        becomes VIVID_SHARE of the upper-quartile saturation of the agent-hued pixels that
        count as coloured at all around the most vivid of them - never above the learned
        floor, nor above the level at which that blob would no longer be kept, never under
        the style's colour floor. A trail it draws is paler in proportion (a blend with the
        background), so it stays under the floor as the agent pales; and
        where one frame showed the agent paler (grain, a flickering frame) and let pieces of
        its trail in, the agent beside them raises the floor again (mazeworld 81818 v00116
        flickering: the floor stayed down with the trail in, read as the agent)."""
        st = self.style
        if st.agent_saturation <= st.min_saturation:
            return
        read = [(b, sat, v) for b, sat, v in agents if v is not None]
        most = max(read, key=lambda bsv: bsv[2], default=None)
        if most is None:
            return
        b, sat, vivid = most
        floor = VIVID_SHARE * vivid
        # never over the floor at which the blob it is read from would no longer be kept (as
        # large as a full agent; on a wall junction, as large as no speck there is: see _blobs):
        # a look-alike dot on a junction, vivid at its core only, set a floor at which it was a
        # speck, the next frame's floor then came from the paler agent, at which it was kept
        # again, and so on - seen in every other frame, never a still object, and the agent
        # passing by was linked onto it (mazeworld 81818 v00077 cast green and magenta)
        need = int(np.ceil(self.agent_min_px))
        if self.agent_px and _on_post(b.row, b.col):
            need = max(need, int(np.ceil(PART_OF * self.agent_px)))
        if sat.size >= need:
            floor = min(floor, float(np.partition(sat, sat.size - need)[sat.size - need]))
        self.agent_floor = int(min(st.agent_saturation, max(st.min_saturation, floor)))
        self.lowest_agent_floor = min(self.lowest_agent_floor, self.agent_floor)

    def _without_ghosts(self, index: int, hsv: np.ndarray, blobs: list[Blob]) -> list[Blob]:
        """``blobs`` less the agent's ghost: frame blending or a long shutter draws a fast
        agent twice, where it is and, paler, where it was a frame before (mazeworld 81818
        v00086 ghosted: a 2-fps strip, saturation 150 where it is, 100 a cell back). Nearest
        the last position, the ghost would be followed and the agent, a cell on, lost.

        A fresh blob is a ghost where an agent blob kept in the frame just before stood
        (within GHOST_STILL) and it is at most GHOST_FADED as vivid as that one was (a
        trail drawn where the agent was keeps its ghost nearly as vivid: mazeworld 93939
        v00038 ghosted at 25 %, 0.85 of it in the frame it reached the goal), while
        another fresh blob within a frame's reach (CONTINUE_RADIUS) that stood nowhere a
        frame before is at least 1 / GHOST_PALER as vivid as it and about its size
        (GHOST_SIZE; a ghost over a trail shows in part only: 0.43 of the square in mazeworld
        93939 v00012 ghosted at 25 %): the agent moved on. An agent that stays keeps its
        colour, a still look-alike beside it is no paler than it was, and specks a blurred
        star leaves behind are far smaller than it (0.02 of it: mazeworld 73737 v00138
        blurred, watermarked and drifting), so none is taken for a ghost."""
        last = self._last_agents
        fresh = [b for b in blobs if b.fresh]
        if len(fresh) < 2 or last is None or last[0] != index - 1 or not last[1]:
            return blobs

        def stood(b: Blob) -> float | None:
            """How vivid the agent blob kept a frame before at ``b``'s place was (0 when
            not measured), or None when none was kept there."""
            near = [(float(np.hypot(b.row - p.row, b.col - p.col)), v or 0.0) for p, v in last[1]]
            d, v = min(near)
            return v if d <= GHOST_STILL else None

        vivid = {id(b): self._vividness(hsv, b) for b in fresh}
        ghosts: set[int] = set()
        for g in fresh:
            was, now = stood(g), vivid[id(g)]
            if was is None or now is None or now > GHOST_FADED * was:
                continue
            for a in fresh:
                va = vivid[id(a)]
                if (a is not g and va is not None and now <= GHOST_PALER * va and stood(a) is None
                        and GHOST_SIZE[0] * a.area <= g.area <= GHOST_SIZE[1] * a.area
                        and float(np.hypot(a.row - g.row, a.col - g.col)) <= CONTINUE_RADIUS):
                    ghosts.add(id(g))
                    break
        return [b for b in blobs if id(b) not in ghosts] if ghosts else blobs

    def _vividness(self, hsv: np.ndarray, b: Blob) -> float | None:
        """The upper-quartile saturation of the agent-hued, coloured pixels around blob ``b``
        (within about its size), or None when there are under four."""
        return _vivid(self._saturations_around(hsv, b))

    def _saturations_around(self, hsv: np.ndarray, b: Blob) -> np.ndarray:
        """The saturations of the agent-hued, coloured pixels around blob ``b`` (within about
        its size)."""
        st, k = self.style, self.k
        cy, cx = (b.row - self.offset) * k + self.pad - 0.5, (b.col - self.offset) * k + self.pad - 0.5
        half = max(2, int(round(0.75 * np.sqrt(self.agent_px if self.agent_px else b.area * k * k))))
        h, w = hsv.shape[:2]
        y0, y1 = max(0, int(cy) - half), min(h, int(cy) + half + 2)
        x0, x1 = max(0, int(cx) - half), min(w, int(cx) + half + 2)
        if y1 <= y0 or x1 <= x0:
            return np.zeros(0, np.uint8)
        win = hsv[y0:y1, x0:x1]
        coloured = hue_mask(win, st.agent_hue, min_saturation=st.min_saturation, min_value=st.min_value)
        return win[:, :, 1][coloured > 0]

    def _reference_area(self, largest: float) -> float | None:
        """The agent's own area: the smallest of its areas in the first five frames it is seen
        whole - at least the minimum area (before a trail it may draw has grown; a few
        pixels of it, paled under the floor, are no size of it: mazeworld 60606 v00135)."""
        if len(self._ref_samples) < 5 and largest >= self.agent_min_px:
            self._ref_samples.append(largest)
        return min(self._ref_samples) if self._ref_samples else None

    def _head(self, comp: np.ndarray, prev: np.ndarray, origin: tuple[int, int],
              ref: float) -> tuple[float, float, float, float, bool] | None:
        """Where the agent is inside a blob that includes its trail: around the pixels that
        became agent-coloured since the last frame (its leading edge), or where it was last
        seen when it does not move. Returns (x, y, area, overlap, moved) in canvas pixels."""
        x0, y0 = origin
        need = max(2, 0.04 * self.k * self.k)
        ys, xs = np.nonzero(comp & (prev == 1))  # coloured in this very frame: the leading edge
        moved = len(ys) >= need
        if moved:
            hx, hy = float(xs.mean()) + x0, float(ys.mean()) + y0
        elif self._last_head is not None:
            hx, hy = self._last_head
        else:
            return None
        half = 0.5 * float(np.sqrt(ref))
        ys, xs = np.nonzero(comp)
        xs, ys = xs + x0, ys + y0
        near = (np.abs(xs - hx) <= half) & (np.abs(ys - hy) <= half)
        if not near.any():
            return None
        cx, cy = float(xs[near].mean()), float(ys[near].mean())
        self._last_head = (cx, cy)
        inner = self.core[ys[near], xs[near]] if self.core is not None else None
        overlap = float(np.count_nonzero(inner)) / inner.size if inner is not None else 0.0
        return cx, cy, float(near.sum()), overlap, moved

    # -- thin-line walls ---------------------------------------------------------------------
    def _init_slots(self) -> None:
        rows, cols = self.spec.shape
        k = self.k
        walls = self.spec.walls
        self.level = 0.0          # darkest the reference's walls have been drawn so far
        self.open_level: float | None = None  # how dark its open boundaries are (a faint cell grid)
        self.ref_v = walls[1::2, 0::2].copy()   # (rows, cols+1): vertical line left of cell (r, c)
        self.ref_h = walls[0::2, 1::2].copy()   # (rows+1, cols): horizontal line above cell (r, c)
        d = max(1, k // 3)
        offs = np.arange(-d, d + 1)
        self._n_offs = offs.size
        band = np.arange(int(round(0.4 * k)), int(round(1.6 * k)))    # central 60 % of a 2k cell side
        lines_x = np.arange(cols + 1) * 2 * k + self.pad              # canvas columns of vertical lines
        lines_y = np.arange(rows + 1) * 2 * k + self.pad
        h, w = (2 * rows * k + 2 * self.pad, 2 * cols * k + 2 * self.pad)  # the canvas
        # Gather indices, fixed for the video: across each line, its few candidate pixel rows
        # (or columns); along it, the central band of every cell side (clipped to the canvas).
        self._slot_index: dict[bool, tuple[np.ndarray, np.ndarray, int, int]] = {}
        for vertical, lines, along, size_across, size_along in ((True, lines_x, rows, w, h),
                                                                (False, lines_y, cols, h, w)):
            across = np.clip(lines[:, None] + offs, 0, size_across - 1).ravel()          # (lines * offsets)
            length = np.clip((self.pad + np.arange(along) * 2 * k)[:, None] + band, 0, size_along - 1).ravel()
            self._slot_index[vertical] = (across, length, along, band.size)

    def read_slots(self, hsv: np.ndarray, runs: Runs | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                               np.ndarray]:
        """Which wall lines are drawn, and which could be seen: boolean (rows, cols+1) vertical
        and (rows+1, cols) horizontal, then the same for "not hidden" (a line under the agent,
        an icon or a marker for more than a quarter of its length is neither drawn nor erased).
        ``runs``: see :meth:`_layout`."""
        vs, seen_v = self._line_means(hsv, vertical=True, runs=runs)
        hs, seen_h = self._line_means(hsv, vertical=False, runs=runs)
        # The darkness of a drawn line depends on its width and the canvas scale (a heavy
        # border, faint 1-px walls), so the threshold is set between the reference's inner walls
        # as drawn in this frame - but never under FADE_SHARE of their darkest so far in this
        # video, so that lines fading out are read as gone, while a frame drawn a little lighter
        # all over (flicker) is not - and its open boundaries as first seen (white, or a faint
        # cell grid).
        opened = np.concatenate([vs[~self.ref_v & seen_v], hs[~self.ref_h & seen_h]])
        if self.open_level is None:
            self.open_level = _median(opened) if opened.size else 0.0
        elif opened.size:
            # The paper as dark as it was first seen: a video's tone drifts (grey paper, lifted
            # blacks, a dimming frame) and every line darkens with its paper, the open ones too,
            # which the threshold set on the first frames would read as walls drawn.
            drift = np.float32(_median(opened) - self.open_level)
            vs, hs = vs - drift, hs - drift
        walls = np.concatenate([vs[self.ref_v & seen_v], hs[self.ref_h & seen_h]])
        inner = np.concatenate([vs[:, 1:-1][(self.ref_v & seen_v)[:, 1:-1]], hs[1:-1][(self.ref_h & seen_h)[1:-1]]])
        if inner.size >= 3:  # a heavier border says nothing about how dark the inner walls are drawn
            walls = inner
        if not walls.size:
            return np.zeros_like(vs, bool), np.zeros_like(hs, bool), seen_v, seen_h
        now = _median(walls)
        self.level = max(self.level, now)
        level = max(now, FADE_SHARE * self.level)
        base = min(self.open_level, 0.5 * level)
        if level - base < 0.03:
            return np.zeros_like(vs, bool), np.zeros_like(hs, bool), seen_v, seen_h
        thr = base + 0.45 * (level - base)
        return vs > thr, hs > thr, seen_v, seen_h

    def _line_means(self, hsv: np.ndarray, *, vertical: bool,
                    runs: Runs | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Per wall line: the darkness along the central band of its cell side, at the best of
        a few offsets across it (the line may sit a pixel off), and whether it is seen (at
        most a quarter of that band coloured: a coloured icon is no wall). The darkness is
        summed over two neighbouring canvas rows, so that a line thinner than a canvas pixel
        reads the same whether it falls on one row or straddles two (a camera shaking by a
        pixel or two). Only the pixels on the lines are read, and of those only the segments
        in the rows of ``runs`` (see :meth:`_layout`). Shapes (rows, cols+1) for vertical
        lines, (rows+1, cols) for horizontal ones."""
        across, length, along, nb = self._slot_index[vertical]
        sums = self._slot_sums.get(vertical) if runs is not None else None
        if sums is None:
            sums = self._segment_sums(hsv, vertical, across, length)
            if runs is not None:
                self._slot_sums[vertical] = sums
        elif runs:
            changed = np.zeros(hsv.shape[0] + 1, bool)
            for r0, r1 in runs:
                changed[r0:r1] = True
            if vertical:  # a cell side's band of rows
                cells = np.flatnonzero(changed[length].reshape(along, nb).any(axis=1))
                if cells.size:
                    rows = length.reshape(along, nb)[cells].ravel()
                    dark, col = self._segment_sums(hsv, vertical, across, rows)
                    sums[0][:, cells], sums[1][:, cells] = dark, col
            else:  # a line's row at one offset
                lines = np.flatnonzero(changed[across])
                if lines.size:
                    dark, col = self._segment_sums(hsv, vertical, across[lines], length)
                    sums[0][lines], sums[1][lines] = dark, col
        dark_sums, coloured_counts = (a.reshape(-1, self._n_offs, along) for a in sums)
        pairs = (dark_sums[:, :-1] + dark_sums[:, 1:]).astype(np.float32) / np.float32(255 * nb)
        line, seen = pairs.max(axis=1), coloured_counts.max(axis=1) <= 0.25 * nb
        return (line.T, seen.T) if vertical else (line, seen)

    def _segment_sums(self, hsv: np.ndarray, vertical: bool, across: np.ndarray,
                      length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Neutral darkness and coloured-pixel counts summed along each cell side's band:
        (len(across), len(length) // band) int32 each, for lines at canvas columns (vertical)
        or rows ``across`` and bands along ``length``."""
        nb = self._slot_index[vertical][3]
        if vertical:  # (lines * offsets, length, 3): the bands' rows first (fewer), then the columns
            px = np.take(np.take(hsv, length, axis=0), across, axis=1).transpose(1, 0, 2)
        else:
            px = np.take(np.take(hsv, across, axis=0), length, axis=1)
        dark, coloured = _neutral_dark(px, self.style)
        cells = length.size // nb
        return (dark.reshape(across.size, cells, nb).sum(axis=2, dtype=np.int32),
                coloured.reshape(across.size, cells, nb).sum(axis=2, dtype=np.int32))


def _continued_objects(recent: list[tuple[int, float, float]], blobs: list[Blob],
                       near: Callable[[tuple[int, float, float], Blob], bool]) -> dict[tuple[int, float, float], float]:
    """The recent objects ``(frame, row, col)`` that ``blobs`` continue, each with how far
    its blob is from it: each blob continues at most one, each object is continued by at
    most one, nearest pairs first (among those ``near``; ties: the later object)."""
    pairs = sorted(((float(np.hypot(b.row - p[1], b.col - p[2])), -p[0], i, j)
                    for i, p in enumerate(recent) for j, b in enumerate(blobs) if near(p, b)))
    used_p: dict[int, float] = {}
    used_b: set[int] = set()
    for d, _, i, j in pairs:
        if i not in used_p and j not in used_b:
            used_p[i] = d
            used_b.add(j)
    return {recent[i]: d for i, d in used_p.items()}


def _about_as_large(box: Box, other: Box) -> bool:
    """Whether ``box`` is as high and as wide as ``other`` within RELOCATE_RESIZE of it."""
    (t, l, b, r), (ot, ol, ob, orr) = box, other
    return abs((b - t) / max(1, ob - ot) - 1) <= RELOCATE_RESIZE and \
        abs((r - l) / max(1, orr - ol) - 1) <= RELOCATE_RESIZE


def _shaped_alike(box: Box, other: Box) -> bool:
    """Whether ``box``'s aspect (width over height) is within RELOCATE_ASPECT of ``other``'s."""
    (t, l, b, r), (ot, ol, ob, orr) = box, other
    return abs(((r - l) * max(1, ob - ot)) / max(1, (orr - ol) * (b - t)) - 1) <= RELOCATE_ASPECT


def _neutral_dark(hsv: np.ndarray, style: StyleProfile) -> tuple[np.ndarray, np.ndarray]:
    """Ink as the line reader reads it, per pixel of an HSV array (..., 3): the neutral
    darkness (int32; none where coloured) and whether coloured (at the style's colour floor;
    a dark pixel is ink). Neutral darkness is how far below white, less the pixel's chroma
    (V - min(R, G, B)), so that a pale tint (a translucent trail, a glow) adds no ink however
    light it is."""
    sat, val = hsv[..., 1].astype(np.int32), hsv[..., 2].astype(np.int32)
    coloured = (sat >= style.min_saturation) & (val >= style.min_value)
    return np.where(coloured, 0, np.maximum(0, 255 - val - (sat * val) // 255)), coloured


def _shrunk(picture: np.ndarray, size: tuple[int, int], sigma: float) -> np.ndarray:
    """``picture`` (float32) at ``size`` (width, height; area means), blurred by ``sigma``."""
    if picture.shape[1] != size[0] or picture.shape[0] != size[1]:
        picture = cv2.resize(picture, size, interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(picture, (0, 0), sigma)


def _conjugate(warp: np.ndarray, change: np.ndarray) -> np.ndarray:
    """A 2x3 affine ``warp`` in the coordinates that the 3x3 ``change`` maps its own to:
    ``change @ warp @ inverse(change)`` (float32)."""
    full = np.vstack([warp.astype(np.float64), [0.0, 0.0, 1.0]])
    return (change @ full @ np.linalg.inv(change))[:2].astype(np.float32)


def _turn(warp: np.ndarray) -> float:
    """The turn (degrees, counter-clockwise on the picture, as ``cv2.getRotationMatrix2D``'s)
    of a 2x3 affine warp: that of its rotation part, shear and scale aside."""
    return float(np.degrees(np.arctan2(warp[0, 1] - warp[1, 0], warp[0, 0] + warp[1, 1])))


def _elongation(ys: np.ndarray, xs: np.ndarray) -> float:
    """How many times longer than wide a set of pixels is (the ratio of the standard
    deviations along its principal axes; 1 for a disc, a pixel's spread added to each)."""
    dy, dx = ys - ys.mean(), xs - xs.mean()
    syy, sxx, sxy = float((dy * dy).mean()) + 1 / 12, float((dx * dx).mean()) + 1 / 12, float((dy * dx).mean())
    mid, half = (syy + sxx) / 2, float(np.hypot((syy - sxx) / 2, sxy))
    return float(np.sqrt((mid + half) / (mid - half)))


def _rect(mask: np.ndarray) -> Rect:
    """``cv2.boundingRect`` of a mask's set pixels: (x, y, w, h), w = 0 when none."""
    x, y, w, h = cv2.boundingRect(mask)
    return int(x), int(y), int(w), int(h)


def _rect_within(mask: np.ndarray, rows: np.ndarray) -> Rect:
    """``_rect(mask)`` looking only at ``rows`` (bool per row: those that have set pixels)."""
    found = np.flatnonzero(rows)
    if not found.size:
        return 0, 0, 0, 0
    top = int(found[0])
    x, y, w, h = _rect(mask[top:int(found[-1]) + 1])
    return x, y + top, w, h


def _union(a: Rect, b: Rect) -> Rect:
    """The box (x, y, w, h) around two boxes (an empty one, w = 0, adds nothing)."""
    if not a[2]:
        return b
    if not b[2]:
        return a
    x0, y0 = min(a[0], b[0]), min(a[1], b[1])
    return x0, y0, max(a[0] + a[2], b[0] + b[2]) - x0, max(a[1] + a[3], b[1] + b[3]) - y0


def _median(values: np.ndarray) -> float:
    """``float(np.median(values))`` of a non-empty 1-D array (the two middle values averaged
    in its own dtype, as numpy does) by partial sorting: several times cheaper on the few
    dozen segment values read every frame."""
    n = values.size
    if n % 2:
        return float(np.partition(values, n // 2)[n // 2])
    part = np.partition(values, (n // 2 - 1, n // 2))
    return float((part[n // 2 - 1] + part[n // 2]) / values.dtype.type(2))


def _on_post(row: float, col: float) -> bool:
    """Whether lattice point (row, col) lies on a wall junction (within POST_RADIUS), where a
    blob smaller than PART_OF of the agent is a speck (see FrameAnalyser._blobs)."""
    return at_junction((row - 0.5) / 2, (col - 0.5) / 2, within=POST_RADIUS / 2)


def _vivid(saturations: np.ndarray) -> float | None:
    """How vivid pixels of these saturations are: their upper quartile, None under four."""
    return _upper_quartile(saturations) if saturations.size >= 4 else None


def _upper_quartile(values: np.ndarray) -> float:
    """``np.percentile(values, 75)`` (linear interpolation, same rounding) by partial sorting:
    about ten times cheaper on a few hundred pixels, once a frame."""
    pos = 0.75 * (values.size - 1)
    lo = int(pos)
    hi = min(lo + 1, values.size - 1)
    part = np.partition(values, (lo, hi))
    a, b, t = float(part[lo]), float(part[hi]), pos - lo
    return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t


def _merge(blobs: list[tuple[float, float, float, float]], *,
           whole: float | None = None) -> list[tuple[float, float, float, float]]:
    """Merge blobs closer than MERGE_RADIUS (a marker split by an occluder is one object).
    With ``whole`` (an object's full area, px), a blob that is itself that big is a whole
    object, not a part (the agent passing a look-alike stays apart from it)."""
    out: list[list[float]] = []
    for r, c, a, o in sorted(blobs, key=lambda b: -b[2]):
        for m in out:
            if whole is not None and a >= PART_OF * whole and m[2] >= PART_OF * whole:
                continue
            if abs(m[0] - r) <= MERGE_RADIUS and abs(m[1] - c) <= MERGE_RADIUS:
                total = m[2] + a
                m[0], m[1] = (m[0] * m[2] + r * a) / total, (m[1] * m[2] + c * a) / total
                m[3] = (m[3] * m[2] + o * a) / total
                m[2] = total
                break
        else:
            out.append([r, c, a, o])
    return [tuple(m) for m in out]  # type: ignore[misc]
