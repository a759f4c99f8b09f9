"""The ``http`` implementation kind: one HTTP request, described, never assembled from raw text.

.. code-block:: yaml

    implementation:
      kind: http
      method: GET                                   # default GET
      url: https://api.github.com/repos/{{ owner }}/{{ repo }}/issues
      query: {state: "{{ state }}", per_page: "{{ count }}"}
      headers: {Authorization: "Bearer {{ env.GITHUB_TOKEN }}"}
      json: {title: "{{ title }}", labels: "{{ labels }}"}   # or form: {...}; a body for POST, PUT...
      allowed_hosts: [api.github.com]               # default: the URL's own host
      max_redirects: 5                              # default 5; each one to an allowed host
      pick: /0/title                                # optional: a JSON Pointer into the response
      timeout: 10                                   # optional: seconds, for the whole exchange
      max_output_bytes: 65536                       # optional: the most of the body that is read
      empty_result: No issues.                      # optional

The scheme and host of ``url`` are written literally (so is a query written in it); each value in
its path is rendered and percent-encoded on its own (``/`` too), and a value that is empty, ``.``
or ``..`` is refused: a value can never change the host, the path's structure, or add a query
parameter of another name. ``query``, ``headers`` and ``form`` values are templates (one that
renders empty is left out; a query value that is exactly one ``{{ expression }}`` whose value is a
list is its parameter repeated, once per item); a header value cannot hold a line break. In
``json``, every string is a template, and a string that is exactly one ``{{ expression }}`` is the
expression's value, with its JSON type.

The result is the body: JSON pretty-printed (or the value at ``pick``: a string as it is), other
text as it is, cut at ``max_output_bytes`` with a marker. A status outside 2xx is
EXECUTION_FAILED with the status and the start of the body. Proxies come from the caller's
``http_proxy``, ``https_proxy`` and ``no_proxy``.

The client is the standard library's (urllib.request): importing it costs about 40 ms where httpx
costs about 90 ms, and every ``cogtools-call`` is a new process.
"""

from __future__ import annotations

import functools
import re
import typing as t

from cogtools.core.errors import DefinitionInvalidError, ExecutionFailedError, RenderFailedError, ToolTimeoutError
from cogtools.run import Outline, no_advice, no_closure
from cogtools.run.keys import TypeSpec, check_keys
from cogtools.run.program import check_program_settings
from cogtools.run.templates import check_text, renderer

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool
    from cogtools.run import Exposure, RunContext

METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
#: Methods whose request carries no body.
BODYLESS = ("GET", "HEAD")
#: Methods that ask for a reading and change nothing on the server (RFC 9110's safe methods), when
#: the request carries no body: a tool of one of them is read-only, if it declares so.
SAFE = ("GET", "HEAD", "OPTIONS")
DEFAULT_MAX_REDIRECTS = 5
#: The statuses urllib follows as redirects.
REDIRECTS = (301, 302, 303, 307, 308)
#: How much of the body of a failed request its error quotes.
BODY_EXCERPT = 2000

_JSON_TYPES = (dict, list, str, int, float, bool, type(None))
SETTINGS: dict[str, TypeSpec] = {
    "method": str,
    "query": dict,
    "headers": dict,
    "json": _JSON_TYPES,
    "form": dict,
    "allowed_hosts": list,
    "max_redirects": int,
    "pick": str,
    "timeout": (int, float),
    "max_output_bytes": int,
    "empty_result": str,
}

#: ``scheme://host[:port]``, then the path, then a literal query; no user information, no fragment.
_URL_RE = re.compile(
    r"(?P<origin>(?P<scheme>https?)://(?P<host>[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::(?P<port>[0-9]{1,5}))?)(?P<path>/[^?#]*)?(?:\?(?P<query>[^#]*))?",
    re.IGNORECASE,
)
_HEADER_NAME_RE = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_HOST_RE = re.compile(
    r"^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$|^\[[0-9A-Fa-f:.]+\]$"
)
#: A JSON string that is one expression and nothing else: its value keeps its type.
_NATIVE_RE = re.compile(r"^\s*\{\{(?P<expression>(?:(?!\}\}|\{\{|\{%).)*)\}\}\s*$", re.DOTALL)

#: Whether a string argument may hold NUL: yes (it is encoded in a URL or JSON; a header refuses it).
TAKES_NUL = True
#: Whether it runs programs, which the tool's side effects confine (:mod:`cogtools.run.confine`).
RUNS_PROGRAMS = False


def _fail(tool: Tool, message: str, *key: str | int) -> t.NoReturn:
    raise DefinitionInvalidError(
        message, tool=tool.name, path=tool.origin.path, key_path=("implementation", *key), line=tool.implementation.line
    )


def _is_template(text: str) -> bool:
    return "{{" in text or "{%" in text


def check(tool: Tool) -> None:
    check_keys(tool, {"url": str}, SETTINGS)
    check_program_settings(tool)
    spec = tool.implementation.spec
    method = spec.get("method", "GET")
    if method not in METHODS:
        _fail(tool, f"`method` is one of {', '.join(METHODS)}, not {method!r}", "method")
    match = _URL_RE.fullmatch(spec["url"])
    if match is None or _is_template(match["origin"]):
        _fail(
            tool,
            "`url` is http:// or https://, a host written literally (no user information), a path, and"
            " optionally a literal query; no fragment",
            "url",
        )
    if match["query"] is not None and _is_template(match["query"]):
        _fail(tool, "a value in the query of `url` cannot be a template: put the parameter under `query`", "url")
    if "json" in spec and "form" in spec:
        _fail(tool, "a request has one body: give `json` or `form`, not both", "form")
    if method in BODYLESS and ("json" in spec or "form" in spec):
        _fail(
            tool, f"a {method} request has no body: drop `{'json' if 'json' in spec else 'form'}` or use POST", "method"
        )
    if spec.get("max_redirects", 0) < 0:
        _fail(tool, "`max_redirects` is 0 or more", "max_redirects")
    hosts = spec.get("allowed_hosts", [])
    for index, host in enumerate(hosts):
        if not isinstance(host, str) or not _HOST_RE.match(host):
            _fail(
                tool,
                f"`allowed_hosts` lists host names (example.com, *.example.com), not {host!r}",
                "allowed_hosts",
                index,
            )
    if hosts and not host_allowed(match["host"], hosts):
        _fail(tool, f"the URL's host {match['host']!r} is not among `allowed_hosts`", "allowed_hosts")
    pick = spec.get("pick")
    if pick is not None and pick and not pick.startswith("/"):
        _fail(tool, f"`pick` is a JSON Pointer (/items/0/name), not {pick!r}", "pick")
    for key in ("headers",):
        for name in spec.get(key, {}):
            if not _HEADER_NAME_RE.match(name):
                _fail(tool, f"{name!r} is not a header name", key, name)
    for text, key_path in templates(spec):
        check_text(tool, text, ("implementation", *key_path), None)


def templates(spec: t.Mapping[str, t.Any]) -> t.Iterator[tuple[str, tuple[str | int, ...]]]:
    """Every template of the request, with its key path under ``implementation``."""
    match = _URL_RE.fullmatch(spec["url"])
    if match is not None and match["path"]:
        yield match["path"], ("url",)
    for key in ("query", "headers", "form"):
        for name, value in spec.get(key, {}).items():
            if isinstance(value, str):
                yield value, (key, name)
    if "json" in spec:
        yield from _json_strings(spec["json"], ("json",))


def _json_strings(value: t.Any, where: tuple[str | int, ...]) -> t.Iterator[tuple[str, tuple[str | int, ...]]]:
    if isinstance(value, str):
        yield value, where
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _json_strings(item, (*where, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _json_strings(item, (*where, index))


def host_allowed(host: str, allowed: t.Iterable[str]) -> bool:
    """Whether ``host`` is one of ``allowed`` (``*.example.com``: any host under example.com)."""
    host = host.lower().rstrip(".")
    for entry in allowed:
        entry = entry.lower()
        if host == entry or (entry.startswith("*.") and host.endswith(entry[1:])):
            return True
    return False


class Request(t.NamedTuple):
    """A request as a tool would send it: what ``run`` sends and ``preview`` shows."""

    method: str
    url: str
    headers: dict[str, str]
    body: bytes | None
    #: The body as the definition made it, for a dry run (the JSON value, or the form's fields).
    shown_body: t.Any
    allowed_hosts: tuple[str, ...]
    max_redirects: int
    timeout: float
    max_bytes: int


def plan(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> Request:
    """The request, every template rendered under the call's limits."""
    import json
    import urllib.parse

    from cogtools import __version__

    spec = tool.implementation.spec
    rendered = renderer(tool, arguments, context)
    match = _URL_RE.fullmatch(spec["url"])
    assert match is not None  # check() saw to it
    path = match["path"] or ""
    if _is_template(path):
        try:
            path = rendered(_path_template(tool, path))
        except RenderFailedError as e:
            raise e.with_tool(tool.name) from e.__cause__
    query = [pair for name, value in spec.get("query", {}).items() for pair in _query(name, value, rendered)]
    url = match["origin"] + path
    literal = match["query"]
    encoded = "&".join(part for part in (literal, urllib.parse.urlencode(query)) if part)
    if encoded:
        url += "?" + encoded

    headers = {"User-Agent": f"cogtools/{__version__}"}
    for name, value in spec.get("headers", {}).items():
        text = _text(value, rendered, "headers", name)
        if any(c in text for c in "\r\n\0"):
            raise RenderFailedError(
                f"the header {name} would hold a line break or NUL, which could add a header of its own",
                tool=tool.name,
                details={"reason": "header", "header": name},
            )
        try:
            text.encode("latin-1")  # what HTTP/1.1 sends a header value as
        except UnicodeEncodeError:
            raise RenderFailedError(
                f"the header {name} would hold a character outside Latin-1, which a header cannot carry:"
                " percent-encode the value, or send it in the body",
                tool=tool.name,
                details={"reason": "header", "header": name},
            ) from None
        if text:
            headers[name] = text
    body: bytes | None = None
    shown: t.Any = None
    if "json" in spec:
        shown = _json_value(spec["json"], rendered, ("json",))
        body = json.dumps(shown, ensure_ascii=False).encode("utf-8")
        headers.setdefault("Content-Type", "application/json; charset=utf-8")
    elif "form" in spec:
        shown = {name: text for name, value in spec["form"].items() if (text := _text(value, rendered, "form", name))}
        body = urllib.parse.urlencode(shown).encode("ascii")
        headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
    return Request(
        method=spec.get("method", "GET"),
        url=url,
        headers=headers,
        body=body,
        shown_body=shown,
        allowed_hosts=tuple(spec.get("allowed_hosts") or [match["host"]]),
        max_redirects=int(spec.get("max_redirects", DEFAULT_MAX_REDIRECTS)),
        timeout=float(spec.get("timeout", context.limits["timeout"])),
        max_bytes=int(spec.get("max_output_bytes", context.limits["max_output_bytes"])),
    )


def _query(name: str, value: t.Any, rendered: t.Callable[..., str]) -> list[tuple[str, str]]:
    """A query parameter's pairs: none when it renders empty; one per item when its value is
    exactly one ``{{ expression }}`` whose value is a list (``tags=a&tags=b``, OpenAPI's
    ``explode``), each item as text (a number or boolean as JSON writes it)."""
    import json

    native = _NATIVE_RE.match(value) if isinstance(value, str) else None
    if native is not None:
        try:
            items = json.loads(rendered("{{ (" + native["expression"] + ") | tojson }}", "query", name))
        except RenderFailedError:
            items = None  # not JSON data (a template's own object): rendered as text, below
        if isinstance(items, list):
            return [(name, i if isinstance(i, str) else json.dumps(i)) for i in items if i is not None]
    text = _text(value, rendered, "query", name)
    return [(name, text)] if text else []


def _text(value: t.Any, rendered: t.Callable[..., str], *key: str | int) -> str:
    """A query, header or form value: a template rendered, or a number or boolean as JSON writes it."""
    if isinstance(value, str):
        return rendered(value, *key)
    import json

    return "" if value is None else json.dumps(value)


def _json_value(value: t.Any, rendered: t.Callable[..., str], where: tuple[str | int, ...]) -> t.Any:
    """The ``json`` body with its templates rendered; a string that is one ``{{ expression }}``
    becomes the expression's value (rendered through ``tojson``, so under the same limits)."""
    import json

    if isinstance(value, str):
        native = _NATIVE_RE.match(value)
        if native is None:
            return rendered(value, *where)
        return json.loads(rendered("{{ (" + native["expression"] + ") | tojson }}", *where))
    if isinstance(value, dict):
        return {key: _json_value(item, rendered, (*where, key)) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_value(item, rendered, (*where, index)) for index, item in enumerate(value)]
    return value


#: The filter that every value in the URL's path passes through (added to the tree, not written).
SEGMENT_FILTER = "cogtools_url_segment"


def _segment(value: t.Any) -> str:
    """A value in the URL's path, percent-encoded whole (``/`` too); empty, ``.`` and ``..`` are
    refused, since they would change the path's structure."""
    import urllib.parse

    text = "" if value is None else str(value)
    if text in ("", ".", ".."):
        raise RenderFailedError(
            f"a value in the URL's path would be {text!r}, which would change the path's structure",
            details={"reason": "url", "value": text},
        )
    return urllib.parse.quote(text, safe="")


@functools.lru_cache(maxsize=None)
def _url_environment() -> t.Any:
    from cogtools.run.templates import environment

    overlay = environment().overlay()
    overlay.filters = {**overlay.filters, SEGMENT_FILTER: _segment}
    return overlay


def _path_template(tool: Tool, path: str) -> t.Any:
    """The URL's path as a template whose every value (each ``{{ ... }}``, not the literal text)
    is percent-encoded on its own: the parsed tree gets :data:`SEGMENT_FILTER` around each."""
    from jinja2 import nodes

    from cogtools.run.templates import syntax_errors

    env = _url_environment()
    with syntax_errors(tool, ("implementation", "url"), None):
        tree = env.parse(path)
        for output in tree.find_all(nodes.Output):
            output.nodes = [
                node
                if isinstance(node, nodes.TemplateData)
                else nodes.Filter(node, SEGMENT_FILTER, [], [], None, None, lineno=node.lineno)
                for node in output.nodes
            ]
        return env.template_class.from_code(env, env.compile(tree), env.make_globals(None))


def preview(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> dict[str, t.Any]:
    request = plan(tool, arguments, context)
    out: dict[str, t.Any] = {"method": request.method, "url": request.url, "headers": request.headers}
    if request.shown_body is not None:
        out["json" if "json" in tool.implementation.spec else "form"] = request.shown_body
    proxy = _proxy_for(request.url, context.environ)
    out.update(
        allowed_hosts=list(request.allowed_hosts),
        max_redirects=request.max_redirects,
        proxy=_without_password(proxy) if proxy else None,
        environment=list(tool.environment),
        limits={"timeout": request.timeout, "max_output_bytes": request.max_bytes},
    )
    if "pick" in tool.implementation.spec:
        out["pick"] = tool.implementation.spec["pick"]
    return out


def run(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> str:
    import http.client

    from cogtools.run.deadline import Expired, deadline

    request = plan(tool, arguments, context)
    try:
        with deadline(request.timeout):
            status, reason, content_type, data, cut = _send(tool, request, context)
    except Expired:
        raise _timeout(tool, request) from None
    except TimeoutError:
        raise _timeout(tool, request) from None
    except (http.client.HTTPException, ValueError, UnicodeError) as e:
        # a status line, a header or a chunk that is not HTTP: the server's fault, not cogtools'
        what = type(e).__name__ + (f": {str(e)[:200]}" if str(e) else "")
        raise ExecutionFailedError(
            f"{request.method} {request.url} answered with a broken response ({what})",
            tool=tool.name,
            details={"reason": "response", "url": request.url},
        ) from None
    text = _decode(data, content_type)
    if not 200 <= status < 300:
        raise ExecutionFailedError(
            f"{request.method} {request.url} answered {status} {reason}".rstrip()
            + (f": {_one_line(text)[:200]}" if text.strip() else ""),
            tool=tool.name,
            details={"status": status, "reason": reason, "url": request.url, "body": text[:BODY_EXCERPT]},
        )
    return _result(tool, request, text, content_type, cut)


def _timeout(tool: Tool, request: Request) -> ToolTimeoutError:
    return ToolTimeoutError(
        f"{request.method} {request.url} took longer than its time limit of {request.timeout:g} s",
        tool=tool.name,
        details={"timeout_seconds": request.timeout, "url": request.url},
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _decode(data: bytes, content_type: str) -> str:
    import email.message

    message = email.message.Message()
    message["Content-Type"] = content_type or "text/plain"
    charset = message.get_content_charset() or "utf-8"
    try:
        import codecs

        if not codecs.lookup(charset)._is_text_encoding:
            raise LookupError(charset)  # base64, zlib...: not a character set
        return data.decode(charset, "replace")
    except (LookupError, UnicodeError, ValueError, TypeError):  # unknown, or one that refuses (idna, undefined)
        return data.decode("utf-8", "replace")


def _result(tool: Tool, request: Request, text: str, content_type: str, cut: bool) -> str:
    import json

    spec = tool.implementation.spec
    marker = f"[cogtools: response truncated at {request.max_bytes} bytes]\n"
    pick = spec.get("pick")
    if pick is not None:
        if cut:
            raise ExecutionFailedError(
                f"the response is larger than max_output_bytes ({request.max_bytes}), so {pick!r} cannot be picked from it",
                tool=tool.name,
                details={"reason": "too_large", "pick": pick},
            )
        try:
            value = _pointer(json.loads(text), pick)
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2) + "\n"
        except ValueError as e:
            raise ExecutionFailedError(
                f"cannot pick {pick!r} from the response: {e}", tool=tool.name, details={"reason": "pick", "pick": pick}
            ) from None
        except RecursionError:
            raise ExecutionFailedError(
                f"cannot pick {pick!r} from the response: it nests too deep to read",
                tool=tool.name,
                details={"reason": "pick", "pick": pick},
            ) from None
    elif "json" in content_type.lower() and not cut:
        try:
            text = json.dumps(json.loads(text), ensure_ascii=False, indent=2) + "\n"
        except (ValueError, RecursionError):
            pass  # not JSON after all, or too deep to print again: the text as it came
    if not text.strip() and "empty_result" in spec:
        text = spec["empty_result"]
    if cut:
        text += ("" if not text or text.endswith("\n") else "\n") + marker
    return text


def _pointer(document: t.Any, pointer: str) -> t.Any:
    """The value at JSON Pointer ``pointer`` (RFC 6901) in ``document``; ValueError if none."""
    if pointer == "":
        return document
    value = document
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif (
            isinstance(value, list)
            and token.isdigit()
            and (token == "0" or not token.startswith("0"))
            and int(token) < len(value)
        ):
            value = value[int(token)]
        else:
            raise ValueError(f"it has no {raw!r} there (JSON Pointer {pointer})")
    return value


def _send(tool: Tool, request: Request, context: RunContext) -> tuple[int, str, str, bytes, bool]:
    """Send ``request``: (status, reason, content type, body up to the cap, whether it was cut)."""
    import urllib.error
    import urllib.request

    opener = _opener(tool, request, context)
    prepared = urllib.request.Request(request.url, data=request.body, headers=request.headers, method=request.method)
    try:
        response = opener.open(prepared, timeout=request.timeout)
    except urllib.error.HTTPError as e:  # a status outside 2xx: a response all the same
        if e.code in REDIRECTS and "Location" in e.headers:
            import urllib.parse

            # urllib refuses a scheme other than http, https and ftp before asking the handler.
            try:
                location = urllib.parse.urljoin(e.url or request.url, e.headers["Location"])
            except ValueError:
                location = str(e.headers["Location"])
            refused = _refused_redirect(tool, request, location)
            if refused is not None:
                raise refused from None
            raise ExecutionFailedError(
                f"{request.method} {request.url} was redirected more than {request.max_redirects} times (max_redirects)"
                if request.max_redirects
                else f"{request.method} {request.url} answered {e.code} {e.reason}, a redirect, and max_redirects is 0",
                tool=tool.name,
                details={"status": e.code, "reason": "redirects", "url": request.url},
            ) from None
        with e:
            data, cut = _read(e, request.max_bytes)
        return e.code, str(e.reason), e.headers.get("Content-Type", ""), data, cut
    except urllib.error.URLError as e:
        if isinstance(e.reason, TimeoutError):
            raise e.reason from None
        raise ExecutionFailedError(
            f"{request.method} {request.url} failed: {e.reason}",
            tool=tool.name,
            details={"reason": "connection", "url": request.url},
        ) from None
    except OSError as e:
        if isinstance(e, TimeoutError):
            raise
        raise ExecutionFailedError(
            f"{request.method} {request.url} failed: {e}",
            tool=tool.name,
            details={"reason": "connection", "url": request.url},
        ) from None
    with response:
        data, cut = _read(response, request.max_bytes)
        return response.status, str(response.reason), response.headers.get("Content-Type", ""), data, cut


def _refused_redirect(tool: Tool, request: Request, location: str) -> ExecutionFailedError | None:
    """The error for a redirect to ``location`` that leaves http(s) or the allowed hosts."""
    import urllib.parse

    try:
        target = urllib.parse.urlsplit(location)
        target.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        return ExecutionFailedError(
            f"{request.method} {request.url} was redirected to {location!r}, which is not a URL",
            tool=tool.name,
            details={"reason": "redirect", "location": location},
        )
    if target.scheme in ("http", "https") and host_allowed(target.hostname or "", request.allowed_hosts):
        return None
    return ExecutionFailedError(
        f"{request.method} {request.url} was redirected to {location}, which is not an allowed host"
        f" (allowed_hosts: {', '.join(request.allowed_hosts)})",
        tool=tool.name,
        details={"reason": "redirect", "location": location, "allowed_hosts": list(request.allowed_hosts)},
    )


#: Headers that carry credentials: sent only to the origin the definition names.
CREDENTIAL_HEADERS = ("authorization", "proxy-authorization", "cookie")


def _origin(url: str) -> tuple[str, str, int]:
    """The scheme, host and port of ``url`` (the port a scheme implies when none is written)."""
    import urllib.parse

    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower().rstrip("."), parts.port or (443 if scheme == "https" else 80)


def _drop_credentials(following: t.Any, secrets: t.Sequence[str]) -> None:
    """Take from a redirected request every header that carries a credential (Authorization,
    cookies, and any header holding a secret's value): another origin (another port, or http
    after https) must not see them."""
    for store in (following.headers, following.unredirected_hdrs):
        for name in list(store):
            value = str(store[name])
            if name.lower() in CREDENTIAL_HEADERS or any(secret in value for secret in secrets):
                del store[name]


def _read(response: t.Any, limit: int) -> tuple[bytes, bool]:
    """At most ``limit`` bytes of the body, and whether there was more (the rest is not read)."""
    data = response.read(limit + 1)
    return data[:limit], len(data) > limit


def _opener(tool: Tool, request: Request, context: RunContext) -> t.Any:
    """A urllib opener for http and https only, with the caller's proxies, and redirects that are
    counted and kept to the allowed hosts."""
    import urllib.request

    class Redirects(urllib.request.HTTPRedirectHandler):
        max_redirections = request.max_redirects
        max_repeats = request.max_redirects + 1

        def redirect_request(self, req: t.Any, fp: t.Any, code: int, msg: str, headers: t.Any, newurl: str) -> t.Any:
            refused = _refused_redirect(tool, request, newurl)
            if refused is not None:
                raise refused
            following = super().redirect_request(req, fp, code, msg, headers, newurl)
            if following is not None and _origin(newurl) != _origin(request.url):
                _drop_credentials(following, context.secret_values())
            return following

    no_proxy = context.environ.get("no_proxy") or context.environ.get("NO_PROXY") or ""

    class Proxies(urllib.request.ProxyHandler):
        """urllib's, with ``no_proxy`` read from the caller's environment, not cogtools' own."""

        def proxy_open(self, req: t.Any, proxy: str, type: str) -> t.Any:  # noqa: A002 (urllib's name)
            if _bypasses(req.host, no_proxy):
                return None
            return super().proxy_open(req, proxy, type)

    handlers: list[t.Any] = [
        Proxies(_proxies(context.environ)),
        urllib.request.HTTPHandler(),
        urllib.request.HTTPSHandler(),
        urllib.request.HTTPDefaultErrorHandler(),
        urllib.request.HTTPErrorProcessor(),
    ]
    if request.max_redirects:
        handlers.append(Redirects())
    opener = urllib.request.OpenerDirector()
    for handler in handlers:
        opener.add_handler(handler)
    return opener


def _proxies(environ: t.Mapping[str, str]) -> dict[str, str]:
    """``http_proxy``, ``https_proxy`` (and ``all_proxy``) of the caller's environment; the
    lower-case name wins, as with curl."""
    out: dict[str, str] = {}
    for scheme in ("http", "https"):
        for name in (f"{scheme}_proxy", f"{scheme.upper()}_PROXY", "all_proxy", "ALL_PROXY"):
            if environ.get(name):
                out[scheme] = environ[name]
                break
    return out


def _proxy_for(url: str, environ: t.Mapping[str, str]) -> str | None:
    import urllib.parse

    parts = urllib.parse.urlsplit(url)
    proxy = _proxies(environ).get(parts.scheme)
    no_proxy = environ.get("no_proxy") or environ.get("NO_PROXY") or ""
    return None if proxy is None or _bypasses(parts.netloc, no_proxy) else proxy


def _bypasses(host: str, no_proxy: str) -> bool:
    """Whether ``no_proxy`` (a comma-separated list of hosts and domains, or ``*``) names ``host``,
    as urllib reads it."""
    import urllib.request

    bypass: t.Callable[[str, dict[str, str]], bool] = getattr(urllib.request, "proxy_bypass_environment")  # noqa: B009 (not in the stubs)
    return bool(no_proxy) and bypass(host, {"no": no_proxy})


#: The user information of a proxy's address (``scheme://user:password@``, the scheme optional).
_USERINFO_RE = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)?(?P<user>[^/@]*?)(?P<password>:[^/@]*)?@")


def _without_password(proxy: str) -> str:
    """``proxy`` with its password, if any, shown as ``***`` (an address with no scheme too)."""
    match = _USERINFO_RE.match(proxy)
    if match is None or match["password"] is None:
        return proxy
    return f"{match['scheme'] or ''}{match['user']}:***@{proxy[match.end() :]}"


def exposure(spec: t.Mapping[str, t.Any], key: tuple[str | int, ...]) -> Exposure | None:
    """A secret in the URL or its query is logged by servers and proxies; anywhere in a request
    to a plain http:// URL (but the loopback's), it crosses the network in clear text."""
    if key[:1] in (("url",), ("query",)):
        return (
            "secret-exposed",
            "is in the URL, which servers and proxies log",
            "send it in a header (Authorization) or the body",
        )
    if _cleartext(spec["url"]):
        return ("secret-cleartext", "is sent over plain http", "use https://")
    return None


def _cleartext(url: str) -> bool:
    import urllib.parse

    parts = urllib.parse.urlsplit(url)
    return parts.scheme.lower() == "http" and (parts.hostname or "") not in ("localhost", "127.0.0.1", "::1")


def outline(tool: Tool) -> Outline:
    """A request reaches the network, whatever it asks for; one of a method that is not safe, or
    that carries a body, may change what the server holds, whatever the tool declares."""
    spec = tool.implementation.spec
    match = _URL_RE.match(spec["url"])
    host = match.group("host") if match else spec["url"]
    method = spec.get("method", "GET").upper()
    changes = ""
    if method not in SAFE:
        changes = f"its {method} request can change what {host} holds"
    elif "json" in spec or "form" in spec:
        changes = f"its {method} request carries a body to {host}, which can change what it holds"
    return Outline(f"http: {method} {spec['url']}", {"network": f"it sends an HTTP request to {host}"}, changes)


# A request runs nothing of the workspace but its definition.
advise, closure = no_advice, no_closure

if t.TYPE_CHECKING:  # mypy holds this kind to the Runner protocol (cogtools.run.runner)
    from cogtools.run import Runner, http

    _RUNNER: Runner = http
