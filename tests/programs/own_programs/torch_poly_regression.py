"""Fit a degree-4 polynomial with one nn.Linear layer, PyTorch style, without an optimizer:
loss.backward(), then each parameter moved against its .grad inside torch.no_grad() and the
gradients cleared; stop when the smooth L1 loss is small.

Written here (tests/programs/own_programs/README.md); the harness runs this text on torch and, with
its framework imports renamed, on jitgrad.
"""
import torch
import torch.nn.functional as F

DEGREE = 4
true_w = torch.randn(DEGREE, 1) * 3
true_b = torch.randn(1) * 3


def features(x):
    """x of shape (n,) -> columns x, x^2, ..., x^DEGREE."""
    x = x.unsqueeze(1)
    return torch.cat([x ** k for k in range(1, DEGREE + 1)], 1)


def target(x):
    return x.mm(true_w) + true_b.item()


def sample(batch_size=32):
    x = features(torch.randn(batch_size))
    return x, target(x)


def describe(w, b):
    terms = " ".join(f"{c:+.2f} x^{k}" for k, c in enumerate(w.view(-1).tolist(), 1))
    return f"y = {terms} {b.item():+.2f}"


def main(lr=0.05, tol=1e-2, max_steps=400):
    model = torch.nn.Linear(DEGREE, 1)
    losses = []
    for step in range(max_steps):
        x, y = sample()
        loss = F.smooth_l1_loss(model(x), y)
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= lr * p.grad
                p.grad.zero_()
        if loss.item() < tol:
            break
    print(f"loss {loss.item():.6f} after {step + 1} batches")
    print("learned:", describe(model.weight, model.bias))
    print("actual: ", describe(true_w, true_b))
    return model, losses


if __name__ == "__main__":
    main()
