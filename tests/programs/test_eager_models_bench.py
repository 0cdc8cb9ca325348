"""The eager-models benchmark (benchmarks/eager_models.py) runs one eager training step of each
model in jitgrad at tiny sizes; no timings are checked."""
import math

import pytest

from jitgrad.benchmarks import eager_models
from jitgrad.benchmarks.eager_models_cli import parse


@pytest.mark.parametrize("model", eager_models.MODELS)
def test_one_eager_step_of_each_model(model):
    out = eager_models.run("jitgrad", model, small=True, steps=1, warmup=0, threads=1)
    assert "error" not in out
    assert out["steps"] == 1 and out["median_ms"] > 0
    assert all(math.isfinite(v) for v in out["losses"] + [out["eval_loss0"]])


def test_initial_weights_depend_on_the_name_alone():
    a = eager_models.initial_weights({"fc.weight": (3, 4), "ln.weight": (4,), "fc.bias": (3,)})
    b = eager_models.initial_weights({"fc.weight": (3, 4)})
    assert (a["fc.weight"] == b["fc.weight"]).all() and (a["ln.weight"] == 1).all()


def test_command_line_checks_names():
    with pytest.raises(SystemExit):
        parse(["--models", "resnet"], "eager-models")
    args = parse(["--models", "cnn", "--threads", "1"], "eager-models")
    assert args.models == ["cnn"] and args.threads == 1
