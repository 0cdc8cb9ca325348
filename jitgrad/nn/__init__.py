"""jitgrad.nn: PyTorch-style modules that are also pytrees, initializers and functional ops.

    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    loss = nn.functional.cross_entropy(model(x), y)
"""
from . import functional, init  # noqa: F401
from .conv import Conv2d  # noqa: F401
from .layers import (Dropout, Embedding, Flatten, GELU, Identity, LayerNorm,  # noqa: F401
                     Linear, LogSoftmax, ModuleList, ReLU, Sequential, Sigmoid, Softmax, Tanh)
from .loss_layers import *  # noqa: F401,F403  (every loss module)
from .activation_layers import *  # noqa: F401,F403  (ELU, SELU, Hardtanh, PReLU, GLU, ...)
from .containers import ModuleDict, ParameterDict, ParameterList  # noqa: F401
from .conv_layers import *  # noqa: F401,F403  (Conv1d, Conv3d, ConvTranspose1d/2d/3d)
from .pooling_layers import *  # noqa: F401,F403  (max/avg of every rank, LP, adaptive max, unpool)
from .fractional_pooling_layers import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: F401
from .padding import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d,  # noqa: F401
                      ConstantPad2d, ConstantPad3d, ReflectionPad1d, ReflectionPad2d,
                      ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d,
                      ZeroPad1d, ZeroPad2d, ZeroPad3d)
from .distance import CosineSimilarity, PairwiseDistance  # noqa: F401
from .upsampling import (ChannelShuffle, PixelShuffle, PixelUnshuffle, Upsample,  # noqa: F401
                         UpsamplingBilinear2d, UpsamplingNearest2d)
from .fold import Fold, Unfold  # noqa: F401
from .dropout_variants import (AlphaDropout, Dropout1d, Dropout3d,  # noqa: F401
                               FeatureAlphaDropout)
from .extra_norms import CrossMapLRN2d, LocalResponseNorm, RMSNorm  # noqa: F401
from .embedding_bag import EmbeddingBag  # noqa: F401
from .bilinear import Bilinear  # noqa: F401
from .ctc import CTCLoss  # noqa: F401
from .adaptive_softmax import AdaptiveLogSoftmaxWithLoss  # noqa: F401
from .layers import Unflatten  # noqa: F401
from .module import Module, Parameter  # noqa: F401
from .norm_layers import *  # noqa: F401,F403  (BatchNorm1d/2d/3d, InstanceNorm*, GroupNorm)
from .conv import AdaptiveAvgPool2d  # noqa: F401
from .layers import Dropout2d  # noqa: F401
from .transformer import (MultiheadAttention, Transformer, TransformerDecoder,  # noqa: F401
                          TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNCell  # noqa: F401
from .rnn import RNNBase  # noqa: F401
from . import parallel  # noqa: E402,F401
from . import initializers  # noqa: E402,F401  (jax.nn.initializers)
from .jax_functions import (celu, dot_product_attention, elu, gelu, glu,  # noqa: E402,F401
                            hard_sigmoid, hard_silu, hard_swish, hard_tanh, identity, leaky_relu,
                            log1mexp, log_sigmoid, log_softmax, logmeanexp, logsumexp, mish,
                            one_hot, relu, relu6, selu, sigmoid, silu, soft_sign, softmax,
                            softplus, sparse_plus, sparse_sigmoid, squareplus, standardize, swish,
                            tanh)
from . import utils  # noqa: E402,F401
from . import modules  # noqa: E402,F401  (torch.nn.modules' layout; last: it names classes)
