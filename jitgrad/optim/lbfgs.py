"""torch.optim.LBFGS: limited-memory BFGS, step(closure) re-evaluating the loss, with torch's
defaults, stopping rules and optional strong-Wolfe line search (line_search.py). The
parameters are seen as one flat vector; the history (state 'd', 'old_dirs', ...) is kept as
NumPy arrays of the parameters' dtype."""
from __future__ import annotations

import numpy as np

from ..eager.grad_mode import enable_grad, no_grad
from ..eager.tensor import tensor
from .line_search import strong_wolfe
from .optimizer import Optimizer

LINE_SEARCHES = {None: None, "strong_wolfe": strong_wolfe}


class LBFGS(Optimizer):
    """torch.optim.LBFGS(params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
    tolerance_change=1e-9, history_size=100, line_search_fn=None); one parameter group."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        if not 0.0 <= lr:
            raise ValueError(f"LBFGS: invalid learning rate: {lr}")
        if line_search_fn not in LINE_SEARCHES:
            raise ValueError(f"LBFGS: line_search_fn must be None or 'strong_wolfe', got "
                             f"{line_search_fn!r}")
        super().__init__(params, dict(
            lr=lr, max_iter=max_iter, max_eval=max_iter * 5 // 4 if max_eval is None
            else max_eval, tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
            history_size=history_size, line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        return np.concatenate([np.zeros(p.size, np.asarray(p.detach()).dtype)
                               if p.grad is None else np.asarray(p.grad).reshape(-1)
                               for p in self._params])

    def _flat_params(self):
        return [np.asarray(p.detach()).copy() for p in self._params]

    def _set_params(self, values):
        for p, v in zip(self._params, values):
            p.copy_(tensor(v.reshape(p.shape), dtype=p.dtype, device=p.device))

    def _add(self, t, d):
        """params += t * d, d a flat vector."""
        offset, new = 0, []
        for p, v in zip(self._params, self._flat_params()):
            new.append(v + (t * d[offset:offset + v.size]).reshape(v.shape).astype(v.dtype))
            offset += v.size
        self._set_params(new)

    def _evaluate(self, closure):
        with enable_grad():
            loss = closure()
        return loss, float(loss), self._flat_grad()

    def step(self, closure):
        """Up to max_iter L-BFGS iterations; closure() clears the gradients, computes the
        loss, calls backward and returns the loss. Returns the first loss."""
        if closure is None:
            raise TypeError("LBFGS.step needs a closure that re-evaluates the loss")
        with no_grad():
            return self._step(closure, self.param_groups[0])

    def _step(self, closure, group):
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss, loss, flat_grad = self._evaluate(closure)
        current_evals = 1
        state["func_evals"] += 1
        if np.abs(flat_grad).max() <= tol_grad:
            return orig_loss
        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag, prev_flat_grad = state.get("H_diag"), state.get("prev_flat_grad")
        prev_loss, n_iter = state.get("prev_loss"), 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, old_dirs, old_stps, ro, h_diag = -flat_grad, [], [], [], 1
            else:
                d, h_diag = self._direction(flat_grad, prev_flat_grad, d, t, old_dirs,
                                            old_stps, ro, h_diag, group["history_size"])
            prev_flat_grad, prev_loss = flat_grad.copy(), loss
            t = (min(1.0, 1.0 / float(np.abs(flat_grad).sum())) * lr
                 if state["n_iter"] == 1 else lr)
            gtd = float(flat_grad @ d)
            if gtd > -tol_change:
                break
            search = LINE_SEARCHES[group["line_search_fn"]]
            if search is not None:
                x0 = self._flat_params()

                def obj_func(x, t, d):
                    self._add(t, d)
                    out = self._evaluate(closure)[1:]
                    self._set_params(x)
                    return out
                loss, flat_grad, t, evals = search(obj_func, x0, t, d, loss, flat_grad, gtd,
                                                   max_ls=max_eval - current_evals)
                self._add(t, d)
                opt_cond = np.abs(flat_grad).max() <= tol_grad
            else:
                self._add(t, d)
                evals, opt_cond = 0, False
                if n_iter != max_iter:
                    _, loss, flat_grad = self._evaluate(closure)
                    opt_cond, evals = np.abs(flat_grad).max() <= tol_grad, 1
            current_evals += evals
            state["func_evals"] += evals
            if (n_iter == max_iter or current_evals >= max_eval or opt_cond
                    or np.abs(d * t).max() <= tol_change or abs(loss - prev_loss) < tol_change):
                break
        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=h_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss

    @staticmethod
    def _direction(flat_grad, prev_flat_grad, d, t, old_dirs, old_stps, ro, h_diag, history):
        """The two-loop recursion: the new search direction, after updating the history."""
        y, s = flat_grad - prev_flat_grad, d * t
        ys = y @ s
        if ys > 1e-10:
            if len(old_dirs) == history:
                old_dirs.pop(0), old_stps.pop(0), ro.pop(0)
            old_dirs.append(y), old_stps.append(s), ro.append(1.0 / ys)
            h_diag = ys / (y @ y)
        al = [None] * len(old_dirs)
        q = -flat_grad
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = (old_stps[i] @ q) * ro[i]
            q = q - al[i] * old_dirs[i]
        r = q * h_diag
        for i in range(len(old_dirs)):
            r = r + (al[i] - (old_dirs[i] @ r) * ro[i]) * old_stps[i]
        return r, h_diag
