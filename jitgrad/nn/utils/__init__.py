"""jitgrad.nn.utils: torch.nn.utils' gradient clipping and parameter/vector conversion.

    loss.backward()
    jg.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    opt.step()
"""
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_,  # noqa: F401
                        clip_grads_with_norm_, get_total_norm)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from . import rnn  # noqa: F401,E402  (torch.nn.utils.rnn: PackedSequence, pad_sequence, ...)
