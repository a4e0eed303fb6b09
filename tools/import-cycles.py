#!/usr/bin/env python3
"""Finds files that import each other: in every crate of the workspace, a file's
`crate::...`, `super::...` and `self::...` paths (in `use` trees and anywhere else in the
code) are resolved to the module file that defines what they name, and a cycle of such
imports between files (a imports b, b imports a, or longer) is reported. A module naming
its own ancestors' or descendants' items is the one allowed exception: that is the module
tree, not an import between peers. Exit status 1 when a cycle is found.
(`python3 tools/import-cycles.py`; not yet part of `make lint`.)

How paths are read (dependency-free, no rustc):
- comments (line, doc, nested block) and the contents of string, raw string, byte and char
  literals are blanked first, so a path in text is never an import;
- the module tree is walked from each crate root (src/lib.rs, src/main.rs, src/bin/*.rs, a
  [lib]/[[bin]] `path`) through `mod x;` and inline `mod x { ... }`, so `super::` in an
  inline module (a file's `mod tests`) is the file's own module, and a binary's `crate::`
  is not the library's;
- an item named through a `use` (`pub use a::X;` in the root, `use a::X;` in a parent) is
  resolved to the file that defines it, so `crate::X` through the root's re-export, or
  `super::X` through the parent's import, counts as an import of `a`'s file;
- `$crate::` (resolved where a macro is expanded) and `pub(in path)` (a visibility, not a
  use) are not imports.

`-v` names, for each step of a cycle, the line of the first reference.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Crates outside the workspace's member list are looked for here too.
CODE_DIRS = ["crates", "services", "cli", "tests"]
# The most cycles reported per crate (all are counted).
MAX_REPORTED = 200


# ---------------------------------------------------------------------------- crates


def workspace_members():
    """The member directories listed in the root Cargo.toml, if it lists them."""
    try:
        text = open(os.path.join(ROOT, "Cargo.toml"), encoding="utf-8").read()
    except OSError:
        return []
    m = re.search(r"^\s*members\s*=\s*\[(.*?)\]", text, re.S | re.M)
    if not m:
        return []
    body = re.sub(r"#[^\n]*", "", m.group(1))
    return [os.path.join(ROOT, p) for p in re.findall(r'"([^"]+)"', body)]


def crates():
    seen = []
    for d in workspace_members():
        if os.path.exists(os.path.join(d, "Cargo.toml")):
            seen.append(os.path.normpath(d))
    for top in CODE_DIRS:
        base = os.path.join(ROOT, top)
        if not os.path.isdir(base):
            continue
        for d in [base] + [os.path.join(base, n) for n in sorted(os.listdir(base))]:
            d = os.path.normpath(d)
            if os.path.exists(os.path.join(d, "Cargo.toml")) and d not in seen:
                seen.append(d)
    return sorted(seen)


def crate_roots(crate):
    """Each target's root file: the library's, then each binary's."""
    roots = []
    manifest = open(os.path.join(crate, "Cargo.toml"), encoding="utf-8").read()
    section = None
    for line in manifest.splitlines():
        line = line.split("#")[0].strip()
        if line.startswith("["):
            section = line
            continue
        m = re.match(r'path\s*=\s*"([^"]+)"', line)
        if m and section in ("[lib]", "[[bin]]"):
            roots.append(os.path.normpath(os.path.join(crate, m.group(1))))
    for rel in ["src/lib.rs", "src/main.rs"]:
        roots.append(os.path.join(crate, rel))
    bins = os.path.join(crate, "src", "bin")
    if os.path.isdir(bins):
        for name in sorted(os.listdir(bins)):
            p = os.path.join(bins, name)
            if name.endswith(".rs"):
                roots.append(p)
            elif os.path.exists(os.path.join(p, "main.rs")):
                roots.append(os.path.join(p, "main.rs"))
    out = []
    for r in roots:
        if os.path.isfile(r) and r not in out:
            out.append(r)
    return out


# ---------------------------------------------------------------------------- text


def blank(text):
    """`text` with comments and the contents of literals replaced by spaces (newlines
    kept, so offsets and line numbers stay), string quotes kept."""
    out = list(text)
    n = len(text)
    i = 0

    def wipe(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            wipe(i, j)
            i = j
        elif c in "rbc" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'(?:br|cr|r)(#*)"', text[i:])
            if m:
                close = '"' + m.group(1)
                start = i + m.end()
                j = text.find(close, start)
                j = n if j < 0 else j
                wipe(start, j)
                i = j + len(close)
            elif re.match(r'[bc]"', text[i:]):
                i += 1  # the quote is read next as a string
            elif text.startswith("b'", i):
                i += 1  # the quote is read next as a char
            else:
                i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            wipe(i + 1, min(j, n))
            i = j + 1
        elif c == "'":
            # A char literal ('x', '\n', '\u{1F600}'), or a lifetime or label ('a).
            if text.startswith("\\", i + 1):
                j = text.find("'", i + 3)
                j = n if j < 0 else j
                wipe(i + 1, j)
                i = j + 1
            elif i + 2 < n and text[i + 2] == "'":
                wipe(i + 1, i + 2)
                i += 3
            else:
                i += 1
        else:
            i += 1
    return "".join(out)


IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
INLINE_MOD = re.compile(r"\bmod\s+(" + IDENT + r")\s*\{")
FILE_MOD = re.compile(
    r"((?:#\s*\[[^\]]*\]\s*)*)(?:pub\s*(?:\([^)]*\))?\s*)?\bmod\s+(" + IDENT + r")\s*;"
)
PATH_ATTR = re.compile(r'#\s*\[\s*path\s*=\s*"')
VIS_IN = re.compile(r"\bpub\s*\(\s*in\s+[^)]*\)")
USE = re.compile(r"(\bpub\s*(?:\([^)]*\))?\s*)?\buse\s+")
# A path from `crate`, `super` or `self` (not `$crate`, not a field `x.self`).
PATH = re.compile(r"(?<![\w$.:])(crate|super|self)((?:\s*::\s*" + IDENT + r")+)")


def inline_modules(code):
    """(start, end, name) of each inline module's braces in blanked `code`."""
    found, stack, depth = [], [], 0
    opens = {m.end() - 1: m.group(1) for m in INLINE_MOD.finditer(code)}
    for i, c in enumerate(code):
        if c == "{":
            if i in opens:
                stack.append((i, depth, opens[i]))
            depth += 1
        elif c == "}":
            depth -= 1
            if stack and stack[-1][1] == depth:
                start, _, name = stack.pop()
                found.append((start, i + 1, name))
    return found


def scope_at(pos, inlines):
    """The inline modules enclosing `pos`, outermost first."""
    inside = [(s, e, name) for s, e, name in inlines if s < pos < e]
    return tuple(name for _, _, name in sorted(inside))


def parse_use_tree(text, i=0):
    """Parses a use tree from `text[i:]`: ([(segments, alias, is_glob)], end)."""
    leaves = []
    prefix = []
    while True:
        m = re.compile(r"\s*(?:::\s*)?").match(text, i)
        i = m.end()
        if text.startswith("{", i):
            i += 1
            while True:
                i = re.compile(r"\s*").match(text, i).end()
                if i >= len(text) or text[i] == "}":
                    return leaves, i + 1
                before = i
                sub, i = parse_use_tree(text, i)
                if i <= before:
                    return leaves, i
                leaves += [(prefix + s, a, g) for s, a, g in sub]
                i = re.compile(r"\s*,?").match(text, i).end()
        if text.startswith("*", i):
            return [(prefix, None, True)], i + 1
        m = re.compile(r"(\$?" + IDENT + r")").match(text, i)
        if not m:
            return leaves, i
        prefix.append(m.group(1))
        i = m.end()
        if re.compile(r"\s*::").match(text, i):
            continue
        m = re.compile(r"\s+as\s+(" + IDENT + r")").match(text, i)
        alias = None
        if m:
            alias, i = m.group(1), m.end()
        return [(prefix, alias, False)], i


# ---------------------------------------------------------------------------- modules


class Crate:
    """One target's module tree: module path (tuple) -> its file; references per file."""

    def __init__(self, root):
        self.root = root
        self.file_of = {}  # module path (file or inline) -> file
        self.file_module = {}  # file -> its module path
        self.reexports = {}  # module path -> {name its `use`s bring in: absolute path}
        self.refs = {}  # file -> [(absolute path, line)]
        self._load(root, (), os.path.dirname(root))

    def _load(self, path, mod, child_dir):
        if path in self.file_module or not os.path.isfile(path):
            return
        self.file_module[path] = mod
        self.file_of[mod] = path
        raw = open(path, encoding="utf-8").read()
        code = blank(raw)
        inlines = inline_modules(code)
        for s, _, _ in inlines:
            self.file_of[mod + scope_at(s + 1, inlines)] = path
        line_of = _line_index(code)
        # Child files.
        for m in FILE_MOD.finditer(code):
            inner = scope_at(m.start(2), inlines)
            name = m.group(2)
            base = os.path.join(child_dir, *inner)
            attrs = m.group(1) or ""
            pa = PATH_ATTR.search(attrs)
            if pa:
                q = m.start(1) + pa.end()
                target = raw[q : raw.index('"', q)]
                rel_to = base if inner else os.path.dirname(path)
                target = os.path.normpath(os.path.join(rel_to, target))
                sub_dir = os.path.dirname(target)
            else:
                target = os.path.join(base, name + ".rs")
                sub_dir = os.path.join(base, name)
                if not os.path.isfile(target):
                    target = os.path.join(base, name, "mod.rs")
            self._load(target, mod + inner + (name,), sub_dir)
        # References.
        code = VIS_IN.sub(lambda v: " " * len(v.group(0)), code)
        depth, d = [], 0
        for c in code:
            depth.append(d)
            d += 1 if c == "{" else -1 if c == "}" else 0
        refs = []
        for m in USE.finditer(code):
            scope = mod + scope_at(m.start(), inlines)
            leaves, _ = parse_use_tree(code, m.end())
            for segs, alias, glob in leaves:
                absolute = self._absolute(scope, segs)
                if absolute is None:
                    continue
                refs.append((absolute, line_of(m.start())))
                # Every module-level `use` names its items in its module: `pub use` to
                # all, a private one to the module's descendants (`super::X`).
                if not glob and depth[m.start()] == len(scope) - len(mod):
                    named = [x for x in segs if x != "self"]
                    name = alias or (named[-1] if named else None)
                    if name:
                        self.reexports.setdefault(scope, {})[name] = absolute
        for m in PATH.finditer(code):
            scope = mod + scope_at(m.start(), inlines)
            segs = [m.group(1)] + [s.strip() for s in m.group(2).split("::") if s.strip()]
            absolute = self._absolute(scope, segs)
            if absolute is not None:
                refs.append((absolute, line_of(m.start())))
        self.refs[path] = refs

    def _absolute(self, scope, segs):
        """The absolute module path of `segs` as written in `scope` (`a::X` in a `use`: a
        child module `a`); None if it does not start in this crate (an extern crate, a
        macro's `$crate`)."""
        if segs and tuple(scope) + (segs[0],) in self.file_of:
            return tuple(scope) + tuple(s for s in segs if s != "self")
        if not segs or segs[0] not in ("crate", "super", "self"):
            return None
        if segs[0] == "crate":
            base, rest = (), segs[1:]
        else:
            base, rest = scope, segs
            while rest and rest[0] in ("super", "self"):
                if rest[0] == "super":
                    if not base:
                        return None
                    base = base[:-1]
                rest = rest[1:]
        return tuple(base) + tuple(s for s in rest if s != "self")

    def resolve(self, path):
        """The file defining what `path` names: the longest module prefix, through the
        re-exports of the modules on the way."""
        for _ in range(16):
            n = next((k for k in range(len(path), -1, -1) if path[:k] in self.file_of), None)
            if n is None:
                return None
            m, rest = path[:n], path[n:]
            target = self.reexports.get(m, {}).get(rest[0]) if rest else None
            if target is None or target[: len(m)] == m and len(target) <= len(m):
                return self.file_of[m]
            path = target + rest[1:]
        return None


def _line_index(code):
    starts = [0] + [i + 1 for i, c in enumerate(code) if c == "\n"]

    def line_of(pos):
        lo, hi = 0, len(starts)
        while lo + 1 < hi:
            mid = (lo + hi) // 2
            if starts[mid] <= pos:
                lo = mid
            else:
                hi = mid
        return lo + 1

    return line_of


# ---------------------------------------------------------------------------- cycles


def graph_of(crate):
    """file -> {file it imports: the line of the first reference}."""
    graph = {f: {} for f in crate.file_module}
    for f, refs in crate.refs.items():
        mod = crate.file_module[f]
        for path, line in refs:
            target = crate.resolve(path)
            if target is None or target == f:
                continue
            tmod = crate.file_module[target]
            # A child naming its ancestors' items, or a parent its children's, is the
            # module tree, not an import between peers.
            if mod[: len(tmod)] == tmod or tmod[: len(mod)] == mod:
                continue
            graph[f].setdefault(target, line)
    return graph


def strongly_connected(graph):
    """Tarjan's components (iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                out.append(sorted(comp))
    return out


def cycles(graph):
    """Every elementary cycle, each once (starting at its least file), and how many."""
    found, total = [], 0
    for comp in strongly_connected(graph):
        if len(comp) < 2:
            continue
        members = set(comp)
        for s in comp:
            allowed = {m for m in members if m > s}
            stack = [(s, [s], iter(sorted(graph[s])))]
            while stack:
                node, trail, it = stack[-1]
                nxt = next(it, None)
                if nxt is None:
                    stack.pop()
                elif nxt == s:
                    total += 1
                    if len(found) < MAX_REPORTED:
                        found.append(trail)
                elif nxt in allowed and nxt not in trail:
                    stack.append((nxt, trail + [nxt], iter(sorted(graph[nxt]))))
    return found, total


def main():
    verbose = "-v" in sys.argv[1:]
    bad, count = [], 0
    for crate_dir in crates():
        for root in crate_roots(crate_dir):
            crate = Crate(root)
            graph = graph_of(crate)
            found, total = cycles(graph)
            count += total
            for trail in found:
                loop = trail + trail[:1]
                if verbose:
                    steps = [
                        f"{os.path.relpath(a, ROOT)}:{graph[a][b]}" for a, b in zip(loop, loop[1:])
                    ]
                    bad.append(" -> ".join(steps + [os.path.relpath(loop[-1], ROOT)]))
                else:
                    bad.append(" -> ".join(os.path.relpath(f, ROOT) for f in loop))
            if total > len(found):
                where = os.path.relpath(crate_dir, ROOT)
                bad.append(f"... and {total - len(found)} more in {where}")
    for line in bad:
        print(f"import cycle: {line}")
    if count:
        print(f"{count} import cycle(s): a file imports a file that imports it back")
        return 1
    print("import cycles: none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
