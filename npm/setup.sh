#!/bin/sh
# The first run of cogtools' npm package: install cogtools VERSION, from the wheel this package
# carries, into a cached virtual environment, once, then exec COMMAND from it with the caller's
# arguments, stdin, stdout and exit status untouched. The launchers (bin/*, made from
# npm/launcher.sh) call it only when that environment is not there, when `cogtools mcp` runs
# and the MCP extra is not installed yet, or for `cogtools setup`:
#
#   sh lib/setup.sh VERSION KEY COMMAND LAUNCHER [ARGS...]
#
# KEY is VERSION-HASH, HASH the start of the wheel's SHA-256 (npm/pack.py bakes it into the
# launchers), so that a package rebuilt at the same version is installed anew, not served stale.
# LAUNCHER is the launcher's $0, to name the command that installs (`LAUNCHER-DIR/cogtools setup`).
#
# What is installed: the core (`pip install WHEEL`) for every command but `cogtools mcp`, which
# installs the MCP extra (`WHEEL[mcp]`, some 15 more packages) on its first run; `cogtools setup`
# installs both, and says so. On a terminal (stderr) the steps and pip's own output, progress bars
# included, are shown; on a pipe, one line at the start and one at the end.
#
# A client's start-up: `cogtools mcp`, `cogtools-discover` and `cogtools-call` with neither stdin
# nor stdout a terminal are what MCP clients and Gemini CLI start, and wait for (an MCP client that
# gets no answer in a second or two drops the server, silently). Where what they need is not
# installed, they install nothing: NOT_INSTALLED (78), naming `LAUNCHER-DIR/cogtools setup`, on
# stderr, and on stdout what the caller reads (for `cogtools mcp`, a JSON-RPC error answering its
# first request; for cogtools-call, the JSON error object). COGTOOLS_NPM_INSTALL=1 installs there
# too (a script or CI that waits).
#
# The cache, $HOME/.cache/cogtools/npm/ (not $XDG_CACHE_HOME, which a workspace's .env can set):
#   KEY            a symbolic link to the environment, renamed into place only once pip and a
#                  check run of the installed cogtools have succeeded: what a launcher tests (its
#                  bin/python, so an environment whose Python was removed is made anew)
#   KEY.env-STAMP  the environment itself (a venv cannot be moved, so it is made where it stays;
#                  one an interrupted run left behind is removed by the next install); its file
#                  .mcp-extra is written once the MCP extra is installed and imports
#   KEY.log        what the last install printed (pip's log)
#   .KEY.lock      the lock (flock(1)), or the directory .KEY.lock.d where flock is missing
#
# The Python: $COGTOOLS_PYTHON if set (and then only it), else the first of python3,
# python3.14 ... python3.10, python on PATH that is 3.10 or newer and has venv and ensurepip.
# cogtools' own dependencies come from pip's index as configured (pip.conf, PIP_INDEX_URL,
# PIP_FIND_LINKS, PIP_NO_INDEX, ...), through pip's own wheel cache.
#
# Errors: one line on stderr, "COMMAND: error: CODE: message" (and, for cogtools-call and
# cogtools-yaml, the JSON error object on stdout, as they print theirs), and a fixed status:
# PYTHON_NOT_FOUND 69, INSTALL_FAILED 75, NOT_INSTALLED 78.

version=$1
key=$2
command=$3
launcher=$4
shift 4

# What this run needs: core, or mcp (the core and the MCP extra); and whether it is `setup`.
want=core
setup=
case $command:${1-} in
  cogtools:mcp) want=mcp ;;
  cogtools:setup)
    want=mcp
    setup=1
    ;;
esac
name=$command
[ "$command" = cogtools ] && [ -n "${1-}" ] && case $1 in -*) ;; *) name="cogtools $1" ;; esac

fail() { # CODE STATUS MESSAGE
  text=$(printf '%s' "$3" | tr '\000-\037' '?' | sed 's/\\/\\\\/g; s/"/\\"/g')
  case $command:$want in
    cogtools-call:* | cogtools-yaml:*)
      printf '{"error": {"code": "%s", "message": "%s", "tool": null, "details": {}}}\n' "$1" "$text"
      ;;
    cogtools:mcp)
      # A client on stdin: answer its first request (initialize) with the error, so that the
      # client shows it rather than waiting, then timing out in silence.
      if [ -z "$setup" ] && [ ! -t 0 ] && [ ! -t 1 ] && IFS= read -r first; then
        id=$(printf '%s' "$first" | sed -E 's/"params".*//' | sed -nE 's/.*"id"[[:space:]]*:[[:space:]]*("[^"\\]*"|-?[0-9]+).*/\1/p')
        printf '{"jsonrpc": "2.0", "id": %s, "error": {"code": -32603, "message": "%s: %s", "data": {"code": "%s"}}}\n' \
          "${id:-null}" "$1" "$text" "$1"
      fi
      ;;
  esac
  printf '%s: error: %s: %s\n' "$name" "$1" "$3" >&2
  exit "$2"
}

say() { printf '%s: %s\n' "$name" "$*" >&2; }

case $(uname -s 2>/dev/null) in
  MINGW* | MSYS* | CYGWIN* | Windows*)
    fail INSTALL_FAILED 75 "Windows is not supported: cogtools runs on Linux and macOS (on Windows, in WSL)"
    ;;
esac

here=$(cd "${0%/*}/.." 2>/dev/null && pwd -P) || fail INSTALL_FAILED 75 "cannot find the package of $0"
wheel=$here/wheels/cogtools-$version-py3-none-any.whl
[ -f "$wheel" ] || fail INSTALL_FAILED 75 "the npm package is incomplete: $wheel is missing"

# $HOME/.cache, never $XDG_CACHE_HOME: see the launcher (a workspace's .env can set the latter).
if [ -n "${HOME:-}" ]; then
  root=$HOME/.cache/cogtools/npm
else
  fail INSTALL_FAILED 75 "HOME is not set: there is no cache to install cogtools into"
fi
link=$root/$key

# --- a client's start-up installs nothing ---------------------------------------------------
# The porcelain's own path, as the caller named it: the command that installs.
case $launcher in
  */*) porcelain=${launcher%/*}/cogtools ;;
  *) porcelain=cogtools ;;
esac
case $porcelain in /* | cogtools) ;; *) porcelain=$PWD/${porcelain#./} ;; esac
if [ -x "$link/bin/python" ] && { [ "$want" = core ] || [ -f "$link/.mcp-extra" ]; }; then
  installed=1
else
  installed=
fi
if [ -z "$installed" ] && [ -z "$setup" ] && [ "${COGTOOLS_NPM_INSTALL-}" != 1 ] && [ ! -t 0 ] && [ ! -t 1 ]; then
  case $command:$want in
    cogtools:mcp | cogtools-discover:* | cogtools-call:*)
      if [ "$want" = mcp ]; then what="cogtools $version with its MCP extra"; else what="cogtools $version"; fi
      fail NOT_INSTALLED 78 "$what is not installed yet, and installing it can take a minute or more, longer than a client waits for it: run '$porcelain setup' once in a terminal, then start the client again (or set COGTOOLS_NPM_INSTALL=1 to install here)"
      ;;
  esac
fi

# --- the Python -----------------------------------------------------------------------------
# Prints the version; 3 when older than 3.10; 1 (an ImportError) without venv or ensurepip.
probe='import sys; sys.stdout.write("%d.%d.%d" % sys.version_info[:3]); sys.exit(3) if sys.version_info < (3, 10) else None; import venv, ensurepip'
python=
pyversion=
tried=

note() { tried="${tried:+$tried; }$1"; }

try_python() {
  candidate=$1
  case $candidate in
    */*) path=$candidate ;;
    *) path=$(command -v "$candidate" 2>/dev/null) || path= ;;
  esac
  if [ -z "$path" ] || [ ! -f "$path" ] || [ ! -x "$path" ]; then
    note "$candidate (not found)"
    return 1
  fi
  got=$("$path" -c "$probe" </dev/null 2>/dev/null)
  status=$?
  if [ "$status" -eq 0 ]; then
    python=$path
    pyversion=$got
    return 0
  fi
  case $status:$got in
    3:*) note "$path ($got, older than 3.10)" ;;
    *:[0-9]*) note "$path ($got, without venv or ensurepip: on Debian or Ubuntu, install python3-venv)" ;;
    *) note "$path (does not run)" ;;
  esac
  return 1
}

if [ -n "${COGTOOLS_PYTHON:-}" ]; then
  try_python "$COGTOOLS_PYTHON" ||
    fail PYTHON_NOT_FOUND 69 "COGTOOLS_PYTHON names no usable Python 3.10 or newer: $tried"
else
  for candidate in python3 python3.14 python3.13 python3.12 python3.11 python3.10 python; do
    try_python "$candidate" && break
  done
  [ -n "$python" ] ||
    fail PYTHON_NOT_FOUND 69 "cogtools needs Python 3.10 or newer, and none was found (tried: $tried); install one, or set COGTOOLS_PYTHON to its path"
fi

# --- one installer at a time ----------------------------------------------------------------
mkdir -p "$root" 2>/dev/null || fail INSTALL_FAILED 75 "cannot create the cache directory $root"
if command -v flock >/dev/null 2>&1; then
  { exec 9>"$root/.$key.lock"; } 2>/dev/null || fail INSTALL_FAILED 75 "cannot open the lock file $root/.$key.lock"
  flock -w 900 9 ||
    fail INSTALL_FAILED 75 "waited 15 minutes for another install of cogtools $version to release $root/.$key.lock"
  unlock() { exec 9>&-; }
else
  lockdir=$root/.$key.lock.d
  waited=0
  until mkdir "$lockdir" 2>/dev/null; do
    holder=$(cat "$lockdir/pid" 2>/dev/null)
    if [ -n "$holder" ] && ! kill -0 "$holder" 2>/dev/null; then
      rm -rf "$lockdir" # its installer died: the lock is stale
      continue
    fi
    waited=$((waited + 1))
    [ "$waited" -lt 900 ] ||
      fail INSTALL_FAILED 75 "waited 15 minutes for another install of cogtools $version ($lockdir; remove it if none is running)"
    sleep 1
  done
  echo $$ >"$lockdir/pid"
  trap 'rm -rf "$lockdir"' EXIT
  trap 'exit 129' HUP
  trap 'exit 130' INT
  trap 'exit 143' TERM
  unlock() {
    rm -rf "$lockdir"
    trap - EXIT HUP INT TERM
  }
fi

# Done: exec the command (or, for `cogtools setup`, say where cogtools is).
finish() {
  unlock
  if [ -n "$setup" ]; then
    say "cogtools $version and its MCP extra are installed in $(cd "$link" && pwd -P)"
    say "MCP clients and Gemini CLI can start it now (a warm start execs it directly)"
    exit 0
  fi
  exec "$link/bin/$command" "$@"
}

have_extra() { [ -f "$link/.mcp-extra" ]; }
if [ -x "$link/bin/python" ] && { [ "$want" = core ] || have_extra; }; then
  finish "$@" # another run installed it while this one waited, or `setup` found it installed
fi

# --- the install ----------------------------------------------------------------------------
log=$root/$key.log
if [ -t 2 ]; then shown=1; else shown=; fi
started=$(date +%s)
if [ "$want" = mcp ]; then spec="$wheel[mcp]"; else spec=$wheel; fi

# pip, into the environment $1, of $spec; on a terminal with its own output (progress bars
# included) and its log in $log, else quiet with all of it in $log.
pip_install() {
  (
    unset PIP_TARGET PIP_PREFIX PIP_ROOT PIP_REQUIRE_VIRTUALENV
    PIP_USER=0 PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1
    export PIP_USER PIP_NO_INPUT PIP_DISABLE_PIP_VERSION_CHECK
    if [ -n "$shown" ]; then
      "$1/bin/python" -m pip install --no-warn-script-location --log "$log" "$spec" >&2
    else
      (set -x && "$1/bin/python" -m pip install --no-warn-script-location "$spec") >>"$log" 2>&1
    fi
  ) </dev/null
}
failed() { # ENV MESSAGE
  [ -n "$shown" ] || tail -n 15 "$log" | sed "s/^/$command: pip: /" >&2
  fail INSTALL_FAILED 75 "$2 (what pip printed: $log)"
}
check_extra() { "$1/bin/python" -c 'import mcp.server.lowlevel' </dev/null >>"$log" 2>&1; }

if [ -x "$link/bin/python" ]; then
  # The core is there, the MCP extra is not (or an interrupted run left it half-installed): pip
  # adds it to the environment, which the core's commands go on using meanwhile; .mcp-extra is
  # written only once it imports.
  env=$(cd "$link" && pwd -P)
  : >"$log"
  say "installing the MCP extra of cogtools $version (the MCP SDK, starlette, uvicorn, ...) into $env"
  [ -n "$shown" ] && say "[1/2] pip install cogtools[mcp] (from pip's index as configured; the whole log: $log)"
  pip_install "$env" || failed "$env" "installing the MCP extra of cogtools $version into $env failed"
  [ -n "$shown" ] && say "[2/2] checking that the MCP SDK imports"
  check_extra "$env" || failed "$env" "the MCP extra of cogtools $version was installed into $env but does not import"
  : >"$env/.mcp-extra" || fail INSTALL_FAILED 75 "cannot write $env/.mcp-extra"
  say "installed the MCP extra of cogtools $version in $(($(date +%s) - started)) s"
  finish "$@"
fi

# Whatever is here is not a whole install (its link was never made, or points at an environment
# whose Python is gone): it is removed, not trusted.
rm -rf "$link" "$root/$key".env-* "$root/.$key".link-*
env=$root/$key.env-$(date +%Y%m%d%H%M%S)-$$
if [ "$want" = mcp ]; then what="cogtools $version with its MCP extra"; else what="cogtools $version"; fi
: >"$log"
say "first run: installing $what for Python $pyversion ($python) into $env"
[ -n "$shown" ] && say "[1/3] making a virtual environment"
(set -x && "$python" -m venv "$env") </dev/null >>"$log" 2>&1 || {
  rm -rf "$env"
  failed "$env" "making a virtual environment with $python in $env failed"
}
[ -n "$shown" ] && say "[2/3] pip install $(basename "$spec") (from pip's index as configured; the whole log: $log)"
pip_install "$env" || {
  rm -rf "$env"
  failed "$env" "installing $what into $env failed"
}
[ -n "$shown" ] && say "[3/3] checking the installed cogtools"
{ (set -x && "$env/bin/cogtools" --version) </dev/null >>"$log" 2>&1 && { [ "$want" = core ] || check_extra "$env"; }; } || {
  rm -rf "$env"
  failed "$env" "$what was installed into $env but does not run"
}
if [ "$want" = mcp ]; then
  : >"$env/.mcp-extra" || fail INSTALL_FAILED 75 "cannot write $env/.mcp-extra"
fi
{ ln -s "${env##*/}" "$root/.$key.link-$$" && mv "$root/.$key.link-$$" "$link"; } ||
  fail INSTALL_FAILED 75 "cannot link $link to $env"
say "installed $what into $env in $(($(date +%s) - started)) s"
finish "$@"
