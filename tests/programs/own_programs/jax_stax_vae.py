"""A variational autoencoder on binarized digits with stax and example_libraries optimizers
(adam): the encoder splits into mean and scale with FanOut + parallel, images are binarized by
random.bernoulli, the latent sample is mean + scale * random.normal, and a whole epoch of
minibatches runs inside one jitted lax.fori_loop.

Written here (tests/programs/own_programs/README.md); the harness runs this text on JAX and, with
its framework imports renamed, on jitgrad.
"""
import jax.numpy as jnp
from jax import grad, jit, lax, random
from jax.example_libraries import optimizers, stax
from jax.example_libraries.stax import Dense, FanOut, Relu, Softplus

from synthetic_data import mnist_flat

LATENT = 4
BATCH = 32

init_encoder, encode = stax.serial(
    Dense(64), Relu, FanOut(2), stax.parallel(Dense(LATENT), stax.serial(Dense(LATENT), Softplus)))
init_decoder, decode = stax.serial(Dense(64), Relu, Dense(784))


def bernoulli_log_likelihood(logits, x):
    return -jnp.sum(jnp.logaddexp(0.0, jnp.where(x > 0.5, -1.0, 1.0) * logits))


def gaussian_kl(mean, scale):
    var = scale ** 2
    return -0.5 * jnp.sum(1.0 + jnp.log(var) - mean ** 2 - var)


def elbo(key, params, images):
    enc_params, dec_params = params
    mean, scale = encode(enc_params, images)
    z = mean + scale * random.normal(key, mean.shape)
    return bernoulli_log_likelihood(decode(dec_params, z), images) - gaussian_kl(mean, scale)


def binarize(key, images):
    return random.bernoulli(key, images).astype(jnp.float32)


def sample_grid(key, dec_params, count=16):
    z_key, pixel_key = random.split(key)
    logits = decode(dec_params, random.normal(z_key, (count, LATENT)))
    return random.bernoulli(pixel_key, 1.0 / (1.0 + jnp.exp(-logits)))


def main(epochs=2):
    train_x, _, test_x, _ = mnist_flat()
    batches_per_epoch = train_x.shape[0] // BATCH
    opt_init, opt_update, get_params = optimizers.adam(1e-3)

    key = random.PRNGKey(1)
    enc_key, dec_key, key = random.split(key, 3)
    _, enc_params = init_encoder(enc_key, (BATCH, 784))
    _, dec_params = init_decoder(dec_key, (BATCH, LATENT))
    opt_state = opt_init((enc_params, dec_params))

    @jit
    def run_epoch(epoch, opt_state):
        def body(i, opt_state):
            k_bin, k_elbo = random.split(random.fold_in(random.PRNGKey(epoch), i))
            batch = lax.dynamic_slice_in_dim(train_x, i * BATCH, BATCH)
            params = get_params(opt_state)
            g = grad(lambda p: -elbo(k_elbo, p, binarize(k_bin, batch)) / BATCH)(params)
            return opt_update(epoch * batches_per_epoch + i, g, opt_state)
        return lax.fori_loop(0, batches_per_epoch, body, opt_state)

    @jit
    def evaluate(opt_state, key):
        k_bin, k_elbo, k_sample = random.split(key, 3)
        params = get_params(opt_state)
        test_elbo = elbo(k_elbo, params, binarize(k_bin, test_x)) / test_x.shape[0]
        return test_elbo, sample_grid(k_sample, params[1])

    for epoch in range(epochs):
        opt_state = run_epoch(epoch, opt_state)
        test_elbo, grid = evaluate(opt_state, random.fold_in(key, epoch))
        print(f"epoch {epoch}: test elbo {float(test_elbo):.3f}")
    return {"params": get_params(opt_state), "elbo": float(test_elbo), "grid": grid}


if __name__ == "__main__":
    main()
