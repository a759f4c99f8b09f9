"""Keeping Gemini CLI's view of a project in step with its tools: the table in ``GEMINI.md``,
what lets the tools that run without a confirmation do so (allow rules of Gemini CLI's Policy
Engine in a file of the user's, :func:`cogtools.clients.gemini.rules.policy_file`; or, for a Gemini CLI before
0.30, ``tools.allowed`` in ``.gemini/settings.json``), and the pins of those tools
(:mod:`cogtools.trust.pins`). ``cogtools sync`` and ``cogtools init`` are these functions and a report."""

from __future__ import annotations

import json
import os
import shlex
import typing as t
from pathlib import Path

from cogtools.clients.gemini import PREFIX
from cogtools.clients.gemini.commands import merge_allowed
from cogtools.clients.gemini.install import mechanism
from cogtools.clients.gemini.memory import tools_table, update_gemini_md
from cogtools.clients.gemini.rules import (
    policy_file,
    policy_rules,
    policy_sources,
    store_policy,
    stored_notes,
    unasked,
)
from cogtools.clients.gemini.settings import allowed_in, effective, expand_variables, settings_layers
from cogtools.clients.launchers import workspace_file
from cogtools.core.environment import chooses_code
from cogtools.core.errors import ConfigInvalidError
from cogtools.core.fsutil import find_program, read_config, write_config
from cogtools.core.model import PROBLEMS_TOOL
from cogtools.load.loading import Loaded
from cogtools.run import Outline, runner
from cogtools.services.discovery import offer
from cogtools.services.lint import undeclared_effects
from cogtools.trust import pins
from cogtools.trust.policy import RISKS, Policy, reach, risk

if t.TYPE_CHECKING:
    from cogtools.clients.gemini.install import Mechanism
    from cogtools.core.model import Tool
    from cogtools.load.catalog import Catalog
    from cogtools.trust.clients import Unasked


#: What cogtools last wrote into tools.allowed, so that it can tell its entries from a person's.
MANAGED = Path(".gemini") / "cogtools-allowed.json"


def allowed_names(catalog: Catalog) -> list[str]:
    """``discovered_tool_NAME`` of every tool that may run without a confirmation: the
    diagnostic toolset, visible to the caller's role, of at most the policy's
    ``max_risk_without_confirmation``; and ``cogtools_problems``, built in, which only reads and
    is offered only when something is broken (a headless session then still hears of it)."""

    limit = Policy.of(catalog.project).max_risk_without_confirmation
    names = [
        PREFIX + tool.name
        for tool in offer(Loaded(catalog), toolset="diagnostic").lasting
        if RISKS.index(risk(tool)) <= RISKS.index(limit)
    ]
    return [*names, PREFIX + PROBLEMS_TOOL]


class AllowedPlan(t.NamedTuple):
    #: settings.json with tools.allowed brought up to date (with the Policy Engine: the entries
    #: cogtools wrote there before moved out)
    text: str
    #: what .gemini/cogtools-allowed.json must hold afterwards
    record: str
    #: for the report: "tools.allowed: N diagnostic tools"
    summary: str
    #: the names (``discovered_tool_NAME``) that are to run unasked, as cogtools allows them
    ours: tuple[str, ...] = ()
    #: the Policy Engine rules file of the user's that allows them, None with tools.allowed
    rules_path: Path | None = None


def plan_allowed(
    catalog: Catalog,
    settings: str | None,
    path: str,
    leave_out: t.Collection[str] = (),
    mechanism: Mechanism | None = None,
) -> AllowedPlan:
    """``settings`` (the text of settings.json) with ``tools.allowed`` holding the tools that may
    run without a confirmation, but those of ``leave_out`` (names), and every entry a person
    wrote; or, where Gemini CLI has the Policy Engine (``mechanism``), with only a person's
    entries, the tools being allowed by rules in :attr:`AllowedPlan.rules_path`. Nothing is
    written."""

    if mechanism is None:
        mechanism = gemini_mechanism(catalog)
    try:
        before = json.loads(read_config(catalog.project.root / MANAGED) or "{}").get("allowed", [])
    except (ConfigInvalidError, ValueError, AttributeError):
        before = []
    if not isinstance(before, list):  # the workspace's to write: a string would match by substring
        before = []
    before = [entry for entry in before if isinstance(entry, str)]
    ours = [name for name in allowed_names(catalog) if name[len(PREFIX) :] not in leave_out]
    written = [] if mechanism.policy_engine else ours
    record = (
        json.dumps(
            {"_": "written by cogtools sync: the tools.allowed entries it manages", "allowed": written}, indent=2
        )
        + "\n"
    )
    count = len(ours) - 1  # cogtools_problems is not one of the project's
    where = "Policy Engine rules" if mechanism.policy_engine else "tools.allowed"
    summary = f"{where}: {count} diagnostic tool{'s' * (count != 1)} and cogtools_problems"
    if leave_out:
        summary += f"; {len(leave_out)} left out, not reviewed"
    text = merge_allowed(settings, path, written, before)
    if mechanism.policy_engine and settings is not None:
        moved = len(allowed_in(settings) or ()) - len(allowed_in(text) or ())
        if moved:
            summary += f"; moved {moved} entr{'ies' if moved != 1 else 'y'} cogtools wrote out of tools.allowed"
    rules = policy_file(catalog.project.root, catalog.project.environ) if mechanism.policy_engine else None
    return AllowedPlan(text, record, summary, tuple(ours), rules)


def gemini_mechanism(catalog: Catalog) -> Mechanism:
    """Policy Engine rules or tools.allowed, as the installed Gemini CLI reads them
    (:func:`cogtools.clients.gemini.install.mechanism`)."""

    return mechanism(catalog.project.environ)


def store_record(catalog: Catalog, record: str) -> None:
    """Remember which tools.allowed entries cogtools manages."""

    managed = catalog.project.root / MANAGED
    if read_config(managed) != record:
        write_config(managed, record, within=catalog.project.root)


class Review(t.NamedTuple):
    """A tool that is to run without confirmation and that a person has not allowed as it is:
    what they are shown before they decide."""

    name: str
    #: the file that defines it, as the catalog shows it
    file: str
    #: the SHA-256 of that definition, as it will be pinned
    sha256: str
    #: "new" (never allowed by this user), or what changed since it was
    change: str
    #: what it runs, in a line (:class:`~cogtools.run.Outline`)
    runs: str
    #: its declared risk level and side effects, in words
    declares: str
    #: the side effects it plainly has but does not declare (effect -> why)
    undeclared: t.Mapping[str, str]
    #: the environment variables it declares, whose values the project's .env may set
    environment: tuple[str, ...] = ()
    #: those of them whose value chooses the code that runs (PATH, LD_PRELOAD...)
    choosing: tuple[str, ...] = ()
    #: why it cannot run unasked: what of its code cannot be told (:attr:`cogtools.trust.pins.Closed.open`)
    unclosed: tuple[str, ...] = ()
    #: what it can do here, in words (:meth:`cogtools.trust.policy.Reach.words`): what cogtools
    #: holds it to, which is less than it declares where nothing confines it
    can: str = ""
    #: why nothing on this machine can run it (a TypeScript tool, a node too old and no tsx), or ""
    cannot_run: str = ""
    #: how its definition changed since a person allowed it: unified diff lines, bounded
    diff: tuple[str, ...] = ()
    #: what a package manager's script it runs (``npm run lint``) runs: ``lint: eslint .``, or ""
    script: str = ""
    #: what of its code cogtools cannot tell that its ``code:`` closes on the person's word alone
    vouched: tuple[str, ...] = ()


#: What decides which of the tools under review a person allows: the CLI asks, or allows all
#: (``--yes``), or none.
Decide = t.Callable[[t.Sequence[Review]], t.Collection[str]]


def allow_none(reviews: t.Sequence[Review]) -> set[str]:
    """:data:`Decide` when nobody is there to ask: what is not reviewed is left out."""
    return set()


def allow_all(reviews: t.Sequence[Review]) -> set[str]:
    """:data:`Decide` for a person who said yes beforehand (``--yes``)."""
    return {review.name for review in reviews}


class Decision(t.NamedTuple):
    """Which of the tools Gemini CLI runs unasked are pinned, and what a person was asked about them."""

    #: name -> pin, for :func:`cogtools.trust.pins.record`: what is pinned is exactly what was shown
    pins: dict[str, dict[str, t.Any]]
    #: the tools that were new or changed (what a person reviews)
    reviews: list[Review]
    #: the names of those a person allowed
    allowed: set[str]
    #: those left out that Gemini CLI runs unasked all the same (an entry or rule cogtools did not write),
    #: so that a call by name is refused until a person allows them: each name, with what lets it
    #: ("a rule in FILE")
    listed: tuple[tuple[str, str], ...] = ()

    @property
    def left_out(self) -> set[str]:
        return {review.name for review in self.reviews} - self.allowed


def decide_pins(
    catalog: Catalog, settings: str | None, decide: Decide = allow_none, plan: AllowedPlan | None = None
) -> Decision:
    """Which of the project's tools that Gemini CLI is to run unasked to pin: those ``plan``
    allows (else those in ``tools.allowed`` of ``settings``, the text of settings.json) and those
    anything else lets through (:func:`unasked_elsewhere`); the ones pinned as they are, and
    those new or changed since that ``decide`` allows. Nothing is written."""

    if plan is None:
        names = (allowed_in(settings) if settings is not None else None) or set()
    else:
        others = unasked_elsewhere(catalog, plan)
        names = {name[len(PREFIX) :] for name in plan.ours} | {n for n in catalog.tools if others.source(n)}
    found = pins.candidates([tool for name, tool in catalog.tools.items() if name in names], catalog.project)
    root = catalog.project.root
    before = reviewed_texts(catalog.project.root, catalog.project.environ)
    reviews = [
        review_of(c.tool, c.pin["sha256"], c.change, c.open, root)._replace(
            diff=definition_diff(before.get(c.tool.name), c.tool, root) if c.change != "new" else (),
            vouched=c.vouched,
        )
        for c in found
        if c.change is not None
    ]
    closable = [review for review in reviews if not review.unclosed]  # the rest cannot be allowed, only told why
    allowed = set(decide(closable)) if closable else set()
    chosen = {c.tool.name: c.pin for c in found if not c.open and (c.change is None or c.tool.name in allowed)}
    return Decision(chosen, reviews, allowed)


def unasked_elsewhere(catalog: Catalog, plan: AllowedPlan) -> Unasked:
    """What else lets Gemini CLI run a discovered tool of this project unasked, once ``plan`` is
    written: tools.allowed as the settings files merge it (the workspace's as ``plan`` leaves it)
    and every allow rule of the user's and the administrator's, but the rules file ``plan``
    rewrites."""

    root, environ = catalog.project.root, catalog.project.environ
    layers = settings_layers(root, environ, workspace_text=plan.text or None)
    return unasked(root, environ, layers=layers, leave_out=[plan.rules_path] if plan.rules_path else [])


def review_allowed(
    catalog: Catalog, settings: str | None, path: str, decide: Decide = allow_none, mechanism: Mechanism | None = None
) -> tuple[AllowedPlan, Decision]:
    """``settings`` (the text of settings.json) with ``tools.allowed`` brought up to date (or
    cogtools' entries moved to Policy Engine rules), where a tool that is new or changed since a
    person allowed it stays out unless ``decide`` allows it; and which tools to pin. Nothing is
    written."""
    if mechanism is None:
        mechanism = gemini_mechanism(catalog)
    plan = plan_allowed(catalog, settings, path, mechanism=mechanism)
    decision = decide_pins(catalog, plan.text, decide, plan)
    if decision.left_out:
        plan = plan_allowed(catalog, settings, path, decision.left_out, mechanism)
        others = unasked_elsewhere(catalog, plan)
        listed = tuple((name, source) for name in sorted(decision.left_out) if (source := others.source(name)))
        decision = decision._replace(listed=listed)
    if plan.rules_path is not None:  # a rule only for what is pinned, and the built-in tools (no definition)
        kept = tuple(
            name
            for name in plan.ours
            if name[len(PREFIX) :] in decision.pins or name[len(PREFIX) :] not in catalog.tools
        )
        count = len(kept) - 1
        summary = plan.summary.replace(
            f"{len(plan.ours) - 1} diagnostic tool{'s' * (len(plan.ours) != 2)}",
            f"{count} diagnostic tool{'s' * (count != 1)}",
            1,
        )
        plan = plan._replace(ours=kept, summary=summary)
    return plan, decision


def policy_text(catalog: Catalog, plan: AllowedPlan) -> str | None:
    """The rules file ``plan`` writes (None with tools.allowed)."""

    return None if plan.rules_path is None else policy_rules(catalog.project.root, plan.ours)


class Synced(t.NamedTuple):
    """What :func:`sync_allowed` did."""

    #: "updated .gemini/settings.json (...)"
    line: str
    #: what was pinned, and what a person was asked
    decision: Decision
    #: more to say: the rules file written, and what keeps Gemini CLI from reading it
    notes: tuple[str, ...] = ()


def review_of(tool: Tool, sha256: str, change: str, unclosed: tuple[str, ...] = (), root: Path | None = None) -> Review:
    """What a person is shown of ``tool`` (of the project at ``root``) before allowing it."""

    try:
        outline = runner(tool.implementation.kind).outline(tool)
        can = reach(tool).words()
    except LookupError:
        outline = Outline(f"{tool.implementation.kind}: an unknown kind")
        can = "may do anything: its kind is unknown"
    effects = tool.metadata.side_effects
    declares = f"risk {tool.metadata.risk_level or 'high (not declared)'}; side effects: " + (
        ", ".join(effects) if effects else "none" if effects is not None else "not declared"
    )
    for verb, paths in (("reads", tool.metadata.sandbox_read), ("writes", tool.metadata.sandbox_write)):
        if paths:
            declares += f"; also {verb} {', '.join(paths)}"
    return Review(
        tool.name,
        tool.origin.path,
        sha256,
        change,
        shown_through_link(outline.runs, tool, root),
        declares,
        undeclared_effects(tool, outline.implies),
        tool.environment,
        tuple(name for name in tool.environment if chooses_code(name)),
        unclosed,
        can=can,
        cannot_run=_cannot_run(tool, root),
        script=package_script(tool, root) if root is not None else "",
    )


def shown_through_link(runs: str, tool: Tool, root: Path | None) -> str:
    """``runs`` with the script's real path (where a link of ``node_modules`` leads: pnpm's
    store; an absolute path of this machine) said as a person knows it: the tool's file relative
    to the project, through the link (``node_modules/@acme/dev-tools/tools/x.mjs``). What is run
    and checked keeps the real path."""
    spec = tool.implementation.spec
    path = spec.get("path") if isinstance(spec, t.Mapping) else None
    if root is None or not isinstance(path, str) or not os.path.isabs(path) or path not in runs:
        return runs
    try:
        same = os.path.realpath(root / tool.origin.path) == os.path.realpath(path)
    except (OSError, ValueError):
        return runs
    return runs.replace(shlex.quote(path), shlex.quote(tool.origin.path)) if same else runs


#: The most lines of a definition's diff a review shows.
MAX_DIFF_LINES = 40
#: The largest definition kept to show what changed in it later.
MAX_KEPT_TEXT = 64 * 1024


def _reviewed_file(root: Path, environ: t.Mapping[str, str]) -> Path | None:
    """Where the definitions a person allowed for the project at ``root`` are kept (beside the
    pins, in the user's state directory, out of the agent's reach), to show what changed."""
    from cogtools.core.places import project_key, state_dir

    base = state_dir(environ)
    return None if base is None else base / "cogtools" / "reviewed" / f"{project_key(root)}.json"


def reviewed_texts(root: Path, environ: t.Mapping[str, str]) -> dict[str, str]:
    """The text of each definition as a person allowed it (name -> text); {} when none is kept,
    or the file is not the user's own."""
    from cogtools.core.places import read_private

    path = _reviewed_file(root, environ)
    data = read_private(path, 64 * MAX_KEPT_TEXT) if path is not None else None
    from cogtools.core.jsondata import parse_json

    try:
        kept = parse_json(data.decode("utf-8", "replace")) if data is not None else {}
    except ValueError:
        return {}
    return (
        {k: v for k, v in kept.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(kept, dict) else {}
    )


def keep_reviewed(catalog: Catalog, pinned: t.Mapping[str, dict[str, t.Any]]) -> None:
    """Keep the text of each definition just pinned (when it is still the bytes pinned, and
    small), so that the next review of a change shows the change."""
    import hashlib

    root, environ = catalog.project.root, catalog.project.environ
    path = _reviewed_file(root, environ)
    if path is None:
        return
    kept = {}
    for name, pin in pinned.items():
        data = _definition_text(catalog.tools.get(name), root)
        if data is not None and hashlib.sha256(data).hexdigest() == pin.get("sha256"):
            kept[name] = data.decode("utf-8", "replace")
    try:
        from cogtools.core.fsutil import write_private

        write_private(path, json.dumps(kept, ensure_ascii=False))
    except OSError:
        pass  # only what a later review shows is lost


def _definition_text(tool: Tool | None, root: Path) -> bytes | None:
    from cogtools.core.limits import read_file

    if tool is None:
        return None
    try:
        return read_file(pins.definition_file(tool, root), MAX_KEPT_TEXT)
    except (OSError, ValueError):
        return None


def definition_diff(before: str | None, tool: Tool, root: Path) -> tuple[str, ...]:
    """What changed in ``tool``'s definition since a person allowed it (``before``): unified diff
    lines without their header, at most :data:`MAX_DIFF_LINES`; none when it is not known."""
    import difflib

    data = _definition_text(tool, root)
    if before is None or data is None:
        return ()
    lines = [
        line
        for line in difflib.unified_diff(
            before.splitlines(), data.decode("utf-8", "replace").splitlines(), lineterm="", n=1
        )
        if not line.startswith(("---", "+++"))
    ]
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"... ({len(lines) - MAX_DIFF_LINES} more lines)"]
    return tuple(lines)


#: The package managers whose ``run SCRIPT`` (and ``test``, ``start``) runs a script of package.json.
PACKAGE_MANAGERS = ("npm", "pnpm", "yarn", "bun")


def package_script(tool: Tool, root: Path) -> str:
    """What the package.json script a command tool runs (``npm run lint``, ``yarn lint``, ``npm
    test``) runs, as ``lint: eslint .``; "" for any other tool, or a script that is not there."""
    from cogtools.core.limits import MAX_CONFIG_BYTES, read_file

    argv = tool.implementation.spec.get("argv") if tool.implementation.kind == "command" else None
    if not isinstance(argv, list) or len(argv) < 2 or os.path.basename(str(argv[0])) not in PACKAGE_MANAGERS:
        return ""
    words = [str(word) for word in argv[1:] if not str(word).startswith("-")]
    if words[:1] in (["run"], ["run-script"]):
        words = words[1:]
    if not words:
        return ""
    from cogtools.core.jsondata import parse_json

    try:  # the agent writes package.json: read it as any JSON of the workspace, within the limits
        text = read_file(root / "package.json", MAX_CONFIG_BYTES).decode("utf-8", "replace")
        scripts = parse_json(text).get("scripts", {})
    except (OSError, ValueError, AttributeError):
        return ""
    script = scripts.get(words[0]) if isinstance(scripts, dict) else None
    return f"{words[0]}: {script}" if isinstance(script, str) else ""


def _cannot_run(tool: Tool, root: Path | None) -> str:
    """Why nothing here can run ``tool`` (:func:`cogtools.run.script.cannot_run`; a command's
    program found nowhere, as a call of the project looks for it: lint's ``program-missing``,
    which lint does not say of a dependency's tool), or ""."""
    if tool.implementation.kind == "command" and root is not None:
        from cogtools.run.command import advise
        from cogtools.run.program import advised_in

        with advised_in(root):
            return next((advice[1] for advice in advise(tool, ()) if advice[0] == "program-missing"), "")
    if tool.implementation.kind != "script":
        return ""
    from cogtools.run.script import cannot_run

    return cannot_run(tool, root) or ""


def sync_allowed(catalog: Catalog, decide: Decide = allow_none) -> Synced | None:
    """Bring up to date what lets Gemini CLI run the project's tools unasked, and pin what it
    allows: Policy Engine rules in a file of the user's (:func:`cogtools.clients.gemini.rules.policy_file`)
    where the installed Gemini CLI has the Policy Engine, the entries cogtools wrote into
    tools.allowed before being moved out of it; else tools.allowed of .gemini/settings.json. A
    tool that is new or changed since a person allowed it stays out (and unpinned) unless
    ``decide`` allows it. None when Gemini CLI has no discovery command for the project (no
    .gemini/settings.json, nor, with the Policy Engine, one of the user's or the system's that
    sets it): then nothing is pinned, and the rules file is removed."""

    root = catalog.project.root
    path = root / ".gemini" / "settings.json"
    old = read_config(path)
    mechanism = gemini_mechanism(catalog)
    configured = old is not None or (
        mechanism.policy_engine
        and effective(settings_layers(root, catalog.project.environ), "tools", "discoveryCommand") is not None
    )
    if not configured:
        pins.record(catalog.project, {})
        if mechanism.policy_engine:
            store_policy(policy_file(root, catalog.project.environ), None, root)
        return None
    plan, decision = review_allowed(catalog, old, str(path), decide, mechanism)
    changed = old is not None and plan.text != old
    if changed:
        write_config(path, plan.text, within=root)
    if old is not None:
        store_record(catalog, plan.record)
    notes = []
    if plan.rules_path is not None:
        done = store_policy(plan.rules_path, policy_text(catalog, plan), root)
        notes.append(f"{done} {plan.rules_path} (Policy Engine rules, user-wide; {mechanism.why})")
        notes.extend(stored_notes(done, plan.rules_path))
        notes.extend(policy_notes(catalog, plan.rules_path))
    else:  # tools.allowed: rules an earlier sync wrote would let through more than it lists
        stale = policy_file(root, catalog.project.environ)
        if stale.exists() and store_policy(stale, None, root) == "removed":
            notes.append(f"removed {stale} ({mechanism.why})")
    notes.extend(launcher_notes(catalog))
    pinned = pins.record(catalog.project, decision.pins)
    keep_reviewed(catalog, decision.pins)
    shown = (
        ".gemini/settings.json"
        if old is not None
        else "no .gemini/settings.json (the user's settings set the commands)"
    )
    state = ("updated " if changed else "unchanged ") if old is not None else ""
    line = f"{state}{shown} ({plan.summary}; {pinned} pinned)"
    return Synced(line, decision, tuple(notes))


def policy_notes(catalog: Catalog, rules_path: Path) -> list[str]:
    """What keeps Gemini CLI from reading ``rules_path``: policyPaths, which replaces the user's
    policies directory; and tools.allowed still set, for which it prints its deprecation warning."""

    root, environ = catalog.project.root, catalog.project.environ
    layers = settings_layers(root, environ)
    notes = []
    sources = policy_sources(layers, root, environ)
    read = {os.path.realpath(path) for path, _ in sources.user}
    if not {os.path.realpath(rules_path), os.path.realpath(rules_path.parent)} & read:
        setters = sorted({str(layer.path) for _, layer in sources.user if layer is not None})
        notes.append(
            f"warning: policyPaths (set in {', '.join(setters)}) replaces {sources.default_user}: Gemini CLI does not"
            f" read {rules_path.name}; add {rules_path.parent} to policyPaths in your user settings"
        )
    allowed = effective(layers, "tools", "allowed")
    if allowed is not None and allowed.value:
        notes.append(
            f"note: tools.allowed is still set in {allowed.layer.path} (not by cogtools): Gemini CLI warns at each"
            " start that it is deprecated"
        )
    return notes


def launcher_notes(catalog: Catalog) -> list[str]:
    """A warning when Gemini CLI's discovery or call command is a file of the workspace (or is
    reached through one): the agent can rewrite it, and with it what runs unasked, whatever the
    pins say (:mod:`cogtools.clients.launchers`)."""

    root, environ = catalog.project.root, catalog.project.environ
    layers = settings_layers(root, environ)
    found = []
    for key in ("discoveryCommand", "callCommand"):
        setting = effective(layers, "tools", key)
        if setting is None or not isinstance(setting.value, str):
            continue
        try:
            words = shlex.split(expand_variables(setting.value, environ)) if key == "discoveryCommand" else []
        except ValueError:
            continue
        program = find_program((words or [expand_variables(setting.value, environ)])[0], root, environ)
        if program is not None and workspace_file(program, root):
            found.append(f"tools.{key} runs {program}")
    if not found:
        return []
    return [
        f"warning: {'; '.join(found)}: inside the project, which the agent can rewrite, and with it what Gemini CLI"
        " runs unasked, whatever is pinned (`cogtools doctor` says how to mend it)"
    ]


def sync_gemini_md(catalog: Catalog) -> str:
    """Bring GEMINI.md up to date; returns what happened ("created", "updated", "unchanged")."""

    path = catalog.project.root / "GEMINI.md"
    old = read_config(path)
    new = update_gemini_md(old, tools_table(offer(Loaded(catalog)).lasting), str(path))
    if new == old:
        return "unchanged"
    write_config(path, new, within=catalog.project.root)
    return "created" if old is None else "updated"
