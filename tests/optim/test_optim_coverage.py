"""Every public name of torch 2.13's torch.optim, torch.optim.lr_scheduler, torch.optim.swa_utils
and the torch.nn.utils functions issue 49 covers exists in jitgrad, or is excluded with a reason.
The lists are checked in (CI has no torch); test_lists_match_torch checks them where torch is."""
import pytest

import jitgrad.nn.utils
from jitgrad import optim
from jitgrad.optim import lr_scheduler, swa_utils

# torch.optim.__all__ (torch 2.13)
TORCH_OPTIM = ["Adafactor", "Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD", "LBFGS",
               "lr_scheduler", "Muon", "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD",
               "SparseAdam", "swap_in_optimizer_params_and_state", "swa_utils"]
# torch.optim.lr_scheduler.__all__, plus _LRScheduler (its old name, still exported)
TORCH_LR_SCHEDULER = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR",
                      "LinearLR", "ExponentialLR", "SequentialLR", "CosineAnnealingLR",
                      "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR",
                      "CosineAnnealingWarmRestarts", "OneCycleLR", "PolynomialLR", "LRScheduler",
                      "_LRScheduler"]
# torch.optim.swa_utils.__all__
TORCH_SWA = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
             "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]
# torch.nn.utils: the gradient clipping and parameter/vector functions
TORCH_NN_UTILS = ["clip_grad_norm", "clip_grad_norm_", "clip_grads_with_norm_",
                  "clip_grad_value_", "get_total_norm", "parameters_to_vector",
                  "vector_to_parameters"]

EXCLUDED = {
    "SparseAdam": "updates only the entries present in sparse gradients; jitgrad has no sparse "
                  "tensors (an Embedding's gradient is dense: use Adam)",
    "swap_in_optimizer_params_and_state": "swaps FakeTensor parameters and state into an "
                                          "optimizer to trace its step with torch.fx/make_fx; "
                                          "jitgrad traces steps with jit, and its optimizers "
                                          "replace state tensors rather than edit them in place",
}


@pytest.mark.parametrize("module,names", [(optim, TORCH_OPTIM),
                                          (lr_scheduler, TORCH_LR_SCHEDULER),
                                          (swa_utils, TORCH_SWA),
                                          (jitgrad.nn.utils, TORCH_NN_UTILS)],
                         ids=["optim", "lr_scheduler", "swa_utils", "nn.utils"])
def test_every_torch_name_is_present_or_excluded(module, names):
    missing = [n for n in names if not hasattr(module, n) and n not in EXCLUDED]
    assert not missing, f"{module.__name__} lacks {missing}"
    stale = [n for n in names if hasattr(module, n) and n in EXCLUDED]
    assert not stale, f"{stale} are present: drop their exclusions"


def test_optimizers_subclass_optimizer():
    for name in TORCH_OPTIM:
        obj = getattr(optim, name, None)
        if isinstance(obj, type) and name != "Optimizer":
            assert issubclass(obj, optim.Optimizer), name


def test_lists_match_torch():
    torch = pytest.importorskip("torch")
    import torch.optim.lr_scheduler
    import torch.optim.swa_utils
    assert sorted(torch.optim.__all__) == sorted(TORCH_OPTIM)
    assert sorted(torch.optim.lr_scheduler.__all__) == sorted(TORCH_LR_SCHEDULER[:-1])
    assert sorted(torch.optim.swa_utils.__all__) == sorted(TORCH_SWA)
    assert all(hasattr(torch.nn.utils, n) for n in TORCH_NN_UTILS)
