#!/usr/bin/env python3
"""Checks `colosseum conformance run` output against the .expect.json beside each script.

Usage: check.py BINARY SCRIPT...   Runs BINARY once over all scripts (the way hosts call
it) and compares status, winner, step, error.code and every summary field expected.
Exit 1 on any disagreement, listing them all.
"""
import json
import subprocess
import sys


def main() -> int:
    binary, scripts = sys.argv[1], [s for s in sys.argv[2:] if not s.endswith(".expect.json")]
    out = subprocess.run([binary, "conformance", "run", *scripts], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    if len(lines) != len(scripts):
        print(f"expected {len(scripts)} result lines, got {len(lines)}")
        return 1
    bad = []
    for path, line in zip(scripts, lines):
        got = json.loads(line)
        with open(path[: -len(".json")] + ".expect.json") as f:
            want = json.load(f)
        for k in ("status", "winner", "step"):
            if k in want and got.get(k) != want[k]:
                bad.append(f"{path}: {k} expected {want[k]!r}, got {got.get(k)!r}")
        if "error" in want and (got.get("error") or {}).get("code") != want["error"].get("code"):
            bad.append(f"{path}: error.code expected {want['error'].get('code')!r}, got {got.get('error')!r}")
        for k, v in (want.get("summary") or {}).items():
            if (got.get("summary") or {}).get(k) != v:
                bad.append(f"{path}: summary.{k} expected {v!r}, got {(got.get('summary') or {}).get(k)!r}")
    print("\n".join(bad))
    print(f"{len(scripts) - len({b.split(':')[0] for b in bad})} passed, {len({b.split(':')[0] for b in bad})} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
