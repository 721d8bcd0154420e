"""hpod - Python client for hpod, a hyperparameter-optimization service.

Low level: HpodClient, one method per endpoint (hpod.client). High level:
create_study / load_study return a Study whose optimize(fn) runs an
Optuna-like worker loop (hpod.study). Standard library only.

Configuration: $HPOD_URL (default http://127.0.0.1:8080) and $HPOD_TOKEN
(sent as a Bearer token), both overridable by arguments.
"""

from .client import DEFAULT_URL, HpodClient, HpodError
from .study import OptimizeSummary, Study, Trial, TrialPruned, create_study, load_study

__version__ = "0.1.0"

__all__ = ["DEFAULT_URL", "HpodClient", "HpodError", "OptimizeSummary", "Study", "Trial",
           "TrialPruned", "__version__", "create_study", "load_study"]
