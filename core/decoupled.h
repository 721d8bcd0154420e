/*
 * core/decoupled.h - decoupled constraint measurements (PESC-like): which
 * metrics to measure at the configuration that constrained EI chose. Its
 * seeded replay on a lookup table, which only hpod-bench runs, is
 * tools/decoupled_run.h.
 *
 * A decoupled constraint (Hernandez-Lobato et al. 2016; Beck et al.
 * 2016) can be measured apart from the objective and for less: the speed
 * of a translation model is known after a few hundred batches, its BLEU
 * after a full training, which also yields the speed. So a trial either
 * probes its decoupled constraints (cost C = Σ their costs, in units of a
 * full training) or trains (cost 1, every metric).
 *
 * The choice (decoupled_probe_first) is a one-step, cost-aware lookahead
 * on the chosen point x, a cheap stand-in for PESC's entropy search over
 * the constrained optimum. Let g = EI(x)·P(x) be the expected
 * constrained improvement of training x (P the probability that every
 * constraint holds), and q the probability that the decoupled ones hold.
 *   - train now, cost 1: gain g, plus, when x turns out infeasible
 *     (probability 1 - q), an objective observation next to the boundary
 *     that a probe would not have made; it is valued at g too (what the
 *     step was chosen for; the simplest proxy for PESC's information
 *     about the optimum): g·(2 - q);
 *   - probe, then train only if the probe passes: gain g (both policies
 *     train in that branch), expected cost C + q.
 * Probing first has the larger gain per unit cost iff (C + q)(2 - q) < 1:
 * where the constraint is likely violated, the more so the cheaper the
 * probe (C = 0.1: q below about 0.62). Without the objective
 * observation's value the rule is C + q < 1, which probed up to q = 0.9
 * and lost on the tables (docs/constraints.md). After a passing
 * probe the point's P rises to about 1 while the objective model saw
 * nothing new, so its constrained EI only grows: it is trained next,
 * without choosing again (the lifecycle of docs/ARCHITECTURE.md,
 * "Decoupled constraints").
 *
 * Pure numerics: no I/O, no globals.
 */
#ifndef HPOD_DECOUPLED_H
#define HPOD_DECOUPLED_H

#include <stddef.h>

/*
 * decoupled_probe_first - 1 if the decoupled constraints (probability
 * q in [0, 1] that they all hold at the point, total probe cost in
 * (0, 1]) should be measured before the objective: (cost + q)(2 - q) <
 * 1. NaN q (no model yet) counts as 1/2. 0 for a cost outside (0, 1].
 */
int decoupled_probe_first(double q, double cost);

#endif
