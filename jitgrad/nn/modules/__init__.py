"""torch.nn.modules' layout: `jitgrad.nn.modules.<file>.<Class>` is `jitgrad.nn.<Class>`
(`torch.nn.modules.activation.MultiheadAttention`, `.linear.Linear`, `.sparse.Embedding`, ...), so
programs that spell torch's file paths (a `torch.serialization.safe_globals` list, an isinstance
check, `from torch.nn.modules.loss import MSELoss`) run unchanged. One submodule per file of
torch 2.13, each naming the classes of that file's __all__ that jitgrad.nn has."""
from __future__ import annotations

import sys
import types

from ... import nn
from ..transformer import NonDynamicallyQuantizableLinear

# torch.nn.modules.<file>: its classes
LAYOUT = {
    "activation": ("Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid",
        "Tanh", "SiLU", "Mish", "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink",
        "LeakyReLU", "LogSigmoid", "Softplus", "Softshrink", "MultiheadAttention", "PReLU",
        "Softsign", "Tanhshrink", "Softmin", "Softmax", "Softmax2d", "LogSoftmax"),
    "adaptive": ("AdaptiveLogSoftmaxWithLoss",),
    "batchnorm": ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d"),
    "channelshuffle": ("ChannelShuffle",),
    "container": ("Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"),
    "conv": ("Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
        "ConvTranspose3d"),
    "distance": ("PairwiseDistance", "CosineSimilarity"),
    "dropout": ("Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
        "FeatureAlphaDropout"),
    "flatten": ("Flatten", "Unflatten"),
    "fold": ("Fold", "Unfold"),
    "instancenorm": ("InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"),
    "linear": ("Bilinear", "Identity", "Linear", "NonDynamicallyQuantizableLinear"),
    "loss": ("L1Loss", "NLLLoss", "NLLLoss2d", "PoissonNLLLoss", "GaussianNLLLoss", "KLDivLoss",
        "MSELoss", "BCELoss", "BCEWithLogitsLoss", "HingeEmbeddingLoss", "MultiLabelMarginLoss",
        "SmoothL1Loss", "HuberLoss", "SoftMarginLoss", "CrossEntropyLoss",
        "LinearCrossEntropyLoss", "MultiLabelSoftMarginLoss", "CosineEmbeddingLoss",
        "MarginRankingLoss", "MultiMarginLoss", "TripletMarginLoss",
        "TripletMarginWithDistanceLoss", "CTCLoss"),
    "module": ("Module",),
    "normalization": ("LocalResponseNorm", "CrossMapLRN2d", "LayerNorm", "GroupNorm", "RMSNorm"),
    "padding": ("CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d",
        "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
        "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d",
        "ZeroPad3d"),
    "pixelshuffle": ("PixelShuffle", "PixelUnshuffle"),
    "pooling": ("MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d",
        "MaxUnpool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "FractionalMaxPool2d",
        "FractionalMaxPool3d", "LPPool1d", "LPPool2d", "LPPool3d", "AdaptiveMaxPool1d",
        "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
        "AdaptiveAvgPool3d"),
    "rnn": ("RNNBase", "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"),
    "sparse": ("Embedding", "EmbeddingBag"),
    "transformer": ("Transformer", "TransformerEncoder", "TransformerDecoder",
        "TransformerEncoderLayer", "TransformerDecoderLayer"),
    "upsampling": ("Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"),
}
_CLASSES = {**vars(nn), "NonDynamicallyQuantizableLinear": NonDynamicallyQuantizableLinear}


def _submodule(file, names):
    mod = types.ModuleType(f"{__name__}.{file}", f"torch.nn.modules.{file}'s classes.")
    mod.__dict__.update({n: _CLASSES[n] for n in names}, __all__=list(names))
    sys.modules[mod.__name__] = mod
    return mod


globals().update({file: _submodule(file, names) for file, names in LAYOUT.items()})
__all__ = sorted(LAYOUT)
