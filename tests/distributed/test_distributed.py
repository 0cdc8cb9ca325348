"""jg.distributed and nn.parallel: collectives over pytrees, data-parallel training equal to
single-process training on the concatenated batch, and faults that end the whole job.

The multi-rank cases run this file as a script under `mpiexec -n 2` (scenarios at the bottom);
each rank saves what it computed and the test compares. They skip only without mpi4py."""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import jitgrad as jg
from jitgrad import distributed as dist
from jitgrad.data import ArrayLoader
from jitgrad.nn import functional as F
from jitgrad.nn.parallel import DistributedDataParallel

N_SAMPLES, RANK_BATCH, EPOCHS, LR = 24, 4, 2, 0.1


# ---------------------------------------------------------------------------------- shared

def mixed_tree(r):
    """A nested pytree of mixed dtypes and leaf kinds whose values depend on the rank."""
    return {"w": jg.tensor(np.arange(6, dtype=np.float32).reshape(2, 3) * (r + 1)),
            "stats": [np.arange(4, dtype=np.int64) + r, np.float64(r + 0.5), 2 * r + 1],
            "flags": (np.array([r == 0, True, False]), np.full((2, 2), r, np.float16)),
            "big": np.linspace(0, 1, 5000) + r,      # its own bucket with bucket_bytes=4096
            "none": None}


def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(N_SAMPLES, 5)).astype(np.float32), rng.integers(0, 3, N_SAMPLES)


def make_model(seed):
    jg.manual_seed(seed)
    return jg.nn.Sequential(jg.nn.Linear(5, 8), jg.nn.Tanh(), jg.nn.Linear(8, 3))


def loss_fn(model, x, y):
    return F.cross_entropy(model(x), y)


def train_ddp(shard):
    """PyTorch style: DDP + SGD with momentum; ranks start from different inits."""
    x, y = data()
    model = DistributedDataParallel(make_model(seed=100 + shard[0]))
    opt = jg.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    loader = ArrayLoader(x, y, batch_size=RANK_BATCH, shuffle=True, seed=1, shard=shard)
    for _ in range(EPOCHS):
        for xb, yb in loader:
            model.backward(loss_fn(model, xb, yb))
            opt.step()
            opt.zero_grad()
    return [p.detach().numpy() for p in model.parameters()]


def train_functional(shard):
    """JAX style: a jitted value_and_grad, allreduce of its outputs, a jitted Adam update."""
    x, y = data()
    model = dist.broadcast(make_model(seed=200 + shard[0]))
    opt = jg.optim.adam(0.05)
    state = opt.init(model)
    grad_step = jg.jit(jg.value_and_grad(loss_fn))
    update = jg.jit(opt.update)
    loader = ArrayLoader(x, y, batch_size=RANK_BATCH, shuffle=True, seed=1, shard=shard)
    for _ in range(EPOCHS):
        for xb, yb in loader:
            loss, grads = grad_step(model, xb, yb)
            grads = dist.allreduce(grads)
            model, state = update(grads, state, model)
    return [np.asarray(p) for p in model.parameters()]


def reference_ddp(seed):
    """train_ddp in one process on the concatenated batches of both ranks."""
    x, y = data()
    model = make_model(seed)
    opt = jg.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    loader = ArrayLoader(x, y, batch_size=2 * RANK_BATCH, shuffle=True, seed=1)
    for _ in range(EPOCHS):
        for xb, yb in loader:
            loss_fn(model, xb, yb).backward()
            opt.step()
            opt.zero_grad()
    return [p.detach().numpy() for p in model.parameters()]


def reference_functional(seed):
    """train_functional in one process on the concatenated batches of both ranks."""
    x, y = data()
    model = make_model(seed)
    opt = jg.optim.adam(0.05)
    state = opt.init(model)
    loader = ArrayLoader(x, y, batch_size=2 * RANK_BATCH, shuffle=True, seed=1)
    for _ in range(EPOCHS):
        for xb, yb in loader:
            _, grads = jg.value_and_grad(loss_fn)(model, xb, yb)
            model, state = opt.update(grads, state, model)
    return [np.asarray(p) for p in model.parameters()]


# ---------------------------------------------------------------------------------- launching

def mpiexec():
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return here if os.path.exists(here) else shutil.which("mpiexec")


def launch(scenario, out_dir, timeout=120):
    pytest.importorskip("mpi4py", reason="mpi4py is not installed (pip install "
                        "'jitgrad[distributed]'); multi-rank tests need it")
    if mpiexec() is None:
        pytest.skip("mpi4py is installed but no mpiexec was found")
    cmd = [mpiexec(), "--allow-run-as-root", "--oversubscribe", "-n", "2",
           sys.executable, __file__, scenario, str(out_dir)]
    env = {**os.environ, "JITGRAD_BACKEND": "interpreter"}   # semantics, not compile time
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory):
    """Run the collective and training scenario once on two ranks; load each rank's output."""
    out = tmp_path_factory.mktemp("ranks")
    r = launch("train", out)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return [dict(np.load(out / f"rank{i}.npz", allow_pickle=False)) for i in range(2)]


# ---------------------------------------------------------------------------------- tests: 2 ranks

def test_allreduce_nested_mixed_dtype_pytree(two_ranks):
    t0, t1 = (jg.tree_util.tree_leaves(mixed_tree(r)) for r in range(2))
    for rank_out in two_ranks:
        for i, (a, b) in enumerate(zip(t0, t1)):
            a, b = np.asarray(a), np.asarray(b)
            total = (a | b) if a.dtype == np.bool_ else a + b
            got = rank_out[f"sum{i}"]
            assert got.dtype == a.dtype and got.shape == a.shape
            np.testing.assert_array_equal(got, total)
            np.testing.assert_array_equal(rank_out[f"max{i}"], np.maximum(a, b))
        w0, w1 = (np.asarray(mixed_tree(r)["w"]) for r in range(2))
        np.testing.assert_allclose(rank_out["mean_w"], (w0 + w1) / 2)
        # leaves keep their kind: big, flags (2), stats (3), w; arrays and tensors in place
        assert rank_out["kinds"].tolist() == ["ndarray", "ndarray", "ndarray", "ndarray",
                                              "float64", "int", "Tensor"]
        assert rank_out["in_place"].tolist() == [True, True, True]
        assert rank_out["inputs_kept"]            # inplace=False


def test_broadcast_and_allgather_nested_pytree(two_ranks):
    leaves = [jg.tree_util.tree_leaves(mixed_tree(r)) for r in range(2)]
    for rank_out in two_ranks:
        for i, a in enumerate(leaves[1]):
            got = rank_out[f"bcast{i}"]
            assert got.dtype == np.asarray(a).dtype
            np.testing.assert_array_equal(got, np.asarray(a))          # root=1's values
            np.testing.assert_array_equal(rank_out[f"gather{i}"],
                                          np.stack([np.asarray(x[i]) for x in leaves]))


def test_ddp_equals_single_process_training_on_the_concatenated_batch(two_ranks):
    expected = reference_ddp(seed=100)       # rank 0's init, broadcast by DDP
    for rank_out in two_ranks:
        for i, e in enumerate(expected):
            np.testing.assert_allclose(rank_out[f"ddp{i}"], e, rtol=1e-5, atol=1e-6)
    for i in range(len(expected)):                  # and bit-identical across ranks
        np.testing.assert_array_equal(two_ranks[0][f"ddp{i}"], two_ranks[1][f"ddp{i}"])


def test_functional_jitted_training_equals_single_process(two_ranks):
    expected = reference_functional(seed=200)
    for rank_out in two_ranks:
        for i, e in enumerate(expected):
            np.testing.assert_allclose(rank_out[f"fn{i}"], e, rtol=1e-5, atol=1e-6)


def test_ranks_shards_cover_every_sample_once_per_epoch(two_ranks):
    for rank_out in two_ranks:
        epochs = rank_out["shard_rows"]          # (world, epochs, rows per rank), gathered
        for e in range(epochs.shape[1]):
            np.testing.assert_array_equal(np.sort(epochs[:, e].ravel()), np.arange(N_SAMPLES))
        assert rank_out["world"] == 2 and rank_out["barrier"] == 1


def test_a_raising_rank_aborts_the_whole_job_naming_it(tmp_path):
    r = launch("raise", tmp_path, timeout=60)     # rank 0 would otherwise wait forever
    assert r.returncode != 0
    assert "ValueError: bad batch on rank 1" in r.stderr
    assert re.search(r"jitgrad.distributed: rank 1 of 2: uncaught ValueError: bad batch on "
                     r"rank 1; aborting all 2 ranks \(MPI_Abort\)", r.stderr), r.stderr


def test_mismatched_pytrees_raise_on_every_rank_then_abort(tmp_path):
    r = launch("mismatch", tmp_path, timeout=60)
    assert r.returncode != 0
    for rank in (0, 1):    # shapes differ: every rank raised the same clear error and caught it
        caught = re.search(rf"rank {rank} caught: jg.distributed.allreduce: ranks passed "
                           r"different pytrees.* \|   rank 0: allreduce\(op='mean'\) with "
                           r"tree\['w'\]: float32\[3\].* \|   rank 1: allreduce\(op='mean'\) "
                           r"with tree\['w'\]: float32\[4\]", r.stdout)
        assert caught, r.stdout + r.stderr
    # then the structure differs (other keys), uncaught: the job ends
    # (each line on its own: mpiexec may interleave the two ranks' tracebacks line by line)
    assert re.search(r"rank 0: broadcast\(root=0\) with tree\['a'\]: float64\[2\]", r.stderr)
    assert re.search(r"rank 1: broadcast\(root=0\) with tree\['b'\]: float64\[2\]", r.stderr)
    assert "aborting all 2 ranks (MPI_Abort)" in r.stderr


# ---------------------------------------------------------------------------------- tests: 1 process

def test_single_process_is_a_no_op():
    assert not dist.launched_by_mpi()
    dist.init()
    assert dist.is_initialized() and dist.rank() == 0 and dist.world_size() == 1
    tree = mixed_tree(0)
    assert dist.allreduce(tree, "sum") is tree and dist.broadcast(tree) is tree
    dist.barrier()
    gathered = dist.allgather({"x": jg.tensor([1.0, 2.0]), "n": 3})
    assert gathered["x"].shape == (1, 2) and gathered["n"].tolist() == [3]
    model = make_model(0)
    before = [p.detach().numpy().copy() for p in model.parameters()]
    ddp = DistributedDataParallel(model)
    x, y = data()
    ddp.backward(loss_fn(ddp, x, y))
    for p, b in zip(model.parameters(), before):
        np.testing.assert_array_equal(p.detach().numpy(), b)
        assert p.grad is not None
    assert list(ddp.state_dict())[0] == "module.0.weight"


def test_no_sync_accumulates_locally():
    ddp = DistributedDataParallel(make_model(0))
    x, y = data()
    with ddp.no_sync():
        assert not ddp.require_sync
        ddp.backward(loss_fn(ddp, x[:4], y[:4]))
    assert ddp.require_sync
    ddp.backward(loss_fn(ddp, x[4:8], y[4:8]))
    ref = make_model(0)
    loss_fn(ref, x[:4], y[:4]).backward()
    loss_fn(ref, x[4:8], y[4:8]).backward()
    for p, q in zip(ddp.parameters(), ref.parameters()):   # float32 sums, compiled kernels:
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-8)


def test_collective_argument_errors():
    with pytest.raises(ValueError, match=r"allreduce: op must be one of 'sum', 'mean', 'max', "
                                         r"'min', got 'avg'"):
        dist.allreduce([1.0], op="avg")
    with pytest.raises(TypeError, match=r"op='mean' needs floating-point leaves, but the leaf at "
                                        r"tree\['stats'\]\[0\] is int64; cast it"):
        dist.allreduce({"w": np.ones(2), "stats": [np.arange(3)]})
    with pytest.raises(TypeError, match=r"broadcast: the leaf at tree\[1\] is a str; expected "
                                        r"jitgrad tensors, NumPy arrays or Python numbers"):
        dist.broadcast([np.ones(2), "name"])
    with pytest.raises(ValueError, match=r"broadcast: root must be a rank in 0\.\.0, got 1"):
        dist.broadcast([np.ones(2)], root=1)
    with pytest.raises(TypeError, match="DistributedDataParallel: expected a jg.nn.Module to "
                                        "wrap, got list"):
        DistributedDataParallel([np.ones(2)])


def test_collectives_inside_jit_point_to_the_jitted_outputs():
    @jg.jit
    def step(w):
        return dist.allreduce({"w": w * 2})["w"]
    with pytest.raises(TypeError, match=r"allreduce: the leaf at tree\['w'\] is a value traced "
                                        r"inside jg.jit; collectives run on concrete arrays"):
        step(jg.tensor([1.0]))


def test_launched_by_mpi_without_mpi4py_says_what_to_install():
    code = ("import sys; sys.modules['mpi4py'] = None\n"
            "import jitgrad as jg\n"
            "jg.distributed.init()")
    env = {**os.environ, "OMPI_COMM_WORLD_SIZE": "2", "OMPI_COMM_WORLD_RANK": "0"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=60)
    assert r.returncode == 1
    assert ("DistributedError: jg.distributed.init: this process was started by an MPI "
            "launcher (2 ranks) but mpi4py is not installed; install it with pip install "
            "'jitgrad[distributed]'") in r.stderr


# ---------------------------------------------------------------------------------- scenarios

def scenario_train(out_dir):
    r, world = dist.rank(), dist.world_size()
    saved = {"world": world}
    for name, op in (("sum", "sum"), ("max", "max")):
        out = dist.allreduce(mixed_tree(r), op, bucket_bytes=4096)
        for i, leaf in enumerate(jg.tree_util.tree_leaves(out)):
            saved[f"{name}{i}"] = np.asarray(leaf)
    tree = mixed_tree(r)
    mean = dist.allreduce({"w": tree["w"], "big": tree["big"]}, inplace=False)
    saved["mean_w"] = np.asarray(mean["w"])
    saved["inputs_kept"] = all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in
                               zip(jg.tree_util.tree_leaves(tree), jg.tree_util.tree_leaves(
                                   mixed_tree(r))))
    out = dist.allreduce(tree, "sum")
    saved["kinds"] = np.array([type(k).__name__ for k in jg.tree_util.tree_leaves(out)])
    saved["in_place"] = [out["w"] is tree["w"], out["big"] is tree["big"],
                         out["flags"][0] is tree["flags"][0]]
    for i, leaf in enumerate(jg.tree_util.tree_leaves(dist.broadcast(mixed_tree(r), root=1))):
        saved[f"bcast{i}"] = np.asarray(leaf)
    gathered = dist.allgather(mixed_tree(r), bucket_bytes=64)
    for i, leaf in enumerate(jg.tree_util.tree_leaves(gathered)):
        saved[f"gather{i}"] = np.asarray(leaf)
    x, y = data()
    loader = ArrayLoader(np.arange(N_SAMPLES), batch_size=5, shuffle=True, seed=1,
                        shard=(r, world))
    rows = np.stack([np.concatenate([b for (b,) in loader]) for _ in range(EPOCHS)])
    saved["shard_rows"] = dist.allgather(rows)
    for i, p in enumerate(train_ddp((r, world))):
        saved[f"ddp{i}"] = p
    for i, p in enumerate(train_functional((r, world))):
        saved[f"fn{i}"] = p
    dist.barrier()
    saved["barrier"] = 1
    np.savez(os.path.join(out_dir, f"rank{r}.npz"), **saved)


def scenario_raise(out_dir):
    dist.allreduce([np.ones(3)])
    if dist.rank() == 1:
        raise ValueError("bad batch on rank 1")
    dist.allreduce([np.ones(3)])     # rank 0 waits here for a partner that is gone


def scenario_mismatch(out_dir):
    r = dist.rank()
    try:
        dist.allreduce({"w": np.zeros(3 + r, np.float32)})
    except dist.DistributedError as e:
        msg = str(e).replace("\n", " | ")      # one line: mpiexec interleaves the ranks' lines
        print(f"rank {r} caught: {msg}", flush=True)
    dist.broadcast({"ab"[r]: np.zeros(2)})


if __name__ == "__main__":
    globals()[f"scenario_{sys.argv[1]}"](sys.argv[2])
