"""hpod - Python client for hpod, a hyperparameter-optimization service.

Low level: HpodClient, one method per endpoint (hpod.client). High level,
Optuna-style: create_study / load_study return a Study whose
optimize(objective) runs the worker loop (hpod.optimize); the objective
gets a Trial with suggest_float / suggest_int / suggest_categorical,
report(value, step, checkpoint) and should_prune (hpod.trial).
Standard library only.

Configuration: $HPOD_URL (default http://127.0.0.1:8080) and $HPOD_TOKEN
(sent as a Bearer token), both overridable by arguments.
"""

from .client import DEFAULT_URL, HpodClient, HpodError
from .optimize import OptimizeSummary
from .study import Study, StudyDone, create_study, load_study
from .trial import FrozenTrial, Trial, TrialDiverged, TrialPruned

__version__ = "0.2.0"

__all__ = ["DEFAULT_URL", "FrozenTrial", "HpodClient", "HpodError", "OptimizeSummary", "Study",
           "StudyDone", "Trial", "TrialDiverged", "TrialPruned", "__version__", "create_study",
           "load_study"]
