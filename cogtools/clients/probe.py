"""A server's first answers as an MCP client meets them, timed: a stdio server started as a client
starts it (:func:`handshake`), or an HTTP server asked as a client asks it (:func:`http_handshake`),
each sent ``initialize`` and ``tools/list``; several at once, all within one bound
(:func:`probe_all`), as a client starts its servers together. ``cogtools doctor`` reads the
times against how long the clients wait."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import time
import typing as t
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

#: The most of a server's standard output (or an HTTP answer) and standard error read.
MAX_STDOUT = 64 * 1024 * 1024
MAX_STDERR = 64 * 1024
#: How long a stdio server that has answered is given to exit once its input is closed, at most.
EXIT_GRACE = 5.0

#: The first request, as a client of protocol 2025-06-18 sends it.
INITIALIZE: dict[str, t.Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "cogtools-doctor", "version": "1"},
    },
}
INITIALIZED: dict[str, t.Any] = {"jsonrpc": "2.0", "method": "notifications/initialized"}
TOOLS_LIST: dict[str, t.Any] = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}


class Answer(t.NamedTuple):
    #: The number of tools listed, None when the handshake failed.
    tools: int | None
    server_info: dict[str, t.Any]
    problem: str
    stderr: str
    #: Seconds from the start (the process's, or the first request's) to the answer to
    #: ``tools/list``; to the failure, when there is none.
    seconds: float = 0.0
    #: Seconds from the start to the answer to ``initialize`` (None: there was none).
    initialized: float | None = None
    #: An HTTP server's status, when it refused a request.
    http_status: int | None = None
    #: Nothing answered within the time given.
    timed_out: bool = False


class Stdio(t.NamedTuple):
    """A stdio server to start: its command, working directory and environment."""

    argv: list[str]
    cwd: Path
    env: t.Mapping[str, str]


class Http(t.NamedTuple):
    """An HTTP server to ask: its address and the headers of each request."""

    url: str
    headers: t.Mapping[str, str]


Probe = t.Union[Stdio, Http]


def probe_all(probes: t.Mapping[t.Hashable, Probe], timeout: float) -> dict[t.Hashable, Answer]:
    """Each of ``probes`` answered at once, each within ``timeout`` seconds of the same start."""

    if not probes:
        return {}
    deadline = time.monotonic() + timeout

    def one(probe: Probe) -> Answer:
        left = max(0.0, deadline - time.monotonic())
        if isinstance(probe, Http):
            return http_handshake(probe.url, probe.headers, left, said=timeout)
        return handshake(probe.argv, probe.cwd, probe.env, left, said=timeout)

    with ThreadPoolExecutor(max_workers=len(probes)) as pool:
        futures = {key: pool.submit(one, probe) for key, probe in probes.items()}
        return {key: future.result() for key, future in futures.items()}


def handshake(
    argv: list[str], cwd: Path, env: t.Mapping[str, str], timeout: float, *, said: float | None = None
) -> Answer:
    """Start ``argv`` as an MCP client starts a stdio server and ask ``initialize`` and
    ``tools/list`` (JSON-RPC, a message a line), within ``timeout`` seconds of its start, each
    answer timed; then close its input and end it (its whole process group, if it lingers).
    ``said``: the bound to name when there is no answer (``timeout``'s, unless told)."""

    start = time.monotonic()
    deadline = start + timeout
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as e:
        return Answer(None, {}, f"cannot start it: {e.strerror}", "")
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    reader = _Reader(proc, deadline, timeout if said is None else said)
    tools: int | None = None
    info: dict[str, t.Any] = {}
    problem = ""
    initialized: float | None = None
    listed = 0.0
    try:
        reader.send(INITIALIZE)
        first = reader.receive(1)
        if isinstance(first, str) or "result" not in first:
            problem = first if isinstance(first, str) else f"initialize failed: {json.dumps(first.get('error'))[:300]}"
        else:
            initialized = time.monotonic() - start
            info = first["result"].get("serverInfo") or {}
            reader.send(INITIALIZED)
            reader.send(TOOLS_LIST)
            second = reader.receive(2)
            if isinstance(second, str) or not isinstance(second.get("result", {}).get("tools"), list):
                problem = second if isinstance(second, str) else "tools/list failed"
            else:
                tools = len(second["result"]["tools"])
    except OSError:  # its input closed: it exited
        problem = f"it exited (status {proc.wait()})"
    finally:
        listed = time.monotonic() - start
        stderr = reader.close(deadline)
    return Answer(tools, info, problem, stderr, listed, initialized, timed_out=reader.timed_out)


class _Reader:
    """A started server's messages, a line each, and its standard error, read within a deadline."""

    def __init__(self, proc: subprocess.Popen[bytes], deadline: float, timeout: float) -> None:
        assert proc.stdout is not None and proc.stderr is not None
        self.proc, self.deadline, self.timeout = proc, deadline, timeout
        self.selector = selectors.DefaultSelector()
        self.selector.register(proc.stdout, selectors.EVENT_READ, "out")
        self.selector.register(proc.stderr, selectors.EVENT_READ, "err")
        self.out, self.err = bytearray(), bytearray()
        self.timed_out = False

    def send(self, message: dict[str, t.Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def receive(self, wanted: int) -> dict[str, t.Any] | str:
        """The response of id ``wanted``, or why there is none."""
        while True:
            while b"\n" in self.out:
                line, _, rest = bytes(self.out).partition(b"\n")
                self.out[:] = rest
                try:
                    message = json.loads(line)
                except ValueError:
                    return "it printed something that is not JSON-RPC on standard output"
                if isinstance(message, dict) and message.get("id") == wanted:
                    return message
            left = self.deadline - time.monotonic()
            if left <= 0:
                self.timed_out = True
                return f"no answer within {self.timeout:.3g} s"
            if not self.selector.get_map():
                return f"it exited (status {self.proc.wait()})"
            for key, _ in self.selector.select(left):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    self.selector.unregister(key.fileobj)
                elif key.data == "out":
                    self.out.extend(chunk)
                    if len(self.out) > MAX_STDOUT:
                        return "it printed more than doctor reads"
                elif len(self.err) < MAX_STDERR:
                    self.err.extend(chunk)

    def close(self, deadline: float) -> str:
        """Close the server's input, give it until ``deadline`` (at least a second, at most
        :data:`EXIT_GRACE`) to exit, then end its process group; what it wrote on standard error."""
        proc = self.proc
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        try:
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=min(EXIT_GRACE, max(1.0, deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            proc.wait()
        for key in list(self.selector.get_map().values()):
            if key.data == "err":
                try:
                    os.set_blocking(key.fd, False)
                    self.err.extend(os.read(key.fd, MAX_STDERR)[: max(0, MAX_STDERR - len(self.err))])
                except OSError:
                    pass
        self.selector.close()
        proc.stdout.close()
        proc.stderr.close()
        return self.err.decode("utf-8", "replace")


class _Refused(Exception):
    def __init__(self, problem: str, status: int | None = None, timed_out: bool = False) -> None:
        super().__init__(problem)
        self.problem, self.status, self.timed_out = problem, status, timed_out


def http_handshake(url: str, headers: t.Mapping[str, str], timeout: float, *, said: float | None = None) -> Answer:
    """Ask the MCP server at ``url`` (streamable HTTP) ``initialize`` and ``tools/list`` as a
    client does, with ``headers`` on each request, within ``timeout`` seconds; each answer timed
    from the first request; then end the session. ``said``: as for :func:`handshake`."""

    import urllib.request  # only here: it imports ssl, which tab completion must not pay for

    start = time.monotonic()
    deadline = start + timeout
    timeout = timeout if said is None else said
    session: dict[str, str] = {}
    try:
        first = _post(url, {**headers, **session}, INITIALIZE, deadline, timeout, session)
        if "result" not in first:
            raise _Refused(f"initialize failed: {json.dumps(first.get('error'))[:300]}")
        initialized = time.monotonic() - start
        info = first["result"].get("serverInfo") or {}
        version = first["result"].get("protocolVersion")
        if isinstance(version, str):
            session["MCP-Protocol-Version"] = version
        _post(url, {**headers, **session}, INITIALIZED, deadline, timeout, session)
        second = _post(url, {**headers, **session}, TOOLS_LIST, deadline, timeout, session)
        tools = second.get("result", {}).get("tools") if isinstance(second.get("result"), dict) else None
        if not isinstance(tools, list):
            raise _Refused("tools/list failed")
    except _Refused as e:
        return Answer(None, {}, e.problem, "", time.monotonic() - start, None, e.status, e.timed_out)
    listed = time.monotonic() - start
    if "Mcp-Session-Id" in session:  # the session ends; a server that keeps none answers 405
        try:
            request = urllib.request.Request(url, headers={**headers, **session}, method="DELETE")
            with urllib.request.urlopen(request, timeout=1.0):
                pass
        except (OSError, ValueError):
            pass
    return Answer(len(tools), info, "", "", listed, initialized)


def _post(
    url: str,
    headers: t.Mapping[str, str],
    message: dict[str, t.Any],
    deadline: float,
    timeout: float,
    session: dict[str, str],
) -> dict[str, t.Any]:
    """POST ``message``; its response (``{}`` for a notification), the session's id kept in
    ``session``; :class:`_Refused` with why there is none."""

    import urllib.error
    import urllib.request

    left = deadline - time.monotonic()
    if left <= 0:
        raise _Refused(f"no answer within {timeout:.3g} s", timed_out=True)
    request = urllib.request.Request(
        url,
        data=json.dumps(message).encode(),
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=left) as response:
            found = response.headers.get("Mcp-Session-Id")
            if found:
                session["Mcp-Session-Id"] = found
            kind = response.headers.get("Content-Type", "")
            body = response.read(MAX_STDOUT + 1)
    except urllib.error.HTTPError as e:
        raise _Refused(f"{url} refused the request (HTTP {e.code} {e.reason})", e.code) from None
    except urllib.error.URLError as e:
        if isinstance(e.reason, TimeoutError):
            raise _Refused(f"no answer within {timeout:.3g} s", timed_out=True) from None
        raise _Refused(f"nothing answers at {url} ({e.reason})") from None
    except TimeoutError:
        raise _Refused(f"no answer within {timeout:.3g} s", timed_out=True) from None
    except (OSError, ValueError) as e:
        raise _Refused(f"nothing answers at {url} ({e})") from None
    if "id" not in message:
        return {}
    if len(body) > MAX_STDOUT:
        raise _Refused("it answered more than doctor reads")
    found_message = _response(body, kind, message["id"])
    if found_message is None:
        raise _Refused(f"it answered {message['method']} with no JSON-RPC response")
    return found_message


def _response(body: bytes, kind: str, wanted: int) -> dict[str, t.Any] | None:
    """The JSON-RPC response of id ``wanted`` in an answer: JSON, or a stream of server-sent
    events whose data lines hold messages."""

    if "text/event-stream" in kind:
        texts: list[bytes] = []
        for event in body.replace(b"\r\n", b"\n").split(b"\n\n"):
            data = [line[5:].removeprefix(b" ") for line in event.split(b"\n") if line.startswith(b"data:")]
            if data:
                texts.append(b"\n".join(data))
    else:
        texts = [body]
    for text in texts:
        try:
            message = json.loads(text)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("id") == wanted:
            return message
    return None
