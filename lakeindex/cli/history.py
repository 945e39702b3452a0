"""``lakeindex history | avh | novelty | validate-batch``: validation by the pipeline's own history.

``avh check``, ``novelty check`` and ``validate-batch`` exit 0 when the batch passes, 1 when it is
flagged, 2 on bad input. History data is read as strings (``--infer-schema`` to type CSV columns), so a
batch whose upstream starts writing ``"N/A"`` into a numeric column shows up as such.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from lakeindex.cli.data import add_data_arguments, read_batch, read_data
from lakeindex.cli.output import EXIT_OK, emit, emit_line, verdict


def _history(args: argparse.Namespace) -> Any:
    from lakeindex.history.batches import BatchHistory

    return BatchHistory(args.repo, args.dataset)


def _read_batch_with_progress(args: argparse.Namespace, prog: Any) -> Any:
    """The batch (pandas or Spark), with the Spark session's task counts reported once there is one."""
    prog.say(f"reading {args.data}")
    data = read_batch(args)
    prog.attach(getattr(data, "sparkSession", None))  # pandas frames have none: no JVM, no task counts
    prog.say(f"profiling {args.data} ({len(data.columns)} columns)")
    return data


def cmd_history_add(args: argparse.Namespace) -> int:
    from lakeindex.progress import Progress

    history = _history(args)
    with Progress(None, enabled=not args.quiet) as prog:
        record = history.add(_read_batch_with_progress(args, prog), args.batch, timestamp_ms=args.timestamp)
    emit({"dataset": args.dataset, "batch": record.batch_id, "status": record.status, "rows": record.notes["rows"],
            "columns": {c: s.kind for c, s in record.summaries.items()},
            "features_per_column": {c: len(f) for c, f in record.features.items()},
            "clean_batches": history.clean_batches})
    return EXIT_OK


def cmd_history_backfill(args: argparse.Namespace) -> int:
    from lakeindex.history.backfill import backfill, list_partitions
    from lakeindex.progress import Progress

    parts, left_out = list_partitions(args.data, args.batch_from)
    history = _history(args)
    t = time.perf_counter()
    with Progress(None, enabled=not args.quiet) as prog:
        prog.say(f"backfill: {len(parts)} partitions of {args.data}")
        out = backfill(history, parts, lambda path: read_batch(_with_data(args, path)),
                       read_together=lambda paths: read_data(_with_data(args, paths)), say=prog.say)
    out["entries_left_out"] = left_out
    out["clean_batches"] = len(history.records(light=True))
    out["seconds"] = round(time.perf_counter() - t, 2)
    emit(out)
    return EXIT_OK


def _with_data(args: argparse.Namespace, path: str) -> argparse.Namespace:
    return argparse.Namespace(**{**vars(args), "data": path})


def cmd_history_list(args: argparse.Namespace) -> int:
    for r in _history(args).records(None, light=True):  # status and notes: no samples or features needed
        emit_line({"batch": r.batch_id, "timestamp_ms": r.timestamp_ms, "status": r.status, **r.notes})
    return EXIT_OK


def cmd_history_accept(args: argparse.Namespace) -> int:
    from lakeindex.history.batches import ACCEPTED

    r = _history(args).set_status(args.batch, ACCEPTED)
    emit({"batch": r.batch_id, "status": r.status})
    return EXIT_OK


def cmd_avh_learn(args: argparse.Namespace) -> int:
    from lakeindex.avh.from_history import learn_dataset_programs

    t = time.perf_counter()
    programs = learn_dataset_programs(_history(args).records(light=True), args.delta, args.window, args.max_clauses)
    out = programs.to_dict()
    out["learn_ms"] = round((time.perf_counter() - t) * 1000, 1)
    emit(out)
    return EXIT_OK


def _profile_candidate(args: argparse.Namespace) -> tuple[list[Any], Any, float]:
    """The clean history, the batch profiled against it (pandas or one Spark pass) and the profile's seconds."""
    from lakeindex.history.batches import profile
    from lakeindex.progress import Progress

    clean = _history(args).records(light=True)
    if not clean:
        raise ValueError("no clean batches in the history: add some with `lakeindex history add`")
    t = time.perf_counter()
    with Progress(None, enabled=not args.quiet) as prog:
        data = _read_batch_with_progress(args, prog)
        new = profile(data, "candidate", clean[-1], issues=False)  # checked, never recorded
        prog.say(f"checking against {len(clean)} clean batches")
    return clean, new, time.perf_counter() - t


def cmd_avh_check(args: argparse.Namespace) -> int:
    from lakeindex.validation import AVHSignal, BatchUnderTest

    clean, new, spark_s = _profile_candidate(args)
    t = time.perf_counter()
    signal = _without_programs(args, AVHSignal(args.delta, args.window, args.max_clauses)
                               .evaluate(BatchUnderTest(new, clean)))
    flagged = signal["status"] == "failed"
    emit({"verdict": "flagged" if flagged else "passed", **signal,
          "timing": {"profile_s": round(spark_s, 3),
                     "learn_and_check_ms": round((time.perf_counter() - t) * 1000, 1)}})
    return verdict(flagged)


def _without_programs(args: argparse.Namespace, signal: dict[str, Any]) -> dict[str, Any]:
    """``signal`` without its learned AVH programs unless ``--programs``: they are learned again on every run
    and are the bulk of a report (tens of KB); ``avh learn`` prints them."""
    if not args.programs:
        signal.pop("programs", None)
    return signal


def cmd_novelty_check(args: argparse.Namespace) -> int:
    from lakeindex.validation import BatchUnderTest, NoveltySignal

    clean, new, _ = _profile_candidate(args)
    signal = NoveltySignal().evaluate(BatchUnderTest(new, clean))
    emit(signal)
    return verdict(signal["status"] == "failed")


def cmd_validate_batch(args: argparse.Namespace) -> int:
    from lakeindex.progress import Progress
    from lakeindex.validation import BatchValidator
    from lakeindex.validation.policy import load_policies

    checks = None
    if args.checks:  # the checks layer (metrics, sketches) is imported only when there are checks
        from lakeindex.checks import load_checks

        checks = load_checks(args.checks)
    batch_id = args.batch or time.strftime("%Y%m%dT%H%M%S")
    policies = load_policies(args.signals_config) if args.signals_config else None
    validator = BatchValidator.default(index=args.index, checks=checks, delta=args.delta, window=args.window,
                                       policies=policies)
    with Progress(None, enabled=not args.quiet) as prog:
        if checks:  # declared checks run on a Spark DataFrame
            prog.say(f"reading {args.data}")
            data = read_data(args)
            prog.attach(data.sparkSession)
        else:
            data = _read_batch_with_progress(args, prog)
        prog.say(f"validating batch {batch_id}: {', '.join(s.name for s in validator.signals)}")
        report = validator.validate_frame(data, _history(args), batch_id, record=not args.dry_run,
                                          timestamp_ms=args.timestamp)
    for s in report["signals"]:
        _without_programs(args, s)
    if args.json or not sys.stdout.isatty():
        emit(report)
    else:
        from lakeindex.cli.batch_summary import batch_summary

        print(batch_summary(report))
    return verdict(report["verdict"] == "flagged")


def _repo_args(p: argparse.ArgumentParser, data: bool = False) -> None:
    p.add_argument("--repo", required=True, help="metrics repository directory")
    p.add_argument("--dataset", required=True, help="dataset name in the repository")
    if data:
        add_data_arguments(p, typed=False, what="the batch: a CSV/TSV/Parquet/JSONL file or a directory of its files",
                           local_engine=True)


def _avh_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--delta", type=float, default=0.001, help="FPR budget per column (default 0.001 = 0.1%%)")
    p.add_argument("--window", type=int, default=None, help="learn from the last N clean batches (default all)")
    p.add_argument("--max-clauses", type=int, default=None, help="most constraints per column (default: no cap)")


def _programs_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--programs", action="store_true",
                   help="include each column's learned AVH program in the JSON report (left out by default)")


def register(sub: argparse._SubParsersAction) -> None:
    """Register history, avh, novelty and validate-batch on the main parser."""
    h = sub.add_parser("history", help="the batch history of a recurring dataset")
    hs = h.add_subparsers(dest="history_command", required=True)
    add = hs.add_parser("add", help="profile a clean batch (without a JVM for a small local file, "
                         "else with Spark; see --engine) and add it to the history")
    _repo_args(add, data=True)
    add.add_argument("--batch", required=True, help="batch id (e.g. the partition date)")
    add.add_argument("--timestamp", type=int, default=None, help="batch time, ms since the epoch (default now)")
    add.set_defaults(func=cmd_history_add)
    bf = hs.add_parser("backfill", help="record many past partitions as clean batches, in order, in one run "
                                        "(resumable: batches already recorded are skipped)")
    _repo_args(bf)
    add_data_arguments(bf, typed=False, local_engine=True,
                       what="a directory of partitions: data files or sub-directories, one batch each")
    bf.add_argument("--batch-from", default=None,
                    help="regex searched in each partition's path to give its batch id (the group named 'batch', "
                         "else group 1), e.g. 'week=(\\d{4}-\\d\\d-\\d\\d)'; default: the name without "
                         "extension. Batches are recorded in id order; ISO-date ids become their timestamps")
    bf.set_defaults(func=cmd_history_backfill)
    ls = hs.add_parser("list", help="the stored batches with their status (JSON lines)")
    _repo_args(ls)
    ls.set_defaults(func=cmd_history_list)
    acc = hs.add_parser("accept", help="accept a flagged batch into the clean history")
    _repo_args(acc)
    acc.add_argument("--batch", required=True, help="id of the flagged batch to accept")
    acc.set_defaults(func=cmd_history_accept)

    a = sub.add_parser("avh", help="Auto-Validate-by-History programs (KDD 2023)")
    asub = a.add_subparsers(dest="avh_command", required=True)
    learn = asub.add_parser("learn", help="learn and print each column's program from the clean history")
    _repo_args(learn)
    _avh_args(learn)
    learn.set_defaults(func=cmd_avh_learn)
    chk = asub.add_parser("check", help="check a batch; exit 0 pass, 1 flagged, 2 bad input")
    _repo_args(chk, data=True)
    _avh_args(chk)
    _programs_arg(chk)
    chk.set_defaults(func=cmd_avh_check)

    n = sub.add_parser("novelty", help="kNN novelty detection on batch statistics (EDBT 2021)")
    nsub = n.add_subparsers(dest="novelty_command", required=True)
    nc = nsub.add_parser("check", help="score a batch against the clean history; exit 0 pass, 1 novel")
    _repo_args(nc, data=True)
    nc.set_defaults(func=cmd_novelty_check)

    vb = sub.add_parser("validate-batch", help="all signals on one batch, one report; records it (exit 0/1/2)")
    _repo_args(vb, data=True)
    _avh_args(vb)
    vb.add_argument("--index", default=None, help="pattern index: also validate text columns' patterns (FMDV-VH)")
    vb.add_argument("--checks", default=None, help="declared checks (.json, .yaml or .py) to run as well")
    vb.add_argument("--batch", default=None, help="batch id (default: the current time)")
    vb.add_argument("--timestamp", type=int, default=None, help="batch time, ms since the epoch (default now)")
    vb.add_argument("--dry-run", action="store_true", help="do not record the batch in the history")
    vb.add_argument("--json", action="store_true",
                    help="print the report as JSON also on a terminal (the default when stdout is a pipe or file; "
                         "on a terminal a short summary is printed)")
    _programs_arg(vb)
    vb.add_argument("--signals-config", default=None, metavar="FILE",
                    help="YAML/JSON: per signal, severity (error|warn) and min_history (clean batches before it may "
                         "fail a batch); see lakeindex.validation.policy for the defaults")
    vb.set_defaults(func=cmd_validate_batch)
