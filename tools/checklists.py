#!/usr/bin/env python3
"""Keeps ARCHITECTURE.md's checklists true: the files to touch to add a game, a tournament
format and a storage backend. Each checklist is a block

    <!-- checklist NAME: key=value ... names=REGEX max=N -->
    1. `a/path/<key>.rs` ...        (numbered: the files it must touch, at most N)
    - `another/path` ...            (bullets: its clients, or what is optional)
    <!-- end checklist -->

whose paths name an existing example (`game=hexspiel`...: each `<key>` in a path is
replaced by its value). Checked: every path exists (a `x.rs` also stands for a folder `x/`
beside it), there are at most N numbered ones, and no code file outside the list names
the example (REGEX over the code with comments, tests and docs left out): a file that must
change for a new one is in the list. Exit status 1 on any failure. Run by `make lint`.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "ARCHITECTURE.md")
CODE_DIRS = ["crates", "services", "cli", "web/src", "proto"]
CODE_EXT = (".rs", ".ts", ".tsx", ".proto", ".toml")
BLOCK = re.compile(r"<!-- checklist (\w+): (.*?) -->\n(.*?)<!-- end checklist -->", re.S)
PATH = re.compile(r"`([\w./<>-]+/[\w.<>-]*)`")


def tracked():
    out = subprocess.run(
        ["git", "ls-files", *CODE_DIRS], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return [f for f in out.stdout.split() if f.endswith(CODE_EXT)]


def is_test_or_generated(f):
    parts = f.split("/")
    return (
        "tests" in parts
        or "benches" in parts
        or "gen" in parts
        or f.endswith(("tests.rs", "_test.rs"))
    )


def code_of(f):
    """The file's code: comments blanked, and in Rust what follows its first `#[cfg(test)]` cut (clippy keeps test modules last)."""
    text = open(os.path.join(ROOT, f), encoding="utf-8").read()
    if f.endswith(".toml"):
        return re.sub(r"(?m)^\s*#.*$", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    if f.endswith(".rs"):
        text = text.split("#[cfg(test)]")[0]
    return text


def covers(listed, f):
    """Whether the listed path (instantiated) stands for file `f`."""
    if f == listed:
        return True
    stem = listed[:-3] if listed.endswith(".rs") else listed.rstrip("/")
    return f.startswith(stem + "/")


def check(name, params, body, files):
    problems = []
    keys = dict(p.split("=", 1) for p in params.split())
    names = re.compile(keys.pop("names"))
    limit = int(keys.pop("max"))

    def inst(path):
        for k, v in keys.items():
            path = path.replace(f"<{k}>", v)
        return path

    numbered, rest = [], []
    for line in body.split("\n"):
        target = numbered if re.match(r"\d+\.\s", line) else rest
        target.extend(inst(p) for p in PATH.findall(line))
    required = list(dict.fromkeys(numbered))
    listed = required + [p for p in dict.fromkeys(rest) if p not in required]
    if len(required) > limit:
        problems.append(f"{name}: {len(required)} files to touch, more than {limit}")
    for p in listed:
        full = os.path.join(ROOT, p)
        folder = full[:-3] if p.endswith(".rs") else None
        if not os.path.exists(full) and not (folder and os.path.isdir(folder)):
            problems.append(f"{name}: {p} (listed) does not exist")
    for f in files:
        if is_test_or_generated(f) or any(covers(p, f) for p in listed):
            continue
        if names.search(code_of(f)):
            problems.append(f"{name}: {f} names the example ({names.pattern}) but is not listed")
    print(f"checklist {name}: {len(required)} files (at most {limit}), {len(listed)} listed in all")
    return problems


def main():
    doc = open(DOC, encoding="utf-8").read()
    blocks = BLOCK.findall(doc)
    if len(blocks) < 3:
        print(f"ARCHITECTURE.md has {len(blocks)} checklists; 3 expected (game, format, backend)")
        return 1
    files = tracked()
    problems = []
    for name, params, body in blocks:
        problems += check(name, params, body, files)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
