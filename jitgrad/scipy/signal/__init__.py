"""jitgrad.scipy.signal: jax.scipy.signal's convolutions (convolve, correlate, convolve2d,
correlate2d) of real arrays of any rank, as one lax.conv_general_dilated each."""
from .convolutions import convolve, convolve2d, correlate, correlate2d  # noqa: F401
