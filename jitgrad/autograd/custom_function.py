"""torch.autograd.Function: an op with a hand-written backward, as a subclass with static
`forward(ctx, *args)` and `backward(ctx, *grad_outputs)` (or torch 2's `forward(*args)` with
`setup_context(ctx, inputs, output)`), called through `.apply(*args)`.

Built on jg.custom_vjp: forward is the primal and, with the tensors the context saves as
residuals, the forward rule; backward is the reverse rule. So it works eagerly with
`.backward()`, under jg.grad / jit / vmap. The context's other attributes (numbers, shapes,
flags set in forward) reach backward as they are; tensors stored as plain attributes
(`ctx.x = x`) travel as residuals like save_for_backward's. Non-tensor arguments (a dim, a
flag) are passed through; backward returns one gradient per forward argument (None for those).
Both are traced, as a custom_vjp's rules are: they compute with jitgrad operations; reading a
value on the host (`x.item()`, `x.numpy()`) inside them raises a ConcretizationError.
"""
from __future__ import annotations

from ..eager.array_base import ArrayOps
from ..transforms.custom_vjp import custom_vjp


class FunctionCtx:
    """The `ctx` of forward and backward."""

    def __init__(self, needs_input_grad=()):
        self.needs_input_grad = tuple(needs_input_grad)
        self.saved_tensors = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        self.saved_tensors = tuple(tensors)

    def mark_non_differentiable(self, *outputs):
        """Accepted; such outputs still carry requires_grad here, and their cotangents reach
        backward as zeros unless something downstream uses them."""

    def mark_dirty(self, *tensors):
        """Accepted: the forward runs traced, so it writes no input in place."""

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


def _is_array(x) -> bool:
    return isinstance(x, ArrayOps)


class Function:
    """torch.autograd.Function: subclass it with static forward and backward, call
    `MyFunction.apply(*args)`."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("a Function subclass defines a static forward(ctx, *args)")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("a Function subclass defines a static "
                                  "backward(ctx, *grad_outputs)")

    @classmethod
    def _run_forward(cls, ctx, args):
        if hasattr(cls, "setup_context"):      # torch 2's form: forward without ctx
            out = cls.forward(*args)
            cls.setup_context(ctx, args, out)
            return out
        return cls.forward(ctx, *args)

    @classmethod
    def apply(cls, *args):
        positions = [i for i, a in enumerate(args) if _is_array(a)]
        needs = tuple(bool(getattr(a, "requires_grad", False)) for a in args)
        kept = {}                           # the forward rule's context, for the backward rule

        def full(arrays):
            out = list(args)
            for i, a in zip(positions, arrays):
                out[i] = a
            return out

        def primal(*arrays):
            return cls._run_forward(FunctionCtx(needs), full(arrays))

        def forward_rule(*arrays):
            ctx = FunctionCtx(needs)
            out = cls._run_forward(ctx, full(arrays))
            attrs = {k: v for k, v in vars(ctx).items() if k != "saved_tensors"}
            tensor_attrs = {k: v for k, v in attrs.items() if _is_array(v)}
            kept["attrs"] = {k: v for k, v in attrs.items() if k not in tensor_attrs}
            return out, (tuple(ctx.saved_tensors), tensor_attrs)

        def backward_rule(residuals, cotangent):
            saved, tensor_attrs = residuals
            ctx = FunctionCtx(needs)
            vars(ctx).update(kept["attrs"])
            vars(ctx).update(tensor_attrs)
            ctx.saved_tensors = tuple(saved)
            grads = cls.backward(ctx, *(cotangent if isinstance(cotangent, tuple)
                                        else (cotangent,)))
            grads = grads if isinstance(grads, tuple) else (grads,)
            if len(grads) < len(args):
                raise RuntimeError(f"{cls.__name__}.backward returned {len(grads)} gradients, "
                                   f"expected {len(args)} (one per forward argument)")
            return tuple(grads[i] for i in positions)

        primal.__name__ = cls.__name__
        op = custom_vjp(primal)
        op.defvjp(forward_rule, backward_rule)
        return op(*[args[i] for i in positions])
