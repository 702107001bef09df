#!/usr/bin/python3
"""clang-tidy over the library sources' unity batches, remembering the batches that passed.

A batch that passed is skipped while its preprocessed text, its compile flags, .clang-tidy and the
clang-tidy version are unchanged (the cache is keyed by their SHA-256, as ccache keys objects): a
change to one header re-checks only the batches that include it. Findings are never cached.
Called by scripts/lint.sh --tidy; prints the findings and exits 1 when there are any.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import pathlib
import re
import shlex
import subprocess
import sys

SKIPPED_FOLDERS = ("tests", "bench", "fuzz")  # the linted code is the libraries' and the programs'
PROJECT_FOLDERS = "compiler|tuner|tracker|rpc_server|runtime|db|regress|graph|proto|support|cli"


def library_units(compile_db):
    entries = json.loads(compile_db.read_text())
    seen = {}
    for e in entries:
        if not any(f"/{skip}/" in e["file"] for skip in SKIPPED_FOLDERS):
            seen.setdefault(e["file"], e)
    return [seen[f] for f in sorted(seen)]


def preprocess_command(entry):
    """The unit's compile command, preprocessing to stdout without line markers, comments kept."""
    args = shlex.split(entry["command"])
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a == "-o":
            skip = True
        elif a != "-c":
            out.append(a)
    return out + ["-E", "-P", "-C", "-o", "-"]  # comments kept: a NOLINT is part of what passed


def unit_key(entry, salt):
    pre = subprocess.run(preprocess_command(entry), cwd=entry["directory"], capture_output=True, check=False)
    if pre.returncode != 0:
        return None  # clang-tidy will say what is wrong
    h = hashlib.sha256(salt)
    h.update(entry["command"].encode())
    h.update(pre.stdout)
    return h.hexdigest()


def check_unit(entry, root, build, cache, salt):
    key = unit_key(entry, salt) if cache else None
    if key and (cache / key).exists():
        return entry["file"], True, "", True
    run = subprocess.run(
        ["clang-tidy", "-p", str(build), "--quiet", f"--header-filter=^{re.escape(str(root))}/({PROJECT_FOLDERS})/",
         entry["file"]],
        capture_output=True, text=True, check=False)
    if run.returncode == 0 and key:
        (cache / key).touch()
    return entry["file"], run.returncode == 0, run.stdout + run.stderr, False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, type=pathlib.Path)
    parser.add_argument("--cache", default=str(pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache"))
                                               / "tunefarm-tidy"),
                        help="where passing batches are remembered ('' to check every batch)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = parser.parse_args()
    build = a.root / "build"
    compile_db = build / "compile_commands.json"
    if not compile_db.exists():
        sys.exit(f"lint: {compile_db} is missing: build first (scripts/build.sh)")
    cache = pathlib.Path(a.cache) if a.cache else None
    if cache:
        cache.mkdir(parents=True, exist_ok=True)
    version = subprocess.run(["clang-tidy", "--version"], capture_output=True, check=True).stdout
    salt = version + (a.root / ".clang-tidy").read_bytes()

    units = library_units(compile_db)
    print(f"lint: clang-tidy over {len(units)} unity sources ({a.jobs} at a time)", flush=True)
    findings, reused = set(), 0
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for _, ok, output, cached in pool.map(lambda e: check_unit(e, a.root, build, cache, salt), units):
            reused += cached
            if not ok:
                lines = [line for line in output.splitlines() if re.search(r"(warning|error):", line)]
                findings.update(lines or [output.strip()])
    if findings:
        print("\n".join(sorted(findings)), file=sys.stderr)
        print("lint: clang-tidy found the above (checks in .clang-tidy)", file=sys.stderr)
        return 1
    print(f"lint: clang-tidy: no findings ({reused} of {len(units)} batches unchanged since they passed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
