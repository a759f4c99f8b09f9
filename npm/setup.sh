#!/bin/sh
# The first run of cogtools' npm package: install cogtools VERSION, from the wheel this package
# carries, into a cached virtual environment, once, then exec COMMAND from it with the caller's
# arguments, stdin, stdout and exit status untouched. The launchers (bin/*, made from
# npm/launcher.sh) call it only when that environment is not there:
#
#   sh lib/setup.sh VERSION KEY COMMAND [ARGS...]
#
# KEY is VERSION-HASH, HASH the start of the wheel's SHA-256 (npm/pack.py bakes it into the
# launchers), so that a package rebuilt at the same version is installed anew, not served stale.
# The cache, $HOME/.cache/cogtools/npm/ (not $XDG_CACHE_HOME, which a workspace's .env can set):
#   KEY            a symbolic link to the environment, renamed into place only once pip and a
#                  check run of the installed cogtools have succeeded: what a launcher tests (its
#                  bin/python, so an environment whose Python was removed is made anew)
#   KEY.env-STAMP  the environment itself (a venv cannot be moved, so it is made where it stays;
#                  one an interrupted run left behind is removed by the next install)
#   KEY.log        what the last install printed
#   .KEY.lock      the lock (flock(1)), or the directory .KEY.lock.d where flock is missing
#
# The Python: $COGTOOLS_PYTHON if set (and then only it), else the first of python3,
# python3.14 ... python3.10, python on PATH that is 3.10 or newer and has venv and ensurepip.
# cogtools' own dependencies come from pip's index as configured (pip.conf, PIP_INDEX_URL,
# PIP_FIND_LINKS, PIP_NO_INDEX, ...).
#
# Errors: one line on stderr, "COMMAND: error: CODE: message" (and, for cogtools-call and
# cogtools-yaml, the JSON error object on stdout, as they print theirs), and a fixed status:
# PYTHON_NOT_FOUND 69, INSTALL_FAILED 75.

version=$1
key=$2
command=$3
shift 3

fail() { # CODE STATUS MESSAGE
  case $command in
    cogtools-call | cogtools-yaml)
      text=$(printf '%s' "$3" | tr '\000-\037' '?' | sed 's/\\/\\\\/g; s/"/\\"/g')
      printf '{"error": {"code": "%s", "message": "%s", "tool": null, "details": {}}}\n' "$1" "$text"
      ;;
  esac
  printf '%s: error: %s: %s\n' "$command" "$1" "$3" >&2
  exit "$2"
}

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

if [ -x "$link/bin/python" ]; then # another run installed it while this one waited
  unlock
  exec "$link/bin/$command" "$@"
fi

# --- the install ----------------------------------------------------------------------------
# Whatever is here is not a whole install (its link was never made, or points at an environment
# whose Python is gone): it is removed, not trusted.
rm -rf "$link" "$root/$key".env-* "$root/.$key".link-*
env=$root/$key.env-$(date +%Y%m%d%H%M%S)-$$
log=$root/$key.log
printf '%s: first run: installing cogtools %s for Python %s (%s) into %s\n' \
  "$command" "$version" "$pyversion" "$python" "$env" >&2
if ! (
  unset PIP_TARGET PIP_PREFIX PIP_ROOT PIP_REQUIRE_VIRTUALENV
  PIP_USER=0 PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1
  export PIP_USER PIP_NO_INPUT PIP_DISABLE_PIP_VERSION_CHECK
  set -x
  "$python" -m venv "$env" &&
    "$env/bin/python" -m pip install --no-warn-script-location "$wheel[mcp]" &&
    "$env/bin/cogtools" --version
) </dev/null >"$log" 2>&1; then
  tail -n 15 "$log" | sed "s/^/$command: pip: /" >&2
  rm -rf "$env"
  fail INSTALL_FAILED 75 "installing cogtools $version into $env failed (what it printed: $log)"
fi
{ ln -s "${env##*/}" "$root/.$key.link-$$" && mv "$root/.$key.link-$$" "$link"; } ||
  fail INSTALL_FAILED 75 "cannot link $link to $env"
unlock
printf '%s: installed cogtools %s into %s\n' "$command" "$version" "$env" >&2
exec "$link/bin/$command" "$@"
