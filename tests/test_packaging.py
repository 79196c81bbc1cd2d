"""The wheel holds the whole program: every package, the site's templates and static files, the
shipped ONNX and NCNN weights (found through ``models.MODELS_DIR`` once installed), no training
checkpoint, the solver's compiled core (built by setup.py where a compiler is there, as here),
and the ``ddz-table`` command.

The wheel is built offline (``pip wheel --no-build-isolation``, with the venv's setuptools) from
a copy of the source, so the build's ``build/`` and ``*.egg-info`` never land in the checkout.
"""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "vision", "tracker", "webkit", "webui", "club", "box", "cli", "sim", "models")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Iterator[zipfile.ZipFile]:
    src = tmp_path_factory.mktemp("src")
    junk = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "*.so")
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, src / package, ignore=junk)
    out = tmp_path_factory.mktemp("wheel")
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                             "--no-index", "-q", "-w", str(out), str(src)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"pip wheel failed:\n{result.stdout}\n{result.stderr}"
    built = list(out.glob("ddz_table-*.whl"))
    assert len(built) == 1, f"expected one wheel, found {[p.name for p in built]}"
    with zipfile.ZipFile(built[0]) as zf:
        yield zf


def source_files(folder: Path) -> set[str]:
    return {p.relative_to(ROOT).as_posix() for p in folder.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


def test_the_wheel_holds_the_shipped_models(wheel):
    names = set(wheel.namelist())
    assert {"models/__init__.py", "models/finder.onnx", "models/reader.onnx", "models/pips.onnx"} <= names
    for stage in ("finder", "reader"):
        folder = ROOT / "models" / f"{stage}_ncnn_model"
        expected = source_files(folder)
        assert {f"models/{stage}_ncnn_model/model.ncnn.param", f"models/{stage}_ncnn_model/model.ncnn.bin"} <= expected
        assert expected <= names, f"missing from the wheel: {sorted(expected - names)}"
    for stage in ("finder", "reader"):  # the installed files are the source's, byte for byte
        assert wheel.read(f"models/{stage}.onnx") == (ROOT / "models" / f"{stage}.onnx").read_bytes()


def test_the_wheel_holds_the_readers_checkpoint_alone(wheel):
    """The reader's checkpoint goes with the box (enrollment fine-tunes a copy of it where torch is
    installed); the finder's, a training run's, does not."""
    assert (ROOT / "models" / "finder.pt").exists(), "no finder.pt in the source tree: this test would prove nothing"
    assert [n for n in wheel.namelist() if n.endswith(".pt")] == ["models/reader.pt"]
    assert wheel.read("models/reader.pt") == (ROOT / "models" / "reader.pt").read_bytes()


def test_the_wheel_holds_every_module_and_the_sites_files(wheel):
    names = set(wheel.namelist())
    for package in PACKAGES:
        assert f"{package}/__init__.py" in names, f"package {package} is not in the wheel"
        modules = {f for f in source_files(ROOT / package) if f.endswith(".py")}
        assert modules <= names, f"modules missing from the wheel: {sorted(modules - names)}"
    site = source_files(ROOT / "webui" / "templates") | source_files(ROOT / "webui" / "static") | \
        source_files(ROOT / "webkit" / "templates")
    assert {"webui/templates/base.html", "webui/static/site.css", "webui/static/site.js",
            "webkit/templates/webkit/base.html"} <= site
    assert site <= names, f"site files missing from the wheel: {sorted(site - names)}"
    assert not [n for n in names if n.split("/")[0] in ("tests", "bench", "datasets", "deploy", "docs")]


def test_the_wheel_holds_the_solvers_compiled_core_built_from_its_source(wheel):
    names = wheel.namelist()
    assert [n for n in names if n.startswith("engine/solver/_core") and n.endswith(".so")]
    assert "engine/solver/_core.pyi" in names


def test_the_ddz_table_command_is_cli_main(wheel):
    [entry_points] = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
    parser = configparser.ConfigParser()
    parser.read_string(wheel.read(entry_points).decode("utf-8"))
    assert dict(parser["console_scripts"]) == {"ddz-table": "cli.main:main"}


def test_the_installed_program_finds_its_models_where_it_is_installed(wheel, tmp_path):
    site = tmp_path / "site"
    wheel.extractall(site)  # a wheel installs by unpacking
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    probe = ("import models, vision.detector as d, box.config as c; "
             "print(models.MODELS_DIR); print(d.DEFAULT_FINDER); print(d.DEFAULT_READER); "
             "print(c.Config().models)")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    result = subprocess.run([sys.executable, "-c", probe], cwd=elsewhere, capture_output=True, text=True,
                            env=env | {"PYTHONPATH": str(site)}, timeout=120)
    assert result.returncode == 0, result.stderr
    models_dir, finder, reader, box_dir = map(Path, result.stdout.split("\n")[:4])
    assert models_dir == site / "models" and box_dir == models_dir
    assert finder == site / "models" / "finder.onnx" and finder.is_file()
    assert reader == site / "models" / "reader.onnx" and reader.is_file()
