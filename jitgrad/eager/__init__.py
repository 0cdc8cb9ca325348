"""The eager front end, PyTorch-style: Tensor and its methods, creation, devices and transfers,
grad mode, the one dispatch point `apply`, autograd recording and `.backward()`."""
