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

from cogtools.errors import PolicyDeniedError

if t.TYPE_CHECKING:
    from cogtools.model import Tool
    from cogtools.project import Project

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
    effects = tool.metadata.side_effects
    return effects is not None and set(effects) <= READ_ONLY_EFFECTS


def toolset(tool: Tool) -> str:
    """``diagnostic`` or ``action``."""
    meta = tool.metadata
    if risk(tool) == "low" and read_only(tool) and not meta.requires_user_notice and not meta.requires_idle_check:
        return "diagnostic"
    return "action"


def role_allows(role: str, tool: Tool) -> bool:
    return ROLES.index(role) >= ROLES.index(tool.metadata.min_role or "ai_agent")


class Policy(t.NamedTuple):
    role: str = "ai_agent"
    toolset: str = "all"
    max_risk: str = "high"
    category: str | None = None
    denied_categories: tuple[str, ...] = ()
    max_risk_without_confirmation: str = "low"
    idle_max_load: float = 1.0

    @classmethod
    def from_settings(cls, settings: t.Mapping[str, t.Any], environ: t.Mapping[str, str] | None = None, **overrides: t.Any) -> Policy:
        """The configuration's ``policy`` section, ``COGTOOLS_ROLE`` over its role, and the
        command line's ``overrides`` (None: not given) over both."""
        environ = os.environ if environ is None else environ
        merged = {**DEFAULT_POLICY, **settings}
        if environ.get("COGTOOLS_ROLE"):
            merged["role"] = environ["COGTOOLS_ROLE"]
        merged.update({k: v for k, v in overrides.items() if v is not None})
        if merged["role"] not in ROLES:
            from cogtools.errors import ConfigInvalidError

            raise ConfigInvalidError(f"{merged['role']!r} is not a role (one of {', '.join(ROLES)})", path="COGTOOLS_ROLE")
        merged["denied_categories"] = tuple(merged["denied_categories"])
        return cls(**merged)

    @classmethod
    def of(cls, project: Project, **overrides: t.Any) -> Policy:
        """The policy of ``project``'s configuration, with ``overrides`` (None: as configured)."""
        return cls.from_settings(project.config.value("policy"), **overrides)

    def visible(self, tool: Tool) -> bool:
        """Whether discovery and listings show ``tool`` to this caller."""
        return (
            role_allows(self.role, tool)
            and tool.metadata.category not in self.denied_categories
            and (self.toolset == "all" or toolset(tool) == self.toolset)
            and RISKS.index(risk(tool)) <= RISKS.index(self.max_risk)
            and (self.category is None or tool.metadata.category == self.category)
        )

    def check_call(self, tool: Tool, *, euid: int | None = None, load: float | None = None) -> None:
        """POLICY_DENIED unless this caller may run ``tool`` now. Filters for what to show
        (toolset, category, risk) do not apply: only role, denied categories, privileges and
        idleness decide a call."""

        def deny(message: str, **details: t.Any) -> t.NoReturn:
            raise PolicyDeniedError(message, tool=tool.name, details=details)

        minimum = tool.metadata.min_role or "ai_agent"
        if not role_allows(self.role, tool):
            deny(f"the role {self.role} may not run {tool.name} (it needs {minimum} or above)", role=self.role, min_role=minimum)
        if tool.metadata.category in self.denied_categories:
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


def enforce(tool: Tool, project: Project) -> None:
    """POLICY_DENIED unless the project's policy (and ``COGTOOLS_ROLE``) lets this process run
    ``tool`` now: the one check every way of calling a tool goes through."""
    Policy.of(project).check_call(tool)


def mcp_annotations(tool: Tool) -> dict[str, t.Any]:
    """MCP tool annotations derived from the metadata (cautious where it says nothing)."""
    effects = set(tool.metadata.side_effects) if tool.metadata.side_effects is not None else None
    only_reads = read_only(tool)
    out: dict[str, t.Any] = {}
    if tool.title:
        out["title"] = tool.title
    out["readOnlyHint"] = only_reads
    out["destructiveHint"] = not only_reads and (effects is None or bool(effects & {"filesystem_write", "process", "registry"}) or risk(tool) == "high")
    out["idempotentHint"] = only_reads
    out["openWorldHint"] = effects is None or "network" in effects
    return out
