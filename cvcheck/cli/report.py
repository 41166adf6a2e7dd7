"""``cvcheck report results.jsonl -o report/``: HTML report, CSV and markdown summaries."""

from __future__ import annotations

import argparse

from ._common import add_config_options, config_from_args, guarded


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="write an HTML report (tables, charts, failure gallery) and CSV/markdown",
                       description="Build a self-contained HTML report from a results file, plus summary.csv and "
                                   "summary.md; overlays of failing samples go to OUT/overlays/.")
    p.add_argument("results", help="results JSONL written by `cvcheck run`")
    p.add_argument("-o", "--output", required=True, help="report folder")
    p.add_argument("--by", action="append", default=[], metavar="FIELD",
                   help="extra table by a sample field, e.g. --by metadata.defect (repeatable)")
    p.add_argument("--gallery", type=int, default=48, help="failures shown with overlays (default 48)")
    p.add_argument("--title", default=None, help="report title")
    add_config_options(p)
    p.set_defaults(func=_run)


@guarded
def _run(args: argparse.Namespace) -> int:
    from ..report.build import build_report

    index = build_report(args.results, args.output, config=config_from_args(args), group_by=args.by,
                         max_gallery=args.gallery, title=args.title)
    print(f"report: {index}")
    return 0
