"""The house rules of docs/architecture.md that the source tree itself can show, each read from the files as a
newcomer's clone has them, and each beside a check that it sees a planted bad sample.

Product code is every .py and .html file of the repository but tests/, bench/, .venv and migrations; the issue and
specification numbers are looked for in its scripts and style sheets and in its Markdown (README.md, docs/) too.
"""
from __future__ import annotations

import ast
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOT_PRODUCT = {"tests", "bench", ".venv", "migrations", "node_modules", ".git"}

# A clone has neither the issues nor the specification: a comment that cites one sends its reader nowhere.
REFERENCE = re.compile(r"issue \d+|SPEC \d")

# SQL written by hand lives in pooling/bulk.py (COPY, and the few bulk statements the ORM cannot say) and in the job
# runner (its advisory locks and the heartbeat it writes on a connection of its own). Elsewhere, read-only SQL the
# ORM cannot express, function by function, and why.
SQL_HOMES = ("pooling/bulk.py", "jobs/")
SQL_ALLOWED = {
    ("pooling/selectors.py", "run_contributions_compute"): "read-only: each item's runs from its JSON provenance "
                                                           "(jsonb_array_elements / json_each), counted by a window",
    ("pooling/ranking.py", "_fetch"): "read-only: each run's entries cut per topic at their positions, ROW_NUMBER over "
                                      "a UNION ALL of positioned and numbered runs, bytewise collation, streamed "
                                      "with fetchmany",
    ("pooling/services/runs.py", "_rank_disorder_in_database"): "read-only: each topic's first rank that scores "
                                                                "higher than the rank before it, a LAG window "
                                                                "filtered then grouped, which the ORM cannot "
                                                                "aggregate over",
}
SQL_CALLS = {"cursor", "execute", "executemany", "raw", "extra", "copy_expert", "copy_from", "RawSQL"}

MAX_APP_LINES = 5000


def product_files(root: Path, suffixes: tuple[str, ...] = (".py",)) -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in NOT_PRODUCT and not d.startswith(".")]
        found += [Path(folder) / name for name in files if name.endswith(suffixes)]
    return sorted(found)


def references(root: Path = ROOT) -> list[str]:
    """Lines of product code that cite an issue or a section of the specification by number."""
    found = []
    for path in product_files(root, (".py", ".html", ".md", ".js", ".css")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if REFERENCE.search(line):
                found.append(f"{path.relative_to(root)}:{n}: {line.strip()[:100]}")
    return found


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def private_imports(root: Path = ROOT) -> list[str]:
    """Uses of another product module's private name (a leading underscore): `from x import _y`, and `x._y` where x
    names a product module. A name that other modules need is public, or the code moves to where it is used."""
    files = product_files(root)
    modules = {module_name(root, p): p for p in files}
    found = []
    for path in files:
        me = module_name(root, path)
        package = me if path.name == "__init__.py" else me.rpartition(".")[0]
        bound: dict[str, str] = {}  # local name -> the product module it names
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*up, base] if base else up)
                for alias in node.names:
                    if base in modules and base != me and alias.name.startswith("_") \
                            and not alias.name.startswith("__"):
                        found.append(f"{path.relative_to(root)}:{node.lineno}: imports {alias.name} from {base}")
                    if f"{base}.{alias.name}" in modules:
                        bound[alias.asname or alias.name] = f"{base}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname and alias.name in modules:
                        bound[alias.asname] = alias.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                target = _dotted(node.value, bound)
                if target in modules and target != me:
                    found.append(f"{path.relative_to(root)}:{node.lineno}: uses {target}.{node.attr}")
    return found


def _dotted(node: ast.expr, bound: dict[str, str]) -> str | None:
    """The module an expression names (`jobs`, `pooling.services.pools`), through the file's imports."""
    if isinstance(node, ast.Name):
        return bound.get(node.id, node.id)
    if isinstance(node, ast.Attribute):
        left = _dotted(node.value, bound)
        return None if left is None else f"{left}.{node.attr}"
    return None


def raw_sql(root: Path = ROOT, allowed: dict[tuple[str, str], str] | None = None) -> list[str]:
    """Calls that send SQL written by hand (a cursor, execute, raw, RawSQL, extra, COPY) outside the homes of SQL
    and the functions allowed."""
    allowed = SQL_ALLOWED if allowed is None else allowed
    found = []
    for path in product_files(root):
        where = path.relative_to(root).as_posix()
        if where.startswith(SQL_HOMES):
            continue
        for function, node in _calls(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name not in SQL_CALLS or (where, function) in allowed:
                continue
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call) \
                    and isinstance(func.value.func, ast.Name) and func.value.func.id == "super":
                continue  # super().execute(): a management command's, not SQL
            found.append(f"{where}:{node.lineno}: {name}() in {function or 'the module'}")
    return found


def _calls(tree: ast.AST, function: str = ""):
    """Every call with the name of the innermost function (or method) around it."""
    for child in ast.iter_child_nodes(tree):
        inner = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else function
        if isinstance(child, ast.Call):
            yield function, child
        yield from _calls(child, inner)


def routers(root: Path = ROOT) -> list[str]:
    """The modules that build a DRF router: a call of a class from rest_framework.routers."""
    found = set()
    for path in product_files(root):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        classes, modules = set(), set()  # names bound to the router classes, and to the module
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "rest_framework.routers":
                classes |= {alias.asname or alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module == "rest_framework":
                modules |= {alias.asname or alias.name for alias in node.names if alias.name == "routers"}
            elif isinstance(node, ast.Import):
                modules |= {alias.asname or alias.name for alias in node.names
                            if alias.name == "rest_framework.routers"}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and (isinstance(node.func, ast.Name) and node.func.id in classes
                                               or isinstance(node.func, ast.Attribute)
                                               and _dotted(node.func.value, {}) in modules):
                found.add(path.relative_to(root).as_posix())
    return sorted(found)


def app_sizes(root: Path = ROOT) -> dict[str, int]:
    """Lines of Python, migrations left out, of each Django app (a folder with an apps.py)."""
    return {app.parent.name: sum(len(p.read_text(encoding="utf-8").splitlines()) for p in app.parent.rglob("*.py")
                                 if "migrations" not in p.relative_to(app.parent).parts)
            for app in sorted(root.glob("*/apps.py"))}


def test_product_code_cites_docs_not_issue_or_spec_numbers():
    assert references() == []


def test_the_reference_check_sees_an_issue_number_in_code_and_a_template(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "views.py").write_text('"""The page (issue 26, point 7)."""\n# docs/judging.md\n')
    (tmp_path / "app" / "page.html").write_text("{# SPEC 5.2 #}\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_page.py").write_text("# issue 26: tests may say it\n")
    assert references(tmp_path) == ["app/page.html:1: {# SPEC 5.2 #}", 'app/views.py:1: """The page (issue 26, '
                                                                        'point 7)."""']


def test_no_module_imports_another_modules_private_name():
    assert private_imports() == []


def test_the_private_name_check_sees_an_import_and_an_attribute(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "__init__.py").write_text("")
    (tmp_path / "a" / "low.py").write_text("def _helper():\n    pass\n\n\ndef own():\n    return _helper()\n")
    (tmp_path / "a" / "high.py").write_text("from a.low import _helper\nfrom django.utils.functional import _x\n")
    (tmp_path / "a" / "late.py").write_text("def f():\n    from a import low\n    return low._helper, low.own\n")
    (tmp_path / "a" / "near.py").write_text("from .low import _helper\n")
    assert private_imports(tmp_path) == ["a/high.py:1: imports _helper from a.low", "a/late.py:3: uses a.low._helper",
                                         "a/near.py:1: imports _helper from a.low"]


def test_raw_sql_is_only_in_the_bulk_module_the_job_runner_and_the_reads_allowed():
    assert raw_sql() == []
    for (path, function), reason in SQL_ALLOWED.items():  # an allowance outlives nothing: its function is there
        assert f"def {function}(" in (ROOT / path).read_text(encoding="utf-8"), (path, function, reason)


def test_the_raw_sql_check_sees_a_cursor_raw_and_extra_outside_their_homes(tmp_path):
    (tmp_path / "pooling").mkdir()
    (tmp_path / "pooling" / "bulk.py").write_text("def load(c):\n    c.cursor().execute('COPY')\n")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "services.py").write_text(
        "from django.db import connection\n\n\ndef wipe():\n    with connection.cursor() as c:\n"
        "        c.execute('DELETE FROM t')\n\n\ndef read(q):\n    return q.raw('SELECT 1'), q.extra(where=['1'])\n\n\n"
        "def allowed():\n    connection.cursor()\n")
    (tmp_path / "app" / "command.py").write_text("class C:\n    def execute(self):\n        return super().execute()\n")
    assert raw_sql(tmp_path, allowed={("app/services.py", "allowed"): "a read"}) == [
        "app/services.py:5: cursor() in wipe", "app/services.py:6: execute() in wipe",
        "app/services.py:10: raw() in read", "app/services.py:10: extra() in read"]


def test_one_module_builds_the_api_router():
    assert routers() == ["config/api_urls.py"]


def test_the_router_check_sees_a_second_router(tmp_path):
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "api_urls.py").write_text("from rest_framework.routers import DefaultRouter\n"
                                                     "router = DefaultRouter()\n")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "urls.py").write_text("from rest_framework import routers\nr = routers.SimpleRouter()\n")
    assert routers(tmp_path) == ["app/urls.py", "config/api_urls.py"]


def test_no_app_is_over_5000_lines_of_python():
    assert {app: n for app, n in app_sizes().items() if n > MAX_APP_LINES} == {}


def test_the_app_size_check_counts_an_apps_python_but_its_migrations(tmp_path):
    app = tmp_path / "big"
    (app / "migrations").mkdir(parents=True)
    (app / "apps.py").write_text("x = 1\n")
    (app / "models.py").write_text("y = 2\n" * (MAX_APP_LINES + 1))
    (app / "migrations" / "0001_initial.py").write_text("z = 3\n" * 9000)
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "code.py").write_text("w = 4\n" * 9000)  # no apps.py: not an app
    assert app_sizes(tmp_path) == {"big": MAX_APP_LINES + 2}
