"""A lake on an object store, end to end: ``s3a://`` listing, table detection (part directories, Hive
partitions, a Delta table) and the index build, against a local S3-compatible server (moto) on 127.0.0.1.

Uploads a local lake (default the bundled ``sample_lake/tables``) to a bucket of a moto server this script
starts, builds its index through Hadoop's S3A connector (``hadoop-aws`` of pyspark's Hadoop version, which
Spark fetches from Maven Central through ``spark.jars.packages`` on first use) and compares it key by key
with the index of the local copy. Delta tables on the store are resolved by delta-rs, which reads the
usual ``AWS_*`` variables (set here for the local server).

    python bench/s3_lake.py [--lake sample_lake/tables] [--out bench/out/s3]

Prints one JSON line: tables, files, whether every key is equal, and both build times. Exit 0 when the
indexes are equal, 1 when they differ. The first run downloads the S3A connector and the AWS SDK bundle
(about 650 MB into Ivy's cache), which is why this is a benchmark script and not a test of the suite.
Spark's Ivy takes a POM without its jar in ``~/.m2/repository`` (left by an interrupted ``mvn``) for the
artifact and fails with "NOT FOUND": remove that directory (and Ivy's cache) and run again.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lakeindex.index.store import IndexReader  # noqa: E402
from lakeindex.lake.filesystems import hadoop_version  # noqa: E402

KEY, SECRET, REGION, BUCKET = "testing", "testing", "us-east-1", "lake"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def upload(lake: Path, endpoint: str) -> int:
    """Copy every file under ``lake`` (``_delta_log`` and ``_SUCCESS`` included) to the bucket."""
    import boto3

    s3 = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=KEY, aws_secret_access_key=SECRET,
                      region_name=REGION)
    s3.create_bucket(Bucket=BUCKET)
    n = 0
    for path in sorted(lake.rglob("*")):
        if path.is_file():
            s3.upload_file(str(path), BUCKET, f"tables/{path.relative_to(lake).as_posix()}")
            n += 1
    return n


def build(lake: str, out: Path, conf: list[str], env: dict[str, str]) -> tuple[dict, float]:
    cmd = [sys.executable, "-m", "lakeindex.cli", "index", "build", lake, "--out", str(out), "--quiet"]
    for c in conf:
        cmd += ["--conf", c]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"build of {lake} failed ({proc.returncode}): {proc.stderr[-3000:]}")
    return json.loads(proc.stdout), time.perf_counter() - t0


def items(index: Path) -> dict[bytes, bytes]:
    with IndexReader(index) as ix:
        return dict(ix.items())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lake", type=Path, default=ROOT / "sample_lake" / "tables")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "s3")
    args = ap.parse_args()
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request of the local server
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    try:
        files = upload(args.lake, endpoint)
        env = {**os.environ, "AWS_ACCESS_KEY_ID": KEY, "AWS_SECRET_ACCESS_KEY": SECRET, "AWS_REGION": REGION,
               "AWS_ENDPOINT_URL": endpoint, "AWS_ALLOW_HTTP": "true"}
        conf = [f"spark.jars.packages=org.apache.hadoop:hadoop-aws:{hadoop_version()}",
                f"spark.hadoop.fs.s3a.endpoint={endpoint}", "spark.hadoop.fs.s3a.path.style.access=true",
                "spark.hadoop.fs.s3a.connection.ssl.enabled=false", f"spark.hadoop.fs.s3a.access.key={KEY}",
                f"spark.hadoop.fs.s3a.secret.key={SECRET}", f"spark.hadoop.fs.s3a.endpoint.region={REGION}"]
        remote, remote_s = build(f"s3a://{BUCKET}/tables", args.out / "index-s3", conf, env)
        local, local_s = build(str(args.lake), args.out / "index-local", [], env)
        equal = items(args.out / "index-s3") == items(args.out / "index-local")
        keys = ("tables_scanned", "files_scanned", "columns_scanned", "cells_scanned", "patterns")
        print(json.dumps({"files_uploaded": files, "equal_keys": equal,
                          "s3": {k: remote.get(k) for k in keys} | {"tables_by_format": remote.get("tables_by_format"),
                                                                    "wall_s": round(remote_s, 1)},
                          "local": {k: local.get(k) for k in keys} | {"wall_s": round(local_s, 1)}}))
        return 0 if equal and remote["tables_scanned"] == local["tables_scanned"] else 1
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
