# Makefile - build, run and test hpod (one non-recursive Makefile).
#
#   make run             install missing packages, build, start the private
#                        PostgreSQL cluster, migrate, serve on 127.0.0.1:8080
#   make test            unit tests (ASan+UBSan) and API tests on a throwaway
#                        PostgreSQL cluster; last line "N passed, M failed, K skipped"
#   make bench           speed and benchmark figures (not part of tests)
#   make example-torch   the PyTorch trainer (clients/python/examples) with
#                        workers killed by SIGTERM and SIGKILL mid-trial
#   make bench-docs      rerun the papers' experiments with hpod-bench
#                        (tools/) and render docs/benchmarks.md from its
#                        JSON (tools/render_benchmarks.py); minutes
#   make bench-peers     Optuna's MOTPE, NSGA-II and TPE on the same tables
#                        and protocol (tests/bench/mo_peers.py) into
#                        docs/peers_mo.json, rendered beside hpod's rows;
#                        tens of minutes
#   make bench-suite     the development suite (tests/bench/suite): hpod
#                        beside Optuna's TPE, CMA-ES and random on the six
#                        tables, test functions, generated tables and
#                        conditional problems, and auto's leave-one-table-
#                        out figures, into build/suite and docs/suite.md;
#                        an hour or more
#   make                 release build -> build/release/hpod
#   make test-netns      replicas in network namespaces behind HAProxy, one
#                        killed mid-run (root; else skipped, saying why)
#   make test-valgrind   unit tests under valgrind (-O0, no sanitizers)
#   make lint fmt        layer check, clang-format, the OpenAPI spec
#                        through redocly and swagger-cli, and docker/
#                        through shellcheck, dclint and dockerfilelint
#                        (npm, pinned, installed under $(O)/npm and
#                        $(O)/npm-docker; skipped with a notice when npm
#                        or its registry is unreachable)
#   make fuzz            libFuzzer harnesses (clang) over the request parsers,
#                        FUZZ_SECONDS each (default 60), FUZZ_TARGETS (default
#                        all), FUZZ_JOBS parallel processes per target
#                        (default 1); new inputs go to build/fuzz/fuzz/corpus
#
# Variables: MODE=release|asan|debug|fuzz, O=build root (default build).

MODE    ?= release
O       ?= build
B       := $(O)/$(MODE)
PKGS    := jansson libpq libmicrohttpd nlopt lapacke libutf8proc yaml-0.1
PKGCFG  = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKGLIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CFLAGS  ?=
CFLAGS  += -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -g -MMD -MP -I. \
           -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes -Wpointer-arith -Wformat=2 -Wvla \
           $(PKGCFG)
LDLIBS  += $(PKGLIBS) -llapacke -lopenblas -lm -lpthread
TESTLIBS = -lcmocka

# MODE=fuzz builds only the libFuzzer harnesses (tests/fuzz/fuzz_*.c):
# objects instrumented for coverage (fuzzer-no-link) and checked by ASan
# and UBSan, libFuzzer's main linked into each harness.
ifeq ($(MODE),fuzz)
  CC      := clang
  CFLAGS  += -O1 -fno-omit-frame-pointer \
             -fsanitize=fuzzer-no-link,address,undefined \
             -fno-sanitize-recover=all
  FUZZ_LDFLAGS := -fsanitize=fuzzer,address,undefined
else ifeq ($(MODE),asan)
  CFLAGS  += -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
             -fno-sanitize-recover=all
  LDFLAGS += -fsanitize=address,undefined
else ifeq ($(MODE),debug)
  CFLAGS  += -O0
else
  CFLAGS  += -O2
endif

# The layers, lowest first (docs/ARCHITECTURE.md); make check-layers
# enforces which may include which. cli/ sits beside server/: the hpod
# program's main() and every subcommand but serve.
LAYERS    := common core store bench study handlers server cli
SRC_DIRS  := $(LAYERS) tools
# core/ and the parts of common/ it may use (not json.c, not log.c, not
# text.c, which links utf8proc).
CORE_SRC  := $(filter-out common/json.c common/log.c common/text.c,\
               $(wildcard common/*.c core/*.c))
APP_SRC   := $(filter-out cli/main.c,\
               common/json.c common/log.c common/text.c \
               $(wildcard store/*.c bench/*.c \
               study/*.c handlers/*.c server/*.c cli/*.c))
CORE_OBJ  := $(patsubst %.c,$(B)/%.o,$(CORE_SRC))
APP_OBJ   := $(patsubst %.c,$(B)/%.o,$(APP_SRC)) $(B)/server/openapi_blob.o \
             $(B)/server/web_blob.o
# The dashboard's files (web/, served at / and /web/<name>), in the order
# embedded; web/vendor/ is the pinned chart library (scripts/vendor_web.sh).
WEB_FILES := $(wildcard web/*.html web/*.js web/*.css web/*.svg \
               web/vendor/*.js web/vendor/*.txt)
ALL_OBJ   := $(CORE_OBJ) $(APP_OBJ)
# hpod-bench (tools/), the report generator: its own objects, bench/ as an
# archive (the linker takes only the members it calls: no store/ code),
# core/ and common/; no libpq or libmicrohttpd.
TOOLS_SRC := $(wildcard tools/*.c)
TOOLS_OBJ := $(patsubst %.c,$(B)/%.o,$(TOOLS_SRC))
BENCH_LIB := $(B)/bench/libbench.a
TOOLS_LIBS = $(shell pkg-config --libs jansson nlopt lapacke 2>/dev/null) \
             -llapacke -lopenblas -lm -lpthread

# A unit test named after a core or common module links those objects
# only, which keeps core/ testable without a database or network. One
# named after a tools/ module that no layer has (tools/mstage_sim.c)
# links that tools object and the core ones.
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
CORE_TEST_SRC := $(filter $(patsubst %.c,tests/unit/test_%.c,$(notdir $(CORE_SRC))),$(UNIT_SRC))
LAYER_NAMES := $(notdir $(basename $(wildcard $(addsuffix /*.c,$(LAYERS)))))
TOOLS_TEST_SRC := $(filter $(patsubst %,tests/unit/test_%.c,$(filter-out \
                    $(LAYER_NAMES),$(notdir $(basename $(TOOLS_SRC))))),$(UNIT_SRC))
APP_TEST_SRC  := $(filter-out $(CORE_TEST_SRC) $(TOOLS_TEST_SRC),$(UNIT_SRC))
CORE_TESTS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(CORE_TEST_SRC))
TOOLS_TESTS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(TOOLS_TEST_SRC))
APP_TESTS  := $(patsubst tests/unit/%.c,$(B)/tests/%,$(APP_TEST_SRC))
# Fuzz harnesses: MODE=fuzz links each with libFuzzer (B/fuzz/fuzz_T);
# every other mode links it with a main() that replays the repository
# corpus tests/fuzz/corpus/T once (B/tests/test_fuzz_T, run by make test).
FUZZ_SRC   := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(FUZZ_SRC))
FUZZERS    := $(patsubst %,$(B)/fuzz/fuzz_%,$(FUZZ_NAMES))
FUZZ_REPLAY := $(patsubst %,$(B)/tests/test_fuzz_%,$(FUZZ_NAMES))
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(FUZZ_NAMES)
FUZZ_JOBS    ?= 1
BENCH_SRC  := $(wildcard tests/bench/bench_*.c)
BENCHES    := $(patsubst tests/bench/%.c,$(B)/tests/%,$(BENCH_SRC))

.PHONY: all hpod hpod-bench unit benches test test-netns test-valgrind run bench \
        example-torch bench-docs deps lint fmt check-layers lint-spec lint-docker \
        lint-deploy clean fuzz fuzzers \
        web-vendor lint-web

all: hpod hpod-bench
hpod: $(B)/hpod
hpod-bench: $(B)/hpod-bench
unit: $(CORE_TESTS) $(TOOLS_TESTS) $(APP_TESTS) $(FUZZ_REPLAY)
fuzzers: $(FUZZERS)
benches: $(BENCHES)

$(B)/hpod: $(ALL_OBJ) $(B)/cli/main.o
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BENCH_LIB): $(patsubst %.c,$(B)/%.o,$(wildcard bench/*.c))
	rm -f $@
	$(AR) rcs $@ $^

$(B)/hpod-bench: $(TOOLS_OBJ) $(BENCH_LIB) $(CORE_OBJ) $(B)/common/json.o \
                 $(B)/common/log.o
	$(CC) $(LDFLAGS) -o $@ $^ $(TOOLS_LIBS)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# The OpenAPI spec is compiled into the binary so /openapi.json is always
# the spec the binary was built with.
$(B)/server/openapi_blob.c: openapi/openapi.json scripts/embed.sh
	@mkdir -p $(dir $@)
	sh scripts/embed.sh openapi/openapi.json hpod_openapi_json > $@

$(B)/server/openapi_blob.o: $(B)/server/openapi_blob.c
	$(CC) $(CFLAGS) -c -o $@ $<

# The dashboard (web/) is compiled in the same way: hpod serves the files
# it was built with, and a fresh clone needs no node or npm to build it.
$(B)/server/web_blob.c: $(WEB_FILES) scripts/embed_web.sh
	@mkdir -p $(dir $@)
	sh scripts/embed_web.sh $(WEB_FILES) > $@.tmp && mv $@.tmp $@

$(B)/server/web_blob.o: $(B)/server/web_blob.c
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/tests/test_%.o: tests/unit/test_%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(CORE_TESTS): $(B)/tests/%: $(B)/tests/%.o $(CORE_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(TESTLIBS) -llapacke -lopenblas \
	    $(shell pkg-config --libs nlopt) -lm -lpthread

$(TOOLS_TESTS): $(B)/tests/test_%: $(B)/tests/test_%.o $(B)/tools/%.o \
                $(CORE_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(TESTLIBS) -llapacke -lopenblas \
	    $(shell pkg-config --libs nlopt) -lm -lpthread

$(APP_TESTS): $(B)/tests/%: $(B)/tests/%.o $(ALL_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(TESTLIBS) $(LDLIBS)

$(B)/tests/fuzz/%.o: tests/fuzz/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(FUZZERS): $(B)/fuzz/fuzz_%: $(B)/tests/fuzz/fuzz_%.o $(B)/tests/fuzz/check.o \
           $(ALL_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(FUZZ_LDFLAGS) -o $@ $^ $(LDLIBS)

$(FUZZ_REPLAY): $(B)/tests/test_fuzz_%: $(B)/tests/fuzz/fuzz_%.o \
                $(B)/tests/fuzz/check.o $(B)/tests/fuzz/replay.o $(ALL_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/tests/bench_%.o: tests/bench/bench_%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BENCHES): $(B)/tests/%: $(B)/tests/%.o $(ALL_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(shell pkg-config --libs libcurl)

deps:
	@sh scripts/deps.sh

# make test: everything under ASan/UBSan; the release build too, since -O2
# sees warnings (-Werror) that -O1 does not, and make run needs it.
# tests/run.sh prints the final "N passed, M failed, K skipped" line.
test: deps
	@sh scripts/deps.sh test
	$(MAKE) --no-print-directory MODE=asan O=$(O) hpod hpod-bench unit
	$(MAKE) --no-print-directory MODE=release O=$(O) hpod hpod-bench
	python3 scripts/check_layers.py --objects $(O)/asan $(LAYERS) tools
	sh tests/run.sh $(O)/asan

# make test-netns: replicas in network namespaces of their own behind
# HAProxy, one killed mid-run (tests/netns/test_netns.py; root, ip netns
# and haproxy, else it prints why and counts a skip). Not in make test: it
# changes the machine's network configuration while it runs.
test-netns: deps
	@sh scripts/deps.sh test
	$(MAKE) --no-print-directory MODE=asan O=$(O) hpod
	OPENBLAS_NUM_THREADS=1 python3 tests/netns/test_netns.py --hpod $(O)/asan/hpod

test-valgrind: deps
	$(MAKE) --no-print-directory MODE=debug O=$(O) unit
	VALGRIND=1 sh tests/run.sh $(O)/debug unit

run: deps
	$(MAKE) --no-print-directory MODE=release O=$(O) hpod
	sh scripts/run.sh $(O)/release/hpod

# make bench also installs the peer (Optuna, scripts/deps.sh bench); make test
# does not.
bench: deps
	@sh scripts/deps.sh bench
	$(MAKE) --no-print-directory MODE=release O=$(O) hpod benches
	sh tests/bench/run.sh $(O)/release

# make example-torch: clients/python/examples/torch_digits.py (PyTorch,
# scripts/deps.sh bench) on three workers, one killed with SIGTERM and one
# with SIGKILL mid-trial, against a server of its own on a throwaway
# cluster (clients/python/examples/preempt_demo.py); minutes, not a test.
example-torch: deps
	@sh scripts/deps.sh bench
	$(MAKE) --no-print-directory MODE=release O=$(O) hpod
	sh tests/api/pg_tmp.sh $(O) /usr/bin/python3 clients/python/examples/preempt_demo.py \
	    --hpod $(O)/release/hpod

# make bench-docs: the five reports of hpod-bench (defaults: 100 seeded
# runs per cell, the benchmarks in $$HPOD_BENCHMARKS or ../shared/benchmarks;
# BENCH_DOCS_ARGS adds options to every report, e.g. --dir DIR), each as
# JSON under $(O)/bench-docs, then rendered into docs/benchmarks.md.
BENCH_DOCS_ARGS ?=
bench-docs: deps
	$(MAKE) --no-print-directory MODE=release O=$(O) hpod-bench
	@mkdir -p $(O)/bench-docs
	$(O)/release/hpod-bench $(BENCH_DOCS_ARGS) --out $(O)/bench-docs/table3.json
	$(O)/release/hpod-bench --sh $(BENCH_DOCS_ARGS) --out $(O)/bench-docs/sh.json
	$(O)/release/hpod-bench --asha $(BENCH_DOCS_ARGS) --out $(O)/bench-docs/asha.json
	$(O)/release/hpod-bench --multistage $(BENCH_DOCS_ARGS) \
	    --out $(O)/bench-docs/multistage.json
	$(O)/release/hpod-bench --mo $(BENCH_DOCS_ARGS) --out $(O)/bench-docs/mo.json
	python3 tools/render_benchmarks.py --out docs/benchmarks.md \
	    $(O)/bench-docs/table3.json $(O)/bench-docs/sh.json \
	    $(O)/bench-docs/asha.json $(O)/bench-docs/multistage.json \
	    $(O)/bench-docs/mo.json

# make bench-peers: the Optuna peers of Table 3 and Table 4 (Debian's
# python3-optuna, installed by scripts/deps.sh bench) under nice, written to
# docs/peers_mo.json for tools/render_benchmarks.py. PEERS_ARGS: runs per
# cell (--runs on the four small tables, --runs-big on sw-en and so-en, whose
# runs cost ~5-13 CPU s each), --jobs processes, --tables. Every run is kept
# in $(O)/peers_runs.jsonl: an interrupted bench-peers resumes where it was.
PEER_PYTHON ?= /usr/bin/python3
PEERS_ARGS ?= --runs 100 --runs-big 20 --jobs 2
.PHONY: bench-peers
bench-peers:
	@sh scripts/deps.sh bench
	@mkdir -p $(O)
	nice -n 10 $(PEER_PYTHON) tests/bench/mo_peers.py $(PEERS_ARGS) \
	    --runs-file $(O)/peers_runs.jsonl --out docs/peers_mo.json

# make bench-suite: the development suite (docs/suite.md) under nice, on a
# throwaway cluster and a release server (tests/bench/suite/run.sh). Runs
# are kept in $(O)/suite, so an interrupted suite resumes; SUITE_ARGS adds
# suite.py options (e.g. --runs 20 --seeds 3 while developing).
SUITE_ARGS ?=
.PHONY: bench-suite
bench-suite: deps
	@sh scripts/deps.sh bench
	$(MAKE) --no-print-directory MODE=release O=$(O) hpod hpod-bench
	nice -n 15 sh tests/bench/suite/run.sh $(O)/release --out $(O)/suite \
	    --docs docs/suite.md $(SUITE_ARGS)

# make fuzz: not part of make test (it runs for minutes); exits non-zero
# if any harness crashed, leaked or tripped a sanitizer.
fuzz: deps
	$(MAKE) --no-print-directory MODE=fuzz O=$(O) fuzzers
	sh tests/fuzz/run.sh $(O)/fuzz "$(FUZZ_SECONDS)" "$(FUZZ_JOBS)" \
	    $(FUZZ_TARGETS)

# Which layer may include which (project headers and libraries), no
# include cycle between modules, and the size limits of ARCHITECTURE.md.
check-layers:
	@python3 scripts/check_layers.py $(SRC_DIRS)

FMT_FILES = $(wildcard $(addsuffix /*.[ch],$(SRC_DIRS)) tests/unit/*.c \
              tests/fuzz/*.[ch] tests/bench/*.c)

lint: check-layers lint-spec lint-docker lint-web lint-deploy
	@sh scripts/deps.sh lint
	clang-format --dry-run --Werror $(FMT_FILES)

# Not a prerequisite of test: make test never needs node or npm.
lint-spec:
	@sh scripts/lint_spec.sh $(O)/npm

# web/: its scripts parse (node --check, when node is there), and the
# committed chart library web/vendor/ is echarts at the version
# pinned in scripts/vendor_web.sh (its SHA-256; and the npm package itself
# when npm reaches the registry). make web-vendor fetches it anew.
lint-web:
	@sh scripts/vendor_web.sh $(O)/npm-web check
	@if command -v node >/dev/null 2>&1; then \
	    for f in web/*.js; do node --check $$f || exit 1; done && \
	    echo "lint: node --check web/*.js"; \
	else echo "lint: skipped node --check web/*.js: node is not installed"; fi

web-vendor:
	@sh scripts/vendor_web.sh $(O)/npm-web

# docker/: shellcheck, dclint, dockerfilelint, COPY vs .dockerignore.
lint-docker:
	@sh scripts/lint_docker.sh $(O)/npm-docker

# deploy/: the Kubernetes manifests against the API schemas
# (kubernetes-models from npm, pinned) and hpod's own rules.
lint-deploy:
	@sh scripts/lint_deploy.sh $(O)/npm-deploy

fmt:
	clang-format -i $(FMT_FILES)

clean:
	rm -rf $(O)

-include $(shell find $(O) -name '*.d' 2>/dev/null)
