"""The agent on a maze video's canvas, frame by frame: its objects and where it is in them.

:class:`AgentReader` reads each frame's agent-coloured objects at a saturation floor that
follows how vivid the agent is, and keeps the ones that are the agent: a blob dragging a
trail is read at the trail's head, the agent's ghost (frame blending) is left out, a pale
agent moving in (a long shutter) is kept where it continues what was seen, and a faint
blob only where it continues an object seen lately. Positions are lattice coordinates
(:mod:`.video_obs`). :class:`~.video_frames.FrameAnalyser` hands it each frame's HSV
canvas and the rows that changed.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from ..vision.canvas import Runs
from ..vision.masks import Rect, bounding_rect, elongation, rect_within, union_rect
from ..vision.order_stats import upper_quartile
from ..vision.runs import lines_set
from .lattice import MazeSpec
from .style import StyleProfile, hue_mask
from .video_canvas import CanvasGeometry
from .video_objects import PART_OF, hue_objects, label_objects, merge_blobs, on_post
from .video_obs import Blob

TRAIL_FACTOR = 2.2   #: an agent blob this much larger than the agent itself drags a trail
FAINT = 0.5           #: an agent blob down to this share of the minimum area is kept when it continues
                      #: an object seen in the last few frames that has no full-size continuation
CONTINUE_FRAMES = 8   #: ... last seen at most this many frames before
CONTINUE_RADIUS = 3.0  #: ... at most this far away (lattice cells; as far as the tracker links objects
CONTINUE_PER_FRAME = 0.5  #: between frames), plus this per frame it was not seen
VIVID_SHARE = 0.7     #: the agent's saturation floor: this share of how vivid it was last seen (its
                      #: upper-quartile saturation), never above the floor learned from the first frames
FLOOR_DROP = 0.8      #: ... and at least this share of the last frame's floor (it comes down by steps)
MOVER_SHARE = 0.4     #: a pale agent-hued object down to this share of the agent's learned saturation,
MOVER_NEW = 0.25      #: ... with at least this share of the agent's area coloured anew
MOVER_MIN_SATURATION = 40  #: ... and never under this saturation, is the agent moving (see _movers)
MOVER_SIZE = (0.3, 2.0)  #: a mover is the agent's size (its new and vivid pixels, shares of its area)
MOVER_ELONGATION = 3.0   #: ... and shape: its long axis at most this many times its short one
MOVER_CHAIN = 3       #: movers seen in this many frames running, each a frame's reach on, are the agent found again
MOVER_STILL = 0.35    #: lattice cells: a mover is kept only beside an object that moved at most this far
STILL_FRAMES = 4      #: an object kept within MOVER_STILL of where one was kept in each of this many frames
                      #: before stands still: it does not lower the agent's floor (see _follow_vividness)
STRIP_FPS = 4.0       #: frames this far apart or more (a strip: the agent steps a cell a frame) ...
MOVER_REACH = 1.0     #: ... need a mover's new pixels as far as this many agent radii from what was there
GHOST_PALER = 0.85    #: a blob at most this share as vivid as the agent beside it,
GHOST_FADED = 0.9     #: ... and at most this share as vivid as what stood there
GHOST_STILL = 0.5     #: ... a frame before (within this many lattice cells), is the agent's ghost (see _without_ghosts)
GHOST_SIZE = (0.3, 2.0)  #: ... where it is about the agent's size (shares of the agent blob's area)
NEAR_GOAL_FRAMES = 64  #: the canvas around the goal is kept for this many last frames (see pale_near_goal)
PALE_SHARE = 0.3      #: an object down to this share of the agent's learned saturation is the agent paled ...
PALE_MIN_SATURATION = 40  #: ... and never under this saturation (see pale_near_goal)


@dataclass(frozen=True)
class _AgentMemo:
    """What a frame's agent mask gave, kept for the next frame if its canvas is the same."""

    floor: int                  #: the saturation floor it was read at
    mask: np.ndarray
    rect: Rect
    blobs: list[Blob]
    largest: float | None       #: the area handed to ``_reference_area`` (None: none was)


class AgentReader:
    """The agent blobs of each frame of one maze video, and what it keeps from frame to frame.

    Parameters
    ----------
    spec : MazeSpec
        The maze (its goal: the canvas around it is kept for :meth:`pale_near_goal`).
    style : StyleProfile
        The agent's hue, size and saturation (learned for a detected look).
    geometry : CanvasGeometry
        How the maze lies on the canvas.
    core : ndarray, optional
        Lattice walls: the reference's eroded wall cores (0/255), for each blob's overlap.
    fps : float
        The frames' rate (a strip of a few frames a second: see :meth:`_movers`).
    agent_seen : (frame, row, col), optional
        Where the agent was seen when its look was learned (maze cells; see
        :attr:`~cvcheck.maze.look.AgentLook.seen_at`): until an agent blob is first kept, a
        faint blob continuing it is kept, as one continuing an agent kept lately (a small
        agent paled by blur and drift is at its faintest on the start, where nothing came
        before it).
    """

    def __init__(self, spec: MazeSpec, style: StyleProfile, geometry: CanvasGeometry, *,
                 core: np.ndarray | None = None, fps: float = 24.0,
                 agent_seen: tuple[int, float, float] | None = None) -> None:
        self.style, self.geometry, self.core = style, geometry, core
        k = self.k = geometry.k  #: canvas pixels per lattice cell
        self._strip = fps <= STRIP_FPS              # frames a step of the agent apart (see _movers)
        # kept across frames, brought up to date in the canvas rows that changed
        self._agent_hue: np.ndarray | None = None   # agent-hued pixels at the lowest floor (see _agent_mask)
        self._agent_rows = np.zeros(0, bool)        # ... which of its rows have any
        self.min_area_px = max(2.0, style.agent_min_area * k * k)  #: the smallest full-size agent blob, canvas px
        #: the agent's area, canvas px: learned for a detected look, else None
        self.area_px = style.agent_area * k * k if style.agent_area else None
        self._ref_samples: list[float] = []      # agent areas (px) in the first frames it is seen
        self._prev_agent: np.ndarray | None = None
        self._prev_box: Rect = (0, 0, 0, 0)  # where _prev_agent has pixels
        self._one = np.ones((1, 1), np.uint8)
        self._last_head: tuple[float, float] | None = None
        self._agent_memo: _AgentMemo | None = None
        self._trail_read: tuple[float | None, bool] = (None, False)
        self._recent: list[tuple[int, float, float]] = []  # (frame, row, col) of agent blobs kept lately
        # the last frame analysed and its movers: (row, col, frames running), see _running_movers
        self._mover_runs: tuple[int, list[tuple[float, float, int]]] = (-1, [])
        # the last frame analysed, its fresh agent blobs kept and how vivid each was (see _without_ghosts)
        self._last_agents: tuple[int, list[tuple[Blob, float | None]]] | None = None
        # where the agent's look was learned, as if kept the frame before: continued by faint
        # blobs only, and only until an agent blob is first kept (see _continued)
        self._seed = None if agent_seen is None else (agent_seen[0] - 1, 2 * agent_seen[1] + 0.5,
                                                      2 * agent_seen[2] + 0.5)
        #: the saturation the agent is read at: follows its vividness down (see _follow_vividness)
        self.floor = style.agent_saturation
        self._kept_lately: deque[tuple[int, list[Blob]]] = deque(maxlen=STILL_FRAMES)  # the last frames' fresh blobs
        vivid = style.agent_vividness
        self.mover_floor = int(max(MOVER_MIN_SATURATION, MOVER_SHARE * vivid)) if vivid and self.area_px else None
        self._pale: np.ndarray | None = None      # agent-hued pixels at the mover floor (see _movers)
        self.lowest_floor = self.floor  #: the lowest floor it has been read at
        # the goal's cell and its neighbours (a maze cell is 2k canvas px wide on a lines
        # canvas, k on a lattice one, 2k from the next), kept for the last frames
        goal_px = geometry.to_canvas(np.array(spec.goal, float) + 0.5)  # goal cell centre, canvas px
        self._near_goal_at = tuple(slice(max(0, int(c) - 3 * k), int(c) + 3 * k + 1) for c in goal_px)
        self._near_goal: deque[tuple[int, np.ndarray]] = deque(maxlen=NEAR_GOAL_FRAMES)
        self.pale_floor = int(max(PALE_MIN_SATURATION, PALE_SHARE * vivid)) if vivid and self.area_px else None

    def _lattice(self, canvas_px: float) -> float:
        """A canvas pixel coordinate (row or column, pixel centres at +0.5) in lattice cells."""
        return float(self.geometry.to_lattice(canvas_px))

    @property
    def _full_size(self) -> float:
        """The smallest full-size agent blob, lattice cells^2 (fainter ones: see _continued)."""
        return self.min_area_px / (self.k * self.k)

    # -- per frame ---------------------------------------------------------------------------

    # -- per frame ---------------------------------------------------------------------------
    def read(self, index: int, hsv: np.ndarray, runs: Runs) -> tuple[np.ndarray, list[Blob]]:
        """The agent mask of frame ``index`` and the agent blobs kept in it (its objects less
        the agent's ghost, then its movers: :meth:`_continued`); the saturation floor follows
        how vivid they are. ``hsv``: the frame's canvas in HSV; ``runs``: its rows that changed
        since the last frame."""
        agent, found = self._agent_objects(hsv, runs)
        found = self._without_ghosts(index, hsv, found)
        agents = self._continued(index, found, self._movers(hsv, runs, agent, look=not self._seen_moving(found)))
        around = []
        for b in agents:
            if b.fresh:
                sat = self._saturations_around(hsv, b)
                around.append((b, sat, _vivid(sat)))
        self._last_agents = (index, [(b, vivid) for b, _, vivid in around])
        self._follow_vividness(around, still=[self._still(index, b) for b, _, _ in around])
        self._kept_lately.append((index, [b for b, _, _ in around]))
        if self.pale_floor is not None:
            self._near_goal.append((index, hsv[self._near_goal_at].copy()))
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
        if self.pale_floor is None or self.area_px is None:
            return []
        origin = (self._near_goal_at[0].start, self._near_goal_at[1].start)
        lo, hi = MOVER_SIZE[0] * self.area_px, MOVER_SIZE[1] * self.area_px
        out: list[tuple[int, list[Blob]]] = []
        was_there: np.ndarray | None = None  # the last frame's pixels of larger objects and their pieces
        for index, window in self._near_goal:
            found, labels = hue_objects(window, origin, self.style.agent_hue, self.pale_floor,
                                        min_value=self.style.min_value, geometry=self.geometry)
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

    def _agent_objects(self, hsv: np.ndarray, runs: Runs) -> tuple[np.ndarray, list[Blob]]:
        """The agent mask and the agent-coloured objects in it. A frame whose canvas did not
        change at all, read at the same saturation floor, has the last frame's (unless a
        trail was followed: where it ends depends on when its pixels turned)."""
        memo = self._agent_memo
        if not runs and memo is not None and memo.floor == self.floor:
            self._count_trail(memo.mask, memo.rect)
            if memo.largest is not None:
                self._reference_area(memo.largest)  # (its state moves on as if the frame were read)
            return memo.mask, memo.blobs
        floor = self.floor
        mask, rect = self._agent_mask(hsv, runs)
        self._count_trail(mask, rect)
        self._trail_read = (None, False)
        blobs = self._blobs(mask, rect, FAINT * self.min_area_px, with_overlap=True, trail=True)
        largest, followed = self._trail_read
        self._agent_memo = None if followed else _AgentMemo(floor, mask, rect, blobs, largest)
        return mask, blobs

    def _count_trail(self, mask: np.ndarray, rect: Rect) -> None:
        """Count the frames each canvas pixel has been agent-coloured for (saturating at 255;
        ``mask`` is 0/255), only where it or the last frame's mask has pixels (elsewhere 0)."""
        if self._prev_agent is None or self._prev_agent.shape != mask.shape:
            self._prev_agent, self._prev_box = np.zeros(mask.shape, np.uint8), (0, 0, 0, 0)
            self._one = np.ones(mask.shape, np.uint8)
        bx, by, bw, bh = union_rect(self._prev_box, rect)
        if bw:
            region = self._prev_agent[by:by + bh, bx:bx + bw]
            cv2.add(region, self._one[by:by + bh, bx:bx + bw], dst=region)
            cv2.bitwise_and(region, mask[by:by + bh, bx:bx + bw], dst=region)
            x, y, w, h = bounding_rect(region)
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
        x, y, w, h = rect = rect_within(mask, self._agent_rows)
        if self.floor > lowest and w:
            sat = np.ascontiguousarray(hsv[y:y + h, x:x + w, 1])
            _, vivid = cv2.threshold(sat, self.floor - 1, 255, cv2.THRESH_BINARY)
            cv2.bitwise_and(mask[y:y + h, x:x + w], vivid, dst=mask[y:y + h, x:x + w])
            bx, by, w, h = bounding_rect(mask[y:y + h, x:x + w])
            rect = (x + bx, y + by, w, h) if w else (0, 0, 0, 0)
        return mask, rect

    def _blobs(self, mask: np.ndarray, rect: Rect, min_px: float, *, with_overlap: bool,
               trail: bool = False) -> list[Blob]:
        """The objects of ``mask`` (0/255; ``rect``: the box around its pixels). With
        ``trail`` (the agent's mask, its trail counted first: :meth:`_count_trail`), a blob
        much larger than the agent is read as the agent dragging a trail, and
        ``_trail_read`` says what that looked at: (the largest area handed to
        :meth:`_reference_area` or None, whether a trail was followed)."""
        prev = self._prev_agent
        found = label_objects(mask, rect, self.geometry, core=self.core if with_overlap else None)
        if found is None:
            return []
        labels, (x0, y0), areas, keep = found.labels, found.origin, found.areas, found.keep
        raw = list(found.raw)  # (a trail's blob is read at its head)
        h, w = labels.shape
        k = float(self.k)
        stale: set[int] = set()
        whole = self.area_px if trail else None  # the agent's own size (agents only)
        ref = None
        if trail and keep:
            largest = float(areas[keep].max())
            ref = self._reference_area(largest)
            self._trail_read = (largest, False)
            for n, i in enumerate(keep):
                if ref and prev is not None and areas[i] > TRAIL_FACTOR * ref:
                    self._trail_read = (largest, True)
                    head = self._head(labels == i, prev[y0:y0 + h, x0:x0 + w], (x0, y0), ref)
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
                  and on_post(r, c)}
        # whole agents are not merged: at their size as this canvas shows them, where it shows them
        # smaller (a 3-px dot resampled onto a coarser canvas loses its fringe, and read as a part
        # it merged with a look-alike on a wall post a corridor's width away: mazeworld 48048 v00116)
        shown = min(whole, ref) if whole and ref else whole
        merged = merge_blobs([b for n, b in enumerate(raw) if n not in stale and n not in specks], whole=shown)
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
        running = self._running_movers(index, movers, near)
        for m, run in zip(movers, running):  # kept where what else continues the object it continues stood still
            if objects := [p for p in self._recent if near(p, m)]:
                p = min(objects, key=lambda p: (np.hypot(m.row - p[1], m.col - p[2]), -p[0]))
                away = float(np.hypot(m.row - p[1], m.col - p[2]))
                if p not in continued or continued[p] <= MOVER_STILL and continued[p] < away:
                    kept.append(m)
                    took = True
            elif run >= MOVER_CHAIN and not kept:  # nothing kept lately near it, nor now: the agent found again
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

    def _running_movers(self, index: int, movers: Sequence[Blob],
                        near: Callable[[tuple[int, float, float], Blob], bool]) -> list[int]:
        """For each of ``movers`` (frame ``index``), in how many frames running a mover was seen,
        each within reach of one the frame before (``near``): 1 for a mover new here.

        A pale agent seen only as a mover (frame blending: mazeworld 80080 v00174 ghosted, a
        MazePlot star drawn under its floor whenever it moves) is kept only where it continues
        an object kept lately; where it jumped a wall (the teleport: 1.35 cells in a frame) and
        went unseen a frame, nothing kept lately was near it, and it was lost for the 27 frames
        to the goal, the jump with it: a false pass. Seen moving on for MOVER_CHAIN frames running with nothing
        else kept, it is the agent found again."""
        last, before = self._mover_runs
        runs = [1 + max((n for r, c, n in before if near((last, r, c), m)), default=0) if last == index - 1 else 1
                for m in movers]
        self._mover_runs = (index, [(m.row, m.col, n) for m, n in zip(movers, runs)])
        return runs

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
        if self.mover_floor is None or self.area_px is None:
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
        need = MOVER_NEW * self.area_px  # new pixels, at least
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
        for i in np.flatnonzero((size >= MOVER_SIZE[0] * self.area_px) & (size <= MOVER_SIZE[1] * self.area_px)
                                & (came_in >= need) & (seen < self.min_area_px)):
            mine = owner == i  # (never 0, the background: new and vivid pixels are at the floor too)
            my, mx = ys[mine], xs[mine]
            if elongation(my, mx) > MOVER_ELONGATION:  # (a flickering piece of a trail)
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
        assert self.area_px is not None
        x, y = at
        h, w = mine.shape
        came = np.logical_and(mine, new[y:y + h, x:x + w] > 0)
        stayed = np.logical_and(mine, ~came)
        if not stayed.any():
            return True
        far = cv2.distanceTransform(np.where(stayed, 0, 255).astype(np.uint8), cv2.DIST_L2, 3)
        return float(far[came].max(initial=0.0)) >= MOVER_REACH * math.sqrt(self.area_px / math.pi)

    def _seen_moving(self, blobs: list[Blob]) -> bool:
        """Whether a full-size agent blob is farther than MOVER_STILL from the nearest object
        kept lately, within the reach of one frame: the agent seen moving."""
        for b in blobs:
            if b.fresh and b.area >= self._full_size and self._recent:
                d = min(float(np.hypot(b.row - p[1], b.col - p[2])) for p in self._recent)
                if MOVER_STILL < d <= CONTINUE_RADIUS:
                    return True
        return False

    def _still(self, index: int, b: Blob) -> bool:
        """Whether an object was kept within MOVER_STILL of ``b`` in each of the STILL_FRAMES
        frames before frame ``index``."""
        lately = self._kept_lately
        return (len(lately) == STILL_FRAMES and lately[0][0] == index - STILL_FRAMES
                and all(any(max(abs(o.row - b.row), abs(o.col - b.col)) <= MOVER_STILL for o in kept)
                        for _, kept in lately))

    def _follow_vividness(self, agents: list[tuple[Blob, np.ndarray, float | None]], *,
                          still: Sequence[bool] = ()) -> None:
        """Set the agent's saturation floor for the next frame from how vivid it is now
        (``agents``: the fresh agent blobs kept, each with :meth:`_saturations_around` it and
        their :func:`_vivid`; ``still``: whether each stands still, :meth:`_still`).

        The floor learned from the first frames holds an agent that sits still on the start;
        one that pales as the video goes on (a colour drift, a moving agent smeared by H.264)
        would drop under it and be lost (mazeworld 41313 v00015: a 7-px star at saturation 230
        on the start, 130-160 once it moves). Where fresh agent blobs are kept, the floor
        becomes VIVID_SHARE of the upper-quartile saturation of the agent-hued pixels that
        count as coloured at all around the most vivid of them - never above the learned
        floor, nor above the level at which that blob would no longer be kept, never under
        the style's colour floor, and never more than FLOOR_DROP down from the last frame's (a
        piece of a pale trail taken for the agent the one frame after it vanished under an
        arrival sparkle set a floor the whole trail passed: mazeworld 45045 v00194, "did not
        stay"). A trail it draws is paler in proportion (a blend with the
        background), so it stays under the floor as the agent pales; and
        where one frame showed the agent paler (grain, a flickering frame) and let pieces of
        its trail in, the agent beside them raises the floor again (mazeworld 81818 v00116
        flickering: the floor stayed down with the trail in, read as the agent). An object
        standing still - a look-alike dot, a start marker left behind, the agent at rest - does
        not lower the floor (it may hold or raise it): motion smears the agent paler, rest does
        not, and a GIF's palette drew a still look-alike dot paler than the agent, whose floor
        followed it down once the agent vanished under an arrival sparkle, low enough for
        pieces of the pale trail to be taken for the agent leaving the goal (mazeworld 76076
        v00038 as a Pillow GIF)."""
        st = self.style
        if st.agent_saturation <= st.min_saturation:
            return
        read = [(b, sat, v, bool(still) and still[i]) for i, (b, sat, v) in enumerate(agents) if v is not None]
        most = max(read, key=lambda bsvs: bsvs[2], default=None)
        if most is None:
            return
        b, sat, vivid, at_rest = most
        floor = VIVID_SHARE * vivid
        # never over the floor at which the blob it is read from would no longer be kept (as
        # large as a full agent; on a wall junction, as large as no speck there is: see _blobs):
        # a look-alike dot on a junction, vivid at its core only, set a floor at which it was a
        # speck, the next frame's floor then came from the paler agent, at which it was kept
        # again, and so on - seen in every other frame, never a still object, and the agent
        # passing by was linked onto it (mazeworld 81818 v00077 cast green and magenta)
        need = int(np.ceil(self.min_area_px))
        if self.area_px and on_post(b.row, b.col):
            need = max(need, int(np.ceil(PART_OF * self.area_px)))
        if sat.size >= need:
            floor = min(floor, float(np.partition(sat, sat.size - need)[sat.size - need]))
        floor = max(floor, FLOOR_DROP * self.floor)
        floor = int(min(st.agent_saturation, max(st.min_saturation, floor)))
        if at_rest and floor < self.floor:
            return
        self.floor = floor
        self.lowest_floor = min(self.lowest_floor, self.floor)

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
        st, k, geo = self.style, self.k, self.geometry
        cy, cx = geo.to_canvas(b.row) - 0.5, geo.to_canvas(b.col) - 0.5
        half = max(2, int(round(0.75 * np.sqrt(self.area_px if self.area_px else b.area * k * k))))
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
        if len(self._ref_samples) < 5 and largest >= self.min_area_px:
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


def _vivid(saturations: np.ndarray) -> float | None:
    """How vivid pixels of these saturations are: their upper quartile, None under four."""
    return upper_quartile(saturations) if saturations.size >= 4 else None
