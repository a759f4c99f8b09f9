"""The examples of a tool as its test suite: every example call goes through validation and
execution, and must give what it says it expects (or simply succeed)."""

from __future__ import annotations

import difflib
import re
import time
import typing as t
import xml.etree.ElementTree as ET

from cogtools.core.errors import CogtoolsError
from cogtools.services.invoke import Target, invoke

if t.TYPE_CHECKING:
    from cogtools.core.model import Example, Tool
    from cogtools.load.project import Project


class ExampleResult(t.NamedTuple):
    #: ``tool[index]``, or the file of a broken definition.
    name: str
    passed: bool
    #: Why it failed ("" when it passed).
    message: str = ""
    #: A unified diff of expected and actual output, when an exact output was expected.
    diff: str = ""
    seconds: float = 0.0
    #: The error code of a call that failed unexpectedly ("" otherwise).
    code: str = ""


#: The errors only running a tool can give: a dry run cannot tell whether an example expecting one
#: gets it.
RUN_ERRORS = ("EXECUTION_FAILED", "TIMEOUT")


def run_example(tool: Tool, index: int, example: Example, project: Project, *, dry_run: bool = False) -> ExampleResult:
    """Run one example call through the one call path, but the lookup by name (the author tries
    every tool: the filters of what a caller is shown do not apply; the policy does, so a tool
    the configured role may not run fails its examples with POLICY_DENIED, unless that is what
    they expect).
    With ``dry_run``, everything up to running happens (policy, the checks of the arguments, the
    secrets, a template's rendering) and nothing runs: what the example expects of the output, or
    an error only a run can give, is not checked."""

    name = f"{tool.name}[{index}]"
    expect = example.expect or {}
    started = time.perf_counter()
    try:
        output = invoke(Target(tool, project), example.arguments, dry_run=dry_run)
        if dry_run:
            if expect.get("error") not in (None, *RUN_ERRORS):
                wanted = expect["error"]
                return ExampleResult(name, False, f"expected {wanted}, but the checks passed", seconds=0.0)
            return ExampleResult(name, True, seconds=time.perf_counter() - started)
    except CogtoolsError as e:
        seconds = time.perf_counter() - started
        if expect.get("error") == e.code:
            return ExampleResult(name, True, seconds=seconds)
        wanted = f" (expected {expect['error']})" if "error" in expect else ""
        return ExampleResult(name, False, f"{e.code}{wanted}: {e}", seconds=seconds, code=e.code)
    seconds = time.perf_counter() - started
    if "error" in expect:
        return ExampleResult(name, False, f"expected {expect['error']}, but the call succeeded", seconds=seconds)
    if "output" in expect and output != expect["output"]:
        diff = "".join(
            difflib.unified_diff(
                expect["output"].splitlines(keepends=True),
                output.splitlines(keepends=True),
                "expected",
                "actual",
            )
        )
        return ExampleResult(name, False, "the output differs from the expected output", diff, seconds)
    if "contains" in expect and expect["contains"] not in output:
        return ExampleResult(name, False, f"the output does not contain {expect['contains']!r}", seconds=seconds)
    if "matches" in expect and not re.search(expect["matches"], output):
        return ExampleResult(name, False, f"the output does not match {expect['matches']!r}", seconds=seconds)
    return ExampleResult(name, True, seconds=seconds)


def junit_xml(outcomes: t.Sequence[ExampleResult], suite: str = "cogtools") -> str:
    """The outcomes as a JUnit XML report, for CI systems."""

    failures = sum(not o.passed for o in outcomes)
    root = ET.Element("testsuites", tests=str(len(outcomes)), failures=str(failures))
    node = ET.SubElement(
        root,
        "testsuite",
        name=suite,
        tests=str(len(outcomes)),
        failures=str(failures),
        time=f"{sum(o.seconds for o in outcomes):.3f}",
    )
    for outcome in outcomes:
        case = ET.SubElement(
            node,
            "testcase",
            classname=f"{suite}.{outcome.name.split('[')[0]}",
            name=outcome.name,
            time=f"{outcome.seconds:.3f}",
        )
        if not outcome.passed:
            failure = ET.SubElement(case, "failure", message=outcome.message)
            failure.text = outcome.diff or outcome.message
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
