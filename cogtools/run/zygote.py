"""The program a warm sandbox keeps running (:mod:`cogtools.run.warm`): inside bubblewrap's view
of one confinement, as the init (pid 1) of its own PID namespace (bubblewrap's ``--as-pid-1``), it
starts the programs of one call after another, each of them a child it forks where the
namespaces, the view, the dropped capabilities and the seccomp program are made already. As the
namespace's init, no program it starts can stop it (the kernel drops a signal it does not
handle, SIGSTOP too), nor trace it (it is undumpable: bubblewrap's own init, which lives
from call to call too, was a process a program could attach to and change), and it reaps what
a program orphans.

It runs on any Python 3.8 or later (the system's, where cogtools' own is not in the view). It is
run by the interpreter's path with ``-I -S -c`` and this file's text (cogtools' package is
not in the view), with the descriptor of its end of a ``SOCK_SEQPACKET`` pair and, in JSON, the
private directories of the view (``private``) and the paths it hides by a mount over them
(``masked``) as arguments; it imports only the standard library, all of it before the
first call. Its protocol, one JSON object a message:

- it says ``{"ready": true}`` once it runs, and again after every call when nothing the call made
  is left (no process, no file in the private directories, no System V IPC object, the
  directories as they were, no POSIX message queue, no key added to the keyrings it shares, no
  TCP connection in its own network namespace (one in TIME_WAIT), nothing it passes on to a
  program changed: its limits, niceness, scheduling, CPUs, I/O priority, OOM score, which any
  process of the user's may change), else ``{"ready": false}`` and it exits (the sandbox is not used
  again);
- it is sent ``{"argv": [...], "env": {...}, "cwd": "...", "fds": [N...]}`` with the program's
  stdin, stdout and stderr and a descriptor for each N (``SCM_RIGHTS``), which the program is
  given at that number, starts it in a session of its own and says ``{"pid": N}`` (N in its
  own namespace) or ``{"errno": E, "error": "..."}``; with ``"stale": true`` when a mount that
  hid a path is gone (the system renamed or removed the path it was on), and it starts nothing;
- when the program has ended, it kills every other process of the namespace (what the program
  left running) and says ``{"exit": STATUS}`` (negative: killed by that signal), but does not
  reap it until it is sent ``{"reap": true}``: until then its pid is its own, so that the caller
  may find it, wait for it and kill its group without reaching another process that took the
  number;
- the end of its socket (the server is gone) ends it, and with it the namespace.

It makes itself undumpable, so that a program it started cannot trace it or read its memory,
and its socket is none of a program's (closed as one starts): a program holding it could speak
for the zygote (a status of its own making, the next call's answers).
"""

from __future__ import annotations

import array
import ctypes
import itertools
import json
import os
import resource
import select
import signal
import socket
import stat
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # (annotations only: importing typing would cost each new sandbox some 3 ms)
    import typing as t

#: ``prctl(PR_SET_DUMPABLE, 0)``: no process without privileges may trace this one.
_PR_SET_DUMPABLE = 4
#: The largest message it takes, and the most descriptors one carries.
_MESSAGE = 1 << 20
_DESCRIPTORS = 8
_BUFFER = bytearray(_MESSAGE)
#: System V IPC objects of the namespace, one file each (a header line, then one line an object).
_SYSVIPC = ("/proc/sysvipc/shm", "/proc/sysvipc/sem", "/proc/sysvipc/msg")
#: The most entries a private directory may hold for its sandbox to serve again.
_ENTRIES = 256
#: How many times (a millisecond apart) it looks for the namespace to hold only itself.
_SETTLE = 50


def main(argv: t.Sequence[str]) -> int:
    if os.getpid() != 1:  # kill(-1) below must reach only a namespace of its own
        print("cogtools zygote: not the init of a PID namespace", file=sys.stderr)
        return 2
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    os.set_inheritable(int(argv[0]), False)  # (bubblewrap passed it on as one to inherit)
    sock = socket.socket(fileno=int(argv[0]))
    settings = json.loads(argv[1])
    private, masked = list(settings["private"]), list(settings["masked"])
    before = {path: _tree(path) for path in private}
    # what /dev/null hides is /dev/null (the system's, which bubblewrap shows in /dev too), not
    # what it is when this process starts: a file renamed over the mount before then shows
    null = _identity("/dev/null")
    hidden = {path: _identity(path) if path in private else null for path in masked}
    passed = _passed_on()
    queue_cost = _queue_cost()
    kept = _kept()
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    _send(sock, {"ready": True})
    while True:
        message, fds = _receive(sock)
        if message is None:
            return 0
        pid = _start(sock, message, fds) if _hiding(hidden) else _refuse(sock, fds)
        if pid is None:
            continue
        if not _serve(sock, pid, wake_read):
            _kill_all()
            return 0
        _kill_all()
        left = (
            _left(private, before)
            or (None if _hiding(hidden) else "a mount that hides a path is gone")
            or (None if _passed_on() == passed else "what it passes on to a program changed")
            or (None if queue_cost is None or _queue_fits(queue_cost) else "a POSIX message queue")
            or (None if _kept() == kept else "a key in a keyring, or a TCP connection")
        )
        _send(sock, {"ready": True} if left is None else {"ready": False, "left": left})
        if left is not None:
            return 0


def _serve(sock: socket.socket, pid: int, wake_read: int) -> bool:
    """Follow the program ``pid`` of a call: say its status when it has ended (what it left
    running killed), and return once the caller says to reap it (True), or its socket ends
    (False)."""
    status: int | None = None
    while True:
        ready, _, _ = select.select([sock.fileno(), wake_read], [], [])
        if sock.fileno() in ready:
            more, extra = _receive(sock)
            for fd in extra:
                os.close(fd)
            if more is None:
                return False
            if more.get("reap"):
                return True
        if wake_read in ready:
            os.read(wake_read, 512)
            _reap_orphans(pid)
        if status is None and (status := _ended(pid)) is not None:
            _kill(-1)  # what it left running; it stays a zombie, its pid its own, until reaped
            _send(sock, {"exit": status})


def _start(sock: socket.socket, message: dict[str, t.Any], fds: list[int]) -> int | None:
    """Start the program ``message`` names with ``fds`` as its stdin, stdout and stderr; its
    pid, or None when it could not start (and the caller is told why)."""
    try:
        targets = [int(number) for number in message.get("fds", [])]
        if len(fds) != 3 + len(targets) or any(number < 3 for number in targets):
            raise OSError(22, "a program needs its stdin, stdout and stderr, and its other descriptors")
        argv, env, cwd = list(message["argv"]), dict(message["env"]), str(message["cwd"])
        os.chdir(cwd)
        program = argv[0]
        found = program if os.sep in program else _which(program, env.get("PATH", os.defpath))
        if found is None:
            raise OSError(2, os.strerror(2))
        for fd in fds:
            os.set_inheritable(fd, False)  # the program gets its copies at 0, 1 and 2 only
        places = [0, 1, 2, *targets]  # (as many as fds: checked above)
        actions = [(os.POSIX_SPAWN_DUP2, fds[index], places[index]) for index in range(len(fds))]
        pid = os.posix_spawn(found, argv, env, file_actions=actions, setsid=True, setsigdef=_IGNORED)
    except OSError as e:
        _send(sock, {"errno": e.errno or 0, "error": e.strerror or str(e)})
        return None
    except (KeyError, TypeError, ValueError) as e:
        _send(sock, {"errno": 22, "error": f"a request it cannot read: {e}"})
        return None
    finally:
        for fd in fds:
            os.close(fd)
        os.chdir("/")
    _send(sock, {"pid": pid})
    return pid


def _which(program: str, path: str) -> str | None:
    """Where ``path`` finds the executable ``program``, as ``shutil.which`` does (not imported:
    each new sandbox would pay for it)."""
    for directory in path.split(os.pathsep):
        found = os.path.join(directory or os.curdir, program)
        if os.access(found, os.X_OK) and not os.path.isdir(found):
            return found
    return None


def _ignored() -> list[int]:
    """The signals this process ignores (Python ignores SIGPIPE and SIGXFSZ), which a program it
    starts would ignore too: each is set back to its default in the program, as a program of a
    bubblewrap of its own has it (``subprocess`` sets them back)."""
    try:
        with open("/proc/self/status", "rb") as f:
            mask = next(int(line.split()[1], 16) for line in f if line.startswith(b"SigIgn:"))
    except (OSError, StopIteration, ValueError, IndexError):
        mask = 0
    valid = signal.valid_signals()
    return [number for number in range(1, 65) if mask >> (number - 1) & 1 and number in valid]


_IGNORED = _ignored()


def _identity(path: str) -> tuple[int, int] | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


def _hiding(hidden: dict[str, tuple[int, int] | None]) -> bool:
    """Whether every mount that hides a path (a tmpfs, /dev/null over a file) is still there: a
    mount point that the system renames or removes is taken out of every namespace, and what
    it hid would show."""
    return all(_identity(path) == identity for path, identity in hidden.items())


def _refuse(sock: socket.socket, fds: list[int]) -> int | None:
    """Start nothing: the view is no longer what it was made to be (:func:`_hiding`)."""
    for fd in fds:
        os.close(fd)
    _send(sock, {"errno": 116, "error": "the sandbox's view changed", "stale": True})
    return None


def _ended(pid: int) -> int | None:
    """``pid``'s status once it has ended (as ``subprocess`` gives it: negative, the signal that
    killed it), else None; it is not reaped."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return -9
    if info is None:
        return None
    return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status


def _reap_orphans(pid: int) -> None:
    """Reap the children that have ended, but the program ``pid`` (what it orphaned came to this
    process, the namespace's init)."""
    while True:
        try:
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return
        if info is None or info.si_pid == pid:
            return  # (the program's end is the caller's to tell; what it left is killed then)
        try:
            os.waitpid(info.si_pid, 0)
        except ChildProcessError:
            return


#: What of this process's state a program it starts inherits, that another process of the
#: user's may change, under /proc/self.
_INHERITED = ("limits", "oom_score_adj", "autogroup", "coredump_filter", "timerslack_ns", "make-it-fail")
_LIBC = ctypes.CDLL(None, use_errno=True)
_MACHINE = os.uname().machine
#: ``ioprio_get``'s system call number, per machine.
_IOPRIO_GET = {"x86_64": 252, "aarch64": 31, "i686": 290, "i386": 290}


def _passed_on() -> list[t.Any]:
    """What this process passes on to the programs it starts and a program may change of it
    (``prlimit``, ``renice``, ``chrt``, ``taskset``, ``ionice``, its /proc files): a call must
    leave it as it was, or the next call would inherit it (or read it: a message)."""
    out: list[t.Any] = [_read(f"/proc/self/{name}") for name in _INHERITED]
    try:
        fields = (_read("/proc/self/stat") or b")").rsplit(b")", 1)[1].split()
        out.append([fields[15], fields[16], fields[37], fields[38]])  # priority, nice, rt priority, policy
    except IndexError:
        out.append(None)
    out.append(sorted(os.sched_getaffinity(0)))
    number = _IOPRIO_GET.get(_MACHINE)
    out.append(_LIBC.syscall(number, 1, 0) if number is not None else None)  # IOPRIO_WHO_PROCESS
    return out


#: ``keyctl``'s system call number, per machine.
_KEYCTL = {"x86_64": 250, "aarch64": 219, "i686": 288, "i386": 288}
#: The keyrings a program shares with the next call of its sandbox (its user namespace's): the
#: session keyring it inherits, the user's and the user's session keyring (and the user's
#: persistent keyring, :func:`_kept`).
_KEYRINGS = (-3, -4, -5)
#: The most keys looked at.
_KEYS = 256


#: The counts of /proc/net/sockstat that are a network namespace's own (``alloc``, ``orphan``
#: and ``mem`` are the machine's).
_OWN_COUNTS = (b"inuse", b"tw")


def _kept() -> tuple[t.Any, ...]:
    """What outlives a call in the namespaces a sandbox keeps, besides files, processes and IPC
    objects: the keys of the keyrings it shares (each key's id and description, keyrings
    followed), and the TCP connections of the network namespace when it is the sandbox's own
    (one that a call closed stays in TIME_WAIT for a minute, with the ports it chose: a message)."""
    keys: list[bytes] = []
    number = _KEYCTL.get(_MACHINE)
    if number is not None:
        syscall = _LIBC.syscall
        pending = [syscall(number, 0, ring, 0) for ring in _KEYRINGS]  # KEYCTL_GET_KEYRING_ID
        pending.append(syscall(number, 22, -1, -2))  # the user's persistent one (linked to its own)
        seen: set[int] = set()
        while pending and len(seen) < _KEYS:
            key = pending.pop()
            if key in seen or key <= 0:
                continue
            seen.add(key)
            text = ctypes.create_string_buffer(4096)
            size = syscall(number, 6, key, text, 4096)  # KEYCTL_DESCRIBE: type;uid;gid;perm;description
            keys.append(key.to_bytes(4, "little", signed=True) + text.raw[: max(size, 0)])
            if text.raw.startswith(b"keyring;"):
                linked = (ctypes.c_int32 * _KEYS)()
                length = syscall(number, 11, key, linked, ctypes.sizeof(linked))  # KEYCTL_READ
                pending += list(linked)[: max(length, 0) // 4]
    # the namespace's own socket counts (sockets in use, TCP's in TIME_WAIT), not its tables:
    # reading /proc/net/tcp walks the kernel's whole hash of connections, 3 ms each time
    counts: list[tuple[bytes, bytes, bytes]] = []
    for table in ("/proc/net/sockstat", "/proc/net/sockstat6"):
        counted = _read(table, 1 << 12)
        if counted is None:
            continue
        for line in counted.splitlines():
            label, _, rest = line.partition(b":")
            words = rest.split()
            pairs = [(words[index], words[index + 1]) for index in range(0, len(words) - 1, 2)]  # (3.8: no strict zip)
            counts += [(label, name, value) for name, value in pairs if name in _OWN_COUNTS]
    private = all(value == b"0" for _, _, value in counts)
    return (sorted(keys), counts if private else None)


#: The name of the queue that tells whether a call left one (:func:`_queue_fits`).
_QUEUE = b"/cogtools-zygote"


def _queue_cost() -> int | None:
    """What a POSIX message queue of one message of one byte counts against ``RLIMIT_MSGQUEUE``
    (found while the namespace holds none: the least limit under which one can be made); None
    when none can be made here (a program can leave none either)."""
    low, high = 1, 1 << 20
    if not _queue_fits(high):
        return None
    while low < high:
        middle = (low + high) // 2
        if _queue_fits(middle):
            high = middle
        else:
            low = middle + 1
    return low


def _queue_fits(limit: int) -> bool:
    """Whether a queue of one message of one byte can be made under a limit of ``limit`` bytes.
    Linux counts the bytes of the queues a user made against it per user namespace (each
    sandbox has its own), and a queue outlives the call that made it (none can list them from
    inside): under the cost of one queue, one can be made only when there is none."""
    soft, hard = resource.getrlimit(resource.RLIMIT_MSGQUEUE)
    try:
        resource.setrlimit(
            resource.RLIMIT_MSGQUEUE, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard)
        )
        attributes = (ctypes.c_long * 8)(0, 1, 1, 0)
        fd = _MQ_OPEN(_QUEUE, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600, attributes) if _MQ_OPEN else -1
        if fd < 0:
            return False
        os.close(fd)
        _MQ_UNLINK(_QUEUE)
        return True
    except (OSError, ValueError):
        return False
    finally:
        try:
            resource.setrlimit(resource.RLIMIT_MSGQUEUE, (soft, hard))
        except (OSError, ValueError):
            pass


def _libc_function(name: str) -> t.Any:
    """``name`` of the C library (or librt's, before glibc 2.34), or None."""
    for library in (None, "librt.so.1"):
        try:
            return getattr(ctypes.CDLL(library, use_errno=True), name)
        except (OSError, AttributeError):
            continue
    return None


_MQ_OPEN = _libc_function("mq_open")
_MQ_UNLINK = _libc_function("mq_unlink")


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _kill_all() -> None:
    """Kill every process of the namespace but this one and its init, and reap them."""
    _kill(-1)
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _left(private: list[str], before: dict[str, list[tuple[t.Any, ...]] | None]) -> str | None:
    """What a call left (in words), or None: the private directories are as they were when the
    sandbox started (what the view made in them, and nothing else), no System V IPC object is
    left, no process but this one (the namespace's init)."""
    for path in private:
        now = _tree(path)
        if now is None or now != before[path]:
            return f"{path} changed"
    for table in _SYSVIPC:
        if len((_read(table, 4096) or b"").splitlines()) > 1:
            return f"objects in {table}"
    for _ in range(_SETTLE):  # (what was killed is reaped: this process is the namespace's init)
        _reap_orphans(0)
        processes = sorted((name for name in os.listdir("/proc") if name.isdigit()), key=int)
        if processes == ["1"]:
            return None
        time.sleep(0.001)
    return "processes " + " ".join(processes)


def _tree(top: str) -> list[tuple[t.Any, ...]] | None:
    """What the file system of the directory ``top`` holds, each entry's path, inode, mode,
    owner, group, size, modification and change times and extended attributes (not inside
    another file system mounted there): a call that left nothing leaves it the same (a time set
    back leaves the change time, which no program sets, and which a change of content or of an
    attribute's value moves too); None past :data:`_ENTRIES` entries, or when it cannot be read."""
    out: list[tuple[t.Any, ...]] = []
    try:
        device = os.lstat(top).st_dev
        pending = [top]
        while pending:
            path = pending.pop()
            info = os.lstat(path)
            try:
                names = tuple(sorted(os.listxattr(path, follow_symlinks=False)))
            except OSError:
                names = ()
            out.append(
                (path, info.st_ino, info.st_mode, info.st_uid, info.st_gid, info.st_size)
                + (info.st_mtime_ns, info.st_ctime_ns, names)
            )
            if len(out) > _ENTRIES:
                return None
            if stat.S_ISDIR(info.st_mode) and info.st_dev == device:
                with os.scandir(path) as listing:  # (no more than it takes: a huge one is unfit)
                    pending += [entry.path for entry in itertools.islice(listing, _ENTRIES + 1)]
    except OSError:
        return None
    return sorted(out)


def _read(path: str, limit: int = 8192) -> bytes | None:
    """The first ``limit`` bytes of the file at ``path`` (a file of /proc), or None when it cannot
    be read (unbuffered: this process reads a dozen of them a call)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return os.read(fd, limit)
    except OSError:
        return None
    finally:
        os.close(fd)


def _send(sock: socket.socket, message: dict[str, t.Any]) -> None:
    sock.send(json.dumps(message).encode())


def _receive(sock: socket.socket) -> tuple[dict[str, t.Any] | None, list[int]]:
    """The next message and the descriptors it carries; None at the socket's end."""
    fds = array.array("i")
    try:  # (into a buffer kept from message to message: a new one of a megabyte each time costs more)
        size, ancillary, _, _ = sock.recvmsg_into([_BUFFER], socket.CMSG_SPACE(_DESCRIPTORS * fds.itemsize))
    except OSError:
        return None, []
    data = bytes(_BUFFER[:size])
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
    if not data:
        for fd in fds:
            os.close(fd)
        return None, []
    try:
        message = json.loads(data)
    except ValueError:
        message = {}
    return (message if isinstance(message, dict) else {}), list(fds)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
