"""Sudoku answer videos: change-driven reading, debounce, clue drift, reflection, bad files."""

from __future__ import annotations

import pytest

from cvcheck.config import Config
from cvcheck.errors import MediaError
from cvcheck.media.video import iter_frames
from cvcheck.registry import get_grader
from cvcheck.schema import Result, Status
from cvcheck.sudoku import verify_video
from cvcheck.sudoku.task import verify_video_file
from cvcheck.synth.sudoku import Style
from cvcheck.synth.sudoku_video import make_video_case

CFG = Config()
STYLE = Style(size=256, pad=0.05, font="hershey-duplex", fill_color=(20, 40, 160))


@pytest.mark.parametrize("kind", ["gradual", "flicker", "late_clue_drift", "wrong_final", "all_at_once"])
def test_video_kinds_match_their_labels(kind):
    case = make_video_case(5, n=4, kind=kind, frames=32, style=STYLE)
    r = verify_video(case.iter_frames(), case.puzzle, case.solution, config=CFG)
    assert r.status is Status.OK
    got = {k: r.metrics[k] for k in ("clues_changed", "action_reflection")} | {"overall": int(r.overall)}
    want = {k: case.labels[k] for k in ("clues_changed", "action_reflection", "overall")}
    assert got == want, (kind, r.metrics, case.labels)
    assert r.metrics["total_updates"] == case.labels["total_updates"]
    # cost follows changes: far fewer recognitions than frames x cells
    assert r.metrics["ocr_calls"] * 4 < r.metrics["naive_ocr_calls"]


def test_grain_and_camera_shake_change_no_verdict(tmp_path):
    case = make_video_case(9, n=4, kind="self_correcting", frames=32, style=STYLE, noise=4.0, shake=0.8)
    r = verify_video_file(case.write_mp4(tmp_path / "s.mp4"), case.puzzle, case.solution, config=CFG)
    assert int(r.overall) == case.labels["overall"]
    assert r.metrics["total_updates"] == case.labels["total_updates"]
    assert r.metrics["action_reflection"] == case.labels["action_reflection"]
    assert r.metrics["ocr_calls"] < r.metrics["naive_ocr_calls"] / 2


def test_mp4_round_trip_contract(tmp_path):
    case = make_video_case(6, n=4, kind="self_correcting", frames=32, style=STYLE)
    path = case.write_mp4(tmp_path / "v.mp4")
    a = verify_video_file(path, case.puzzle, case.solution, config=CFG, id="v")
    b = get_grader("sudoku")({"id": "v", "task": "sudoku", "answer": str(path), "puzzle": case.puzzle.tolist(),
                              "solution": case.solution.tolist()}, config=CFG)
    assert a == b and Result.from_json(a.to_json()) == a
    assert a.modality == "video" and int(a.overall) == case.labels["overall"]
    assert a.metrics["frames"] == 32 and len(a.details["updates_per_frame"]) == 31


def test_corrupt_truncated_and_empty_videos(tmp_path):
    case = make_video_case(7, n=4, kind="gradual", frames=24, style=STYLE)
    good = case.write_mp4(tmp_path / "g.mp4").read_bytes()
    (tmp_path / "trunc.mp4").write_bytes(good[: len(good) // 3])
    (tmp_path / "junk.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 20)
    (tmp_path / "empty.mp4").write_bytes(b"")
    try:  # no index (moov at the end): unopenable; otherwise a partial read, flagged
        reader = iter_frames(tmp_path / "trunc.mp4")
        assert len(list(reader)) < 24 and reader.truncated
    except MediaError:
        pass
    for name in ("junk.mp4", "empty.mp4", "missing.mp4"):
        with pytest.raises(MediaError):
            list(iter_frames(tmp_path / name))
    for name in ("trunc.mp4", "junk.mp4", "empty.mp4", "missing.mp4"):
        r = get_grader("sudoku")({"id": name, "task": "sudoku", "answer": str(tmp_path / name),
                                  "puzzle": case.puzzle.tolist(), "solution": case.solution.tolist()}, config=CFG)
        assert r.status is Status.ERROR and r.error.code == "bad_media", name


def test_video_without_grid_is_unparseable():
    import numpy as np

    case = make_video_case(8, n=4, kind="gradual", frames=24, style=STYLE)
    frames = (np.full((128, 128, 3), 255, np.uint8) for _ in range(5))
    r = verify_video(frames, case.puzzle, case.solution, config=CFG)
    assert r.status is Status.UNPARSEABLE and r.overall == 0.0


@pytest.mark.parametrize("kind, seed", [("gradual", 8), ("wrong_final", 5)])
def test_a_webp_answer_is_graded_on_its_time_not_its_stored_frames(tmp_path, kind, seed):
    """An animated WebP stores a run of unchanged frames once, shown for the whole run: counted
    as stored, the updates fell in more of the frames (a false "gradual filling") and a
    correction held one stored frame went under the debounce."""
    from benchmarks.maze_formats import reencode

    case = make_video_case(seed, n=4, kind=kind, frames=32, style=STYLE)
    path = tmp_path / "answer.webp"
    reencode(case.write_mp4(tmp_path / "answer.mp4"), path, "webp")  # `ffmpeg -i answer.mp4 answer.webp`
    r = verify_video_file(path, case.puzzle, case.solution, config=CFG)
    assert r.metrics["action_reflection"] == case.labels["action_reflection"]
    assert r.metrics["total_updates"] == case.labels["total_updates"]
    assert r.details["read"]["frames_repeated"] > 0 and r.details["read"]["frames_read"] == 32
