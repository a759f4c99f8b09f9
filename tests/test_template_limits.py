"""Templates are compiled without running anything and rendered under limits of time, output and
size (issue 11): a hostile template is one tool that fails, quickly, with its code.

Where only the answer matters cogtools-call runs in process (``cli``); ``test_a_size_from_the_caller_is_bounded``
keeps the real ``cogtools-call`` (its work is measured as a child's CPU time), and so do the hostile
templates (slow)."""

from __future__ import annotations

import json
import resource
import threading
import time
from pathlib import Path

import pytest

from cogtools.cli import call
from cogtools.run.deadline import Expired, deadline
from cogtools.run.sandbox import TooLarge, sized
from cogtools.run.templates import environment

from .conftest import ECHO_TOOL, Cli, run_script, write
from .test_cli import assert_error

QUICK = 20

#: Templates that hung discovery (compile-time folding), or hung or flooded a call.
HOSTILE = {
    "printf_star": "{{ '%0*d' % (10**9, 1) }}",
    "indent": "{{ 'x'|indent(10**9, true) }}",
    "huge_power": "{{ 10**10000 }}",
    "power_tower": "{{ 10 ** (10 ** 8) }}",
    "lipsum": "{{ lipsum(n=10**7) }}",
    "format_width": "{{ '{:>1000000000}'.format(1) }}",
    "format_map_width": "{{ '{x:>1000000000}'.format_map({'x': 1}) }}",
    "ljust": "{{ 'x'.ljust(10**9) }}",
    "center": "{{ 'x'|center(10**9) }}",
    "format_filter": "{{ '%1000000000d'|format(1) }}",
    "replace": "{{ ('x' * 1000)|replace('x', 'y' * 10000) }}",
    "join": "{{ range(100000)|join('y' * 1000) }}",
    "doubling": "{% set a = 'x' * 1000000 %}{% set b = a ~ a %}{{ b }}",
    "set_block": "{% set b %}{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}{% endset %}{{ b }}",
    "squaring": "{% set ns = namespace(x=3) %}{% for i in range(40) %}{% set ns.x = ns.x * ns.x %}{% endfor %}",
    "flood": "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}",
    "expandtabs": "{{ ('\t' * 100000).expandtabs(100000) }}",
    "list_repeat": "{{ ([1] * 100000) * 100000 }}",
}


def tool_file(root: Path, name: str, template: str) -> None:
    write(root / "tools" / f"{name}.yaml", f"name: {name}\ndescription: d\nimplementation: {json.dumps(template)}\n")


@pytest.mark.slow
def test_hostile_templates_load_quickly_and_fail_with_render_failed(echo_project: Path) -> None:
    for name, template in HOSTILE.items():
        tool_file(echo_project, name, template)
    started = time.monotonic()
    discovered = run_script("cogtools-discover", cwd=echo_project, timeout=QUICK)
    assert discovered.status == 0 and discovered.stderr == ""
    assert sorted(d["name"] for d in json.loads(discovered.stdout)) == sorted([*HOSTILE, "echo"])
    assert time.monotonic() - started < 5  # nothing ran while compiling
    for name in HOSTILE:
        result = run_script("cogtools-call", name, stdin="{}", cwd=echo_project, timeout=QUICK)
        error = assert_error(result, "RENDER_FAILED")
        assert "Traceback" not in result.stderr and error["tool"] == name
    assert run_script("cogtools-call", "echo", stdin='{"text": "ok"}', cwd=echo_project).stdout == "ok\n"


def children_cpu() -> float:
    """The CPU time, user and system, of this process's ended children: a bound by their work."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def test_a_size_from_the_caller_is_bounded(project: Path) -> None:
    write(
        project / "tools" / "rep.yaml",
        "description: d\nparameters: {n: {type: integer}}\nimplementation: \"{{ 'x' * n }}\"\n",
    )
    before = children_cpu()
    result = run_script("cogtools-call", "rep", stdin='{"n": 1000000000}', cwd=project, timeout=QUICK)
    assert_error(result, "RENDER_FAILED", "past the limit")
    assert children_cpu() - before < 5  # the call's own work: refused before a gigabyte is made
    assert run_script("cogtools-call", "rep", stdin='{"n": 3}', cwd=project).stdout == "xxx"


def test_the_output_limit_is_the_configured_one(project: Path, cli: Cli) -> None:
    write(project / ".cogtoolrc.yaml", "limits: {max_output_bytes: 100}\n")
    write(
        project / "tools" / "rep.yaml",
        'description: d\nparameters: {n: {type: integer}}\nimplementation: "{% for i in range(n) %}x{% endfor %}"\n',
    )
    assert cli(call.main, "rep", stdin='{"n": 100}').stdout == "x" * 100
    assert_error(cli(call.main, "rep", stdin='{"n": 101}'), "RENDER_FAILED", "limit of 100")


@pytest.mark.slow
def test_a_template_that_loops_without_output_times_out(project: Path) -> None:
    write(project / ".cogtoolrc.yaml", "limits: {timeout: 1}\n")
    tool_file(project, "spin", "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}")
    started = time.monotonic()
    error = assert_error(
        run_script("cogtools-call", "spin", stdin="{}", cwd=project, timeout=QUICK), "TIMEOUT", "time limit of 1 s"
    )
    assert error["details"]["timeout_seconds"] == 1
    assert time.monotonic() - started < 10


def test_an_ordinary_template_is_unchanged() -> None:
    template = environment().from_string(
        "{{ 'ab' * 3 }} {{ '%05d' % 42 }} {{ '{:>5}'.format('x') }} {{ 'a\nb'|indent(2) }} {{ [1, 2]|join(',') }}"
        " {{ 'a' ~ 'b' }} {{ 2**10 }} {{ [1] + [2] }} {{ 'a,b'.split(',') }} {{ '%s-%s'|format(1, 2) }}"
    )
    assert template.render() == "ababab 00042     x a\n  b 1,2 ab 1024 [1, 2] ['a', 'b'] 1-2"


@pytest.mark.parametrize("limit", [10, 1000])
def test_sizes_are_checked_against_the_render_limit(limit: int) -> None:
    template = environment().from_string("{{ 'x' * n }}")
    with sized(limit):
        assert template.render(n=limit) == "x" * limit
        with pytest.raises(TooLarge):
            template.render(n=limit + 1)


def test_the_deadline_stops_python_in_the_main_thread_and_in_a_worker() -> None:
    def spin() -> tuple[str, float]:
        """Spin until a deadline of 0.2 s stops it; what it cost the thread (its CPU time, which
        no other process on the machine lengthens)."""
        started = time.thread_time()
        try:
            with deadline(0.2):
                while True:
                    pass
        except Expired:
            return "expired", time.thread_time() - started

    outcome = [spin()]
    worker = threading.Thread(target=lambda: outcome.append(spin()))
    worker.start()
    worker.join(5)
    assert [how for how, _ in outcome] == ["expired", "expired"] and all(spent < 3 for _, spent in outcome), outcome


def test_a_deadline_that_does_not_pass_leaves_nothing_behind() -> None:
    with deadline(0.05):
        pass
    time.sleep(0.2)  # a timer left armed would raise Expired here
    outcome: list[str] = []

    def quick() -> None:
        with deadline(0.05):
            pass
        time.sleep(0.2)
        outcome.append("fine")

    worker = threading.Thread(target=quick)
    worker.start()
    worker.join(5)
    assert outcome == ["fine"]


def test_the_deadlines_of_workers_share_one_thread_and_the_nearest_falls_first() -> None:
    """A server renders in many worker threads: a deadline is an entry of one watchdog's heap,
    not a thread of its own; one that falls due before those armed earlier wakes the watchdog;
    and deadlines that did not pass are not kept."""
    from cogtools.run import deadline as module

    def quick() -> None:
        for _ in range(500):
            with deadline(60):
                pass

    workers = [threading.Thread(target=quick) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
    assert len(module._WATCHDOG._heap) <= 64  # the disarmed are dropped
    outcome: list[float] = []

    def far_then_near() -> None:
        with deadline(60):
            started = time.monotonic()
            try:
                with deadline(0.2):
                    while True:
                        pass
            except Expired:
                outcome.append(time.monotonic() - started)

    worker = threading.Thread(target=far_then_near)
    worker.start()
    worker.join(10)
    assert outcome and outcome[0] < 2
    assert [t.name for t in threading.enumerate()].count("cogtools-deadlines") == 1


def test_the_shipped_examples_still_render(echo_project: Path, cli: Cli) -> None:
    assert cli(call.main, "echo", stdin='{"text": "a", "times": 3}').stdout == "a\na\na\n"
    write(echo_project / "tools" / "echo2.yaml", ECHO_TOOL.replace("name: echo", "name: echo2"))
    assert cli(call.main, "echo2", stdin='{"text": "b", "shout": true}').stdout == "B\n"
