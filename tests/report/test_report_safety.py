"""Done-when: no report output carries executable links, raw HTML or spreadsheet formulas from data,
and odd strings (lone surrogates, control characters, mathtext) never crash a report or an audit.

The hostile records are written straight into a results file, as a tampered or buggy grader
could leave them; the report and audit are built by the real commands.
"""

from __future__ import annotations

import csv
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import numpy as np
import pytest

from cvcheck.batch.store import write_records
from cvcheck.cli import main
from cvcheck.media.write import save_image
from cvcheck.report.html import SafeURL, rel_href, tag, void
from cvcheck.report.overlays import safe_name
from cvcheck.report.text import csv_cell, md_text

XSS = '<img src=x onerror=alert(1)>'
FORMULA = '=HYPERLINK("http://evil.example","x")'
MATH = r"$\frac{a}{"  # unbalanced mathtext: matplotlib raises when it draws this unescaped
ODD = "\udcff\ud800\x00\x1b"  # lone surrogates and control characters

#: what the pages may contain: the tags and attributes the report itself writes, nothing from data
TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "div", "span", "b", "br", "a",
        "img", "figure", "figcaption", "table", "caption", "thead", "tbody", "tr", "th", "td", "details", "summary"}
ATTRS = {"lang", "charset", "name", "content", "class", "title", "href", "src", "alt", "width"}


def _record(sid: str, *, task: str = "maze", model: str = "m", status: str = "ok", overall: float | None = 0.0,
            metrics: dict | None = None, failed: list[str] | None = None, answer: str | None = None,
            modality: str = "image", difficulty: str = "easy", **extra: object) -> dict:
    failed = failed if failed is not None else ["no_cross_wall"]
    return {"schema": "cvcheck.result/1", "id": sid, "task": task, "pipeline": "pixel", "modality": modality,
            "status": status, "overall": overall, "metrics": metrics if metrics is not None else {"cross_wall": 1},
            "gate": {"required": ["layout_match", *failed], "failed": failed} if status != "error" else None,
            "details": {"reason": XSS}, "config_hash": "", "version": "0",
            "sample": {"id": sid, "task": task, "answer": answer, "model": model, "difficulty": difficulty,
                       "metadata": {"k": FORMULA}},
            "timing": {"seconds": 0.1, "worker": "w"}, **extra}


@pytest.fixture()
def hostile(tmp_path: Path) -> tuple[Path, Path]:
    """A results file full of hostile strings, and the report folder it will be written to. An answer file
    sits in that folder under the name ``javascript:alert(1).png``, so that its relative path is a
    'javascript:' URL unless the link is prefixed."""
    out = tmp_path / "report"
    out.mkdir()
    picture = np.full((48, 64, 3), 200, np.uint8)
    named_like_a_url = out / "javascript:alert(1).png"
    save_image(named_like_a_url, picture)
    elsewhere = tmp_path / "answers" / f"a{chr(0xe9)} #?%.png"
    elsewhere.parent.mkdir()
    save_image(elsewhere, picture)
    recs = [
        _record("javascript:alert(1)", answer=str(named_like_a_url), model=XSS),
        _record("../../etc/passwd" + ODD, answer=str(elsewhere), model=FORMULA, task="<b>task</b>" + ODD),
        _record(FORMULA, answer="javascript:alert(1)", model=MATH, difficulty="+1"),
        _record("http", answer="http://evil.example/x.png", model="_hidden", difficulty="@SUM(A1)"),
        _record("data", answer="data:text/html,<script>alert(1)</script>", model="# heading\n- item",
                difficulty="\tx", failed=[XSS, MATH]),
        _record("md", answer=None, model="a|b`c` [click](javascript:alert(1)) ![i](http://evil.example/p.png)",
                difficulty="-2", metrics={"cross_wall": 1, XSS: 1, MATH: 0}),
        _record("pass", overall=1.0, failed=[], metrics={"cross_wall": 0}, model=ODD, difficulty="\rx"),
        _record("err" + ODD, status="error", overall=None, metrics={}, model=XSS,
                error={"code": FORMULA, "message": XSS + ODD}),
    ]
    results = write_records(tmp_path / ("results" + ".jsonl"), recs)
    return results, out


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attrs: list[tuple[str, str]] = []

    def handle_starttag(self, name: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(name)
        self.attrs += [(k, v or "") for k, v in attrs]


def _check_page(page: str, folder: Path, *, allowed_targets: set[Path]) -> list[str]:
    """Only the report's own tags and attributes; every link a ./relative path to a file the report wrote
    or an answer file; every image embedded. Returns the links."""
    parsed = _Collect()
    parsed.feed(page)
    assert parsed.tags <= TAGS, parsed.tags - TAGS
    assert {k for k, _ in parsed.attrs} <= ATTRS, {k for k, _ in parsed.attrs} - ATTRS
    links = [v for k, v in parsed.attrs if k == "href"]
    for href in links:
        assert href.startswith("./") and ":" not in href and " " not in href, href
        target = (folder / unquote(href)).resolve()
        assert target.is_file(), href
        assert target.is_relative_to(folder.resolve()) or target in allowed_targets, href
    for src in (v for k, v in parsed.attrs if k == "src"):
        assert re.fullmatch(r"data:image/(png|jpeg);base64,[A-Za-z0-9+/]+={0,2}", src), src[:60]
    assert "\ufffd" in page  # the odd characters were replaced, not dropped silently
    return links


def _check_markdown(md: str) -> None:
    """No HTML, links, images, code spans or stray table cells can come out of the data."""
    assert "<" not in md and ">" not in md.replace("->", "")
    assert not re.search(r"(?<!\\)[\[\]`]", md)
    for line in md.splitlines():
        assert not line.startswith(("- item", "=", "+", "@")), line
        if line.startswith("#"):
            assert re.match(r"#{1,3} ", line), line
        if line.startswith("|"):
            cells = re.split(r"(?<!\\)\|", line)[1:-1]
            assert len(cells) == line_cells(md, line), line
    assert "\udcff" not in md and "\x00" not in md


def line_cells(md: str, line: str) -> int:
    """The number of cells of the header row of the table ``line`` belongs to."""
    lines = md.splitlines()
    k = lines.index(line)
    while k > 0 and lines[k - 1].startswith("|"):
        k -= 1
    return len(re.split(r"(?<!\\)\|", lines[k])[1:-1])


def test_report_of_hostile_records_links_only_relative_files_and_escapes_everything(
        hostile: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    results, out = hostile
    assert main(["report", str(results), "-o", str(out), "--by", "metadata.k", "--title", XSS + ODD]) == 0, \
        capsys.readouterr().err
    page = (out / "index.html").read_text(encoding="utf-8")
    answers = {(out / "javascript:alert(1).png").resolve(), *(results.parent / "answers").resolve().iterdir()}
    links = _check_page(page, out, allowed_targets=answers)
    # the answer named like a URL is linked as a path inside this folder, percent-encoded
    assert "./javascript%3Aalert%281%29.png" in links
    assert any(h.startswith("./../answers/a%C3%A9%20%23%3F%25.png") for h in links)
    # answers given as URLs are not linked at all
    assert not any("evil" in h or "data" in h or h == "./javascript%3Aalert%281%29" for h in links)
    assert len([h for h in links if h.startswith("./overlays/")]) >= 1
    assert all(p.parent == out / "overlays" for p in (out / "overlays").iterdir())
    assert {p.name for p in (out / "charts").iterdir()} >= {"overall-by-model.png"}

    with open(out / "summary.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    cells = [c for row in rows for c in row]
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert "'" + FORMULA in cells and "'+1" in cells and "'@SUM(A1)" in cells and "'-2" in cells
    assert "'\tx" in cells and "'\nx" in cells  # a CR line break becomes LF: quoted, the row stays whole
    assert {len(row) for row in rows} == {9}

    md = (out / "summary.md").read_text(encoding="utf-8")
    _check_markdown(md)
    assert "&lt;img src=x onerror=alert(1)&gt;" in md and "a\\|b\\`c\\` \\[click\\](javascript:alert(1))" in md


def test_audit_of_hostile_records(hostile: tuple[Path, Path], tmp_path: Path) -> None:
    results, _ = hostile
    from cvcheck.batch import read_records

    flipped = [{**r, "overall": 1.0 - r["overall"]} if r["overall"] is not None else r
               for r in read_records(results).records]
    other = write_records(tmp_path / ("judge" + XSS.replace("/", "") + ".jsonl"), flipped)
    folder = tmp_path / "audit"
    # a real process: what the audit prints must survive a real stdout
    cmd = [sys.executable, "-c", "import sys; from cvcheck.cli import main; sys.exit(main())", "audit",
           str(results), str(other), "-o", str(folder)]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert "disagreeing sample(s)" in res.stdout
    page = (folder / "index.html").read_text(encoding="utf-8")
    _check_page(page, folder, allowed_targets=set())
    md = (folder / "audit.md").read_text(encoding="utf-8")
    _check_markdown(md)
    assert "judge&lt;img src=x onerror=alert(1)&gt;" in md


def test_video_only_metrics_show_their_own_denominator(tmp_path: Path) -> None:
    recs = [_record(f"i{k}", metrics={"cross_wall": k % 2}) for k in range(4)]
    recs += [_record(f"v{k}", modality="video", metrics={"cross_wall": 0, "action_reflection": k % 2})
             for k in range(2)]
    results = write_records(tmp_path / "r.jsonl", recs)
    assert main(["report", str(results), "-o", str(tmp_path / "rep")]) == 0
    page = (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")
    assert "videos 2" in page and "verdicts 6" in page and "verdicts 2" not in page
    md = (tmp_path / "rep" / "summary.md").read_text(encoding="utf-8")
    assert "| **n** | verdicts 6 | videos 2 | verdicts 6 |" in md


def test_links_and_images_take_only_safe_urls(tmp_path: Path) -> None:
    assert rel_href("javascript:alert(1)") == "./javascript%3Aalert%281%29"
    assert rel_href(tmp_path / "a b" / "c.png", tmp_path) == "./a%20b/c.png"
    assert rel_href("/abs/x.png", "/abs/report") == "./../x.png"
    with pytest.raises(TypeError):
        tag("a", "x", href="javascript:alert(1)")
    with pytest.raises(TypeError):
        void("img", src="http://evil.example/p.png")
    with pytest.raises(ValueError):
        void("img", src=SafeURL("data:text/html;base64,PHNjcmlwdD4="))
    assert tag("a", XSS, href=rel_href("x.png")) == '<a href="./x.png">&lt;img src=x onerror=alert(1)&gt;</a>'


def test_text_escapers_and_file_names_on_odd_strings() -> None:
    assert csv_cell("=1+1") == "'=1+1" and csv_cell(-3) == -3 and csv_cell("a=b") == "a=b"
    assert md_text("# x") == "\\# x" and md_text("1. x") == "1\\. x" and md_text("a\nb") == "a b"
    names = {safe_name(s) for s in ("\udcff", "\ud800", "\udcff\udcff", ODD, "é")}
    assert len(names) == 5 and all(n.encode("utf-8") for n in names)
