#!/bin/sh
# scripts/lint_docker.sh NPMDIR - lints the container files (docs/docker.md):
#   - docker/*.sh with `sh -n` and shellcheck (Debian package,
#     installed by scripts/deps.sh lint; skipped with a notice if missing);
#   - docker/compose.yaml and docker/docker-compose.lab.yaml (docs/DEPLOY.md)
#     with dclint (the compose-spec schema and its best-practice rules,
#     warnings are errors);
#   - docker/Dockerfile and docker/pgbouncer.Dockerfile with dockerfilelint;
#   - scripts/docker_stage.py check (no Docker engine here to find out):
#     every COPY source of the Dockerfiles exists and .dockerignore does not
#     drop it; the build stage copies every file its `make` reads and
#     installs every package scripts/deps.sh installs to build hpod.
# hadolint is neither on npm nor in Debian bookworm, so it is not used.
# dclint and dockerfilelint are installed with npm, at the pinned versions
# below, under NPMDIR (its own directory: `npm install --no-save` prunes
# packages it did not install, so it cannot share lint_spec.sh's). When npm
# or the registry cannot be reached it says so on one line,
#   lint: skipped dclint/dockerfilelint: <reason>
# and goes on with the other checks. Exits non-zero when any check fails.
set -u
DCLINT_VERSION=3.1.0
DOCKERFILELINT_VERSION=1.8.0
dir=${1:?usage: scripts/lint_docker.sh NPMDIR}
root=$(cd "$(dirname "$0")/.." && pwd)
status=0

installed() { # package -> its version under $dir, or nothing
    f="$dir/node_modules/$1/package.json"
    [ -f "$f" ] && sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$f" | head -1
}

# Installs the npm linters when missing; prints the reason and returns 1
# when they cannot be.
npm_tools() {
    if [ "$(installed dclint)" = "$DCLINT_VERSION" ] &&
        [ "$(installed dockerfilelint)" = "$DOCKERFILELINT_VERSION" ]; then
        return 0
    fi
    command -v npm >/dev/null 2>&1 || { echo "npm is not installed"; return 1; }
    command -v node >/dev/null 2>&1 || { echo "node is not installed"; return 1; }
    mkdir -p "$dir"
    log="$dir/install.log"
    if ! npm install --prefix "$dir" --no-audit --no-fund --no-save \
        --loglevel=error "dclint@$DCLINT_VERSION" \
        "dockerfilelint@$DOCKERFILELINT_VERSION" >"$log" 2>&1; then
        why=$(grep -m1 -E 'npm (error|ERR!) (code|FetchError|network)' "$log")
        echo "npm install failed (${why:-see $log}; full log in $log)"
        return 1
    fi
}

sh "$root/scripts/deps.sh" lint >/dev/null 2>&1 ||
    echo "lint: could not install the lint packages with apt-get" >&2

for f in "$root"/docker/*.sh; do
    echo "lint: sh -n docker/$(basename "$f")"
    sh -n "$f" || status=1
done
if command -v shellcheck >/dev/null 2>&1; then
    echo "lint: shellcheck $(shellcheck --version | sed -n 's/^version: //p')"
    shellcheck --shell=sh "$root"/docker/*.sh "$0" || status=1
else
    echo "lint: skipped shellcheck: not installed"
fi

echo "lint: the Dockerfiles' COPY sources and the build stage (scripts/docker_stage.py)"
python3 "$root/scripts/docker_stage.py" check || status=1

if ! why=$(npm_tools); then
    echo "lint: skipped dclint/dockerfilelint: $why"
    exit "$status"
fi
for f in compose.yaml docker-compose.lab.yaml; do
    echo "lint: dclint $DCLINT_VERSION docker/$f"
    "$dir/node_modules/.bin/dclint" --max-warnings 0 --no-color \
        "$root/docker/$f" || status=1
done

for df in Dockerfile pgbouncer.Dockerfile; do
echo "lint: dockerfilelint $DOCKERFILELINT_VERSION docker/$df"
# dockerfilelint 1.8.0 reads HEALTHCHECK options with /--\w+/, which cuts
# "--start-period" to "--start" and reports "Invalid Argument Format" for
# an option Docker has had since 17.05. Only that report, on a HEALTHCHECK
# line whose options are all valid, is dropped; every other finding stays
# (no rule is turned off).
"$dir/node_modules/.bin/dockerfilelint" -o json "$root/docker/$df" \
    >"$dir/dockerfilelint.json" 2>&1
python3 - "$dir/dockerfilelint.json" "$df" <<'EOF' || status=1
import json, re, sys
try:
    with open(sys.argv[1]) as f:
        report = json.load(f)
except ValueError:
    with open(sys.argv[1]) as f:
        print(f.read())
    sys.exit(1)
OPTS = {"--interval", "--timeout", "--start-period", "--start-interval", "--retries"}
def false_positive(i):
    c = i.get("content", "")
    if not c.startswith("HEALTHCHECK") or i.get("title") != "Invalid Argument Format":
        return False
    opts = re.findall(r"(--[\w-]+)=\S+", c.split(" CMD", 1)[0])
    return bool(opts) and set(opts) <= OPTS
left = [i for f in report["files"] for i in f["issues"] if not false_positive(i)]
for i in left:
    print("docker/%s:%s: %s: %s (%s)" % (sys.argv[2], i["line"], i["category"],
                                         i["title"], i["content"]))
sys.exit(1 if left else 0)
EOF
done
exit "$status"
