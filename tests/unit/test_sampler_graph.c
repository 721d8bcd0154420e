/*
 * tests/unit/test_sampler_graph.c - the graph sampler
 * (core/sampler_graph.h): rank invariance of graph EI.
 */
#include "tests/support/sampler_grid.h"

#include "core/acquisition.h"
#include "core/graph.h"
#include "core/kernels.h"
#include "core/sampler_graph.h"

static void
test_graph_ei_rank_invariant(void **state)
{
    (void)state;
    check_rank_invariant(SAMPLER_GRAPH, KERNEL_RBF);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph_ei_rank_invariant),
    };
    return cmocka_run_group_tests_name("sampler_graph", tests, setup, teardown);
}
