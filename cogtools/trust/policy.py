"""What a caller may see and run, decided by the tools' metadata (seed 001), never their names.

Defaults are the cautious ones where a tool says nothing: its risk is ``high`` and its side
effects are unknown (so it is an *action* tool, never a diagnostic one, and its MCP annotations
say it may be destructive and reach the network). Only ``min_role`` defaults to the lowest role,
``ai_agent``: a tool that says nothing about roles is meant to be used.

Toolsets (seed 001's matrix): *diagnostic* is low risk, no side effect beyond reading, and
neither a user notice nor an idle check required; *action* is everything else.
"""

from __future__ import annotations

import os
import typing as t

from cogtools.core.errors import PolicyDeniedError

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool
    from cogtools.load.project import Project

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
    """Whether ``tool`` declares that it only reads: read-only side effects, and no path of its
    own to write (``sandbox.write``)."""
    effects = tool.metadata.side_effects
    return effects is not None and set(effects) <= READ_ONLY_EFFECTS and not tool.metadata.sandbox_write


def toolset(tool: Tool) -> str:
    """``diagnostic`` or ``action``."""
    meta = tool.metadata
    if risk(tool) == "low" and read_only(tool) and not meta.requires_user_notice and not meta.requires_idle_check:
        return "diagnostic"
    return "action"


def role_allows(role: str, tool: Tool) -> bool:
    return ROLES.index(role) >= ROLES.index(tool.metadata.min_role or "ai_agent")


#: The policy settings a project's file may only lower, each with the order it is compared in.
NARROW_ONLY: dict[str, t.Callable[[t.Any], t.Any]] = {
    "role": ROLES.index,
    "max_risk_without_confirmation": RISKS.index,
    "idle_max_load": float,
}
#: The settings a project's file chooses freely: what to show, not what may run.
PROJECT_CHOOSES = ("toolset", "max_risk", "category")
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
    itself (DESIGN §11), so from them a lower role, more denied categories, and lower
    confirmation and load limits are taken, and a higher role or a wider limit is not (it is a
    widening); what to show (toolset, max_risk, category) is the project's to choose. Loading
    (:meth:`Policy.from_settings`) and ``cogtools config set`` (which refuses a widening before
    writing it) both ask this."""
    merged = dict(user)
    widenings = []
    for key in PROJECT_CHOOSES:
        if key in project:
            merged[key] = project[key]
    for key in PROJECT_ADDS:
        merged[key] = [*merged.get(key, ()), *project.get(key, ())]
    for key, order in NARROW_ONLY.items():
        if key in project:
            if order(project[key]) <= order(merged[key]):
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

        A project's files can be written by the agent itself (DESIGN §11), so from them a lower
        role, more denied categories, and lower confirmation and load limits are taken, and a
        higher role or a wider limit is ignored (and said in a refusal). The filters for what to
        show (toolset, max_risk, category) are the project's to choose.
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
        """Whether discovery and listings show ``tool`` to this caller."""
        return (
            role_allows(self.role, tool)
            and not self.denies_category(tool)
            and (self.toolset == "all" or toolset(tool) == self.toolset)
            and RISKS.index(risk(tool)) <= RISKS.index(self.max_risk)
            and (self.category is None or (tool.metadata.category or "").casefold() == self.category.casefold())
        )

    def check_call(self, tool: Tool, *, euid: int | None = None, load: float | None = None) -> None:
        """POLICY_DENIED unless this caller may run ``tool`` now. Filters for what to show
        (toolset, category, risk) do not apply: only role, denied categories, privileges and
        idleness decide a call."""

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


def mcp_annotations(tool: Tool) -> dict[str, t.Any]:
    """MCP tool annotations derived from the metadata (cautious where it says nothing): a tool
    is read-only only when it declares so and is held to it here (:func:`held_to_its_claims`),
    since clients run such a tool without asking."""
    effects = set(tool.metadata.side_effects) if tool.metadata.side_effects is not None else None
    only_reads = read_only(tool) and held_to_its_claims(tool)  # a client approves such a tool unasked
    out: dict[str, t.Any] = {}
    if tool.title:
        out["title"] = tool.title
    out["readOnlyHint"] = only_reads
    out["destructiveHint"] = not only_reads and (
        effects is None
        or bool(effects & {"filesystem_write", "process", "registry"})
        or bool(tool.metadata.sandbox_write)
        or risk(tool) == "high"
    )
    out["idempotentHint"] = only_reads
    out["openWorldHint"] = effects is None or "network" in effects
    return out


def held_to_its_claims(tool: Tool) -> bool:
    """Whether what ``tool`` declares is what it can do here: its kind runs nothing but what
    cogtools itself does (a template, a request, a built-in), or runs programs and this system
    confines them (:mod:`cogtools.run.confine`)."""
    from cogtools.run import runner

    if not runner(tool.implementation.kind).RUNS_PROGRAMS:
        return True
    from cogtools.run.confine import available

    return available()


class Confined(t.NamedTuple):
    """Whether a tool runs code of its own (a program, a function) and, if so, whether it runs
    confined to its side effects here, and how, in words."""

    runs_code: bool
    confined: bool
    how: str


def confined(tool: Tool, project: Project) -> Confined:
    """Whether ``tool``'s programs run confined here (:mod:`cogtools.run.confine`), and how: for
    ``list``, ``which``, ``-v`` and ``doctor``."""
    from cogtools.run import runner
    from cogtools.run.confine import available, confinement, describe

    if not runner(tool.implementation.kind).RUNS_PROGRAMS:
        return Confined(False, False, "runs no program")
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
    from cogtools.run.confine import CANNOT_CONFINE, available, declared, settings

    if declared(tool) is None or not runner(tool.implementation.kind).RUNS_PROGRAMS or available():
        return None
    if settings(project).get("unconfined", "refuse") == "warn":
        return Unconfined(False, f"{tool.name} runs unconfined: {CANNOT_CONFINE} (sandbox.unconfined: warn)")
    return Unconfined(
        True,
        f"{tool.name} runs without confirmation and declares its side effects, but {CANNOT_CONFINE};"
        " set sandbox.unconfined: warn in your own configuration to run such tools unconfined",
    )
