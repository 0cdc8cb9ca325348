"""Public programs nobody here wrote, run with their import lines changed (issue 49).

tests/programs/ported_programs/ holds copies of upstream example programs (jax-ml/jax examples/,
pytorch/examples) in which only import lines differ (marked ``# PORT: was ...``), plus dataset
downloads replaced by small synthetic data of the same shapes and shortened epoch counts (marked
``# DATA: was ...``); _harness.py runs them. Without torch or jax, each port is checked against
values recorded from the original framework (constants below); with them installed, against a
fresh run of the original.

How the constants were produced: _harness.check_* with original=True (the PORT lines reverted,
so the same shortened program on the same synthetic data and the same initial weights), on
torch 2.13.0 / jax 0.10.2, CPU, float32.
"""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "ported_programs"))
import _harness as h  # noqa: E402

PORTS = ["jax_mnist_classifier_fromscratch.py", "jax_mnist_classifier.py", "jax_mnist_vae.py",
         "torch_mnist.py", "torch_regression.py", "torch_vae.py"]


def _rel(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-30)))


@pytest.mark.parametrize("name", PORTS)
def test_port_differs_from_upstream_only_in_marked_lines(name):
    # Reverting every marked line gives the upstream file byte for byte (its git blob id).
    assert h.git_blob_id(h.source(name, revert=("PORT", "DATA"))) == h.upstream_blob(name)
    for _, kind, new, old in h.changed_lines(name):
        if kind == "PORT":  # an import of the framework, renamed to jitgrad
            assert new.lstrip().startswith(("import jitgrad", "from jitgrad")), new
            assert old.lstrip().startswith(("import jax", "from jax", "import torch",
                                            "from torch")), old
        else:               # the synthetic data module, or a smaller epoch count
            assert "ported_data" in new or "num_epochs" in new, new


# ---- recorded from the originals ----

# jax 0.10.2: (training-set loss after the run, test accuracy, sum(|leaf|) per parameter leaf)
JAX_RECORDED = {
    "jax_mnist_classifier_fromscratch.py": (
        3.1946518421173096, 0.125,
        [64019.4375, 82.03299713134766, 83662.453125, 78.41265106201172, 811.640869140625,
         0.8826233148574829]),
    "jax_mnist_classifier.py": (
        2.311023235321045, 0.1328125,
        [21965.59765625, 7.952335834503174, 26970.044921875, 8.025408744812012,
         373.002197265625, 0.08565172553062439]),
}

# jax 0.10.2, mnist_vae.py (2 epochs): last test ELBO, sum(|leaf|) per parameter leaf, lit
# pixels of the last sampled 10x10 image grid (Bernoulli draws from the model's logits)
JAX_VAE_RECORDED = (
    -478.942138671875,
    [12961.2158203125, 4.189883708953857, 9531.1591796875, 4.249157905578613, 261.35040283203125,
     0.2104896754026413, 262.11138916015625, 0.186444491147995, 264.640869140625,
     6.387423515319824, 9524.16015625, 8.916093826293945, 12963.755859375, 22.697593688964844],
    46920)

# torch 2.13.0, mnist/main.py --epochs 2 --dry-run: every F.nll_loss (reduction, value):
# epoch 1's training step, epoch 1's test pass, then the same after one Adadelta step.
TORCH_MNIST_RECORDED = [("mean", 2.2980709075927734), ("sum", 227.74240112304688),
                        ("mean", 1.745068073272705), ("sum", 104.92778778076172)]

# torch 2.13.0, regression/main.py: batches until loss < 1e-3, the first ten losses, every
# hundredth, the last, and fc's final weight and bias.
TORCH_REGRESSION_RECORDED = {
    "batches": 675,
    "first": [53.051185607910156, 24.125267028808594, 37.409942626953125, 48.18413543701172,
              37.63738250732422, 22.86150360107422, 34.6954460144043, 21.058279037475586,
              59.367149353027344, 13.383511543273926],
    "every_100": {0: 53.051185607910156, 100: 3.0797789096832275, 200: 0.7366287112236023,
                  300: 0.04607748985290527, 400: 0.11337575316429138, 500: 0.3882475793361664,
                  600: 0.3650127649307251},
    "last": 0.0009869044879451394,
    "weight": [8.841956, 1.9726698, 4.8948083, 11.240237],
    "bias": [9.380273],
}

# torch 2.13.0, vae/main.py --epochs 2: every F.binary_cross_entropy (reduction='sum'): two
# training batches and the test batch, per epoch.
TORCH_VAE_RECORDED = [70320.75, 67157.78125, 64188.6015625, 64130.7265625, 60918.359375,
                      57744.0546875]

# Tolerances. One step of float32 arithmetic differs from the original by about 1 ulp (summation
# order); trained for tens of steps the difference grows but stays at float32 rounding (1e-6
# relative). regression/main.py runs ~700 plain SGD steps until its loss is 1e-3: rounding
# differences compound there, so late losses (which are tiny) agree to 2e-3 relative and the
# fitted weights to 1e-5.
RTOL_STEP = 2e-6
RTOL_TRAINED = 1e-5


@pytest.mark.parametrize("name", sorted(JAX_RECORDED))
def test_jax_port_matches_recorded(name):
    loss, acc, leaves = h.check_jax_mnist(name)
    want_loss, want_acc, want_sums = JAX_RECORDED[name]
    assert _rel(loss, want_loss) < RTOL_TRAINED
    assert acc == want_acc
    assert _rel([np.abs(leaf).sum() for leaf in leaves], want_sums) < RTOL_TRAINED


def test_jax_mnist_vae_matches_recorded():
    elbo, leaves, lit = h.check_jax_mnist_vae()
    want_elbo, want_sums, want_lit = JAX_VAE_RECORDED
    assert _rel(elbo, want_elbo) < RTOL_TRAINED
    assert _rel([np.abs(leaf).sum() for leaf in leaves], want_sums) < RTOL_TRAINED
    assert lit == want_lit


def test_numpy_float64_inputs_stay_float64():
    """A documented difference (docs/coming-from-jax.md): jitgrad keeps NumPy float64 arrays
    float64 (one Tensor for torch's and NumPy's users), where JAX without enable_x64 computes
    them in float32, so mnist_classifier_fromscratch's npr.randn parameters train in float64
    here; its losses still agree with JAX's to float32 rounding (the test above)."""
    _, _, leaves = h.check_jax_mnist("jax_mnist_classifier_fromscratch.py")
    assert all(leaf.dtype == np.float64 for leaf in leaves)


def test_torch_mnist_matches_recorded():
    losses, printed = h.check_torch_mnist()
    assert [r for r, _ in losses] == [r for r, _ in TORCH_MNIST_RECORDED]
    assert _rel([v for _, v in losses], [v for _, v in TORCH_MNIST_RECORDED]) < RTOL_STEP
    assert "Test set: Average loss: 0.8197, Accuracy: 117/128 (91%)" in printed


def test_torch_regression_matches_recorded():
    losses, batches, fc, error = h.check_torch_regression()
    want = TORCH_REGRESSION_RECORDED
    assert batches == want["batches"]
    assert _rel(losses[:10], want["first"]) < RTOL_STEP
    assert _rel([losses[i] for i in want["every_100"]], list(want["every_100"].values())) < 2e-3
    assert _rel(losses[-1], want["last"]) < 2e-3
    assert _rel(np.asarray(fc.weight.detach()).ravel(), want["weight"]) < RTOL_TRAINED
    assert _rel(np.asarray(fc.bias.detach()), want["bias"]) < RTOL_TRAINED
    assert error is None    # the last lines: '{:+.2f}'.format(w) of a 0-d tensor (its item)


def test_torch_vae_matches_recorded():
    losses, printed = h.check_torch_vae(epochs=2)
    assert _rel(losses, TORCH_VAE_RECORDED) < RTOL_STEP
    assert "====> Epoch: 2 Average loss: 489.3268" in printed


# ---- against the originals, when installed ----

@pytest.mark.parametrize("name", sorted(JAX_RECORDED))
def test_jax_port_matches_jax(name):
    pytest.importorskip("jax")
    loss, acc, leaves = h.check_jax_mnist(name)
    want_loss, want_acc, want_leaves = h.check_jax_mnist(name, original=True)
    assert _rel(loss, want_loss) < RTOL_TRAINED and acc == want_acc
    for leaf, want in zip(leaves, want_leaves):
        np.testing.assert_allclose(leaf, want, rtol=RTOL_TRAINED,
                                   atol=RTOL_TRAINED * np.abs(want).max())


def test_jax_mnist_vae_matches_jax():
    pytest.importorskip("jax")
    elbo, leaves, lit = h.check_jax_mnist_vae()
    want_elbo, want_leaves, want_lit = h.check_jax_mnist_vae(original=True)
    assert _rel(elbo, want_elbo) < RTOL_TRAINED and lit == want_lit
    for leaf, want in zip(leaves, want_leaves):
        np.testing.assert_allclose(leaf, want, rtol=RTOL_TRAINED,
                                   atol=RTOL_TRAINED * np.abs(want).max())


def test_torch_mnist_matches_torch():
    pytest.importorskip("torch")
    losses, printed = h.check_torch_mnist()
    want, want_printed = h.check_torch_mnist(original=True)
    assert [r for r, _ in losses] == [r for r, _ in want]
    assert _rel([v for _, v in losses], [v for _, v in want]) < RTOL_STEP
    assert printed == want_printed


def test_torch_regression_matches_torch():
    pytest.importorskip("torch")
    losses, batches, fc, _ = h.check_torch_regression()
    want_losses, want_batches, want_fc, want_error = h.check_torch_regression(original=True)
    assert want_error is None and batches == want_batches
    assert _rel(losses[:50], want_losses[:50]) < RTOL_STEP
    assert _rel(losses, want_losses) < 2e-3
    np.testing.assert_allclose(np.asarray(fc.weight.detach()),
                               want_fc.weight.detach().numpy(), rtol=RTOL_TRAINED)


def test_torch_vae_matches_torch():
    pytest.importorskip("torch")
    losses, printed = h.check_torch_vae(epochs=2)
    want, want_printed = h.check_torch_vae(original=True, epochs=2)
    assert _rel(losses, want) < RTOL_STEP
    assert printed == want_printed
