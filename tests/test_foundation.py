"""Schema, config and media loading: the pieces every task relies on."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from PIL import Image

from cvcheck.config import Config
from cvcheck.errors import ConfigError, InputError, MediaError
from cvcheck.media import as_rgb, load_image
from cvcheck.registry import get_grader
from cvcheck.schema import Gate, Result, Status, error_result


def _png(img: Image.Image, **kw) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format=kw.pop("format", "PNG"), **kw)
    return buf.getvalue()


# -- schema -------------------------------------------------------------------------------

def test_result_round_trips_through_json_with_numpy_values():
    r = Result(id="s1", task="maze", pipeline="pixel", modality="image", status=Status.OK,
               overall=np.int64(1), metrics={"layout_iou": np.float32(0.9), "cross_wall": np.bool_(False)},
               gate=Gate.from_checks({"layout": True, "no_cross_wall": True}),
               details={"cells": np.array([[1, 2], [3, 4]]), "nan": float("nan")})
    back = Result.from_json(r.to_json())
    assert back == r
    assert back.metrics["cross_wall"] is False and back.details["nan"] is None
    assert json.loads(r.to_json())["schema"] == "cvcheck.result/1"


def test_gate_records_failed_checks_in_order():
    g = Gate.from_checks({"a": True, "b": False, "c": False})
    assert g.failed == ("b", "c") and not g.passed


def test_error_result_requires_error_info_and_null_overall():
    with pytest.raises(ValueError):
        Result(id="x", task="maze", pipeline="pixel", modality="image", status=Status.ERROR, overall=0)
    r = error_result(id="x", task="maze", pipeline="pixel", modality="image", exc=MediaError("broken"))
    assert r.status is Status.ERROR and r.overall is None and r.error.code == "bad_media"
    assert Result.from_json(r.to_json()) == r


def test_from_dict_rejects_foreign_schema():
    with pytest.raises(ValueError):
        Result.from_dict({"schema": "other/1", "id": "a"})


# -- config -------------------------------------------------------------------------------

def test_config_defaults_are_mmgr_thresholds():
    c = Config()
    assert c.maze.layout_iou_min == 0.8 and c.maze.target_achievement_min == 0.95
    assert c.maze.reflection_length_ratio == 1.3 and c.maze.video_cross_wall_ratio == 0.05
    assert c.sudoku.reflection_max_avg_updates_4 == 3 and c.sudoku.reflection_max_avg_updates_9 == 5
    assert c.sudoku.reflection_max_changed_fraction == 0.25 and c.sudoku.reflection_min_active_fraction == 0.2


@pytest.mark.parametrize("override, exc", [
    ("maze.nope=1", ConfigError), ("nosection.x=1", ConfigError), ("maze.layout_iou_min", ConfigError),
    ("maze.layout_iou_min=abc", ConfigError), ("maze.canvas_cell_px=1.5", ConfigError),
    ("maze.canvas_cell_px=0", ConfigError), ("maze.video_stride=0", ConfigError),
    ("maze.wall_erosion=0.6", ConfigError),
])
def test_bad_overrides_are_refused(override, exc):
    with pytest.raises(exc):
        Config().with_overrides([override])


def test_config_file_round_trip_and_hash(tmp_path):
    c = Config().with_overrides(["maze.layout_iou_min=0.7"])
    p = tmp_path / "c.json"
    p.write_text(json.dumps(c.to_dict()))
    assert Config.load(p) == c
    assert c.section_hash("maze") != Config().section_hash("maze")
    assert c.section_hash("sudoku") == Config().section_hash("sudoku")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ConfigError):
        Config.load(tmp_path / "bad.json")


# -- media --------------------------------------------------------------------------------

def test_loads_every_png_flavour_to_rgb_uint8():
    rgb = np.zeros((5, 7, 3), np.uint8); rgb[1, 2] = (10, 200, 30)
    assert np.array_equal(load_image(_png(Image.fromarray(rgb))), rgb)
    grey16 = Image.fromarray(np.full((4, 4), 65535, np.uint16))
    assert load_image(_png(grey16)).tolist() == np.full((4, 4, 3), 255).tolist()
    rgba = np.zeros((3, 3, 4), np.uint8); rgba[..., 3] = 0
    assert (load_image(_png(Image.fromarray(rgba))) == 255).all()  # transparent -> white
    pal = Image.fromarray(rgb).convert("P")
    assert load_image(_png(pal)).shape == (5, 7, 3)
    jpg = load_image(_png(Image.fromarray(rgb), format="JPEG"))
    assert jpg.dtype == np.uint8 and jpg.shape == (5, 7, 3)


def test_corrupt_truncated_empty_and_missing_files_raise_media_error(tmp_path):
    good = _png(Image.fromarray(np.random.default_rng(0).integers(0, 255, (64, 64, 3), np.uint8)))
    for bad in (b"", b"not an image", good[: len(good) // 2]):
        with pytest.raises(MediaError):
            load_image(bad)
    with pytest.raises(MediaError):
        load_image(tmp_path / "missing.png")
    with pytest.raises(MediaError):
        load_image(tmp_path)


def test_decompression_bomb_is_refused_before_decoding():
    # 20000 x 20000 white PNG compresses to a few hundred KB; refuse it from the header.
    img = Image.new("1", (20000, 20000), 1)
    data = _png(img)
    with pytest.raises(MediaError, match="pixels"):
        load_image(data)


def test_as_rgb_validates_and_never_modifies_input():
    a = np.random.default_rng(1).random((4, 4))
    before = a.copy()
    out = as_rgb(a)
    assert out.shape == (4, 4, 3) and out.dtype == np.uint8 and np.array_equal(a, before)
    for bad in (np.zeros((0, 3, 3)), np.zeros((2, 2, 5)), np.zeros((2, 2), np.int64), [[1]]):
        with pytest.raises(InputError):
            as_rgb(bad)  # type: ignore[arg-type]


def test_registry_did_you_mean():
    with pytest.raises(InputError, match="did you mean 'maze'"):
        get_grader("maez")
