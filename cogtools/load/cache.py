"""The catalog cache: what each definition file yielded, keyed by its source and path, and
reused while the file's identity is unchanged; and what a warm run needs to skip the rest.

An entry is reused only while the file's inode, size, modification and change times are what
they were when it was parsed. Files modified within :data:`RACY_SECONDS` of the write are not
cached (a change inside the same timestamp tick would otherwise go unseen). The cache of one
project is a few files in the cache directory, all named ``catalog-ROOTHASH...``:

- ``.json``, the index: each file's stat and a small entry (a configuration's settings, a
  definition's error, or the names of the tools it defines and where their whole form is);
- ``-XXXXXXXXXXXXXXXX.dat``, segments: the tools' whole forms, compressed, each checked against
  the digest the index holds (:class:`CatalogCache`);
- ``.fast``, the fast index: each source's directories and files with their stats, and where
  each tool name's winner is, so that a call checks and reads only what its tool depends on;
- ``.out``, the last discovery's output, valid while the fast index vouches for every file;
- ``.lint``, lint's verdicts by a digest of what they judged.

It is only ever an optimisation, and it is read as untrusted input (DESIGN §11):

- an index file is used only when cogtools wrote it: it carries a keyed MAC (BLAKE2b) of its
  content under a random key private to the user (``key`` in the cache directory, mode 0600), so
  a file that was edited, truncated, corrupted or written in any other shape is a miss, and the
  definitions are read again; a segment is used only where its bytes match the digest;
- it is stamped with the cache format, cogtools' version, the project root, the Python version
  and the identity of the installed libraries that shape an entry (PyYAML, jsonschema, Jinja2),
  so an upgrade of any of them is a miss;
- a cache file or key not owned by the user, or writable by others, is ignored, and the
  directory is created private (0700).

Every file is written atomically (a temporary file in the same directory, then a rename), so
concurrent writers each leave a whole file and the last one wins; one that cannot be written is
simply not written.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
import typing as t
import zlib
from pathlib import Path

from cogtools import __version__
from cogtools.core.places import authentic, cache_key, compare_digest, project_key
from cogtools.core.places import digest as _digest
from cogtools.core.places import mac as _mac
from cogtools.core.places import read_private as _read_private

#: Bump whenever the cached form changes (the model, Tool.to_dict, the entries below), or what
#: a load accepts (an entry cached by the older rules would skip the new checks).
CACHE_FORMAT = 17
RACY_SECONDS = 2.0
#: What an entry of a configuration file is keyed by in the index, before its path.
CONFIG_KEY = "config:"
#: The libraries whose behaviour shapes a cached entry.
LIBRARIES = ("yaml", "jsonschema", "jinja2")
#: The largest cache file read (a catalog of tens of thousands of tools is far below).
MAX_CACHE_BYTES = 512 * 1024 * 1024

Stat = t.List[int]


def file_stat(st: os.stat_result) -> Stat:
    return [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def library_stamp() -> str:
    """The Python version and the identity (inode, mtime) of each library of :data:`LIBRARIES`,
    found without importing it: the first through the import system, the others, as a rule
    installed beside it, by a look in the same directory."""
    import importlib.util

    parts = [".".join(map(str, sys.version_info[:3]))]
    base: str | None = None
    for name in LIBRARIES:
        info = None
        if base is not None:
            try:
                info = os.stat(os.path.join(base, name, "__init__.py"))
            except OSError:
                info = None
        if info is None:
            try:
                spec = importlib.util.find_spec(name)
                if spec is not None and spec.origin:
                    info = os.stat(spec.origin)
                    base = os.path.dirname(os.path.dirname(spec.origin))
            except (ImportError, ValueError, OSError):
                info = None
        parts.append(f"{name}={info.st_ino}.{info.st_mtime_ns}" if info is not None else f"{name}=-")
    return ",".join(parts)


def _fast_sources(fast: Walked) -> list[dict[str, t.Any]]:
    """Each source's walk as the fast index keeps it: its directories as ``path\0stat`` texts,
    its files as one text, ``path\0stat\0path\0stat...`` (a call splits one string, where a list
    of ten thousand would cost it a parse)."""
    return [
        {
            "dirs": [f"{path}\0{stat}" for path, stat in walk.dirs],
            "files": "\0".join(f"{path}\0{stat}" for path, _, stat in walk.files),
        }
        for walk in fast.walks
    ]


class Located(t.NamedTuple):
    """Where the fast index says a tool name's winner is."""

    #: The number of its source, in precedence order.
    source: int
    #: Its file's place in that source's walk.
    position: int
    #: The tool's place within its file.
    within: int
    #: Where its whole form is in the segments (see :meth:`CatalogCache.payload`).
    ref: list[t.Any]


class FastIndex:
    """The fast index as read (``.fast``): each source's directories and files with the stats
    they had, where each tool name's winner is, the configuration files' entries, and the
    segments its references point into. It is only ever made from a file cogtools wrote for this
    very stamp (its MAC holds), so its shape is known; what it says is checked against the files
    before it is believed (:meth:`unchanged`)."""

    def __init__(self, document: t.Mapping[str, t.Any], mac: str) -> None:
        #: What the index is valid for: the project's sources, each as it was read.
        self.signature: str = document["signature"]
        #: The segment files its references point into.
        self.segments: list[str] = document["segments"]
        #: The MAC it was read (or written) with: it names the catalog's state while it holds.
        self.mac = mac
        self._sources: list[dict[str, t.Any]] = document["sources"]
        self._tools: str = document["tools"]
        self._config: dict[str, t.Any] = document["config"]

    @classmethod
    def of(cls, document: t.Mapping[str, t.Any]) -> FastIndex | None:
        """The index a document read holds, or None when it is not one."""
        shapes = {"signature": str, "segments": list, "sources": list, "tools": str, "config": dict, "$mac": str}
        if not all(isinstance(document.get(key), shape) for key, shape in shapes.items()):
            return None
        return cls(document, document["$mac"])

    def locate(self, name: str) -> Located | None:
        """Where the winner of ``name`` is, found in the index's text without parsing all of it."""
        text = self._tools
        start = text.find(f"\n{name}\t")
        if start < 0:
            return None
        end = text.find("\n", start + 1)
        fields = text[start + 1 : end if end >= 0 else len(text)].split("\t")
        try:
            return Located(int(fields[1]), int(fields[2]), int(fields[3]), json.loads(fields[4]))
        except (IndexError, ValueError):
            return None

    def names(self) -> set[str]:
        return {line.partition("\t")[0] for line in self._tools.split("\n") if line}

    def unchanged(self, directories: t.Sequence[str], through: Located | None = None) -> bool:
        """Whether every directory and file the index recorded of the sources read from
        ``directories`` (one per source, in order) stats as recorded; with ``through``, of the
        sources up to its source only, and of that one the files up to its file (all that a
        tool's winning was decided by)."""
        last = len(directories) - 1 if through is None else through.source
        if len(self._sources) != len(directories) or last >= len(directories):
            return False
        for number in range(last + 1):
            walk = self._sources[number]
            files = walk["files"].split("\0") if walk["files"] else []
            if through is not None and number == last:
                files = files[: 2 * (through.position + 1)]
            if not _unchanged(directories[number], walk["dirs"], files):
                return False
        return True

    def config(self, key: str) -> t.Any:
        """The cached entry of a configuration file (``config:PATH``), or None."""
        return self._config.get(key)

    def holds(self, walked: Walked) -> bool:
        """Whether this index holds what ``walked`` would write (then a warm run writes nothing)."""
        return (
            self.signature == walked.signature
            and self._sources == _fast_sources(walked)
            and self.names() == set(walked.winners)
        )


def _unchanged(base: str, dirs: list[str], files: list[str]) -> bool:
    """Whether each recorded directory (``path\0stat``, relative to ``base``) and file (``files``:
    path, stat, path, stat...) stats as recorded. Files are looked up from their directory's
    descriptor: thousands of them are checked per call."""
    for item in dirs:
        path, _, recorded = item.partition("\0")
        if _current_stat(os.path.join(base, path)) != recorded:
            return False
    if os.stat not in os.supports_dir_fd:
        return all(_current_stat(os.path.join(base, files[i])) == files[i + 1] for i in range(0, len(files), 2))
    opened: dict[str, int] = {}
    last, fd = None, -1
    try:
        for i in range(0, len(files), 2):
            head, _, name = files[i].rpartition(os.sep)
            if head != last:  # the files of a directory come together: one lookup for them all
                found = opened.get(head)
                if found is None:
                    try:
                        found = opened[head] = os.open(
                            os.path.join(base, head), os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
                        )
                    except OSError:
                        return False
                last, fd = head, found
            try:
                st = os.stat(name, dir_fd=fd)
            except OSError:
                return False
            if f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}" != files[i + 1]:  # stat_text, inline
                return False
        return True
    finally:
        for opened_fd in opened.values():
            os.close(opened_fd)


def _current_stat(path: str) -> str:
    try:
        return stat_text(os.stat(path))
    except OSError:
        return "-"


#: A tools entry's payload lives in a segment file beside the index: compressed, addressed by
#: segment, offset and length, and checked against the digest the (authenticated) index holds.
#: Segments are written once and never changed; a run that parsed files writes one new segment,
#: and the live entries are copied into one fresh segment when too many segments, or too much
#: dead space, have piled up.
MAX_SEGMENTS = 8
#: Segments no index uses are removed once this old (a younger one may be another run's, whose
#: index is not written yet).
SEGMENT_GRACE_SECONDS = 60.0


class SourceWalk(t.NamedTuple):
    """What reading one source met, for the fast index: each directory read and each definition
    file, with the stat it had (:func:`stat_text`; ``-`` for a directory that did not exist)."""

    dirs: list[tuple[str, str]]
    #: (path, cache key, stat) of each definition file, in the order of the walk.
    files: list[tuple[str, str, str]]


class Walked(t.NamedTuple):
    """What :meth:`CatalogCache.save` needs to write the fast index: the signature of the
    project's sources, what each source's walk met, and where each tool name's winner is
    (source, file, tool within the file). ``racy``: a file or directory changed too recently to
    be trusted by its stat."""

    signature: str
    walks: list[SourceWalk]
    winners: dict[str, tuple[int, int, int]]
    racy: bool


def stat_text(st: os.stat_result) -> str:
    """A file's or directory's identity as the fast index keeps it."""
    return f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"


def is_racy(st: os.stat_result) -> bool:
    """Changed within :data:`RACY_SECONDS`: a change inside the same timestamp tick could follow
    unseen, so its stat cannot vouch for it yet."""
    return time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) <= RACY_SECONDS * 1e9


#: What a tool's cached form is mostly made of, given to zlib as a preset dictionary: a payload
#: of a few hundred bytes shrinks by a third. Changing it changes the cache format.
ZDICT = (
    b'{"tools":[{"name":"","description":"","implementation":{"kind":"template","spec":{"template":"'
    b'"},"line":},"origin":{"path":"tools/","format":"yaml","source":"local:./tools"},"parameters":'
    b'[{"name":"","schema":{"type":"string","description":""},"required":true},{"name":"","schema":'
    b'{"type":"integer","description":""},"required":false}],"additional_parameters":false,"examples":'
    b'[{"arguments":{},"expect":null}],"requests":[],"title":null,"environment":[],"metadata":'
    b'{"category":null,"risk_level":null,"side_effects":null,"requires_admin":false,"min_role":null,'
    b'"requires_user_notice":false,"requires_idle_check":false,"keywords":[],"discoverable":false},'
    b'"lint_ignore":[]}]}'
)


def _compress(data: t.Any) -> bytes:
    packer = zlib.compressobj(6, zdict=ZDICT)
    return packer.compress(json.dumps(data, separators=(",", ":")).encode("utf-8")) + packer.flush()


def _decompress(data: bytes) -> t.Any:
    unpacker = zlib.decompressobj(zdict=ZDICT)
    return json.loads(unpacker.decompress(data, MAX_CACHE_BYTES) + unpacker.flush())


class CatalogCache:
    """The cached entries of one project, by key (the catalog's: source and absolute path).

    The index (``catalog-ROOTHASH.json``: a MAC line, then JSON) holds, for each file, the stat
    it was parsed at and a small entry: a configuration's settings, a definition's error, or the
    names of the tools it defines and where their whole form is (``ref``). Reading the index does
    not read a single tool: :meth:`payload` reads one entry's tools when they are needed, so a
    call in a catalog of thousands of tools reads the index and one definition.
    """

    def __init__(self, directory: Path | None, root: Path) -> None:
        self._prefix = f"catalog-{project_key(root)}"
        self.path = directory / f"{self._prefix}.json" if directory is not None else None
        self._key = cache_key(directory) if directory is not None else None
        if self._key is None:
            self.path = None  # no safe key, no cache
        self._stamp = f"{CACHE_FORMAT}:{__version__}:{root}:{library_stamp()}"
        self._full: tuple[dict[str, t.Any], list[str]] | None = None
        self._new: dict[str, t.Any] = {}
        #: Payloads made in this run, by key, not yet in a segment.
        self._payloads: dict[str, bytes] = {}
        self._dirty = False
        #: The fast index read: the configuration's entries, the walk of each source and where
        #: each tool is, enough for a call to find its one tool without the whole index.
        self.fast: FastIndex | None = None
        #: The MAC of the fast index read (or, after :meth:`save`, written): it names the
        #: catalog's state while the index holds.
        self.fast_mac = ""
        #: Whether the last :meth:`save` left a fast index that vouches for the catalog it was
        #: given (nothing in it changed too recently to be trusted by its stat).
        self.vouched = False
        if self.path is not None:
            self.fast = FastIndex.of(self._read(self.path.with_suffix(".fast")))
            self.fast_mac = self.fast.mac if self.fast is not None else ""

    @property
    def dirty(self) -> bool:
        """Whether this run put anything (then only a whole load may save it)."""
        return self._dirty

    @property
    def _old(self) -> dict[str, t.Any]:
        return self._index()[0]

    @property
    def _segments(self) -> list[str]:
        return self._index()[1]

    def _index(self) -> tuple[dict[str, t.Any], list[str]]:
        """The entries of the whole index and its segments, read when first needed."""
        if self._full is None:
            document = self._read(self.path) if self.path is not None else {}
            files, segments = document.get("files"), document.get("segments", [])
            if not isinstance(files, dict) or not self._segment_names(segments):
                files, segments = {}, []
            self._full = (files, segments)
        return self._full

    def _segment_names(self, segments: t.Any) -> bool:
        return isinstance(segments, list) and all(
            isinstance(name, str) and re.fullmatch(rf"{self._prefix}-[0-9a-f]{{16}}\.dat", name) for name in segments
        )

    def _read(self, path: Path) -> dict[str, t.Any]:
        """The document of an index file, or {} unless cogtools wrote it for this very stamp."""
        assert self._key is not None
        data = _read_private(path, MAX_CACHE_BYTES)
        if data is None:
            return {}
        mac, _, payload = data.partition(b"\n")
        if not authentic(self._key, mac, payload):
            return {}
        try:
            document = json.loads(payload)
        except ValueError:
            return {}
        if not isinstance(document, dict) or document.get("stamp") != self._stamp:
            return {}
        document["$mac"] = mac.decode()
        return document

    def memo(self, kind: str) -> dict[str, t.Any]:
        """The verdicts of ``kind`` kept by :meth:`put_memo` (``{}`` when none were, or they were
        not written for this stamp)."""
        if self.path is None:
            return {}
        entries = self._read(self.path.with_suffix(f".{kind}")).get("entries")
        return entries if isinstance(entries, dict) else {}

    def put_memo(self, kind: str, entries: dict[str, t.Any]) -> None:
        """Keep ``entries`` (verdicts keyed by a digest of what they judge) for the next run; never
        raises."""
        if self.path is None or self._key is None:
            return
        try:
            self._write(self.path.with_suffix(f".{kind}"), {"stamp": self._stamp, "entries": entries})
        except OSError:
            pass

    def output(self, key: str) -> bytes | None:
        """The output stored under ``key`` (see :meth:`put_output`), or None."""
        if self.path is None or self._key is None:
            return None
        data = _read_private(self.path.with_suffix(".out"), MAX_CACHE_BYTES)
        if data is None:
            return None
        mac, _, rest = data.partition(b"\n")
        if not authentic(self._key, mac, rest):
            return None
        stored_key, _, compressed = rest.partition(b"\n")
        if stored_key != _digest(key.encode("utf-8")).encode():
            return None
        try:
            return zlib.decompress(compressed)
        except zlib.error:
            return None

    def put_output(self, key: str, output: bytes) -> None:
        """Keep ``output`` (what a command printed) under ``key``, which must name everything it
        depends on; one output per project, the last one written. Never raises."""
        if self.path is None or self._key is None:
            return
        rest = _digest(key.encode("utf-8")).encode() + b"\n" + zlib.compress(output, 1)
        try:
            from cogtools.core.fsutil import replace_file  # only a run that writes pays for it

            replace_file(self.path.with_suffix(".out"), _mac(self._key, rest) + b"\n" + rest)
        except OSError:
            pass

    def config_entry(self, path: str, stat: Stat) -> dict[str, t.Any] | None:
        """What :meth:`put_config` kept of the configuration file at ``path``, if the file is
        still as it was read (``stat``)."""
        return self.get(CONFIG_KEY + path, stat)

    def put_config(self, path: str, stat: Stat, entry: dict[str, t.Any]) -> None:
        """Keep ``entry``, the reading of the configuration file at ``path`` as it is at ``stat``;
        the fast index carries it, so that a call reads its configuration with it."""
        self.put(CONFIG_KEY + path, stat, entry)

    def tool(self, located: Located, name: str) -> dict[str, t.Any] | None:
        r"""The whole form (``Tool.to_dict``) of the tool ``name`` where the fast index
        :meth:`~FastIndex.locate`\ d it, or None when it cannot be had as it was written."""
        if self.fast is None:
            return None
        payload = self.payload({"ref": located.ref}, self.fast.segments)
        tools = payload.get("tools") if isinstance(payload, dict) else None
        if not isinstance(tools, list) or not 0 <= located.within < len(tools):
            return None
        found = tools[located.within]
        return found if isinstance(found, dict) and found.get("name") == name else None

    def get(self, path: str, stat: Stat) -> dict[str, t.Any] | None:
        """The entry for ``path`` if it was made from the file as it is now."""
        entry = self.fast.config(path) if self.fast is not None and path.startswith(CONFIG_KEY) else None
        if not (isinstance(entry, dict) and entry.get("stat") == stat):
            entry = self._old.get(path)
        if isinstance(entry, dict) and entry.get("stat") == stat:
            self._new[path] = entry
            return entry
        return None

    def put(self, path: str, stat: Stat, entry: dict[str, t.Any], payload: t.Any = None) -> None:
        """Keep ``entry`` for ``path`` as it is at ``stat``, with ``payload`` (JSON data, read
        back by :meth:`payload`) when it has one."""
        self._dirty = True
        if time.time_ns() - stat[2] > RACY_SECONDS * 1e9:
            self._new[path] = {"stat": stat, **entry}
            if payload is not None:
                self._payloads[path] = _compress(payload)

    def payload(self, entry: t.Mapping[str, t.Any], segments: list[str] | None = None) -> t.Any:
        """The payload of a cached entry (of the whole index, or of ``segments``' index), or None
        when it cannot be had as it was written (a segment gone, cut, or changed): then the
        caller reads the definition again."""
        ref = entry.get("ref")
        if self.path is None or not (
            isinstance(ref, list)
            and len(ref) == 4
            and all(isinstance(x, int) and not isinstance(x, bool) for x in ref[:3])
        ):
            return None
        segments = self._segments if segments is None else segments
        index, offset, length, digest = ref
        if not 0 <= index < len(segments) or offset < 0 or not 0 < length <= MAX_CACHE_BYTES:
            return None
        data = _read_private(self.path.parent / segments[index], MAX_CACHE_BYTES, (offset, length))
        if data is None or not isinstance(digest, str) or not compare_digest(_digest(data), digest):
            return None
        try:
            return _decompress(data)
        except (ValueError, zlib.error):
            return None

    def save(self, fast: Walked | None = None) -> None:
        """Write the entries used in this run, when anything changed, and the fast index when
        ``fast`` says what it holds and it is not the one read; never raises."""
        self.vouched = False
        if self.path is None or self._key is None:
            return
        changed = self._dirty or self._new.keys() != self._old.keys()
        current = fast is not None and not fast.racy and self._fast_is_current(fast)
        if not changed and (fast is None or fast.racy or current):
            self.vouched = current
            return
        directory = self.path.parent
        try:
            if changed:
                segments, files = self._segment_entries(directory)
                self._write(self.path, {"stamp": self._stamp, "segments": segments, "files": files})
                self._full = (files, segments)
            else:
                files, segments = self._index()
            if fast is not None and not fast.racy:
                self.fast_mac = self._write(self.path.with_suffix(".fast"), self._fast_document(fast, files, segments))
                self.vouched = True
        except OSError:
            return
        if changed:
            self._remove_unused(directory, set(segments))

    def _write(self, path: Path, document: dict[str, t.Any]) -> str:
        """Write ``document`` with its MAC, and return the MAC."""
        assert self._key is not None
        payload = json.dumps(document, separators=(",", ":")).encode("utf-8")
        mac = _mac(self._key, payload)
        from cogtools.core.fsutil import replace_file  # only a run that writes pays for it

        replace_file(path, mac + b"\n" + payload)
        return mac.decode()

    def _fast_document(self, fast: Walked, files: dict[str, t.Any], segments: list[str]) -> dict[str, t.Any]:
        # One line per tool, "name\tsource\tfile\tindex\tref" (a name holds no tab or newline),
        # each after a newline, so that a call finds its own with one search of the text.
        lines = [""]
        for name, (source, position, index) in fast.winners.items():
            _, key, _ = fast.walks[source].files[position]
            ref = files.get(key, {}).get("ref")
            if ref is not None:
                lines.append(f"{name}\t{source}\t{position}\t{index}\t{json.dumps(ref, separators=(',', ':'))}")
        tools = "\n".join(lines)
        return {
            "stamp": self._stamp,
            "signature": fast.signature,
            "segments": segments,
            "config": {key: entry for key, entry in files.items() if key.startswith(CONFIG_KEY)},
            "sources": _fast_sources(fast),
            "tools": tools,
        }

    def _fast_is_current(self, fast: Walked) -> bool:
        return self.fast is not None and self.fast.holds(fast)

    def _segment_entries(self, directory: Path) -> tuple[list[str], dict[str, t.Any]]:
        """The segments and entries of the index to write: this run's payloads in a new segment,
        or every live payload in one when the old segments have grown too many or too empty."""
        files = dict(self._new)
        kept = {key: entry["ref"] for key, entry in files.items() if key not in self._payloads and "ref" in entry}
        used = sorted({ref[0] for ref in kept.values()})
        total = 0
        for index in used:
            try:
                total += (directory / self._segments[index]).stat().st_size
            except OSError:
                pass
        payloads = dict(self._payloads)
        if len(used) + bool(payloads) > MAX_SEGMENTS or sum(ref[2] for ref in kept.values()) < total / 2:
            for key in kept:
                data = self.payload(files[key])
                if data is None:
                    del files[key]  # read again next time
                else:
                    payloads[key] = _compress(data)
            kept, used = {}, []
        renumber = {old: new for new, old in enumerate(used)}
        for key, ref in kept.items():
            files[key] = {**files[key], "ref": [renumber[ref[0]], *ref[1:]]}
        segments = [self._segments[index] for index in used]
        if payloads:
            name = f"{self._prefix}-{os.urandom(8).hex()}.dat"
            offset = 0
            for key, data in payloads.items():
                files[key] = {**files[key], "ref": [len(segments), offset, len(data), _digest(data)]}
                offset += len(data)
            from cogtools.core.fsutil import replace_file

            replace_file(directory / name, b"".join(payloads.values()))
            segments.append(name)
        return segments, files

    def _remove_unused(self, directory: Path, keep: set[str]) -> None:
        now = time.time()
        try:
            names = [
                name for name in os.listdir(directory) if name.startswith(f"{self._prefix}-") and name.endswith(".dat")
            ]
        except OSError:
            return
        for name in names:
            if name in keep:
                continue
            try:
                if now - os.lstat(directory / name).st_mtime > SEGMENT_GRACE_SECONDS:
                    os.unlink(directory / name)
            except OSError:
                pass
