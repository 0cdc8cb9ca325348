"""torch's neural-network functions at the top level (torch.conv1d, torch.layer_norm,
torch.log_softmax, torch.pixel_shuffle, ...): jitgrad.<name> is recorded with the cases and
references of jitgrad.nn.functional.<name>'s records (nn_functional_ops.py), and compared with
torch.<name> where torch has it."""
import dataclasses

import jitgrad as jg
from tests.support.torch_names import TORCH_FUNCTIONS
from . import nn_functional_ops
from .torch_records import FUNCTION_RECORDS

# top-level names whose torch function takes other arguments than torch.nn.functional's
_OWNER_DIFFERS = {"dropout", "alpha_dropout", "feature_alpha_dropout", "bilinear"}


def _top_level(rec):
    name = rec.name.split("[")[0].split("(")[0]
    if not hasattr(jg, name) or rec.owner != "torch":
        return None
    owner = f"torch.{name}" if name in TORCH_FUNCTIONS and name not in _OWNER_DIFFERS else None
    return dataclasses.replace(rec, fn=getattr(jg, name), owner_path=owner, fuzz=None)


_RECORDED = {r.name for r in FUNCTION_RECORDS}
FUNCTION_RECORDS.extend(r for r in map(_top_level, nn_functional_ops.RECORDS)
                        if r is not None and r.name.split("(")[0] not in _RECORDED)
