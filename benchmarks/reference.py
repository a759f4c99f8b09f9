"""The straightforward way to do what cogtools-discover and cogtools-call do, for comparison.

PyYAML ``safe_load`` (tomllib, json) + jsonschema + Jinja2, written the obvious way: every run
globs the tool tree, parses every file it needs, validates with jsonschema and renders with a
sandboxed Jinja2.

    python reference.py discover ROOT
    python reference.py call ROOT NAME < args.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jinja2.sandbox
import jsonschema
import yaml

SCHEMA_FILE = Path(__file__).resolve().parent.parent / "cogtools" / "schema" / "tool.schema.json"


def tool_files(root: Path) -> list[Path]:
    return sorted(path for suffix in ("yaml", "yml", "toml", "json") for path in root.glob(f"tools/**/*.{suffix}"))


def read(path: Path) -> dict:
    if path.suffix == ".toml":
        import tomllib

        return tomllib.loads(path.read_text())
    if path.suffix == ".json":
        return json.loads(path.read_text())
    return yaml.safe_load(path.read_text())


def parameters_schema(definition: dict) -> dict:
    properties, required = {}, []
    for name, schema in definition.get("parameters", {}).items():
        schema = dict(schema)
        if not schema.pop("optional", False):
            required.append(name)
        if schema.pop("nullable", False):
            schema["type"] = [schema["type"], "null"]
        properties[name] = schema
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def discover(root: Path) -> None:
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text()))
    out = []
    for path in tool_files(root):
        definition = read(path)
        validator.validate(definition)
        out.append(
            {
                "name": definition.get("name", path.stem),
                "description": definition["description"],
                "parametersJsonSchema": parameters_schema(definition),
            }
        )
    out.sort(key=lambda d: d["name"])
    print(json.dumps(out, indent=2))


def call(root: Path, name: str) -> None:
    arguments = json.loads(sys.stdin.read() or "{}")
    for path in tool_files(root):
        definition = read(path)
        if definition.get("name", path.stem) == name:
            break
    else:
        sys.exit(f"no tool {name}")
    schema = parameters_schema(definition)
    jsonschema.validate(arguments, schema, format_checker=jsonschema.FormatChecker())
    context = {key: None for key in schema["properties"]}
    context.update(arguments)
    env = jinja2.sandbox.SandboxedEnvironment(keep_trailing_newline=True)
    sys.stdout.write(env.from_string(definition["implementation"]).render(context))


if __name__ == "__main__":
    if sys.argv[1] == "discover":
        discover(Path(sys.argv[2]))
    else:
        call(Path(sys.argv[2]), sys.argv[3])
