#!/bin/sh
# scripts/lint_spec.sh NPMDIR - lints openapi/openapi.json with two strict
# tools: `redocly lint` (recommended ruleset, openapi/redocly.yaml) and
# `swagger-cli validate`. Both are installed with npm, at the pinned
# versions below, under NPMDIR (a directory of the build tree) when missing
# there. Exits non-zero when either tool finds an error. When npm or the
# registry cannot be reached it says so on one line,
#   lint: skipped redocly/swagger-cli: <reason>
# and exits 0: the rest of `make lint` still runs, and the skip is visible.
set -u
REDOCLY_VERSION=2.77.0
SWAGGER_CLI_VERSION=4.0.4
dir=${1:?usage: scripts/lint_spec.sh NPMDIR}
root=$(cd "$(dirname "$0")/.." && pwd)
spec="$root/openapi/openapi.json"

skip() {
    echo "lint: skipped redocly/swagger-cli: $*"
    exit 0
}

installed() { # package -> its version under $dir, or nothing
    f="$dir/node_modules/$1/package.json"
    [ -f "$f" ] && sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$f" | head -1
}

if [ "$(installed @redocly/cli)" != "$REDOCLY_VERSION" ] ||
    [ "$(installed @apidevtools/swagger-cli)" != "$SWAGGER_CLI_VERSION" ]; then
    sh "$root/scripts/deps.sh" lint >/dev/null 2>&1 ||
        echo "lint: could not install nodejs/npm with apt-get" >&2
    command -v npm >/dev/null 2>&1 || skip "npm is not installed"
    command -v node >/dev/null 2>&1 || skip "node is not installed"
    mkdir -p "$dir"
    log="$dir/install.log"
    if ! npm install --prefix "$dir" --no-audit --no-fund --no-save \
        --loglevel=error "@redocly/cli@$REDOCLY_VERSION" \
        "@apidevtools/swagger-cli@$SWAGGER_CLI_VERSION" >"$log" 2>&1; then
        why=$(grep -m1 -E 'npm (error|ERR!) (code|FetchError|network)' "$log")
        skip "npm install failed (${why:-see $log}; full log in $log)"
    fi
fi

# Redocly writes its findings and summary to stderr, after a banner about
# Node.js versions (a box drawn with U+2550-2566): keep all but the box.
# No usage telemetry and no update check: lint must not phone home.
status=0
echo "lint: redocly lint $REDOCLY_VERSION (recommended ruleset)"
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
    "$dir/node_modules/.bin/redocly" lint --config "$root/openapi/redocly.yaml" \
    --format=stylish "$spec" >"$dir/redocly.out" 2>&1 || status=1
grep -v '[║╔╚]' "$dir/redocly.out" | grep -v '^[[:space:]]*$'
echo "lint: swagger-cli validate $SWAGGER_CLI_VERSION"
"$dir/node_modules/.bin/swagger-cli" validate "$spec" || status=1
exit "$status"
