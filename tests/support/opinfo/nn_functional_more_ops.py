"""jitgrad.nn.functional's remaining records (issue 49): 3-d and TBC convolutions, pools with
indices, max_unpool, fractional max pooling, grid sampling, CTC, embedding bags, local response
norm, the margin / linear cross-entropy losses, multi-head attention, grouped_mm, channel
shuffle and bilinear upsampling. torch owns the names; the references are NumPy written to
torch's definitions (cross-checked against torch 2.13 when these records were written).
nn_functional_ops.py appends these to its RECORDS; nn_functional_more_refs.py holds the longer
references.

Left out of jitgrad.nn.functional altogether (no name, so no UNRECORDED entry): torch's
scaled_mm and scaled_grouped_mm, fp8 GEMMs with scale tensors (jitgrad has no fp8 matmul)."""
import numpy as np

import jitgrad.nn.functional as F
from tests.support.attention_reference import mha as _np_mha_module
from . import nn_functional_more_refs as R
from .core import Ints, err, table

RECORDS, record = table("torch", "torch.nn.functional.")
_SHAPE_ERR = (ValueError, RuntimeError, TypeError)

# ----------------------------------------------------------------------------- convolutions
record("conv3d", F.conv3d, R.conv, [((2, 3, 4, 5, 3), (4, 3, 2, 3, 2)),
                                    ((1, 2, 3, 3, 3), (2, 2, 1, 1, 1), (2,))], tol=1e-4,
       errors=(err([(1, 2, 4, 4, 4), (3, 3, 2, 2, 2)], _SHAPE_ERR, "channel|group|shape"),))
record("conv3d", F.conv3d, R.conv, [((1, 4, 5, 4, 6), (2, 2, 3, 2, 3), (2,))],
       kwargs={"stride": (2, 1, 2), "padding": 1, "dilation": (1, 2, 1), "groups": 2}, tol=1e-4)
record("conv_transpose3d", F.conv_transpose3d, R.conv_transpose,
       [((2, 3, 2, 3, 2), (3, 2, 2, 2, 3)), ((1, 2, 2, 2, 2), (2, 1, 1, 2, 1), (1,))], tol=1e-4)
record("conv_transpose3d", F.conv_transpose3d, R.conv_transpose,
       [((1, 4, 2, 3, 2), (4, 1, 3, 2, 2), (2,))],
       kwargs={"stride": 2, "padding": (1, 0, 1), "output_padding": (1, 0, 0), "groups": 2},
       tol=1e-4)
record("conv_tbc", F.conv_tbc, R.conv_tbc, [((6, 2, 3), (3, 3, 4), (4,))], tol=1e-4)
record("conv_tbc", F.conv_tbc, R.conv_tbc, [((5, 2, 3), (2, 3, 2), (2,))], kwargs={"pad": 1},
       tol=1e-4)

# ----------------------------------------------------------------------------- pools
for _n in (1, 2, 3):
    _shape = (2, 3) + (7, 5, 6)[:_n]
    _out = (3, 2, 4)[:_n]
    record(f"adaptive_max_pool{_n}d_with_indices",
           getattr(F, f"adaptive_max_pool{_n}d_with_indices"),
           lambda x, output_size, _k=_n: R.adaptive_max(x, output_size, _k),
           [(_shape,), (_shape[1:],)], kwargs={"output_size": _out},
           errors=(err([(3,) * (_n + 3)], ValueError, "expected a"),))
    record(f"adaptive_max_pool{_n}d", getattr(F, f"adaptive_max_pool{_n}d"),
           lambda x, output_size, return_indices, _k=_n: R.adaptive_max(x, output_size, _k),
           [(_shape,)], kwargs={"output_size": _out, "return_indices": True})
record("max_pool3d_with_indices", F.max_pool3d_with_indices,
       lambda x, kernel_size, stride: R.max_pool(x, kernel_size, stride, 3),
       [((1, 2, 5, 4, 6),), ((2, 4, 3, 5),)], kwargs={"kernel_size": 2, "stride": (2, 1, 2)})
record("lp_pool3d", F.lp_pool3d, lambda x, norm_type, kernel_size: R.lp_pool(
    x, norm_type, kernel_size, 3), [((1, 2, 4, 4, 6),), ((2, 5, 4, 3),)],
    kwargs={"norm_type": 2, "kernel_size": 2}, domain="positive", tol=1e-4)
record("lp_pool3d", F.lp_pool3d, lambda x, norm_type, kernel_size: R.lp_pool(
    x, norm_type, kernel_size, 3), [((1, 2, 3, 3, 3),)],
    kwargs={"norm_type": 3, "kernel_size": 3}, domain="positive", tol=1e-4)


def _unpool(n):
    """max_unpool{n}d of the max_pool{n}d_with_indices of x: each window's max in place, zeros
    elsewhere (torch's unpooling of its own pooling)."""
    pool, unpool = getattr(F, f"max_pool{n}d_with_indices"), getattr(F, f"max_unpool{n}d")

    def run(x, kernel_size, output_size=None):
        values, indices = pool(x, kernel_size)
        return unpool(values, indices, kernel_size, output_size=output_size)
    return run


for _n in (1, 2, 3):
    _shape = (2, 3) + (4, 6, 4)[:_n]
    _odd = (1, 2) + (5, 5, 3)[:_n]
    record(f"max_unpool{_n}d", _unpool(_n), lambda x, kernel_size, _k=_n: R.unpool(
        x, kernel_size, _k), [(_shape,), (_shape[1:],)], kwargs={"kernel_size": 2},
        owner_path=None, errors=(err([(2,) * (_n + 3)], ValueError, "expected a"),))
    record(f"max_unpool{_n}d", _unpool(_n), lambda x, kernel_size, output_size, _k=_n: R.unpool(
        x, kernel_size, _k, output_size), [(_odd,)],
        kwargs={"kernel_size": 2, "output_size": _odd[2:]}, owner_path=None)

# fractional max pooling: the samples fixed (one per batch, channel and spatial dim)
_U2 = np.array([[[0.25, 0.7], [0.9, 0.1], [0.5, 0.5]]] * 2)
_U3 = np.array([[[0.3, 0.8, 0.05], [0.6, 0.2, 0.95]]])
_FRACTIONAL = (
    (2, _U2, (2, 3, 9, 7), 2, {"output_size": (4, 3)}),
    (2, _U2[:1], (3, 8, 8), (3, 2), {"output_ratio": 0.5}),
    (3, _U3, (1, 2, 6, 7, 5), 2, {"output_size": (3, 4, 2)}),
)
for _n, _u, _shape, _k, _kw in _FRACTIONAL:
    for _tail in ("", "_with_indices"):
        _fn = getattr(F, f"fractional_max_pool{_n}d{_tail}")
        record(f"fractional_max_pool{_n}d{_tail}",
               lambda x, _f=_fn, _k=_k, _kw=_kw, _u=_u: _f(x, _k, _random_samples=_u, **_kw),
               lambda x, _t=_tail, _k=_k, _kw=_kw, _u=_u, _d=_n: R.fractional_max(
                   x, _k, _u, _d, indices=bool(_t), **_kw), [(_shape,)], owner_path=None,
               errors=(err([_shape[:-2] + (4, 3)], ValueError, "larger than the input"),)
               if _tail and "output_size" in _kw else ())

# ----------------------------------------------------------------------------- sampling
record("affine_grid", F.affine_grid, R.affine_grid, [((2, 2, 3),)],
       kwargs={"size": (2, 3, 4, 5), "align_corners": False},
       errors=(err([(2, 3, 3)], ValueError, "theta"),))
record("affine_grid", F.affine_grid, R.affine_grid, [((1, 2, 3),)],
       kwargs={"size": (1, 1, 1, 3), "align_corners": True})
record("affine_grid", F.affine_grid, R.affine_grid, [((2, 3, 4),)],
       kwargs={"size": (2, 1, 2, 3, 4), "align_corners": False})
_GRID_2D = [((2, 3, 4, 5), (2, 3, 2, 2)), ((1, 2, 3, 3), (1, 4, 1, 2))]
_GRID_3D = [((1, 2, 3, 4, 2), (1, 2, 3, 2, 3))]
for _mode, _pad, _ac, _cases in (("bilinear", "zeros", False, _GRID_2D + _GRID_3D),
                                 ("bilinear", "border", True, _GRID_2D),
                                 ("nearest", "zeros", False, _GRID_2D + _GRID_3D),
                                 ("bilinear", "reflection", False, _GRID_2D),
                                 ("bilinear", "reflection", True, _GRID_3D),
                                 ("nearest", "border", True, _GRID_3D),
                                 ("bicubic", "zeros", True, _GRID_2D),
                                 ("bicubic", "reflection", False, _GRID_2D),
                                 ("bicubic", "border", False, _GRID_2D[:1])):
    record("grid_sample", F.grid_sample, R.grid_sample, _cases,
           kwargs={"mode": _mode, "padding_mode": _pad, "align_corners": _ac}, tol=1e-4,
           differentiable=_mode != "nearest",
           errors=(err([(2, 3, 4, 5), (2, 3, 2, 3)], ValueError, "grid"),
                   err([(1, 2, 3, 4, 2), (1, 2, 3, 2, 3)], ValueError, "bicubic' needs a 4-D",
                       kwargs={"mode": "bicubic"})) if _pad == "zeros" and not _ac else ())
record("upsample_bilinear", F.upsample_bilinear, R.upsample_bilinear,
       [((1, 2, 3, 4),), ((2, 1, 2, 2),)], kwargs={"scale_factor": 2}, tol=1e-5)
record("upsample_bilinear", F.upsample_bilinear, R.upsample_bilinear, [((1, 2, 3, 4),)],
       kwargs={"size": (5, 3)}, tol=1e-5)
record("native_channel_shuffle", F.native_channel_shuffle, R.channel_shuffle,
       [((2, 6, 3),), ((1, 4, 2, 2),)], kwargs={"groups": 2})

# ----------------------------------------------------------------------------- losses
_CTC = {"input_lengths": (6, 5), "target_lengths": (3, 2)}
for _kw, _labels in (({"reduction": "mean"}, Ints((2, 3), 1, 4)),
                     ({"reduction": "sum"}, Ints((2, 3), 1, 4)),
                     ({"reduction": "none", "blank": 2}, Ints((2, 3), 0, 2))):
    record("ctc_loss", F.ctc_loss, R.ctc_loss, [((6, 2, 4), _labels)], kwargs={**_CTC, **_kw},
           domain=("any", "any"), tol=1e-4, errors=(err([(4, 2, 4), Ints((2, 3), 1, 4)],
                                                        ValueError, "input lengths <= 4"),)
           if _kw["reduction"] == "mean" else ())
# an impossible alignment (3 labels in 2 steps): infinite, or zero with zero_infinity
record("ctc_loss", F.ctc_loss, R.ctc_loss, [((2, 1, 3), Ints((1, 3), 1, 3))],
       kwargs={"input_lengths": (2,), "target_lengths": (3,), "reduction": "none",
               "zero_infinity": True}, differentiable=False)
for _mode in ("sum", "mean", "max"):
    record("embedding_bag", F.embedding_bag, R.embedding_bag,
           [(Ints((3, 4), 0, 5), (5, 3)), (Ints((1, 2), 0, 2), (2, 4))], kwargs={"mode": _mode},
           errors=(err([Ints((3, 4), 0, 5), (5, 3)], ValueError, "mode",
                       kwargs={"mode": "median"}),) if _mode == "sum" else ())
_OFFSETS = np.array([0, 2, 2, 5])
record("embedding_bag", lambda i, w: F.embedding_bag(i, w, _OFFSETS, mode="sum"),
       lambda i, w: R.embedding_bag_offsets(i, w, _OFFSETS), [(Ints((7,), 0, 6), (6, 3))],
       owner_path=None, note="1-D input with offsets (an empty bag gives zeros)")
record("embedding_bag", lambda i, w, p: F.embedding_bag(i, w, mode="sum", per_sample_weights=p),
       lambda i, w, p: (w[i] * p[..., None]).sum(1), [(Ints((2, 3), 0, 4), (4, 2), (2, 3))],
       owner_path=None, note="per_sample_weights")
record("local_response_norm", F.local_response_norm, R.local_response_norm,
       [((2, 5, 3),), ((1, 4, 3, 2),), ((1, 3, 2, 2, 2),)],
       kwargs={"size": 3, "alpha": 0.5, "beta": 0.75, "k": 1.0}, tol=1e-4,
       errors=(err([(3, 4)], ValueError, "3D|three|dimension"),))
record("local_response_norm", F.local_response_norm, R.local_response_norm, [((2, 6, 4),)],
       kwargs={"size": 2}, tol=1e-4)
for _red in ("mean", "sum", "none"):
    record("multilabel_margin_loss", F.multilabel_margin_loss, R.multilabel_margin_loss,
           [((4, 5), Ints((4, 5), -1, 5)), ((5,), Ints((5,), -1, 5))],
           kwargs={"reduction": _red},
           errors=(err([(4, 5), Ints((4, 4), 0, 4)], ValueError, "target"),)
           if _red == "mean" else ())
record("linear_cross_entropy", F.linear_cross_entropy, R.linear_cross_entropy,
       [((4, 3), (5, 3), Ints((4,), 0, 5)), ((3,), (4, 3), Ints((), 0, 4))], tol=1e-4,
       errors=(err([(4, 3), (5, 2), Ints((4,), 0, 5)], ValueError, "weight"),))
record("linear_cross_entropy", lambda x, w, t, b: F.linear_cross_entropy(
    x, w, t, linear_bias=b, reduction="sum"), lambda x, w, t, b: R.linear_cross_entropy(
    x, w, t, b, reduction="sum"), [((4, 3), (5, 3), Ints((4,), 0, 5), (5,))], tol=1e-4,
    owner_path=None, note="linear_bias= (keyword-only)")

# ----------------------------------------------------------------------------- products
_E, _H = 6, 2


def _mha(q, k, v, w, b, ow, ob, **kw):
    return F.multi_head_attention_forward(q, k, v, _E, _H, w, b, None, None, False, 0.0, ow, ob,
                                          training=False, **kw)


def _np_mha(q, k, v, w, b, ow, ob, **kw):
    params = {"in_proj_weight": w, "in_proj_bias": b, "out_proj.weight": ow, "out_proj.bias": ob}
    return list(_np_mha_module(params, q, k, v, _H, **kw))


_MHA_CASES = [((3, 2, 6), (4, 2, 6), (4, 2, 6), (18, 6), (18,), (6, 6), (6,)),
              ((3, 6), (5, 6), (5, 6), (18, 6), (18,), (6, 6), (6,))]
_MHA_DOMAIN = ("any",) * 3 + ("unit",) * 4       # moderate scores: finite differences hold
record("multi_head_attention_forward", _mha, _np_mha, _MHA_CASES, tol=1e-4, owner_path=None,
       domain=_MHA_DOMAIN,
       errors=(err([(3, 2, 4), (4, 2, 4), (4, 2, 4), (18, 6), (18,), (6, 6), (6,)],
                   ValueError, "embedding dimension of 6"),))
record("multi_head_attention_forward", _mha, _np_mha, _MHA_CASES[:1], tol=1e-4, owner_path=None,
       domain=_MHA_DOMAIN,
       kwargs={"average_attn_weights": False})
_OFFS = {2: np.array([3, 5], np.int32), 3: np.array([4, 9], np.int32)}
for _case, _offs in ((((7, 3), (2, 3, 4)), _OFFS[2]), (((2, 4, 3), (2, 3, 5)), None),
                     (((2, 4, 3), (3, 11)), _OFFS[3]), (((4, 10), (10, 3)), _OFFS[3])):
    record("grouped_mm", lambda a, b, _o=_offs: F.grouped_mm(a, b, offs=_o),
           lambda a, b, _o=_offs: R.grouped_mm(a, b, _o), [_case], owner_path=None, tol=1e-4,
           errors=(err([(7, 3), (2, 4, 4)], ValueError, "contracted"),) if _offs is _OFFS[2]
           else ())

UNRECORDED = {"jitgrad.nn.functional": {
    "METHODS": "a tuple of names (those installed as Tensor methods, x.relu()), not a function",
    "gumbel_softmax": "a random draw (Gumbel noise from jitgrad's generator or key=, torch's "
                      "differ): its properties are tested in tests/nn/test_functional_more.py",
}}
