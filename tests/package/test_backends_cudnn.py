"""jitgrad.backends.cudnn (torch.backends.cudnn): jitgrad calls no cuDNN, so it answers as torch
does without it, and keeps the flags a program sets (`cudnn.benchmark = True` in pytorch/examples
dcgan) without selecting anything by them."""
import importlib

import jitgrad as jg


def test_reachable_as_torch_spells_it():
    cudnn = importlib.import_module("jitgrad.backends.cudnn")
    assert jg.backends.cudnn is cudnn
    assert cudnn.is_available() is False and cudnn.version() is None


def test_flags_keep_what_is_assigned():
    cudnn = jg.backends.cudnn
    saved = (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32)
    assert saved == (True, False, False, True)         # torch's defaults
    try:
        cudnn.benchmark, cudnn.deterministic = True, True
        assert (cudnn.benchmark, cudnn.deterministic) == (True, True)
    finally:
        cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32 = saved
