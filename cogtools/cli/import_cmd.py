"""``cogtools import openapi SPEC``: write an http tool for each operation of an OpenAPI document.

``import`` is a group, so that other importers can join it later; the work is done by
:mod:`cogtools.importers.openapi`, and this module only writes what it made, all of it or nothing.
"""

from __future__ import annotations

import os
import stat
import sys
import typing as t
from pathlib import Path

import click

from cogtools.cli.boundary import warn, write_text
from cogtools.cli.common import CONTEXT_SETTINGS, version_option
from cogtools.core.errors import UsageError
from cogtools.core.fsutil import LeavesRoot, replace_file, write_atomic
from cogtools.core.printable import printable
from cogtools.importers import MAX_OPERATIONS
from cogtools.load.project import find_project, find_root


@click.group("import", context_settings=CONTEXT_SETTINGS, short_help="Write tools from an API's description.")
@version_option()
def command() -> None:
    """Write tool files from what describes an API already: `cogtools import openapi SPEC`
    writes an http tool for each operation of an OpenAPI 3.0 or 3.1 document."""


@command.command("openapi", context_settings=CONTEXT_SETTINGS, short_help="An http tool per OpenAPI operation.")
@click.argument("spec", metavar="SPEC")
@click.option("--tag", "tags", multiple=True, metavar="TAG", help="Only the operations of this tag (repeat for more).")
@click.option(
    "--operation",
    "wanted",
    multiple=True,
    metavar="ID",
    help="Only this operation, by operationId or tool name (repeat for more).",
)
@click.option(
    "--into",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    help="The directory the tool files are written to (default: the project's first tool directory, tools/).",
)
@click.option("--server", metavar="URL", help="The API's base URL, instead of the document's first server.")
@click.option(
    "--env-prefix",
    "prefix",
    metavar="PREFIX",
    help="The start of the secrets' variable names (default: from the API's title, such as PETSTORE).",
)
@click.option("--force", is_flag=True, help="Replace tool files that exist.")
@click.option(
    "--max-operations",
    "max_operations",
    type=click.IntRange(min=1),
    default=MAX_OPERATIONS,
    metavar="N",
    help=f"Refuse a document of more operations (or path items) than N (default: {MAX_OPERATIONS}): each is"
    " read and checked, even those --tag or --operation leave out.",
)
@version_option()
def openapi(
    spec: str,
    tags: tuple[str, ...],
    wanted: tuple[str, ...],
    directory: Path | None,
    server: str | None,
    prefix: str | None,
    force: bool,
    max_operations: int,
) -> None:
    """Write an http tool (YAML) for each operation of the OpenAPI 3.0 or 3.1 document SPEC, a
    file or an http(s) URL, into --into DIR: its path, query, header and body parameters with
    their schemas (references followed), the server URL, descriptions and examples, risk_level
    and side_effects from the method (GET, HEAD and OPTIONS read: low; POST, PUT and PATCH:
    medium; DELETE: high), and the credentials its security scheme asks for as a secret
    environment variable it declares (PREFIX_SCHEME: set it in .env or the environment), never
    a value in the file.

    The tool is named for the operationId (or the method and path), made a valid tool name of
    at most 48 characters. An operation that cannot be an http tool (a multipart body, a
    schema OpenAPI 3.0 cannot say) is left out with a note, unless --operation names it. Every
    file is checked before the first is written, and then all are written or none: a file that
    exists is refused unless --force.

    Only references within the document (#/...) are followed: one to a file or a URL refuses
    the document before anything reads it. A document of more than --max-operations operations
    is refused. On a terminal, standard error shows the progress."""
    # the importer reads URLs (ssl, http) and YAML: imported when the command runs, since tab
    # completion imports every command's module
    from cogtools.importers.openapi import import_document, read_document

    show = _Progress() if sys.stderr is not None and sys.stderr.isatty() else None
    try:
        if show is not None:
            show.phase(f"reading and checking {spec}")
        document = read_document(spec, max_operations=max_operations)
        imported = import_document(
            document,
            tags=tags,
            wanted=wanted,
            server=server,
            prefix=prefix,
            progress=show.counter("importing operations") if show is not None else None,
        )
        if directory is None:
            directory = _tools_directory()
        texts = {directory / f"{tool.name}.yaml": tool.text for tool in imported.tools}
        existing = [path for path in texts if os.path.lexists(path)]
        if existing and not force:
            shown = ", ".join(str(p) for p in existing[:3]) + (
                f" and {len(existing) - 3} more" if len(existing) > 3 else ""
            )
            raise UsageError(
                f"{shown} exist{'s' if len(existing) == 1 else ''} (--force replaces them); nothing was written"
            )
        _write_all(directory, texts, show.counter("writing tool files") if show is not None else None)
    finally:
        if show is not None:
            show.done()
    for note in imported.notes:
        warn("cogtools import openapi", f"note: {note}")
    lines = [f"{'replaced' if path in existing else 'created'} {os.path.relpath(path)}" for path in texts]
    secrets = sorted({secret for tool in imported.tools for secret in tool.secrets})
    if secrets:
        lines.append(
            f"next: set {', '.join(secrets)} in the project's .env or the environment (a secret: never in a tool file)"
        )
    lines.append(f"next: `cogtools lint {os.path.relpath(directory)}`, then `cogtools sync`")
    write_text("".join(line + "\n" for line in lines))


def _tools_directory() -> Path:
    """The project's first tool directory of its own (``tools/`` at its root by default), as
    ``cogtools new`` writes to."""

    project = find_project()
    for source in project.sources:
        if source.name.startswith("local:"):
            return source.directory
    return project.root / "tools"


def _write_all(directory: Path, texts: dict[Path, str], progress: t.Callable[[int, int], None] | None = None) -> None:
    """Write every file, or none: on a failure, the files already written are put back as they
    were (removed, or their old text restored). ``progress`` is told how many are written."""

    root, _ = find_root(Path.cwd().resolve(), os.environ)
    inside = root == directory.absolute() or root in directory.absolute().parents
    done: list[tuple[Path, tuple[bytes, int] | None]] = []
    try:
        for path, text in texts.items():
            old = (path.read_bytes(), stat.S_IMODE(path.stat().st_mode)) if path.is_file() else None
            write_atomic(path, text, within=root if inside else None, mode=0o755)
            done.append((path, old))
            if progress is not None:
                progress(len(done), len(texts))
    except (OSError, LeavesRoot) as e:
        for written, old in reversed(done):
            try:
                if old is None:
                    written.unlink()
                else:
                    replace_file(Path(os.path.realpath(written)), old[0], old[1], durable=True)
            except OSError:
                pass
        if isinstance(e, LeavesRoot):
            raise UsageError(
                f"cannot write {e.filename}: it is reached through a symbolic link that leads outside the project;"
                " nothing was written"
            ) from e
        raise UsageError(f"cannot write {e.filename or directory}: {e.strerror}; nothing was written") from e


class _Progress:
    """What the command is doing, on standard error (a terminal): a line naming the phase, then
    click's progress bar for a phase whose steps are counted."""

    def __init__(self) -> None:
        self.line = ""
        self.bar: t.Any = None
        self.label = ""
        self.steps = 0

    def phase(self, text: str) -> None:
        self.done()
        self.line = printable(f"cogtools import openapi: {text}...", "")
        sys.stderr.write(self.line)
        sys.stderr.flush()

    def counter(self, label: str) -> t.Callable[[int, int], None]:
        def step(done: int, total: int) -> None:
            if self.bar is None or self.label != label:
                self.done()
                self.label = label
                self.bar = click.progressbar(
                    length=total, label=label, file=sys.stderr, show_pos=True, update_min_steps=max(1, total // 200)
                )
                self.bar.__enter__()
                self.steps = 0
            if done >= total:
                self.bar.update_min_steps = 1  # the last step shown, whatever was held back
            self.bar.update(done - self.steps)
            self.steps = done

        return step

    def done(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None
        if self.line:
            sys.stderr.write("\r" + " " * len(self.line) + "\r")
            sys.stderr.flush()
            self.line = ""
