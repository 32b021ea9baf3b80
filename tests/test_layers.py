"""The arrows of docs/architecture.md: an app imports only the layers below it, and ir imports no Django.

Every import counts, those inside functions and `if TYPE_CHECKING:` blocks too: a late import is still an arrow.
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Lowest first. An app may import the apps of lower layers, never one of its own layer or above.
LAYERS = [("ir",), ("core",), ("pooling", "people"), ("jobs",), ("llm",), ("judging",),
          ("agreement", "characterisation"), ("nuggets",), ("evaluation",), ("simulation",), ("workflow",)]
LAYER = {app: n for n, apps in enumerate(LAYERS) for app in apps}
# ir is plain Python: none of these, so that it runs and is tested without a database or settings.
FRAMEWORKS = {"django", "rest_framework", "drf_spectacular", "celery", "axes", "config"}


def imported(path: Path) -> list[tuple[int, str]]:
    """The top-level package of every absolute import in the file, with its line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    return found


def wrong_arrows() -> list[str]:
    wrong = []
    for app, layer in LAYER.items():
        for path in sorted((ROOT / app).rglob("*.py")):
            for line, package in imported(path):
                where = f"{path.relative_to(ROOT)}:{line}"
                if package in LAYER and package != app and LAYER[package] >= layer:
                    wrong.append(f"{where}: {app} imports {package}, which is not below it")
                if app == "ir" and package in FRAMEWORKS:
                    wrong.append(f"{where}: ir imports {package}")
    return wrong


def test_every_app_imports_only_the_layers_below_it():
    assert wrong_arrows() == []


def test_the_check_sees_an_upward_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def late():\n    from workflow import jobs\n    import django.db\n")
    assert imported(sample) == [(2, "workflow"), (3, "django")]
