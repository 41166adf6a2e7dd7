"""mazeworld corpus: files, decoding, determinism, the CLI, and what the frames really show."""

from __future__ import annotations

import json
from dataclasses import replace

import av
import cv2
import numpy as np
import pytest

pytest.importorskip("maze_dataset", reason="benchmarks.mazeworld needs maze-dataset (pip install -e '.[test]')")

from benchmarks.mazeworld.__main__ import main  # noqa: E402
from benchmarks.mazeworld.corpus import write_corpus  # noqa: E402
from benchmarks.mazeworld.effects import warp  # noqa: E402
from benchmarks.mazeworld.sampling import case_rng, sample_video  # noqa: E402
from benchmarks.mazeworld.video import VideoComposer  # noqa: E402

SMALL = ["valid", "teleport", "stop_short", "walls_minor"]


def _decode(path) -> list[np.ndarray]:
    with av.open(str(path)) as container:
        return [f.to_ndarray(format="rgb24") for f in container.decode(video=0)]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("mazeworld")
    write_corpus(out, videos=4, images=4, seed=3, behaviours=SMALL, workers=1, progress=False)
    return out


def test_case_files_and_index(corpus):
    records = [json.loads(line) for line in (corpus / "cases.jsonl").read_text().splitlines()]
    assert [r["modality"] for r in records] == ["video"] * 4 + ["image"] * 4
    for r in records:
        for key in ("answer", "puzzle", "maze", "maze_ascii", "reference", "labels_file"):
            assert (corpus / r[key]).is_file(), (r["id"], key)
        labels = json.loads((corpus / r["labels_file"]).read_text())
        assert {k: labels[k] for k in r["labels"]} == r["labels"]
        for key in ("puzzle", "reference") + (("answer",) if r["modality"] == "image" else ()):
            assert cv2.imread(str(corpus / r[key])) is not None


def test_videos_decode_with_the_planned_frame_count(corpus):
    for r in map(json.loads, (corpus / "cases.jsonl").read_text().splitlines()):
        if r["modality"] != "video":
            continue
        labels = json.loads((corpus / r["labels_file"]).read_text())
        frames = _decode(corpus / r["answer"])
        assert len(frames) == labels["n_frames"] == len(labels["agent_rc"]) == len(labels["cell_to_px"])
        assert frames[0].shape[1::-1] == tuple(r["params"]["frame_size"])
        with av.open(str(corpus / r["answer"])) as container:
            stream = container.streams.video[0]
            assert stream.codec_context.name == "h264" and stream.codec_context.pix_fmt == "yuv420p"


@pytest.mark.slow
def test_same_seed_same_corpus_whatever_the_workers(corpus, tmp_path):
    """Every file of a case, mp4 included, is byte-identical between a 1-worker and a 2-worker run."""
    write_corpus(tmp_path, videos=4, images=4, seed=3, behaviours=SMALL, workers=2, progress=False)
    assert (tmp_path / "cases.jsonl").read_text() == (corpus / "cases.jsonl").read_text()
    for r in map(json.loads, (corpus / "cases.jsonl").read_text().splitlines()):
        for key in ("answer", "labels_file", "maze", "maze_ascii", "puzzle", "reference"):
            assert (tmp_path / r[key]).read_bytes() == (corpus / r[key]).read_bytes(), (r["id"], key)


def test_other_seed_other_corpus(corpus, tmp_path):
    write_corpus(tmp_path, videos=1, images=0, seed=4, behaviours=SMALL, workers=1, progress=False)
    first = lambda root: json.loads((root / "cases.jsonl").read_text().splitlines()[0])  # noqa: E731
    assert first(tmp_path)["labels"] != first(corpus)["labels"] or first(tmp_path)["grid"] != first(corpus)["grid"] \
        or first(tmp_path)["params"] != first(corpus)["params"]


def test_cli(tmp_path, capsys):
    assert main(["--out", str(tmp_path), "--images", "2", "--seed", "1", "--looks", "vmeval",
                 "--behaviours", "maze_changed", "--workers", "1", "--quiet"]) == 0
    records = [json.loads(line) for line in (tmp_path / "cases.jsonl").read_text().splitlines()]
    assert [r["behaviour"] for r in records] == ["walls_changed", "walls_minor"]
    assert {r["look"] for r in records} == {"vmeval"}
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path), "--videos", "1", "--behaviours", "flying"])
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path)])


def _agent_and_walls(comp: VideoComposer, f: int) -> tuple[np.ndarray, np.ndarray]:
    """Pixels the agent changes in frame ``f``, and the dark wall pixels of the bare board there."""
    with_agent, without = comp.frame(f), comp.frame(f, agent=False)
    agent = np.abs(with_agent.astype(int) - without.astype(int)).max(axis=2) > 0
    st = comp.style
    board = warp(comp.canvases[comp.schedule.walls_changed_at(f)], comp.camera(f), st.frame_size, st.bar)
    walls = board.max(axis=2) < 160  # thin lines resampled by the camera turn grey
    return agent, walls


def _touching_frames(look: str, behaviour: str, index: int, near_wall_only: bool = False) -> tuple[int, int]:
    """(frames where the agent's pixels meet dark wall pixels, frames checked) for one sampled case."""
    draw = sample_video(case_rng(31, "video", index), look, behaviour, index)
    style = replace(draw.style, blur_sigma=0.0, trail=False, distractor=None)
    comp = VideoComposer(draw.maze, draw.plan, draw.timeline, style)
    frames = [f for f in range(draw.timeline.n_frames) if draw.timeline.visible[f]]
    if near_wall_only:  # frames whose agent centre is within 0.6 cell of the crossed wall
        i = draw.plan.moves.index("wall")
        mid = (np.array(draw.plan.path[i]) + np.array(draw.plan.path[i + 1])) / 2
        frames = [f for f in frames if np.abs(draw.timeline.positions[f] - mid).max() < 0.6]
    touching = 0
    for f in frames:
        agent, walls = _agent_and_walls(comp, f)
        touching += bool((agent & walls).any())
    return touching, len(frames)


@pytest.mark.slow
@pytest.mark.parametrize("look", ["mmgr", "mazeplot", "vmeval"])
def test_valid_agent_never_touches_a_wall(look):
    touching, checked = _touching_frames(look, "valid", 13)
    assert checked > 5 and touching == 0


@pytest.mark.parametrize("look", ["mmgr", "mazeplot", "vmeval"])
def test_wall_pass_is_visibly_inside_the_wall(look):
    touching, checked = _touching_frames(look, "wall_pass", 1, near_wall_only=True)
    assert touching >= 3, (touching, checked)


def _caption_gap(draw) -> int:
    comp = VideoComposer(draw.maze, draw.plan, draw.timeline, replace(draw.style, blur_sigma=0.0))
    frame = comp.frame(1, agent=False).astype(int)
    canvas = comp.canvases[False].astype(int)  # the board alone, same placement (strips have no camera)
    rows, cols = draw.maze.grid
    aff = comp.cell_affine(1)
    x0, y_top = aff @ np.array([-0.5, -0.5, 1.0])
    x1, y_bottom = aff @ np.array([cols - 0.5, rows - 0.5, 1.0])
    span = slice(int(x0) + 3, int(x1) - 3)
    border = np.flatnonzero((canvas[:, span].max(axis=2) < 128).any(axis=1))
    ink = np.flatnonzero((np.abs(frame - canvas)[:, span].max(axis=2) > 50).any(axis=1))
    if draw.style.caption == "top":
        return int(border.min() - ink[ink < y_top].max() - 1)
    return int(ink[ink > y_bottom].min() - border.max() - 1)


def test_caption_touches_the_maze_border():
    """VMEvalKit strips: the "Frame N" ink ends 0-2 px from the maze's outer border, above or below."""
    seen = set()
    for index in range(60):
        draw = sample_video(case_rng(41, "video", index), "vmeval", "valid", index)
        if draw.style.caption and draw.style.caption not in seen:
            seen.add(draw.style.caption)
            assert _caption_gap(draw) == draw.style.caption_gap <= 2
    assert seen == {"top", "bottom"}
