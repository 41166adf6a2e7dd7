"""Synthetic Sudoku puzzles and model-like answer images with ground-truth labels.

Puzzles have exactly one solution (4x4 and 9x9, three clue bands). Answers are rendered
with several real TrueType fonts (those shipped inside matplotlib's wheel, so every
install has them, plus any extra font files you pass) and OpenCV Hershey fonts, clue
and filled digits in equal or different colours, thin/box/uneven lines, 256-1024 px,
padding, shaded boxes, rotation <= 2 deg, mild perspective, blur and JPEG. Defects: a wrong cell, a
changed clue, an empty cell, a box duplicate with valid rows and columns.

>>> case = make_image_case(3, n=4)
>>> case.image.dtype, case.labels["overall"] in (0, 1)
(dtype('uint8'), True)
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..sudoku.metrics import score_grid
from ..sudoku.solver import make_puzzle, random_solution
from ..sudoku.spec import SudokuSpec

#: clue-count bands per size (inclusive ranges)
CLUE_BANDS = {4: {"easy": (10, 12), "medium": (7, 9), "hard": (5, 6)},
              9: {"easy": (36, 42), "medium": (30, 35), "hard": (25, 29)}}
IMAGE_DEFECTS = ("solved", "wrong_cell", "changed_clue", "empty_cell", "box_duplicate")
_MPL_FONTS = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSerif.ttf", "DejaVuSansMono.ttf",
              "DejaVuSerif-Bold.ttf", "STIXGeneral.ttf", "STIXGeneralBol.ttf", "cmss10.ttf")
HERSHEY = {"hershey-simplex": cv2.FONT_HERSHEY_SIMPLEX, "hershey-duplex": cv2.FONT_HERSHEY_DUPLEX,
           "hershey-complex": cv2.FONT_HERSHEY_COMPLEX, "hershey-triplex": cv2.FONT_HERSHEY_TRIPLEX}
_INKS = [(0, 0, 0), (30, 30, 30), (20, 40, 160), (0, 90, 200), (170, 20, 20), (10, 120, 40), (90, 0, 120)]


def font_choices(extra: Sequence[str | Path] = ()) -> list[str]:
    """Font identifiers: matplotlib's bundled TTFs, Hershey fonts, then ``extra`` files."""
    import matplotlib

    root = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    fonts = [str(root / f) for f in _MPL_FONTS if (root / f).is_file()]
    return fonts + list(HERSHEY) + [str(p) for p in extra]


@dataclass(frozen=True)
class Style:
    """How an answer is drawn (all sizes in output pixels)."""

    size: int = 512                 #: output image side
    pad: float = 0.06               #: padding around the grid, share of the side
    font: str = "hershey-simplex"
    digit_scale: float = 0.62       #: digit height as a share of the cell
    clue_color: tuple[int, int, int] = (0, 0, 0)
    fill_color: tuple[int, int, int] = (20, 40, 160)
    line_color: tuple[int, int, int] = (0, 0, 0)
    background: tuple[int, int, int] = (255, 255, 255)
    thin: float = 0.03              #: thin line width, share of the cell
    thick: float = 0.08             #: box line width, share of the cell
    uneven: bool = False            #: wobbly, model-like lines
    cell_lines: bool = True         #: draw the thin lines between cells (False: box lines only)
    shade: int = 0                  #: grey level (e.g. 232) filling every other box; 0 = none
    rotation: float = 0.0           #: degrees
    perspective: float = 0.0        #: corner jitter, share of the side
    blur: float = 0.0               #: Gaussian sigma in pixels
    jpeg: int = 0                   #: JPEG quality (0 = lossless)
    seed: int = 0                   #: for the uneven lines and perspective jitter


def _rgb(values: np.ndarray) -> tuple[int, int, int]:
    return (int(values[0]), int(values[1]), int(values[2]))


def random_style(rng: np.random.Generator, *, fonts: Sequence[str] | None = None) -> Style:
    """A random plausible style within the documented ranges."""
    fonts = list(fonts or font_choices())
    clue = _INKS[int(rng.integers(0, 2))]
    fill = clue if rng.random() < 0.3 else _INKS[int(rng.integers(2, len(_INKS)))]
    bg = (255, 255, 255) if rng.random() < 0.7 else _rgb(rng.integers(225, 256, 3))
    rotation = float(rng.uniform(-2, 2)) if rng.random() < 0.4 else 0.0
    perspective = float(rng.uniform(0, 0.02)) if rng.random() < 0.25 else 0.0
    # keep the whole grid inside the frame when it is rotated or skewed
    uneven = bool(rng.random() < 0.25)
    pad_min = 0.0 if not (rotation or perspective) else 0.02 + abs(rotation) * 0.009 + perspective
    if uneven:  # wobbly outer lines must stay inside the frame
        pad_min += 0.02
    size = int(rng.choice([256, 320, 384, 512, 640, 768, 1024]))
    # blur in proportion to the cell: a sigma of ~5 % of a 9x9 cell at 256 px already smears digits
    max_blur = min(1.5, 0.045 * size / 9)
    return Style(
        size=size,
        pad=float(rng.uniform(pad_min, 0.15)),
        font=fonts[int(rng.integers(len(fonts)))],
        digit_scale=float(rng.uniform(0.5, 0.72)),
        clue_color=clue, fill_color=fill,
        line_color=(0, 0, 0) if rng.random() < 0.7 else _rgb(rng.integers(40, 110, 3)),
        background=bg,
        thin=float(rng.uniform(0.015, 0.05)), thick=float(rng.uniform(0.05, 0.1)),
        uneven=uneven, cell_lines=bool(rng.random() < 0.9),
        shade=int(rng.integers(215, 245)) if rng.random() < 0.15 else 0,
        rotation=rotation, perspective=perspective,
        blur=float(rng.uniform(0.3, max_blur)) if rng.random() < 0.4 else 0.0,
        jpeg=int(rng.integers(35, 95)) if rng.random() < 0.5 else 0,
        seed=int(rng.integers(2**31)),
    )


def render(digits: np.ndarray, clues: np.ndarray, style: Style) -> np.ndarray:
    """Draw a grid of ``digits`` (0 = empty); ``clues`` (bool) selects the clue colour.

    Returns
    -------
    ndarray of shape (size, size, 3), uint8 RGB
    """
    n = digits.shape[0]
    b = round(n ** 0.5)
    s = style.size
    pad = round(style.pad * s)
    g = s - 2 * pad
    cell = g / n
    rng = np.random.default_rng(style.seed)
    img = Image.new("RGB", (s, s), style.background)
    draw = ImageDraw.Draw(img)
    if style.shade:
        tint = tuple(min(v, style.shade) for v in style.background)
        for br in range(b):
            for bc in range(b):
                if (br + bc) % 2:
                    x0, y0 = pad + bc * b * cell, pad + br * b * cell
                    draw.rectangle([x0, y0, x0 + b * cell, y0 + b * cell], fill=tint)
    for i in range(n + 1):
        if i % b and not style.cell_lines:
            continue
        width = style.thick if i % b == 0 else style.thin
        w = max(1, round(width * cell))
        pos = pad + i * cell
        for horizontal in (True, False):
            _line(draw, pos, pad, pad + g, w, horizontal, style, rng)
    arr = np.asarray(img).copy()
    for r in range(n):
        for c in range(n):
            if digits[r, c] > 0:
                color = style.clue_color if clues[r, c] else style.fill_color
                arr = _digit(arr, int(digits[r, c]), pad + (c + 0.5) * cell, pad + (r + 0.5) * cell,
                             cell * style.digit_scale, color, style.font)
    return _degrade(arr, style, rng)


def _line(draw: ImageDraw.ImageDraw, pos: float, a: float, b: float, w: int, horizontal: bool,
          style: Style, rng: np.random.Generator) -> None:
    if not style.uneven:
        lo, hi = pos - w / 2, max(pos - w / 2, pos + w / 2 - 1)
        x0, y0, x1, y1 = (a, lo, b, hi) if horizontal else (lo, a, hi, b)
        draw.rectangle([x0, y0, x1, y1], fill=style.line_color)
        return
    k = 12
    t = np.linspace(a, b, k)
    off = np.convolve(rng.normal(0, max(1.0, w * 0.4), k + 4), np.ones(5) / 5, mode="valid")[:k]
    pts = [(float(x), float(pos + o)) if horizontal else (float(pos + o), float(x)) for x, o in zip(t, off)]
    draw.line(pts, fill=style.line_color, width=max(1, w + int(rng.integers(-1, 2))), joint="curve")


def _digit(arr: np.ndarray, d: int, cx: float, cy: float, height: float, color: tuple[int, int, int],
           font: str) -> np.ndarray:
    text = str(d)
    if font in HERSHEY:
        face = HERSHEY[font]
        (tw, th), _ = cv2.getTextSize(text, face, 1.0, 1)
        scale = height / max(th, 1)
        thick = max(1, round(height / 14))
        (tw, th), _ = cv2.getTextSize(text, face, scale, thick)
        org = (round(cx - tw / 2), round(cy + th / 2))
        cv2.putText(arr, text, org, face, scale, color, thick, cv2.LINE_AA)
        return arr
    img = Image.fromarray(arr)
    f = ImageFont.truetype(font, size=max(6, round(height * 1.35)))
    ImageDraw.Draw(img).text((cx, cy), text, fill=color, font=f, anchor="mm")
    return np.asarray(img).copy()


def _degrade(arr: np.ndarray, style: Style, rng: np.random.Generator) -> np.ndarray:
    s = arr.shape[0]
    if style.rotation or style.perspective:
        src = np.array([[0, 0], [s, 0], [s, s], [0, s]], np.float32)
        jitter = rng.uniform(-style.perspective, style.perspective, (4, 2)) * s
        rot = cv2.getRotationMatrix2D((s / 2, s / 2), style.rotation, 1.0)
        dst = (np.hstack([src, np.ones((4, 1), np.float32)]) @ rot.T + jitter).astype(np.float32)
        m = cv2.getPerspectiveTransform(src, dst)
        arr = cv2.warpPerspective(arr, m, (s, s), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                  borderValue=style.background)
    if style.blur > 0:
        arr = cv2.GaussianBlur(arr, (0, 0), style.blur)
    if style.jpeg:
        buf = io.BytesIO()
        Image.fromarray(arr).save(buf, format="JPEG", quality=style.jpeg)
        arr = np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB"))
    return np.ascontiguousarray(arr)


def make_puzzle_pair(rng: np.random.Generator, *, n: int, band: str) -> tuple[np.ndarray, np.ndarray]:
    """A (puzzle, solution) with a unique solution and a clue count in ``band``."""
    lo, hi = CLUE_BANDS[n][band]
    best = None
    for _ in range(8):
        sol = random_solution(n, rng)
        puz = make_puzzle(sol, int(rng.integers(lo, hi + 1)), rng)
        clues = int((puz != 0).sum())
        if lo <= clues <= hi:
            return puz, sol
        if best is None or clues < int((best[0] != 0).sum()):
            best = (puz, sol)
    assert best is not None
    return best


def apply_defect(puzzle: np.ndarray, solution: np.ndarray, kind: str, rng: np.random.Generator) -> np.ndarray:
    """The grid a model-like answer shows for a defect ``kind`` (see IMAGE_DEFECTS)."""
    n = puzzle.shape[0]
    ans = solution.copy()
    empty = np.argwhere(puzzle == 0)
    clues = np.argwhere(puzzle != 0)
    if kind == "solved":
        return ans
    if kind == "wrong_cell":
        r, c = empty[rng.integers(len(empty))]
        ans[r, c] = rng.choice([d for d in range(1, n + 1) if d != solution[r, c]])
    elif kind == "changed_clue":
        r, c = clues[rng.integers(len(clues))]
        ans[r, c] = rng.choice([d for d in range(1, n + 1) if d != solution[r, c]])
    elif kind == "empty_cell":
        for r, c in empty[rng.choice(len(empty), size=int(rng.integers(1, 4)), replace=False)]:
            ans[r, c] = 0
    elif kind == "box_duplicate":
        b = round(n ** 0.5)
        r1 = int(rng.integers(0, b))
        r2 = int(rng.integers(b, n))
        ans[[r1, r2]] = ans[[r2, r1]]  # rows and columns stay permutations, boxes do not
    else:
        raise ValueError(f"unknown defect {kind!r}; choose one of {IMAGE_DEFECTS}")
    return ans


def labels_for(puzzle: np.ndarray, solution: np.ndarray, answer: np.ndarray) -> dict[str, Any]:
    """Ground-truth metric values of a displayed answer grid."""
    score = score_grid(SudokuSpec.from_values(puzzle, solution), answer)
    return {"clues_changed": score.clues_changed, "constraint_violation": score.constraint_violation,
            "completion_accuracy": score.completion_accuracy, "overall": score.overall}


@dataclass(frozen=True)
class SudokuCase:
    """One labelled synthetic answer."""

    seed: int
    n: int
    band: str
    defect: str
    puzzle: np.ndarray
    solution: np.ndarray
    answer: np.ndarray       #: the digits drawn (ground truth for every cell, 0 = blank)
    image: np.ndarray
    style: Style
    labels: dict[str, Any] = field(default_factory=dict)

    def manifest(self) -> dict[str, Any]:
        """JSON-ready description (without the image)."""
        return {"seed": self.seed, "n": self.n, "band": self.band, "defect": self.defect,
                "puzzle": self.puzzle.tolist(), "solution": self.solution.tolist(),
                "answer": self.answer.tolist(), "labels": self.labels, "style": asdict(self.style)}


def make_image_case(seed: int, *, n: int | None = None, defect: str | None = None, band: str | None = None,
                    style: Style | None = None, fonts: Sequence[str] | None = None) -> SudokuCase:
    """A labelled answer image, fully determined by ``seed`` and the given overrides."""
    rng = np.random.default_rng(seed)
    n = n or int(rng.choice([4, 9]))
    band = band or str(rng.choice(list(CLUE_BANDS[n])))
    if defect is None:
        defect = "solved" if rng.random() < 0.4 else str(rng.choice(IMAGE_DEFECTS[1:]))
    puzzle, solution = make_puzzle_pair(rng, n=n, band=band)
    answer = apply_defect(puzzle, solution, defect, rng)
    style = style or random_style(rng, fonts=fonts)
    image = render(answer, puzzle != 0, style)
    return SudokuCase(seed=seed, n=n, band=band, defect=defect, puzzle=puzzle, solution=solution,
                      answer=answer, image=image, style=style, labels=labels_for(puzzle, solution, answer))
