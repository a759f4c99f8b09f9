"""What a caller may see and run, decided by the tools' metadata (seed 001), never their names.

Defaults are the cautious ones where a tool says nothing: its risk is ``high`` and its side
effects are unknown (so it is an *action* tool, never a diagnostic one, and its MCP annotations
say it may be destructive and reach the network). Only ``min_role`` defaults to the lowest role,
``ai_agent``: a tool that says nothing about roles is meant to be used.

Toolsets (seed 001's matrix): *diagnostic* is low risk, no side effect beyond reading, and
neither a user notice nor an idle check required; *action* is everything else.

What a caller is not shown (its role, a denied category, the filters) is not there for it: a call
by name finds no such tool (:meth:`Policy.hides`). What cogtools says a tool can do (MCP's
annotations, ``which``, ``show``, GEMINI.md, sync's review) is what it holds the tool to
(:func:`reach`).
"""

from __future__ import annotations

import os
import typing as t

from cogtools.core.errors import PolicyDeniedError

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool
    from cogtools.load.project import Project
    from cogtools.run import Outline

ROLES = ("ai_agent", "human_agent", "admin")
RISKS = ("low", "medium", "high")
TOOLSETS = ("all", "diagnostic", "action")
READ_ONLY_EFFECTS = frozenset({"filesystem_read"})

#: The policy settings of the configuration (``policy:``) and their defaults.
DEFAULT_POLICY: dict[str, t.Any] = {
    "role": "ai_agent",
    "toolset": "all",
    "max_risk": "high",
    "category": None,
    "denied_categories": [],
    "max_risk_without_confirmation": "low",
    "idle_max_load": 1.0,
}


def risk(tool: Tool) -> str:
    return tool.metadata.risk_level or "high"


def read_only(tool: Tool) -> bool:
    """Whether ``tool`` declares that it only reads (read-only side effects, and no path of its
    own to write: ``sandbox.write``), and what it runs does not plainly say otherwise (a request
    that can change what a server holds, :attr:`cogtools.run.Outline.changes`). Whether it is
    held to that here is :func:`reach`'s question."""
    effects = tool.metadata.side_effects
    if effects is None or not set(effects) <= READ_ONLY_EFFECTS or tool.metadata.sandbox_write:
        return False
    inherent = _inherent(tool)
    return inherent is None or not inherent.changes


def toolset(tool: Tool) -> str:
    """``diagnostic`` or ``action``."""
    meta = tool.metadata
    if risk(tool) == "low" and read_only(tool) and not meta.requires_user_notice and not meta.requires_idle_check:
        return "diagnostic"
    return "action"


def role_allows(role: str, tool: Tool) -> bool:
    return ROLES.index(role) >= ROLES.index(tool.metadata.min_role or "ai_agent")


def _lower(order: t.Callable[[t.Any], t.Any]) -> t.Callable[[t.Any, t.Any], bool]:
    return lambda wanted, allowed: bool(order(wanted) <= order(allowed))


def _within(everything: t.Any) -> t.Callable[[t.Any, t.Any], bool]:
    """A filter is narrowed by choosing one where the user's shows ``everything``, or by the same."""

    def folded(value: t.Any) -> t.Any:
        return value.casefold() if isinstance(value, str) else value

    return lambda wanted, allowed: allowed == everything or folded(wanted) == folded(allowed)


#: The policy settings a project's file may only narrow, each with whether a value it asks for
#: (``wanted``) is no wider than the one it would replace (``allowed``): the role and the limits,
#: and the filters of what a caller is shown, which are what it may call too.
NARROW_ONLY: dict[str, t.Callable[[t.Any, t.Any], bool]] = {
    "role": _lower(ROLES.index),
    "toolset": _within("all"),
    "max_risk": _lower(RISKS.index),
    "category": _within(None),
    "max_risk_without_confirmation": _lower(RISKS.index),
    "idle_max_load": _lower(float),
}
#: The settings a project's file adds to the user's.
PROJECT_ADDS = ("denied_categories",)


class Widening(t.NamedTuple):
    """A setting a project's file asked to widen, which it may not."""

    key: str
    wanted: t.Any
    allowed: t.Any


class Narrowed(t.NamedTuple):
    #: The policy settings in force.
    settings: dict[str, t.Any]
    #: What the project asked for beyond the user's settings, and was not given.
    widenings: list[Widening]


def narrowed(user: t.Mapping[str, t.Any], project: t.Mapping[str, t.Any]) -> Narrowed:
    """The one rule of how a project's ``policy`` section combines with the ``user``'s (the
    defaults, the user's file, ``COGTOOLS_ROLE``): a project's files can be written by the agent
    itself (DESIGN §11), so from them a lower role, more denied categories, lower confirmation
    and load limits, and narrower filters of what a caller is shown and may call (a toolset or
    a category where the user's shows all, a lower max_risk) are taken, and a higher role or a
    wider limit or filter is not (it is a widening). Loading (:meth:`Policy.from_settings`) and
    ``cogtools config set`` (which refuses a widening before writing it) both ask this."""
    merged = dict(user)
    widenings = []
    for key in PROJECT_ADDS:
        merged[key] = [*merged.get(key, ()), *project.get(key, ())]
    for key, no_wider in NARROW_ONLY.items():
        if key in project:
            if no_wider(project[key], merged[key]):
                merged[key] = project[key]
            else:
                widenings.append(Widening(key, project[key], merged[key]))
    return Narrowed(merged, widenings)


def _folded(categories: t.Iterable[str]) -> tuple[str, ...]:
    return tuple(category.casefold() for category in categories)


class Policy(t.NamedTuple):
    role: str = "ai_agent"
    toolset: str = "all"
    max_risk: str = "high"
    category: str | None = None
    denied_categories: tuple[str, ...] = ()
    max_risk_without_confirmation: str = "low"
    idle_max_load: float = 1.0
    #: Why the role is lower than a project file asked for, to say in a refusal ("" if it is not).
    note: str = ""

    @classmethod
    def from_settings(
        cls,
        settings: t.Mapping[str, t.Any],
        environ: t.Mapping[str, str] | None = None,
        *,
        project: t.Mapping[str, t.Any] | None = None,
        **overrides: t.Any,
    ) -> Policy:
        """The policy of the user's own ``settings`` (the ``policy`` section of the defaults and the
        user's configuration file), with ``COGTOOLS_ROLE`` over its role; then the ``project``'s
        section, which can only narrow it; then the command line's ``overrides`` (None: not
        given), which choose what is shown.

        A project's files can be written by the agent itself (DESIGN §11), so from them only
        what narrows the user's policy is taken (:func:`narrowed`), and a higher role or a wider
        limit or filter is ignored (and said in a refusal).
        """
        environ = {} if environ is None else environ
        merged = {**DEFAULT_POLICY, **settings}
        if environ.get("COGTOOLS_ROLE"):
            merged["role"] = environ["COGTOOLS_ROLE"]
        _check_role(merged["role"], "COGTOOLS_ROLE" if environ.get("COGTOOLS_ROLE") else "policy.role")
        note = ""
        if project:
            if project.get("role") is not None:
                _check_role(project["role"], "policy.role")
            merged, widenings = narrowed(merged, project)
            if any(widening.key == "role" for widening in widenings):
                note = (
                    f"the project's policy.role {project['role']} is ignored: a project file can lower the role, not"
                    " raise it (set it in the user's configuration or COGTOOLS_ROLE)"
                )
        merged.update({k: v for k, v in overrides.items() if v is not None})
        _check_role(merged["role"], "--role")
        merged["denied_categories"] = _folded(merged["denied_categories"])
        return cls(**merged, note=note)

    @classmethod
    def of(cls, project: Project, **overrides: t.Any) -> Policy:
        """The policy for ``project``: the user's, narrowed by the project's files, with
        ``overrides`` (None: as configured)."""
        config = project.config
        trusted = config.trusted.get("policy")
        own = trusted.value if trusted is not None else {}
        setting = config.settings["policy"]
        narrowed = setting.value if trusted is None or setting.origin != trusted.origin else None
        return cls.from_settings(own, project.environ, project=narrowed, **overrides)

    def denies_category(self, tool: Tool) -> bool:
        category = tool.metadata.category
        return category is not None and category.casefold() in self.denied_categories

    def visible(self, tool: Tool) -> bool:
        """Whether this caller is shown ``tool`` (discovery, listings) and may call it by name:
        a tool it hides is not found (:meth:`hides`)."""
        return self.hides(tool) is None

    def hides(self, tool: Tool) -> str | None:
        """Why this caller is not shown ``tool``, in words (None: it is): its role, a denied
        category, or the filters (toolset, max_risk, category). What is hidden from a caller is
        not there for it: a call by name is TOOL_NOT_FOUND, as for a name no tool has."""
        if not role_allows(self.role, tool):
            why = f"it needs {tool.metadata.min_role} or above, and the role is {self.role}"
            return why + (f"; {self.note}" if self.note else "")
        if self.denies_category(tool):
            return f"its category {tool.metadata.category} is denied (policy.denied_categories)"
        if self.toolset != "all" and toolset(tool) != self.toolset:
            return f"it is not a {self.toolset} tool (policy.toolset)"
        if RISKS.index(risk(tool)) > RISKS.index(self.max_risk):
            return f"its risk, {risk(tool)}, is above policy.max_risk {self.max_risk}"
        if self.category is not None and (tool.metadata.category or "").casefold() != self.category.casefold():
            return f"it is not of the category {self.category} (policy.category)"
        return None

    def check_call(self, tool: Tool, *, euid: int | None = None, load: float | None = None) -> None:
        """POLICY_DENIED unless this caller may run ``tool`` now: its role, denied categories,
        privileges and idleness. (A call by name meets :meth:`hides` first, in the lookup; this
        is what a definition handed over whole, or an example of ``cogtools test``, meets.)"""

        def deny(message: str, **details: t.Any) -> t.NoReturn:
            raise PolicyDeniedError(message, tool=tool.name, details=details)

        minimum = tool.metadata.min_role or "ai_agent"
        if not role_allows(self.role, tool):
            why = f"; {self.note}" if self.note else ""
            deny(
                f"the role {self.role} may not run {tool.name} (it needs {minimum} or above){why}",
                role=self.role,
                min_role=minimum,
            )
        if self.denies_category(tool):
            deny(f"the category {tool.metadata.category} is denied by policy", category=tool.metadata.category)
        if tool.metadata.requires_admin:
            uid = os.geteuid() if euid is None else euid
            if uid != 0:
                deny(f"{tool.name} needs administrator privileges; this process runs as uid {uid}", euid=uid)
        if tool.metadata.requires_idle_check:
            measured = os.getloadavg()[0] if load is None else load
            if measured > self.idle_max_load:
                deny(
                    f"{tool.name} runs only on an idle system: the 1-minute load average is {measured:.2f},"
                    f" above policy.idle_max_load {self.idle_max_load:g}",
                    load_average=measured,
                    idle_max_load=self.idle_max_load,
                )


def effective_settings(project: Project) -> list[tuple[str, t.Any, str]]:
    """Each policy setting as calls see it: its key, its value and where the value came from
    (the default, the user's file, ``COGTOOLS_ROLE``, or the project's file, which can only
    narrow what the user allows; a request the project may not make is said)."""
    policy = Policy.of(project)
    config = project.config
    trusted = config.trusted.get("policy")
    setting = config.settings["policy"]
    sources: list[tuple[str, t.Mapping[str, t.Any]]] = []
    if trusted is not None and trusted.origin != "default":
        sources.append((trusted.origin, trusted.value))
    if project.environ.get("COGTOOLS_ROLE"):
        sources.append(("environment COGTOOLS_ROLE", {"role": project.environ["COGTOOLS_ROLE"]}))
    narrowing = trusted is None or setting.origin != trusted.origin
    if narrowing:
        sources.append((setting.origin, setting.value))
    rows = []
    for key, default in DEFAULT_POLICY.items():
        value = getattr(policy, key)
        if key == "denied_categories":  # each source adds its own
            value = [category for _, given in sources for category in given.get(key, ())]
            origin = " + ".join(where for where, given in sources if given.get(key)) or "default"
        else:
            origin, current = "default", default
            for where, given in sources:
                project_ignored = (
                    narrowing and where == setting.origin and (given.get(key) != value or current == value)
                )
                if key in given and not project_ignored:
                    origin, current = where, given[key]
        if key == "role" and policy.note:
            origin += f" ({policy.note})"
        rows.append((key, value, origin))
    return rows


def _check_role(role: t.Any, where: str) -> None:
    if role not in ROLES:
        from cogtools.core.errors import ConfigInvalidError

        raise ConfigInvalidError(f"{role!r} is not a role (one of {', '.join(ROLES)})", path=where)


def enforce(tool: Tool, project: Project) -> None:
    """POLICY_DENIED unless the project's policy (and ``COGTOOLS_ROLE``) lets this process run
    ``tool`` now: the one check every way of calling a tool goes through."""
    Policy.of(project).check_call(tool)


class Reach(t.NamedTuple):
    """What a tool can do here, under its confinement: the most that what cogtools says of it
    (MCP's annotations, ``which``, ``show``, GEMINI.md, sync's review) may claim. Each is "" where
    it cannot, else why it can, in words."""

    #: It may change something: a file, a process, what a server holds.
    changes: str
    #: It may reach beyond its call: the network, or a socket of another process.
    network: str
    #: Why nothing bounds it at all ("" when something does): it declares no side effects, or
    #: its programs cannot be confined here.
    unbounded: str = ""

    def words(self) -> str:
        """In words, for ``which``, ``show`` and sync's review: ``changes nothing; open world:
        it sends an HTTP request to api.example.com``."""
        if self.unbounded == _UNDECLARED:
            return f"claims nothing: {_UNDECLARED}"
        if self.unbounded:
            return f"may do anything: {self.unbounded}"
        changes = f"may change things: {self.changes}" if self.changes else "changes nothing"
        network = f"open world: {self.network}" if self.network else "reaches no network"
        return f"{changes}; {network}"

    def short(self) -> str:
        """In a few words, for GEMINI.md's table: ``changes nothing; network``."""
        if self.unbounded:
            return "not stated" if self.unbounded == _UNDECLARED else "anything (not confined here)"
        changes = "may change things" if self.changes else "changes nothing"
        return f"{changes}; {'network' if self.network else 'no network'}"


#: Why a tool that declares no side effects is bounded by nothing.
_UNDECLARED = "it declares no side_effects"
#: Why a program without network is bounded by nothing on a machine without the socket filter.
_UNFILTERED = "this machine has no socket filter, so its programs could reach a socket file without network"


def reach(tool: Tool) -> Reach:
    """What ``tool`` can do here (:class:`Reach`): a tool that declares no side effects may do
    anything; one whose kind runs programs may do what it declares where they run confined to
    it (:mod:`cogtools.run.confine`: bubblewrap, and without ``network`` the socket filter), and
    anything where they cannot; one whose kind runs none (a template, a request, a built-in) may
    do what it declares and what its kind plainly does whatever it declares (its
    :class:`~cogtools.run.Outline`: a request leaves the machine, and one with a body can change
    what a server holds)."""
    effects = tool.metadata.side_effects
    if effects is None:
        return Reach(_UNDECLARED, _UNDECLARED, _UNDECLARED)
    declared = set(effects)
    inherent = _inherent(tool)
    unheld = _unconfined(declared) if inherent is None else ""
    if unheld:
        return Reach(unheld, unheld, unheld)
    implied = dict(inherent.implies) if inherent is not None else {}
    beyond = sorted(declared - READ_ONLY_EFFECTS - set(implied))
    changes = inherent.changes if inherent is not None else ""
    if not changes and beyond:
        changes = f"it declares {', '.join(beyond)}"
    if not changes and tool.metadata.sandbox_write:
        changes = f"it declares paths to write ({', '.join(tool.metadata.sandbox_write)})"
    network = implied.get("network", "")
    if not network and "network" in declared:
        network = "it declares network"
    return Reach(changes, network)


def _inherent(tool: Tool) -> Outline | None:
    """What a run of ``tool`` plainly does whatever it declares, when its kind runs no program
    (nothing confines it, so its outline says it all); None for a kind that runs programs."""
    from cogtools.run import runner

    kind = runner(tool.implementation.kind)
    return None if kind.RUNS_PROGRAMS else kind.outline(tool)


def _unconfined(declared: t.Collection[str]) -> str:
    """Why programs cannot be held here to ``declared`` side effects ("" when they can):
    bubblewrap cannot confine them, or one without ``network`` would run without the socket
    filter (a socket file it sees is then a way out)."""
    from cogtools.run.confine import CANNOT_CONFINE, available

    if not available():
        return CANNOT_CONFINE
    if "network" not in declared and not _sockets_filtered():
        return _UNFILTERED
    return ""


def _sockets_filtered() -> bool:
    from cogtools.run.confine import filtered

    return filtered()


def claims_basis() -> list[bool]:
    """What the claims of this machine's tools rest on besides their definitions: whether
    programs can be confined here, and run under the socket filter (a cache of claims is
    keyed on it)."""
    from cogtools.run.confine import available

    return [available(), _sockets_filtered()]


def mcp_annotations(tool: Tool) -> dict[str, t.Any]:
    """MCP tool annotations: what ``tool`` can do here (:func:`reach`), never what it merely
    declares, since clients approve on them (a read-only tool, or one neither destructive nor
    open-world, runs unasked in several). It is read-only (and so idempotent, and not
    destructive) only when it can change nothing, and closed-world only when it can reach no
    network: a hint's cautious value is no claim."""
    held = reach(tool)
    out: dict[str, t.Any] = {}
    if tool.title:
        out["title"] = tool.title
    out["readOnlyHint"] = not held.changes
    out["destructiveHint"] = bool(held.changes)  # nothing confinement holds tells additive from destructive
    out["idempotentHint"] = not held.changes
    out["openWorldHint"] = bool(held.network)
    return out


class Confined(t.NamedTuple):
    """Whether a tool runs code of its own (a program, a function) and, if so, whether it runs
    confined to its side effects here; and what it can do here, in words."""

    runs_code: bool
    confined: bool
    how: str


def confined(tool: Tool, project: Project) -> Confined:
    """Whether ``tool``'s programs run confined here (:mod:`cogtools.run.confine`), and what it
    can do here, in words: how its programs are confined, or for a kind that runs none, its
    :func:`reach`; for ``list``, ``which``, ``show``, ``-v``, ``doctor`` and sync's review."""
    from cogtools.run import runner
    from cogtools.run.confine import available, confinement, describe

    if not runner(tool.implementation.kind).RUNS_PROGRAMS:
        return Confined(False, False, "runs no program; " + reach(tool).words())
    rules = confinement(tool, project)
    return Confined(True, rules is not None and available(), describe(rules))


class Unconfined(t.NamedTuple):
    """A tool that runs without confirmation, declares its side effects, and cannot be held to
    them here: whether the user's ``sandbox.unconfined`` refuses it, and what is said."""

    refused: bool
    message: str


def unconfined(tool: Tool, project: Project) -> Unconfined | None:
    """For a tool that runs without confirmation (a person pinned it): None when its programs are
    confined here (or it declares nothing, or runs none); else whether it is refused (the user's
    ``sandbox.unconfined``: ``refuse``, the default) or runs with a warning (``warn``)."""
    from cogtools.run import runner
    from cogtools.run.confine import CANNOT_CONFINE, available, declared, filtered, settings

    effects = declared(tool)
    if effects is None or not runner(tool.implementation.kind).RUNS_PROGRAMS:
        return None
    if not available():
        why = CANNOT_CONFINE
    elif "network" in effects or filtered():
        return None
    else:  # it declares no network, which only the socket filter holds of unix sockets
        why = f"this machine ({os.uname().machine}) has no socket filter: without network it can still reach a unix socket"
    if settings(project).get("unconfined", "refuse") == "warn":
        return Unconfined(False, f"{tool.name} runs unconfined: {why} (sandbox.unconfined: warn)")
    return Unconfined(
        True,
        f"{tool.name} runs without confirmation and declares its side effects, but {why};"
        " set sandbox.unconfined: warn in your own configuration to run such tools unconfined",
    )


# -- a caller's rights, from its token's scopes (cogtools mcp --http --auth) ----------------------

#: The built-in scopes of what a tool can do here (:func:`scopes_needed`): a tool that changes
#: nothing and reaches no network needs ``tools:read``; one that may change things
#: ``tools:write``; one that reaches the network ``tools:network``; one that may do anything, or
#: changes things at a high risk, ``tools:destructive``.
READ, WRITE, NETWORK, DESTRUCTIVE = "tools:read", "tools:write", "tools:network", "tools:destructive"
#: What a granted scope grants besides itself.
IMPLIES: dict[str, tuple[str, ...]] = {DESTRUCTIVE: (WRITE, NETWORK, READ), WRITE: (READ,), NETWORK: (READ,)}
#: The scopes that give a caller a role above ``ai_agent`` (configurable: ``auth.roles``).
ROLE_SCOPES: dict[str, tuple[str, ...]] = {"human_agent": ("role:human_agent",), "admin": ("role:admin",)}


def tool_scope(name: str) -> str:
    """The scope that grants the one tool ``name`` whatever it can do."""
    return f"tool:{name}"


def scopes_needed(tool: Tool, categories: t.Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The scopes a caller needs, every one, to call ``tool`` (else :func:`tool_scope`): those of
    what it can do here (:func:`reach`, what MCP's annotations claim: see :data:`READ`), and the
    scope its category needs where ``categories`` (category -> scope, ``auth.categories``) says."""
    held = reach(tool)
    if held.unbounded or (held.changes and risk(tool) == "high"):
        needed = [DESTRUCTIVE]
    else:
        needed = [scope for scope, needs in ((WRITE, held.changes), (NETWORK, held.network)) if needs] or [READ]
    category = tool.metadata.category
    if categories and category is not None:
        folded = {key.casefold(): value for key, value in categories.items()}
        if category.casefold() in folded:
            needed.append(folded[category.casefold()])
    return tuple(needed)


def granted(scopes: t.Iterable[str]) -> frozenset[str]:
    """``scopes`` and what they imply (:data:`IMPLIES`)."""
    given = set(scopes)
    for scope in list(given):
        given.update(IMPLIES.get(scope, ()))
    return frozenset(given)


class Rights(t.NamedTuple):
    """What one caller of a shared server may call: its role and its scopes (with what they
    imply), within the server's own policy, which is the most any caller gets."""

    role: str
    scopes: frozenset[str]

    @classmethod
    def of(
        cls, scopes: t.Iterable[str], ceiling: str, role_scopes: t.Mapping[str, t.Sequence[str]] | None = None
    ) -> Rights:
        """The rights ``scopes`` give: the highest role one of them maps to (``role_scopes``,
        role -> scopes; default :data:`ROLE_SCOPES`), else ``ai_agent``, and never above
        ``ceiling`` (the server's role)."""
        given = granted(scopes)
        mapping = ROLE_SCOPES if role_scopes is None else role_scopes
        role = max(
            ("ai_agent", *(name for name, needs in mapping.items() if name in ROLES and given & set(needs))),
            key=ROLES.index,
        )
        return cls(min(role, ceiling, key=ROLES.index), given)

    def missing(
        self,
        tool: Tool,
        categories: t.Mapping[str, str] | None = None,
        role_scopes: t.Mapping[str, t.Sequence[str]] | None = None,
    ) -> tuple[str, ...]:
        """The scopes this caller lacks to call ``tool`` (none: it may): a scope of the role the
        tool needs, and :func:`scopes_needed` unless it holds :func:`tool_scope`."""
        lacking: list[str] = []
        if not role_allows(self.role, tool):
            needs = (ROLE_SCOPES if role_scopes is None else role_scopes).get(tool.metadata.min_role or "", ())
            lacking.extend(needs[:1] or [f"role:{tool.metadata.min_role}"])
        if tool_scope(tool.name) not in self.scopes:
            lacking.extend(scope for scope in scopes_needed(tool, categories) if scope not in self.scopes)
        return tuple(lacking)
