"""The grid size: along each axis, the fewest cells whose boundaries carry the ink's edges (square
cells and a faint cell grid considered), and the candidate whose walls read most cleanly."""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np

from ...errors import InputError
from .ink import _SQUARE_3, FAINT_INK_MIN, INK_MIN
from .reading import LATTICE_THICKNESS, Box
from .regions import _areas, _even_box, _where
from .strokes import _faint_lines, _line_centres, _near_lines, _stroke_thickness, _unblurred, _wall_widths
from .walls import Thickness, _fit, _segment_darkness, _segment_peaks

GRID_LINE_BONUS = 0.2  #: grid candidates gain this x the share of faint grid lines (GRID_LINE_MIN) on their boundaries
FAINT_GRID_EDGES = 0.1  #: ... and such a line counts as this share of a full-length wall's ink edges
MAX_GRID = 60          #: cells per side at most



NARROWEST_CELL = 1.75  #: walls: a cell is at least this wide (a lattice cell is 2: corridor and wall alike)


def _count_fits(profile: np.ndarray, length: float, thickness: float) -> dict[int, tuple[float, float]]:
    """How well each plausible cell count along one axis fits its ink edges:
    ``{cells: (share of the edges on its boundary lines, share of its interior lines that
    carry edges)}``; a count's score is their product (a multiple of the right count leaves
    half its lines empty).

    ``profile[i]``: ink edges at offset ``i`` from the first border's centre; ``length``:
    the distance between the two border centres.
    """
    total = float(profile.sum())
    if total <= 0:
        return {}
    pos = np.arange(profile.size, dtype=np.float64)
    top = min(MAX_GRID, int(length / max(3.0, 1.5 * thickness)))  # lattice walls: pitch = 2 x thickness
    counts = np.arange(2, max(2, top) + 1)
    # every count at once: one row per count (edge counts are whole numbers: their sums are exact)
    pitch = (length / counts)[:, None]
    tol = thickness / 2 + np.maximum(1.0, 0.06 * pitch)
    nearest = np.round(pos / pitch)
    near = np.abs(pos / pitch - nearest) * pitch <= tol
    share = np.where(near, profile, 0.0).sum(axis=1) / total
    # ... and the share of its interior lines that carry edges: a finer grid whose lines
    # happen to catch both edges of the real lines leaves most of its own lines empty
    lines = max(int(nearest.max()), int(counts[-1])) + 1  # row k of per_line: count k's lines 0, 1, ...
    per_line = np.bincount((nearest + lines * np.arange(counts.size)[:, None])[near].astype(int),
                           weights=np.broadcast_to(profile, near.shape)[near],
                           minlength=lines * counts.size).reshape(counts.size, lines)
    interior = (np.arange(lines) >= 1) & (np.arange(lines) < counts[:, None])  # its lines 1 .. n-1
    per_line = np.where(interior, per_line, 0.0)
    most = per_line.max(axis=1, keepdims=True)
    used = np.count_nonzero(interior & (per_line > 0.02 * most), axis=1) / (counts - 1)
    # a count with no edges on its interior lines explains none of the ink between the borders:
    # 0, unless there is none (then every count is as good). Scored 1, such counts had the
    # border's share alone and outranked the right one where a flag's pole outweighed the few
    # walls of a sparse blurred 3x3 maze (mazeworld 48048 v00131, read 3x2)
    inside = (pos > thickness + 1.0) & (pos < length - thickness - 1.0)
    used = np.where(most[:, 0] > 0, used, 0.0 if profile[inside].any() else 1.0)
    return {int(n): (float(s), float(u)) for n, s, u in zip(counts, share, used)}


def _ranked_counts(fits: dict[int, tuple[float, float]]) -> list[tuple[int, float]]:
    """The plausible cell counts of :func:`_count_fits`, fewest cells first: ``[(cells,
    score)]``, the best four within 0.6 of the best score (the caller tells them apart by
    reading the walls)."""
    scores = {n: share * used for n, (share, used) in fits.items()}
    if not scores:
        return []
    best = max(scores.values())
    ranked = sorted((n for n in scores if scores[n] >= 0.6 * best), key=lambda n: -scores[n])
    return [(n, scores[n]) for n in sorted(ranked[:4])]


def _without_marker_ink(ink: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """Drop ink glued to a coloured blob but not to the walls: a flag's pole, an icon's outline.

    The walls are the largest piece of (slightly closed) ink: the border holds them
    together. Other pieces touching a blob are dropped when smaller than half of it (a
    lattice post beside a marker square is as big as the square: it stays).
    """
    blobs_at = _even_box(colour)  # (blobs are labelled there only: see _even_box)
    if blobs_at is None:
        return ink
    closed = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, _SQUARE_3)
    count, labels = cv2.connectedComponents(closed, connectivity=8)
    if count <= 2:
        return ink
    area = _areas(labels, count)
    bx0, by0, bx1, by1 = blobs_at
    ncol, blob_ids = cv2.connectedComponents(colour[by0:by1, bx0:bx1], connectivity=8)
    blob_area = np.bincount(blob_ids.ravel(), minlength=ncol)
    # the nearest-ish blob's id (the largest within 2 px), on the zone 2 px around the blobs
    # only: it is 0 beyond, and every pixel's 5x5 neighbourhood there is in the zone or paper
    zy0, zx0 = max(0, by0 - 2), max(0, bx0 - 2)
    zone = (slice(zy0, by1 + 2), slice(zx0, bx1 + 2))
    blobs = np.zeros(colour[zone].shape, np.float32)
    blobs[by0 - zy0:by1 - zy0, bx0 - zx0:bx1 - zx0] = blob_ids
    near = cv2.dilate(blobs, np.ones((5, 5), np.uint8)).astype(np.int32)
    walls = 1 + int(np.argmax(area[1:]))
    drop: list[int] = []
    labels_near = labels[zone]
    for i in np.unique(labels_near[(near > 0) & (closed[zone] > 0)]):
        if i in (0, walls):
            continue
        touched = np.unique(near[(labels_near == i) & (near > 0)])
        if area[i] < 0.5 * float(blob_area[touched].max()):
            drop.append(int(i))
    if not drop:
        return ink
    gone = _where(labels, drop[0])
    for i in drop[1:]:
        cv2.bitwise_or(gone, _where(labels, i), dst=gone)
    return cv2.bitwise_and(ink, cv2.bitwise_not(gone))


class GridEstimate(NamedTuple):
    """What :func:`estimate_grid` measured."""

    grids: list[tuple[tuple[int, int], float]]  #: candidate (rows, cols) with their edge scores
    thickness: Thickness                        #: interior walls, pixels
    box: Box                                    #: the border lines' centres (corrected where merged with a frame)
    faint_lines: tuple[np.ndarray, np.ndarray]  #: centres of faint full-span lines inside (rows, columns),
                                                #: looked for only where there are several candidates


def estimate_grid(dark: np.ndarray, box: Box, borders: tuple[float, ...],
                  colour: np.ndarray | None = None, *,
                  grid: tuple[int, int] | None = None) -> GridEstimate:
    """The candidate grids with their edge scores, the interior walls' thickness in pixels, the
    box (corrected where a border merged with a frame) and the faint lines inside it, from the
    ink inside the box.

    ``colour``: the image's colour mask (:func:`~.ink.colour_mask`), so that ink glued to markers
    (a flag's pole, an icon's outline) is not taken for walls.
    """
    t, l, b, r = box
    bt, bl, bb, br = borders
    y0, y1 = int(np.ceil(t + bt / 2)), int(np.floor(b - bb / 2)) + 1
    x0, x1 = int(np.ceil(l + bl / 2)), int(np.floor(r - br / 2)) + 1
    if y1 - y0 < 4 or x1 - x0 < 4:
        raise InputError("the maze is too small to read")
    # marker ink is told from walls on the whole box, border included (it holds the walls together)
    oy0, oy1 = max(0, int(np.floor(t - bt / 2)) - 1), min(dark.shape[0], int(np.ceil(b + bb / 2)) + 2)
    ox0, ox1 = max(0, int(np.floor(l - bl / 2)) - 1), min(dark.shape[1], int(np.ceil(r + br / 2)) + 2)
    whole = (dark[oy0:oy1, ox0:ox1] >= INK_MIN).astype(np.uint8)
    inside = (slice(y0 - oy0 + 2, y1 - oy0 - 2), slice(x0 - ox0 + 2, x1 - ox0 - 2))  # clear of the border
    faint = (dark[oy0:oy1, ox0:ox1] >= FAINT_INK_MIN).astype(np.uint8)
    if colour is not None:
        whole = _without_marker_ink(whole, colour[oy0:oy1, ox0:ox1])
    # walls blurred paler than ink, border still ink (told apart once the markers' own ink is
    # gone: a flag's black pole outweighed a 3x3 maze's few grey 1-px walls, mazeworld 42424
    # v00250); dropping marker ink only removes pixels, so the faint map is cleaned only when
    # it could still pass
    if np.count_nonzero(faint[inside]) > 3 * np.count_nonzero(whole[inside]):
        if colour is not None:
            faint = _without_marker_ink(faint, colour[oy0:oy1, ox0:ox1])
        if np.count_nonzero(faint[inside]) > 3 * np.count_nonzero(whole[inside]):
            whole = faint
    ink = whole[y0 - oy0:y1 - oy0, x0 - ox0:x1 - ox0]
    # Interior walls are never thicker than the border (as thick in lattice looks, thinner
    # in MazePlot); the border's own bands are the steadier measure in tiny mazes.
    # ... and never much thicker than the corridors: a lattice's are as wide as its walls
    # (blur widens one as it narrows the other: their mean is the unit), and in a small
    # lattice maze most dark runs span two or three units.
    corridor = _stroke_thickness(1 - ink)
    stroke = _unblurred(_stroke_thickness(ink), corridor)
    wy, wx = _wall_widths(ink, stroke, corridor, border=(min(bt, bb), min(bl, br)))
    if wy == wx:
        thickness = Thickness.square(min(stroke, float(np.median(borders))))
    else:  # stretched: each way against its own borders (one pair may have merged with a frame)
        thickness = Thickness(min(wy, max(bt, bb)), min(wx, max(bl, br)))
    # A border band far thicker than the walls, or running into the picture's edge, is a
    # wall merged with a dark frame or letterbox bar: its line centre is half a wall out
    # from its inner edge.
    cap_y, cap_x = 2.5 * thickness.y + 2, 2.5 * thickness.x + 2
    h, w = dark.shape
    half_y, half_x = (thickness.y + 1) / 2, (thickness.x + 1) / 2  # first interior pixel to a band's centre
    t = y0 - half_y if bt > cap_y or t - bt / 2 <= 1 else t
    b = y1 - 1 + half_y if bb > cap_y or b + bb / 2 >= h - 2 else b
    l = x0 - half_x if bl > cap_x or l - bl / 2 <= 1 else l
    r = x1 - 1 + half_x if br > cap_x or r + br / 2 >= w - 2 else r
    if grid is not None:
        return GridEstimate([(grid, 1.0)], thickness, (t, l, b, r), (np.zeros(0), np.zeros(0)))
    if min(thickness) <= 0:  # (border bands measured 0 px wide: no border, nothing to count cells by)
        raise InputError("no border lines around the place")
    # Where ink starts and stops: on the lines' edges (thin walls) or the lattice's unit
    # boundaries (thick walls), both within half a wall of a cell boundary.
    edges_y = (np.diff(ink.astype(np.int8), axis=0) != 0).sum(axis=1)   # between rows i and i+1
    edges_x = (np.diff(ink.astype(np.int8), axis=1) != 0).sum(axis=0)
    prof_y = np.zeros(int(np.ceil(b - t)) + 2)
    prof_x = np.zeros(int(np.ceil(r - l)) + 2)
    ys = np.arange(y0, y1 - 1) + 0.5 - t
    xs = np.arange(x0, x1 - 1) + 0.5 - l
    np.add.at(prof_y, np.clip(np.round(ys).astype(int), 0, prof_y.size - 1), edges_y)
    np.add.at(prof_x, np.clip(np.round(xs).astype(int), 0, prof_x.size - 1), edges_x)
    box = (t, l, b, r)
    grids = _grid_candidates(_count_fits(prof_y, b - t, thickness.y), _count_fits(prof_x, r - l, thickness.x),
                             box, thickness)
    # A light cell grid runs on every boundary, walls or none: its lines count as edges too (a
    # share of a full-length wall's), so that a count whose lines the walls leave mostly
    # empty but the grid marks is not passed over for a coarser one (a squeezed 4x4 MazePlot
    # maze whose walls end on its middle row boundary only read as 2 rows: mazeworld 60606
    # v00055). Looked for only where the walls leave a choice.
    centres = (np.zeros(0), np.zeros(0))
    if len(grids) > 1:
        centres = _faint_line_centres(dark, box, thickness)
        on_y, on_x = _grid_lines_of(centres, box, (max(s[0] for s, _ in grids), max(s[1] for s, _ in grids)))
        if on_y.size + on_x.size >= 2:
            for lines, prof, origin, span in ((on_y, prof_y, t, r - l), (on_x, prof_x, l, b - t)):
                np.add.at(prof, np.clip(np.round(lines - origin).astype(int), 0, prof.size - 1),
                          FAINT_GRID_EDGES * 2 * span)
            grids = _grid_candidates(_count_fits(prof_y, b - t, thickness.y),
                                     _count_fits(prof_x, r - l, thickness.x), box, thickness)
    if not grids:
        raise InputError("no grid of walls found inside the maze's border")
    return GridEstimate(grids, thickness, box, centres)


def _grid_candidates(fits_y: dict[int, tuple[float, float]], fits_x: dict[int, tuple[float, float]], box: Box,
                     thickness: Thickness) -> list[tuple[tuple[int, int], float]]:
    """Candidate grids ``[((rows, cols), edge score)]`` from each axis's count fits
    (:func:`_count_fits`): the best counts of one axis paired with the other's.

    Cells are square in every look met so far, save a maze stretched to another aspect,
    whose walls are stretched alike: each axis also tries the count the other axis's pitch
    implies (an axis with few interior edges, e.g. a comb of open boundaries, gets its
    count that way); reading the walls decides. Such a pair scores as its source squared,
    times the share of its own axis's edges on its lines: a comb's few edges lie on them,
    while the lines of thin walls squeezed one way (a square puzzle stretched: they keep
    their width, so nothing else tells) mostly miss the lines of square cells. Either way a
    cell is at least NARROWEST_CELL walls wide (a lattice's corridor is as wide as its walls).
    """
    t, l, b, r = box
    rows, cols = _ranked_counts(fits_y), _ranked_counts(fits_x)
    tall, wide = NARROWEST_CELL * thickness.y, NARROWEST_CELL * thickness.x
    aspect = thickness.y / thickness.x  # a cell's height over its width (1: square)
    grids = [((n, m), sn * sm) for n, sn in rows for m, sm in cols
             if n * m >= 2 and (b - t) / n >= tall and (r - l) / m >= wide]
    fits = {(n, m) for (n, m), _ in grids}
    for m, sm in cols:
        n = max(1, int(round((b - t) / ((r - l) / m * aspect))))
        if (n, m) not in fits and n * m >= 2 and (b - t) / n >= tall:
            grids.append(((n, m), sm * sm * fits_y.get(n, (1.0, 1.0))[0]))
    for n, sn in rows:
        m = max(1, int(round((r - l) / ((b - t) / n / aspect))))
        if (n, m) not in fits and n * m >= 2 and (r - l) / m >= wide:
            grids.append(((n, m), sn * sn * fits_x.get(m, (1.0, 1.0))[0]))
    return grids


def _faint_line_centres(dark: np.ndarray, box: Box, thickness: Thickness) -> tuple[np.ndarray, np.ndarray]:
    """Centres (image rows, image columns) of the faint full-span lines inside the box, clear
    of the border: a light cell grid, or walls too pale to count as ink."""
    t, l, b, r = box
    inset = int(np.ceil(max(thickness))) + 2
    y0, y1, x0, x1 = int(t) + inset, int(np.ceil(b)) - inset + 1, int(l) + inset, int(np.ceil(r)) - inset + 1
    if y1 - y0 <= 8 or x1 - x0 <= 8:
        return np.zeros(0), np.zeros(0)
    region = dark[max(0, y0):y1, max(0, x0):x1]
    return (_line_centres(_faint_lines(region, axis=1)) + max(0, y0),
            _line_centres(_faint_lines(region, axis=0)) + max(0, x0))


def _grid_lines_of(centres: tuple[np.ndarray, np.ndarray], box: Box,
                   finest: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The faint lines (:func:`_faint_line_centres`) taken for a cell grid's: those a quarter of
    the finest candidate cell (``finest``: the most rows and columns any candidate has) or
    more from the border - a blurred border's flank beside it is no grid line (such lines
    favoured coarse grids, whose tolerance is wider)."""
    (ys, xs), (t, l, b, r) = centres, box
    near_y, near_x = 0.25 * (b - t) / finest[0], 0.25 * (r - l) / finest[1]
    return ys[(ys - t > near_y) & (b - ys > near_y)], xs[(xs - l > near_x) & (r - xs > near_x)]


def _best_grid(dark: np.ndarray, estimate: GridEstimate) -> tuple[tuple[int, int], np.ndarray, np.ndarray]:
    """The candidate grid whose walls read most cleanly (edges on its lines x segment fit;
    cells closer to square - stretched as the walls are, for lattice walls - break
    near-ties), with its segment darkness (trimmed: see :func:`~.walls.read_segments`)."""
    grids, thickness, box, faint_lines = estimate
    if len(grids) == 1:  # nothing to choose from
        return grids[0][0], *_segment_darkness(_segment_peaks(dark, box, grids[0][0], thickness), trim=True)
    best: tuple[float, tuple[int, int], tuple[np.ndarray, np.ndarray]] | None = None
    t, l, b, r = box
    # Faint full-span lines (a light cell grid; walls too pale to count as ink) all lie on the
    # right grid's boundaries, also where a maze with few walls leaves most boundaries open.
    faint_y, faint_x = _grid_lines_of(faint_lines, box, (max(s[0] for s, _ in grids),
                                                         max(s[1] for s, _ in grids)))
    for shape, edge_score in grids[:12]:
        peaks = _segment_peaks(dark, box, shape, thickness)
        vert, horiz = _segment_darkness(peaks, trim=False)
        py, px = (b - t) / shape[0], (r - l) / shape[1]
        lattice = thickness.y / py + thickness.x / px >= 2 * LATTICE_THICKNESS
        aspect = abs(np.log(py / px / (thickness.y / thickness.x if lattice else 1.0)))
        quality = edge_score * _fit(vert, horiz) - 0.1 * aspect
        if faint_y.size + faint_x.size >= 2:
            on = [_near_lines(faint_y, t, py, thickness.y), _near_lines(faint_x, l, px, thickness.x)]
            quality += GRID_LINE_BONUS * float(np.concatenate(on).mean())
        if best is None or quality > best[0] + 1e-9:
            best = (quality, shape, peaks)
    assert best is not None
    vert, horiz = _segment_darkness(best[2], trim=True)  # the walls of the grid chosen
    return best[1], vert, horiz
