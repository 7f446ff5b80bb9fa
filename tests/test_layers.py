"""The package's layering: imports run downward only, with no loop anywhere.

Every import in ``src/bpe_stream`` (at module level and inside functions alike) is read
with ``ast``; a module may import from its own layer or a lower one, never from a higher
one, and the import graph has no cycle.  The prepend engine (``stream/front``) is
imported by the prependable counter only.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "bpe_stream"

# Lowest first; a module's layer is its first package below bpe_stream.
LAYERS = ["_version", "_moved", "_native", "bpe", "pretokenize", "text", "encoding", "stream", "chunk", "training",
          "integrations", "cli"]
TOP = len(LAYERS)  # bpe_stream/__init__.py, __main__.py, _legacy.py


def module_name(path: Path, src: Path = SRC) -> str:
    parts = list(path.relative_to(src.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer(module: str) -> int:
    parts = module.split(".")
    if len(parts) == 1:  # bpe_stream itself
        return TOP
    head = parts[1]
    if head in LAYERS:
        return LAYERS.index(head)
    if head in ("__main__", "_legacy"):
        return TOP
    raise AssertionError(f"{module} is in no layer; add its package to LAYERS")


def _type_checking_only(node: ast.AST, parents: dict) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def imports_of(path: Path, src: Path = SRC) -> list[tuple[str, int]]:
    """``(imported module, line)`` for every import of the package in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    me = module_name(path, src)
    package = me if path.name == "__init__.py" else me.rsplit(".", 1)[0]
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)) or _type_checking_only(node, parents):
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("bpe_stream"):
                continue
            # "from .pkg import module" imports the module pkg.module
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if (src.parent / Path(*sub.split("."))).with_suffix(".py").exists() or (
                    src.parent / Path(*sub.split("."))
                ).is_dir():
                    out.append((sub, node.lineno))
                else:
                    out.append((target, node.lineno))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("bpe_stream"):
                    out.append((alias.name, node.lineno))
    return out


@functools.lru_cache(maxsize=None)
def package_graph(src: Path = SRC) -> dict[str, list[tuple[str, int]]]:
    return {module_name(p, src): imports_of(p, src) for p in sorted(src.rglob("*.py"))}


def upward_imports(graph) -> list[str]:
    return [f"{module}:{line} imports {target}"
            for module, imports in graph.items() for target, line in imports
            if layer(target) > layer(module)]


def import_loops(graph) -> list[str]:
    edges = {m: sorted({t for t, _ in imps if t != m}) for m, imps in graph.items()}
    state: dict[str, int] = {}
    stack: list[str] = []
    loops: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for t in edges.get(m, []):
            if state.get(t) == 1:
                loops.append(" -> ".join(stack[stack.index(t):] + [t]))
            elif t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in edges:
        if m not in state:
            visit(m)
    return loops


def test_every_module_is_in_a_layer():
    for module in package_graph():
        layer(module)


def test_imports_run_downward_only():
    upward = upward_imports(package_graph())
    assert not upward, "\n".join(upward)


def test_no_import_loop():
    loops = import_loops(package_graph())
    assert not loops, "\n".join(loops)


def test_the_prepend_engine_is_reached_through_the_prependable_only():
    outside = []
    for module, imports in package_graph().items():
        if module.startswith("bpe_stream.stream.front") or module == "bpe_stream.stream.prependable":
            continue
        for target, line in imports:
            if target.startswith("bpe_stream.stream.front"):
                outside.append(f"{module}:{line} imports {target}")
    assert not outside, "\n".join(outside)


def test_the_checks_find_late_upward_imports_and_loops(tmp_path):
    # the checks must be able to fail: a package with a late upward import and a loop
    src = tmp_path / "bpe_stream"
    for d in ("bpe", "chunk"):
        (src / d).mkdir(parents=True)
        (src / d / "__init__.py").write_text("")
    (src / "__init__.py").write_text("")
    (src / "bpe" / "a.py").write_text("def f():\n    from ..chunk import chunker\n")
    (src / "bpe" / "b.py").write_text("from . import c\n")
    (src / "bpe" / "c.py").write_text("def g():\n    from .b import x\n")
    (src / "chunk" / "chunker.py").write_text("from ..bpe import a\n")
    graph = package_graph(src)
    assert upward_imports(graph) == ["bpe_stream.bpe.a:2 imports bpe_stream.chunk.chunker"]
    loops = import_loops(graph)
    assert any("bpe_stream.bpe.b -> bpe_stream.bpe.c -> bpe_stream.bpe.b" in loop for loop in loops), loops
