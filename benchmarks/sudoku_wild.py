"""Labelled Sudoku answers with the effects of real model outputs, made independently of cvcheck.

Nothing here imports cvcheck. Puzzles come from an exact-cover search (Knuth's Algorithm X
on dicts of sets) written here, not cvcheck's solver, and each is checked to have exactly
one solution by that search; sizes 3x3 (a Latin square, no boxes: VMEvalKit's task), 4x4,
6x6 (2x3 boxes) and 9x9. Ground truth is the generator's own grids: what every frame
shows, and the gate computed here from the puzzle, the solution and the shown grids (not
by cvcheck's ``score_grid``). Digits are drawn with fonts the reader was not tuned on
(italic, condensed, mono, extra-light and Computer Modern faces from matplotlib and the
system) and with jittered pen strokes (handwriting-like).

Effects: entries in another colour, weight or font than the clues; highlighted cells, a
cursor box; small pencil marks in cell corners; digits fading in over several frames; a
"hand" blob over the cell being written; a green glow around the finished grid; the grid
zooming or shifting (smoothly, or a sudden rescale); 1-2 fps strips; a blurry first frame;
rotation, perspective, blur, JPEG and grain.

    case = make_image_case(7)             # .image, .puzzle_image, .puzzle, .solution, .shown, .labels
    video = make_video_case(8)            # .frames(), .write_mp4(path), .labels, .shown (final grid)
"""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

BOXES = {3: None, 4: (2, 2), 6: (2, 3), 9: (3, 3)}
CLUES = {3: (2, 4), 4: (5, 9), 6: (10, 18), 9: (26, 40)}

# ----------------------------------------------------------------------------- puzzles


def _constraints(n: int, boxes: tuple[int, int] | None) -> dict[tuple[int, int, int], list[tuple[str, int, int]]]:
    """Exact-cover rows: placing digit d at (r, c) covers its cell, row, column (and box) constraints."""
    rows = {}
    for r in range(n):
        for c in range(n):
            for d in range(1, n + 1):
                cons = [("cell", r, c), ("row", r, d), ("col", c, d)]
                if boxes is not None:
                    br, bc = boxes
                    cons.append(("box", (r // br) * (n // bc) + c // bc, d))
                rows[(r, c, d)] = cons
    return rows


class ExactCover:
    """Algorithm X with the column -> rows map as dicts of sets (Ali Assaf's formulation)."""

    def __init__(self, n: int, boxes: tuple[int, int] | None) -> None:
        self.n = n
        self.rows = _constraints(n, boxes)
        self.cols: dict[Any, set] = {}
        for key, cons in self.rows.items():
            for col in cons:
                self.cols.setdefault(col, set()).add(key)

    def solutions(self, puzzle: np.ndarray, limit: int, rng: np.random.Generator | None = None) -> list[np.ndarray]:
        cols = {k: set(v) for k, v in self.cols.items()}
        chosen = []
        for r, c in zip(*np.nonzero(puzzle)):
            key = (int(r), int(c), int(puzzle[r, c]))
            if any(col not in cols or key not in cols[col] for col in self.rows[key]):
                return []
            self._select(cols, key)
            chosen.append(key)
        out: list[np.ndarray] = []
        self._search(cols, chosen, out, limit, rng)
        return out

    def _search(self, cols, chosen, out, limit, rng) -> None:
        if len(out) >= limit:
            return
        if not cols:
            grid = np.zeros((self.n, self.n), np.int8)
            for r, c, d in chosen:
                grid[r, c] = d
            out.append(grid)
            return
        col = min(cols, key=lambda k: len(cols[k]))
        options = sorted(cols[col])
        if rng is not None:
            options = [options[i] for i in rng.permutation(len(options))]
        for key in options:
            removed = self._select(cols, key)
            chosen.append(key)
            self._search(cols, chosen, out, limit, rng)
            chosen.pop()
            self._deselect(cols, key, removed)
            if len(out) >= limit:
                return

    def _select(self, cols, key):
        removed = []
        for j in self.rows[key]:
            for i in cols[j]:
                for k in self.rows[i]:
                    if k != j:
                        cols[k].discard(i)
            removed.append(cols.pop(j))
        return removed

    def _deselect(self, cols, key, removed):
        for j in reversed(self.rows[key]):
            cols[j] = removed.pop()
            for i in cols[j]:
                for k in self.rows[i]:
                    if k != j:
                        cols[k].add(i)


def make_pair(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """A (puzzle, solution) with exactly one solution, clues in CLUES[n] when reachable."""
    xc = ExactCover(n, BOXES[n])
    solution = xc.solutions(np.zeros((n, n), np.int8), 1, rng)[0]
    target = int(rng.integers(CLUES[n][0], CLUES[n][1] + 1))
    puzzle = solution.copy()
    for i in rng.permutation(n * n):
        if int((puzzle != 0).sum()) <= target:
            break
        r, c = divmod(int(i), n)
        keep = puzzle[r, c]
        puzzle[r, c] = 0
        if len(xc.solutions(puzzle, 2)) != 1:
            puzzle[r, c] = keep
    assert len(xc.solutions(puzzle, 2)) == 1
    return puzzle, solution


# ----------------------------------------------------------------------------- labels


def units(n: int) -> list[list[tuple[int, int]]]:
    out = [[(r, c) for c in range(n)] for r in range(n)] + [[(r, c) for r in range(n)] for c in range(n)]
    boxes = BOXES[n]
    if boxes is not None:
        br, bc = boxes
        out += [[(r0 + i, c0 + j) for i in range(br) for j in range(bc)]
                for r0 in range(0, n, br) for c0 in range(0, n, bc)]
    return out


def gate_labels(puzzle: np.ndarray, solution: np.ndarray, shown: list[np.ndarray]) -> dict[str, Any]:
    """MMGR T2 from the grids shown (the last one is the final frame): CC over all, CV/CA final."""
    n = puzzle.shape[0]
    clue = puzzle != 0
    cc = int(any(bool((g[clue] != puzzle[clue]).any()) for g in shown))
    final = shown[-1]
    bad = 0
    for unit in units(n):
        vals = [int(final[r, c]) for r, c in unit if final[r, c] > 0]
        bad += int(len(vals) != len(set(vals)))
    cv = bad / len(units(n))
    empty = ~clue
    ca = float(((final == solution) & empty).sum()) / max(1, int(empty.sum()))
    return {"clues_changed": cc, "constraint_violation": cv, "completion_accuracy": ca,
            "overall": int(cc == 0 and cv == 0 and ca == 1.0)}


# ----------------------------------------------------------------------------- drawing

_MPL = ("DejaVuSans-Oblique.ttf", "DejaVuSansMono-Bold.ttf", "DejaVuSerif-Italic.ttf", "DejaVuSerif-BoldItalic.ttf",
        "DejaVuSans-BoldOblique.ttf", "STIXGeneralItalic.ttf", "STIXGeneralBolIta.ttf", "cmr10.ttf", "cmtt10.ttf",
        "cmb10.ttf")
_SYS = ("DejaVuSans-ExtraLight.ttf", "DejaVuSansCondensed-Bold.ttf", "DejaVuSerifCondensed.ttf",
        "DejaVuMathTeXGyre.ttf")
PEN = "pen"  # jittered strokes


@functools.lru_cache(maxsize=1)
def fonts() -> tuple[str, ...]:
    """Font files the reader was not tuned on, plus the pen."""
    import matplotlib

    root = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    out = [str(root / f) for f in _MPL if (root / f).is_file()]
    out += [str(p) for f in _SYS for p in [Path("/usr/share/fonts/truetype/dejavu") / f] if p.is_file()]
    return tuple(out + [PEN])


_STROKES = {
    1: [[(0.3, 0.22), (0.55, 0.0), (0.55, 1.0)]],
    2: [[(0.12, 0.25), (0.3, 0.03), (0.65, 0.0), (0.88, 0.22), (0.82, 0.45), (0.1, 1.0), (0.95, 1.0)]],
    3: [[(0.12, 0.1), (0.5, 0.0), (0.85, 0.15), (0.82, 0.38), (0.45, 0.5), (0.88, 0.63), (0.9, 0.88),
         (0.5, 1.0), (0.1, 0.9)]],
    4: [[(0.68, 1.0), (0.68, 0.0), (0.05, 0.68), (0.95, 0.68)]],
    5: [[(0.85, 0.0), (0.22, 0.0), (0.17, 0.45), (0.55, 0.37), (0.88, 0.58), (0.86, 0.87), (0.5, 1.0), (0.1, 0.9)]],
    6: [[(0.78, 0.04), (0.45, 0.0), (0.17, 0.35), (0.13, 0.75), (0.35, 1.0), (0.75, 0.96), (0.88, 0.72),
         (0.7, 0.5), (0.35, 0.5), (0.14, 0.66)]],
    7: [[(0.08, 0.0), (0.92, 0.0), (0.38, 1.0)]],
    8: [[(0.5, 0.5), (0.2, 0.35), (0.22, 0.08), (0.5, 0.0), (0.78, 0.08), (0.8, 0.35), (0.5, 0.5), (0.15, 0.68),
         (0.2, 0.93), (0.5, 1.0), (0.8, 0.93), (0.85, 0.68), (0.5, 0.5)]],
    9: [[(0.84, 0.35), (0.6, 0.55), (0.28, 0.52), (0.14, 0.28), (0.3, 0.03), (0.62, 0.0), (0.84, 0.2),
         (0.84, 0.35), (0.78, 0.75), (0.5, 1.0), (0.18, 0.92)]],
}


@dataclass(frozen=True)
class Look:
    """How a grid is drawn (sizes in output pixels, colours RGB)."""

    size: int = 512
    pad: float = 0.08
    clue_font: str = PEN
    entry_font: str = PEN
    clue_color: tuple[int, int, int] = (0, 0, 0)
    entry_color: tuple[int, int, int] = (30, 60, 200)
    line_color: tuple[int, int, int] = (0, 0, 0)
    background: tuple[int, int, int] = (255, 255, 255)
    thin: float = 0.03
    thick: float = 0.08
    clue_scale: float = 0.62
    entry_scale: float = 0.62
    pen_width: float = 0.08          #: pen stroke width, share of the digit height
    rotation: float = 0.0
    perspective: float = 0.0
    blur: float = 0.0
    jpeg: int = 0
    seed: int = 0


def random_look(rng: np.random.Generator, *, size: int | None = None) -> Look:
    names = fonts()
    clue_font = names[int(rng.integers(len(names)))]
    other = rng.random() < 0.6  # entries in another font / weight than the clues
    entry_font = names[int(rng.integers(len(names)))] if other else clue_font
    inks = [(0, 0, 0), (25, 25, 35), (40, 40, 120)]
    entries = [(30, 60, 200), (200, 30, 30), (20, 130, 60), (120, 30, 160), (0, 120, 170), (60, 60, 60), (0, 0, 0)]
    bg = (255, 255, 255) if rng.random() < 0.6 else tuple(int(v) for v in rng.integers(228, 256, 3))
    rot = float(rng.uniform(-1.5, 1.5)) if rng.random() < 0.3 else 0.0
    persp = float(rng.uniform(0, 0.015)) if rng.random() < 0.2 else 0.0
    size = size or int(rng.choice([288, 320, 384, 448, 512, 640, 800]))
    return Look(size=size, pad=float(rng.uniform(0.04 + abs(rot) * 0.01 + persp, 0.14)), clue_font=clue_font,
                entry_font=entry_font, clue_color=inks[int(rng.integers(len(inks)))],
                entry_color=entries[int(rng.integers(len(entries)))],
                line_color=(0, 0, 0) if rng.random() < 0.7 else (70, 70, 90), background=bg,  # type: ignore[arg-type]
                thin=float(rng.uniform(0.015, 0.045)), thick=float(rng.uniform(0.05, 0.1)),
                clue_scale=float(rng.uniform(0.5, 0.7)), entry_scale=float(rng.uniform(0.45, 0.72)),
                pen_width=float(rng.uniform(0.07, 0.13)), rotation=rot, perspective=persp,
                blur=float(rng.uniform(0.3, 1.0)) if rng.random() < 0.3 else 0.0,
                jpeg=int(rng.integers(45, 95)) if rng.random() < 0.4 else 0, seed=int(rng.integers(2**31)))


@dataclass
class Scene:
    """One frame's content on top of the grid."""

    digits: np.ndarray                       #: shown digits (0 blank)
    alpha: np.ndarray | None = None          #: per-cell opacity of entries (fade-ins)
    pencil: dict[tuple[int, int], list[int]] = field(default_factory=dict)
    highlight: list[tuple[int, int]] = field(default_factory=list)
    highlight_color: tuple[int, int, int] = (255, 244, 160)
    cursor: tuple[int, int] | None = None
    hand: tuple[float, float] | None = None  #: (row, col) in cell units of the hand's centre
    glow: bool = False
    zoom: float = 1.0
    shift: tuple[float, float] = (0.0, 0.0)  #: (dx, dy) share of the frame side
    blur: float = 0.0                        #: extra blur (a blurry first frame)


def _pen_digit(draw: ImageDraw.ImageDraw, d: int, cx: float, cy: float, height: float, color, width: float,
               rng: np.random.Generator) -> None:
    w = 0.62 * height
    slant = float(rng.uniform(-0.12, 0.18))
    for stroke in _STROKES[d]:
        pts = []
        for x, y in stroke:
            jx, jy = rng.normal(0, 0.025, 2)
            px = cx + (x - 0.5 + jx + slant * (0.5 - y)) * w
            py = cy + (y - 0.5 + jy) * height
            pts.append((float(px), float(py)))
        draw.line(pts, fill=color, width=max(1, round(width * height)), joint="curve")


def _font_digit(img: Image.Image, d: int, cx: float, cy: float, height: float, color, font: str) -> None:
    f = ImageFont.truetype(font, size=max(6, round(height * 1.35)))
    ImageDraw.Draw(img).text((cx, cy), str(d), fill=color, font=f, anchor="mm")


def render(look: Look, puzzle: np.ndarray, scene: Scene) -> np.ndarray:
    """One RGB frame (look.size square) of the grid with ``scene`` drawn on it."""
    n = puzzle.shape[0]
    s = look.size
    pad = look.pad * s
    g = s - 2 * pad
    cell = g / n
    rng = np.random.default_rng(look.seed)
    img = Image.new("RGB", (s, s), look.background)
    draw = ImageDraw.Draw(img)
    for r, c in scene.highlight:
        x0, y0 = pad + c * cell, pad + r * cell
        draw.rectangle([x0, y0, x0 + cell, y0 + cell], fill=scene.highlight_color)
    boxes = BOXES[n]
    for i in range(n + 1):
        for horizontal in (True, False):
            major = i in (0, n) or (boxes is not None and i % (boxes[0] if horizontal else boxes[1]) == 0)
            w = max(1, round((look.thick if major else look.thin) * cell))
            pos = pad + i * cell
            lo, hi = pos - w / 2, pos + w / 2 - 1
            draw.rectangle([pad, lo, pad + g, max(lo, hi)] if horizontal else [lo, pad, max(lo, hi), pad + g],
                           fill=look.line_color)
    for r in range(n):
        for c in range(n):
            d = int(scene.digits[r, c])
            cx, cy = pad + (c + 0.5) * cell, pad + (r + 0.5) * cell
            if d:
                is_clue = puzzle[r, c] != 0
                color: tuple[int, ...] = look.clue_color if is_clue else look.entry_color
                a = 1.0 if is_clue or scene.alpha is None else float(scene.alpha[r, c])
                if a <= 0:
                    continue
                color = tuple(round(a * v + (1 - a) * b) for v, b in zip(color, look.background))
                font = look.clue_font if is_clue else look.entry_font
                height = cell * (look.clue_scale if is_clue else look.entry_scale)
                drng = np.random.default_rng([look.seed, r, c, d])
                if font == PEN:
                    _pen_digit(draw, d, cx, cy, height * 0.92, color, look.pen_width, drng)
                else:
                    _font_digit(img, d, cx, cy, height, color, font)
                    draw = ImageDraw.Draw(img)
            elif (r, c) in scene.pencil:
                small = ImageFont.truetype(fonts()[0], size=max(6, round(cell * 0.3)))
                for k in scene.pencil[(r, c)]:
                    i, j = divmod(k - 1, 3)
                    draw.text((pad + (c + 0.2 + 0.3 * j) * cell, pad + (r + 0.2 + 0.3 * i) * cell), str(k),
                              fill=(110, 110, 130), font=small, anchor="mm")
    if scene.cursor is not None:
        r, c = scene.cursor
        w = max(2, round(0.07 * cell))
        draw.rectangle([pad + c * cell + w, pad + r * cell + w, pad + (c + 1) * cell - w, pad + (r + 1) * cell - w],
                       outline=(255, 150, 0), width=w)
    arr = np.asarray(img).copy()
    if scene.glow:
        arr = _glow(arr, pad, g)
    if scene.hand is not None:
        arr = _hand(arr, pad + (scene.hand[1] + 0.5) * cell, pad + (scene.hand[0] + 0.5) * cell, cell, rng)
    arr = _geometry(arr, look, scene, rng)
    return _degrade(arr, look, scene)


def _glow(arr: np.ndarray, pad: float, g: float) -> np.ndarray:
    s = arr.shape[0]
    ring: np.ndarray = np.zeros((s, s), np.float32)
    w = max(3, round(0.02 * s))
    cv2.rectangle(ring, (round(pad - w), round(pad - w)), (round(pad + g + w), round(pad + g + w)), 1.0, w)
    ring = cv2.GaussianBlur(ring, (0, 0), w)
    ring = np.clip(ring / max(ring.max(), 1e-6), 0, 1)[:, :, None] * 0.8
    green = np.array([60, 220, 90], np.float32)
    return np.clip(arr * (1 - ring) + green * ring, 0, 255).astype(np.uint8)


def _hand(arr: np.ndarray, x: float, y: float, cell: float, rng: np.random.Generator) -> np.ndarray:
    """A skin-coloured blob (fingertip over the cell) with an arm to the bottom-right corner."""
    out = arr.copy()
    skin = tuple(int(v) for v in (np.array([224, 172, 140]) + rng.integers(-15, 15, 3)))
    s = out.shape[0]
    ax, ay = round(x + 0.35 * cell), round(y + 0.35 * cell)
    cv2.line(out, (ax, ay), (s + round(cell), s + round(cell)), skin, max(4, round(1.1 * cell)))
    cv2.ellipse(out, (round(x + 0.1 * cell), round(y + 0.1 * cell)), (round(0.62 * cell), round(0.55 * cell)),
                35, 0, 360, skin, -1, cv2.LINE_AA)
    return out


def _geometry(arr: np.ndarray, look: Look, scene: Scene, rng: np.random.Generator) -> np.ndarray:
    s = arr.shape[0]
    src = np.array([[0, 0], [s, 0], [s, s], [0, s]], np.float32)
    rot = cv2.getRotationMatrix2D((s / 2, s / 2), look.rotation, scene.zoom)
    rot[:, 2] += np.array(scene.shift) * s
    jitter = np.random.default_rng(look.seed + 7).uniform(-look.perspective, look.perspective, (4, 2)) * s
    dst = (np.hstack([src, np.ones((4, 1), np.float32)]) @ rot.T + jitter).astype(np.float32)
    if np.allclose(dst, src):
        return arr
    m = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(arr, m, (s, s), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                               borderValue=look.background)


def _degrade(arr: np.ndarray, look: Look, scene: Scene) -> np.ndarray:
    sigma = look.blur + scene.blur
    if sigma > 0:
        arr = cv2.GaussianBlur(arr, (0, 0), sigma)
    if look.jpeg:
        buf = io.BytesIO()
        Image.fromarray(arr).save(buf, format="JPEG", quality=look.jpeg)
        arr = np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB"))
    return np.ascontiguousarray(arr)


# ----------------------------------------------------------------------------- images

IMAGE_DEFECTS = ("solved", "wrong_cell", "changed_clue", "empty_cell", "duplicate")


@dataclass
class ImageCase:
    seed: int
    n: int
    defect: str
    effects: list[str]
    puzzle: np.ndarray
    solution: np.ndarray
    shown: np.ndarray         #: the digits drawn (pencil marks are not digits)
    image: np.ndarray
    puzzle_image: np.ndarray  #: the puzzle as given to the model (another look)
    labels: dict[str, Any]


def _defect(rng: np.random.Generator, puzzle: np.ndarray, solution: np.ndarray, kind: str) -> np.ndarray:
    n = puzzle.shape[0]
    ans = solution.copy()
    empty, clues = np.argwhere(puzzle == 0), np.argwhere(puzzle != 0)
    if kind == "wrong_cell":
        r, c = empty[rng.integers(len(empty))]
        ans[r, c] = rng.choice([d for d in range(1, n + 1) if d != solution[r, c]])
    elif kind == "changed_clue":
        r, c = clues[rng.integers(len(clues))]
        ans[r, c] = rng.choice([d for d in range(1, n + 1) if d != solution[r, c]])
    elif kind == "empty_cell":
        for r, c in empty[rng.choice(len(empty), size=min(len(empty), int(rng.integers(1, 3))), replace=False)]:
            ans[r, c] = 0
    elif kind == "duplicate":  # an entry copied from its row neighbour
        r, c = empty[rng.integers(len(empty))]
        ans[r, c] = ans[r, (c + 1) % n]
    return ans


def _image_scene(rng: np.random.Generator, puzzle: np.ndarray, shown: np.ndarray, effects: list[str]) -> Scene:
    n = puzzle.shape[0]
    scene = Scene(digits=shown)
    cells = [(int(r), int(c)) for r, c in np.argwhere(np.ones((n, n)))]
    if "highlight" in effects:
        scene.highlight = [cells[int(i)] for i in rng.choice(len(cells), size=int(rng.integers(1, 4)), replace=False)]
        scene.highlight_color = [(255, 244, 160), (200, 225, 255), (210, 245, 210)][int(rng.integers(3))]
    if "cursor" in effects:
        scene.cursor = cells[int(rng.integers(len(cells)))]
    if "pencil" in effects:
        blanks = [(int(rc[0]), int(rc[1])) for rc in np.argwhere(shown == 0)]
        for rc in blanks[: int(rng.integers(1, 4))]:
            scene.pencil[rc] = sorted(int(v) for v in rng.choice(np.arange(1, n + 1), size=min(n, 3), replace=False))
    scene.glow = "glow" in effects
    return scene


def make_image_case(seed: int, *, n: int | None = None) -> ImageCase:
    rng = np.random.default_rng(seed)
    n = n or int(rng.choice([3, 4, 6, 9], p=[0.15, 0.25, 0.25, 0.35]))
    puzzle, solution = make_pair(rng, n)
    defect = "solved" if rng.random() < 0.4 else str(rng.choice(IMAGE_DEFECTS[1:]))
    shown = _defect(rng, puzzle, solution, defect)
    effects = [e for e in ("highlight", "cursor", "pencil", "glow") if rng.random() < 0.3]
    if "pencil" in effects and not (shown == 0).any():
        effects.remove("pencil")
    look = random_look(rng)
    image = render(look, puzzle, _image_scene(rng, puzzle, shown, effects))
    given = replace(random_look(rng), rotation=0.0, perspective=0.0, jpeg=0, blur=0.0)
    puzzle_image = render(given, puzzle, Scene(digits=puzzle))
    return ImageCase(seed=seed, n=n, defect=defect, effects=effects, puzzle=puzzle, solution=solution, shown=shown,
                     image=image, puzzle_image=puzzle_image, labels=gate_labels(puzzle, solution, [shown]))


# ----------------------------------------------------------------------------- videos

VIDEO_EFFECTS = ("zoom", "shift", "pencil", "fade", "hand", "highlight", "cursor", "glow", "blurry_start", "lowfps")
VIDEO_DEFECTS = ("solved", "wrong_final", "clue_changed", "empty_left", "solved_reflecting")


@dataclass
class VideoCase:
    seed: int
    n: int
    defect: str
    effects: list[str]
    puzzle: np.ndarray
    solution: np.ndarray
    look: Look
    scenes: list[Scene]
    fps: int
    labels: dict[str, Any]
    puzzle_image: np.ndarray
    noise: float = 0.0

    @property
    def shown(self) -> np.ndarray:
        return self.scenes[-1].digits

    def frames(self) -> Iterator[np.ndarray]:
        rng = np.random.default_rng(self.seed + 3)
        for scene in self.scenes:
            frame = render(self.look, self.puzzle, scene)
            if self.noise:
                frame = np.clip(frame + rng.normal(0, self.noise, frame.shape), 0, 255).astype(np.uint8)
            yield frame

    def write_mp4(self, path: str | Path, *, crf: int = 23) -> Path:
        import av

        out = Path(path)
        with av.open(str(out), mode="w") as container:
            stream = container.add_stream("libx264", rate=self.fps)
            stream.width = stream.height = self.look.size
            stream.pix_fmt = "yuv420p"
            stream.options = {"crf": str(crf), "preset": "veryfast"}
            for rgb in self.frames():
                for packet in stream.encode(av.VideoFrame.from_ndarray(rgb, format="rgb24")):
                    container.mux(packet)
            for packet in stream.encode():
                container.mux(packet)
        return out


def _plan(rng: np.random.Generator, puzzle: np.ndarray, solution: np.ndarray, defect: str, steps: int,
          per_step: int) -> list[dict[tuple[int, int], int]]:
    """Per step, the cells written (value); the last step leaves the final grid."""
    n = puzzle.shape[0]
    empties = [(int(rc[0]), int(rc[1])) for rc in rng.permutation(np.argwhere(puzzle == 0))]
    if rng.random() < 0.5:
        empties.sort()
    final = {rc: int(solution[rc]) for rc in empties}
    if defect == "empty_left":
        final.pop(empties[-1])
    if defect == "wrong_final":
        rc = empties[int(rng.integers(len(empties)))]
        final[rc] = int(rng.choice([d for d in range(1, n + 1) if d != solution[rc]]))
    order = [rc for rc in empties if rc in final]
    plan: list[dict[tuple[int, int], int]] = [dict() for _ in range(steps)]
    for i, rc in enumerate(order):
        plan[min(steps - 1, i // per_step)][rc] = final[rc]
    if defect == "solved_reflecting" and len(order) > 2:  # a wrong digit, corrected later
        rc = order[0]
        plan[0][rc] = int(rng.choice([d for d in range(1, n + 1) if d != solution[rc]]))
        plan[min(steps - 1, len(order) // per_step)][rc] = final[rc]
    if defect == "clue_changed":
        clues = np.argwhere(puzzle != 0)
        clue = clues[int(rng.integers(len(clues)))]
        rc = (int(clue[0]), int(clue[1]))
        plan[int(rng.integers(0, steps))][rc] = int(rng.choice([d for d in range(1, n + 1) if d != puzzle[rc]]))
    return plan


def make_video_case(seed: int, *, n: int | None = None, effects: list[str] | None = None,
                    defect: str | None = None, plain: bool = False) -> VideoCase:
    """A labelled video. ``effects`` None draws them at random; ``plain`` renders the same
    case (same puzzle, plan and look) without pencil marks and fade-ins."""
    rng = np.random.default_rng(seed)
    n = n or int(rng.choice([3, 4, 6, 9], p=[0.15, 0.25, 0.25, 0.35]))
    puzzle, solution = make_pair(rng, n)
    defect = defect or ("solved" if rng.random() < 0.4 else str(rng.choice(VIDEO_DEFECTS[1:])))
    drawn = [e for e in VIDEO_EFFECTS if rng.random() < (0.12 if e == "lowfps" else 0.3)]
    effects = list(drawn if effects is None else effects)
    if plain:
        effects = [e for e in effects if e not in ("pencil", "fade")]
    # video models output 480p and more; 9x9 cells under 30 px with bold italics are unreadable blobs after H.264
    look = random_look(rng, size=int(rng.choice([256, 320, 384, 448, 512] if n <= 6 else [320, 384, 448, 512, 640])))
    if "zoom" in effects or "shift" in effects:
        look = replace(look, pad=max(look.pad, 0.12), rotation=0.0, perspective=0.0)
    look = replace(look, jpeg=0)
    lowfps = "lowfps" in effects
    if lowfps:  # a 1-2 fps strip: no fades or blurry lead-in frames (one frame is half a second)
        effects = [e for e in effects if e not in ("fade", "blurry_start")]
    empties = int((puzzle == 0).sum())
    steps = int(rng.integers(4, 9)) if lowfps else int(rng.integers(max(3, empties // 4), max(4, empties) + 1))
    per_step = math.ceil(empties / steps)
    plan = _plan(rng, puzzle, solution, defect, steps, per_step)
    hold = 1 if lowfps else int(rng.integers(5, 9))
    fade_len = int(rng.integers(3, 8))
    lead = 1 if lowfps else int(rng.integers(4, 8))
    tail = 2 if lowfps else int(rng.integers(6, 12)) + (fade_len if "fade" in effects else 0)
    zoom_to = float(rng.choice([0.85, 1.12, 1.2])) if "zoom" in effects else 1.0
    sudden = bool(rng.random() < 0.4)
    margin = (1 - (1 - 2 * look.pad) * max(1.0, zoom_to)) / 2 - 0.015  # the grid stays inside the frame
    reach = max(0.0, min(0.06, margin))
    shift_to = tuple(float(v) for v in rng.uniform(-reach, reach, 2)) if "shift" in effects else (0.0, 0.0)
    current = puzzle.copy()
    born: dict[tuple[int, int], int] = {}
    scenes: list[Scene] = []
    pencil_cells = {(int(rc[0]), int(rc[1])): sorted(int(x) for x in rng.choice(np.arange(1, n + 1), size=min(n, 3),
                                                                                 replace=False))
                    for rc in np.argwhere(puzzle == 0)[: max(1, empties // 3)]} if "pencil" in effects else {}
    blur_start = 2 if "blurry_start" in effects else 0
    lead = max(lead, blur_start + 4)  # the puzzle shows sharp for a few frames before the first entry
    # the puzzle shows still for `lead` frames (after a blurry start) before anything is written
    timeline: list[tuple[np.ndarray, tuple[int, int] | None]] = []
    for _ in range(lead):
        timeline.append((current.copy(), None))
    for step in plan:
        target = next(iter(step), None)
        for rc, d in step.items():
            current[rc] = d
        for _ in range(hold):
            timeline.append((current.copy(), target))
    for _ in range(tail):
        timeline.append((current.copy(), None))
    total = len(timeline)
    for t, (digits, target) in enumerate(timeline):
        for rc in zip(*np.nonzero(digits != (scenes[-1].digits if scenes else puzzle))):
            born[(int(rc[0]), int(rc[1]))] = t
        alpha = None
        if "fade" in effects:
            alpha = np.ones((n, n), np.float32)
            for rc, b in born.items():
                if puzzle[rc] == 0:
                    alpha[rc] = min(1.0, (t - b + 1) / fade_len)
        frac = 0.0 if total <= 1 else t / (total - 1)
        prog = (1.0 if frac > 0.5 else 0.0) if sudden else frac
        scene = Scene(digits=digits, alpha=alpha,
                      pencil={rc: v for rc, v in pencil_cells.items() if digits[rc] == 0 and t >= lead},
                      zoom=1.0 + (zoom_to - 1.0) * prog, shift=(shift_to[0] * prog, shift_to[1] * prog),
                      blur=2.5 if t < blur_start else 0.0)
        if target is not None:
            if "highlight" in effects:
                scene.highlight = [target]
            if "cursor" in effects:
                scene.cursor = target
            if "hand" in effects and t - born.get(target, -99) < 3 and puzzle[target] == 0:
                jitter = rng.normal(0, 0.08, 2)
                scene.hand = (target[0] + 0.15 + float(jitter[0]), target[1] + 0.15 + float(jitter[1]))
        scene.glow = "glow" in effects and t >= total - max(2, tail // 2)
        scenes.append(scene)
    shown = [s.digits for s in scenes]
    # fade-ins: a value counts as shown once fully drawn; the final frame shows what is fully drawn
    labels = gate_labels(puzzle, solution, shown)
    given = replace(random_look(rng), rotation=0.0, perspective=0.0, jpeg=0, blur=0.0)
    noise = float(rng.uniform(1.0, 4.0)) if rng.random() < 0.4 else 0.0
    return VideoCase(seed=seed, n=n, defect=defect, effects=effects, puzzle=puzzle, solution=solution, look=look,
                     scenes=scenes, fps=int(rng.choice([1, 2])) if lowfps else 24, labels=labels,
                     puzzle_image=render(given, puzzle, Scene(digits=puzzle)), noise=noise)
