"""Compare, byte for byte, the code srcad emits for the whole test suite before and after
a change.

Every rule srcad compiles is registered in `linecache` under a name starting `<srcad `
(so that tracebacks show it; `docs/architecture.md`, "Emit"). Run as a pytest plugin, this
module records each such text as it is registered, per test, and writes them all to a JSON
file at the end of the run. Two recordings are then compared: the texts only one of them
emitted are printed as unified diffs against the nearest text of the other, under the
test that emitted them.

    # record the current checkout
    python tools/emitted_text.py record after.json [pytest arguments]
    # record another commit (checked out in a temporary worktree with its own venv)
    python tools/emitted_text.py record-commit main before.json [pytest arguments]
    # compare: exit status 1 when they differ
    python tools/emitted_text.py compare before.json after.json
    # all three at once, against a commit
    python tools/emitted_text.py against main [pytest arguments]

A refactoring that must keep behaviour keeps every emitted text; one that changes some on
purpose shows exactly which, and nothing else.
"""

from __future__ import annotations

import argparse
import difflib
import json
import linecache
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any, ClassVar

PREFIX = "<srcad "
RECORDING = "SRCAD_RECORD_EMITTED"  # the JSON file the plugin writes, when set
ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------- the pytest plugin


class _RecordingCache(dict):  # type: ignore[type-arg]
    """`linecache.cache`, noting every emitted text registered in it."""

    current: ClassVar[str] = "<collection>"  # the test running
    texts: ClassVar[defaultdict[str, list[str]]] = defaultdict(list)

    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(key, str) and key.startswith(PREFIX):
            self.texts[self.current].append("".join(value[2]))
        super().__setitem__(key, value)


def pytest_configure(config: Any) -> None:
    if os.environ.get(RECORDING):
        linecache.cache = _RecordingCache(linecache.cache)


def pytest_runtest_setup(item: Any) -> None:
    _RecordingCache.current = item.nodeid


def pytest_unconfigure(config: Any) -> None:
    path = os.environ.get(RECORDING)
    if path:
        texts = {test: sorted(found) for test, found in _RecordingCache.texts.items()}
        Path(path).write_text(json.dumps(texts, indent=0, sort_keys=True))


# ---------------------------------------------------------------- the command line


def record(out: Path, pytest_args: list[str], root: Path = ROOT, python: str = "") -> None:
    """Run the test suite of the checkout at `root`, with this plugin, recording to `out`."""
    env = dict(os.environ, PYTHONSAFEPATH="1", PYTHONPATH=str(Path(__file__).parent))
    env[RECORDING] = str(out.resolve())
    python = python or sys.executable
    command = [python, "-m", "pytest", "-p", "emitted_text", "-p", "no:cacheprovider",
               *pytest_args]  # fmt: skip
    # The suite may fail; the comparison still says what it emitted until then.
    subprocess.run(command, cwd=root, env=env, check=False)


def record_commit(commit: str, out: Path, pytest_args: list[str]) -> None:
    """Record the suite of `commit`, in a temporary worktree with its own editable install
    (an editable install maps `srcad.rules` to the checkout it was made from)."""
    with tempfile.TemporaryDirectory(prefix="srcad-emitted-") as folder:
        tree = Path(folder) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), commit],
                       cwd=ROOT, check=True)  # fmt: skip
        try:
            venv = tree / ".venv"
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "-e", f"{tree}[test]"],
                           check=True)  # fmt: skip
            record(out, pytest_args, tree, str(venv / "bin" / "python"))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT,
                           check=False)  # fmt: skip


# The registry's version, which entry code tests: it counts the rule registrations made
# before, so it shifts with the tests a run holds (`--any-registry-version`).
_REGISTRY_VERSION = re.compile(r"REGISTRY\.version == \d+")


def compare(
    before_path: Path, after_path: Path, limit: int = 20, any_registry_version: bool = False
) -> int:
    """Print what differs between two recordings; 0 when every emitted text is the same.
    A test only the later recording has is counted, not diffed (its nearest text among
    thousands takes minutes to find)."""
    before: dict[str, list[str]] = json.loads(before_path.read_text())
    after: dict[str, list[str]] = json.loads(after_path.read_text())
    if any_registry_version:
        for recording in (before, after):
            for test, texts in recording.items():
                recording[test] = [_REGISTRY_VERSION.sub("REGISTRY.version == N", t) for t in texts]
    old = {text for texts in before.values() for text in texts}
    new = {text for texts in after.values() for text in texts}
    print(f"before: {len(old)} distinct texts from {len(before)} tests; "
          f"after: {len(new)} from {len(after)} tests")  # fmt: skip
    # A test run alone may emit what a whole run emitted in an earlier test (compiled rules
    # are cached): texts are compared across the whole recording, tests only to say where.
    print(f"tests only before: {len(set(before) - set(after))}, "
          f"only after: {len(set(after) - set(before))}")  # fmt: skip
    changed = 0
    for test in sorted(set(before) | set(after)):
        if test not in after:
            continue
        gone = [t for t in before.get(test, []) if t not in new]
        came = [t for t in after[test] if t not in old]
        if test not in before:
            if came:
                changed += len(came)
                print(f"\n== {test}: a new test, {len(came)} new text(s)")
            continue
        for text in came:
            changed += 1
            if changed > limit:
                continue
            candidates = gone or before[test]
            nearest = difflib.get_close_matches(text, candidates, n=1, cutoff=0)
            print(f"\n== {test}")
            print("".join(difflib.unified_diff(
                (nearest[0] if nearest else "").splitlines(True), text.splitlines(True),
                "before", "after",
            )))  # fmt: skip
        if not came and gone:
            changed += len(gone)
            print(f"\n== {test}: {len(gone)} text(s) no longer emitted")
    if changed > limit:
        print(f"\n... and {changed - limit} more")
    print(f"\n{changed} text(s) differ" if changed else "\nevery emitted text is the same")
    return 1 if changed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    mine = commands.add_parser("record", help="record this checkout's test suite")
    mine.add_argument("out", type=Path)
    other = commands.add_parser("record-commit", help="record another commit's test suite")
    other.add_argument("commit")
    other.add_argument("out", type=Path)
    both = commands.add_parser("compare", help="compare two recordings")
    both.add_argument("before", type=Path)
    both.add_argument("after", type=Path)
    both.add_argument("--limit", type=int, default=20, help="diffs to print at most")
    both.add_argument("--any-registry-version", action="store_true",
                      help="read `REGISTRY.version == N` in entry code as any N")  # fmt: skip
    against = commands.add_parser("against", help="record a commit and this checkout, compare")
    against.add_argument("commit")
    args, pytest_args = parser.parse_known_args(argv)
    if args.command == "record":
        record(args.out, pytest_args)
    elif args.command == "record-commit":
        record_commit(args.commit, args.out, pytest_args)
    elif args.command == "compare":
        return compare(args.before, args.after, args.limit, args.any_registry_version)
    else:
        with tempfile.TemporaryDirectory(prefix="srcad-emitted-") as folder:
            before, after = Path(folder) / "before.json", Path(folder) / "after.json"
            record_commit(args.commit, before, pytest_args)
            record(after, pytest_args)
            return compare(before, after)
    return 0


if __name__ == "__main__":
    sys.exit(main())
