"""What jitgrad.nn.functional offers beyond its activations: losses and the functional forms of
the layers. functional.py re-exports this module with one `import *` line."""
from .conv import avg_pool2d, conv2d, max_pool2d
from .layers import dropout, embedding, layer_norm, linear
from .losses import binary_cross_entropy_with_logits, cross_entropy, l1_loss, mse_loss, nll_loss

__all__ = ["avg_pool2d", "conv2d", "max_pool2d", "dropout", "embedding", "layer_norm", "linear",
           "binary_cross_entropy_with_logits", "cross_entropy", "l1_loss", "mse_loss", "nll_loss"]
