"""Build cogtools' npm package: the wheel of this checkout, carried in a tarball whose ``bin``
names cogtools' four commands, each a small POSIX sh launcher (npm/launcher.sh) that installs the
wheel once into a cached virtual environment (npm/setup.sh) and from then on execs it.

    python npm/pack.py [--out DIR]

writes ``DIR/cogtools-VERSION.tgz`` (DIR: ``dist/`` of the checkout by default) and prints its
path. It needs ``npm`` on PATH and a Python 3.10+ with pip (the wheel is built by ``pip wheel``,
which fetches setuptools from the package index, as ``pip install .`` does). The package's version
is the wheel's, which must be ``cogtools.__version__``; its ``bin`` names are pyproject's
``[project.scripts]``. The source built is the checkout's files as they are (git's tracked and
untracked files, not the ignored ones), copied first, so the checkout itself is not written.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import typing as t
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
#: What the launchers carry of the source, filled in for each command.
PLACEHOLDERS = ("@COMMAND@", "@VERSION@", "@KEY@", "@PICK@")


class PackError(Exception):
    """What stops the build: said on one line, exit status 1."""


def source_version() -> str:
    """``cogtools.__version__`` as the source says it (read, not imported)."""
    text = (REPO / "cogtools" / "__init__.py").read_text(encoding="utf-8")
    found = re.search(r"^__version__ = \"([^\"]+)\"$", text, re.MULTILINE)
    if found is None:
        raise PackError('cogtools/__init__.py has no __version__ = "..." line')
    return found.group(1)


def scripts() -> list[str]:
    """The console scripts pyproject.toml declares: the package's ``bin`` must name the same."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    with open(REPO / "pyproject.toml", "rb") as f:
        return sorted(tomllib.load(f)["project"]["scripts"])


def copy_source(dest: Path) -> None:
    """The checkout's files (tracked, and untracked but not ignored) into ``dest``."""
    if (REPO / ".git").exists() and shutil.which("git"):
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=REPO,
            capture_output=True,
            check=False,
        )
        if listed.returncode != 0:
            raise PackError(f"git ls-files failed: {listed.stderr.decode(errors='replace').strip()}")
        for name in sorted(set(listed.stdout.decode().split("\0")) - {""}):
            source = REPO / name
            if source.is_file():  # a file deleted but not yet committed is listed too
                (dest / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, dest / name)
    else:
        junk = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache")
        shutil.copytree(REPO, dest, ignore=junk, dirs_exist_ok=True)


def build_wheel(source: Path, dest: Path) -> Path:
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-input", "--disable-pip-version-check", "-q"]
        + ["-w", str(dest), str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise PackError(f"pip wheel failed ({proc.returncode}):\n{(proc.stdout + proc.stderr)[-3000:]}")
    wheels = sorted(dest.glob("cogtools-*-py3-none-any.whl"))
    if len(wheels) != 1:
        raise PackError(f"pip wheel made {[w.name for w in dest.iterdir()]}, not one pure-Python wheel of cogtools")
    return wheels[0]


def manifest(version: str) -> str:
    data: dict[str, t.Any] = json.loads((HERE / "package.template.json").read_text(encoding="utf-8"))
    if sorted(data["bin"]) != scripts():
        raise PackError(f"npm/package.template.json's bin {sorted(data['bin'])} is not pyproject's {scripts()}")
    data["version"] = version
    return json.dumps(data, indent=2) + "\n"


def cache_key(wheel: Path, version: str) -> str:
    """The name of the launchers' cached environment: the version, and the start of the wheel's
    SHA-256, so that a package rebuilt at the same version (a developer's) is installed anew."""
    return f"{version}-{hashlib.sha256(wheel.read_bytes()).hexdigest()[:12]}"


def launcher(command: str, version: str, key: str) -> str:
    """The launcher of ``command``. The porcelain's also picks the command its first argument
    names: ``npx PACKAGE ARGS`` runs the package's ``cogtools`` (its bin named as the package)
    with ARGS, so ``npx ./cogtools-VERSION.tgz cogtools --version`` runs ``cogtools --version``,
    and ``npx cogtools cogtools-call NAME`` runs ``cogtools-call NAME``."""
    pick = ""
    if command == "cogtools":
        names = " | ".join(scripts())
        pick = (
            "# npx PACKAGE COMMAND ARGS: a first argument that names one of the package's commands picks it\n"
            f"case ${{1-}} in {names}) c=$1 && shift ;; esac\n"
        )
    text = (HERE / "launcher.sh").read_text(encoding="utf-8").replace("#@PICK@\n", pick)
    return text.replace("@COMMAND@", command).replace("@VERSION@", version).replace("@KEY@", key)


def stage(directory: Path, wheel: Path, version: str) -> None:
    """The package's files: package.json, README.md, bin/*, lib/setup.sh, wheels/*.whl."""
    (directory / "package.json").write_text(manifest(version), encoding="utf-8")
    shutil.copyfile(HERE / "README.md", directory / "README.md")
    (directory / "bin").mkdir()
    key = cache_key(wheel, version)
    for command in scripts():
        path = directory / "bin" / command
        path.write_text(launcher(command, version, key), encoding="utf-8")
        path.chmod(0o755)
    (directory / "lib").mkdir()
    shutil.copyfile(HERE / "setup.sh", directory / "lib" / "setup.sh")
    (directory / "wheels").mkdir()
    shutil.copyfile(wheel, directory / "wheels" / wheel.name)
    for path in [*(directory / "bin").iterdir(), directory / "lib" / "setup.sh"]:
        checked = subprocess.run(["sh", "-n", str(path)], capture_output=True, text=True, check=False)
        if checked.returncode != 0 or any(p in path.read_text(encoding="utf-8") for p in PLACEHOLDERS):
            raise PackError(f"{path.name} is not a whole sh script: {checked.stderr.strip()}")


def npm_pack(directory: Path, dest: Path) -> Path:
    npm = shutil.which("npm")
    if npm is None:
        raise PackError("npm is not on PATH (it makes the tarball: npm pack)")
    proc = subprocess.run(
        [npm, "pack", "--json", "--pack-destination", str(dest)],
        cwd=directory,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "npm_config_update_notifier": "false", "npm_config_fund": "false"},
    )
    if proc.returncode != 0:
        raise PackError(f"npm pack failed ({proc.returncode}): {proc.stderr[-3000:]}")
    (packed,) = json.loads(proc.stdout)
    return dest / str(packed["filename"])


def pack(out: Path) -> Path:
    """The tarball ``out/cogtools-VERSION.tgz``, written whole or not at all."""
    expected = source_version()
    with tempfile.TemporaryDirectory(prefix="cogtools-npm-") as tmp:
        work = Path(tmp)
        for name in ("source", "wheel", "package", "tarball"):
            (work / name).mkdir()
        copy_source(work / "source")
        wheel = build_wheel(work / "source", work / "wheel")
        version = wheel.name.split("-")[1]
        if version != expected:
            raise PackError(f"the wheel's version {version} is not cogtools.__version__ {expected}")
        stage(work / "package", wheel, version)
        tarball = npm_pack(work / "package", work / "tarball")
        if tarball.name != f"cogtools-{version}.tgz":
            raise PackError(f"npm pack made {tarball.name}, not cogtools-{version}.tgz")
        out.mkdir(parents=True, exist_ok=True)
        partial = out / f".{tarball.name}.partial"
        shutil.copyfile(tarball, partial)
        os.replace(partial, out / tarball.name)
        return out / tarball.name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="npm/pack.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "dist", help="where to write the tarball (default: dist/)")
    options = parser.parse_args(argv)
    try:
        print(pack(options.out.resolve()))
    except PackError as e:
        print(f"npm/pack.py: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"npm/pack.py: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
