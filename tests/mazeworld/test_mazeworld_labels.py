"""mazeworld labels: the lattice rules, and each behaviour's expected gated labels."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("maze_dataset", reason="benchmarks.mazeworld needs maze-dataset (pip install -e '.[test]')")

from benchmarks.mazeworld.corpus import image_labels, video_labels  # noqa: E402
from benchmarks.mazeworld.labels import (  # noqa: E402
    connector,
    has_cycle,
    lattice_of,
    lattice_wall_iou,
    path_lattice_cells,
    segment_iou,
    wall_segments,
)
from benchmarks.mazeworld.looks import LOOKS  # noqa: E402
from benchmarks.mazeworld.plans import IMAGE_BEHAVIOURS, VIDEO_BEHAVIOURS  # noqa: E402
from benchmarks.mazeworld.sampling import case_rng, sample_image, sample_video  # noqa: E402

GATED = ("maze_changed", "cross_wall", "target_achievement", "reflection", "overall")
VALID = dict(maze_changed=0, cross_wall=0, target_achievement=1, reflection=0, overall=1)

#: Expected gated labels per behaviour (a key left out may go either way for that behaviour).
VIDEO_EXPECTED: dict[str, dict[str, int]] = {
    "valid": VALID, "trail": VALID, "walls_minor": VALID, "backtrack": VALID,
    "stop_short": dict(maze_changed=0, cross_wall=0, target_achievement=0, reflection=0, overall=0),
    "reach_leave": dict(maze_changed=0, cross_wall=0, target_achievement=0, reflection=0, overall=0),
    "overshoot": dict(maze_changed=0, cross_wall=0, target_achievement=0, overall=0),
    "wander": dict(maze_changed=0, cross_wall=0, target_achievement=0, overall=0),
    "teleport": dict(maze_changed=0, cross_wall=1, overall=0, teleports=1, wall_passes=0),
    "wall_pass": dict(maze_changed=0, cross_wall=1, overall=0, teleports=0, wall_passes=1),
    "detour": dict(maze_changed=0, cross_wall=0, target_achievement=1, reflection=1, overall=0),
    "walls_major": dict(maze_changed=1, cross_wall=0, overall=0),
    "goal_moves": dict(maze_changed=1, cross_wall=0, overall=0),
}
IMAGE_EXPECTED: dict[str, dict[str, int]] = {
    "valid": VALID, "walls_minor": VALID,
    "shortcut": dict(maze_changed=0, cross_wall=1, overall=0, wall_passes=1),
    "stop_short": dict(maze_changed=0, cross_wall=0, target_achievement=0, reflection=0, overall=0),
    "detour": dict(maze_changed=0, cross_wall=0, target_achievement=1, reflection=1, overall=0),
    "walls_changed": dict(maze_changed=1, cross_wall=0, target_achievement=1, overall=0),
    "goal_moved": dict(maze_changed=1, cross_wall=0, target_achievement=0, overall=0),
    "wrong_start": dict(maze_changed=1, cross_wall=0, overall=0),
}


def test_every_behaviour_has_an_expectation():
    assert set(VIDEO_EXPECTED) == set(VIDEO_BEHAVIOURS)
    assert set(IMAGE_EXPECTED) == set(IMAGE_BEHAVIOURS)


def test_lattice_coordinates():
    assert lattice_of((0, 0)) == (1, 1)
    assert lattice_of((2, 3)) == (5, 7)
    assert connector((2, 3), (2, 4)) == (5, 8)
    assert connector((3, 3), (2, 3)) == (6, 7)
    assert path_lattice_cells([(0, 0), (0, 1), (1, 1)]) == {(1, 1), (1, 2), (1, 3), (2, 3), (3, 3)}
    with pytest.raises(ValueError):
        connector((0, 0), (1, 1))


def test_cycle_needs_a_closed_ring_of_lattice_cells():
    ring = path_lattice_cells([(0, 0), (0, 1), (1, 1), (1, 0), (0, 0)])
    assert has_cycle(ring)
    assert not has_cycle(ring - {connector((1, 0), (0, 0))})
    assert not has_cycle(set())


def test_segment_iou_counts_interior_and_border_segments():
    cl = np.zeros((2, 3, 3), dtype=bool)  # every wall closed
    assert len(wall_segments(cl)) == 2 * 3 * 4  # 3x3 grid: 4 horizontal lines of 3 and 4 vertical of 3
    opened = cl.copy()
    opened[1, 0, 0] = True
    assert segment_iou(cl, opened) == pytest.approx(23 / 24)
    assert segment_iou(cl, cl) == 1.0
    assert lattice_wall_iou(cl, opened) == pytest.approx(39 / 40)  # 16 pillars + 24 segments


def _check(labels: dict, expected: dict[str, int], what: str) -> None:
    got = {k: labels[k] for k in expected}
    assert got == expected, f"{what}: {got} != {expected}"
    assert labels["overall"] == int(
        not labels["maze_changed"] and not labels["cross_wall"] and labels["target_achievement"]
        and not labels["reflection"]
    )


@pytest.mark.parametrize("behaviour", VIDEO_BEHAVIOURS)
def test_video_behaviour_labels(behaviour):
    for look in LOOKS:
        for index in (VIDEO_BEHAVIOURS.index(behaviour), 100 + VIDEO_BEHAVIOURS.index(behaviour)):
            draw = sample_video(case_rng(11, "video", index), look, behaviour, index)
            _check(video_labels(draw), VIDEO_EXPECTED[behaviour], f"{look} {behaviour} #{index}")


@pytest.mark.parametrize("behaviour", IMAGE_BEHAVIOURS)
def test_image_behaviour_labels(behaviour):
    for look in LOOKS:
        for index in range(3):
            draw = sample_image(case_rng(12, "image", index), look, behaviour, index)
            _check(image_labels(draw), IMAGE_EXPECTED[behaviour], f"{look} {behaviour} #{index}")


def test_minor_and_major_wall_changes_sit_clear_of_the_threshold():
    for index in range(4):
        minor = video_labels(sample_video(case_rng(3, "video", index), "mmgr", "walls_minor", index))
        major = video_labels(sample_video(case_rng(3, "video", index), "vmeval", "walls_major", index))
        assert minor["wall_iou_min"] > 0.86 and minor["wall_iou_min_lattice"] > 0.8
        assert major["wall_iou_min"] < 0.72 and major["wall_iou_min_lattice"] <= 0.8


def test_video_timing_labels_are_consistent():
    draw = sample_video(case_rng(5, "video", 0), "mazeplot", "valid", 0)
    labels = video_labels(draw)
    goal = draw.maze.goal
    assert labels["agent_visible"][0] is False  # the star appears on the start marker from frame 1
    assert labels["agent_rc"][0] == [None, None]
    assert labels["agent_rc"][1] == [float(draw.maze.start[0]), float(draw.maze.start[1])]
    arrival = labels["arrival_frame"]
    assert arrival is not None and arrival == labels["final_entry_frame"]
    r, c = labels["agent_rc"][arrival]
    assert max(abs(r - goal[0]), abs(c - goal[1])) < 0.5
    last = max(i for i, v in enumerate(labels["agent_visible"]) if v)
    assert labels["agent_rc"][last] == [float(goal[0]), float(goal[1])]
    assert not labels["agent_visible"][-1]  # the trophy replaces star and flag at the end
