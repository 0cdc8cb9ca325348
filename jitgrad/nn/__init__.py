"""jitgrad.nn: PyTorch-style modules that are also pytrees, initializers and functional ops.

    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    loss = nn.functional.cross_entropy(model(x), y)
"""
from . import functional, init  # noqa: F401
from .conv import AvgPool2d, Conv2d, MaxPool2d  # noqa: F401
from .layers import (BCEWithLogitsLoss, CrossEntropyLoss, Dropout, Embedding, Flatten,  # noqa: F401
                     GELU, Identity, L1Loss, LayerNorm, Linear, LogSoftmax, ModuleList, MSELoss,
                     NLLLoss, ReLU, Sequential, Sigmoid, Softmax, Tanh)
from .module import Module, Parameter  # noqa: F401
from .norm_layers import *  # noqa: F401,F403  (BatchNorm1d/2d/3d, InstanceNorm*, GroupNorm)
from .conv import AdaptiveAvgPool2d  # noqa: F401
from .layers import Dropout2d  # noqa: F401
from .transformer import (MultiheadAttention, Transformer, TransformerDecoder,  # noqa: F401
                          TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNCell  # noqa: F401
from . import parallel  # noqa: E402,F401
from . import utils  # noqa: E402,F401
