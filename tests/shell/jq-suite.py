"""jq 1.7.1's own test suite (`tests/jq.test` in jq's source) against a jq: how many of its
tests give the expected values.

    python3 tests/shell/jq-suite.py [--suite FILE] [--verbose] -- COMMAND...

COMMAND runs one test: it gets the test's program as its last argument and the test's input
on standard input, and prints the results one per line, e.g.

    python3 tests/shell/jq-suite.py -- jq -c
    python3 tests/shell/jq-suite.py -- computer --memory sh -c 'jq -c "$1"' jq

Without `--suite`, the suite is taken from the source of PyPI's `jq` 1.8.0 (it bundles jq
1.7.1's), which pip downloads into a temporary directory; nothing of it is kept.

A test passes as `jq --run-tests` passes it: the results, read as JSON, equal the expected
values (numbers compared as numbers), and an uncaught error after them (status 5) is not
seen; a `%%FAIL` test passes when the program does not compile
(exit status 3) with the expected first line of the message (any, for `%%FAIL IGNORE MSG`).
A test that gives no answer in 10 seconds fails.
"""

import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path


def fetch_suite(workdir):
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
         "--dest", workdir, "jq==1.8.0"],
        check=True,
    )
    with tarfile.open(Path(workdir) / "jq-1.8.0.tar.gz") as outer:
        inner = outer.extractfile("jq-1.8.0/deps/jq-1.7.1.tar.gz")
        with tarfile.open(fileobj=inner) as source:
            return source.extractfile("jq-1.7.1/tests/jq.test").read().decode()


def parse(text):
    lines = text.split("\n")
    tests, i = [], 0
    while True:
        while i < len(lines) and (not lines[i].strip() or lines[i].startswith("#")):
            i += 1
        if i >= len(lines):
            return tests
        start = i + 1
        if lines[i].startswith("%%FAIL"):
            ignore = "IGNORE MSG" in lines[i]
            program = lines[i + 1]
            i += 2
            expected = []
            while i < len(lines) and lines[i].strip():
                expected.append(lines[i])
                i += 1
            tests.append({"line": start, "fail": True, "program": program,
                          "message": expected[:1], "ignore": ignore})
            continue
        program, given = lines[i], lines[i + 1]
        i += 2
        expected = []
        # As jq's reader of the suite: a blank line or a comment ends the expected values.
        while i < len(lines) and lines[i].strip() and not lines[i].lstrip().startswith("#"):
            expected.append(lines[i])
            i += 1
        tests.append({"line": start, "fail": False, "program": program, "input": given,
                      "expected": expected})


def value(text):
    try:
        return json.loads(text, parse_int=float, parse_float=float)
    except ValueError:
        return ("not JSON", text)


def passes(test, ran):
    if test["fail"]:
        return ran.returncode == 3 and (
            test["ignore"] or all(m in ran.stderr for m in test["message"]))
    got = [line for line in ran.stdout.split("\n") if line.strip()]
    # `jq --run-tests` takes no more values than expected: an error after them is not seen.
    return ran.returncode in (0, 5) and [value(g) for g in got] == [value(e) for e in test["expected"]]


def main(argv):
    if "--" not in argv:
        sys.exit(__doc__)
    options, command = argv[: argv.index("--")], argv[argv.index("--") + 1 :]
    verbose = "--verbose" in options
    if "--suite" in options:
        text = Path(options[options.index("--suite") + 1]).read_text()
    else:
        with tempfile.TemporaryDirectory() as workdir:
            text = fetch_suite(workdir)
    tests = parse(text)
    passed = 0
    for test in tests:
        try:
            ran = subprocess.run(command + [test["program"]], input=test.get("input", ""),
                                 capture_output=True, text=True, errors="replace", timeout=10)
        except subprocess.TimeoutExpired:
            if verbose:
                print(f"line {test['line']}: {test['program']!r}: no answer in 10 s")
            continue
        if passes(test, ran):
            passed += 1
        elif verbose:
            print(f"line {test['line']}: {test['program']!r}: status {ran.returncode}, "
                  f"{ran.stdout[:200]!r} {ran.stderr[:200]!r}")
    print(f"{passed} of {len(tests)} tests pass ({100 * passed / len(tests):.1f}%)")


if __name__ == "__main__":
    main(sys.argv[1:])
