/*
 * core/decoupled.c - which metrics a decoupled study measures next;
 * the contract and the argument in core/decoupled.h.
 */
#include "core/decoupled.h"

#include <math.h>

int
decoupled_probe_first(double q, double cost)
{
    if (!(cost > 0 && cost <= 1))
        return 0;
    if (isnan(q))
        q = 0.5;
    q = q < 0 ? 0 : q > 1 ? 1 : q;
    return (cost + q) * (2 - q) < 1;
}
