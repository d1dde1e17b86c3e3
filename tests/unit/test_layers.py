"""The import structure: no module imports itself back through others (a cycle), and the layer
contract in pyproject.toml holds (``lint-imports`` runs it in .ci/run as well)."""

from __future__ import annotations

import grimp

PACKAGES = ("dp_audit", "auditor", "attacks", "reports", "reference_mechanisms", "dp_params")


def import_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append(
                        (child, iter(sorted(graph.find_modules_directly_imported_by(child))))
                    )
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        cycles.append(sorted(component))
    return cycles


def test_no_import_cycles() -> None:
    graph = grimp.build_graph(*PACKAGES)
    assert import_cycles(graph) == []


def package_graph(graph: grimp.ImportGraph) -> grimp.ImportGraph:
    """The imports between top-level packages."""
    packages = grimp.ImportGraph()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            a, b = module.split(".")[0], imported.split(".")[0]
            if a != b:
                packages.add_import(importer=a, imported=b)
    return packages


def test_no_package_imports_one_that_imports_it_back() -> None:
    """The folders show the layers: the layer contract leaves ``auditor/__init__.py`` out, and a
    package may span several layers (``auditor``: adapters to core), so it cannot see a cycle
    such as ``auditor -> reports -> auditor``, which the shell made until it moved to
    ``dp_audit``."""
    packages = package_graph(grimp.build_graph(*PACKAGES))
    assert import_cycles(packages) == []
    assert packages.find_modules_directly_imported_by("reference_mechanisms") == {"dp_params"}


def test_the_package_graph_finds_a_package_cycle() -> None:
    graph = grimp.ImportGraph()
    for a, b in [("p.shell", "r.html"), ("r.html", "p.core"), ("r.html", "r.plots")]:
        graph.add_import(importer=a, imported=b)
    assert import_cycles(package_graph(graph)) == [["p", "r"]]


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for a, b in [("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d")]:
        graph.add_import(importer=a, imported=b)
    assert import_cycles(graph) == [["p.a", "p.b", "p.c"]]


def test_attacks_read_the_spec_never_the_adapter() -> None:
    """Everything an attack needs is read once into the spec by ``check_adapter``; only the
    engine calls the adapter (``sample``, ``probabilities``, the noiseless probe)."""
    import ast
    from pathlib import Path

    import attacks

    offenders = []
    for path in sorted(Path(attacks.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "adapter":
                offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []
