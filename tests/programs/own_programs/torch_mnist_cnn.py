"""A small convolutional digit classifier in PyTorch style: Conv2d / Dropout / Linear layers,
F.max_pool2d and F.log_softmax in forward, F.nll_loss, the Adadelta optimizer with a StepLR
schedule, and DataLoader batches of a map-style dataset with transforms.

Written here (tests/programs/own_programs/README.md); the harness runs this text on torch and, with
its framework imports renamed, on jitgrad.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import Adadelta
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader

from synthetic_data import torchvision_datasets as datasets, torchvision_transforms as transforms


class DigitNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, kernel_size=3), nn.ReLU(),
                                      nn.Conv2d(4, 8, kernel_size=3, stride=2), nn.ReLU())
        self.drop_features = nn.Dropout(0.25)
        self.hidden = nn.Linear(8 * 6 * 6, 32)
        self.drop_hidden = nn.Dropout(0.5)
        self.out = nn.Linear(32, 10)

    def forward(self, x):
        x = F.max_pool2d(self.features(x), 2)
        x = torch.flatten(self.drop_features(x), 1)
        x = self.drop_hidden(F.relu(self.hidden(x)))
        return F.log_softmax(self.out(x), dim=1)


def train_epoch(model, loader, optimizer, epoch, max_batches):
    model.train()
    for i, (images, labels) in enumerate(loader):
        if i == max_batches:
            break
        optimizer.zero_grad()
        loss = F.nll_loss(model(images), labels)
        loss.backward()
        optimizer.step()
        print(f"epoch {epoch} batch {i}: loss {loss.item():.5f}")


def evaluate(model, loader):
    model.eval()
    total, correct = 0.0, 0
    with torch.no_grad():
        for images, labels in loader:
            log_p = model(images)
            total += F.nll_loss(log_p, labels, reduction="sum").item()
            correct += (log_p.argmax(dim=1) == labels).sum().item()
    n = len(loader.dataset)
    print(f"test: mean loss {total / n:.4f}, {correct}/{n} correct")
    return total / n, correct


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batches", type=int, default=2, help="training batches per epoch")
    parser.add_argument("--lr", type=float, default=1.0)
    args = parser.parse_args(argv)

    torch.manual_seed(0)
    to_input = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.13,), (0.31,))])
    train_loader = DataLoader(datasets.MNIST("data", train=True, transform=to_input), batch_size=32)
    test_loader = DataLoader(datasets.MNIST("data", train=False, transform=to_input),
                             batch_size=64)
    model = DigitNet()
    optimizer = Adadelta(model.parameters(), lr=args.lr)
    schedule = StepLR(optimizer, step_size=1, gamma=0.7)
    results = []
    for epoch in range(1, args.epochs + 1):
        train_epoch(model, train_loader, optimizer, epoch, args.batches)
        results.append(evaluate(model, test_loader))
        schedule.step()
    return results


if __name__ == "__main__":
    main()
