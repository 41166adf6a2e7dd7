"""Schema, config and media loading: the pieces every task relies on."""

from __future__ import annotations

import io
import json
import re

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
    rgb = np.zeros((5, 7, 3), np.uint8)
    rgb[1, 2] = (10, 200, 30)
    assert np.array_equal(load_image(_png(Image.fromarray(rgb))), rgb)
    grey16 = Image.fromarray(np.full((4, 4), 65535, np.uint16))
    assert load_image(_png(grey16)).tolist() == np.full((4, 4, 3), 255).tolist()
    rgba = np.zeros((3, 3, 4), np.uint8)
    rgba[..., 3] = 0
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


# -- hardening: ranges, strict JSON, bounded images (issue 11) ---------------------------------

def test_every_setting_declares_what_it_accepts():
    import dataclasses

    from cvcheck.config import SECTIONS, _descriptions, valid_values

    for cls in SECTIONS:
        docs = _descriptions(cls)
        for f in dataclasses.fields(cls):
            meta = f.metadata
            if type(f.default) in (int, float):
                assert "range" in meta, f"{cls.SECTION}.{f.name} has no declared range"
            else:
                assert {"choices", "path", "pattern"} & set(meta), f"{cls.SECTION}.{f.name} is undeclared"
            assert docs.get(f.name), f"{cls.SECTION}.{f.name} has no #: description"
            assert valid_values(f)


@pytest.mark.parametrize("override, message", [
    ("maze.layout_iou_min=-5", "maze.layout_iou_min must be in [0, 1], got -5"),
    ("maze.video_max_gap_frames=-1", "must be in [0, 100,000], got -1"),
    ("media.max_frames=0", "media.max_frames must be in [1, 100,000,000]"),
    ("judge.concurrency=0", "judge.concurrency must be an integer >= 1"),
    ("judge.concurrency=5000", "judge.concurrency must be in [1, 1,024]"),
    ("maze.layout_iou_min=NaN", "must be a number"), ("maze.layout_iou_min=1e999", "must be a number"),
    ("media.max_frames=" + "9" * 5000, "must be an integer"),
    ("sudoku.ocr_device=gpu", "must be one of cpu, cuda, auto"),
    ("maze.video_style=Not A Name", "must be one of auto, mmgr, mazeplot"),
    ("maze.grid=abc", "maze.grid must be"), ("maze.video_settle_seconds=0", "must be in (0, 60]"),
])
def test_out_of_range_settings_name_their_range(override, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        Config().with_overrides([override])


def test_sections_check_direct_construction_and_text_settings_keep_their_text():
    from cvcheck.config import MazeConfig

    with pytest.raises(ConfigError, match="must be a finite number"):
        MazeConfig(layout_iou_min=float("nan"))
    with pytest.raises(ConfigError, match=r"in \[0, 1\]"):
        MazeConfig(layout_iou_min=2)
    assert MazeConfig(layout_iou_min=1).layout_iou_min == 1.0 and isinstance(MazeConfig(layout_iou_min=1)
                                                                              .layout_iou_min, float)
    assert Config().with_overrides(["judge.model=1.50"]).judge.model == "1.50"


def test_config_files_are_strict_json(tmp_path):
    for text in ('{"maze": {"layout_iou_min": NaN}}', '{"maze": {"layout_iou_min": Infinity}}',
                 '{"maze": ' + "[" * 5000 + "]" * 5000 + "}"):
        (tmp_path / "c.json").write_text(text)
        with pytest.raises(ConfigError):
            Config.load(tmp_path / "c.json")
    (tmp_path / "c.json").write_bytes(b'{"maze": {"video_style": "\xff"}}')
    with pytest.raises(ConfigError, match="not valid UTF-8: byte 0xff at line 1"):
        Config.load(tmp_path / "c.json")
    with pytest.raises(ConfigError, match="not a regular file"):
        Config.load(tmp_path)


def test_readme_settings_table_is_generated_from_the_config():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, str(root / "scripts" / "settings_table.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert "| `maze.layout_iou_min` | `0.8` | number in [0, 1] |" in readme


def test_strict_json_limits():
    from cvcheck.limits import JSONLimitError, loads_json

    assert loads_json('{"a": [1, -2.5e3, "x", null, true]}') == {"a": [1, -2500.0, "x", None, True]}
    for bad, why in [("[NaN]", "NaN"), ("[-Infinity]", "Infinity"), ("[1e999]", "finite"),
                     ("[" + "9" * 5000 + "]", "5,000 digits"), (f"[{2**64}]", "64-bit"),
                     ("[" * 900 + "]" * 900, "deeper"), ("[" * 100_000 + "]" * 100_000, "deeper"),
                     ('["\\ud800"]', "lone surrogate"), ('{"\\udc80": 1}', "lone surrogate"), ("[1,", "column")]:
        with pytest.raises(JSONLimitError, match=why):
            loads_json(bad)


def test_an_image_over_the_decoded_budget_is_refused_from_its_header():
    import struct
    import zlib

    from cvcheck.config import MediaConfig

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    # 8000x8000 RGBA declared, nothing decodable after the header: refusing it proves nothing was decoded
    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8000, 8000, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", b"junk") + chunk(b"IEND", b""))
    with pytest.raises(MediaError, match=r"8000x8000 and decodes to 256,000,000 bytes .*media.max_decoded_bytes"):
        load_image(data, config=MediaConfig(max_decoded_bytes=200_000_000))
    with pytest.raises(MediaError, match="cannot decode"):  # within budget: decoding is tried, and fails
        load_image(data)


def test_extreme_aspect_ratios_are_refused_before_any_reader_sees_them():
    with pytest.raises(MediaError, match="media.max_aspect_ratio"):
        load_image(_png(Image.new("RGB", (100_000, 2))))
    from cvcheck.config import MediaConfig

    assert load_image(_png(Image.new("RGB", (300, 2))), config=MediaConfig(max_aspect_ratio=200)).shape == (2, 300, 3)


def test_errors_name_sources_never_object_addresses():
    for source, name in [(io.BytesIO(b"not an image"), "<stream>"), (b"not an image", "<bytes>")]:
        with pytest.raises(MediaError) as err:
            load_image(source)
        assert name in str(err.value) and "object at 0x" not in str(err.value)
    assert str(InputError(f"x {io.BytesIO()} y")) == "x <_io.BytesIO> y"


def test_alpha_and_16_bit_images_convert_exactly_in_row_blocks(monkeypatch):
    import cvcheck.media.image as image

    monkeypatch.setattr(image, "CHUNK_PIXELS", 64)  # many blocks, with boundaries inside rows of 37
    rgba = np.random.default_rng(3).integers(0, 256, (29, 37, 4), np.uint8)
    a = rgba[:, :, 3:4] / 255.0
    want = np.clip(np.rint(rgba[:, :, :3] * a + 255.0 * (1 - a)), 0, 255).astype(np.uint8)
    assert np.array_equal(load_image(_png(Image.fromarray(rgba))), want)
    assert np.array_equal(load_image(_png(Image.fromarray(rgba[:, :, :3].copy()))), rgba[:, :, :3])
    la = Image.fromarray(rgba[:, :, [0, 3]].copy(), "LA")
    grey = np.clip(np.rint(rgba[:, :, :1] * a + 255.0 * (1 - a)), 0, 255).astype(np.uint8)
    assert np.array_equal(load_image(_png(la)), np.repeat(grey, 3, axis=2))
