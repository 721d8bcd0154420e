# shellcheck shell=sh
# scripts/simcgroup.sh - sourced by scripts/run.sh and tests/bench/run.sh:
# an idle cpu cgroup for the simulation workers of the `hpod serve` they
# start (HPOD_SIM_CGROUP; docs/configuration.md, docs/model-latency.md).
# hpod itself never creates or removes a cgroup.
#
# sim_cgroup_make: when HPOD_SIM_CGROUP is already set, uses it as given.
# Otherwise, when /sys/fs/cgroup/cpu is a writable cgroup v1 cpu hierarchy
# with cpu.idle (Linux 5.15 or later, usually as root), makes
# hpod-sims.PID there with cpu.idle=1 and exports HPOD_SIM_CGROUP; else
# the simulations run under SCHED_IDLE alone. Prints which, on stdout.
# sim_cgroup_remove: removes the cgroup sim_cgroup_make made; call it
# after every server using it has exited (rmdir fails while a thread is
# in it).

sim_cgroup="" # the cgroup sim_cgroup_make made

sim_cgroup_make() {
    if [ -n "${HPOD_SIM_CGROUP:-}" ]; then
        echo "simulations: cpu cgroup $HPOD_SIM_CGROUP (HPOD_SIM_CGROUP as given)"
        return 0
    fi
    base=/sys/fs/cgroup/cpu
    d="$base/hpod-sims.$$"
    if [ -w "$base" ] && [ -f "$base/cpu.idle" ] && mkdir "$d" 2>/dev/null; then
        if (echo 1 >"$d/cpu.idle") 2>/dev/null; then
            sim_cgroup=$d
            HPOD_SIM_CGROUP=$d
            export HPOD_SIM_CGROUP
            echo "simulations: in the idle cpu cgroup $d (cpu.idle=1)"
            return 0
        fi
        rmdir "$d" 2>/dev/null || true
    fi
    echo "simulations: no idle cpu cgroup ($base is not a writable cgroup v1" \
        "cpu hierarchy with cpu.idle); they run under SCHED_IDLE alone"
}

sim_cgroup_remove() {
    [ -n "$sim_cgroup" ] || return 0
    rmdir "$sim_cgroup" 2>/dev/null ||
        echo "could not remove the cpu cgroup $sim_cgroup" >&2
    sim_cgroup=""
}
