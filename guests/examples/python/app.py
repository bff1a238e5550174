"""An example guest in Python: summarises the text files of a workspace folder.

It uses plain `open()` and `os.listdir()` on the workspace (through wasi:filesystem) and our
own imports (`computer:host/workspace`, `computer:host/exec`).

Build:  componentize-py -d ../../../wit -w computer:host/guest componentize app -o app.wasm
Run:    computer run app.wasm -- /workspace/notes
"""

import os
import sys

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports import exec, workspace


class Run(exports.Run):
    def run(self) -> None:
        folder = sys.argv[1] if len(sys.argv) > 1 else "/workspace"
        lines = []
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if os.path.isfile(path) and name.endswith(".txt"):
                with open(path) as f:
                    count = len(f.read().splitlines())
                lines.append(f"- {name}: {count} lines")
                print(f"{name}: {count} lines")
        with open(os.path.join(folder, "SUMMARY.md"), "w") as f:
            f.write("# Summary\n" + "\n".join(lines) + "\n")
        print(f"revision: {workspace.revision()}")
        cmd = exec.Command(
            argv=["python3", "--version"],
            source=None,
            cwd=None,
            env=[],
            stdin=None,
            backend=None,
            timeout_ms=5000,
        )
        try:
            out = exec.run(cmd)
            print("exec:", bytes(out.stdout).decode(errors="replace").strip())
        except Err as e:
            print("exec: not-found" if isinstance(e.value, exec.Error_NotFound) else f"exec: {e.value}")
