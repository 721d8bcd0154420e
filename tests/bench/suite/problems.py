"""tests/bench/suite/problems.py - the problems of the development suite
(docs/suite.md), defined in code (no stored data), Python standard library
only:

- FUNCTIONS: the six classic test functions, minimized (docs/suite.md
  lists domains and minima), and their variants: "cont" (every dimension a
  float), "mixed" (the first half of the dimensions integers) and "cat" (a
  categorical `shift` that moves the function and adds an offset; choice
  "a" is the function itself, so the minimum is unchanged);
- generated lookup tables with the shapes real grids have (log-scale
  parameters, a categorical, plateaus, one isolated spike);
- CONDITIONAL: two define-by-run problems (an optimizer choice with
  branch-specific parameters, a depth that switches on per-layer widths),
  with an hpod space that says the same with `condition`.

A problem is a space (hpod's JSON space entries) and a function of a
params dict (what a suggest answers) to the value to minimize.
"""
import math
import random

# ---- the six functions (minimized) ----

_H6_A = [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14],
         [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]]
_H6_P = [[0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886],
         [0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991],
         [0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650],
         [0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381]]
_H6_ALPHA = [1.0, 1.2, 3.0, 3.2]


def branin(x):
    a, b, c = 1.0, 5.1 / (4 * math.pi ** 2), 5 / math.pi
    r, s, t = 6.0, 10.0, 1 / (8 * math.pi)
    return (a * (x[1] - b * x[0] ** 2 + c * x[0] - r) ** 2
            + s * (1 - t) * math.cos(x[0]) + s)


def hartmann6(x):
    return -sum(al * math.exp(-sum(a * (xi - p) ** 2
                                   for a, xi, p in zip(ar, x, pr)))
                for al, ar, pr in zip(_H6_ALPHA, _H6_A, _H6_P))


def ackley(x):
    d = len(x)
    s1 = sum(v * v for v in x) / d
    s2 = sum(math.cos(2 * math.pi * v) for v in x) / d
    return -20 * math.exp(-0.2 * math.sqrt(s1)) - math.exp(s2) + 20 + math.e


def levy(x):
    w = [1 + (v - 1) / 4 for v in x]
    s = math.sin(math.pi * w[0]) ** 2
    for v in w[:-1]:
        s += (v - 1) ** 2 * (1 + 10 * math.sin(math.pi * v + 1) ** 2)
    return s + (w[-1] - 1) ** 2 * (1 + math.sin(2 * math.pi * w[-1]) ** 2)


def rosenbrock(x):
    return sum(100 * (x[i + 1] - x[i] ** 2) ** 2 + (x[i] - 1) ** 2
               for i in range(len(x) - 1))


def styblinski_tang(x):
    return 0.5 * sum(v ** 4 - 16 * v * v + 5 * v for v in x)


# name: (function, dimension, (low, high) per dimension, minimum)
FUNCTIONS = {
    "branin": (branin, 2, [(-5.0, 10.0), (0.0, 15.0)], 0.397887357729738),
    "hartmann6": (hartmann6, 6, [(0.0, 1.0)] * 6, -3.32236801141551),
    "ackley5": (ackley, 5, [(-32.768, 32.768)] * 5, 0.0),
    "levy4": (levy, 4, [(-10.0, 10.0)] * 4, 0.0),
    "rosenbrock4": (rosenbrock, 4, [(-5.0, 10.0)] * 4, 0.0),
    "styblinski_tang4": (styblinski_tang, 4, [(-5.0, 5.0)] * 4,
                         -39.166165703771412 * 4),
}
VARIANTS = ["cont", "mixed", "cat"]
# The categorical variant: choice -> (shift of every coordinate as a share
# of its range, offset as a share of the function's spread).
CAT_SHIFT = {"a": (0.0, 0.0), "b": (0.1, 0.05), "c": (-0.15, 0.2)}
INT_STEPS = 10  # an integer dimension on a range narrower than this: k/10


def _spread(name):
    """The median of f - min over 256 seeded uniform points: the unit of
    the categorical variant's offsets."""
    f, d, bounds, fmin = FUNCTIONS[name]
    rng = random.Random(12345)
    v = sorted(f([rng.uniform(lo, hi) for lo, hi in bounds]) - fmin
               for _ in range(256))
    return v[len(v) // 2]


class Function:
    """One test problem: FUNCTIONS[name] in one of VARIANTS."""

    def __init__(self, name, variant):
        self.name, self.variant = name, variant
        self.f, self.dim, self.bounds, self.fmin = FUNCTIONS[name]
        self.n_int = self.dim // 2 if variant == "mixed" else 0
        self.spread = _spread(name) if variant == "cat" else 0.0
        self.key = "%s/%s" % (name, variant)

    def _int_grid(self, j):
        lo, hi = self.bounds[j]
        if hi - lo >= INT_STEPS:
            return math.ceil(lo), math.floor(hi), None
        return 0, INT_STEPS, (lo, hi)

    def space(self):
        sp = []
        for j in range(self.dim):
            lo, hi = self.bounds[j]
            if j < self.n_int:
                a, b, _ = self._int_grid(j)
                sp.append({"name": "x%d" % j, "type": "int", "low": a,
                           "high": b})
            else:
                sp.append({"name": "x%d" % j, "type": "float", "low": lo,
                           "high": hi})
        if self.variant == "cat":
            sp.append({"name": "shift", "type": "categorical",
                       "choices": sorted(CAT_SHIFT)})
        return sp

    def point(self, params):
        """The function's argument for a params dict."""
        x = []
        for j in range(self.dim):
            v = params["x%d" % j]
            if j < self.n_int:
                _, _, scaled = self._int_grid(j)
                if scaled:
                    v = scaled[0] + (scaled[1] - scaled[0]) * v / INT_STEPS
            x.append(float(v))
        return x

    def __call__(self, params):
        x = self.point(params)
        if self.variant != "cat":
            return self.f(x)
        sh, off = CAT_SHIFT[params["shift"]]
        y = [min(hi, max(lo, v - sh * (hi - lo)))
             for v, (lo, hi) in zip(x, self.bounds)]
        return self.f(y) + off * self.spread

    def regret(self, best):
        """log10 of the regret of the best value found (floored at 1e-10)."""
        return math.log10(max(best - self.fmin, 1e-10))


def all_functions(names=None, variants=None):
    return [Function(n, v) for v in (variants or VARIANTS)
            for n in (names or FUNCTIONS)]


# ---- generated lookup tables ----

GEN_PARAMS = [
    {"name": "lr", "type": "float", "log": True},
    {"name": "warmup", "type": "int", "log": True},
    {"name": "dropout", "type": "float"},
    {"name": "layers", "type": "int"},
    {"name": "arch", "type": "categorical"},
]
GEN_VALUES = {
    "lr": [10 ** (-4.5 + 0.25 * i) for i in range(9)],
    "warmup": [500, 1000, 2000, 4000, 8000, 16000],
    "dropout": [0.0, 0.1, 0.2, 0.3],
    "layers": [2, 4, 6, 8],
    "arch": ["cnn", "rnn", "transformer"],
}
# name -> (rows, generator seed): two below auto's 400-candidate line, two
# above, as the nmthpo tables are.
GEN_TABLES = {"gen-a": (120, 1), "gen-b": (240, 2), "gen-c": (480, 3),
              "gen-d": (640, 4)}


def generated_table(name):
    """The rows of a generated table: a random subset of the 2592-point grid
    (real grids are incomplete) scored by a BLEU-like function of seeded
    coefficients: per architecture a base and a best learning rate, above a
    divergence point a flat floor (a plateau), a warmup that must grow with
    the learning rate, dropout best at a depth-dependent value, depth that
    stops helping (a plateau), a little noise, values rounded to 0.01 (ties)
    and one isolated spike: a middling row raised to 0.8 below the best,
    its neighbours not."""
    n, seed = GEN_TABLES[name]
    rng = random.Random(seed)
    grid = [(lr, wu, dr, ly, ar) for lr in GEN_VALUES["lr"]
            for wu in GEN_VALUES["warmup"] for dr in GEN_VALUES["dropout"]
            for ly in GEN_VALUES["layers"] for ar in GEN_VALUES["arch"]]
    base = {a: rng.uniform(14, 22) for a in GEN_VALUES["arch"]}
    lr_opt = {a: rng.uniform(-4.0, -3.0) for a in GEN_VALUES["arch"]}
    lr_div = {a: lr_opt[a] + rng.uniform(0.5, 1.0) for a in GEN_VALUES["arch"]}
    curv = rng.uniform(3, 8)
    rows = []
    for lr, wu, dr, ly, ar in rng.sample(grid, n):
        llr = math.log10(lr)
        if llr > lr_div[ar]:
            bleu = 1.0  # diverged: every such run scores the same
        else:
            need_wu = 3.3 + (llr - lr_opt[ar]) * 0.8  # log10 warmup wanted
            bleu = (base[ar] - curv * (llr - lr_opt[ar]) ** 2
                    - 1.5 * (math.log10(wu) - need_wu) ** 2
                    - 20 * (dr - 0.05 * min(ly, 6) / 2) ** 2
                    + 3 * (1 - math.exp(-ly / 2.5))
                    + rng.gauss(0, 0.15))
            bleu = max(bleu, 1.0)
        rows.append({"lr": lr, "warmup": wu, "dropout": dr, "layers": ly,
                     "arch": ar, "bleu": round(bleu, 2)})
    # The spike: a row in the middle of the pack (the 40th-60th
    # percentile), raised to 0.8 below the best (outside ftc's 0.5): a
    # lucky run whose neighbours say nothing, which a model may chase.
    order = sorted(range(n), key=lambda i: rows[i]["bleu"])
    k = order[rng.randrange(int(0.4 * n), int(0.6 * n))]
    rows[k]["bleu"] = round(rows[order[-1]]["bleu"] - 0.8, 2)
    return rows


def gen_import_body(name):
    return {"name": "suite/" + name, "params": GEN_PARAMS,
            "metrics": ["bleu"], "rows": generated_table(name)}


def gen_encoding(rows):
    """Each row in hpod's encoding (docs/ARCHITECTURE.md, core/space): a
    numeric column scaled to [0,1] over its values (log scale for log
    parameters), the categorical kept as its string."""
    enc = []
    for p in GEN_PARAMS:
        vals = [r[p["name"]] for r in rows]
        if p["type"] == "categorical":
            enc.append(vals)
            continue
        if p.get("log"):
            vals = [math.log(v) for v in vals]
        lo, hi = min(vals), max(vals)
        enc.append([(v - lo) / (hi - lo) if hi > lo else 0.0 for v in vals])
    return [[c[i] for c in enc] for i in range(len(rows))]


# ---- conditional problems (define-by-run) ----

class Conditional:
    """A problem whose parameters depend on earlier ones. `suggest(ask)`
    asks its parameters through ask(name, entry) (entry: an hpod space entry
    without condition) in define-by-run order and returns the value to
    minimize; `space()` is the same problem as an hpod space with
    `condition`s."""

    def __init__(self, key, fmin):
        self.key, self.fmin = key, fmin

    def regret(self, best):
        return math.log10(max(best - self.fmin, 1e-10))


class OptimizerChoice(Conditional):
    """sgd (lr, momentum) or adam (lr, beta2, weight decay): a synthetic
    loss whose best is on the adam branch (0 at lr 10^-3, beta2 0.98,
    weight decay 10^-4); sgd's best is 0.3."""

    def __init__(self):
        super().__init__("optimizer_choice", 0.0)

    @staticmethod
    def entries():
        return [
            ({"name": "optimizer", "type": "categorical",
              "choices": ["sgd", "adam"]}, None),
            ({"name": "sgd_lr", "type": "float", "low": 1e-4, "high": 1.0,
              "log": True}, ("optimizer", ["sgd"])),
            ({"name": "momentum", "type": "float", "low": 0.0,
              "high": 0.99}, ("optimizer", ["sgd"])),
            ({"name": "adam_lr", "type": "float", "low": 1e-5, "high": 0.1,
              "log": True}, ("optimizer", ["adam"])),
            ({"name": "beta2", "type": "float", "low": 0.9, "high": 0.999},
             ("optimizer", ["adam"])),
            ({"name": "weight_decay", "type": "float", "low": 1e-6,
              "high": 1e-2, "log": True}, ("optimizer", ["adam"])),
        ]

    def evaluate(self, ask):
        e = dict((d["name"], d) for d, _ in self.entries())
        if ask("optimizer", e["optimizer"]) == "sgd":
            lr = math.log10(ask("sgd_lr", e["sgd_lr"]))
            mom = ask("momentum", e["momentum"])
            return 0.3 + 0.5 * (lr + 1.3) ** 2 + 2.0 * (mom - 0.9) ** 2
        lr = math.log10(ask("adam_lr", e["adam_lr"]))
        b2 = ask("beta2", e["beta2"])
        wd = math.log10(ask("weight_decay", e["weight_decay"]))
        return (0.6 * (lr + 3) ** 2 + 40 * (b2 - 0.98) ** 2
                + 0.1 * (wd + 4) ** 2)


class Depth(Conditional):
    """layers 1-4 (categorical, as a trainer's choice list) and a width per
    active layer (int, log, 16-512): best 0 at 3 layers of widths 256, 128,
    64; every missing or extra layer costs."""

    BEST = {1: 0.9, 2: 0.35, 3: 0.0, 4: 0.15}
    WANT = [256, 128, 64, 64]

    def __init__(self):
        super().__init__("depth_widths", 0.0)

    @staticmethod
    def entries():
        out = [({"name": "layers", "type": "categorical",
                 "choices": ["1", "2", "3", "4"]}, None)]
        for i in range(4):
            out.append(({"name": "width%d" % i, "type": "int", "low": 16,
                         "high": 512, "log": True},
                        ("layers", [str(k) for k in range(i + 1, 5)])
                        if i else None))
        return out

    def evaluate(self, ask):
        e = dict((d["name"], d) for d, _ in self.entries())
        n = int(ask("layers", e["layers"]))
        y = self.BEST[n]
        for i in range(n):
            w = ask("width%d" % i, e["width%d" % i])
            y += 0.4 * (math.log2(w) - math.log2(self.WANT[i])) ** 2 / (i + 1)
        return y


def conditional_space(problem):
    """problem's hpod space: each entry with its `condition`."""
    sp = []
    for d, cond in problem.entries():
        d = dict(d)
        if cond:
            d["condition"] = {"param": cond[0], "in": cond[1]}
        sp.append(d)
    return sp


CONDITIONALS = [OptimizerChoice(), Depth()]
