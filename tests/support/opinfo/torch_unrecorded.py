"""The public callables of jitgrad.* and jg.Tensor that have no op record, each with the reason:
classes, transformations, random draws, grad-mode / device / config / dtype queries, metadata
predicates. tests/consistency/test_opinfo_coverage.py checks that every other name is recorded."""
import jitgrad

_CLASS = "a class (exception or type), not an op"
_TRANSFORM = ("a function transformation / control-flow primitive: tested on every path by "
              "tests/transforms and tests/consistency, not an op with a NumPy reference")
_RANDOM = ("a random draw: values come from jitgrad's generator (torch's differ), "
           "distributions tested in tests/random and tests/torch_api")
_MODE = "grad-mode / inference-mode state or context manager, not an op"
_CONFIG = "global configuration (default dtype, matmul precision, seeds), not an op"
_DEVICE = "device placement / synchronisation, not an op"
_DTYPE = "a dtype query or promotion rule on dtypes, not an op on tensor values"
_META = "a predicate on a tensor's dtype or metadata (a Python bool), not an op on its values"
_IO = "serialization / external memory (file, buffer, DLPack), not an op"
_AUTOGRAD = "autograd state of a tensor (grad, hooks, requires_grad), not an op"

_FUNCTIONS = {
    **dict.fromkeys("""ArtifactError ConcretizationError Device DeviceMismatchError Generator
        ShapeDtype ShapeError Size Tensor UnexpectedTracerError""".split(), _CLASS),
    **dict.fromkeys("""checkpoint checkpoint_policies compile cond custom_vjp fori_loop grad
        hessian jacfwd jacrev jit jvp make_graph remat scan stop_gradient switch
        value_and_grad vjp vmap while_loop""".split(), _TRANSFORM),
    **dict.fromkeys("""bernoulli binomial multinomial normal poisson rand rand_like randint
        randint_like randn randn_like randperm""".split(), _RANDOM),
    **dict.fromkeys("""enable_grad inference_mode is_grad_enabled is_inference_mode_enabled
        no_grad set_grad_enabled""".split(), _MODE),
    **dict.fromkeys("""get_default_dtype get_float32_matmul_precision get_rng_state
        initial_seed manual_seed seed set_default_dtype set_float32_matmul_precision
        set_rng_state""".split(), _CONFIG),
    **dict.fromkeys("block_until_ready device device_get device_put get_device".split(),
                    _DEVICE),
    **dict.fromkeys("can_cast finfo iinfo promote_types result_type".split(), _DTYPE),
    **dict.fromkeys("""is_complex is_conj is_distributed is_floating_point is_inference is_neg
        is_nonzero is_same_size is_signed is_storage is_tensor""".split(), _META),
    **dict.fromkeys("from_dlpack frombuffer load".split(), _IO),
}
_FUNCTIONS["broadcast_shapes"] = "shape arithmetic on tuples of ints, not an op on tensors"
_FUNCTIONS.update(dict.fromkeys("""bfloat16 bool bool_ cdouble cfloat complex128 complex64 double
    float float16 float32 float64 half int int16 int32 int64 int8 long short uint16 uint32 uint64
    uint8""".split(), "a dtype object (torch.float32, torch.long, ...), not an op"))
_FUNCTIONS["default_generator"] = "the global random generator object, not an op"
# torch's legacy tensor types and memory-format / layout objects (where jitgrad has them)
_FUNCTIONS.update({n: "a legacy tensor type or a dtype / layout / memory-format object, not an op"
                   for n in """BFloat16Tensor BoolTensor ByteTensor CharTensor ComplexDoubleTensor
    ComplexFloatTensor DoubleTensor FloatTensor HalfTensor IntTensor LongTensor ShortTensor
    channels_last channels_last_3d contiguous_format dtype layout memory_format preserve_format
    strided""".split() if hasattr(jitgrad, n)})
_FUNCTIONS.update({n: why for n, why in (("ShapeDtypeStruct", _CLASS), ("eval_shape", _TRANSFORM),
                                         ("make_jaxpr", _TRANSFORM), ("save", _IO),
                                         ("Array", _CLASS), ("jacobian", _TRANSFORM))
                   if hasattr(jitgrad, n)})

_METHODS = {
    **dict.fromkeys("""backward requires_grad_ retain_grad""".split(), _AUTOGRAD),
    **dict.fromkeys("""bernoulli bernoulli_ cauchy_ exponential_ geometric_ log_normal_
        multinomial normal_ random_ uniform_""".split(), _RANDOM),
    **dict.fromkeys("""block_until_ready cpu cuda delete get_device is_deleted pin_memory
        to_device""".split(), _DEVICE),
    **dict.fromkeys("""is_coalesced is_complex is_conj is_contiguous is_distributed
        is_floating_point is_inference is_neg is_nonzero is_pinned is_same_size is_shared
        is_signed stride""".split(), _META),
}

UNRECORDED = {"jitgrad": _FUNCTIONS, "jitgrad.Tensor": _METHODS}
