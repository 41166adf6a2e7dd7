"""``cvcheck audit A.jsonl B.jsonl``: per-metric agreement, Cohen's kappa, phi, confusion matrices."""

from __future__ import annotations

import argparse
import json

from ._common import add_config_options, config_from_args, guarded


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit", help="agreement between two result sets (e.g. pixel vs judge, verifier vs labels)",
                       description="Match two results files by id and report, per metric, the agreement rate, "
                                   "Cohen's kappa, phi and the confusion matrix, and the disagreeing samples.")
    p.add_argument("a", help="results JSONL (e.g. the verifier)")
    p.add_argument("b", help="results JSONL (e.g. a judge or human labels)")
    p.add_argument("-o", "--output", default=None, help="write audit.json, audit.md and index.html here")
    p.add_argument("--metric", action="append", default=[], help="compare only these metrics (repeatable)")
    p.add_argument("--names", default=None, help="labels for A and B, e.g. pixel,judge")
    p.add_argument("--overlays-from", default=None, metavar="REPORT_DIR",
                   help="link overlays from this report folder instead of drawing them again")
    p.add_argument("--json", action="store_true", help="print the audit as JSON")
    add_config_options(p)
    p.set_defaults(func=_run)


@guarded
def _run(args: argparse.Namespace) -> int:
    from ..audit import audit_files, audit_text, write_audit
    from ..errors import InputError

    names = None
    if args.names:
        parts = [s.strip() for s in args.names.split(",")]
        if len(parts) != 2 or not all(parts):
            raise InputError("--names takes two labels separated by a comma, e.g. pixel,judge")
        names = (parts[0], parts[1])
    audit = audit_files(args.a, args.b, metrics=args.metric or None, names=names)
    if audit.matched == 0:
        raise InputError(f"no sample id is in both {args.a} and {args.b}")
    print(json.dumps(audit.to_dict(), indent=1) if args.json else audit_text(audit))
    if args.output:
        index = write_audit(audit, args.output, overlays_from=args.overlays_from, config=config_from_args(args))
        print(f"audit: {index}")
    return 0
