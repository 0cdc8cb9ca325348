"""Every torch.nn Module class and torch.nn.functional function of torch 2.13 exists in
jitgrad.nn / jitgrad.nn.functional, or is excluded with a reason; coverage of what is not
excluded is asserted at the level reached (issue 49). The lists are checked in (CI has no
torch); test_lists_match_torch checks them where torch is installed."""
import inspect

import pytest

from jitgrad import nn
from jitgrad.nn import functional as F

# dir(torch.nn): the classes that subclass torch.nn.Module (torch 2.13)
TORCH_NN_MODULES = ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
                    "AdaptiveLogSoftmaxWithLoss", "AdaptiveMaxPool1d",
                    "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "AlphaDropout",
                    "AvgPool1d", "AvgPool2d", "AvgPool3d", "BCELoss",
                    "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d",
                    "BatchNorm3d", "Bilinear", "CELU", "CTCLoss",
                    "ChannelShuffle", "CircularPad1d", "CircularPad2d",
                    "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
                    "ConstantPad3d", "Container", "Conv1d", "Conv2d", "Conv3d",
                    "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
                    "CosineEmbeddingLoss", "CosineSimilarity",
                    "CrossEntropyLoss", "CrossMapLRN2d", "DataParallel",
                    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "ELU",
                    "Embedding", "EmbeddingBag", "FeatureAlphaDropout",
                    "Flatten", "Fold", "FractionalMaxPool2d",
                    "FractionalMaxPool3d", "GELU", "GLU", "GRU", "GRUCell",
                    "GaussianNLLLoss", "GroupNorm", "Hardshrink",
                    "Hardsigmoid", "Hardswish", "Hardtanh",
                    "HingeEmbeddingLoss", "HuberLoss", "Identity",
                    "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
                    "KLDivLoss", "L1Loss", "LPPool1d", "LPPool2d", "LPPool3d",
                    "LSTM", "LSTMCell", "LayerNorm", "LazyBatchNorm1d",
                    "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d",
                    "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
                    "LazyConvTranspose2d", "LazyConvTranspose3d",
                    "LazyInstanceNorm1d", "LazyInstanceNorm2d",
                    "LazyInstanceNorm3d", "LazyLinear", "LeakyReLU", "Linear",
                    "LinearCrossEntropyLoss", "LocalResponseNorm",
                    "LogSigmoid", "LogSoftmax", "MSELoss", "MarginRankingLoss",
                    "MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d",
                    "MaxUnpool2d", "MaxUnpool3d", "Mish", "Module",
                    "ModuleDict", "ModuleList", "MultiLabelMarginLoss",
                    "MultiLabelSoftMarginLoss", "MultiMarginLoss",
                    "MultiheadAttention", "NLLLoss", "NLLLoss2d", "PReLU",
                    "PairwiseDistance", "ParameterDict", "ParameterList",
                    "PixelShuffle", "PixelUnshuffle", "PoissonNLLLoss",
                    "RMSNorm", "RNN", "RNNBase", "RNNCell", "RNNCellBase",
                    "RReLU", "ReLU", "ReLU6", "ReflectionPad1d",
                    "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
                    "ReplicationPad2d", "ReplicationPad3d", "SELU",
                    "Sequential", "SiLU", "Sigmoid", "SmoothL1Loss",
                    "SoftMarginLoss", "Softmax", "Softmax2d", "Softmin",
                    "Softplus", "Softshrink", "Softsign", "SyncBatchNorm",
                    "Tanh", "Tanhshrink", "Threshold", "Transformer",
                    "TransformerDecoder", "TransformerDecoderLayer",
                    "TransformerEncoder", "TransformerEncoderLayer",
                    "TripletMarginLoss", "TripletMarginWithDistanceLoss",
                    "Unflatten", "Unfold", "Upsample", "UpsamplingBilinear2d",
                    "UpsamplingNearest2d", "ZeroPad1d", "ZeroPad2d",
                    "ZeroPad3d"]

# dir(torch.nn.functional): its public callables that are neither classes nor modules
TORCH_NN_FUNCTIONAL = ["Optional", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
                       "adaptive_avg_pool3d", "adaptive_max_pool1d",
                       "adaptive_max_pool1d_with_indices",
                       "adaptive_max_pool2d",
                       "adaptive_max_pool2d_with_indices",
                       "adaptive_max_pool3d",
                       "adaptive_max_pool3d_with_indices", "affine_grid",
                       "alpha_dropout", "assert_int_or_pair", "avg_pool1d",
                       "avg_pool2d", "avg_pool3d", "batch_norm", "bilinear",
                       "binary_cross_entropy",
                       "binary_cross_entropy_with_logits",
                       "boolean_dispatch", "celu", "celu_",
                       "channel_shuffle", "conv1d", "conv2d", "conv3d",
                       "conv_tbc", "conv_transpose1d", "conv_transpose2d",
                       "conv_transpose3d", "cosine_embedding_loss",
                       "cosine_similarity", "cross_entropy", "ctc_loss",
                       "dropout", "dropout1d", "dropout2d", "dropout3d",
                       "elu", "elu_", "embedding", "embedding_bag",
                       "feature_alpha_dropout", "fold",
                       "fractional_max_pool2d",
                       "fractional_max_pool2d_with_indices",
                       "fractional_max_pool3d",
                       "fractional_max_pool3d_with_indices",
                       "gaussian_nll_loss", "gelu", "glu", "grid_sample",
                       "group_norm", "grouped_mm", "gumbel_softmax",
                       "handle_torch_function", "hardshrink", "hardsigmoid",
                       "hardswish", "hardtanh", "hardtanh_",
                       "has_torch_function", "has_torch_function_unary",
                       "has_torch_function_variadic",
                       "hinge_embedding_loss", "huber_loss",
                       "instance_norm", "interpolate", "kl_div", "l1_loss",
                       "layer_norm", "leaky_relu", "leaky_relu_", "linear",
                       "linear_cross_entropy", "local_response_norm",
                       "log_softmax", "logsigmoid", "lp_pool1d",
                       "lp_pool2d", "lp_pool3d", "margin_ranking_loss",
                       "max_pool1d", "max_pool1d_with_indices",
                       "max_pool2d", "max_pool2d_with_indices",
                       "max_pool3d", "max_pool3d_with_indices",
                       "max_unpool1d", "max_unpool2d", "max_unpool3d",
                       "mish", "mse_loss", "multi_head_attention_forward",
                       "multi_margin_loss", "multilabel_margin_loss",
                       "multilabel_soft_margin_loss",
                       "native_channel_shuffle", "nll_loss", "normalize",
                       "one_hot", "pad", "pairwise_distance", "pdist",
                       "pixel_shuffle", "pixel_unshuffle",
                       "poisson_nll_loss", "prelu", "relu", "relu6",
                       "relu_", "rms_norm", "rrelu", "rrelu_",
                       "scaled_dot_product_attention", "scaled_grouped_mm",
                       "scaled_mm", "selu", "selu_", "sigmoid", "silu",
                       "smooth_l1_loss", "soft_margin_loss", "softmax",
                       "softmin", "softplus", "softshrink", "softsign",
                       "tanh", "tanhshrink", "threshold", "threshold_",
                       "triplet_margin_loss",
                       "triplet_margin_with_distance_loss", "unfold",
                       "upsample", "upsample_bilinear", "upsample_nearest"]

_LAZY = "a Lazy module creates its parameters at the first call, from the input's shape; a " \
        "jitgrad model is a pytree whose leaves must exist before jit or grad trace it: give " \
        "the input size to the eager class"
EXCLUDED_MODULES = {
    "Container": "deprecated since torch 0.x (use Sequential / ModuleList / ModuleDict)",
    "DataParallel": "single-process multi-GPU replication; jitgrad scales out with MPI "
                    "(jg.nn.parallel.DistributedDataParallel)",
    "SyncBatchNorm": "synchronizes batch statistics across torch.distributed process groups; "
                     "jitgrad's data parallelism is jg.distributed over MPI",
    "RNNCellBase": "the recurrent cells' base class, private in jitgrad (rnn_cells._Cell); "
                   "subclass RNNCell / LSTMCell / GRUCell",
    **{name: _LAZY for name in ("LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
                                "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
                                "LazyConvTranspose2d", "LazyConvTranspose3d",
                                "LazyInstanceNorm1d", "LazyInstanceNorm2d",
                                "LazyInstanceNorm3d", "LazyLinear")},
}
_DISPATCH = "torch's __torch_function__ dispatch machinery, not an operation"
_FP8 = "fp8 GEMM kernels for CUDA tensor cores with scale tensors (scaling recipes, swizzles); " \
       "jitgrad's matmul has no fp8 types"
EXCLUDED_FUNCTIONS = {
    "Optional": "typing.Optional, imported into torch.nn.functional's namespace",
    "assert_int_or_pair": "an argument-checking helper of torch's, not an operation",
    "boolean_dispatch": "builds torch's return_indices overloads, not an operation",
    "handle_torch_function": _DISPATCH,
    "has_torch_function": _DISPATCH,
    "has_torch_function_unary": _DISPATCH,
    "has_torch_function_variadic": _DISPATCH,
    "scaled_mm": _FP8,
    "scaled_grouped_mm": _FP8,
}
# the coverage reached of what is not excluded (issue 49 asks for >= 90 %)
REACHED = {"modules": 1.0, "functional": 1.0}


def _missing(names, namespace, excluded):
    return [n for n in names if n not in excluded and not hasattr(namespace, n)]


def _coverage(names, namespace, excluded):
    counted = [n for n in names if n not in excluded]
    return 1 - len(_missing(names, namespace, excluded)) / len(counted)


def test_every_module_class_is_present_or_excluded():
    assert _missing(TORCH_NN_MODULES, nn, EXCLUDED_MODULES) == []
    for name in TORCH_NN_MODULES:
        if name not in EXCLUDED_MODULES:
            cls = getattr(nn, name)
            assert inspect.isclass(cls) and issubclass(cls, nn.Module), name


def test_every_functional_name_is_present_or_excluded():
    assert _missing(TORCH_NN_FUNCTIONAL, F, EXCLUDED_FUNCTIONS) == []
    for name in TORCH_NN_FUNCTIONAL:
        if name not in EXCLUDED_FUNCTIONS:
            assert callable(getattr(F, name)), name


def test_coverage_is_at_least_the_level_reached():
    assert _coverage(TORCH_NN_MODULES, nn, EXCLUDED_MODULES) >= REACHED["modules"]
    assert _coverage(TORCH_NN_FUNCTIONAL, F, EXCLUDED_FUNCTIONS) >= REACHED["functional"]
    excluded = len(EXCLUDED_MODULES) + len(EXCLUDED_FUNCTIONS)
    total = len(TORCH_NN_MODULES) + len(TORCH_NN_FUNCTIONAL)
    assert excluded <= 0.15 * total          # exclusions stay the exception


def test_exclusions_name_real_torch_names_that_jitgrad_lacks():
    for excluded, names, namespace in ((EXCLUDED_MODULES, TORCH_NN_MODULES, nn),
                                       (EXCLUDED_FUNCTIONS, TORCH_NN_FUNCTIONAL, F)):
        assert set(excluded) <= set(names)
        assert [n for n in excluded if hasattr(namespace, n) and n != "Optional"] == []
        assert all(len(reason) > 20 for reason in excluded.values())


def test_lists_match_torch():
    torch = pytest.importorskip("torch")
    tnn, tf = torch.nn, torch.nn.functional
    modules = sorted(n for n in dir(tnn) if not n.startswith("_")
                     and inspect.isclass(getattr(tnn, n)) and issubclass(getattr(tnn, n),
                                                                         tnn.Module))
    functions = sorted(n for n in dir(tf) if not n.startswith("_") and callable(getattr(tf, n))
                       and not inspect.isclass(getattr(tf, n))
                       and not inspect.ismodule(getattr(tf, n)))
    if torch.__version__.split("+")[0] != "2.13.0":
        pytest.skip(f"the lists are torch 2.13's; installed {torch.__version__}")
    assert modules == TORCH_NN_MODULES
    assert functions == TORCH_NN_FUNCTIONAL
