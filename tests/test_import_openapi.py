"""``cogtools import openapi``: real public OpenAPI documents (tests/fixtures/openapi, their
sources and licences in its README) become http tools that lint clean and whose dry run is the
request the document describes; bad documents and command lines are refused, with nothing
written."""

from __future__ import annotations

import json
import os
import subprocess
import typing as t
from pathlib import Path

import pytest

from cogtools.cli import call, porcelain
from cogtools.core.errors import ERROR_TABLE, DefinitionInvalidError, UsageError
from cogtools.core.yamlio import load
from cogtools.importers.openapi import identifier, import_document, parse_document, tool_name

from .conftest import BIN, Cli, Result, write

FIXTURES = Path(__file__).parent / "fixtures" / "openapi"
PETSTORE = FIXTURES / "petstore.yaml"
DISCORD = FIXTURES / "discord.json"
STATUS = {code: status for code, status, _ in ERROR_TABLE}


def run(*argv: str, cwd: Path, stdin: str = "", env: dict[str, str] | None = None) -> Result:
    """A real process of an entry point (``cogtools``, ``cogtools-call``...)."""
    proc = subprocess.run(
        [str(BIN / argv[0]), *argv[1:]],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=120,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def validator_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """The validator's child (``python -I -m cogtools.importers.spec_check``) answers from this
    process: the same request read, the same ``first_finding``, the same answer written for the
    importer to read. Starting the child costs 0.4 s (openapi-spec-validator's imports), in every
    import; the tests of what an import writes or refuses use this, and the child itself is
    tested by the tests without it (``test_the_validator_runs_apart_from_the_workspace``, the
    loop, the slow ones through the real ``cogtools import``)."""
    from cogtools.importers import spec_check

    real = subprocess.run

    def run(argv: t.Any, *args: t.Any, **kwargs: t.Any) -> t.Any:
        if list(argv)[1:] != ["-I", "-m", "cogtools.importers.spec_check"]:
            return real(argv, *args, **kwargs)
        request = json.loads(kwargs["input"])
        answer = spec_check.first_finding(str(request["version"]), request["document"])
        return subprocess.CompletedProcess(argv, 0, json.dumps(answer).encode("utf-8"), b"")

    monkeypatch.setattr(subprocess, "run", run)


def dry_run(project: Path, name: str, arguments: dict[str, t.Any]) -> dict[str, t.Any]:
    done = run("cogtools-call", "--dry-run", name, cwd=project, stdin=json.dumps(arguments))
    assert done.status == 0, done.stderr + done.stdout
    shown: dict[str, t.Any] = json.loads(done.stdout)
    return shown


def tool(project: Path, name: str) -> dict[str, t.Any]:
    data: dict[str, t.Any] = load((project / "tools" / f"{name}.yaml").read_text())
    return data


def new_project(directory: Path, secrets: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / ".cogtoolrc.yaml").write_text("# imported\n")
    (directory / ".env").write_text(secrets)
    return directory


# -- the Swagger Petstore (OpenAPI 3.0) --------------------------------------------------------


@pytest.fixture(scope="module")
def petstore(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Result]:
    project = new_project(tmp_path_factory.mktemp("petstore"), "PETSTORE_API_KEY=key-123\nPETSTORE_AUTH=tok-456\n")
    return project, run("cogtools", "import", "openapi", str(PETSTORE), cwd=project)


@pytest.mark.slow
def test_petstore_every_operation_becomes_a_tool_that_lints_clean(petstore: tuple[Path, Result]) -> None:
    project, done = petstore
    assert done.status == 0, done.stderr
    names = sorted(p.stem for p in (project / "tools").glob("*.yaml"))
    assert len(names) == 19 and "getPetById" in names and "uploadFile" in names
    assert "created tools/getPetById.yaml\n" in done.stdout
    assert "next: set PETSTORE_API_KEY, PETSTORE_AUTH in the project's .env" in done.stdout
    # uploadFile's body is application/octet-stream, which an http tool cannot send: said, not hidden
    assert "uploadFile: the optional request body (application/octet-stream) is left out" in done.stderr
    lint = run("cogtools", "lint", "--strict", "tools", cwd=project)
    assert lint.status == 0 and lint.stdout.strip().endswith("0 errors, 0 warnings"), lint.stdout
    for path in (project / "tools").glob("*.yaml"):
        assert "key-123" not in path.read_text() and "tok-456" not in path.read_text()
        assert path.read_text().startswith("#! /usr/bin/env cogtools-yaml\n# Imported by `cogtools import openapi`")


@pytest.mark.slow
def test_petstore_metadata_comes_from_the_method_and_the_document(petstore: tuple[Path, Result]) -> None:
    project, _ = petstore
    get, post, delete = tool(project, "getPetById"), tool(project, "addPet"), tool(project, "deletePet")
    assert (get["risk_level"], post["risk_level"], delete["risk_level"]) == ("low", "medium", "high")
    assert get["side_effects"] == post["side_effects"] == delete["side_effects"] == ["network"]
    assert get["description"] == "Find pet by ID.\n\nReturns a single pet."
    assert get["examples"] == ["Find pet by ID."] and get["category"] == "pet"
    assert get["parameters"] == {"petId": {"type": "integer", "format": "int64", "description": "ID of pet to return"}}
    assert get["environment"] == [{"name": "PETSTORE_API_KEY", "secret": True}]
    # the Pet schema's $ref followed; the document's examples kept; XML hints left out
    assert post["parameters"]["name"] == {
        "type": "string",
        "example": "doggie",
        "description": "The `name` field of the request body.",
    }
    assert post["parameters"]["id"]["optional"] is True and "optional" not in post["parameters"]["photoUrls"]
    assert post["parameters"]["category"]["properties"]["name"] == {"type": "string", "example": "Dogs"}
    assert "xml" not in json.dumps(post["parameters"])


@pytest.mark.slow
def test_petstore_dry_runs_show_the_requests_the_document_describes(petstore: tuple[Path, Result]) -> None:
    project, _ = petstore
    base = "https://petstore3.swagger.io/api/v3"
    shown = dry_run(project, "getPetById", {"petId": 7})
    assert (shown["method"], shown["url"]) == ("GET", f"{base}/pet/7")
    assert shown["headers"]["api_key"] == "***" and shown["headers"]["Accept"] == "application/json"
    assert shown["secrets"] == ["PETSTORE_API_KEY"] and "json" not in shown

    shown = dry_run(project, "findPetsByStatus", {"status": "sold"})
    assert (shown["method"], shown["url"]) == ("GET", f"{base}/pet/findByStatus?status=sold")
    assert shown["headers"]["Authorization"] == "Bearer ***"

    shown = dry_run(project, "addPet", {"name": "doggie", "photoUrls": ["https://x.test/a.png"], "status": "sold"})
    assert (shown["method"], shown["url"]) == ("POST", f"{base}/pet")
    # the optional fields the call left out are not sent as null
    assert shown["json"] == {"name": "doggie", "photoUrls": ["https://x.test/a.png"], "status": "sold"}
    assert shown["headers"]["Content-Type"].startswith("application/json")

    shown = dry_run(project, "updatePetWithForm", {"petId": 3, "name": "rex"})
    assert (shown["method"], shown["url"]) == ("POST", f"{base}/pet/3?name=rex")

    shown = dry_run(project, "loginUser", {"username": "ada", "password": "pw"})
    assert shown["url"] == f"{base}/user/login?username=ada&password=pw" and "secrets" not in shown

    shown = dry_run(project, "createUsersWithListInput", {"body": [{"username": "ada"}, {"username": "bob"}]})
    assert shown["json"] == [{"username": "ada"}, {"username": "bob"}]

    shown = dry_run(project, "deleteUser", {"username": "../admin"})
    assert (shown["method"], shown["url"]) == ("DELETE", f"{base}/user/..%2Fadmin")

    # an array query parameter, `explode` as OpenAPI has it by default: the parameter repeated
    shown = dry_run(project, "findPetsByTags", {"tags": ["a", "b c"]})
    assert shown["url"] == f"{base}/pet/findByTags?tags=a&tags=b+c"


@pytest.mark.slow
def test_a_call_is_checked_against_the_imported_schema(petstore: tuple[Path, Result]) -> None:
    project, _ = petstore
    done = run("cogtools-call", "--dry-run", "getPetById", cwd=project, stdin='{"petId": "seven"}')
    assert done.status == STATUS["SCHEMA_VIOLATION"] and "petId" in done.stdout
    done = run("cogtools-call", "--dry-run", "findPetsByStatus", cwd=project, stdin='{"status": "lost"}')
    assert done.status == STATUS["SCHEMA_VIOLATION"]


@pytest.mark.slow
def test_tag_operation_server_and_prefix_choose_what_is_written(project: Path, cli: Cli) -> None:
    done = cli(porcelain.main, "import", "openapi", str(PETSTORE), "--tag", "store", "--into", "store")
    assert done.status == 0, done.stderr
    assert sorted(p.stem for p in (project / "store").iterdir()) == [
        "deleteOrder",
        "getInventory",
        "getOrderById",
        "placeOrder",
    ]
    done = cli(
        porcelain.main,
        "import",
        "openapi",
        str(PETSTORE),
        "--operation",
        "getPetById",
        "--server",
        "https://staging.example.com/v3/",
        "--env-prefix",
        "pets",
    )
    assert done.status == 0, done.stderr
    assert [p.name for p in (project / "tools").iterdir()] == ["getPetById.yaml"]
    written = tool(project, "getPetById")
    assert written["implementation"]["url"] == "https://staging.example.com/v3/pet/{{ petId }}"
    assert written["environment"] == [{"name": "PETS_API_KEY", "secret": True}]


@pytest.mark.usefixtures("validator_here")
@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--tag", "nope"], "no operation of"),
        (["--operation", "getpetbyid"], "did you mean 'getPetById'?"),
        (["--server", "ftp://example.com"], "is not http(s)://HOST/PATH"),
        (["--server", "https://user:pw@example.com"], "holds user information"),
    ],
)
def test_a_command_line_the_document_cannot_satisfy_is_usage(
    project: Path, cli: Cli, argv: list[str], says: str
) -> None:
    done = cli(porcelain.main, "import", "openapi", str(PETSTORE), *argv)
    assert done.status == STATUS["USAGE"] and says in done.stderr, done.stderr
    assert not any((project / "tools").iterdir())


@pytest.mark.usefixtures("validator_here")
def test_existing_files_are_refused_and_force_replaces_them(project: Path, cli: Cli) -> None:
    mine = write(project / "tools" / "getOrderById.yaml", "description: mine\nimplementation: x\n")
    done = cli(porcelain.main, "import", "openapi", str(PETSTORE), "--tag", "store")
    assert done.status == STATUS["USAGE"] and "tools/getOrderById.yaml exists (--force replaces them)" in done.stderr
    assert sorted(p.name for p in (project / "tools").iterdir()) == ["getOrderById.yaml"]
    assert mine.read_text() == "description: mine\nimplementation: x\n"
    done = cli(porcelain.main, "import", "openapi", str(PETSTORE), "--tag", "store", "--force")
    assert done.status == 0 and "replaced tools/getOrderById.yaml" in done.stdout
    assert tool(project, "getOrderById")["implementation"]["method"] == "GET"


@pytest.mark.usefixtures("validator_here")
def test_a_failed_write_puts_back_what_it_wrote(project: Path, cli: Cli) -> None:
    """All or none: a read-only file met half-way leaves the directory as it was."""
    locked = write(project / "tools" / "getOrderById.yaml", "description: mine\nimplementation: x\n", 0o444)
    done = cli(porcelain.main, "import", "openapi", str(PETSTORE), "--tag", "store", "--force")
    assert done.status == STATUS["USAGE"] and "nothing was written" in done.stderr
    assert [p.name for p in (project / "tools").iterdir()] == ["getOrderById.yaml"]
    assert locked.read_text() == "description: mine\nimplementation: x\n"


# -- Discord's HTTP API (OpenAPI 3.1, a larger document) ---------------------------------------


@pytest.fixture(scope="module")
def discord(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Result]:
    project = new_project(tmp_path_factory.mktemp("discord"), "DISCORD_BOT_TOKEN=Bot secret-token\n")
    return project, run("cogtools", "import", "openapi", str(DISCORD), cwd=project)


@pytest.mark.slow
def test_discord_imports_and_lints_clean(discord: tuple[Path, Result]) -> None:
    project, done = discord
    assert done.status == 0, done.stderr
    tools = sorted((project / "tools").glob("*.yaml"))
    assert len(tools) == 239  # of 242: three send multipart/form-data bodies, and say so
    left_out = [line for line in done.stderr.splitlines() if "left out" in line and "multipart/form-data" in line]
    assert len(left_out) == 3 and any("create_guild_sticker" in line for line in left_out)
    assert "next: set DISCORD_BOT_TOKEN, DISCORD_OAUTH2 in the project's .env" in done.stdout
    lint = run("cogtools", "lint", "--strict", "tools", cwd=project)
    assert lint.status == 0 and lint.stdout.strip().endswith("0 errors, 0 warnings"), lint.stdout[-2000:]
    listed = run("cogtools", "list", cwd=project)
    assert listed.status == 0 and "get_guild" in listed.stdout


@pytest.mark.slow
def test_discord_schemas_are_translated_from_json_schema(discord: tuple[Path, Result]) -> None:
    project, _ = discord
    guild = tool(project, "get_guild")
    assert guild["parameters"]["guild_id"]["pattern"] == "^(0|[1-9][0-9]*)$"  # SnowflakeType, written out
    assert guild["parameters"]["with_counts"] == {
        "type": "boolean",
        "description": "The `with_counts` query parameter.",
        "optional": True,
    }
    message = tool(project, "create_message")["parameters"]
    assert message["type"] == "object" and "RichEmbed" in message["$defs"]  # too large written out: $defs
    assert message["properties"]["content"]["nullable"] is True  # type: [string, "null"]
    assert message["required"] == ["channel_id"]


@pytest.mark.slow
def test_discord_dry_runs_show_the_requests_the_document_describes(discord: tuple[Path, Result]) -> None:
    project, _ = discord
    api = "https://discord.com/api/v10"
    shown = dry_run(project, "get_guild", {"guild_id": "81384788765712384", "with_counts": True})
    assert (shown["method"], shown["url"]) == ("GET", f"{api}/guilds/81384788765712384?with_counts=true")
    assert shown["headers"]["Authorization"] == "***" and shown["secrets"] == ["DISCORD_BOT_TOKEN"]

    shown = dry_run(project, "list_messages", {"channel_id": "1", "limit": 50, "before": "99"})
    assert shown["url"] == f"{api}/channels/1/messages?before=99&limit=50"

    shown = dry_run(
        project,
        "create_message",
        {"channel_id": "1", "content": "hello", "embeds": [{"title": "t", "description": "d"}], "tts": False},
    )
    assert (shown["method"], shown["url"]) == ("POST", f"{api}/channels/1/messages")
    assert shown["json"] == {"content": "hello", "embeds": [{"title": "t", "description": "d"}], "tts": False}

    shown = dry_run(project, "add_guild_member_role", {"guild_id": "1", "user_id": "2", "role_id": "3"})
    assert (shown["method"], shown["url"]) == ("PUT", f"{api}/guilds/1/members/2/roles/3")

    shown = dry_run(project, "delete_message", {"channel_id": "1", "message_id": "2"})
    assert (shown["method"], shown["url"]) == ("DELETE", f"{api}/channels/1/messages/2")
    assert tool(project, "delete_message")["risk_level"] == "high"


# -- the rules, on documents small enough to read -----------------------------------------------


def document(text: str, source: str = "api.yaml") -> t.Any:
    return parse_document(text.encode("utf-8"), source)


SMALL = """\
openapi: 3.1.0
info: {title: Example Widgets API, version: "1"}
servers:
  - url: https://{region}.example.com/v1
    variables: {region: {default: eu}}
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
    basic: {type: http, scheme: basic}
    key: {type: apiKey, in: query, name: api_key}
  schemas:
    Node:
      type: object
      properties:
        name: {type: [string, "null"]}
        children: {type: array, items: {$ref: '#/components/schemas/Node'}}
paths:
  /widgets/{id}:
    parameters:
      - {name: id, in: path, required: true, schema: {type: integer}}
    get:
      operationId: get widget!
      security: [{bearer: []}]
      parameters:
        - {name: id, in: query, schema: {type: string}, description: Another id.}
        - {name: X-Request-ID, in: header, schema: {type: string}}
        - {name: if, in: query, schema: {type: boolean}}
        - {name: sizes, in: query, explode: false, schema: {type: array, items: {type: integer}}}
        - {name: colors, in: query, schema: {type: array, items: {type: string}}}
      responses: {"200": {description: ok}}
    put:
      security: [{basic: []}]
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Node'}
      responses: {"200": {description: ok}}
    patch:
      operationId: patchWidget
      requestBody:
        required: true
        content:
          application/merge-patch+json:
            schema:
              allOf:
                - $ref: '#/components/schemas/Node'
                - {type: object, required: [color], properties: {color: {type: string, enum: [red, blue]}}}
      responses: {"200": {description: ok}}
  /keys:
    get:
      operationId: listKeys
      security: [{key: []}]
      responses: {"200": {description: ok}}
    post:
      operationId: addKey
      security: [{}]
      requestBody:
        content:
          application/x-www-form-urlencoded:
            schema:
              type: object
              properties:
                label: {type: string}
                admin: {type: boolean}
      responses: {"201": {description: made}}
"""


@pytest.mark.usefixtures("validator_here")
def test_names_parameters_and_credentials_follow_the_rules() -> None:
    imported = import_document(document(SMALL))
    tools = {tool.name: tool.definition for tool in imported.tools}
    assert sorted(tools) == ["addKey", "get_widget", "listKeys", "patchWidget", "put_widgets_id"]
    get = tools["get_widget"]
    # a name in the path and the query: the path keeps it, the query's gets its place
    assert list(get["parameters"]) == ["id", "query_id", "if_", "sizes", "colors", "X_Request_ID"]
    assert get["parameters"]["id"]["type"] == "integer" and "optional" not in get["parameters"]["id"]
    assert get["parameters"]["query_id"]["optional"] is True
    implementation = get["implementation"]
    assert implementation["url"] == "https://eu.example.com/v1/widgets/{{ id }}"
    assert implementation["query"] == {
        "id": "{{ query_id }}",
        "if": "{{ if_ | tojson if if_ is not none else '' }}",
        "sizes": "{{ sizes | map('tojson') | join(',') if sizes is not none else '' }}",
        "colors": "{{ colors }}",
    }
    assert implementation["headers"] == {
        "X-Request-ID": "{{ X_Request_ID }}",
        "Authorization": "Bearer {{ env.EXAMPLE_WIDGETS_BEARER }}",
    }
    assert get["environment"] == [{"name": "EXAMPLE_WIDGETS_BEARER", "secret": True}]
    put = tools["put_widgets_id"]
    assert put["implementation"]["headers"]["Authorization"] == "Basic {{ env.EXAMPLE_WIDGETS_BASIC }}"
    # a recursive schema stays a tree of $defs; 3.1's type list is OpenAPI 3.0's nullable
    assert put["parameters"]["$defs"]["Node"]["properties"]["name"] == {"type": "string", "nullable": True}
    assert put["parameters"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    # an allOf of objects is one object: its properties are parameters; a JSON media type of
    # its own is sent as the Content-Type
    patch = tools["patchWidget"]
    assert list(patch["parameters"]["properties"]) == ["id", "name", "children", "color"]
    assert patch["parameters"]["required"] == ["id", "color"]
    assert patch["implementation"]["headers"]["Content-Type"] == "application/merge-patch+json"
    keys = tools["listKeys"]
    assert keys["implementation"]["query"] == {"api_key": "{{ env.EXAMPLE_WIDGETS_KEY }}"}
    assert keys["lint"] == {"ignore": ["secret-exposed"]}  # where the API wants it, and said so
    assert any("sent in the query" in note for note in imported.notes)


def test_tool_names_and_identifiers() -> None:
    assert tool_name("getPetById", "get", "/pet/{id}") == "getPetById"
    assert tool_name(None, "delete", "/users/{user.id}/keys") == "delete_users_user.id_keys"
    assert tool_name("1st op..x", "get", "/") == "op_1st_op.x"
    assert tool_name("cogtools_call", "get", "/") == "api_cogtools_call"
    assert len(tool_name("x" * 100, "get", "/")) == 48
    assert identifier("X-Request-ID") == "X_Request_ID"
    assert identifier("2fa") == "_2fa"
    assert identifier("env") == "env_" and identifier("filter[name]") == "filter_name"


@pytest.mark.usefixtures("validator_here")
def test_colliding_names_are_told_apart() -> None:
    text = SMALL.replace("operationId: listKeys", "operationId: Get_Widget")
    names = sorted(tool.name for tool in import_document(document(text)).tools)
    assert names == ["Get_Widget_2", "addKey", "get_widget", "patchWidget", "put_widgets_id"]


@pytest.mark.usefixtures("validator_here")
@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"hello": "world"}', "not an OpenAPI 3.0 or 3.1 document"),
        ("swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\n", "a Swagger 2.0 document"),
        ("openapi: 3.0.3\ninfo: [\n", "not YAML"),
        ("openapi: 3.0.3\ninfo: {title: t}\npaths: {}\n", "not a valid OpenAPI 3.0 document"),
        (  # a billion laughs: ten aliases of ten aliases..., nine levels deep
            "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
            + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 10)}]\n" for i in range(8)),
            "more than 100000 values once aliases are expanded; the document's JSON form is read",
        ),
        ("\xff", "not UTF-8"),
    ],
)
def test_a_bad_document_is_definition_invalid(text: str, says: str) -> None:
    with pytest.raises(DefinitionInvalidError) as caught:
        parse_document(text.encode("latin-1") if text == "\xff" else text.encode("utf-8"), "api.yaml")
    assert says in caught.value.message and caught.value.path == "api.yaml"


@pytest.mark.usefixtures("validator_here")
def test_references_that_lead_nowhere_or_loop_are_refused() -> None:
    dangling = SMALL.replace("items: {$ref: '#/components/schemas/Node'}", "items: {$ref: '#/components/schemas/Nope'}")
    with pytest.raises(DefinitionInvalidError):
        import_document(document(dangling), wanted=["put_widgets_id"])
    looping = SMALL.replace(
        "  schemas:\n", "  schemas:\n    A: {$ref: '#/components/schemas/B'}\n    B: {$ref: '#/components/schemas/A'}\n"
    )
    looping = looping.replace("schema: {$ref: '#/components/schemas/Node'}", "schema: {$ref: '#/components/schemas/A'}")
    with pytest.raises(DefinitionInvalidError) as caught:
        import_document(document(looping), wanted=["put_widgets_id"])
    assert "itself" in caught.value.message or "loop" in caught.value.message


def test_a_document_past_the_size_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from cogtools.importers import openapi as openapi_import

    monkeypatch.setattr(openapi_import, "MAX_DOCUMENT_BYTES", 1000)
    with pytest.raises(DefinitionInvalidError, match="larger than"):
        parse_document(b"#" * 1001, "big.yaml")


@pytest.mark.usefixtures("validator_here")
def test_what_a_document_writes_cannot_become_a_template(project: Path, cli: Cli) -> None:
    """A server or path that would put a template into the URL is refused; a description that
    looks like one stays text."""
    hostile = SMALL.replace("https://{region}.example.com/v1", "https://h.example.com/{{ env.HOME }}")
    with pytest.raises(UsageError):
        import_document(document(hostile), wanted=["listKeys"])
    text = SMALL.replace("operationId: listKeys", "operationId: listKeys\n      summary: '{{ env.HOME }} {% raw %}'")
    written = import_document(document(text), wanted=["listKeys"]).tools[0].definition
    assert written["description"] == "{{ env.HOME }} {% raw %}"


@pytest.mark.usefixtures("validator_here")
def test_a_relative_server_needs_the_server_option(project: Path, cli: Cli) -> None:
    write(project / "api.yaml", SMALL.replace("https://{region}.example.com/v1", "/v1"))
    done = cli(porcelain.main, "import", "openapi", "api.yaml")
    assert done.status == STATUS["USAGE"] and "--server URL" in done.stderr
    assert not any((project / "tools").iterdir())
    done = cli(porcelain.main, "import", "openapi", "api.yaml", "--server", "https://api.example.com/v1")
    assert done.status == 0, done.stderr


def test_a_missing_file_is_usage(project: Path, cli: Cli) -> None:
    done = cli(porcelain.main, "import", "openapi", "nowhere.yaml")
    assert done.status == STATUS["USAGE"] and "nowhere.yaml: no such file" in done.stderr


@pytest.mark.usefixtures("validator_here")
def test_small_document_dry_runs(project: Path, cli: Cli) -> None:
    """Header and query parameters, a boolean as JSON writes it, a form body, and an operation
    whose security allows anonymous calls (`{}`), which declares no secret."""
    write(project / "api.yaml", SMALL)
    write(project / ".env", "EXAMPLE_WIDGETS_BEARER=b-1\n")
    assert cli(porcelain.main, "import", "openapi", "api.yaml").status == 0
    arguments = {"id": 5, "query_id": "a b", "if_": False, "X_Request_ID": "r-1", "sizes": [1, 2], "colors": ["red"]}
    shown = cli(call.main, "--dry-run", "get_widget", stdin=json.dumps(arguments)).json()
    assert shown["url"] == "https://eu.example.com/v1/widgets/5?id=a+b&if=false&sizes=1%2C2&colors=red"
    assert shown["headers"]["X-Request-ID"] == "r-1" and shown["headers"]["Authorization"] == "Bearer ***"
    shown = cli(call.main, "--dry-run", "addKey", stdin='{"label": "ci", "admin": true}').json()
    assert (shown["method"], shown["form"]) == ("POST", {"label": "ci", "admin": "true"})
    assert "secrets" not in shown and "environment" not in tool(project, "addKey")
    lint = cli(porcelain.main, "lint", "--strict", "tools")
    assert lint.status == 0, lint.stdout


@pytest.mark.usefixtures("validator_here")
@pytest.mark.parametrize("path", ["/a/{{id}}", "/a/{id}}", "/a?b={id}", "/a/{id}#x"])
def test_a_path_that_is_not_a_path_template_is_refused(path: str) -> None:
    text = SMALL.replace("/widgets/{id}:", f"'{path}':")
    with pytest.raises(DefinitionInvalidError, match="cannot be imported|not a valid OpenAPI"):
        import_document(document(text), wanted=["get_widget"])


@pytest.mark.usefixtures("validator_here")
def test_a_literal_path_is_percent_encoded() -> None:
    text = SMALL.replace("/widgets/{id}:", "/wid gets/ü/{id}:")
    written = import_document(document(text), wanted=["get_widget"]).tools[0].definition
    assert written["implementation"]["url"] == "https://eu.example.com/v1/wid%20gets/%C3%BC/{{ id }}"


@pytest.mark.usefixtures("validator_here")
def test_a_document_from_a_url_and_its_relative_server(project: Path, cli: Cli) -> None:
    """A URL is read as a file is (a local server here); a relative server URL is taken from
    where the document came from."""
    import functools
    import http.server
    import threading

    write(project / "site" / "api.yaml", SMALL.replace("https://{region}.example.com/v1", "/v1"))
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(project / "site"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        done = cli(porcelain.main, "import", "openapi", f"{url}/api.yaml", "--operation", "listKeys")
        assert done.status == 0, done.stderr
        assert tool(project, "listKeys")["implementation"]["url"] == f"{url}/v1/keys"
        done = cli(porcelain.main, "import", "openapi", f"{url}/missing.yaml")
        assert done.status == STATUS["USAGE"] and "cannot fetch" in done.stderr
    finally:
        server.shutdown()
        server.server_close()


def test_the_http_kind_repeats_a_query_parameter_whose_value_is_a_list(project: Path, cli: Cli) -> None:
    """What an imported array parameter needs of the http kind (OpenAPI's `explode`): a query
    value that is one expression whose value is a list is one pair per item; any other value
    renders as it did."""
    write(
        project / "tools" / "tagged.yaml",
        """\
        description: Find things by tags.
        parameters:
          tags: {type: array, items: {}, description: The tags.}
          flag: {type: boolean, optional: true, description: A flag.}
        implementation:
          kind: http
          url: https://api.example.com/things
          query: {t: "{{ tags }}", f: "{{ flag }}", n: "{{ tags | length }}"}
        """,
    )
    shown = cli(call.main, "--dry-run", "tagged", stdin='{"tags": [1, "a b", true, null], "flag": true}').json()
    assert shown["url"] == "https://api.example.com/things?t=1&t=a+b&t=true&f=True&n=4"
    shown = cli(call.main, "--dry-run", "tagged", stdin='{"tags": []}').json()
    assert shown["url"] == "https://api.example.com/things?n=0"


@pytest.mark.usefixtures("validator_here")
def test_without_into_the_tools_go_to_the_projects_tool_directory(
    project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "sub").mkdir()
    monkeypatch.chdir(project / "sub")
    done = cli(porcelain.main, "import", "openapi", str(PETSTORE), "--operation", "getInventory")
    assert done.status == 0 and done.stdout.startswith("created ../tools/getInventory.yaml\n"), done.stdout
    assert (project / "tools" / "getInventory.yaml").is_file() and not (project / "sub" / "tools").exists()


# -- hostile documents: nothing outside the document is read, and every limit holds ------------


class Listener:
    """A local HTTP server that records every request it gets (and answers each with a secret)."""

    SECRET = "HTTP-SECRET-6c1f"

    def __enter__(self) -> Listener:
        import http.server
        import threading

        hits: list[str] = []
        secret = self.SECRET.encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                hits.append(self.path)
                body = b'{"name": "x", "in": "query", "schema": {"type": "string", "enum": ["' + secret + b'"]}}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: t.Any) -> None:
                pass

        self.hits = hits
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


class Tripwire:
    """A FIFO named like a secret file: whatever opens it to read is seen (``opened``), and gets
    the secret."""

    SECRET = "FILE-SECRET-93ab"

    def __init__(self, path: Path) -> None:
        import threading

        self.path = path
        os.mkfifo(path)
        self.opened = False
        self._closing = False
        self._thread = threading.Thread(target=self._wait, daemon=True)
        self._thread.start()

    def _wait(self) -> None:
        fd = os.open(self.path, os.O_WRONLY)  # blocks until a reader opens the FIFO
        try:
            if not self._closing:
                self.opened = True
                os.write(fd, f"password: {self.SECRET}\n".encode())
        finally:
            os.close(fd)

    def close(self) -> None:
        self._closing = True
        reader = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)  # lets the writer's open return
        self._thread.join(10)
        os.close(reader)


def external(reference: str, where: str) -> str:
    """A small document with ``reference`` at ``where``: a parameter, a schema, a path item or a
    response."""
    document: dict[str, t.Any] = {
        "openapi": "3.0.3",
        "info": {"title": "Refs", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "components": {"schemas": {"Local": {"type": "string"}}},
        "paths": {
            "/a": {
                "get": {
                    "operationId": "getA",
                    "parameters": [{"name": "q", "in": "query", "schema": {"$ref": "#/components/schemas/Local"}}],
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    get = document["paths"]["/a"]["get"]
    if where == "parameter":
        get["parameters"].append({"$ref": reference})
    elif where == "schema":
        document["components"]["schemas"]["Remote"] = {"$ref": reference}
    elif where == "path item":
        document["paths"]["/b"] = {"$ref": reference}
    else:
        get["responses"]["200"] = {"$ref": reference}
    return json.dumps(document, indent=1)


#: Where each reference is, as the error names it.
WHERE = {
    "parameter": "paths./a.get.parameters[1].$ref",
    "schema": "components.schemas.Remote.$ref",
    "path item": "paths./b.$ref",
    "response": "paths./a.get.responses.200.$ref",
}


@pytest.mark.slow
@pytest.mark.parametrize("where", sorted(WHERE))
@pytest.mark.parametrize("kind", ["file URL", "relative path", "http URL"])
def test_a_reference_outside_the_document_is_refused_and_nothing_is_read_or_fetched(
    tmp_path: Path, where: str, kind: str
) -> None:
    """A secret file (a FIFO: whatever opens it is seen) and a local HTTP listener: a document
    that refers to either is DEFINITION_INVALID, naming the reference and where it is, before
    anything reads it; the secret never shows and nothing is written."""
    project = new_project(tmp_path / "project", "")
    wire = Tripwire(tmp_path / "secret.yaml")
    try:
        with Listener() as listener:
            reference = {
                "file URL": f"file://{wire.path}#/password",
                "relative path": "../secret.yaml#/password",
                "http URL": f"{listener.url}/refs/item.json",
            }[kind]
            write(project / "api.json", external(reference, where))
            done = run("cogtools", "import", "openapi", "api.json", cwd=project)
            assert listener.hits == []
    finally:
        wire.close()
    assert not wire.opened
    assert done.status == STATUS["DEFINITION_INVALID"], done.stderr
    assert Tripwire.SECRET not in done.stdout + done.stderr and Listener.SECRET not in done.stdout + done.stderr
    assert reference in done.stderr and WHERE[where] in done.stderr, done.stderr
    assert "only references within the document" in done.stderr and "nothing was read" in done.stderr
    assert not (project / "tools").exists() or not any((project / "tools").iterdir())


def test_an_outside_reference_is_an_error_a_program_can_match() -> None:
    """The code, the reason and the reference in the details; where it is as the key path."""
    with pytest.raises(DefinitionInvalidError) as caught:
        parse_document(external("https://example.com/common.yaml#/Id", "schema").encode(), "api.json")
    assert caught.value.details == {"reason": "outside_reference", "reference": "https://example.com/common.yaml#/Id"}
    assert caught.value.key_path == ("components", "schemas", "Remote", "$ref")


@pytest.mark.slow
def test_the_validator_reads_and_fetches_nothing_even_past_the_importers_own_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second wall: with the importer's own check of references taken away, the validator
    is refused every retrieval (a file, a URL), so the document is refused with nothing read."""
    from cogtools.importers import openapi as openapi_import

    monkeypatch.setattr(openapi_import, "_outside_references", lambda data, source: None, raising=False)
    wire = Tripwire(tmp_path / "secret.yaml")
    try:
        with Listener() as listener:
            for reference, where in [
                (f"{listener.url}/refs/item.json", "path item"),
                (f"file://{wire.path}", "path item"),
                (f"{listener.url}/refs/p.json", "parameter"),
                (f"file://{wire.path}", "response"),
            ]:
                with pytest.raises(DefinitionInvalidError) as caught:
                    parse_document(external(reference, where).encode(), "api.json")
                assert Tripwire.SECRET not in str(caught.value) and Listener.SECRET not in str(caught.value)
            assert listener.hits == []
    finally:
        wire.close()
    assert not wire.opened


def many(count: int, *, named: bool = True) -> str:
    """A JSON document of ``count`` operations (two per path)."""
    paths: dict[str, t.Any] = {}
    for i in range(0, count, 2):
        item: dict[str, t.Any] = {}
        for method, n in (("get", i), ("delete", i + 1)):
            if n < count:
                item[method] = {
                    **({"operationId": f"op{n}"} if named else {}),
                    "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
                    "responses": {"200": {"description": "ok"}},
                }
        paths[f"/things{i}/{{id}}"] = item
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Many", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": paths,
    }
    return json.dumps(document)


@pytest.mark.usefixtures("validator_here")
def test_more_operations_than_max_operations_is_refused_and_nothing_is_written(project: Path, cli: Cli) -> None:
    write(project / "api.json", many(6))
    done = cli(porcelain.main, "import", "openapi", "api.json", "--max-operations", "5")
    assert done.status == STATUS["DEFINITION_INVALID"], done.stderr
    assert "6 operations, more than --max-operations (5)" in done.stderr and "nothing was written" in done.stderr
    assert not any((project / "tools").iterdir())
    done = cli(porcelain.main, "import", "openapi", "api.json", "--max-operations", "0")
    assert done.status == STATUS["USAGE"]
    done = cli(porcelain.main, "import", "openapi", "api.json", "--max-operations", "6")
    assert done.status == 0, done.stderr
    assert len(list((project / "tools").iterdir())) == 6


def test_the_cap_has_a_default_and_is_checked_before_the_validator(monkeypatch: pytest.MonkeyPatch) -> None:
    from cogtools.importers import openapi as openapi_import

    def never(document: t.Any) -> None:
        raise AssertionError("the validator ran")

    monkeypatch.setattr(openapi_import, "_validate", never)
    from cogtools.importers import MAX_OPERATIONS as cap

    assert 1000 <= cap <= 10_000  # GitHub's ~1,100 operations fit
    with pytest.raises(DefinitionInvalidError) as caught:
        parse_document(many(cap + 1).encode(), "api.json")
    assert caught.value.details["reason"] == "too_many_operations" and f"more than --max-operations ({cap})" in str(
        caught.value
    )
    # so is a document of many path items without operations
    document = json.loads(many(2))
    document["paths"].update({f"/p{i}": {} for i in range(cap + 1)})
    with pytest.raises(DefinitionInvalidError, match="path items"):
        parse_document(json.dumps(document).encode(), "api.json")


@pytest.mark.slow
def test_the_work_grows_linearly_with_the_operations() -> None:
    """Naming the operations (colliding names told apart) takes work proportional to their number:
    Python's calls counted, for n and 2n operations, none of them named (so many names collide
    once cut to 48 characters). No clock: the calls made."""
    import sys

    from cogtools.importers.openapi import operations

    def calls(count: int) -> int:
        text = many(count, named=False).replace("/things", "/" + "x" * 60)
        doc = parse_document(text.encode(), "api.json")
        seen = [0]

        def profile(frame: t.Any, event: str, arg: t.Any) -> None:
            seen[0] += 1

        sys.setprofile(profile)
        try:
            found, _ = operations(doc)
        finally:
            sys.setprofile(None)
        assert len({op.name.lower() for op in found}) == count
        return seen[0]

    small, large = calls(600), calls(1200)
    assert large < 2.3 * small, (small, large)


@pytest.mark.slow
def test_a_progress_bar_on_a_terminal_and_none_elsewhere(tmp_path: Path) -> None:
    import pty

    project = new_project(tmp_path / "project", "")
    write(project / "api.json", many(30))
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [str(BIN / "cogtools"), "import", "openapi", "api.json", "--into", "a"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=slave,
        cwd=project,
    )
    os.close(slave)
    out, _ = proc.communicate(timeout=120)
    seen = b""
    try:
        while chunk := os.read(master, 65536):
            seen += chunk
    except OSError:
        pass
    os.close(master)
    assert proc.returncode == 0 and out.decode().count("created a/") == 30
    assert b"checking" in seen and b"importing" in seen and b"writing" in seen and b"30/30" in seen, seen
    done = run("cogtools", "import", "openapi", "api.json", "--into", "b", cwd=project)
    assert done.status == 0 and done.stderr == "", done.stderr


def bombs() -> dict[str, dict[str, t.Any]]:
    """Documents whose references multiply what is read: each schema names the next twice (40
    deep: 2**40 paths), an allOf 30 wide of allOfs 30 wide (8 deep), a chain of 300 schemas."""
    deep: dict[str, t.Any] = {f"B{i}": {"allOf": [{"$ref": f"#/components/schemas/B{i + 1}"}] * 2} for i in range(40)}
    deep["B40"] = {"type": "object", "properties": {"x": {"type": "string"}}}
    wide: dict[str, t.Any] = {f"W{i}": {"allOf": [{"$ref": f"#/components/schemas/W{i + 1}"}] * 30} for i in range(8)}
    wide["W8"] = {"type": "object", "properties": {"x": {"type": "string"}}}
    chain: dict[str, t.Any] = {
        f"C{i}": {"type": "object", "properties": {"n": {"$ref": f"#/components/schemas/C{i + 1}"}}} for i in range(300)
    }
    chain["C300"] = {"type": "string"}
    return {"allOf 2x40": deep, "allOf 30x8": wide, "a chain of 300": chain}


@pytest.mark.slow
@pytest.mark.parametrize("bomb", sorted(bombs()))
def test_references_that_multiply_get_a_bounded_answer(tmp_path: Path, bomb: str) -> None:
    """Whatever such a document is, the command answers (the process's own limit here is its
    time out, which a loop in the validator or the importer would reach), with a tool or an error,
    never a traceback."""
    schemas = bombs()[bomb]
    first = next(iter(schemas))
    document = json.loads(many(2))
    document["components"] = {"schemas": schemas}
    document["paths"]["/body"] = {
        "post": {
            "operationId": "send",
            "requestBody": {"content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{first}"}}}},
            "responses": {"200": {"description": "ok"}},
        }
    }
    project = new_project(tmp_path / "project", "")
    write(project / "api.json", json.dumps(document))
    done = run("cogtools", "import", "openapi", "api.json", cwd=project)
    assert done.status in (0, STATUS["DEFINITION_INVALID"]), done.stderr
    assert "Traceback" not in done.stderr and "INTERNAL" not in done.stderr, done.stderr


@pytest.mark.slow
def test_schemas_copied_into_every_tool_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """One large schema that every operation's body names is copied into every tool: each tool
    has a limit (what a tool file may hold), and all of them together another."""
    from cogtools.importers import openapi as openapi_import

    document = json.loads(many(2))
    document["components"] = {
        "schemas": {"Big": {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(300)}}}
    }
    for i in range(20):
        document["paths"][f"/big{i}"] = {
            "post": {
                "operationId": f"big{i}",
                "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Big"}}}},
                "responses": {"200": {"description": "ok"}},
            }
        }
    doc = parse_document(json.dumps(document).encode(), "api.json")
    monkeypatch.setattr(openapi_import, "MAX_TOOL_VALUES", 500)
    imported = import_document(doc)
    assert sorted(tool.name for tool in imported.tools) == ["op0", "op1"]
    assert any("big3" in note and "more than 500 values" in note for note in imported.notes), imported.notes
    monkeypatch.setattr(openapi_import, "MAX_TOOL_VALUES", 100_000)
    monkeypatch.setattr(openapi_import, "MAX_OUTPUT_VALUES", 10_000)
    with pytest.raises(DefinitionInvalidError, match="more than 10000 values together"):
        import_document(doc)


@pytest.mark.usefixtures("validator_here")
def test_each_file_written_is_its_definition_rendered() -> None:
    """The text the import made once (a tool that loses something in a dialect gets its `lint`
    after the rest) is the tool's definition rendered, byte for byte."""
    from cogtools.importers.openapi import read_document, render

    either = "schema: {oneOf: [{type: boolean}, {type: integer}]}"  # the Gemini API has no oneOf
    lossy = SMALL.replace("{name: if, in: query, schema: {type: boolean}}", f"{{name: if, in: query, {either}}}")
    lossy = lossy.replace(
        "security: [{key: []}]", f"security: [{{key: []}}]\n      parameters: [{{name: n, in: query, {either}}}]"
    )
    imported = import_document(document(lossy))
    lints = {tool.name: tool.definition.get("lint") for tool in imported.tools}
    assert lints["get_widget"] == {"ignore": ["dialect-loss"]}
    assert lints["listKeys"] == {"ignore": ["secret-exposed", "dialect-loss"]}
    for doc, tools in ((lossy, imported.tools), (PETSTORE, import_document(read_document(str(PETSTORE))).tools)):
        for tool in tools:
            assert tool.text == render(tool, "api.yaml" if doc is lossy else str(PETSTORE))


def test_the_validator_runs_apart_from_the_workspace(project: Path, cli: Cli) -> None:
    """Its process imports nothing of the working directory (the project, which the agent may
    write): a planted module named like the validator's or the standard library's never runs."""
    for name in ("openapi_spec_validator.py", "json.py", "typing.py"):
        write(project / name, f"open({str(project / 'ran')!r}, 'a').write({name!r})\n")
    write(project / "api.yaml", SMALL)
    done = cli(porcelain.main, "import", "openapi", "api.yaml", "--operation", "listKeys")
    assert done.status == 0, done.stderr
    assert not (project / "ran").exists()


def test_the_validators_registries_are_sets() -> None:
    """What makes the validator's work linear relies on its internals (openapi-spec-validator
    keeps the operationIds and schemas it saw in lists): when a version changes them, this says so."""
    from cogtools.importers import spec_check

    for version in ("3.0", "3.1"):
        registry = spec_check.validator(version, {}).keyword_validators_registry
        operation, schema = registry["operation"], registry["schema"]
        assert isinstance(operation.operation_ids_registry, spec_check._Seen)
        assert isinstance(schema.visited_schema_ids, spec_check._Seen)
        assert isinstance(schema.meta_checked_schema_ids, spec_check._Seen)
        assert "_collect_properties" in type(schema).__dict__


@pytest.mark.slow
def test_the_benchmark_runs(tmp_path: Path) -> None:
    """benchmarks/openapi_import.py, small, as a smoke test: the figures are for people."""
    from .conftest import REPO

    out = tmp_path / "figures.json"
    done = subprocess.run(
        [BIN / "python", REPO / "benchmarks" / "openapi_import.py", "--sizes", "10,20", "--runs", "1", "--json", out],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(out.read_text())
    assert figures["ratio"]["sizes"] == 2 and figures["20"]["phases_cpu_s"].keys() == {"read", "check", "import"}
