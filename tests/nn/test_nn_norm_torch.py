"""The norm, pooling and grouped/dilated conv layers against PyTorch itself (float64, relative
1e-5 on outputs, gradients and running statistics, eager and jit), when torch is importable
(the dev environment; not a CI dependency: test_nn_norm.py holds the NumPy-reference tests)."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad import nn
from jitgrad.nn import functional as F

torch = pytest.importorskip("torch")

RTOL, ATOL = 1e-5, 1e-8


def _close(a, b):
    b = b.detach().numpy() if hasattr(b, "detach") else b
    np.testing.assert_allclose(np.asarray(a), b, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("how", ["eager", "jit"])
@pytest.mark.parametrize("momentum", [0.1, None])
def test_batch_norm2d_training_eval_and_grads_match_torch(rng, how, momentum):
    ours = nn.BatchNorm2d(3, momentum=momentum).double()
    theirs = torch.nn.BatchNorm2d(3, momentum=momentum).double()
    w, b = rng.standard_normal(3), rng.standard_normal(3)
    with jg.no_grad():
        ours.weight.copy_(w)
        ours.bias.copy_(b)
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(w))
        theirs.bias.copy_(torch.tensor(b))
    t = rng.standard_normal((4, 3, 5, 5))
    loss = lambda m, x: (m(x) * t).sum()                    # noqa: E731
    step = jg.value_and_grad(loss, argnums=(0, 1))
    step = jg.jit(step) if how == "jit" else step
    for _ in range(3):
        x = rng.standard_normal((4, 3, 5, 5)) * 2 + 1
        value, (g_model, g_x) = step(ours, x)
        xt = torch.tensor(x, requires_grad=True)
        out = (theirs(xt) * torch.tensor(t)).sum()
        out.backward()
        _close(value, out)
        _close(g_x, xt.grad)
        _close(g_model.weight, theirs.weight.grad)
        _close(g_model.bias, theirs.bias.grad)
        theirs.zero_grad()
        _close(ours.running_mean, theirs.running_mean)
        _close(ours.running_var, theirs.running_var)
    assert int(ours.num_batches_tracked) == int(theirs.num_batches_tracked) == 3
    ours.eval()
    theirs.eval()
    _close(ours(x), theirs(torch.tensor(x)))
    assert list(ours.state_dict()) == list(theirs.state_dict())


def test_other_layers_match_torch(rng):
    x = rng.standard_normal((2, 6, 7, 5))
    xt = torch.tensor(x)
    w6, b6 = rng.standard_normal(6), rng.standard_normal(6)
    _close(F.group_norm(x, 3, w6, b6), torch.nn.functional.group_norm(xt, 3, torch.tensor(w6),
                                                                       torch.tensor(b6)))
    for size in [(3, 2), 1, (None, 3), (4, 4)]:
        _close(F.adaptive_avg_pool2d(x, size), torch.nn.functional.adaptive_avg_pool2d(xt, size))
    ours = nn.InstanceNorm2d(6, affine=True, track_running_stats=True).double()
    theirs = torch.nn.InstanceNorm2d(6, affine=True, track_running_stats=True).double()
    _close(ours(x), theirs(xt))
    _close(ours.running_mean, theirs.running_mean)
    _close(ours.running_var, theirs.running_var)
    ours.eval()
    theirs.eval()
    _close(ours(x), theirs(xt))


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("case", [(4, 8, 3, 1, 2, 2, 2), (6, 6, 3, 2, 1, 1, 6),
                                  (6, 12, (3, 2), 1, "same", (2, 1), 3)])
def test_grouped_dilated_conv_matches_torch(rng, case):
    cin, cout, k, s, p, d, g = case
    conv = torch.nn.Conv2d(cin, cout, k, s, p, d, g).double()
    x = rng.standard_normal((2, cin, 9, 8))
    w, b = conv.weight.detach().numpy(), conv.bias.detach().numpy()
    _close(F.conv2d(x, w, b, s, p, d, g), conv(torch.tensor(x)))
    gw, gx = jg.grad(lambda w, x: (F.conv2d(x, w, b, s, p, d, g) ** 2).sum(), argnums=(0, 1))(w, x)
    xt = torch.tensor(x, requires_grad=True)
    (conv(xt) ** 2).sum().backward()
    _close(gw, conv.weight.grad)
    _close(gx, xt.grad)


class _Block:
    """A ResNet basic block (conv-bn-relu-conv-bn + identity, relu) in either framework."""

    @staticmethod
    def ours():
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1, self.bn1 = nn.Conv2d(4, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4)
                self.conv2 = nn.Conv2d(4, 4, 3, padding=1, groups=2, bias=False)
                self.bn2 = nn.BatchNorm2d(4)

            def forward(self, x):
                y = F.relu(self.bn1(self.conv1(x)))
                return F.relu(self.bn2(self.conv2(y)) + x)
        return Block().double()

    @staticmethod
    def theirs():
        class Block(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = torch.nn.Conv2d(4, 4, 3, padding=1, bias=False)
                self.bn1 = torch.nn.BatchNorm2d(4)
                self.conv2 = torch.nn.Conv2d(4, 4, 3, padding=1, groups=2, bias=False)
                self.bn2 = torch.nn.BatchNorm2d(4)

            def forward(self, x):
                y = torch.relu(self.bn1(self.conv1(x)))
                return torch.relu(self.bn2(self.conv2(y)) + x)
        return Block().double()


@pytest.mark.parametrize("how", ["eager", "jit"])
def test_resnet_block_training_matches_torch(rng, how):
    ours, theirs = _Block.ours(), _Block.theirs()
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    t = rng.standard_normal((3, 4, 6, 6))
    step = jg.value_and_grad(lambda m, x: (m(x) * t).sum())
    step = jg.jit(step) if how == "jit" else step
    for _ in range(2):
        x = rng.standard_normal((3, 4, 6, 6))
        value, grads = step(ours, x)
        out = (theirs(torch.tensor(x)) * torch.tensor(t)).sum()
        out.backward()
        _close(value, out)
        for name, p in theirs.named_parameters():
            _close(dict(grads.named_parameters())[name], p.grad)
        theirs.zero_grad()
    for name, b in theirs.named_buffers():
        _close(dict(ours.named_buffers())[name], b)
