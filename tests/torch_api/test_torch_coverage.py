"""torch.Tensor's public methods and torch's top-level functions (checked-in lists of torch 2.13,
tests/support/torch_names.py) on jg.Tensor and at jitgrad.*: the share present among the names not
excluded (each exclusion with its reason) stays at or above what is reached; with torch
installed, the lists equal the installed torch's."""
import inspect
import re

import pytest

import jitgrad as jg
from tests.support.torch_names import TENSOR_METHODS, TORCH_FUNCTIONS

# pattern (a full-match regex) -> why such names are not jitgrad's to have
EXCLUDED_PATTERNS = {
    r"(to_)?sparse.*|.*_sparse_|.*spmm|s?smm|[hds]smm|sspaddmm|saddmm|coalesce|"
    r"(c?col|crow|row)_indices(_copy)?|indices(_copy)?|values(_copy)?|dense_dim|to_dense|"
    r"resize_as_sparse_": "sparse tensors: jitgrad's tensors are dense",
    r"q_.*|quantize.*|quantized_.*|empty_quantized|qscheme|int_repr|dequantize|fake_quantize_.*|choose_qparams_optimized|"
    r"fused_moving_avg_obs_fake_quant": "quantized tensors: jitgrad has no quantized dtypes",
    r"cudnn_.*|miopen_.*|mkldnn_.*|to_mkldnn|fbgemm_.*": "vendor-library kernels behind torch's "
                                                         "operators, not a user API",
    r".*autocast.*": "autocast (mixed precision by context): jitgrad computes 16-bit inputs in "
                     "float32 itself (DESIGN 14)",
    r"sym_.*": "symbolic shapes of torch.fx / dynamo tracing",
    r"as_strided.*|empty_strided|new_empty_strided|empty_permuted|dim_order|storage_offset":
        "explicit strides: jitgrad's tensors have no user-visible strides",
    r"(untyped_)?storage(_type)?|data_ptr|const_data_ptr|set_|is_set_to|share_memory_|"
    r"record_stream|output_nr|module_load|grad_dtype|hash_tensor":
        "storage and allocator internals",
    r"native_(batch_norm|dropout|group_norm|layer_norm|norm)|.*_backward_.*|batch_norm_(elemt|stats|gather_stats.*|update_stats)|"
    r"norm_except_dim|embedding_renorm_|segment_reduce|constant_pad_nd|convolution|"
    r"grid_sampler(_2d|_3d)?|affine_grid_generator|feature_dropout_?|.*_dropout_|dropout_":
        "ATen kernels behind nn.functional's forms: use jitgrad.nn.functional",
    r"(rnn_(relu|tanh)|gru|lstm)(_cell)?|mkldnn_rnn_layer":
        "the kernels behind nn.RNN/GRU/LSTM: use jitgrad.nn's modules",
    r"(binary_cross_entropy_with_logits|cosine_embedding_loss|ctc_loss|hinge_embedding_loss|"
    r"kl_div|margin_ranking_loss|poisson_nll_loss|triplet_margin_loss)":
        "ATen's loss forms take an integer reduction code: use jitgrad.nn.functional's",
    r"(batch_norm|instance_norm|embedding|embedding_bag)":
        "ATen's argument order differs from nn.functional's: use jitgrad.nn.functional",
    r"adaptive_(avg|max)_pool1d": "ATen's forms (max returns indices too): use "
                                  "jitgrad.nn.functional",
    r"import_ir_module.*|parse_(ir|schema|type_comment)|merge_type_from_type_comment|"
    r"unify_type_list|fork|wait|compiled_with_cxx11_abi|classproperty|get_file_path|from_file|"
    r"prepare_multiprocessing_environment|profiler_allow_cudagraph.*|thread_safe_generator|"
    r"get_device_module|is_vulkan_available|init_num_threads":
        "TorchScript, build and process internals",
    r"(set|get|use|are)_.*determinis.*|is_deterministic.*|.*anomaly.*|.*warn_always.*|"
    r"set_flush_denormal|(get|set)_num(_interop)?_threads|set_printoptions|"
    r"set_default_tensor_type|set_default_device|get_default_device|"
    r"clear_autocast_cache": "process-wide PyTorch settings with no jitgrad counterpart "
                             "(jg.config holds jitgrad's)",
    r"ipu|xpu|mtia": "moving to devices jitgrad does not drive",
    r"lu|lu_solve|lu_unpack|lstsq|geqrf|orgqr|ormqr|triangular_solve|solve|eig|symeig|lobpcg|"
    r"pca_lowrank|svd_lowrank|cholesky_ex": "LAPACK-level factorizations (eig, symeig, solve "
                                            "and lstsq are removed from torch.Tensor): use "
                                            "jitgrad.numpy.linalg / jitgrad.scipy.linalg",
    r"stft|istft": "short-time Fourier transforms: not implemented (jitgrad.numpy.fft has the FFTs)",
    r"name|names|refine_names|align_to|align_as|rename_?|to_padded_tensor":
        "named and nested tensors",
    r"register_hook|register_post_accumulate_grad_hook|reinforce|volatile":
        "tensor hooks and legacy autograd flags: jitgrad's eager backward has no per-tensor "
        "hooks",
    r"apply_|map_|map2_": "a Python callable per element (CPU tensors only in torch)",
    r"as_subclass|new|resize_?|resize_as_?|slice_inverse|chalf|layout|index":
        "legacy constructors, in-place storage resizing, complex32 and internal helpers",
    r"histogramdd|to_dlpack": "under other names: jitgrad.numpy.histogramdd, x.__dlpack__",
    r"typename": "a TorchScript type string",
}


def _excluded(name):
    return next((why for pattern, why in EXCLUDED_PATTERNS.items()
                 if re.fullmatch(pattern, name)), None)


def _share(names, where):
    counted = [n for n in names if _excluded(n) is None or hasattr(where, n)]
    present = [n for n in counted if hasattr(where, n)]
    return len(present) / len(counted), sorted(set(counted) - set(present))


def test_tensor_methods_coverage():
    share, missing = _share(TENSOR_METHODS, jg.Tensor)
    print(f"torch.Tensor methods: {share:.1%} present; missing {missing}")
    assert share >= 1.0, missing


def test_top_level_functions_coverage():
    share, missing = _share(TORCH_FUNCTIONS, jg)
    print(f"torch functions: {share:.1%} present; missing {missing}")
    assert share >= 1.0, missing


def test_every_exclusion_pattern_matches_a_name():
    names = set(TENSOR_METHODS) | set(TORCH_FUNCTIONS)
    unused = [p for p in EXCLUDED_PATTERNS if not any(re.fullmatch(p, n) for n in names)]
    assert not unused, unused


def test_the_lists_are_the_installed_torchs():
    torch = pytest.importorskip("torch")
    assert sorted(TENSOR_METHODS) == sorted(n for n in dir(torch.Tensor) if not n.startswith("_"))
    assert sorted(TORCH_FUNCTIONS) == sorted(
        n for n in dir(torch) if not n.startswith("_") and callable(getattr(torch, n))
        and not inspect.isclass(getattr(torch, n)))


def test_excluded_names_are_really_absent():
    present = [n for n in TENSOR_METHODS if _excluded(n) and hasattr(jg.Tensor, n)]
    present += [n for n in TORCH_FUNCTIONS if _excluded(n) and hasattr(jg, n)]
    assert not present, f"present now, narrow EXCLUDED_PATTERNS: {present}"
