"""What a command line plainly does, read from its literal words: the side effects that follow
from the program it runs and how (a shell given code can do anything, ``rm`` writes, ``curl``
reaches the network, ``git push`` a remote, ``find -exec`` runs what follows it), and whether it
runs code it reads on stdin. A knowledge base of programs and their options, for the outline a
person allowing a tool reads and for lint; a run never consults it."""

from __future__ import annotations

import os
import re
import typing as t

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
    words = _words(argv)
    start = _program_index(words)
    if start is None:
        return {}
    program = os.path.basename(words[start]).lower()
    given = _inline_code(program, words[start + 1 :])
    if given is not None:
        return _anything(f"it runs code given on the command line ({program} {given})")
    rule = _RULES.get(program)
    found = rule(program, words[start + 1 :]) if rule is not None else {}
    found.update(_whole_job(program, words))
    return found


def _words(argv: t.Sequence[str]) -> list[str]:
    """The words of a command line as judged: a template stands as ``{{}}``; the string of
    ``env -S`` is a command line of its own (``env -S 'sh -c ...'``), split into words."""
    words = ["{{}}" if "{{" in word or "{%" in word else word for word in argv]
    if words and os.path.basename(words[0]) == "env" and "-S" in words:
        split = words.index("-S")
        words = [*words[:split], *" ".join(words[split + 1 :]).split()]
    return words


def _program_index(words: t.Sequence[str]) -> int | None:
    """Where the program that does the work is among ``words``, past any wrappers (``env FOO=1
    nice -n 5 timeout -s KILL 10 sh -c ...``: the first word that is none of those, nor the value
    of a wrapper's option); None for no program."""
    start = 0
    if words and os.path.basename(words[0]) in WRAPPERS:
        while start < len(words) - 1 and (
            os.path.basename(words[start]) in WRAPPERS
            or "=" in words[start]
            or words[start].startswith("-")
            or words[start].replace(".", "").isdigit()
            or words[start - 1] in WRAPPER_VALUES
        ):
            start += 1
    if not words or start >= len(words):
        return None
    return start


#: What a program whose whole job is one side effect plainly does: its effect, and the end of the
#: reason ("it runs rm, which changes files").
_WHOLE_JOBS: tuple[tuple[frozenset[str], str, str], ...] = (
    (WRITING, "filesystem_write", "changes files"),
    (NETWORKING, "network", "reaches the network"),
    (SIGNALLING, "process", "signals or traces other processes"),
)


def _whole_job(program: str, words: t.Sequence[str]) -> dict[str, str]:
    """The effects of ``program`` when its whole job is one (:data:`_WHOLE_JOBS`), and of
    ``sed -i``, which changes files."""
    found = {effect: f"it runs {program}, which {does}" for names, effect, does in _WHOLE_JOBS if program in names}
    if program == "sed" and any(w == "-i" or w.startswith(("-i", "--in-place")) for w in words):
        found["filesystem_write"] = f"it runs {program}, which changes files"
    return found


def code_on_stdin(argv: t.Sequence[str]) -> str | None:
    """The program of ``argv`` when it is a shell or an interpreter given no script and no code
    (``[sh]``, ``[python3, -u]``): it runs what it reads on stdin. None otherwise."""
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
