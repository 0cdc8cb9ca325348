"""jg.save / jg.load (torch.save / torch.load): checkpoints of nested containers of tensors,
read back with torch's weights_only=True allow-list; jg.load still loads AOT artifacts."""
import io
import os
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.nn as nn


def roundtrip(obj, **load_args):
    buf = io.BytesIO()
    jg.save(obj, buf)
    buf.seek(0)
    return jg.load(buf, **load_args)


def test_state_dict_and_training_state_round_trip(tmp_path):
    m = nn.Linear(3, 2)
    opt = jg.optim.AdamW(m.parameters(), lr=0.1)
    m(jg.ones(4, 3)).sum().backward()
    opt.step()
    path = tmp_path / "ck.pt"
    jg.save({"model": m.state_dict(), "optimizer": opt.state_dict(), "iter": 7,
             "betas": (0.9, 0.95), "name": "run"}, path)
    ck = jg.load(path)
    assert ck["iter"] == 7 and ck["betas"] == (0.9, 0.95) and ck["name"] == "run"
    assert isinstance(ck["model"], OrderedDict) and list(ck["model"]) == ["weight", "bias"]
    m2 = nn.Linear(3, 2)
    m2.load_state_dict(ck["model"])
    np.testing.assert_array_equal(m2.weight.detach().numpy(), m.weight.detach().numpy())
    opt2 = jg.optim.AdamW(m2.parameters(), lr=0.1)
    opt2.load_state_dict(ck["optimizer"])
    opt.zero_grad()
    m(jg.ones(4, 3)).sum().backward()
    m2(jg.ones(4, 3)).sum().backward()
    opt.step()
    opt2.step()
    np.testing.assert_array_equal(m2.bias.detach().numpy(), m.bias.detach().numpy())


def test_tensors_keep_dtype_shape_values_and_grad_flags():
    a = jg.tensor(np.arange(6, dtype=np.int64).reshape(2, 3))
    b = jg.tensor(np.float64(2.5))
    c = jg.tensor([1.0, -0.0, np.inf], requires_grad=True)
    p = nn.Parameter(jg.ones(2))
    ra, rb, rc, rp = roundtrip([a, b, c, p])
    assert ra.dtype == np.int64 and ra.shape == (2, 3)
    np.testing.assert_array_equal(ra.numpy(), np.arange(6).reshape(2, 3))
    assert rb.dtype == np.float64 and rb.shape == () and rb.item() == 2.5
    assert rc.requires_grad and np.signbit(rc.detach().numpy()[1])
    assert isinstance(rp, nn.Parameter) and rp.requires_grad


def test_loaded_tensors_are_copies():
    x = jg.zeros(3)
    y = roundtrip({"x": x})["x"]
    y.add_(1.0)
    np.testing.assert_array_equal(x.numpy(), np.zeros(3))


def test_bfloat16_round_trips():
    x = jg.tensor([1.5, -2.0]).to(jg.bfloat16)
    y = roundtrip(x)
    assert y.dtype == jg.bfloat16
    np.testing.assert_array_equal(np.asarray(y, dtype=np.float32), [1.5, -2.0])


def test_weights_only_refuses_other_classes():
    obj = {"f": os.getcwd}
    with pytest.raises(pickle.UnpicklingError, match=r"refusing to rebuild posix.getcwd|"
                                                    r"refusing to rebuild nt.getcwd"):
        roundtrip(obj)
    assert roundtrip(obj, weights_only=False)["f"] is os.getcwd


def test_map_location():
    assert str(roundtrip(jg.ones(2), map_location="cpu").device) == "cpu"
    assert str(roundtrip(jg.ones(2), map_location={"cpu": "cpu"}).device) == "cpu"
    with pytest.raises(TypeError, match="map_location must be None, a device"):
        roundtrip(jg.ones(2), map_location=3)


def test_foreign_files_are_named(tmp_path):
    bad = tmp_path / "model.pt"
    bad.write_bytes(b"\x80\x02}q\x00.")        # a pickle, as torch's legacy format
    with pytest.raises(pickle.UnpicklingError, match="model.pt is not a file jitgrad.save wrote"):
        jg.load(bad)
    import zipfile
    with zipfile.ZipFile(tmp_path / "torch.pt", "w") as z:
        z.writestr("archive/data.pkl", b"")
    with pytest.raises(pickle.UnpicklingError, match="needs torch to read it"):
        jg.load(tmp_path / "torch.pt")


def test_aot_artifacts_still_load(tmp_path):
    path = tmp_path / "f.bin"                  # not *.jgz: found by its manifest
    jg.jit(lambda x: x * 2.0).lower(jg.ShapeDtype((3,), "float32")).compile().save(path)
    np.testing.assert_allclose(np.asarray(jg.load(path)(np.ones(3, np.float32))), [2.0] * 3)


def test_torch_reads_the_same_values_torch_would_save(tmp_path):
    torch = pytest.importorskip("torch")
    m = nn.Linear(2, 2)
    jg.save(m.state_dict(), tmp_path / "a.pt")
    sd = jg.load(tmp_path / "a.pt")
    tm = torch.nn.Linear(2, 2)
    tm.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in sd.items()})
    np.testing.assert_array_equal(tm.weight.detach().numpy(), m.weight.detach().numpy())
