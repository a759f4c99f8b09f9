#!/bin/sh
':' /*
# @COMMAND@: a launcher of cogtools' npm package (made from npm/launcher.sh by npm/pack.py).
# It is sh and JavaScript at once: sh runs it (its #! line), but Yarn Berry runs a package's
# bins with node, for which the sh above is one comment and the lines at the end run it with sh.
# Once cogtools @VERSION@ is installed in its cached virtual environment, this is one test and
# an exec of that environment's own program: no second process, so argv, stdin, stdout, stderr
# and the exit status are the program's own. The first run installs it (lib/setup.sh): the core,
# and the MCP extra only when `cogtools mcp` first runs (the file .mcp-extra marks it installed).
c=@COMMAND@
#@PICK@
# Under HOME, never XDG_CACHE_HOME: Gemini CLI loads the workspace's .env (which the agent can
# write) into what it runs, and a cache of its choosing would be a program of its choosing.
e="$HOME/.cache/cogtools/npm/@KEY@"
if [ -x "$e/bin/python" ]; then
  case $c:${1-} in
    cogtools:mcp | cogtools:setup) [ -f "$e/.mcp-extra" ] && [ "${1-}" = mcp ] && exec "$e/bin/$c" "$@" ;;
    *) exec "$e/bin/$c" "$@" ;;
  esac
fi
# First run, the MCP extra's first run, `cogtools setup`, or a broken install: find this package
# (npm links bin files into node_modules/.bin) and hand over to its installer, which ends by
# exec'ing the same program.
s=$0
case $s in *[/]*) ;; *) s=./$s ;; esac
while [ -h "$s" ]; do
  l=$(readlink "$s") || break
  case $l in /*) s=$l ;; *) s=${s%/*}/$l ;; esac
done
exec /bin/sh "${s%/*}/../lib/setup.sh" '@VERSION@' '@KEY@' "$c" "$0" "$@"
exit 127
: <<'//'
*/
// node (Yarn Berry's way of running a bin): the same, by sh, with stdin, stdout, stderr, the
// status and a signal passed through (for sh, these lines are a here-document it never reaches)
const ran = require("child_process").spawnSync("/bin/sh", [__filename, ...process.argv.slice(2)], { stdio: "inherit" });
if (ran.signal) process.kill(process.pid, ran.signal);
process.exit(ran.status === null ? 127 : ran.status);
//
