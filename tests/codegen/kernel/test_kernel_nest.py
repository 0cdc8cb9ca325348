"""The shared kernel descriptions of codegen/kernel/nest.py that the LLVM and the CUDA renderers
read: an elementwise kernel's collapsed shapes, and a matmul's GEMM (M, N, K, batch, each
operand's buffer, layout and stride, merged rows) for plain, batched, transposed and im2col
(convolution) products; and that the CPU's GEMM calls follow the nest."""
import math

import numpy as np

import jitgrad as jg
import jitgrad.nn.functional as F
import jitgrad.numpy as jnp
from jitgrad.codegen.cpu.kernels import matmul
from jitgrad.codegen.kernel.nest import aligned_shape, elementwise_nest, matmul_nest
from jitgrad.ir.passes.fusion_rules import analyze_kernel, im2col_rows

f32 = "float32"


def _kernels(f, *shapes, kind):
    args = [jg.ShapeDtype(s, f32) for s in shapes]
    return [n for n in jg.jit(f).lower(*args).schedule if n.params.get("kind") == kind]


def _elementwise(f, *shapes):
    (node,) = _kernels(f, *shapes, kind="elementwise")
    return node, elementwise_nest(node.params["body"], analyze_kernel(node))


def _by_shape(nest):
    """{value's own shape: its shape in the walked dims} (the shapes here are distinct)."""
    return {tuple(v.type.shape): s for v, s in nest.shapes.items()}


def test_broadcast_elementwise_collapses_dims_every_array_spans_alike():
    node, nest = _elementwise(lambda x, b, y: x + b * y, (2, 3, 4, 5), (3, 4, 5), (2, 3, 1, 1))
    assert nest.domain == (2, 3, 4, 5) and nest.size == 120
    # x spans all, b the last three, y the first two: dims 2 and 3 merge, 0 and 1 stay apart
    assert nest.shape == (2, 3, 20)
    assert _by_shape(nest) == {(2, 3, 4, 5): (2, 3, 20), (3, 4, 5): (1, 3, 20),
                               (2, 3, 1, 1): (2, 3, 1)}
    assert nest.outputs == tuple(dict.fromkeys(node.params["body"].outputs))
    info = analyze_kernel(node)
    for v in nest.shapes:        # the collapse keeps each array's size
        assert math.prod(nest.shapes[v]) == math.prod(aligned_shape(info, v))


def test_bias_broadcast_and_same_shape_kernels():
    _, nest = _elementwise(lambda x, b: jnp.tanh(x + b), (4, 6, 7, 33), (33,))
    assert nest.shape == (168, 33)
    assert _by_shape(nest) == {(4, 6, 7, 33): (168, 33), (33,): (1, 33)}
    _, nest = _elementwise(lambda x, y: x * y + 1.0, (2, 3, 4, 5), (2, 3, 4, 5))
    assert nest.shape == (120,) and set(_by_shape(nest).values()) == {(120,)}
    _, nest = _elementwise(lambda x: x * 3.0, ())
    assert nest.shape == (1,) and set(nest.shapes.values()) == {(1,)}


def _matmul(f, *shapes):
    (node,) = _kernels(f, *shapes, kind="matmul")
    return node, matmul_nest(node.params["body"])


def test_batched_matmul_with_a_transposed_operand():
    node, nest = _matmul(lambda a, b: jnp.tanh(a @ jnp.swapaxes(b, -1, -2)), (3, 6, 4), (3, 5, 4))
    body = node.params["body"]
    assert (nest.M, nest.N, nest.K, nest.batch) == (6, 5, 4, (3,))
    assert {nest.a.value, nest.b.value} == set(body.inputs)     # both read as stored
    assert (nest.a.shape, nest.a.transposed, nest.a.im2col, nest.a.strides, nest.a.ld) == (
        (3, 6, 4), False, None, (24,), 4)
    assert (nest.b.shape, nest.b.transposed, nest.b.im2col, nest.b.strides, nest.b.ld) == (
        (3, 5, 4), True, None, (20,), 4)
    assert not nest.rows_merge and nest.gemm == (6, 5, 4, (3,))
    assert nest.batch_strides(nest.b) == (20,) and nest.store is None
    assert nest.product not in body.outputs and len(nest.epilogue) == 1
    assert matmul.gemm_calls(node) == 3


def test_broadcast_weight_merges_rows():
    node, nest = _matmul(lambda x, w: x @ w.T, (4, 2, 6, 8), (5, 8))     # nn.Linear
    assert (nest.M, nest.N, nest.K, nest.batch) == (6, 5, 8, (4, 2))
    assert nest.b.transposed and nest.b.shape == (5, 8) and nest.batch_strides(nest.b) == (0, 0)
    assert nest.rows_merge and nest.gemm == (48, 5, 8, ())
    assert nest.outputs == (nest.product,) and nest.epilogue == ()
    assert matmul.gemm_calls(node) == 1
    _, nest = _matmul(lambda m, v: m @ v, (6, 4), (3, 4, 5))   # the left operand broadcast
    assert not nest.rows_merge and nest.batch_strides(nest.a) == (0,) and nest.a.ld == 4


def test_convolution_products_read_im2col_columns_in_place():
    """The forward product reads the image's columns by a table of row starts; the weight
    gradient reads them transposed (`dy @ cols^T`)."""
    node, nest = _matmul(lambda x, w: F.conv2d(x, w, padding=1), (2, 3, 10, 10), (4, 3, 3, 3))
    image = nest.b.value
    assert image in node.params["body"].inputs and image.type.shape == (2, 3, 156)
    assert (nest.M, nest.N, nest.K, nest.batch) == (4, 120, 27, (2,))
    assert nest.a.im2col is None and nest.a.shape == (4, 27) and nest.a.strides == ()
    assert nest.b.im2col is not None and not nest.b.transposed and nest.b.shape == (2, 27, 120)
    assert nest.b.strides == (3 * 156,)             # one image, not one matrix of columns
    assert nest.b.rows == im2col_rows(nest.b.im2col, image.type.shape) and len(nest.b.rows) == 27
    assert not nest.rows_merge and nest.gemm == (4, 120, 27, (2,))

    def weight_grad(x, w):
        return jg.grad(lambda w: jnp.sum(F.conv2d(x, w) ** 2))(w)
    nests = [matmul_nest(k.params["body"])
             for k in _kernels(weight_grad, (2, 3, 10, 10), (4, 3, 3, 3), kind="matmul")]
    (nest,) = [n for n in nests if n.b.transposed]
    assert nest.b.im2col is not None and nest.b.shape == (2, 27, 80)
    assert (nest.M, nest.N, nest.K, nest.batch) == (4, 27, 80, (2,))
    assert nest.b.strides == (3 * 110,) and not nest.a.transposed


def test_cpu_results_through_the_nests():
    rng = np.random.default_rng(0)
    x, b, y = (rng.standard_normal(s).astype(np.float32)
               for s in ((2, 3, 4, 5), (3, 4, 5), (2, 3, 1, 1)))
    got = jg.jit(lambda x, b, y: x + b * y)(x, b, y)
    np.testing.assert_allclose(np.asarray(got), x + b * y, rtol=1e-6)
    a, w = rng.standard_normal((3, 6, 4)), rng.standard_normal((3, 5, 4))
    got = jg.jit(lambda a, w: jnp.tanh(a @ jnp.swapaxes(w, -1, -2)))(a, w)
    np.testing.assert_allclose(np.asarray(got), np.tanh(a @ np.swapaxes(w, -1, -2)), rtol=1e-12)
