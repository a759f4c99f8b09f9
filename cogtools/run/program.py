"""What every implementation kind that runs a program shares (``command``, ``script``,
``python``, ``http``'s limits): its settings and their checks, the limits it runs under, what a
dry run shows of it, and the result made of what it printed."""

from __future__ import annotations

import os
import re
import typing as t
from pathlib import Path

from cogtools.core.errors import ExecutionFailedError
from cogtools.run.keys import TypeSpec, fail
from cogtools.run.process import Finished, describe_failure

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool
    from cogtools.run import RunContext

#: The settings of every kind that runs a program (``command`` and ``script``).
PROGRAM_SETTINGS: dict[str, TypeSpec] = {
    "timeout": (int, float),
    "max_output_bytes": int,
    "stderr": str,
    "success_exit_status": list,
    "empty_result": str,
}
#: What becomes of stderr when the program succeeds.
STDERR_CHOICES = ("drop", "append")


def check_program_settings(tool: Tool) -> None:
    """DEFINITION_INVALID for a value of :data:`PROGRAM_SETTINGS` out of its range (the types
    are :func:`check_keys`' business)."""
    spec = tool.implementation.spec
    if spec.get("stderr", "drop") not in STDERR_CHOICES:
        fail(tool, f"`stderr` is one of {', '.join(STDERR_CHOICES)}", "stderr")
    for key in ("timeout", "max_output_bytes"):
        if key in spec and not spec[key] > 0:
            fail(tool, f"`{key}` is a positive number", key)
    for index, status in enumerate(spec.get("success_exit_status", ())):
        if isinstance(status, bool) or not isinstance(status, int) or not 1 <= status <= 255:
            fail(
                tool,
                f"`success_exit_status` lists exit statuses from 1 to 255 that mean success besides 0, not {status!r}",
                "success_exit_status",
                index,
            )


class Planned(t.NamedTuple):
    """A program as a tool would run it: what ``run`` runs and ``preview`` shows."""

    argv: list[str]
    stdin: bytes
    cwd: str
    env: dict[str, str]
    #: The files it runs whose bytes a pin check read (real path, bytes): the program sees those
    #: bytes at those paths, whatever is written there since (:func:`checked_files`).
    bound: tuple[tuple[str, bytes], ...] = ()
    #: The files of the workspace it runs (its script, the scripts its command names), which it
    #: may read even when it may read nothing else of the project (:mod:`cogtools.run.confine`).
    runs: tuple[str, ...] = ()

    def run(self, tool: Tool, context: RunContext) -> Finished:
        """Run it, under the tool's limits and in the confinement of its context."""
        from cogtools.run.process import run_program

        return run_program(
            self.argv,
            stdin=self.stdin,
            cwd=self.cwd,
            env=self.env,
            bound=self.bound,
            confine=context.confinement,
            runs=self.runs,
            **limits(tool, context),
        )


def describe(tool: Tool, planned: Planned, context: RunContext) -> dict[str, t.Any]:
    """What a dry run shows of a program: its argv, input, directory, the names (never the
    values) of its environment, and its limits."""
    spec = tool.implementation.spec
    shown = limits(tool, context)
    out: dict[str, t.Any] = {"argv": planned.argv}
    if planned.bound:  # it sees these as the pin check read them (cogtools.run.bind)
        out["checked"] = [path for path, _ in planned.bound]
    if planned.stdin:
        out["stdin"] = planned.stdin.decode("utf-8", "replace")
    if context.confinement is not None or tool.metadata.side_effects is None:
        from cogtools.run.confine import describe as confinement

        out["confinement"] = confinement(context.confinement)
    out.update(
        cwd=planned.cwd,
        environment=sorted(planned.env),
        limits={"timeout": shown["timeout"], "max_output_bytes": shown["max_output"]},
    )
    for key in ("stderr", "success_exit_status", "empty_result"):
        if key in spec:
            out[key] = spec[key]
    return out


def limits(tool: Tool, context: RunContext) -> dict[str, t.Any]:
    """The keyword arguments of :func:`run_program` that bound a tool's program."""
    spec = tool.implementation.spec
    return {
        "timeout": float(spec.get("timeout", context.limits["timeout"])),
        "max_output": int(spec.get("max_output_bytes", context.limits["max_output_bytes"])),
        "tool": tool.name,
    }


def result(tool: Tool, program: str, finished: Finished, context: RunContext) -> str:
    """The result of a finished program, or EXECUTION_FAILED when its exit status is not one
    that the tool counts as success."""
    from cogtools.core.environment import scrub

    spec = tool.implementation.spec
    if finished.status != 0 and finished.status not in spec.get("success_exit_status", ()):
        raise describe_failure(program, finished, tool.name, lambda text: scrub(text, context.environment.values()))
    if tool.output_media_type is not None:
        return media(tool, program, finished)
    return output(finished, append_stderr=spec.get("stderr", "drop") == "append", empty=spec.get("empty_result"))


def media(tool: Tool, program: str, finished: Finished) -> str:
    """The bytes a program printed for a tool that declares their media type, as base64 text
    (how a result travels); EXECUTION_FAILED when they were cut at the output limit (an image
    cut short is no image)."""
    import base64

    if finished.dropped:
        raise ExecutionFailedError(
            f"{program!r} printed more than the output limit allows ({len(finished.stdout) + finished.dropped} bytes"
            f" of {tool.output_media_type}); raise max_output_bytes",
            tool=tool.name,
            details={"program": program, "media_type": tool.output_media_type},
        )
    if tool.output_media_type == MULTIPART:
        try:
            parts(finished.stdout)
        except ValueError as e:
            raise ExecutionFailedError(
                f"{program!r} printed no multipart/mixed entity that cogtools can read: {e}",
                tool=tool.name,
                details={"program": program, "media_type": MULTIPART},
            ) from None
    return base64.b64encode(finished.stdout).decode("ascii")


#: The media type of a result of several parts: a MIME entity (RFC 2046) the program prints.
MULTIPART = "multipart/mixed"
#: The most parts such a result may have.
MAX_PARTS = 64


def parts(data: bytes) -> list[tuple[str, bytes]]:
    """The parts of a ``multipart/mixed`` entity (its ``Content-Type`` header with the boundary,
    a blank line, then the parts, each with its own headers): each part's media type and bytes
    (decoded from base64 or quoted-printable, as its ``Content-Transfer-Encoding`` says). Raises
    ValueError for what is not such an entity, a part that is multipart itself, or more than
    :data:`MAX_PARTS` parts."""
    import email
    import email.policy

    message = email.message_from_bytes(data, policy=email.policy.compat32)
    if message.get_content_type() != MULTIPART:
        raise ValueError(f"its Content-Type is {message.get_content_type()}, not {MULTIPART}")
    found = message.get_payload()
    if not message.is_multipart() or not isinstance(found, list) or not found:
        raise ValueError("it has no part (no boundary in its Content-Type, or no line --BOUNDARY)")
    if len(found) > MAX_PARTS:
        raise ValueError(f"more than {MAX_PARTS} parts")
    out = []
    for number, part in enumerate(found, 1):
        if part.is_multipart():
            raise ValueError(f"part {number} is multipart itself")
        payload = part.get_payload(decode=True)
        out.append((part.get_content_type(), payload if isinstance(payload, bytes) else b""))
    if message.defects:
        raise ValueError(f"{type(message.defects[0]).__name__}")
    return out


def output(finished: Finished, *, append_stderr: bool, empty: str | None = None) -> str:
    """The result text: stdout (with a marker when it was cut), or ``empty`` when stdout holds
    nothing but white space; and stderr when asked for."""
    text = finished.stdout.decode("utf-8", "replace")
    if empty is not None and not text.strip() and not finished.dropped:
        text = empty
    if finished.dropped:
        if text and not text.endswith("\n"):
            text += "\n"
        text += f"[cogtools: output truncated: {finished.dropped} more bytes not shown]\n"
    if append_stderr and finished.stderr:
        text += "[stderr]\n" + finished.stderr.decode("utf-8", "replace")
    return text


def named_files(words: t.Iterable[str], cwd: Path) -> list[Path]:
    """The files the literal words of a command line name, relative to ``cwd`` (where the program
    runs): a path (``./bin/tool``, ``scripts/count.sh``) or a name with a suffix (``count.sh``)
    that is a regular file there. A template or an option names none."""
    found = []
    for word in words:
        if not word or "{{" in word or "{%" in word or word.startswith("-"):
            continue
        path = Path(word) if Path(word).is_absolute() else cwd / word
        if ("/" in word or path.suffix) and os.path.isfile(path):  # a word past NAME_MAX names none
            found.append(path)
    return found


#: Programs that run code given on their command line, and the options that give it: code that
#: can do anything (write, reach the network, signal other processes).
INLINE_CODE: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish"), ("-c",)),
    **dict.fromkeys(("python", "python2", "python3", "pypy", "pypy3"), ("-c",)),
    **dict.fromkeys(("node", "nodejs", "deno", "bun"), ("-e", "--eval", "-p", "--print")),
    **dict.fromkeys(("perl", "ruby"), ("-e", "-E")),
    "php": ("-r",),
    **dict.fromkeys(("pwsh", "powershell", "powershell.exe"), ("-c", "-command", "-encodedcommand", "-e", "-ec")),
    "cmd": ("/c", "/k"),
    "cmd.exe": ("/c", "/k"),
    "osascript": ("-e",),
}
#: The options of the wrappers that take a value (``timeout -s KILL``, ``sudo -u root``).
WRAPPER_VALUES = frozenset("-s -k --signal --kill-after -n -u -g -C --chdir -i -o -e -c -I -L -P -d".split())
#: Options of shells and interpreters that take a value, before the code or the script.
INTERPRETER_VALUES = frozenset("-o +o -O +O -W -X --rcfile --init-file -r --require".split())


def _inline_code(program: str, words: t.Sequence[str]) -> str | None:
    """The option that gives ``program`` its code on the command line, when one does: ``-c``,
    in a cluster too (``sh -ec``, ``python3 -Ic``, ``perl -we``), or glued to its code
    (``--eval=...``). Only the options before the script or code count: ``python3 x.py -c cfg``
    gives ``x.py`` an option."""
    code = INLINE_CODE.get(program) or INLINE_CODE.get(program.rstrip("0123456789.")) or ()
    # single-letter options that may be clustered (POSIX style; PowerShell's and cmd's are not)
    clustered = {option[1] for option in code if len(option) == 2 and option[0] == "-"}
    if program.startswith(("pwsh", "powershell", "cmd")):
        clustered = set()
    prefixes = ("-", "+", "/") if program.startswith("cmd") else ("-", "+")
    for index, word in enumerate(words):
        low = word.lower()
        if low in code or any(low.startswith(option + "=") for option in code if option.startswith("--")):
            return word
        if low.startswith("-") and not low.startswith("--") and len(low) > 2 and clustered & set(word[1:]):
            return word
        if not low.startswith(prefixes) and (index == 0 or words[index - 1] not in INTERPRETER_VALUES):
            return None  # the script: what follows is its own
    return None


#: Programs whose whole job is to change files.
WRITING = frozenset(
    "rm rmdir mv cp dd tee touch mkdir ln chmod chown chgrp truncate install shred unlink mkfifo mknod"
    " patch split csplit".split()
)
#: Programs whose whole job is to reach the network.
NETWORKING = frozenset(
    "curl wget ssh scp sftp rsync nc ncat netcat socat telnet ftp ping dig nslookup host whois http https"
    " aria2c".split()
)
#: Programs whose whole job is to signal or trace other processes.
SIGNALLING = frozenset("kill pkill killall taskkill renice strace ltrace gdb".split())
#: Programs that run the rest of their command line (``env sh -c ...``): what they run is judged.
WRAPPERS = frozenset("env nice nohup timeout stdbuf ionice setsid sudo doas exec command xargs busybox".split())
#: git's subcommands that write the work tree or the repository, and those that reach a remote.
GIT_WRITES = frozenset(
    "add am apply checkout cherry-pick clean clone commit init merge mv pull rebase reset restore revert rm stash switch"
    " tag worktree".split()
)
GIT_REMOTE = frozenset("clone fetch ls-remote pull push submodule".split())


def program_effects(argv: t.Sequence[str]) -> dict[str, str]:
    """The side effects that plainly follow from a command line's literal words (effect -> why):
    a shell or interpreter given code (``sh -c``) can do anything; ``rm`` writes; ``curl``
    reaches the network; ``kill`` signals other processes; ``find -exec`` runs what follows it.
    Templates are not judged: a value a call gives is an argument (it stands as ``{{}}``), never
    a program or an option."""
    import os

    words = ["{{}}" if "{{" in word or "{%" in word else word for word in argv]
    start = 0
    if words and os.path.basename(words[0]) == "env" and "-S" in words:
        split = words.index("-S")  # env -S 'sh -c ...': the string is a command line of its own
        words = [*words[:split], *" ".join(words[split + 1 :]).split()]
    if words and os.path.basename(words[0]) in WRAPPERS:
        # env FOO=1 nice -n 5 timeout -s KILL 10 sh -c ...: the program is the first word that
        # is none of those, nor the value of a wrapper's option
        while start < len(words) - 1 and (
            os.path.basename(words[start]) in WRAPPERS
            or "=" in words[start]
            or words[start].startswith("-")
            or words[start].replace(".", "").isdigit()
            or words[start - 1] in WRAPPER_VALUES
        ):
            start += 1
    if not words or start >= len(words):
        return {}
    program = os.path.basename(words[start]).lower()
    given = _inline_code(program, words[start + 1 :])
    if given is not None:
        return _anything(f"it runs code given on the command line ({program} {given})")
    rule = _RULES.get(program)
    found = rule(program, words[start + 1 :]) if rule is not None else {}
    if program in WRITING or (program == "sed" and any(w == "-i" or w.startswith(("-i", "--in-place")) for w in words)):
        found["filesystem_write"] = f"it runs {program}, which changes files"
    if program in NETWORKING:
        found["network"] = f"it runs {program}, which reaches the network"
    if program in SIGNALLING:
        found["process"] = f"it runs {program}, which signals or traces other processes"
    return found


def program_configuration(argv: t.Sequence[str], cwd: Path) -> list[Path]:
    """The files a program reads from where it runs that can make it run other programs, which
    the workspace can write: for git, the repository's configuration (``core.fsmonitor``, an
    alias with ``!``, a filter, a hook path) and the files it includes, a ``commondir`` that
    moves it, and the hooks; found as git finds them, upwards from ``cwd``. A file that is not
    there yet is named too, so that one written later is a change."""
    import os

    if not argv or os.path.basename(argv[0]) != "git":
        return []
    git_dir = _git_dir(cwd)
    if git_dir is None:
        return []
    files = [git_dir / "config", git_dir / "commondir"]
    common = git_dir
    pointer = _read_small(git_dir / "commondir")
    if pointer:
        common = git_dir / pointer.strip()
        files.append(common / "config")
    for config in list(files):
        files += _git_includes(config)
    hooks = common / "hooks"
    try:
        files += sorted(p for p in hooks.iterdir() if not p.name.endswith(".sample") and p.is_file())[:MAX_HOOKS]
    except OSError:
        pass
    return files


#: At most this many of a repository's hooks are covered.
MAX_HOOKS = 64


def _git_dir(cwd: Path) -> Path | None:
    """The repository git finds from ``cwd``: a ``.git`` directory, or what a ``.git`` file
    (a worktree, a submodule) points at."""
    for directory in (cwd, *cwd.parents):
        dotgit = directory / ".git"
        if dotgit.is_dir():
            return dotgit
        if dotgit.is_file():
            text = _read_small(dotgit) or ""
            return directory / text[len("gitdir:") :].strip() if text.startswith("gitdir:") else None
    return None


def _git_includes(config: Path) -> list[Path]:
    """The files a git configuration file includes (``[include] path = ...``, ``[includeIf]``),
    relative to its own directory; one under ``~`` is the user's own, not the workspace's."""
    text = _read_small(config, 256 * 1024) or ""
    found = []
    for match in re.finditer(r"^\s*path\s*=\s*(.+?)\s*$", text, re.MULTILINE):
        value = match.group(1).strip('"')
        if value and not value.startswith("~"):
            found.append(config.parent / value)
    return found


def _read_small(path: Path, limit: int = 4096) -> str | None:
    """The start of a regular file, as text; None when it is not one or cannot be read."""
    try:
        if not path.is_file():
            return None
        with path.open("rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


def code_on_stdin(argv: t.Sequence[str]) -> str | None:
    """The program of ``argv`` when it is a shell or an interpreter given no script and no code
    (``[sh]``, ``[python3, -u]``): it runs what it reads on stdin. None otherwise."""
    import os

    if not argv or "{{" in argv[0]:
        return None
    program = os.path.basename(argv[0]).lower()
    if program in INLINE_CODE or program.rstrip("0123456789.") in INLINE_CODE:
        if all(word.startswith(("-", "+")) for word in argv[1:]):
            return program
    return None


def _anything(why: str) -> dict[str, str]:
    """What code that can do anything plainly may do."""
    return dict.fromkeys(("filesystem_write", "network", "process"), f"{why}, which can do anything")


#: git settings that make git run a program (an alias with ``!``, a hook path, a pager...).
_GIT_RUNS = re.compile(
    r"^(alias\.[^=]*=!|core\.(sshcommand|pager|editor|fsmonitor|hookspath|askpass|gitproxy)"
    r"|sequence\.editor|diff\.external|credential\.helper|uploadpack\.packobjectshook)",
    re.IGNORECASE,
)


def _git(program: str, words: t.Sequence[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    sub, rest = "", iter(words)
    for word in rest:
        if word in ("-c", "-C", "--git-dir", "--work-tree", "--namespace", "--exec-path"):
            value = next(rest, "")
            if word == "-c" and _GIT_RUNS.match(value) or word == "--exec-path":
                return _anything(f"it runs git {word} {value}, which makes git run another program")
        elif word.startswith("--exec-path="):
            return _anything(f"it runs git {word}, which makes git run another program")
        elif not word.startswith("-"):
            sub = word.lower()
            break
    after = list(rest)
    if sub in GIT_WRITES or sub == "config" and len([w for w in after if not w.startswith("-")]) > 1:
        found["filesystem_write"] = f"it runs git {sub}, which changes files"
    if sub == "branch" and any(w in ("-d", "-D", "-m", "-M", "--delete", "--move", "-f", "--force") for w in after):
        found["filesystem_write"] = f"it runs git {sub}, which changes the repository"
    if sub in GIT_REMOTE:
        found["network"] = f"it runs git {sub}, which reaches a remote"
    return found


def _find(program: str, words: t.Sequence[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for index, word in enumerate(words):
        if word in ("-delete", "-fprint", "-fprint0", "-fprintf", "-fls"):
            found["filesystem_write"] = f"it runs find {word}, which changes files"
        if word in ("-exec", "-execdir", "-ok", "-okdir"):
            end = next((i for i in range(index + 1, len(words)) if words[i] in (";", "+")), len(words))
            for effect, why in program_effects(words[index + 1 : end]).items():
                found.setdefault(effect, f"{why} (through find {word})")
    return found


#: What an awk program does that is more than reading: run a command, write a file.
_AWK_ACTS = re.compile(r"\bsystem\s*\(|\|\s*getline|\|&|[|>]\s*\"|print[^;}]*>")


def _awk(program: str, words: t.Sequence[str]) -> dict[str, str]:
    rest = iter(words)
    text = ""
    for word in rest:
        if word in ("-F", "-v", "-f"):
            next(rest, None)  # the option's value (-f: the program is a file, not judged)
            if word == "-f":
                return {}
        elif not word.startswith("-"):
            text = word
            break
    if _AWK_ACTS.search(text):
        return _anything(f"it runs {program} with a program that runs commands or writes files")
    return {}


def _tar(program: str, words: t.Sequence[str]) -> dict[str, str]:
    first = words[0] if words else ""
    modes = first if not first.startswith("-") else ""  # tar xf a.tar: the old style
    for word in words:
        if word.startswith("--") and word.split("=")[0] in ("--extract", "--get", "--create", "--append", "--update"):
            modes += "x"
        elif word.startswith("-") and not word.startswith("--"):
            modes += word[1:]
    if set(modes) & set("xcru"):
        return {"filesystem_write": f"it runs {program} to extract or write an archive, which changes files"}
    return {}


#: The programs whose effects depend on their arguments, each with its reading of them.
_RULES: dict[str, t.Callable[[str, t.Sequence[str]], dict[str, str]]] = {
    "git": _git,
    "find": _find,
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk"), _awk),
    **dict.fromkeys(("tar", "bsdtar", "gtar"), _tar),
}


#: The shells whose scripts source others (``. "$(dirname "$0")/lib.sh"``).
SHELLS = frozenset("sh bash dash zsh ksh mksh ash".split())
#: At most this many files beside a script are covered.
MAX_NEIGHBOURS = 256


#: The suffixes of JavaScript and TypeScript modules.
JAVASCRIPT = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts")


def script_neighbours(script: Path, interpreter: t.Sequence[str]) -> list[Path]:
    """The files beside ``script`` that it may source or import, which its pin covers as it
    covers the script: for a Python script, the modules and packages (whole) of its directory,
    which is the first place it imports from; for a shell script, the shell scripts of its
    directory; for JavaScript or TypeScript, the modules of its directory and below (relative
    imports: ``./lib/x.mjs``; JSON modules too) but for ``node_modules``, and the directory's
    ``package.json`` (its ``type`` decides how node reads the script). What it reaches any other
    way (a package of ``node_modules``) is not known."""
    import os

    words = [os.path.basename(word) for word in interpreter if not word.startswith("-") and "=" not in word]
    program = next((word for word in words if word != "env"), "")
    directory = script.parent
    try:
        if script.suffix == ".py" or program.startswith("python"):
            found = sorted(directory.glob("*.py"))
            for package in sorted(directory.glob("*/__init__.py")):
                found += sorted(package.parent.rglob("*.py"))
        elif script.suffix in (".sh", ".bash") or program in SHELLS:
            found = sorted([*directory.glob("*.sh"), *directory.glob("*.bash")])
        elif script.suffix in JAVASCRIPT or program in ("node", "nodejs", "bun", "deno"):
            found = _modules(directory)
        else:
            return []
    except OSError:
        return []
    return [path for path in found if path != script][:MAX_NEIGHBOURS]


def _modules(directory: Path) -> list[Path]:
    """The JavaScript, TypeScript and JSON files of ``directory`` and below (no link followed, no
    ``node_modules`` or hidden directory entered), sorted; at most one more than
    :data:`MAX_NEIGHBOURS` are looked for."""
    import os

    found: list[Path] = []
    for top, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if d != "node_modules" and not d.startswith("."))
        found += [Path(top, name) for name in sorted(files) if os.path.splitext(name)[1] in (*JAVASCRIPT, ".json")]
        if len(found) > MAX_NEIGHBOURS:
            break
    return sorted(found)


def checked_files(paths: t.Iterable[Path], checked: t.Mapping[str, bytes]) -> tuple[tuple[str, bytes], ...]:
    """Those of ``paths`` (what a program runs: its script, a script it is given) whose bytes a
    pin check read, each as (real path, bytes): what :func:`~cogtools.run.process.run_program`
    shows the program in their place."""
    import os

    found = {os.path.realpath(path) for path in paths}
    return tuple((real, checked[real]) for real in sorted(found) if real in checked)
