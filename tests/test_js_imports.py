"""What cogtools reads of an installed package's JavaScript for the packages it loads by name
(a phantom dependency, listed in its package.json or not, is pinned too): every form node loads
a literal name by, and the forms that only look like one left alone."""

from __future__ import annotations

import pytest

from cogtools.run.program_files import mapped_packages, package_imports
from cogtools.trust.pins import scanned


@pytest.mark.parametrize(
    "text, names",
    [
        ("import { z } from 'zod';\nimport 'side';\nexport * from \"@s/re\";", {"zod", "side", "@s/re"}),
        ("const a = require('a/sub'); import('b');", {"a", "b"}),
        # (an attacker's pass: createRequire's require under another name, and require itself)
        ("const { createRequire } = require('module');\nconst load = createRequire(__filename);\nload('p1');", {"p1"}),
        ("const mk = require('module');\nconst r2 = mk.createRequire(import.meta.url);\nr2( \"p2\" )", {"p2"}),
        ("createRequire(import.meta.url)('p3')", {"p3"}),
        ("const r = require;\nr('p4');", {"p4"}),
        # what only looks like it: a property of that name, require's own members, a path, a builtin
        ("const r = require;\nobj.r('no1'); x.load('no2');", set()),
        ("const res = require.resolve;\nres('no3'); require.cache; fs.readFileSync('no4')", set()),
        ("require('./local'); require('#mapped'); require('node:fs'); require('path')", set()),
    ],
)
def test_the_packages_a_module_loads_by_name(text: str, names: set[str]) -> None:
    assert package_imports(text) == names


def test_an_imports_map_names_the_packages_it_maps_to_under_any_condition() -> None:
    imports = {
        "#a": "p1",
        "#b": {"node": {"require": "@s/p2/x.js", "default": "./own.js"}, "default": ["p3", "./fallback.js"]},
        "#c": "./lib/c.js",
        "#d": "node:fs",
        "#e": None,
    }
    assert mapped_packages(imports) == {"p1", "@s/p2", "p3"}
    assert mapped_packages("p1") == {"p1"} and mapped_packages(None) == set() and mapped_packages(7) == set()
    deep: dict[str, object] = {}
    for _ in range(10_000):  # (a hostile package.json: the walk is bounded, not recursive)
        deep = {"x": deep}
    assert mapped_packages(deep) == set()


def test_a_package_file_is_read_for_its_imports_when_node_can_load_it_as_javascript() -> None:
    assert all(scanned(p) for p in ("/n/pkg/index.js", "/n/pkg/a.mjs", "/n/pkg/a.cjs", "/n/pkg/bin/tool"))
    assert not any(scanned(p) for p in ("/n/pkg/README.md", "/n/pkg/package.json", "/n/pkg/a.d.ts", "/n/pkg/x.map"))
