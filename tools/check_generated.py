#!/usr/bin/env python3
"""Checks that every generated table is what its generator makes today.

Each table in include/snaptok/unicode/generated/ has one generator in tools/.
This script runs the generators side by side, each writing into a temporary
folder, and compares every result byte for byte with the committed file. It
fails naming each file that differs (or whose generator failed) and shows the
first differing lines, so a hand edit, a stale table or a generator change
that was not rerun does not go unnoticed.

The generators need their pinned inputs: tokenizers==0.23.3 and Python 3.11
(in .venv after scripts/setup.sh), and regex==2026.5.9 for the grapheme table.
When the running Python has another `regex` (tiktoken and transformers pull in
a newer one), the pinned one is installed once with pip into
build/generator-pins/ and put first on that generator's path.

Usage: .venv/bin/python tools/check_generated.py [--workers N] [NAME ...]
  NAME: tables.hpp, regex_classes.hpp or grapheme_table.hpp (default: all).
Takes about two minutes on two cores (the tables and the regex classes each
probe tokenizers with every code point).
"""

import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
GENERATED_DIR = os.path.join("include", "snaptok", "unicode", "generated")

# (committed file in GENERATED_DIR, its generator in tools/, takes --workers)
GENERATED = [
    ("tables.hpp", "gen_unicode_tables.py", True),
    ("regex_classes.hpp", "gen_regex_classes.py", True),
    ("grapheme_table.hpp", "gen_grapheme_table.py", False),
]


def pinned_regex_path():
    """Returns a folder to put first on PYTHONPATH so that the pinned `regex`
    is imported ("" when the running Python already has it)."""
    src = open(os.path.join(ROOT, "tools", "gen_grapheme_table.py"), encoding="utf-8").read()
    pinned = re.search(r'^PINNED_REGEX = "([^"]+)"', src, re.M).group(1)
    try:
        import regex
        if regex.__version__ == pinned:
            return ""
    except ImportError:
        pass
    target = os.path.join(ROOT, "build", "generator-pins", f"regex-{pinned}")
    if not os.path.isdir(os.path.join(target, "regex")):
        print(f"installing regex=={pinned} into {os.path.relpath(target, ROOT)}", file=sys.stderr)
        rc = subprocess.call([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                              "--target", target, f"regex=={pinned}"])
        if rc != 0:
            raise SystemExit(f"check_generated: could not install regex=={pinned}, which "
                             f"tools/gen_grapheme_table.py needs (pip exit {rc}); install it "
                             "and rerun")
    return target


def first_difference(committed, regenerated, name, max_lines=24):
    """Returns the first lines of a unified diff of the two texts."""
    diff = difflib.unified_diff(committed.splitlines(), regenerated.splitlines(),
                                f"committed {name}", f"regenerated {name}", n=1, lineterm="")
    lines = []
    for line in diff:
        if len(lines) == max_lines:
            lines.append("...")
            break
        lines.append(line if len(line) <= 160 else line[:160] + "...")
    if not lines:
        return "(the same lines: they differ in line endings or the final newline)"
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="tables to check (default: all)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2,
                    help="processes each probing generator may use")
    args = ap.parse_args()
    known = [name for name, _, _ in GENERATED]
    for name in args.names:
        if name not in known:
            raise SystemExit(f"check_generated: unknown table {name!r} (known: {', '.join(known)})")
    todo = [g for g in GENERATED if not args.names or g[0] in args.names]

    failed = []
    check_start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="snaptok-generated-") as tmp:
        running = {}  # pid -> (name, generator, out, log, start)
        for name, generator, takes_workers in todo:
            out = os.path.join(tmp, name)
            cmd = [sys.executable, os.path.join(ROOT, "tools", generator), "--out", out]
            if takes_workers:
                cmd += ["--workers", str(args.workers)]
            env = dict(os.environ)
            if generator == "gen_grapheme_table.py":
                pins = pinned_regex_path()
                if pins:
                    env["PYTHONPATH"] = os.pathsep.join(
                        p for p in (pins, env.get("PYTHONPATH", "")) if p)
            log = open(os.path.join(tmp, name + ".log"), "w+", encoding="utf-8")
            proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
            running[proc.pid] = (name, generator, out, log, time.monotonic())
        while running:
            # Whichever generator ends first; wait4 also gives the CPU time
            # of the generator and its pool workers.
            pid, status, usage = os.wait4(-1, 0)
            if pid not in running:
                continue
            name, generator, out, log, start = running.pop(pid)
            rc = os.waitstatus_to_exitcode(status)
            took = (f"{time.monotonic() - start:.0f} s, "
                    f"{usage.ru_utime + usage.ru_stime:.0f} s CPU")
            committed_path = os.path.join(GENERATED_DIR, name)
            if rc != 0:
                log.seek(0)
                tail = "".join(log.readlines()[-15:])
                print(f"FAILED  {committed_path}: tools/{generator} exited {rc} "
                      f"after {took}:\n{tail}", flush=True)
                failed.append(committed_path)
                continue
            with open(os.path.join(ROOT, committed_path), encoding="utf-8", newline="") as fh:
                committed = fh.read()
            with open(out, encoding="utf-8", newline="") as fh:
                regenerated = fh.read()
            if committed == regenerated:
                print(f"ok      {committed_path} (tools/{generator}, {took})", flush=True)
                continue
            print(f"DIFFERS {committed_path}: tools/{generator} makes another file "
                  f"({took}); rerun it (python tools/{generator}) or revert "
                  f"the edit. First differences:\n"
                  f"{first_difference(committed, regenerated, name)}", flush=True)
            failed.append(committed_path)
    if failed:
        print(f"check_generated: {len(failed)} of {len(todo)} generated tables differ "
              f"from what their generators make now, or a generator failed: "
              f"{', '.join(failed)}", file=sys.stderr)
        return 1
    print(f"check_generated: {len(todo)} generated tables match their generators "
          f"({time.monotonic() - check_start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
