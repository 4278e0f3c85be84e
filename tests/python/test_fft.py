"""FFT on ocl through VkFFT (kernels/fft_ops.cpp): ATen's _fft_c2c / _fft_r2c /
_fft_c2r native, so every torch.fft function, stft and istft runs on the device;
forward and backward against the CPU (pocketfft) on the same inputs."""

import pytest
import torch

from cpu_reference import run_both

pytestmark = pytest.mark.usefixtures("strict")

from tolerances import FFT as TOL  # noqa: E402 (one table per family, tests/python/tolerances.py)


def data(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_complex:
        return torch.randn(shape, dtype=dtype, generator=g)
    return torch.randn(shape, dtype=dtype, generator=g)


C2C = {
    "fft": lambda x: torch.fft.fft(x),
    "ifft_n_pad": lambda x: torch.fft.ifft(x, n=12),
    "fft_dim0_ortho": lambda x: torch.fft.fft(x, dim=0, norm="ortho"),
    "fft2_forward": lambda x: torch.fft.fft2(x, norm="forward"),
    "ifftn_all": lambda x: torch.fft.ifftn(x),
    "fft_noncontiguous": lambda x: torch.fft.fft(x.transpose(0, 1)),
    "fftshift_fft": lambda x: torch.fft.fftshift(torch.fft.fft(x, dim=1), dim=1),
}
REAL = {
    "rfft_even": lambda x: torch.fft.rfft(x),
    "rfft_odd_n": lambda x: torch.fft.rfft(x, n=9),
    "rfft2": lambda x: torch.fft.rfft2(x),
    "ihfft": lambda x: torch.fft.ihfft(x),
    "rfftn_ortho": lambda x: torch.fft.rfftn(x, norm="ortho"),
}
HERMITIAN = {
    "irfft_even": lambda x: torch.fft.irfft(x, n=10),
    "irfft_odd": lambda x: torch.fft.irfft(x, n=11),
    "irfft2": lambda x: torch.fft.irfft2(x, s=(5, 10)),
    "hfft": lambda x: torch.fft.hfft(x),
}


def grads(fn):
    def run(x):
        x = x.clone().requires_grad_()
        y = fn(x)
        y = torch.view_as_real(y) if y.is_complex() else y
        y.pow(2).sum().backward()
        return y, x.grad
    return run


@pytest.mark.parametrize("name", sorted(C2C))
@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=str)
def test_c2c(name, dtype):
    run_both(grads(C2C[name]), data((5, 8), dtype), **TOL[dtype])


@pytest.mark.parametrize("name", sorted(REAL))
def test_r2c(name):
    run_both(grads(REAL[name]), data((5, 10), torch.float32), **TOL[torch.float32])


@pytest.mark.parametrize("name", sorted(HERMITIAN))
def test_c2r(name):
    run_both(grads(HERMITIAN[name]), data((5, 6), torch.complex64), **TOL[torch.complex64])


@pytest.mark.parametrize("n", [1, 17, 97, 1000])
def test_lengths_prime_and_large(n):
    # 17 and 97: Bluestein's algorithm inside VkFFT
    run_both(torch.fft.fft, data((3, n), torch.complex64), rtol=1e-4, atol=1e-3)


def test_stft_istft_roundtrip():
    x = data((2, 400), torch.float32)

    def spectrogram(x):
        w = torch.hann_window(64, device=x.device)
        s = torch.stft(x, 64, hop_length=16, window=w, return_complex=True)
        return s, torch.istft(s, 64, hop_length=16, window=w, length=400)

    run_both(spectrogram, x, rtol=1e-4, atol=1e-4)


def test_empty_and_half():
    # an empty batch: an empty result (the CPU's MKL raises "Inconsistent configuration parameters")
    y = torch.fft.fft(torch.empty(0, 8, dtype=torch.complex64, device="ocl"))
    assert y.shape == (0, 8) and y.dtype == torch.complex64 and y.device.type == "ocl"
    # a real half input: ATen's own dtype promotion refuses it on every device but CUDA / XPU
    run_both(torch.fft.rfft, torch.randn(8).half(), same_message=True)


def test_complex32_as_cuda():
    # complex32 reaches the kernels (the CPU's MKL refuses it, CUDA transforms it):
    # computed in complex64, rounded once
    x = torch.randn(4, 16, dtype=torch.complex64).to(torch.complex32)
    y = torch.fft.fft(x.to("ocl"))
    assert y.dtype == torch.complex32
    torch.testing.assert_close(y.cpu().to(torch.complex64), torch.fft.fft(x.to(torch.complex64)), rtol=2e-3, atol=2e-2)
    z = torch.fft.irfft(x.to("ocl"), n=30)
    assert z.dtype == torch.float16
    torch.testing.assert_close(z.cpu().float(), torch.fft.irfft(x.to(torch.complex64), n=30), rtol=2e-3, atol=2e-3)


def test_results_are_new_tensors():
    # the primitives' schemas return new tensors: no view of the input or of a
    # work tensor leaks out (PyTorch's reference tests check _is_view)
    x = torch.randn(5, 7, device="ocl")
    for y in (torch.fft.rfft(x, n=7), torch.fft.fft(x.to(torch.complex64), dim=0), torch.fft.irfft(torch.fft.rfft(x))):
        assert not y._is_view()
    c = torch.randn(4, 6, dtype=torch.complex64, device="ocl")
    before = c.clone()
    torch.fft.fftn(c, dim=()).mul_(0)  # no dims: a copy, never the input
    torch.testing.assert_close(c, before)


def test_multi_dim_plans():
    dtype = torch.complex64  # VkFFT's plans are dtype-generic; every plan is a cold compile on PoCL
    # up to three transformed dims are moved last together and done by one
    # multi-dimensional VkFFT plan (size-1 dims dropped: VkFFT refuses them);
    # more dims, three at a time; any dim order
    for shape, dims in (((4, 6, 10), (1, 2)), ((3, 5, 7, 9), (0, 2, 3)), ((2, 17, 8, 3), (3, 1)),
                        ((2, 3, 4, 5, 6), (0, 1, 2, 3, 4)), ((6, 97), (1, 0)), ((5, 1, 4), (1, 2)),
                        ((2, 1, 1), (0, 1, 2))):
        x = data(shape, dtype)
        run_both(lambda x: torch.fft.fftn(x, dim=dims), x, **TOL[dtype])
        run_both(lambda x: torch.fft.ifftn(x, dim=dims, norm="ortho"), x, **TOL[dtype])
        real = data(shape, torch.float32, seed=1)
        run_both(lambda r: torch.fft.rfftn(r, dim=dims), real, **TOL[dtype])


@pytest.mark.parametrize("case", range(6))
def test_output_strides_are_atens(case):
    # The primitives return ATen's layout (the meta functions' / the CPU's: transformed dims
    # innermost, batch dims by the input's strides): torch.compile's fake tensors expect it
    # and Inductor asserts it on every extern FFT (it once raised for rfft / irfft / hfft).
    fn, x = [
        (lambda x: torch.fft.rfft(x, dim=1), torch.randn(5, 7, 10)),
        (lambda x: torch.fft.rfft2(x), torch.randn(3, 6, 4).transpose(1, 2)),
        (lambda x: torch.fft.fftn(x, dim=(0, 2)), torch.randn(5, 3, 6, dtype=torch.complex64)),
        (lambda x: torch.fft.irfftn(x, dim=(0, 2)), torch.randn(5, 3, 6, dtype=torch.complex64).transpose(0, 1)),
        (lambda x: torch.fft.ihfft2(x), torch.randn(5, 3, 6)),
        (lambda x: torch.fft.hfft(x), torch.randn(5, 7, dtype=torch.complex64).t()),
    ][case]
    expected, actual = fn(x), fn(x.to("ocl"))
    assert actual.stride() == expected.stride()
    torch.testing.assert_close(actual.cpu(), expected, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(torch.compile(fn)(x.to("ocl")).cpu(), expected, rtol=1e-5, atol=1e-5)


def test_plan_creation_keeps_the_process_locale():
    # VkFFT switches the locale to "C" while it generates a plan and restored a clobbered
    # pointer: the process stayed in "C" and Python's default encoding became ASCII.
    import locale

    before = locale.setlocale(locale.LC_ALL), locale.getpreferredencoding(False)
    torch.fft.fft(torch.randn(3, 37, device="ocl"))  # a size no other test plans
    assert (locale.setlocale(locale.LC_ALL), locale.getpreferredencoding(False)) == before
