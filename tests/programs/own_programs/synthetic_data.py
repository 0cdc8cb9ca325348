"""Small synthetic digit data for the programs in this folder (instead of downloading MNIST).

Same shapes, dtypes and value ranges as the real data, a few hundred rows, made by NumPy from a
fixed seed so the original framework and jitgrad see identical inputs. Framework-free: images and
labels are NumPy arrays / Python ints; the program's own DataLoader (torch's or jitgrad's) collates
them into tensors.

``mnist_flat()``          flattened float32 images in [0, 1] and one-hot labels (the JAX programs)
``torchvision_datasets``  a ``torchvision.datasets.MNIST`` look-alike (the torch programs)
``torchvision_transforms`` ``Compose``, ``ToTensor``, ``Normalize`` look-alikes
"""
import types

import numpy as np


def _mnist_arrays(n, seed):
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 10, size=n)
    # a label-dependent blob plus noise, so a classifier has something to learn
    images = rng.randint(0, 64, size=(n, 28, 28)).astype(np.int32)
    for i, c in enumerate(labels):
        r, col = 2 + 2 * c, 4 + (c % 5) * 4
        images[i, r:r + 6, col:col + 6] += 180
    return np.clip(images, 0, 255).astype(np.uint8), labels.astype(np.int64)


def _jax_mnist(permute_train=False):
    """Flattened float32 images in [0, 1], one-hot float32 labels: train (256), test (128)."""
    def prep(n, seed):
        x, y = _mnist_arrays(n, seed)
        return (x.reshape(n, 784).astype(np.float32) / np.float32(255.0),
                (y[:, None] == np.arange(10)).astype(np.float32))
    train_images, train_labels = prep(256, 0)
    test_images, test_labels = prep(128, 1)
    if permute_train:
        perm = np.random.RandomState(0).permutation(train_images.shape[0])
        train_images, train_labels = train_images[perm], train_labels[perm]
    return train_images, train_labels, test_images, test_labels


mnist_flat = _jax_mnist


class _MNIST:
    """torchvision.datasets.MNIST(root, train, download, transform): (image, int label) pairs."""

    def __init__(self, root, train=True, download=False, transform=None, target_transform=None):
        self.data, self.targets = _mnist_arrays(256 if train else 128, 0 if train else 1)
        self.transform, self.target_transform = transform, target_transform

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, i):
        img, target = self.data[i], int(self.targets[i])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target


class _Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


class _ToTensor:
    """HxW uint8 -> 1xHxW float32 in [0, 1] (a NumPy array; the DataLoader makes the tensor)."""

    def __call__(self, x):
        return (np.asarray(x, np.float32) / np.float32(255.0))[None]


class _Normalize:
    def __init__(self, mean, std):
        self.mean = np.asarray(mean, np.float32).reshape(-1, 1, 1)
        self.std = np.asarray(std, np.float32).reshape(-1, 1, 1)

    def __call__(self, x):
        return (x - self.mean) / self.std


torchvision_datasets = types.SimpleNamespace(MNIST=_MNIST)
torchvision_transforms = types.SimpleNamespace(Compose=_Compose, ToTensor=_ToTensor,
                                               Normalize=_Normalize)


def save_image(tensor, fp, nrow=8, padding=2, **kwargs):
    """torchvision.utils.save_image stand-in: checks the tensor converts to NumPy, writes nothing."""
    import numpy as np
    np.asarray(tensor.detach() if hasattr(tensor, "detach") else tensor)
