/*
 * server/bench_cli.h - `hpod bench`: regenerates Table 3 of Zhang & Duh
 * (TACL 2020) on the NMT lookup tables and writes docs/benchmarks.md.
 *
 * The simulation itself is core/simulate.c; the tables come from
 * bench/tables.c; this file parses the options, spreads the
 * seeded runs over threads, times them and writes the markdown.
 */
#ifndef HPOD_BENCH_CLI_H
#define HPOD_BENCH_CLI_H

/*
 * bench_cli_main - the body of `hpod bench`. argv[0] is the subcommand
 * ("bench"; a leading "hpod" argv[0] followed by "bench" is skipped too),
 * then options:
 *   --tables zh-en,ja-en,...  tables (default: all six, paper order)
 *   --methods rs,greedy,...   rs greedy bo_ei_m bo_ei_r gb_ei_m gb_ei_r
 *                             gb_eif_m gb_eif_r, or all (default)
 *   --repeats N               runs per table and method (default 100)
 *   --seed S                  first seed; runs use S..S+N-1 (default 0)
 *   --init K                  random initial rows (default 3)
 *   --threads T               worker threads (default 2)
 *   --out PATH                markdown file (default docs/benchmarks.md;
 *                             "-" writes none)
 *   --dir DIR                 benchmarks directory (default
 *                             benchmarks_dir, i.e. HPOD_BENCHMARKS)
 *   --sh                      instead of Table 3: successive halving on the
 *                             learning curves (dissertation Table 6.1,
 *                             core/sh.c), p in {2,4}, c in {5,10}; its
 *                             section replaces its own marked block in
 *                             --out (or is appended), so run it after
 *                             Table 3, which rewrites the file whole
 *   --configs N               SH: configurations per run (default 40)
 *   --asha                    ASHA on the curves (core/asha_sim.h), like --sh
 *   --multistage              multi-stage BO (core/mstage_sim.h) beside ASHA
 *                             on the same draws, like --asha
 *   --mo                      instead of Table 3: Table 4 (multi-objective,
 *                             EHVI with GP and graph surrogates against
 *                             random search) and constrained runs; at most
 *                             10 runs on sw-en and so-en (their EHVI fits at
 *                             200-700 observations cost seconds per run);
 *                             replaces its own marked block in --out
 * docs/benchmarks.md is made by: hpod bench; hpod bench --sh; hpod bench
 * --asha; hpod bench --mo --repeats 20 (Table 3 rewrites the file whole).
 * Progress goes to stderr, the markdown to stdout and to --out.
 * benchmarks_dir is borrowed. Returns the process exit code: 0 on
 * success, 2 on a usage error, 1 on any other failure.
 */
int bench_cli_main(int argc, char **argv, const char *benchmarks_dir);

#endif
