"""A word-level Transformer language model (the shape of pytorch/examples word_language_model
with --model Transformer: an nn.Transformer subclass using only its encoder, a sinusoidal
PositionalEncoding buffer, a log(tril(ones)) causal mask, NLLLoss, clip_grad_norm_ and a manual
SGD update through p.data.add_), written here; then the whole model saved with torch.save and
loaded with weights_only=True inside torch.serialization.safe_globals listing torch.nn.modules'
paths, and evaluated. Its losses agree with torch's from the same initial weights.

TORCH_LOSSES: torch 2.13.0 CPU, the same program with `import torch` (test_matches_torch)."""
import io
import math

import numpy as np
import pytest

TORCH_LOSSES = [2.42952561378479, 2.333571434020996, 2.2801380157470703, 2.2647743225097656]


def run(torch, nn, F, steps=3):
    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, max_len=64):
            super().__init__()
            pe = torch.zeros(max_len, d_model)
            position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
            div_term = torch.exp(torch.arange(0, d_model, 2).float()
                                 * (-math.log(10000.0) / d_model))
            pe[:, 0::2] = torch.sin(position * div_term)
            pe[:, 1::2] = torch.cos(position * div_term)
            self.register_buffer("pe", pe.unsqueeze(0).transpose(0, 1))

        def forward(self, x):
            return x + self.pe[:x.size(0), :]

    class TransformerModel(nn.Transformer):
        def __init__(self, ntoken, ninp, nhead, nhid, nlayers):
            super().__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid,
                             num_encoder_layers=nlayers, dropout=0.0)
            self.pos_encoder = PositionalEncoding(ninp)
            self.input_emb = nn.Embedding(ntoken, ninp)
            self.ninp = ninp
            self.decoder = nn.Linear(ninp, ntoken)

        def forward(self, src):
            mask = torch.log(torch.tril(torch.ones(len(src), len(src))))
            src = self.pos_encoder(self.input_emb(src) * math.sqrt(self.ninp))
            return F.log_softmax(self.decoder(self.encoder(src, mask=mask)), dim=-1)

    for cls in (PositionalEncoding, TransformerModel):   # module-level names, so they pickle
        cls.__name__ = cls.__qualname__ = f"{torch.__name__}_{cls.__name__}"
        globals()[cls.__name__] = cls
    rng = np.random.RandomState(0)
    model = TransformerModel(11, 8, 2, 16, 2)
    model.load_state_dict({k: torch.tensor(rng.uniform(-0.3, 0.3, tuple(v.shape)).astype(
        np.float32)) for k, v in model.state_dict().items()})
    data = torch.tensor(rng.randint(0, 11, (7, 3)))
    criterion = nn.NLLLoss()
    losses = []
    for _ in range(steps):
        model.zero_grad()
        loss = criterion(model(data[:-1]).view(-1, 11), data[1:].reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-2.0)
        losses.append(loss.item())
    buf = io.BytesIO()
    torch.save(model, buf)
    buf.seek(0)
    with torch.serialization.safe_globals([
            PositionalEncoding, TransformerModel, torch.nn.functional.relu,
            torch.nn.modules.activation.MultiheadAttention,
            torch.nn.modules.container.ModuleList, torch.nn.modules.dropout.Dropout,
            torch.nn.modules.linear.Linear, torch.nn.modules.linear.NonDynamicallyQuantizableLinear,
            torch.nn.modules.normalization.LayerNorm, torch.nn.modules.sparse.Embedding,
            torch.nn.modules.transformer.TransformerEncoder,
            torch.nn.modules.transformer.TransformerEncoderLayer,
            torch.nn.modules.transformer.TransformerDecoder,
            torch.nn.modules.transformer.TransformerDecoderLayer]):
        loaded = torch.load(buf)
    loaded.eval()
    with torch.no_grad():
        losses.append(criterion(loaded(data[:-1]).view(-1, 11), data[1:].reshape(-1)).item())
    return losses


def _jitgrad():
    import jitgrad
    import jitgrad.nn
    import jitgrad.nn.functional
    return run(jitgrad, jitgrad.nn, jitgrad.nn.functional)


def test_matches_recorded_torch_losses():
    np.testing.assert_allclose(_jitgrad(), TORCH_LOSSES, rtol=2e-6)


def test_matches_torch():
    torch = pytest.importorskip("torch")
    import torch.nn
    import torch.nn.functional
    np.testing.assert_allclose(_jitgrad(), run(torch, torch.nn, torch.nn.functional), rtol=2e-6)
