#!/usr/bin/env python3
"""Writes tests/test_costs.cmake: the seconds the slowest tests took in the last run of build/.

ctest -j starts the costliest tests first, but it knows their times only from a run before (its
Testing/Temporary/CTestCostData.txt). A first run (a fresh clone, CI) would start the tests in file
order and end with a long one running alone. The tests that take the timing lock run one at a time:
they rank above every other test, so that their chain starts at once and never waits for a core.

    /usr/bin/python3 scripts/test-costs.py [BUILD-DIR]     after a whole ctest -j2 run
"""
import json
import pathlib
import subprocess
import sys

MIN_SECONDS = 5.0  # the tests below this are left in file order
LOCKED_RANK = 1000.0  # added to the cost of a test that takes a RESOURCE_LOCK


def main() -> int:
    root = pathlib.Path(__file__).resolve().parent.parent
    build = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else root / "build"
    cost_file = build / "Testing" / "Temporary" / "CTestCostData.txt"
    if not cost_file.is_file():
        print(f"test-costs: {cost_file}: no ctest run recorded in {build}", file=sys.stderr)
        return 1
    seconds = {}
    for line in cost_file.read_text().splitlines():
        if line.strip() == "---":
            break
        parts = line.split()
        if len(parts) == 3:
            seconds[parts[0]] = float(parts[2])
    listing = json.loads(subprocess.run(["ctest", "--test-dir", str(build), "--show-only=json-v1"],
                                        check=True, capture_output=True, text=True).stdout)
    # Only the tests gtest_discover_tests adds: ctest reads this file after those and before the
    # tests add_test names directly (tests/CMakeLists.txt gives those their COST itself).
    discovered = {t["name"]: t for t in listing["tests"]
                  if t.get("command") and pathlib.Path(t["command"][0]).name.endswith("_tests")}
    locked = {n for n, t in discovered.items()
              if any(p["name"] == "RESOURCE_LOCK" for p in t.get("properties", []))}
    rows = sorted(((s + (LOCKED_RANK if n in locked else 0), n) for n, s in seconds.items()
                   if n in discovered and (s >= MIN_SECONDS or n in locked)), reverse=True)
    out = root / "tests" / "test_costs.cmake"
    with out.open("w") as f:
        f.write("# Written by scripts/test-costs.py (read its header): the seconds of the slowest tests on two busy\n"
                "# cores, plus 1000 for the tests of the timing lock. Only the order of a first ctest -j run\n"
                "# depends on it; a stale or missing name does no harm.\n")
        for cost, name in rows:
            f.write(f"set_tests_properties([=[{name}]=] PROPERTIES COST {cost:.0f})\n")
    print(f"test-costs: {len(rows)} tests in {out.relative_to(root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
