"""``cvcheck judge TASK ...``: judged tasks (MMGR VLM gates, MM-Vet, MARVEL, GGBench).

The judge is any OpenAI-compatible server: ``--base-url``/``--model`` or
``CVCHECK_JUDGE_BASE_URL``/``CVCHECK_JUDGE_MODEL``; the key is read from the environment
(``CVCHECK_JUDGE_API_KEY``, then ``OPENAI_API_KEY``; ``--api-key-env`` names another
variable) and never written anywhere. Replies are cached in SQLite (``--cache``);
``--replay FILE`` answers from recorded judgements only; ``--record FILE`` writes the
judgements this run used.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Any, Callable

from ..errors import InputError
from ._common import add_config_options, config_from_args, guarded

MMGR_TASKS = ("maze-vlm", "sudoku-vlm", "arc", "math", "nav-last-mile", "nav-top-down", "nav-3d", "nav-slag",
              "physics-concepts", "physics-sports")


def _judge_options() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("judge")
    g.add_argument("--base-url", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 "
                   "(default $CVCHECK_JUDGE_BASE_URL)")
    g.add_argument("--model", help="judge model (default $CVCHECK_JUDGE_MODEL)")
    g.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the API key "
                   "(default CVCHECK_JUDGE_API_KEY, then OPENAI_API_KEY)")
    g.add_argument("--cache", metavar="FILE", help="SQLite judgement cache (default $CVCHECK_JUDGE_CACHE "
                   "or ~/.cache/cvcheck/judge.sqlite)")
    g.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    g.add_argument("--replay", metavar="FILE", help="answer only from recorded judgements (no network)")
    g.add_argument("--record", metavar="FILE", help="write the judgements this run used (replayable JSON)")
    g.add_argument("--timeout", type=_at_least(float, 0, strict=True),
                   help="seconds per request attempt, all included (config judge.timeout_s)")
    g.add_argument("--retries", type=_at_least(int, 0), help="retries on 429/5xx/timeouts (config judge.max_retries)")
    g.add_argument("--concurrency", type=_at_least(int, 1),
                   help="requests in flight at most (config judge.concurrency)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("-o", "--out", metavar="DIR", help="output folder (results, scores, official files)")
    add_config_options(p)
    return p


def _at_least(kind: type, low: int, *, strict: bool = False) -> Callable[[str], Any]:
    """An argparse type: a finite ``kind`` >= ``low`` (> when ``strict``), else a usage error (exit 2)."""
    def parse(text: str) -> Any:
        value = kind(text)  # ValueError -> argparse's "invalid ... value"
        if not math.isfinite(value) or value < low or (strict and value == low):
            what = "an integer" if kind is int else "a finite number"
            raise argparse.ArgumentTypeError(f"must be {what} {'>' if strict else '>='} {low}, got {text}")
        return value
    parse.__name__ = kind.__name__
    return parse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("judge", help="grade judged tasks (MMGR VLM gates, MM-Vet, MARVEL, GGBench)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    tasks = p.add_subparsers(dest="judge_task", metavar="TASK", required=True)
    common = _judge_options()
    for t in MMGR_TASKS:
        q = tasks.add_parser(t, parents=[common], aliases=[f"mmgr-{t}"], help=f"MMGR {t} (VLM-judged gate)")
        q.add_argument("--samples", "--answers", dest="samples", required=True, metavar="FILE.jsonl",
                       help="one sample per line: id, judge_answers (recorded) or answer + references (live)")
        q.set_defaults(func=_run_mmgr, mmgr_task=t)
    q = tasks.add_parser("mmvet", parents=[common], help="MM-Vet with the official GPT-4 grader protocol")
    q.add_argument("--data", required=True, help="mm-vet.json")
    q.add_argument("--predictions", help="official predictions file {\"v1_0\": \"...\"}")
    q.add_argument("--grades", help="an existing grade file: resume it (or only aggregate it)")
    q.add_argument("--runs", type=int, default=1, help="grading runs (the paper uses 5)")
    q.add_argument("--name", help="model name for the output files (default: predictions file stem)")
    q.add_argument("--decimal-places", type=int, default=1)
    q.add_argument("--subset", help="JSON list/object of sample ids to score (e.g. bard_set.json)")
    q.set_defaults(func=_run_mmvet)
    q = tasks.add_parser("marvel", parents=[common], help="MARVEL instance and group accuracy")
    q.add_argument("--labels", required=True, help="marvel_label.json or the Json_data/ folder")
    q.add_argument("--responses", required=True, help="model replies (JSON or JSONL)")
    q.add_argument("--judge-fallback", action="store_true", help="ask the judge when the regex finds no answer")
    q.add_argument("--refusals", choices=("wrong", "exclude"), default="wrong")
    q.add_argument("--label-version", help="name of the label revision used (recorded with a fingerprint)")
    q.set_defaults(func=_run_marvel)
    q = tasks.add_parser("ggbench", parents=[common], help="GGBench VLM-T / VLM-I-Res / VLM-I-Mid / VLM-I")
    q.add_argument("--dataset", required=True, help="GGBench_dataset.json")
    q.add_argument("--outputs", required=True, help="model output JSON list")
    q.add_argument("--dataset-root"), q.add_argument("--pred-root")
    q.add_argument("--denominator", default="items", help="'items' (default) or a fixed N such as 1411")
    q.add_argument("--missing", choices=("min", "zero", "exclude"), default="min")
    q.add_argument("--unparseable", choices=("exclude", "zero", "min"), default="exclude")
    q.add_argument("--upstream", action="store_true", help="upstream's policies: N=1411, missing=1, "
                   "unparseable text/image=0, long image=1")
    for k in ("text", "image", "mid"):
        q.add_argument(f"--{k}-prompt", metavar="FILE", help=f"replace the {k} judge prompt template")
    q.set_defaults(func=_run_ggbench)


# -- helpers -----------------------------------------------------------------------------

def _client(args: argparse.Namespace, config: Any) -> Any:
    from ..judge.cache import JudgeCache
    from ..judge.client import JudgeClient
    from ..judge.session import default_cache_path, replay_client

    overrides = [f"judge.{k}={v}" for k, v in (("timeout_s", args.timeout), ("max_retries", args.retries),
                                                ("concurrency", args.concurrency)) if v is not None]
    jcfg = config.with_overrides(overrides).judge
    if args.replay:
        return replay_client(args.replay, model=args.model)
    key = os.environ.get(args.api_key_env) if args.api_key_env else None
    if args.api_key_env and not key:
        raise InputError(f"environment variable {args.api_key_env} is empty or unset")
    where = str(args.cache or default_cache_path())
    cache = JudgeCache(":memory:") if args.no_cache or where.lower() == "off" else JudgeCache(where)
    return JudgeClient.from_config(jcfg, model=args.model, base_url=args.base_url, api_key=key, cache=cache)


def _finish(args: argparse.Namespace, client: Any) -> None:
    if client is not None and args.record and client.cache is not None:
        n = client.cache.export_json(args.record, keys=client.used_keys)
        print(f"recorded {n} judgement(s) to {args.record}", file=sys.stderr)


def _out_dir(args: argparse.Namespace) -> Path | None:
    if not args.out:
        return None
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    return out


def _print(summary: dict[str, Any], args: argparse.Namespace, lines: list[str]) -> None:
    print(json.dumps(summary, indent=2, default=str) if args.json else "\n".join(lines))


def _read_jsonl(path: str) -> list[dict[str, Any]]:
    try:
        rows = [json.loads(x) for x in Path(path).read_text(encoding="utf-8").splitlines() if x.strip()]
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read samples {path}: {exc}") from exc
    if not all(isinstance(r, dict) for r in rows):
        raise InputError(f"{path}: every line must be a JSON object")
    return rows


def _resolve_paths(sample: dict[str, Any], base: Path) -> dict[str, Any]:
    s = dict(sample)
    if isinstance(s.get("answer"), str) and not Path(s["answer"]).is_absolute():
        s["answer"] = str(base / s["answer"])
    refs = s.get("references")
    if isinstance(refs, dict):
        s["references"] = {k: v if Path(v).is_absolute() else str(base / v) for k, v in refs.items()}
    return s


# -- tasks -------------------------------------------------------------------------------

@guarded
def _run_mmgr(args: argparse.Namespace) -> int:
    import tempfile

    from ..batch.manifest import validate_sample
    from ..batch.runner import run_samples
    from ..batch.store import load_results
    from ..judge.mmgr_spec import SPECS
    from ..judge.session import using_client
    from ..judge.summary import summarize
    from .progress import ProgressBar

    config = config_from_args(args)
    spec = SPECS[args.mmgr_task]
    base = Path(args.samples).resolve().parent
    samples = []
    for number, row in enumerate(_read_jsonl(args.samples), 1):
        try:
            samples.append(validate_sample(_resolve_paths({**row, "task": spec.task}, base), base))
        except InputError as exc:
            raise InputError(f"{args.samples} line {number}: {exc}") from None
    ids = [s["id"] for s in samples]
    if len(set(ids)) != len(ids):
        raise InputError(f"{args.samples}: duplicate id {next(i for i in ids if ids.count(i) > 1)!r}")
    live = any(s.get("judge_answers") is None and s.get("judge_reply") is None for s in samples)
    client = _client(args, config) if live else None
    out = _out_dir(args)
    with tempfile.TemporaryDirectory(prefix="cvcheck-judge-") as scratch:
        path = (out or Path(scratch)) / "results.jsonl"
        bar = ProgressBar("judging") if sys.stderr.isatty() else None
        try:
            if client is not None:
                with using_client(config.judge, client):
                    run_samples(samples, path, config=config, executor="thread", workers=client.concurrency,
                                timeout_s=None, resume=False, progress=bar)
            else:
                run_samples(samples, path, config=config, executor="serial", timeout_s=None, resume=False,
                            progress=bar)
        finally:
            if bar is not None:
                bar.close()
        results = load_results(path)
    summary = summarize(results).get(spec.task, {})
    lines = [f"{spec.title}: {summary.get('n', 0)} samples, overall {_pct(summary.get('overall'))} "
             f"(ok {summary.get('n_ok', 0)}, unparseable {summary.get('n_unparseable', 0)}, "
             f"error {summary.get('n_error', 0)})"]
    lines += [f"  {k}: {v:.3f}" for k, v in summary.get("metrics", {}).items()]
    if "cascade" in summary:
        lines.append("  cascade: " + " -> ".join(f"{k} {_pct(v)}" for k, v in summary["cascade"].items()
                                                 if k != "color_to_grid_ratio"))
    _finish(args, client)
    _print(summary, args, lines)
    return 1 if summary.get("n_error") else 0


@guarded
def _run_mmvet(args: argparse.Namespace) -> int:
    from ..judge import mmvet, mmvet_report

    config = config_from_args(args)
    data = mmvet.load_data(args.data)
    subset = None
    if args.subset:
        raw = mmvet.load_json(args.subset, "subset")
        subset = set(raw if isinstance(raw, list) else raw.keys())
    name = args.name or (Path(args.predictions).stem if args.predictions else "model")
    hint = args.model or os.environ.get("CVCHECK_JUDGE_MODEL") or config.judge.model
    previous = Path(args.out or ".") / mmvet_report.csv_names(name, hint, args.runs)[0] if hint else None
    if args.grades:
        grades = mmvet.load_grades(args.grades)
    elif previous is not None and previous.is_file():  # the official grader resumes its grade file too
        grades = mmvet.load_grades(previous)
        print(f"resuming {previous}", file=sys.stderr)
    else:
        grades = {}
    client = None
    need = [k for k in data if (subset is None or k in subset) and len(grades.get(k, {}).get("score", [])) < args.runs]
    if need:
        if not args.predictions:
            raise InputError(f"{len(need)} sample(s) need grading: pass --predictions")
        client = _client(args, config)
        grades, problems = mmvet.grade_all(client, data, mmvet.load_predictions(args.predictions),
                                           runs=args.runs, grades=grades, subset=subset,
                                           progress=_progress if sys.stderr.isatty() else None)
        if sys.stderr.isatty():
            print(file=sys.stderr)
    else:
        problems = []
    judge_model = client.model if client else _grade_model(grades)
    out = _out_dir(args) or Path(".")
    grade_name, _, _ = mmvet_report.csv_names(name, judge_model, args.runs)
    (out / grade_name).write_text(json.dumps(grades, indent=4), encoding="utf-8")
    _finish(args, client)
    if problems:
        print(f"cvcheck: {len(problems)} judgement(s) failed; grade file saved for resuming:", file=sys.stderr)
        for p in problems[:10]:
            print(f"  {p}", file=sys.stderr)
        return 1
    scores = mmvet_report.aggregate(grades, data, runs=args.runs, decimal_places=args.decimal_places, subset=subset)
    cap, integ = mmvet_report.write_csvs(scores, out, model=name, judge_model=judge_model, runs=args.runs,
                                         subset_name="bardset" if args.subset else "")
    lines = [f"MM-Vet {name} (judge {judge_model}, {args.runs} run(s), {scores.n_samples} samples): "
             f"total {scores.total} ± {scores.std}  runs {list(scores.runs)}",
             "  " + "  ".join(f"{k} {v}" for k, v in scores.capabilities.items()),
             f"  wrote {out / grade_name}, {cap}, {integ}"]
    _print(scores.to_dict(), args, lines)
    return 0


def _progress(done: int, total: int) -> None:
    print(f"\rgraded {done}/{total}", end="", file=sys.stderr, flush=True)


def _grade_model(grades: dict[str, Any]) -> str:
    models = {m for g in grades.values() for m in g.get("model", [])}
    return models.pop() if len(models) == 1 else "judge"


@guarded
def _run_marvel(args: argparse.Namespace) -> int:
    from ..judge import marvel

    config = config_from_args(args)
    labels = marvel.load_labels(args.labels)
    responses = marvel.load_responses(args.responses)
    client = _client(args, config) if args.judge_fallback else None
    evals = marvel.evaluate_all(labels, responses, client=client)
    scores = marvel.score(evals, refusals=args.refusals)
    scores["label_version"] = {"name": args.label_version, "fingerprint": marvel.label_version(labels)}
    scores["unlabelled_response_ids"] = sorted(set(responses) - {str(l["id"]) for l in labels})
    out = _out_dir(args)
    if out:
        (out / "marvel_items.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in marvel.items_as_records(evals)), encoding="utf-8")
        (out / "marvel_scores.json").write_text(json.dumps(scores, indent=2), encoding="utf-8")
    _finish(args, client)
    o = scores["overall"]
    lines = [f"MARVEL: {o['n_puzzles']} puzzles (refusals: {args.refusals}, "
             f"labels {scores['label_version']['fingerprint']})",
             f"  AVR {_pct(o['avr_accuracy'])}  fine {_pct(o['fine_accuracy'])}  coarse {_pct(o['coarse_accuracy'])}",
             f"  group coarse {_pct(o['group_coarse_accuracy'])}  perception {_pct(o['group_perception_accuracy'])}"
             f"  all {_pct(o['group_all_accuracy'])}",
             f"  answered {o['n_answered']}  unparsed {o['n_unparsed']}  refusals {o['n_refusal']}  "
             f"missing {o['n_missing']}  judge fallbacks {o['n_judge_fallback']}"]
    _print(scores, args, lines)
    return 0


@guarded
def _run_ggbench(args: argparse.Namespace) -> int:
    from ..judge import ggbench

    config = config_from_args(args)
    items, unknown = ggbench.load_items(args.dataset, args.outputs, dataset_root=args.dataset_root,
                                        pred_root=args.pred_root)
    templates = {k: Path(getattr(args, f"{k}_prompt")).read_text(encoding="utf-8")
                 for k in ("text", "image", "mid") if getattr(args, f"{k}_prompt")}
    recorded = all(isinstance(i.get(k), str) for i in items for k in ("judge_text", "judge_image", "judge_mid"))
    client = None if recorded else _client(args, config)
    parts = ggbench.evaluate_all(items, client=client, templates=templates)
    if args.upstream:
        policy: dict[str, Any] = dict(ggbench.UPSTREAM)
    else:
        den: Any = args.denominator if args.denominator == "items" else _int(args.denominator)
        policy = {"denominator": den, "missing": args.missing, "unparseable": args.unparseable}
    scores = ggbench.aggregate(parts, **policy)
    scores["policy"], scores["unknown_ids"] = policy, unknown
    out = _out_dir(args)
    if out:
        rows = [{"id": it.get("id"), **{m: {"status": p.status, "value": p.value, **p.extra, "judge": p.judge}
                                        for m, p in ps.items()}} for it, ps in zip(items, parts)]
        (out / "ggbench_items.jsonl").write_text("".join(json.dumps(r, default=str) + "\n" for r in rows))
        (out / "ggbench_scores.json").write_text(json.dumps(scores, indent=2, default=str))
    _finish(args, client)
    lines = [f"GGBench: {len(items)} items (N = {policy['denominator']}; {len(unknown)} unknown id(s) skipped)"]
    for m in ("vlm_t", "vlm_i_res", "vlm_i_mid", "vlm_i"):
        s = scores[m]
        extra = "" if m == "vlm_i" else (f"  (ok {s['n_ok']}, missing {s['n_missing']}, "
                                          f"unparseable {s['n_unparseable']}, error {s['n_error']})")
        lines.append(f"  {m.upper().replace('_', '-')}: {s['rounded']}{extra}")
    _print(scores, args, lines)
    return 1 if any(scores[m]["n_error"] for m in ggbench.METRICS) else 0


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InputError(f"--denominator must be 'items' or an integer, got {text!r}") from None


def _pct(v: Any) -> str:
    return "n/a" if v is None else f"{100 * float(v):.1f}%"
