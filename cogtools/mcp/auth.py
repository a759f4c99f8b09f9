"""``cogtools mcp --http --auth ISSUER``: the server as an OAuth 2.1 resource server, as the MCP
specification makes it, with each caller's rights derived from what the tools declare.

- What a client needs to find the authorization server is served at
  ``/.well-known/oauth-protected-resource`` (RFC 9728; and at its form with the resource's path,
  ``.../oauth-protected-resource/mcp``); a request without a valid token is ``401`` with
  ``WWW-Authenticate: Bearer resource_metadata="..."``.
- An access token is a JWT, checked with PyJWT (the JOSE library the ``mcp`` SDK itself depends
  on) against the issuer's keys (:class:`Keys`: its JWKS, found from its RFC 8414 or OpenID
  metadata, kept, fetched again for a key it does not know at most every
  :data:`REFETCH_SECONDS`, each fetch bounded by :data:`FETCH_SECONDS` while other requests
  go on): an asymmetric signature only (:data:`ALGORITHMS`; ``none`` and the HMAC family never,
  so a public key is no secret), ``exp`` and ``nbf`` with :data:`LEEWAY` seconds of leeway,
  ``iss``, ``sub``, and an audience that names this server's resource URI (RFC 8707). A token
  checked is kept until it expires (:class:`Verifier`). The token is never passed on: a tool
  sees its arguments, as over stdio.
- A caller's rights are its token's scopes (and the values of a configured claim):
  :class:`cogtools.trust.policy.Rights`. ``tools/list`` shows it only the tools it may call
  (:class:`Authorizer`, cached per state of the catalog and set of rights); a ``tools/call``
  beyond them, seen in the request's body, is ``403`` with ``WWW-Authenticate: Bearer
  error="insufficient_scope", scope="..."`` (the scopes that would do, to step up); one whose
  body the HTTP layer does not read (no stated length, or over 64 KiB) comes to the SDK, whose
  middleware answers it with a ``POLICY_DENIED`` result. ``cogtools_call`` needs what the tool
  it calls needs, ``cogtools_search`` what every tool it could find needs; a tool the server's
  policy hides from everyone is no tool here either (never a ``403`` that tells it exists).
- A session of the handshake era belongs to the subject that opened it: another token's
  subject is refused it (404, as a session the server does not know).
"""

from __future__ import annotations

import json
import time
import typing as t
from urllib.parse import urlsplit

import anyio
import jwt
import mcp_types as types

from cogtools.core.errors import ConfigInvalidError, PolicyDeniedError, UsageError
from cogtools.trust.policy import READ, ROLE_SCOPES, ROLES, Rights, tool_scope

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool
    from cogtools.mcp.listing import Listing
    from cogtools.mcp.server import ToolServer

#: The signature algorithms a token may use: asymmetric ones only. ``none`` is no signature, and
#: with HS256 and the like, whoever holds the issuer's public key could sign.
ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
#: Which key types sign with which algorithms.
_FAMILIES = {"RSA": ("RS", "PS"), "EC": ("ES",), "OKP": ("EdDSA",)}
#: Seconds of clock skew allowed on ``exp``, ``nbf`` and ``iat``.
LEEWAY = 30.0
#: The longest an Authorization header may be (the whole head may take 16 KiB,
#: :data:`cogtools.mcp.bounded_head.MAX_HEAD`).
MAX_AUTHORIZATION = 8 * 1024
#: The most seconds one fetch of the issuer's metadata or keys may take, all told.
FETCH_SECONDS = 5.0
#: The largest metadata document or key set read.
MAX_DOCUMENT = 256 * 1024
#: A key set is fetched again for a key it lacks at most this often (seconds), and at the
#: latest once it is this old (:data:`KEYS_SECONDS`).
REFETCH_SECONDS = 10.0
KEYS_SECONDS = 3600.0
#: How many checked tokens are kept (each until it expires), and how many sets of rights the
#: listing is kept for per state of the catalog.
KEPT_TOKENS = 4096
KEPT_RIGHTS = 1024
#: Where an ASGI scope carries the caller of a request.
CALLER_KEY = "cogtools.caller"
#: The path of the protected resource's metadata (RFC 9728 section 3).
WELL_KNOWN = "/.well-known/oauth-protected-resource"


class AuthFailure(Exception):
    """Why a request's token is refused (its ``401``): ``invalid_request`` (none, or not a bearer
    token) or ``invalid_token``."""

    def __init__(self, description: str, error: str = "invalid_token") -> None:
        super().__init__(description)
        self.error = error
        self.description = description


class Settings(t.NamedTuple):
    """How the server checks tokens and maps them to rights (``--auth``, ``--resource``, and the
    user's ``auth`` setting)."""

    issuer: str
    #: This server's resource URI, which a token's audience must name.
    resource: str
    #: Role -> the scopes that give it (the defaults: :data:`cogtools.trust.policy.ROLE_SCOPES`).
    roles: t.Mapping[str, tuple[str, ...]] = ROLE_SCOPES
    #: Category -> the scope a tool of it needs besides what it can do.
    categories: t.Mapping[str, str] = {}
    #: A claim whose values count as scopes too (``roles``, ``groups``), besides ``scope`` and ``scp``.
    claim: str | None = None
    leeway: float = LEEWAY

    @classmethod
    def of(cls, config: t.Mapping[str, t.Any], issuer: str | None, resource: str | None, served: str) -> Settings:
        """The settings of the user's ``auth`` section, ``--auth`` and ``--resource`` over its
        ``issuer`` and ``resource``; the resource defaults to the URL ``served``."""
        where = "auth"
        issuer = issuer or config.get("issuer")
        if not isinstance(issuer, str) or not issuer:
            raise UsageError("--auth takes the issuer's URL (or set auth.issuer in your configuration)")
        resource = resource or config.get("resource") or served
        for name, url in (("issuer", issuer), ("resource", resource)):
            if not _https_or_loopback(url):
                raise UsageError(f"the {name} must be an https URL (http only on loopback): {url!r}")
        roles = dict(ROLE_SCOPES)
        for role, scopes in (config.get("roles") or {}).items():
            if role not in ROLES or not _strings(scopes):
                raise ConfigInvalidError(f"auth.roles maps a role ({', '.join(ROLES)}) to a list of scopes", path=where)
            roles[role] = tuple(scopes)
        categories = config.get("categories") or {}
        if not isinstance(categories, dict) or not all(isinstance(v, str) for v in categories.values()):
            raise ConfigInvalidError("auth.categories maps a category to the scope its tools need", path=where)
        claim = config.get("claim")
        if claim is not None and not isinstance(claim, str):
            raise ConfigInvalidError("auth.claim names a claim of the token", path=where)
        leeway = config.get("leeway", LEEWAY)
        if not isinstance(leeway, (int, float)) or not 0 <= leeway <= 300:
            raise ConfigInvalidError("auth.leeway is a number of seconds from 0 to 300", path=where)
        return cls(issuer, resource, roles, categories, claim, leeway)

    def metadata_url(self) -> str:
        """Where this resource's metadata is (RFC 9728 section 3.1: the well-known path put
        between the host and the resource's path)."""
        parts = urlsplit(self.resource)
        return f"{parts.scheme}://{parts.netloc}{WELL_KNOWN}{parts.path.rstrip('/')}"

    def metadata(self) -> bytes:
        """The protected resource's metadata (RFC 9728 section 2)."""
        document = {
            "resource": self.resource,
            "authorization_servers": [self.issuer],
            "bearer_methods_supported": ["header"],
            "scopes_supported": sorted(
                {"tools:read", "tools:write", "tools:network", "tools:destructive"}
                | {scope for scopes in self.roles.values() for scope in scopes}
                | set(self.categories.values())
            ),
            "resource_name": "cogtools",
        }
        return json.dumps(document).encode()


def _strings(value: t.Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _https_or_loopback(url: str) -> bool:
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return False
    if not host:
        return False
    return parts.scheme == "https" or (parts.scheme == "http" and host in ("127.0.0.1", "localhost", "::1"))


class Caller(t.NamedTuple):
    """Who sent a request, as its token says."""

    subject: str
    #: The client it was issued to (``azp`` or ``client_id``), "" when it does not say.
    client: str
    rights: Rights
    #: When the token expires (seconds since the epoch).
    expires: float


# -- the issuer's keys ------------------------------------------------------------------------------


async def fetch_json(url: str, seconds: float = FETCH_SECONDS) -> dict[str, t.Any]:
    """The JSON object at ``url``, fetched within ``seconds`` all told and :data:`MAX_DOCUMENT`
    bytes; :class:`AuthFailure` saying why not."""
    import httpx2

    if not _https_or_loopback(url):
        raise AuthFailure(f"the issuer's document is not at an https URL: {url}")
    try:
        with anyio.fail_after(seconds):
            # (a proxy of the environment for the issuer's https URL, none on loopback)
            loopback = urlsplit(url).scheme == "http"
            async with httpx2.AsyncClient(timeout=seconds, follow_redirects=False, trust_env=not loopback) as client:
                async with client.stream("GET", url, headers={"Accept": "application/json"}) as response:
                    if response.status_code != 200:
                        raise AuthFailure(f"the issuer answered {response.status_code} for {url}")
                    chunks, size = [], 0
                    async for chunk in response.aiter_bytes():
                        size += len(chunk)
                        if size > MAX_DOCUMENT:
                            raise AuthFailure(f"the issuer's document at {url} is over {MAX_DOCUMENT} bytes")
                        chunks.append(chunk)
    except TimeoutError:
        raise AuthFailure(f"the issuer did not answer within {seconds:g} s: {url}") from None
    except httpx2.HTTPError as e:
        raise AuthFailure(f"the issuer cannot be reached at {url}: {type(e).__name__}") from None
    try:
        document = json.loads(b"".join(chunks))
    except (ValueError, RecursionError):
        raise AuthFailure(f"the issuer's document at {url} is not JSON") from None
    if not isinstance(document, dict):
        raise AuthFailure(f"the issuer's document at {url} is not a JSON object")
    return document


def metadata_urls(issuer: str) -> list[str]:
    """Where the issuer's metadata may be: RFC 8414's well-known path (inserted before the
    issuer's path), then OpenID Connect Discovery's (appended to it)."""
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    base = f"{parts.scheme}://{parts.netloc}"
    return [f"{base}/.well-known/oauth-authorization-server{path}", f"{base}{path}/.well-known/openid-configuration"]


class Key(t.NamedTuple):
    """One of the issuer's signing keys: its JWK as PyJWT reads it, its type, and the
    algorithm it names (None: any of its type's)."""

    jwk: jwt.PyJWK
    kty: str
    alg: str | None


class Keys:
    """The issuer's signing keys: found from its metadata, kept for :data:`KEYS_SECONDS`, and
    fetched again for a key id they lack, at most every :data:`REFETCH_SECONDS` (one fetch at a
    time; a request that waits for it waits at most :data:`FETCH_SECONDS`)."""

    def __init__(self, issuer: str, *, fetch_seconds: float = FETCH_SECONDS) -> None:
        self.issuer = issuer
        self._fetch_seconds = fetch_seconds
        self._jwks_uri: str | None = None
        self._keys: dict[str | None, Key] = {}
        self._fetched = -REFETCH_SECONDS  # (when the last fetch was tried, success or not)
        self._loaded = -KEYS_SECONDS  # (when keys were last read)
        self._lock = anyio.Lock()
        self._failure = ""

    async def key(self, kid: str | None) -> Key:
        """The key ``kid`` names (one without a name: the set's only key), fetching the set
        when it lacks it and may be fetched again."""
        found = self._find(kid)
        if found is not None and time.monotonic() - self._loaded < KEYS_SECONDS:
            return found
        async with self._lock:
            found = self._find(kid)
            now = time.monotonic()
            if (found is None or now - self._loaded >= KEYS_SECONDS) and now - self._fetched >= REFETCH_SECONDS:
                self._fetched = now
                try:
                    with anyio.fail_after(self._fetch_seconds):  # (the metadata and the keys, all told)
                        await self._fetch()
                    self._failure = ""
                except AuthFailure as e:
                    self._failure = e.description
                except TimeoutError:
                    self._failure = f"the issuer did not answer within {self._fetch_seconds:g} s"
                found = self._find(kid)
        if found is None:
            why = f" (the last fetch of its keys failed: {self._failure})" if self._failure else ""
            named = "no kid" if kid is None else repr(kid[:64])
            raise AuthFailure(f"the token's key ({named}) is not one of the issuer's{why}")
        return found

    def _find(self, kid: str | None) -> Key | None:
        if kid is None and len(self._keys) == 1:
            return next(iter(self._keys.values()))
        return self._keys.get(kid)

    async def _fetch(self) -> None:
        if self._jwks_uri is None:
            failures = []
            for url in metadata_urls(self.issuer):
                try:
                    document = await fetch_json(url, self._fetch_seconds)
                except AuthFailure as e:
                    failures.append(e.description)
                    continue
                if document.get("issuer") != self.issuer:
                    failures.append(f"the metadata at {url} names another issuer")
                    continue
                uri = document.get("jwks_uri")
                if not isinstance(uri, str) or not _https_or_loopback(uri):
                    failures.append(f"the metadata at {url} has no https jwks_uri")
                    continue
                self._jwks_uri = uri
                break
            else:
                raise AuthFailure("; ".join(failures))
        document = await fetch_json(self._jwks_uri, self._fetch_seconds)
        keys = document.get("keys")
        if not isinstance(keys, list):
            raise AuthFailure(f"the key set at {self._jwks_uri} has no keys")
        usable: dict[str | None, Key] = {}
        for entry in keys[:100]:
            kty = entry.get("kty") if isinstance(entry, dict) else None
            if not isinstance(kty, str) or kty not in _FAMILIES or entry.get("use", "sig") != "sig":
                continue  # (an encryption key, a symmetric one: never a signer here)
            try:
                named = entry.get("alg")
                key = Key(jwt.PyJWK(entry), kty, named if isinstance(named, str) else None)
            except Exception:  # noqa: BLE001 - a key PyJWT cannot read, however it says so, is no key
                continue
            usable[entry.get("kid") if isinstance(entry.get("kid"), str) else None] = key
        if not usable:
            raise AuthFailure(f"the key set at {self._jwks_uri} has no signing key cogtools can use")
        self._keys, self._loaded = usable, time.monotonic()


# -- tokens -----------------------------------------------------------------------------------------


class Verifier:
    """Checks a request's bearer token and says who sent it (:meth:`caller`); a token checked
    once is kept until it expires (:data:`KEPT_TOKENS` of them)."""

    def __init__(self, settings: Settings, ceiling: t.Callable[[], str], keys: Keys | None = None) -> None:
        self.settings = settings
        #: The server's own role (as configured when a token is checked), the most a caller gets.
        self.ceiling = ceiling
        self.keys = keys or Keys(settings.issuer)
        self._checked: dict[bytes, Caller] = {}
        self._audiences = {settings.resource, settings.resource.rstrip("/"), settings.resource.rstrip("/") + "/"}

    async def caller(self, authorization: bytes | None) -> Caller:
        """The caller whose ``Authorization: Bearer TOKEN`` this is; :class:`AuthFailure` why not."""
        if not authorization:
            raise AuthFailure("this server needs an access token: Authorization: Bearer TOKEN", "invalid_request")
        if len(authorization) > MAX_AUTHORIZATION:
            raise AuthFailure(f"the Authorization header is over {MAX_AUTHORIZATION} bytes", "invalid_request")
        kept = self._checked.get(authorization)
        if kept is not None:
            if kept.expires + self.settings.leeway > time.time():
                return kept
            del self._checked[authorization]
        scheme, _, token = authorization.partition(b" ")
        if scheme.lower() != b"bearer" or not token.strip():
            raise AuthFailure("send the access token as Authorization: Bearer TOKEN", "invalid_request")
        found = await self._check(token.strip().decode("latin-1"))
        if len(self._checked) >= KEPT_TOKENS:
            self._checked.pop(next(iter(self._checked)))
        self._checked[authorization] = found
        return found

    async def _check(self, token: str) -> Caller:
        try:
            header = jwt.get_unverified_header(token)
        except (jwt.DecodeError, ValueError, TypeError, RecursionError):
            raise AuthFailure("the access token is not a JWT") from None
        alg, kid = header.get("alg"), header.get("kid")
        if alg not in ALGORITHMS:
            shown = repr(alg[:32] if isinstance(alg, str) else alg)[:40]
            raise AuthFailure(f"the token's algorithm {shown} is not accepted (one of {', '.join(ALGORITHMS)})")
        if kid is not None and not isinstance(kid, str):
            raise AuthFailure("the token's kid is not a string")
        key = await self.keys.key(kid)
        if (key.alg is not None and key.alg != alg) or not str(alg).startswith(_FAMILIES[key.kty]):
            raise AuthFailure(f"the token's algorithm {alg} is not its key's")
        try:
            claims = jwt.decode(
                token,
                key.jwk.key,
                algorithms=[t.cast(str, alg)],
                audience=list(self._audiences),
                issuer=self.settings.issuer,
                leeway=self.settings.leeway,
                options={"require": ["exp", "iss", "aud", "sub"]},
            )
        except jwt.ExpiredSignatureError:
            raise AuthFailure("the access token has expired") from None
        except jwt.ImmatureSignatureError:
            raise AuthFailure("the access token is not valid yet (its nbf or iat is to come)") from None
        except jwt.InvalidAudienceError:
            raise AuthFailure(
                f"the access token is not for this server (its audience is not {self.settings.resource})"
            ) from None
        except jwt.InvalidIssuerError:
            raise AuthFailure(f"the access token was not issued by {self.settings.issuer}") from None
        except jwt.InvalidSignatureError:
            raise AuthFailure("the access token's signature does not verify") from None
        except jwt.MissingRequiredClaimError as e:
            raise AuthFailure(f"the access token has no {e.claim} claim") from None
        except (jwt.InvalidTokenError, ValueError, TypeError) as e:
            raise AuthFailure(f"the access token is invalid: {type(e).__name__}") from None
        return Caller(
            str(claims["sub"]),
            str(claims.get("azp") or claims.get("client_id") or ""),
            Rights.of(self.scopes(claims), self.ceiling(), self.settings.roles),
            float(claims["exp"]),
        )

    def scopes(self, claims: t.Mapping[str, t.Any]) -> list[str]:
        """The scopes of a token's ``claims``: ``scope`` (space-separated), ``scp``, and the
        configured claim's values."""
        found: list[str] = []
        for name in ("scope", "scp", self.settings.claim):
            value = claims.get(name) if name else None
            if isinstance(value, str):
                found.extend(value.split())
            elif isinstance(value, list):
                found.extend(item for item in value if isinstance(item, str))
        return found


# -- rights -----------------------------------------------------------------------------------------


class Authorizer:
    """What each caller may call of ``server``'s tools: the names of the listing each set of
    rights may call, kept per state of the catalog; the scopes a call lacks."""

    def __init__(self, server: ToolServer, settings: Settings) -> None:
        self.server = server
        self.settings = settings
        self._for: Listing | None = None
        self._allowed: dict[Rights, frozenset[str]] = {}
        self._search: dict[Rights, tuple[str, ...]] = {}
        #: The tools the server's policy shows (to every caller), by name.
        self._visible: dict[str, Tool] = {}

    def tool(self, listing: Listing, name: str) -> Tool | None:
        """The tool ``name`` means in ``listing`` (a built-in tool too), or None: none, as well,
        for a tool the server's policy hides from everyone (a call finds no such tool, whatever
        the caller's scopes, and a refusal must not tell it apart)."""
        self._current(listing)
        if name in self._visible:
            return self._visible[name]
        from cogtools.core.model import RESERVED_NAMES

        if name in RESERVED_NAMES and name in listing.schemas:
            from cogtools.services import builtin

            return builtin.tool(name, listing.loaded)
        return None

    def allowed(self, listing: Listing, rights: Rights) -> frozenset[str]:
        """The names of ``listing``'s tools a caller with ``rights`` may call."""
        self._current(listing)
        names = self._allowed.get(rights)
        if names is None:
            names = frozenset(name for name in listing.schemas if not self.lacks(listing, rights, name, None))
            self._allowed[rights] = names
        return names

    def _searching(self, listing: Listing, rights: Rights) -> tuple[str, ...]:
        """What ``cogtools_search`` lacks: it finds every tool the server's policy shows, so it
        needs what each of them needs (its results are not cut to a caller's rights)."""
        self._current(listing)
        lacking = self._search.get(rights)
        if lacking is None:
            found: dict[str, None] = {}
            for tool in self._visible.values():
                found.update(dict.fromkeys(rights.missing(tool, self.settings.categories, self.settings.roles)))
            lacking = self._search[rights] = tuple(found)
        return lacking

    def _current(self, listing: Listing) -> None:
        """Forget what was kept of another state of the catalog (or of too many callers)."""
        if self._for is not listing:
            catalog = listing.loaded.catalog
            self._visible = {tool.name: tool for tool in catalog.visible()} if catalog is not None else {}
        if self._for is not listing or len(self._allowed) + len(self._search) >= KEPT_RIGHTS:
            self._for, self._allowed, self._search = listing, {}, {}

    def lacks(self, listing: Listing, rights: Rights, name: str, arguments: t.Any) -> tuple[str, ...]:
        """The scopes a call of ``name`` with ``arguments`` lacks (none: it may be made, or it
        names no tool, which the call path answers). ``cogtools_call`` needs what the tool it
        is told to call needs (listed, or told of no tool it knows, ``tools:read``)."""
        from cogtools.core.model import CALL_TOOL, SEARCH_TOOL

        categories, roles = self.settings.categories, self.settings.roles
        tool = self.tool(listing, name)
        if tool is None:
            return ()
        if name == SEARCH_TOOL:
            return self._searching(listing, rights)
        if name != CALL_TOOL:
            return rights.missing(tool, categories, roles)
        told = arguments.get("name") if isinstance(arguments, dict) else None
        target = self.tool(listing, told) if isinstance(told, str) and told != CALL_TOOL else None
        if target is not None:
            return rights.missing(target, categories, roles)
        return () if READ in rights.scopes else (READ,)

    async def middleware(self, ctx: t.Any, call_next: t.Any) -> t.Any:
        """The SDK's middleware: ``tools/list`` cut to what the caller may call, and a
        ``tools/call`` beyond its rights answered with ``POLICY_DENIED`` (one the HTTP layer
        did not see whole, :func:`protect`). A request with no caller may call nothing."""
        if ctx.method not in ("tools/list", "tools/call"):
            return await call_next(ctx)
        caller = caller_of(ctx)
        rights = caller.rights if caller is not None else Rights("ai_agent", frozenset())
        listing = self.server.listing()
        if ctx.method == "tools/list":
            result = await call_next(ctx)
            allowed = self.allowed(listing, rights)
            if isinstance(result, types.ListToolsResult):
                return result.model_copy(update={"tools": [tool for tool in result.tools if tool.name in allowed]})
            if isinstance(result, dict) and isinstance(result.get("tools"), list):
                tools = [tool for tool in result["tools"] if isinstance(tool, dict) and tool.get("name") in allowed]
                return {**result, "tools": tools}
            return result
        params = ctx.params if isinstance(ctx.params, t.Mapping) else {}
        name = params.get("name")
        lacking = self.lacks(listing, rights, name, params.get("arguments")) if isinstance(name, str) else ()
        if not lacking:
            return await call_next(ctx)
        from cogtools.mcp.calls import refused
        from cogtools.mcp.reporting import connection_of

        request = getattr(ctx, "request", None)
        client = getattr(getattr(connection_of(ctx), "client_params", None), "client_info", None)
        refused(
            t.cast(str, name), params.get("arguments"), "insufficient_scope", client, getattr(request, "scope", None)
        )
        return denied_result(self.server, ctx.protocol_version, t.cast(str, name), lacking)


def caller_of(ctx: t.Any) -> Caller | None:
    """The caller of the request an SDK handler serves (the HTTP request it came in)."""
    request = getattr(ctx, "request", None)
    scope = getattr(request, "scope", None)
    found = scope.get(CALLER_KEY) if isinstance(scope, dict) else None
    return found if isinstance(found, Caller) else None


def denial(name: str, lacking: t.Sequence[str]) -> PolicyDeniedError:
    return PolicyDeniedError(
        f"this caller's token may not call {name}: it needs the scope {' '.join(lacking)} (or {tool_scope(name)})",
        tool=name,
        details={"reason": "insufficient_scope", "scope": " ".join(lacking)},
    )


def denied_result(server: ToolServer, version: str, name: str, lacking: t.Sequence[str]) -> dict[str, t.Any]:
    """The ``tools/call`` result, whole, as the SDK sends a handler's for ``version``, of a call
    refused for want of ``lacking``: an ``isError`` result carrying the ``POLICY_DENIED`` error."""
    from mcp_types import SERVER_INFO_META_KEY
    from mcp_types import methods as surface
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    from cogtools.mcp.calls import Outcome

    error = denial(name, lacking).to_json()
    shaped = Outcome(json.dumps(error, ensure_ascii=False), error).result(name)
    result = surface.serialize_server_result(
        "tools/call", version, shaped.model_dump(by_alias=True, mode="json", exclude_none=True)
    )
    if version in MODERN_PROTOCOL_VERSIONS:
        result.setdefault("resultType", "complete")
        result["_meta"] = {**(result.get("_meta") or {}), SERVER_INFO_META_KEY: server.sdk.server_info_stamp}
    return result


# -- the HTTP layer -------------------------------------------------------------------------------


def _quoted(text: str) -> str:
    """``text`` as a quoted-string's content: printable ASCII only (a token's kid is the
    sender's to choose: no line break of it ends a header), at most 300 characters."""
    printable = "".join(c if " " <= c <= "~" else "?" for c in text[:300])
    return printable.replace("\\", "\\\\").replace('"', "'")


def challenge(settings: Settings, error: str | None = None, description: str = "", scope: str = "") -> bytes:
    """``WWW-Authenticate: Bearer ...`` (RFC 6750 section 3, RFC 9728 section 5.1)."""
    parts = []
    if error:
        parts.append(f'error="{error}"')
    if description:
        parts.append(f'error_description="{_quoted(description)}"')
    if scope:
        parts.append(f'scope="{scope}"')
    parts.append(f'resource_metadata="{settings.metadata_url()}"')
    return ("Bearer " + ", ".join(parts)).encode("latin-1", "replace")


#: How the server refuses a request: ``refuse(send, status, body, *headers)``.
Refuse = t.Callable[..., t.Awaitable[None]]


def protect(app: t.Any, verifier: Verifier, authorizer: Authorizer, refuse: Refuse, path: str = "/mcp") -> t.Any:
    """``app`` behind the resource server's checks: the metadata served, every other request
    with a valid token (else ``401``), its caller in its scope (:data:`CALLER_KEY`); a
    ``tools/call`` POSTed with a length within :data:`cogtools.mcp.direct.MAX_BODY` (what
    :mod:`cogtools.mcp.direct` may answer in front of the SDK) checked against the
    caller's rights (else ``403``); a session of the handshake era kept to its subject."""
    from cogtools.mcp.calls import refused_body
    from cogtools.mcp.direct import MAX_BODY, _read, _replaying

    settings = verifier.settings
    metadata = settings.metadata()
    documents = {WELL_KNOWN, urlsplit(settings.metadata_url()).path}
    owners: dict[bytes, str] = {}

    async def protected(scope: t.Any, receive: t.Any, send: t.Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        if scope["path"] in documents:
            if scope["method"] in ("GET", "HEAD"):
                await refuse(send, 200, metadata, (b"cache-control", b"max-age=3600"))
            else:
                await refuse(send, 405, b'{"error": "method not allowed"}', (b"allow", b"GET, HEAD"))
            return
        headers = scope["headers"]
        authorization = [value for key, value in headers if key == b"authorization"]
        try:
            if len(authorization) > 1:
                raise AuthFailure("send one Authorization header", "invalid_request")
            caller = await verifier.caller(authorization[0] if authorization else None)
        except AuthFailure as e:
            body = json.dumps({"error": e.error, "error_description": e.description}).encode()
            described = challenge(settings, e.error if authorization else None, e.description if authorization else "")
            await refuse(send, 401, body, (b"www-authenticate", described))
            return
        session = next((value for key, value in headers if key == b"mcp-session-id"), None)
        if session is not None and owners.get(session, caller.subject) != caller.subject:
            await refuse(send, 404, b'{"error": "no such session for this caller"}')
            return
        scope = {**scope, CALLER_KEY: caller}
        length = next((value for key, value in headers if key == b"content-length"), b"")
        if scope["method"] == "POST" and scope["path"] == path and length.isdigit() and int(length) <= MAX_BODY:
            messages, whole = await _read(receive, int(length))
            lacking, name = _lacking(authorizer, caller, whole)
            if lacking:
                refused_body(t.cast(bytes, whole), "insufficient_scope", scope)  # (the audit log's)
                detail = denial(name, lacking).to_json()
                await refuse(
                    send,
                    403,
                    json.dumps(
                        {"error": "insufficient_scope", "error_description": detail["error"]["message"]}
                    ).encode(),
                    (b"www-authenticate", challenge(settings, "insufficient_scope", scope=" ".join(lacking))),
                )
                return
            receive = _replaying(messages, receive)
            if session is None:
                send = _owning(send, owners, caller.subject)
        await app(scope, receive, send)

    return protected


def _lacking(authorizer: Authorizer, caller: Caller, body: bytes | None) -> tuple[tuple[str, ...], str]:
    """What the ``tools/call`` of ``body`` lacks, and its tool's name (nothing, for anything else)."""
    if body is None or b"tools/call" not in body:
        return (), ""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return (), ""
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return (), ""
    params = message.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    if not isinstance(name, str):
        return (), ""
    listing = authorizer.server.listing()
    return authorizer.lacks(listing, caller.rights, name, t.cast(dict[str, t.Any], params).get("arguments")), name


def _owning(send: t.Any, owners: dict[bytes, str], subject: str) -> t.Any:
    """``send``, noting the subject of a session the answer opens (its ``mcp-session-id``)."""

    async def noting(message: t.Any) -> None:
        if message["type"] == "http.response.start":
            for key, value in message.get("headers", ()):
                if key.lower() == b"mcp-session-id":
                    if len(owners) >= 100_000:
                        owners.pop(next(iter(owners)))
                    owners[bytes(value)] = subject
        await send(message)

    return noting
