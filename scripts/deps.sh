#!/bin/sh
# scripts/deps.sh - install the Debian packages hpod needs to build, run and
# test, if any is missing. Idempotent: does nothing when all are present.
# Runs apt-get as root (or through sudo when not root).
#   scripts/deps.sh        what build, run and test need
#   scripts/deps.sh test   also Debian's chromium, the headless browser of
#                          the dashboard's test (tests/api/browser.py
#                          drives it over the DevTools protocol on a pipe:
#                          no driver, no Python package), and pgbouncer,
#                          the pooler the API tests put in front of their
#                          cluster (scripts/pgbouncer.sh), and haproxy, the
#                          balancer of make test-netns, tmux, the
#                          pseudo-terminal of hpod watch's test, and
#                          prometheus for promtool, which checks a scrape
#                          of /metrics (make test)
#   scripts/deps.sh lint   also clang-format, shellcheck, and nodejs and
#                          npm for the spec and docker linters of `make
#                          lint` unless an npm is already on PATH (e.g.
#                          from a nodejs package that bundles it)
#   scripts/deps.sh bench  also the peer of `make bench`: Debian's Optuna
#                          with SQLAlchemy and psycopg2 for its RDB storage
#                          on the benchmark's PostgreSQL, and scikit-learn
#                          for Optuna's fANOVA importance evaluator (random
#                          forests; tests/bench/importance_fanova.py), and
#                          python3-cmaes for Optuna's CMA-ES (the peers of
#                          make bench-suite), PyTorch for the trainer of
#                          make example-torch (clients/python/examples, with
#                          scikit-learn's digits) (make test never installs
#                          these)
#   scripts/deps.sh build-list  installs nothing: prints the packages that
#                          building hpod alone (`make hpod`) needs, which
#                          docker/Dockerfile's build stage must install too
#                          (scripts/docker_stage.py checks it)
set -eu

PKGS="build-essential pkg-config make
libmicrohttpd-dev libjansson-dev libpq-dev libutf8proc-dev libyaml-dev
libopenblas-dev liblapacke-dev libnlopt-dev
libcmocka-dev libcurl4-openssl-dev curl
postgresql postgresql-contrib python3 util-linux
python3-venv python3-pip python3-setuptools python3-wheel python3-mypy"

# The -dev packages of PKGS that only the unit tests and benches link;
# every other one (and the compilers) is needed to build hpod itself.
TEST_ONLY_DEV="libcmocka-dev libcurl4-openssl-dev"
if [ "${1:-}" = build-list ]; then
    for p in $PKGS; do
        case " $TEST_ONLY_DEV " in *" $p "*) continue ;; esac
        case "$p" in build-essential | pkg-config | make | *-dev) echo "$p" ;; esac
    done
    exit 0
fi

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing="$missing $p"
    fi
done
if [ "${1:-}" = lint ]; then
    for p in clang-format shellcheck; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
            missing="$missing $p"
        fi
    done
    if ! command -v npm >/dev/null 2>&1; then
        missing="$missing nodejs npm"
    fi
fi
if [ "${1:-}" = test ]; then
    for p in chromium fonts-dejavu-core pgbouncer haproxy tmux prometheus; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
            missing="$missing $p"
        fi
    done
fi
if [ "${1:-}" = bench ]; then
    for p in python3-optuna python3-sqlalchemy python3-psycopg2 python3-sklearn \
        python3-cmaes python3-torch; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
            missing="$missing $p"
        fi
    done
fi
[ -z "$missing" ] && exit 0

echo "deps: installing:$missing" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >&2
