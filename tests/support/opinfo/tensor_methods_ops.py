"""jg.Tensor's methods (torch.Tensor owns the names: x.size(), x.view, x.std unbiased, x.max(dim)
-> (values, indices), x.add_(y, alpha=) in place, ...). The records are built with the
functions' in the torch_*_ops.py modules (torch_records.py): one spec, both forms."""
from . import torch_ops  # noqa: F401  (builds the records of both tables)
from .torch_records import METHOD_RECORDS as RECORDS

__all__ = ["RECORDS"]
