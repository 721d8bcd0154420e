#!/bin/sh
# scripts/lint_deploy.sh NPMDIR - lints the Kubernetes manifests of
# deploy/ (docs/DEPLOY.md) with scripts/lint_deploy.mjs: each object
# against the Kubernetes API schemas of kubernetes-models (npm: validators
# generated from the Kubernetes OpenAPI schemas), and what hpod needs of
# them (probes on /healthz, the Job and worker commands, known HPOD_*
# variables). kubernetes-models and yaml are installed with npm, at the
# pinned versions below, under NPMDIR. When npm or the registry cannot be
# reached it says so on one line,
#   lint: skipped deploy/ schemas: <reason>
# and exits 0, as scripts/lint_docker.sh does. Exits non-zero on a finding.
set -u
MODELS_VERSION=5.1.0
YAML_VERSION=2.9.1
dir=${1:?usage: scripts/lint_deploy.sh NPMDIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)

installed() { # package -> its version under $dir, or nothing
    f="$dir/node_modules/$1/package.json"
    [ -f "$f" ] && sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$f" | head -1
}

npm_tools() {
    if [ "$(installed kubernetes-models)" = "$MODELS_VERSION" ] &&
        [ "$(installed yaml)" = "$YAML_VERSION" ]; then
        return 0
    fi
    command -v npm >/dev/null 2>&1 || { echo "npm is not installed"; return 1; }
    command -v node >/dev/null 2>&1 || { echo "node is not installed"; return 1; }
    mkdir -p "$dir"
    log="$dir/install.log"
    if ! npm install --prefix "$dir" --no-audit --no-fund --no-save \
        --loglevel=error "kubernetes-models@$MODELS_VERSION" \
        "yaml@$YAML_VERSION" >"$log" 2>&1; then
        why=$(grep -m1 -E 'npm (error|ERR!) (code|FetchError|network)' "$log")
        echo "npm install failed (${why:-see $log}; full log in $log)"
        return 1
    fi
}

if ! why=$(npm_tools); then
    echo "lint: skipped deploy/ schemas: $why"
    exit 0
fi
echo "lint: deploy/ against the Kubernetes schemas (kubernetes-models $MODELS_VERSION)"
NODE_PATH="$dir/node_modules" node "$root/scripts/lint_deploy.mjs" "$root/deploy"
