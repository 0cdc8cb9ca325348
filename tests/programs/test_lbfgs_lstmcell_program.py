"""A sequence model trained by LBFGS with a closure (the shape of pytorch/examples
time_sequence_prediction: two LSTMCells and a Linear stepped over time, float64, MSELoss),
written here; its losses agree with torch's from the same initial weights.

TORCH_LOSSES: torch 2.13.0 CPU, the same program with `import torch` (test_matches_torch)."""
import numpy as np
import pytest

# every closure's loss (LBFGS max_iter=4: up to 4 evaluations per step) and each step's test loss
TORCH_LOSSES = [0.25154595435858007, 0.19840052454790752, 0.1892645500622643, 0.18841210520932053,
                0.13438392999967247]


def run(torch, nn, optim, steps=1):
    class Sequence(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm1, self.lstm2 = nn.LSTMCell(1, 6), nn.LSTMCell(6, 6)
            self.linear = nn.Linear(6, 1)

        def forward(self, input, future=0):
            h, c, h2, c2 = (torch.zeros(input.size(0), 6, dtype=torch.double) for _ in range(4))
            outputs = []
            for input_t in input.split(1, dim=1):
                h, c = self.lstm1(input_t, (h, c))
                h2, c2 = self.lstm2(h, (h2, c2))
                outputs.append(self.linear(h2))
            for _ in range(future):
                h, c = self.lstm1(outputs[-1], (h, c))
                h2, c2 = self.lstm2(h, (h2, c2))
                outputs.append(self.linear(h2))
            return torch.cat(outputs, dim=1)

    rng = np.random.RandomState(2)
    x = np.arange(8) + rng.randint(-40, 40, (5, 1))
    data = torch.from_numpy(np.sin(x / 4.0))
    seq = Sequence().double()
    seq.load_state_dict({k: torch.tensor(rng.uniform(-0.4, 0.4, tuple(v.shape)))
                         for k, v in seq.state_dict().items()})
    criterion = nn.MSELoss()
    optimizer = optim.LBFGS(seq.parameters(), lr=0.8, max_iter=4)
    losses = []
    for _ in range(steps):
        def closure():
            optimizer.zero_grad()
            loss = criterion(seq(data[2:, :-1]), data[2:, 1:])
            losses.append(loss.item())
            loss.backward()
            return loss
        optimizer.step(closure)
        with torch.no_grad():
            pred = seq(data[:2, :-1], future=3)
            losses.append(criterion(pred[:, :-3], data[:2, 1:]).item())
    return losses


def _jitgrad():
    import jitgrad
    import jitgrad.nn
    import jitgrad.optim
    return run(jitgrad, jitgrad.nn, jitgrad.optim)


def test_matches_recorded_torch_losses():
    np.testing.assert_allclose(_jitgrad(), TORCH_LOSSES, rtol=1e-9)


def test_matches_torch():
    torch = pytest.importorskip("torch")
    import torch.nn
    import torch.optim
    np.testing.assert_allclose(_jitgrad(), run(torch, torch.nn, torch.optim), rtol=1e-9)
