# Run by the interpreter's prelude, with `_SOURCE` (python_net.py, in base64) in its globals:
# when `http.client` is imported, it is patched to send through the host (see python_net.py),
# whose source is compiled only then.
import sys


def _patch(module):
    import binascii

    code = compile(binascii.a2b_base64(_SOURCE), "<computer net>", "exec")
    space = {"__name__": "_computer_net"}
    exec(code, space)
    space["patch"](module)


class _Patching:
    """A loader that runs `http.client` and then patches it."""

    def __init__(self, inner):
        self._inner = inner

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        self._inner.exec_module(module)
        _patch(module)

    def __getattr__(self, name):
        return getattr(self._inner, name)


class _NetHook:
    """Finds `http.client` as the path finder does, with a loader that patches it."""

    def __init__(self, path_finder):
        self._path_finder = path_finder

    def find_spec(self, name, path=None, target=None):
        if name != "http.client":
            return None
        spec = self._path_finder.find_spec(name, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _Patching(spec.loader)
        return spec


if "http.client" in sys.modules:
    _patch(sys.modules["http.client"])
else:
    # Just before the path finder: built-in and frozen modules never meet the hook.
    _at = [getattr(f, "__name__", "") for f in sys.meta_path] + ["PathFinder"]
    _at = _at.index("PathFinder")
    if _at < len(sys.meta_path):
        sys.meta_path.insert(_at, _NetHook(sys.meta_path[_at]))
    else:
        from importlib.machinery import PathFinder

        sys.meta_path.insert(0, _NetHook(PathFinder))
