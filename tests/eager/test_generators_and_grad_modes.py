"""torch.Generator and the grad-mode switches as PyTorch has them: `generator=` is honoured by
every random function that takes it (never silently ignored), set_grad_enabled works as a plain
call, a context manager and a decorator, inference_mode as no_grad."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.nn as nn

DRAWS = {   # name -> draw(generator)
    "randn": lambda g: jg.randn(4, generator=g),
    "rand": lambda g: jg.rand(2, 2, generator=g),
    "randint": lambda g: jg.randint(0, 100, (5,), generator=g),
    "randperm": lambda g: jg.randperm(8, generator=g),
    "multinomial": lambda g: jg.multinomial(jg.ones(6), 3, generator=g),
    "bernoulli": lambda g: jg.bernoulli(jg.full((6,), 0.5), generator=g),
    "normal": lambda g: jg.normal(jg.zeros(3), 1.0, generator=g),
    "poisson": lambda g: jg.poisson(jg.full((4,), 3.0), generator=g),
    "uniform_": lambda g: jg.empty(4).uniform_(0, 1, generator=g),
    "normal_": lambda g: jg.empty(4).normal_(generator=g),
    "random_": lambda g: jg.empty(4).random_(0, 10, generator=g),
    "init.kaiming_uniform_": lambda g: nn.init.kaiming_uniform_(jg.empty(3, 4), generator=g),
    "init.xavier_normal_": lambda g: nn.init.xavier_normal_(jg.empty(3, 4), generator=g),
    "init.trunc_normal_": lambda g: nn.init.trunc_normal_(jg.empty(5), generator=g),
    "init.orthogonal_": lambda g: nn.init.orthogonal_(jg.empty(3, 3), generator=g),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_a_generator_gives_its_own_reproducible_stream(name):
    draw = DRAWS[name]
    a = draw(jg.Generator().manual_seed(5)).tolist()
    jg.manual_seed(123)
    before = jg.rand(3).tolist()
    jg.manual_seed(123)
    b = draw(jg.Generator().manual_seed(5)).tolist()
    assert a == b                                   # the generator's seed decides
    assert jg.rand(3).tolist() == before            # the default stream did not move


def test_generator_state_and_seeds():
    g = jg.Generator()
    assert g.manual_seed(7) is g and g.initial_seed() == 7
    state = g.get_state()
    first = jg.randn(3, generator=g).tolist()
    g.set_state(state)
    assert jg.randn(3, generator=g).tolist() == first
    assert isinstance(jg.manual_seed(1), jg.Generator) and jg.initial_seed() == 1
    assert jg.default_generator.initial_seed() == 1
    jg.manual_seed(1)
    state = jg.get_rng_state()
    x = jg.rand(2).tolist()
    jg.set_rng_state(state)
    assert jg.rand(2).tolist() == x


def test_a_foreign_generator_is_refused():
    with pytest.raises(TypeError, match="expected a jitgrad.Generator or None, got "
                                        "numpy.random._generator.Generator"):
        jg.randn(2, generator=np.random.default_rng())
    with pytest.raises(TypeError, match="unexpected keyword argument 'seed'"):
        jg.empty(2).uniform_(seed=3)


def test_set_grad_enabled_as_call_context_and_decorator():
    x = jg.ones(2, requires_grad=True)
    jg.set_grad_enabled(False)
    try:
        assert not jg.is_grad_enabled() and not (x * 2).requires_grad
    finally:
        jg.set_grad_enabled(True)
    assert jg.is_grad_enabled()
    with jg.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad

    @jg.set_grad_enabled(False)
    def f():
        return jg.is_grad_enabled()
    assert jg.is_grad_enabled() and f() is False and jg.is_grad_enabled()


def test_inference_mode_forms():
    x = jg.ones(2, requires_grad=True)
    with jg.inference_mode():
        assert jg.is_inference_mode_enabled() and not (x * 2).requires_grad
    assert not jg.is_inference_mode_enabled() and (x * 2).requires_grad

    @jg.inference_mode
    def bare():
        return (x * 2).requires_grad, jg.is_inference_mode_enabled()

    @jg.inference_mode()
    def called():
        return (x * 2).requires_grad
    assert bare() == (False, True) and called() is False and bare() == (False, True)
    with jg.inference_mode(False):
        assert (x * 2).requires_grad and not jg.is_inference_mode_enabled()
