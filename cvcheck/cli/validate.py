"""``cvcheck validate MANIFEST``: check a manifest (line-numbered errors, missing files).

It applies every check ``cvcheck run`` would fail on (the same loader, the same strict
JSON/CSV limits, the ``--config``/``--set`` settings), and reads each sample's references
(a maze's reference image, a Sudoku's grids), so a manifest it accepts runs to one result
per sample.
"""

from __future__ import annotations

import argparse
from collections import Counter

from ._common import add_config_options, config_from_args, guarded, safe_text


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="check a manifest: fields, tasks, duplicate ids, paths, missing files",
                       description="Validate a manifest (JSONL or CSV); every problem is reported with its line.")
    p.add_argument("manifest", help="manifest file (.jsonl or .csv)")
    p.add_argument("--no-files", action="store_true", help="do not check that answer/reference files exist")
    add_config_options(p)  # the settings `cvcheck run` will use: checked, and references read with them
    p.set_defaults(func=_run)


@guarded
def _run(args: argparse.Namespace) -> int:
    from ..batch.manifest import load_manifest

    config = config_from_args(args)
    m = load_manifest(args.manifest, check_files=not args.no_files, check_references=True, config=config)
    by_task = Counter(s["task"] for s in m.samples)
    models = sorted({str(s["model"]) for s in m.samples if s.get("model")})
    if m.missing_files:
        for line, msg in m.missing_files[:50]:
            print(safe_text(f"{args.manifest}:{line}: missing file: {msg}"))
        if len(m.missing_files) > 50:
            print(f"... and {len(m.missing_files) - 50} more missing files")
        print(f"{len(m)} samples valid, but {len(m.missing_files)} file(s) missing")
        return 1
    print(safe_text(f"{len(m)} samples OK: " + ", ".join(f"{t} {n}" for t, n in sorted(by_task.items()))
                    + (f"; models: {', '.join(models)}" if models else "")))
    return 0
