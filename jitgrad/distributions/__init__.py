"""torch.distributions: so far the Categorical distribution (policy-gradient programs:
`m = Categorical(probs); a = m.sample(); loss = -m.log_prob(a) * R`)."""
from .categorical import Categorical  # noqa: F401
