"""Style profiles: how a renderer draws a maze video, so one verifier grades many renderers.

Two profiles ship:

``mmgr`` (default)
    maze-dataset ``as_pixels`` upscaled, as in MMGR: walls are black lattice cells as
    wide as the corridors, the agent is a green square (the start marker moving),
    the goal a red square.
``mazeplot``
    maze-dataset ``MazePlot``-like line drawings (as rendered by MiniVeo3-Reasoner):
    walls are thin (1-2 px) dark lines on cell boundaries, the agent an icon of a
    given colour (blue star by default), the goal a red flag that may be replaced
    by another icon when the agent arrives.

Colours are OpenCV HSV hue windows (H in [0, 180)); a window with ``lo > hi`` wraps
through 0 (red). Use :func:`replace` on a profile to grade e.g. a yellow agent.

>>> get_style("mazeplot").walls
'lines'
>>> get_style("mmgr").agent_hue
(35, 90)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from ..errors import InputError

__all__ = ["STYLES", "StyleProfile", "get_style", "hue_mask", "replace"]


@dataclass(frozen=True)
class StyleProfile:
    """How walls, agent and goal look in a maze video."""

    name: str
    walls: str                          #: "lattice" (thick cells) or "lines" (thin boundary lines)
    agent_hue: tuple[int, int]          #: agent colour window (inclusive)
    goal_hue: tuple[int, int]           #: goal colour window (inclusive; lo > hi wraps)
    min_saturation: int = 80            #: S at or above this counts as coloured
    agent_min_saturation: int | None = None  #: the agent's own S floor (None: ``min_saturation``)
    min_value: int = 90                 #: V at or above this counts as coloured
    agent_min_area: float = 0.12        #: smallest agent blob, in lattice cells^2 (partial occlusion)
    agent_area: float | None = None     #: the agent's own area (lattice cells^2) when learned
    agent_vividness: int | None = None  #: the agent's own saturation (0-255) when learned
    goal_min_area: float = 0.12         #: smallest goal blob, in lattice cells^2
    goal_changes_on_arrival: bool = False  #: the goal icon may change/vanish once the agent arrives
    agent_is_start: bool = True         #: the agent's first position is the start marker

    def __post_init__(self) -> None:
        if self.walls not in ("lattice", "lines"):
            raise InputError(f"style walls must be 'lattice' or 'lines', got {self.walls!r}")
        for name in ("agent_hue", "goal_hue"):
            lo, hi = getattr(self, name)
            if not (0 <= lo < 180 and 0 <= hi < 180):
                raise InputError(f"style {name} must be OpenCV hues in [0, 180), got {(lo, hi)}")

    @property
    def agent_saturation(self) -> int:
        """The S floor of agent pixels (a pale trail behind a vivid agent is not the agent)."""
        return self.min_saturation if self.agent_min_saturation is None else self.agent_min_saturation


STYLES: dict[str, StyleProfile] = {
    "mmgr": StyleProfile(name="mmgr", walls="lattice", agent_hue=(35, 90), goal_hue=(165, 11)),
    "mazeplot": StyleProfile(name="mazeplot", walls="lines", agent_hue=(95, 135), goal_hue=(165, 11),
                             goal_changes_on_arrival=True),
}


def get_style(style: str | StyleProfile) -> StyleProfile:
    """A profile by name (``mmgr``, ``mazeplot``), or the profile itself."""
    if isinstance(style, StyleProfile):
        return style
    try:
        return STYLES[str(style).lower()]
    except KeyError:
        raise InputError(f"unknown maze video style {style!r}; known: {sorted(STYLES)}") from None


def hue_mask(hsv: np.ndarray, hue: tuple[int, int], *, min_saturation: int, min_value: int) -> np.ndarray:
    """Pixels of an HSV image inside a hue window (uint8 mask, 255 = inside)."""
    lo, hi = hue
    if lo <= hi:
        return cv2.inRange(hsv, (lo, min_saturation, min_value), (hi, 255, 255))
    return cv2.bitwise_or(cv2.inRange(hsv, (lo, min_saturation, min_value), (180, 255, 255)),
                          cv2.inRange(hsv, (0, min_saturation, min_value), (hi, 255, 255)))
