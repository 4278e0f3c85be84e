"""Instructions of one warm launch of a hand-written family, counted with
callgrind (stable on a shared machine; wall time is not):

    for n in 200 1200; do
      valgrind --tool=callgrind --callgrind-out-file=cg.$n \\
        --toggle-collect='at::_ops::copy_::call*' --toggle-collect='at::_ops::cumsum_out::call*' \\
        python bench/bench_warm_launch.py $n copy
    done
    # instructions per call = (total(1200) - total(200)) / 1000, from `callgrind_annotate cg.N`

(run python's real binary, not a pyenv shim, under valgrind). `copy`: a dense
same-layout device copy of 64x64 float32; `cast`: the same from a transposed
view (TensorIterator path); `cumsum`: cumsum along dim 1 into out=. The
first 20 calls (cold compile or disk-cache load) are the same in both runs
and cancel out."""

import sys

import torch
import torch_ocl  # noqa: F401

n, which = int(sys.argv[1]), sys.argv[2]
a = torch.randn(64, 64, device="ocl")
dst = torch.empty_like(a)
src = a.t() if which == "cast" else a


def call():
    if which == "cumsum":
        torch.cumsum(src, 1, out=dst)
    else:
        dst.copy_(src)


for _ in range(20):
    call()
torch.ocl.synchronize()
for _ in range(n):
    call()
torch.ocl.synchronize()
