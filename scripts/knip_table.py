#!/usr/bin/env python3
"""Write cogtools/run/tool_configs.py, the configuration files of about a hundred JavaScript tools
by the package that enables each, from knip's own table of plugins.

    npm pack knip@6.44.2 && tar xzf knip-6.44.2.tgz
    python scripts/knip_table.py package > cogtools/run/tool_configs.py
    ruff format cogtools/run/tool_configs.py

knip (ISC licence, https://github.com/webpro-nl/knip) keeps, for each tool it knows, the packages
that turn its plugin on (``enablers``) and the files its tool loads (``config``): the names that
follow no convention (gatsby-config.js, forge.config.js, .czrc, spec/support/jasmine.json) among
them. cogtools reads the same table at run time from a knip that is installed; this module is a
copy of it for every project, read by program_files for a package program it knows nothing of.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cogtools.run.program_files import knip_enablers, knip_plugin  # noqa: E402

HEADER = '''"""The configuration files JavaScript tools load, by knip's plugin for each: the packages that
enable it (``@scope/``: each package of a scope), the names its tool's files follow no convention
for, and the stems it names by cosmiconfig's. Generated from knip {version}'s table of plugins (ISC
licence) by scripts/knip_table.py; do not edit by hand."""

#: plugin: (the packages that enable it; file names, from where the tool runs; stems named by a convention)
PLUGINS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = '''


def table(package: Path) -> dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]]:
    """Each plugin of the knip at ``package`` enabled by a package and naming a configuration:
    its enablers, and what it loads."""
    found = {}
    plugins = package / "dist" / "plugins"
    for name in sorted(os.listdir(plugins)):
        index = plugins / name / "index.js"
        if not index.is_file():
            continue
        text = index.read_text(encoding="utf-8")
        plugin, enablers = knip_plugin(text), knip_enablers(text)
        if enablers and (plugin.names or plugin.stems):
            found[name] = (tuple(enablers), plugin.names, plugin.stems)
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: knip_table.py KNIP_PACKAGE_DIRECTORY", file=sys.stderr)
        return 2
    package = Path(argv[1])
    version = json.loads((package / "package.json").read_text(encoding="utf-8"))["version"]
    rows = table(package)
    body = "{\n" + "".join(f"    {key!r}: {row!r},\n" for key, row in rows.items()) + "}\n"
    sys.stdout.write(HEADER.format(version=version) + body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
