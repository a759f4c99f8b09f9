"""What ``cogtools sync`` and ``cogtools init`` show a person before a tool runs without
confirmation, and how they ask (DESIGN §11: a tool becomes one that runs without confirmation
only after a person has been shown what it runs)."""

from __future__ import annotations

import sys
import typing as t

import click

from cogtools.cli.boundary import write_text
from cogtools.core.printable import printable

if t.TYPE_CHECKING:
    from cogtools.services.sync import Decision, Review

#: The flag that allows every tool under review without asking (for scripts and CI).
YES_FLAG = "--yes"


def yes_option() -> t.Callable[[t.Callable[..., t.Any]], t.Callable[..., t.Any]]:
    """``-y``/``--yes`` of ``cogtools sync`` and ``cogtools init``, declared once."""

    return click.option(
        "-y",
        YES_FLAG,
        "yes",
        is_flag=True,
        help="Allow every tool that would run without confirmation and is new or changed, without asking"
        " (for scripts; what it allows is still listed; init's own starter tool needs no review).",
    )


def describe(review: Review) -> str:
    """The lines that show one tool under review: its name, why it is under review, what it
    runs, what it declares, what it can do here (what cogtools holds it to), and what it
    plainly does without declaring it."""

    # Every field on its line, a newline or tab in it escaped: what the workspace wrote (an argv
    # word, a file name) cannot draw lines of its own, such as a harmless tool that is not there.
    change = "new" if review.change == "new" else f"changed: {review.change}"
    lines = [
        f"  {review.name} ({review.file}; {change})",
        f"      runs: {review.runs}",
        f"      declares: {review.declares}",
    ]
    if review.can:
        lines.append(f"      can: {review.can}")
    if review.script:
        lines.append(f"      script: {review.script} (package.json)")
    if review.cannot_run:
        lines.append(f"      but: cannot run here: {review.cannot_run}")
    if review.diff:
        lines.append("      what changed in its definition:")
        lines.extend(f"        {line}" for line in review.diff)
    if review.environment:
        lines.append(f"      environment: {', '.join(review.environment)} (the project's .env may set them)")
    if review.undeclared:
        why = next(iter(review.undeclared.values()))
        lines.append(f"      but: {why}; it does not declare {', '.join(review.undeclared)}")
    if review.unclosed:
        from cogtools.trust.pins import closing, open_reasons

        advice = {
            "declare": " to allow it, declare that code in its definition (`code: [FILE, DIRECTORY/]`, pinned whole)",
            "install": " to allow it, install the package it imports in the project (or its workspace)",
            "": " it can run only when asked",  # (outside the workspace, past the bound: no declaration closes it)
        }[closing(review.unclosed)]
        lines.append(
            f"      cannot run without confirmation: cogtools cannot tell all the code it runs: {open_reasons(review.unclosed)};"
            + advice
        )
    if review.vouched and not review.unclosed:
        from cogtools.trust.pins import open_reasons

        lines.append(
            f"      on your word: cogtools cannot tell all the code it runs ({open_reasons(review.vouched)}); its"
            " `code:` declaration says the rest is what it declares"
        )
    if review.choosing:
        lines.append(
            f"      but: {', '.join(review.choosing)} chooses the code that runs; the project's .env may set it"
            " (the value it sets there is pinned)"
        )
    return "".join(printable(line) + "\n" for line in lines)


def interactive() -> bool:
    """Whether a person is there to ask: stdin is a terminal (as for init's questions)."""
    return sys.stdin is not None and sys.stdin.isatty()


class Reviewer:
    """Decides which tools under review a person allows (a :data:`~cogtools.services.sync.Decide`): all
    of them with ``--yes``; when ``ask``, shows each and asks about it (``y``, ``n``, ``a`` for
    it and every one after, ``q`` for none of the rest), so that one tool cannot slip through
    among many; otherwise none. It remembers the names it showed."""

    def __init__(self, *, yes: bool, ask: bool) -> None:
        self.yes, self.ask = yes, ask
        self.shown: set[str] = set()

    def __call__(self, reviews: t.Sequence[Review]) -> set[str]:
        names = {review.name for review in reviews}
        if self.yes or not reviews:
            return names
        if not self.ask:
            return set()

        write_text(f"{len(reviews)} tool{'s' * (len(reviews) != 1)} would run without confirmation in Gemini CLI:\n")
        if len(reviews) == 1:
            write_text(describe(reviews[0]))
            self.shown |= names
            return names if click.confirm("Allow it, pinned as shown?", default=False) else set()
        allowed: set[str] = set()
        answer = ""
        for review in reviews:
            write_text(describe(review))
            self.shown.add(review.name)
            if answer not in ("a", "q"):
                answer = click.prompt(
                    f"Allow {review.name}, pinned as shown? (y yes, n no, a this and the rest, q none of the rest)",
                    type=click.Choice(["y", "n", "a", "q"]),
                    default="n",
                    show_choices=False,
                )
            if answer in ("y", "a"):
                allowed.add(review.name)
        return allowed


def review_lines(decision: Decision, shown: t.Collection[str] = ()) -> list[str]:
    """What became of the tools under review, for the report: each allowed one (with what it
    runs, unless a person was just ``shown`` it), and those left out, with what allows them."""
    lines: list[str] = []
    allowed = [review for review in decision.reviews if review.name in decision.allowed]
    left = [review for review in decision.reviews if review.name not in decision.allowed]
    if allowed:
        lines.append("allowed to run without confirmation, and pinned:")
        lines.extend(
            f"  {review.name}" if review.name in shown else describe(review).rstrip("\n") for review in allowed
        )
    if left:
        lines.append("not allowed to run without confirmation (new, or changed since you allowed them):")
        listed = dict(decision.listed)
        for review in left:
            lines.append(describe(review).rstrip("\n"))
            if review.name in listed:
                lines.append(
                    f"      Gemini CLI still runs a tool of this name unasked ({listed[review.name]}; rules are"
                    " user-wide, so it may be another project's): cogtools refuses this one until you allow it"
                )
        if any(not review.unclosed for review in left):  # (one whose code cannot be told runs only when asked)
            lines.append(
                "  to allow them: `cogtools sync` on a terminal shows them and asks;"
                f" `cogtools sync {YES_FLAG}` allows them"
            )
    return lines
