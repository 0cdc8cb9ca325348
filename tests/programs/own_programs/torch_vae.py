"""A variational autoencoder in PyTorch style: nn.Linear encoder and decoder, the
reparameterization trick with torch.randn_like, binary cross-entropy plus the KL term as the
loss, Adam, a shuffled DataLoader for training, a no_grad test pass and decoded samples.

Written here (tests/programs/own_programs/README.md); the harness runs this text on torch and, with
its framework imports renamed, on jitgrad.
"""
import argparse

import torch
from torch import nn, optim
from torch.nn import functional as F
from torch.utils.data import DataLoader

from synthetic_data import save_image, torchvision_datasets as datasets
from synthetic_data import torchvision_transforms as transforms

LATENT = 8


class VAE(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.enc = nn.Linear(784, hidden)
        self.mu = nn.Linear(hidden, LATENT)
        self.logvar = nn.Linear(hidden, LATENT)
        self.dec = nn.Linear(LATENT, hidden)
        self.rec = nn.Linear(hidden, 784)

    def encode(self, x):
        h = F.relu(self.enc(x))
        return self.mu(h), self.logvar(h)

    def decode(self, z):
        return torch.sigmoid(self.rec(F.relu(self.dec(z))))

    @staticmethod
    def reparameterize(mu, logvar):
        std = torch.exp(logvar / 2)
        return mu + std * torch.randn_like(std)

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        return self.decode(self.reparameterize(mu, logvar)), mu, logvar


def vae_loss(recon, mu, logvar, x):
    bce = F.binary_cross_entropy(recon, x.view(-1, 784), reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=128)
    args = parser.parse_args(argv)

    torch.manual_seed(0)
    train_set = datasets.MNIST("data", train=True, transform=transforms.ToTensor())
    test_set = datasets.MNIST("data", train=False, transform=transforms.ToTensor())
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True)
    test_loader = DataLoader(test_set, batch_size=args.batch_size)
    model = VAE()
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(1, args.epochs + 1):
        model.train()
        total = 0.0
        for images, _ in train_loader:
            optimizer.zero_grad()
            loss = vae_loss(*model(images), images)
            loss.backward()
            total += loss.item()
            optimizer.step()
        print(f"epoch {epoch}: train loss {total / len(train_loader.dataset):.4f}")
        model.eval()
        with torch.no_grad():
            test_total = sum(vae_loss(*model(images), images).item() for images, _ in test_loader)
            print(f"epoch {epoch}: test loss {test_total / len(test_loader.dataset):.4f}")
            samples = model.decode(torch.randn(16, LATENT))
            save_image(samples.view(16, 1, 28, 28), f"sample_{epoch}.png")


if __name__ == "__main__":
    main()
