"""What each look draws for the start, goal, agent, trail and arrival, sized to a cell pitch.

Sizes keep a moving agent strictly inside a corridor: its half-extent never exceeds half the
clear corridor width minus a safety margin, so valid motion never touches a drawn wall.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import sprites
from .effects import blend
from .sprites import Colour

WHITE: Colour = (255, 255, 255)
MMGR_GREEN: Colour = (0, 255, 0)
MMGR_RED: Colour = (255, 0, 0)
MMGR_BLUE: Colour = (0, 0, 255)
PLOT_GREEN: Colour = (30, 160, 60)
PLOT_BLUE: Colour = (35, 85, 235)
PLOT_RED: Colour = (220, 35, 35)
VM_GREEN: Colour = (34, 197, 94)
VM_RED: Colour = (239, 68, 68)
VM_POLE: Colour = (139, 69, 19)
PATH_BLUE: Colour = (20, 40, 230)

#: Base agent colour per look and the hue it drifts toward when recoloured.
AGENT_COLOURS: dict[str, tuple[Colour, Colour]] = {
    "mmgr": (MMGR_GREEN, (150, 235, 0)),
    "mazeplot": (PLOT_BLUE, (110, 60, 225)),
    "vmeval": (VM_GREEN, (120, 205, 40)),
}


@dataclass(frozen=True)
class MarkerStyle:
    """Per-case marker options."""

    look: str
    agent_scale: float = 1.0
    small_agent_px: float | None = None  # fixed 3-5 px agent radius (vmeval)
    agent_edge: bool = False

    def clearance(self, pitch: float, wall: float) -> float:
        """Largest agent half-extent that stays off the walls (px)."""
        margin = 3.0 if self.look == "mazeplot" else 2.0  # resampled wall edge + anti-aliased agent edge
        return (pitch - wall) / 2 - margin

    def agent_half(self, pitch: float, wall: float) -> float:
        clear = self.clearance(pitch, wall)
        if self.look == "mmgr":
            want = 0.4 * pitch / 2 * self.agent_scale
        elif self.look == "mazeplot":
            want = 0.36 * pitch * self.agent_scale
        elif self.small_agent_px is not None:
            want = self.small_agent_px
        else:
            want = max(3.0, 0.2 * pitch * self.agent_scale)
        edge = 1.5 if self.agent_edge else 0.0
        return max(1.0, min(want + edge, clear)) - edge

    def draw_agent(self, image: np.ndarray, xy: tuple[float, float], pitch: float, wall: float,
                   colour: Colour) -> None:
        half = self.agent_half(pitch, wall)
        if self.look == "mmgr":
            sprites.square(image, xy, half, colour)
        elif self.look == "mazeplot":
            sprites.star(image, xy, half, colour, edge=blend(colour, (0, 0, 0), 0.5))
        else:
            sprites.disc(image, xy, half, colour, edge=WHITE if self.agent_edge else None, edge_px=1.5)

    def draw_start(self, image: np.ndarray, xy: tuple[float, float], pitch: float, wall: float) -> None:
        """The start marker that stays behind (mazeplot's circle; a copy of the agent elsewhere)."""
        if self.look == "mmgr":
            sprites.square(image, xy, pitch / 4, MMGR_GREEN)
        elif self.look == "mazeplot":
            sprites.disc(image, xy, 0.3 * pitch, PLOT_GREEN, edge=(15, 90, 30), edge_px=1.0)
        else:
            self.draw_agent(image, xy, pitch, wall, VM_GREEN)

    def draw_goal(self, image: np.ndarray, xy: tuple[float, float], pitch: float) -> None:
        if self.look == "mmgr":
            sprites.square(image, xy, pitch / 4, MMGR_RED)
        elif self.look == "mazeplot":
            sprites.flag(image, xy, 0.7 * pitch, PLOT_RED, pole=(40, 30, 25))
        else:
            sprites.flag(image, xy, 0.7 * pitch, VM_RED, pole=VM_POLE, edge=WHITE)

    def draw_icon(self, image: np.ndarray, xy: tuple[float, float], pitch: float, icon: str) -> None:
        if icon == "trophy":
            sprites.trophy(image, xy, 0.8 * pitch)
        elif icon == "sparkle":
            sprites.sparkle(image, xy, 0.85 * pitch)
        else:
            raise ValueError(f"unknown arrival icon {icon!r}")

    def trail_px(self, pitch: float, wall: float) -> float:
        return max(2.0, min(0.9 * self.agent_half(pitch, wall), 2 * self.clearance(pitch, wall) - 2))

    def agent_colour(self, frame: int, n_frames: int, recolour: float) -> Colour:
        base, alt = AGENT_COLOURS[self.look]
        return blend(base, alt, recolour * frame / max(1, n_frames - 1))
