#!/bin/sh
# scripts/vendor_web.sh NPMDIR [check] - the charting library of the
# dashboard (web/), Apache ECharts, at the pinned version below.
#
# The library is committed under web/vendor/ (echarts.min.js, its LICENSE
# and NOTICE) so that a fresh clone builds and passes `make test` with no
# node, npm or network: hpod embeds web/ into its binary at build time
# (scripts/embed_web.sh) and labs are often offline. This script is how the
# committed copy is made and checked, from the npm registry:
#   scripts/vendor_web.sh NPMDIR         fetch echarts@VERSION with `npm pack`
#                                        under NPMDIR and copy its files to
#                                        web/vendor/ (`make web-vendor`)
#   scripts/vendor_web.sh NPMDIR check   compare web/vendor/ with the
#                                        committed SHA-256 below, then (npm
#                                        reachable) with the package itself
#                                        (`make lint`)
# To upgrade: change VERSION, run `make web-vendor`, put the new SHA-256
# below, look at the dashboard, commit.
# When npm or the registry cannot be reached it says so on one line and
# exits 0 (the committed copy is still checked against its SHA-256).
set -u
VERSION=5.6.0
SHA256=bf4a223524e40b77c304bec67e1222cf551f14880cf42c69dc046558e11c07b1
dir=${1:?usage: scripts/vendor_web.sh NPMDIR [check]}
mode=${2:-fetch}
root=$(cd "$(dirname "$0")/.." && pwd)
vendor="$root/web/vendor"

if [ "$mode" = check ]; then
    got=$(sha256sum "$vendor/echarts.min.js" | cut -d' ' -f1)
    if [ "$got" != "$SHA256" ]; then
        echo "lint: web/vendor/echarts.min.js is not echarts $VERSION (sha256 $got)" >&2
        exit 1
    fi
    grep -q 'Apache License' "$vendor/echarts-LICENSE.txt" || {
        echo "lint: web/vendor/echarts-LICENSE.txt is missing" >&2
        exit 1
    }
    echo "lint: web/vendor/echarts.min.js is echarts $VERSION"
fi

skip() {
    echo "web-vendor: skipped npm pack echarts@$VERSION: $*"
    exit 0
}

command -v npm >/dev/null 2>&1 || skip "npm is not installed"
mkdir -p "$dir"
log="$dir/pack.log"
rm -rf "$dir/package" "$dir"/echarts-*.tgz
if ! (cd "$dir" && npm pack --silent "echarts@$VERSION") >"$log" 2>&1; then
    why=$(grep -m1 -E 'npm (error|ERR!) (code|FetchError|network)' "$log")
    skip "npm pack failed (${why:-see $log})"
fi
tar -xzf "$dir/echarts-$VERSION.tgz" -C "$dir" package/dist/echarts.min.js \
    package/LICENSE package/NOTICE || exit 1
got=$(sha256sum "$dir/package/dist/echarts.min.js" | cut -d' ' -f1)
if [ "$got" != "$SHA256" ]; then
    echo "web-vendor: echarts@$VERSION from npm has sha256 $got, not $SHA256" >&2
    exit 1
fi
if [ "$mode" = check ]; then
    if ! cmp -s "$dir/package/LICENSE" "$vendor/echarts-LICENSE.txt" ||
        ! cmp -s "$dir/package/NOTICE" "$vendor/echarts-NOTICE.txt"; then
        echo "lint: web/vendor/ licence files differ from echarts@$VERSION" >&2
        exit 1
    fi
    echo "lint: web/vendor/ matches echarts@$VERSION from npm"
    exit 0
fi
mkdir -p "$vendor"
cp "$dir/package/dist/echarts.min.js" "$vendor/echarts.min.js"
cp "$dir/package/LICENSE" "$vendor/echarts-LICENSE.txt"
cp "$dir/package/NOTICE" "$vendor/echarts-NOTICE.txt"
echo "web-vendor: web/vendor/ holds echarts $VERSION"
