"""The layers of docs/architecture.md, checked on the source: core/ is pure, all SQL lives in
store/, store/ and the session hook stay light enough for the hook's hot path, the floors of
service/ and config/ import only downward, and no two files import each other. A feature kept
in one package across floors (``FEATURES``) has each module held to its floor's rules.

It runs past 400 lines because every layering rule is checked here, so one file answers
"what may import what"."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "deskd"

CORE_BANNED_IMPORTS = {
    "sqlite3", "subprocess", "apprise", "filelock", "pydantic", "pydantic_settings",
    "tenacity", "click", "fastapi", "socket", "urllib", "http", "requests", "httpx",
}  # fmt: skip
CLOCK_CALLS = {
    ("time", "time"), ("time", "time_ns"), ("time", "monotonic"), ("time", "monotonic_ns"),
    ("time", "perf_counter"), ("time", "localtime"), ("time", "gmtime"), ("time", "sleep"),
    ("datetime", "now"), ("datetime", "utcnow"), ("datetime", "today"), ("date", "today"),
}  # fmt: skip
SQL = [
    re.compile(r"\bSELECT\b[\s\S]*?\bFROM\b"),
    re.compile(r"\bINSERT\s+(OR\s+\w+\s+)?INTO\b"),
    re.compile(r"\bUPDATE\s+\w+\s+SET\b"),
    re.compile(r"\bDELETE\s+FROM\b"),
    re.compile(r"\bCREATE\s+(TABLE|INDEX|UNIQUE\s+INDEX|TRIGGER|VIEW)\b"),
]
SQL_ANY_CASE = [re.compile(p.pattern, re.IGNORECASE) for p in SQL]


def _modules(folder: str) -> list[Path]:
    root = SRC / folder
    return sorted(root.rglob("*.py")) if root.is_dir() else []


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _imports(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Every imported module name (absolute), with its line; function-local imports too."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module
            for alias in node.names:
                yield node.lineno, f"{node.module}.{alias.name}"


def _top(name: str) -> str:
    return name.split(".")[0]


def _rel(path: Path) -> str:
    return str(path.relative_to(SRC.parent))


def _ids(paths: list[Path]) -> list[str]:
    return [_rel(p) for p in paths]


# A feature that spans floors lives in one package of its own (its __init__ docstring says
# what it is); each of its modules sits on one floor and is checked as if it were in that
# floor's folder: "core" pure, "store" holding its SQL, "adapters" below the services,
# "service/<floor>" in that floor of service/.
FEATURES = {
    "relay/server.py": "adapters",
    "relay/start.py": "service/engine",
    "routing/rules.py": "core",
    "routing/store.py": "store",
    "routing/service.py": "service/engine",
    "schedule/rules.py": "core",
    "schedule/service.py": "service/ops",
    "schedule/status.py": "service/ops",
}


def _on_floor(floor: str) -> list[Path]:
    return [SRC / p for p, f in FEATURES.items() if f.split("/")[0] == floor]


def _dotted(path: str) -> str:
    return "deskd." + path.removesuffix(".py").replace("/", ".")


def _feature_floor(name: str) -> str | None:
    """The floor of the feature module a dotted import name lands in, or None."""
    for path, floor in FEATURES.items():
        module = _dotted(path)
        if name == module or name.startswith(module + "."):
            return floor
    return None


def test_it_puts_every_module_of_a_feature_on_a_floor() -> None:
    for package in {p.split("/")[0] for p in FEATURES}:
        found = {str(p.relative_to(SRC)) for p in (SRC / package).glob("*.py")}
        assert found - {f"{package}/__init__.py"} == {p for p in FEATURES if p.startswith(package)}
        init = _tree(SRC / package / "__init__.py")
        assert ast.get_docstring(init), f"{package}/__init__.py: say what the feature is"
        assert list(_imports(init)) == [], f"{package}/__init__.py imports: keep it a README"


@pytest.mark.parametrize("path", _on_floor("adapters"), ids=_ids(_on_floor("adapters")))
def test_it_keeps_a_feature_adapter_below_the_services(path: Path) -> None:
    for line, name in _imports(_tree(path)):
        above = name.startswith(("deskd.service", "deskd.cli", "deskd.web"))
        floor = (_feature_floor(name) or "adapters").split("/")[0]
        assert not above and floor in ("core", "store", "adapters"), (
            f"{_rel(path)}:{line} imports {name}: adapters sit below the services"
        )


CORE = _modules("core") + _on_floor("core")


def test_it_has_a_core_to_check() -> None:
    assert len(CORE) >= 4


@pytest.mark.parametrize("path", CORE, ids=_ids(CORE))
def test_it_keeps_core_free_of_side_effect_imports(path: Path) -> None:
    for line, name in _imports(_tree(path)):
        assert _top(name) not in CORE_BANNED_IMPORTS, f"{_rel(path)}:{line} imports {name}"
        assert name not in ("os.environ", "os.getenv"), f"{_rel(path)}:{line} imports {name}"
        if _top(name) == "deskd":
            core = name.startswith(("deskd.core", "deskd.errors", "deskd.quoting"))
            assert core or _feature_floor(name) == "core", (
                f"{_rel(path)}:{line} imports {name}: core may import only core and the leaves"
            )


@pytest.mark.parametrize("path", CORE, ids=_ids(CORE))
def test_it_keeps_core_off_the_environment(path: Path) -> None:
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "environb"):
            pytest.fail(f"{_rel(path)}:{node.lineno} reads the environment (.{node.attr})")
        if isinstance(node, ast.Name) and node.id in ("environ", "getenv"):
            pytest.fail(f"{_rel(path)}:{node.lineno} reads the environment ({node.id})")


@pytest.mark.parametrize("path", CORE, ids=_ids(CORE))
def test_it_keeps_core_off_the_clock(path: Path) -> None:
    tree = _tree(path)
    for line, name in _imports(tree):
        parts = name.split(".")
        if len(parts) == 2:
            assert (parts[0], parts[1]) not in CLOCK_CALLS, f"{_rel(path)}:{line} imports {name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, (ast.Name, ast.Attribute)):
            owner = node.value.id if isinstance(node.value, ast.Name) else node.value.attr
            assert (owner, node.attr) not in CLOCK_CALLS, (
                f"{_rel(path)}:{node.lineno} reads the clock ({owner}.{node.attr}); "
                "take `now` as an argument"
            )


def _string_literals(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """String constants that are not docstrings (f-string parts included)."""
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ):
            yield node.lineno, node.value


NO_SQL = [p for layer in ("cli", "web", "core", "service") for p in _modules(layer)]
NO_SQL += [SRC / "hook.py"] if (SRC / "hook.py").exists() else []
NO_SQL += [SRC / p for p, floor in FEATURES.items() if floor != "store"]


@pytest.mark.parametrize("path", NO_SQL, ids=_ids(NO_SQL))
def test_it_keeps_sql_out_of_every_layer_but_store(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for pattern in SQL:
        match = pattern.search(text)
        assert match is None, f"{_rel(path)}: SQL {match.group(0)[:40]!r}: move it to store/"
    tree = _tree(path)
    for line, value in _string_literals(tree):
        for pattern in SQL_ANY_CASE:
            match = pattern.search(value)
            assert match is None, f"{_rel(path)}:{line}: SQL {match.group(0)[:40]!r}"
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("execute", "executemany", "executescript")
            and node.args
            and isinstance(node.args[0], (ast.Constant, ast.JoinedStr))
        ):
            pytest.fail(f"{_rel(path)}:{node.lineno} runs a statement: move it to store/")


def test_it_finds_sql_where_it_is_planted(tmp_path: Path) -> None:
    # The patterns above must be able to fail.
    planted = [
        'q = "SELECT id FROM items"',
        'conn.execute(f"update items set read_at = {x}")',
        "q = 'delete from items'",
        'q = "INSERT OR IGNORE INTO roles VALUES (1)"',
    ]
    for text in planted:
        hits = [p for p in SQL_ANY_CASE if p.search(text)]
        assert hits, text
    assert not any(p.search("Select the items the role was shown") for p in SQL_ANY_CASE)


STORE = _modules("store") + _on_floor("store")


@pytest.mark.parametrize("path", STORE, ids=_ids(STORE))
def test_it_keeps_store_on_stdlib_core_and_store(path: Path) -> None:
    for line, name in _imports(_tree(path)):
        top = _top(name)
        if top == "deskd":
            below = name.startswith(("deskd.store", "deskd.core", "deskd.errors"))
            assert below or _feature_floor(name) in ("core", "store"), (
                f"{_rel(path)}:{line} imports {name}"
            )
        elif top in ("psycopg", "tenacity") and path.name == "pg.py":
            # The PostgreSQL adapter: the one module that imports its driver, and the retry
            # policy for a server with no slot free (tenacity, loaded only after a refusal).
            continue
        elif top != "__future__":
            assert top in sys.stdlib_module_names, (
                f"{_rel(path)}:{line} imports {name}: stdlib only"
            )


HOOK = SRC / "hook.py"


def test_it_keeps_pydantic_and_click_out_of_the_session_hook_source() -> None:
    for line, name in _imports(_tree(HOOK)):
        assert _top(name) not in {"pydantic", "pydantic_settings", "click", "apprise", "fastapi"}, (
            f"hook.py:{line} imports {name}"
        )
        if _top(name) == "deskd":
            assert not name.startswith(
                ("deskd.config", "deskd.config.desk_file", "deskd.cli", "deskd.service")
            ), f"hook.py:{line} imports {name}, which loads pydantic or click"


HEAVY = ("pydantic", "pydantic_settings", "click", "apprise", "fastapi", "croniter", "filelock")


def _loaded_by(*modules: str) -> set[str]:
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in modules)
        + f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return set(out.stdout.split())


def test_it_imports_the_store_without_heavy_dependencies() -> None:
    # Dotted from src/, so the modules of store/records/ are named by their package.
    named = (p.parent if p.stem == "__init__" else p.with_suffix("") for p in STORE)
    store = sorted(".".join(p.relative_to(SRC.parent).parts) for p in named)
    assert _loaded_by(*store) == set()


def test_it_runs_the_session_hook_module_without_heavy_dependencies() -> None:
    assert _loaded_by("deskd.hook") == set()


# service/ is stacked in floors; a subpackage imports only its own modules and lower floors.
SERVICE_FLOORS = {"desk": 0, "work": 1, "meetings": 1, "paging": 1, "engine": 2, "ops": 3}
SERVICE = [p for p in _modules("service") if p.parent.name in SERVICE_FLOORS]
SERVICE += _on_floor("service")


def _service_floor(path_or_name: Path | str) -> str | None:
    """The floor of service/ a module (by path) or an import (by dotted name) is in."""
    if isinstance(path_or_name, Path):
        if path_or_name.is_relative_to(SRC / "service"):
            return path_or_name.parent.name
        path_or_name = _dotted(str(path_or_name.relative_to(SRC)))
    parts = path_or_name.split(".")
    if parts[:2] == ["deskd", "service"] and len(parts) >= 3:
        return parts[2]
    floor = _feature_floor(path_or_name)
    return floor.split("/")[1] if floor and floor.startswith("service/") else None


def test_it_groups_every_service_module_in_a_floor() -> None:
    loose = [p.name for p in (SRC / "service").glob("*.py") if p.name != "__init__.py"]
    assert loose == [], f"service/ modules outside a subpackage: {loose}"
    assert {_service_floor(p) for p in SERVICE} == set(SERVICE_FLOORS)


@pytest.mark.parametrize("path", SERVICE, ids=_ids(SERVICE))
def test_it_imports_only_down_the_service_floors(path: Path) -> None:
    own = _service_floor(path)
    for line, name in _imports(_tree(path)):
        other = _service_floor(name)
        if other is None or other == own:
            continue
        assert other in SERVICE_FLOORS, f"{_rel(path)}:{line} imports {name}"
        assert SERVICE_FLOORS[other] < SERVICE_FLOORS[own], (
            f"{_rel(path)}:{line} imports {name}: {other} is not below {own}"
        )


# The console (web/) reads and writes only through the services, like the CLI.
WEB = _modules("web")


def test_it_has_a_console_to_check() -> None:
    assert len(WEB) >= 5


@pytest.mark.parametrize("path", WEB, ids=_ids(WEB))
def test_it_keeps_the_console_on_the_services(path: Path) -> None:
    for line, name in _imports(_tree(path)):
        assert _top(name) != "sqlite3", f"{_rel(path)}:{line} imports sqlite3"
        assert not name.startswith("deskd.store") and _feature_floor(name) != "store", (
            f"{_rel(path)}:{line} imports {name}: the console goes through service/"
        )


WEB_STACK = {"fastapi", "starlette", "uvicorn", "jinja2", "markupsafe"}


@pytest.mark.parametrize(
    "path", [p for p in _modules("") if p.relative_to(SRC).parts[0] != "web"], ids=_rel
)
def test_it_imports_the_web_stack_only_in_the_console(path: Path) -> None:
    allowed = path == SRC / "cli" / "serve.py"
    for line, name in _imports(_tree(path)):
        if _top(name) in WEB_STACK:
            assert allowed, f"{_rel(path)}:{line} imports {name}: only web/ and cli/serve.py may"
        if name.startswith("deskd.web") and not allowed:
            assert path == SRC / "cli" / "supervisor.py" and name.startswith(
                "deskd.web.auth.signed"
            ), f"{_rel(path)}:{line} imports {name}"


# -- No import circle between files ------------------------------------------------------
# Every import counts: at module level, inside a function (a lazy import still says "this
# file needs that one") and under ``if TYPE_CHECKING`` (the types still point that way).


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


FILES = {_module_name(p): p for p in _modules("")}


def _file_of(name: str) -> str | None:
    """The module of src a dotted import name lands in (``a.b.c`` -> ``a.b`` if c is a name)."""
    while name and name not in FILES:
        name = name.rpartition(".")[0]
    return name or None


def _imported_files(module: str) -> set[str]:
    path = FILES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(_tree(path)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, *([node.module] if node.module else [])])
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        found.update(f for f in map(_file_of, names) if f is not None and f != module)
    return found


IMPORT_GRAPH = {module: _imported_files(module) for module in FILES}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one file (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
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
                        found.append(sorted(component))
    return found


def test_it_finds_a_circle_where_it_is_planted() -> None:
    planted = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _circles(planted) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_it_has_no_import_circle_between_files() -> None:
    circles = _circles(IMPORT_GRAPH)
    shown = [
        " -> ".join(f"{a} ({', '.join(sorted(IMPORT_GRAPH[a] & set(c)))})" for a in c)
        for c in circles
    ]
    assert circles == [], "files that import each other:\n" + "\n".join(shown)


# deskd.config is stacked in floors (docs/architecture.md): a module imports only lower ones,
# and the floors a hot command stops at (up to the cache) never import pydantic.
CONFIG_FLOORS = {
    "__init__": 1, "host": 0, "settings": 1, "desk": 2, "cache": 3,
    "settings_model": 4, "desk_file": 4, "load": 5,
}  # fmt: skip
CONFIG = _modules("config")
VALIDATORS = {"pydantic", "pydantic_settings", "dotenv"}


def test_it_puts_every_config_module_on_a_floor() -> None:
    assert {p.stem for p in CONFIG} == set(CONFIG_FLOORS)


@pytest.mark.parametrize("path", CONFIG, ids=_ids(CONFIG))
def test_it_imports_only_down_the_config_floors(path: Path) -> None:
    floor = CONFIG_FLOORS[path.stem]
    for other in sorted(IMPORT_GRAPH[_module_name(path)]):
        if other.startswith("deskd.config."):
            below = CONFIG_FLOORS[other.rsplit(".", 1)[1]]
            assert below < floor, (
                f"{_rel(path)} imports {other}: floor {below} is not below {floor}"
            )
    if floor <= 3:
        for line, name in _imports(_tree(path)):
            assert _top(name) not in VALIDATORS, f"{_rel(path)}:{line} imports {name}"


def test_it_reads_settings_and_the_desk_without_the_validators_loaded() -> None:
    assert _loaded_by("deskd.config.load") & {"pydantic", "pydantic_settings"} == set()
