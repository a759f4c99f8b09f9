"""The socket filter of a program without ``network`` (DESIGN §11), decoded: its classic BPF run
by a reader of seccomp's instructions here, for every architecture it is made for (x86_64 with
its i386 and x32 calls, aarch64), against what a no-network program may create; the reader
held to the running kernel's own verdicts where this machine can make those calls; the system
call numbers held to libseccomp's tables."""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import socket
import struct
import subprocess
import sys
import typing as t

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cogtools.run import confine
from cogtools.run.confine import FILTERED, filtered, unix_socket_filter

from .conftest import examples

EPERM_REFUSAL = 0x00050000 | 1  # SECCOMP_RET_ERRNO | EPERM
ALLOW = 0x7FFF0000
#: The audit architectures (linux/audit.h): an ELF machine, 64-bit, little-endian.
AUDIT = {"x86_64": 0xC000003E, "i386": 0x40000003, "aarch64": 0xC00000B7, "arm": 0x40000028}
#: The system calls the filter reads, as the kernel's tables number them.
CALLS: dict[str, dict[str, int]] = {
    "x86_64": {"socket": 41, "socketpair": 53, "io_uring_setup": 425, "read": 0, "connect": 42},
    "i386": {"socket": 359, "socketpair": 360, "io_uring_setup": 425, "read": 3, "connect": 362, "socketcall": 102},
    "aarch64": {"socket": 198, "socketpair": 199, "io_uring_setup": 425, "read": 63, "connect": 203},
}
#: The architectures whose calls each machine's kernel runs, as the filter must know them.
MACHINES = {"x86_64": ("x86_64", "i386"), "aarch64": ("aarch64",)}
X32 = 0x40000000
FLAGS = socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC
#: socketcall(2)'s calls (linux/net.h).
SYS_SOCKET, SYS_SOCKETPAIR, SYS_CONNECT, SYS_SENDTO, SYS_ACCEPT4 = 1, 8, 3, 11, 18
AF_VSOCK, AF_ALG, AF_PACKET = 40, 38, 17


def run(program: bytes, arch: int, nr: int, args: t.Sequence[int] = ()) -> int:
    """What seccomp returns for a system call (``seccomp_data``: ``nr``, ``arch``, ``args``,
    little-endian) under the classic BPF ``program``, read as the kernel reads it; an
    instruction seccomp would refuse to load, or a jump out of the program, fails the test."""
    code = list(struct.iter_unpack("=HBBI", program))
    assert 0 < len(code) <= 4096 and len(program) % 8 == 0
    assert code[-1][0] == 0x06, "the last instruction returns"
    full = [*args, *[0] * (6 - len(args))]
    data = struct.pack("<iIQ6Q", nr if nr < 2**31 else nr - 2**32, arch, 0, *(a & 2**64 - 1 for a in full))
    a = 0
    pc = 0
    while True:
        op, jt, jf, k = code[pc]
        pc += 1
        if op == 0x20:  # BPF_LD | BPF_W | BPF_ABS: a word of seccomp_data
            assert k % 4 == 0 and k + 4 <= len(data), f"a load seccomp refuses: {k}"
            a = int.from_bytes(data[k : k + 4], "little")
        elif op == 0x54:  # BPF_ALU | BPF_AND | BPF_K
            a &= k
        elif op in (0x15, 0x35, 0x25, 0x45):  # BPF_JMP | BPF_JEQ, BPF_JGE, BPF_JGT, BPF_JSET (| BPF_K)
            taken = {0x15: a == k, 0x35: a >= k, 0x25: a > k, 0x45: bool(a & k)}[op]
            pc += jt if taken else jf
        elif op == 0x05:  # BPF_JMP | BPF_JA
            pc += k
        elif op == 0x06:  # BPF_RET | BPF_K
            return int(k)
        else:
            raise AssertionError(f"an instruction this reader does not know: {op:#06x}")
        assert pc < len(code), "a jump out of the program"


def intended(machine: str, arch: str, nr: int, args: t.Sequence[int] = ()) -> bool:
    """Whether a program without network may make this call on ``machine``: written from what it
    may create, not from the filter."""
    if arch not in MACHINES[machine]:
        return False  # an architecture the filter does not know: nothing
    if arch == "x86_64" and nr & X32:
        return False  # x32: nothing
    calls = CALLS[arch]
    low = [value & 0xFFFFFFFF for value in [*args, 0, 0]]  # the kernel reads each as an int
    if nr == calls["socket"]:
        return low[0] in (socket.AF_INET, socket.AF_INET6, socket.AF_NETLINK)
    if nr == calls["socketpair"]:
        return low[0] == socket.AF_UNIX and low[1] & ~FLAGS in (socket.SOCK_STREAM, socket.SOCK_SEQPACKET)
    if nr == calls.get("socketcall"):
        return low[0] not in (SYS_SOCKET, SYS_SOCKETPAIR)  # making a socket, its arguments unread
    return nr != calls["io_uring_setup"]


#: (call, arguments): what a program without network may make.
ALLOWED = [
    ("socketpair", (socket.AF_UNIX, socket.SOCK_STREAM)),
    ("socketpair", (socket.AF_UNIX, socket.SOCK_SEQPACKET)),
    ("socketpair", (socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC)),
    ("socketpair", (socket.AF_UNIX, socket.SOCK_SEQPACKET | socket.SOCK_CLOEXEC)),
    ("socketpair", (socket.AF_UNIX + 2**32, socket.SOCK_STREAM)),  # the kernel reads AF_UNIX
    ("socket", (socket.AF_INET, socket.SOCK_STREAM)),
    ("socket", (socket.AF_INET, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)),
    ("socket", (socket.AF_INET6, socket.SOCK_STREAM)),
    ("socket", (socket.AF_INET6, socket.SOCK_DGRAM)),
    ("socket", (socket.AF_NETLINK, socket.SOCK_RAW)),
    ("read", (0,)),
    ("connect", (3,)),
]
#: What it may not.
REFUSED = [
    ("socketpair", (socket.AF_UNIX, socket.SOCK_DGRAM)),
    ("socketpair", (socket.AF_UNIX, socket.SOCK_RAW)),  # the kernel makes it a datagram socket
    ("socketpair", (socket.AF_UNIX, socket.SOCK_RAW | socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC)),
    ("socketpair", (socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)),
    ("socketpair", (socket.AF_UNIX, socket.SOCK_RAW + 2**32)),  # the kernel reads SOCK_RAW
    ("socketpair", (socket.AF_UNIX, socket.SOCK_STREAM | 0x100)),  # no flag but the two
    ("socketpair", (socket.AF_UNIX, 0)),
    ("socketpair", (socket.AF_INET, socket.SOCK_STREAM)),
    ("socketpair", (socket.AF_NETLINK, socket.SOCK_SEQPACKET)),
    ("socketpair", (0, socket.SOCK_STREAM)),
    ("socket", (socket.AF_UNIX, socket.SOCK_STREAM)),
    ("socket", (socket.AF_UNIX, socket.SOCK_SEQPACKET | socket.SOCK_CLOEXEC)),
    ("socket", (socket.AF_UNIX, socket.SOCK_DGRAM)),
    ("socket", (socket.AF_UNIX, socket.SOCK_RAW)),
    ("socket", (socket.AF_UNIX + 2**32, socket.SOCK_STREAM)),  # the kernel reads AF_UNIX
    ("socket", (0, socket.SOCK_STREAM)),
    ("socket", (AF_VSOCK, socket.SOCK_STREAM)),  # a virtual machine's host
    ("socket", (AF_PACKET, socket.SOCK_RAW)),
    ("socket", (AF_ALG, socket.SOCK_SEQPACKET)),
    ("socket", (socket.AF_INET + 256, socket.SOCK_STREAM)),
    ("io_uring_setup", (1, 0)),
]
#: i386's socketcall: the calls that make a socket are refused, its arguments being out of reach.
SOCKETCALLS = [
    (SYS_SOCKET, False),
    (SYS_SOCKETPAIR, False),
    (SYS_CONNECT, True),
    (SYS_SENDTO, True),
    (SYS_ACCEPT4, True),
]
ARCHES = ["x86_64", "i386", "aarch64"]


def program(arch: str) -> bytes:
    found = unix_socket_filter("aarch64" if arch == "aarch64" else "x86_64")
    assert found is not None
    return found


def machine_of(arch: str) -> str:
    return "aarch64" if arch == "aarch64" else "x86_64"


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize(("call", "args"), ALLOWED, ids=[f"{c}{a}" for c, a in ALLOWED])
def test_what_a_program_without_network_may_make(arch: str, call: str, args: tuple[int, ...]) -> None:
    assert intended(machine_of(arch), arch, CALLS[arch][call], args)
    assert run(program(arch), AUDIT[arch], CALLS[arch][call], args) == ALLOW


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize(("call", "args"), REFUSED, ids=[f"{c}{a}" for c, a in REFUSED])
def test_what_it_may_not(arch: str, call: str, args: tuple[int, ...]) -> None:
    assert not intended(machine_of(arch), arch, CALLS[arch][call], args)
    assert run(program(arch), AUDIT[arch], CALLS[arch][call], args) == EPERM_REFUSAL


@pytest.mark.parametrize(("call", "allowed"), SOCKETCALLS)
def test_i386s_socketcall_makes_no_socket(call: int, allowed: bool) -> None:
    pair = (call, 0x1000)  # its second argument points at the call's arguments
    assert run(program("i386"), AUDIT["i386"], CALLS["i386"]["socketcall"], pair) == (
        ALLOW if allowed else EPERM_REFUSAL
    )


@pytest.mark.parametrize("call", ["read", "socket", "socketpair"])
def test_x32_calls_and_unknown_architectures_are_refused_whole(call: str) -> None:
    x86 = program("x86_64")
    assert run(x86, AUDIT["x86_64"], CALLS["x86_64"][call] | X32, (socket.AF_UNIX, socket.SOCK_STREAM)) == EPERM_REFUSAL
    for arch in ("aarch64", "arm"):
        assert run(x86, AUDIT[arch], CALLS["x86_64"][call]) == EPERM_REFUSAL
    for arch in ("x86_64", "i386", "arm"):
        assert run(program("aarch64"), AUDIT[arch], CALLS["aarch64"][call]) == EPERM_REFUSAL


def test_only_the_machines_tested_here_get_a_filter() -> None:
    assert set(FILTERED) == set(MACHINES)
    assert {machine: tuple(arch.name for arch in arches) for machine, arches in FILTERED.items()} == MACHINES
    for machine in ("riscv64", "ppc64le", "s390x", "i686", "armv7l", "aarch64_be", "mips64"):
        assert unix_socket_filter(machine) is None and not filtered(machine)
    assert filtered("x86_64") and filtered("aarch64")


def interesting_numbers() -> st.SearchStrategy[int]:
    known = sorted({nr for calls in CALLS.values() for nr in calls.values()})
    near = [nr + d for nr in known for d in (-1, 1)]
    return st.one_of(
        st.sampled_from(known + near),
        st.sampled_from(known).map(lambda nr: nr | X32),
        st.integers(0, 2**32 - 1),
    )


def interesting_args() -> st.SearchStrategy[int]:
    small = st.sampled_from([0, 1, 2, 3, 5, 8, 10, 16, 17, 38, 40, 0x800, 0x80000, 0x80801, 0x80805, 0x80002])
    high = st.tuples(small, st.integers(1, 2**32 - 1)).map(lambda pair: pair[0] | pair[1] << 32)
    return st.one_of(small, small.map(lambda v: v | 0x80000), high, st.integers(0, 2**64 - 1))


@settings(max_examples=examples(1000), deadline=None)
@given(
    machine=st.sampled_from(sorted(MACHINES)),
    arch=st.sampled_from(sorted(AUDIT)),
    nr=interesting_numbers(),
    args=st.lists(interesting_args(), min_size=2, max_size=6),
)
def test_every_call_gets_what_is_intended(machine: str, arch: str, nr: int, args: list[int]) -> None:
    found = unix_socket_filter(machine)
    assert found is not None
    allowed = intended(machine, arch, nr, args)
    assert run(found, AUDIT[arch], nr, args) == (ALLOW if allowed else EPERM_REFUSAL)


# -- the reader held to the kernel --------------------------------------------------------------------

#: A child that makes each call of its input (a list of [architecture, number, arguments]) before
#: and after loading the filter (prctl, as bubblewrap loads it), and prints each errno, 0 for a
#: success: x86_64's and x32's calls through syscall(2), i386's through int 0x80.
#: Python that defines ``i386(nr, a0, a1, a2, a3)``: an i386 system call made by a 64-bit
#: x86 process (int 0x80), its result or -errno; and ``low``, a page below 4 GiB (MAP_32BIT)
#: for what its arguments point at.
INT80 = r"""
import ctypes, mmap
# push rbx; mov eax, edi; mov ebx, esi; xchg ecx, edx; mov esi, r8d; int 0x80; pop rbx; ret
page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(bytes.fromhex("53 89f8 89f3 87d1 4489c6 cd80 5b c3"))
i386 = ctypes.CFUNCTYPE(ctypes.c_int, *[ctypes.c_uint] * 5)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
mm = ctypes.CDLL(None).mmap
mm.restype, mm.argtypes = ctypes.c_void_p, (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long)
low = mm(None, 4096, 3, 0x22 | 0x40, -1, 0)  # PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_32BIT
"""
CHILD = (
    INT80
    + r"""
import json, os, sys
cases, program = json.loads(sys.stdin.read()), bytes.fromhex(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

def call(arch, nr, args):
    args = [*args, 0, 0, 0, 0][:4]
    if arch == "i386":
        result = i386(nr, *args)
        errno = -result if result < 0 else 0
    else:
        ctypes.set_errno(0)
        result = libc.syscall(ctypes.c_long(nr), *[ctypes.c_ulong(a) for a in args])
        errno = ctypes.get_errno() if result < 0 else 0
    if result >= 0:  # a socket made: closed
        os.close(result)
    return errno

before = [call(*case) for case in cases]
class Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
buf = ctypes.create_string_buffer(program, len(program))
prog = Prog(len(program) // 8, ctypes.cast(buf, ctypes.c_void_p))
assert libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
assert libc.prctl(22, 2, ctypes.byref(prog), 0, 0) == 0, ctypes.get_errno()  # PR_SET_SECCOMP, FILTER
after = [call(*case) for case in cases]
print(json.dumps([before, after]))
"""
)


def int80_works() -> bool:
    """Whether this kernel runs i386 calls of a 64-bit process (IA32 emulation): getpid through
    int 0x80, tried in a child (without it, the child dies)."""
    probe = CHILD.replace("before = ", "print(json.dumps([i386(20, 0, 0, 0, 0), os.getpid()])); sys.exit(0)\nbefore = ")
    done = subprocess.run(
        [sys.executable, "-c", probe, ""], input="[]", capture_output=True, text=True, timeout=30, check=False
    )
    if done.returncode != 0:
        return False
    pid, own = json.loads(done.stdout)
    return bool(pid == own)


def kernel_cases(arch: str) -> list[tuple[str, int, list[int]]]:
    """Calls the kernel makes quickly and without loading a module: families every kernel has,
    socketpair's sockets given no address to land in (EFAULT once made, made or not)."""
    calls = CALLS[arch]
    families = [socket.AF_UNIX, socket.AF_INET, socket.AF_INET6, socket.AF_NETLINK]
    types = [socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_RAW, socket.SOCK_SEQPACKET, 0]
    out: list[tuple[str, int, list[int]]] = []
    for family in families:
        for kind in types:
            for flags in (0, FLAGS):
                out.append((arch, calls["socketpair"], [family, kind | flags, 0, 0]))
                out.append((arch, calls["socket"], [family, kind | flags, 0]))
    out.append((arch, calls["io_uring_setup"], [0, 0]))
    if "socketcall" in calls:
        out += [
            (arch, calls["socketcall"], [call, 0]) for call in (SYS_SOCKET, SYS_SOCKETPAIR, SYS_CONNECT, SYS_SENDTO)
        ]
    else:
        out += [(arch, calls["socket"], [socket.AF_UNIX + 2**32, socket.SOCK_STREAM, 0])]
        out += [(arch, calls["socketpair"], [socket.AF_UNIX, socket.SOCK_RAW + 2**32, 0, 0])]
    return out


@pytest.mark.skipif(os.uname().machine not in FILTERED, reason="no filter for this machine")
def test_the_reader_agrees_with_this_kernel() -> None:
    """Each call made twice in a child, before and after it loads the filter: refused (EPERM where
    the kernel alone said otherwise) exactly where the reader of the program says so; on x86_64,
    for its x32 and its i386 calls (int 0x80) too."""
    machine = os.uname().machine
    found = unix_socket_filter()
    assert found is not None
    cases = kernel_cases(MACHINES[machine][0])
    if machine == "x86_64":
        cases += [("x86_64", nr | X32, args) for _, nr, args in kernel_cases("x86_64")[:6]]
        if int80_works():
            cases += kernel_cases("i386")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, found.hex()], input=json.dumps(cases), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    before, after = json.loads(done.stdout)
    tried = 0
    for (arch, nr, args), alone, filtered_errno in zip(cases, before, after, strict=True):
        if alone == 1:
            continue  # the kernel alone refuses with EPERM: nothing to tell
        tried += 1
        refused = run(found, AUDIT[arch], nr, args) == EPERM_REFUSAL
        assert refused is (filtered_errno == 1), (arch, nr, args, alone, filtered_errno)
        assert refused is not intended(machine, arch, nr, args), (arch, nr, args)
        if not refused:
            assert filtered_errno == alone, (arch, nr, args)
    assert tried > 0.9 * len(cases)


def test_the_numbers_are_libseccomps() -> None:
    """The architectures and system call numbers, the filter's and this test's, as the system's
    libseccomp (a maintained table of every architecture's calls) has them."""
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("seccomp") or "libseccomp.so.2")
    except OSError:
        pytest.skip("no libseccomp here")
    lib.seccomp_arch_resolve_name.restype = ctypes.c_uint32
    lib.seccomp_arch_resolve_name.argtypes = (ctypes.c_char_p,)
    lib.seccomp_syscall_resolve_num_arch.restype = ctypes.c_char_p  # (malloc'd: left to the test's end)
    lib.seccomp_syscall_resolve_num_arch.argtypes = (ctypes.c_uint32, ctypes.c_int)
    names = {"x86_64": b"x86_64", "i386": b"x86", "aarch64": b"aarch64", "arm": b"arm"}
    assert {arch: lib.seccomp_arch_resolve_name(name) for arch, name in names.items()} == AUDIT
    for arch, calls in CALLS.items():
        for call, nr in calls.items():
            assert lib.seccomp_syscall_resolve_num_arch(AUDIT[arch], nr) == call.encode(), (arch, call)
    for arches in FILTERED.values():
        for known in arches:
            assert known.audit == AUDIT[known.name]
            assert (known.socket, known.socketpair, known.io_uring_setup, known.socketcall) == tuple(
                CALLS[known.name].get(call) for call in ("socket", "socketpair", "io_uring_setup", "socketcall")
            )
    assert confine.SOCKET_FAMILIES == {name: getattr(socket, name) for name in confine.SOCKET_FAMILIES}
    assert confine.PAIR_TYPES == {name: getattr(socket, name) for name in confine.PAIR_TYPES}
