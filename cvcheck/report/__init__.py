"""Reports from results files: tables in MMGR's style, charts, failure gallery with overlays."""

from .build import build_report
from .overlays import render_record

__all__ = ["build_report", "render_record"]
