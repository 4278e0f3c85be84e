// Matrix and vector products through CLBlast: mm, addmm (+ _addmm_activation), bmm, baddbmm, addbmm
// (Gemm / GemmStridedBatched), addmv and mv (Gemv), dot and vdot (Dot). On CPU
// devices the matrix products use hand-written kernels instead: kernels/gemm.cl
// (register-tiled, gemm_tile) and kernels/blas_small.cl (skinny, gemm_small_n).
// Transposed views are passed as transposes with their leading dimension, not
// copied. float16 / bfloat16 are computed in float32 (converted in, GEMM,
// converted out): CLBlast's half kernels need cl_khr_fp16, which PoCL and
// NVIDIA lack, and CLBlast has no bfloat16.
#include <ATen/ExpandUtils.h>
#include <ATen/Operators.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/ops/_addmm_activation_meta.h>
#include <ATen/ops/addmm_meta.h>
#include <ATen/ops/bmm_meta.h>
#include <ATen/ops/mm_meta.h>
#include <ATen/ops/addmv_meta.h>
#include <ATen/ops/baddbmm_meta.h>
#include <ATen/ops/addmm_ops.h>
#include <ATen/ops/addmv_ops.h>
#include <ATen/ops/addbmm_ops.h>
#include <ATen/ops/baddbmm_ops.h>
#include <ATen/ops/dot_ops.h>
#include <ATen/ops/vdot_ops.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/relu.h>
#include <ATen/ops/bmm_ops.h>
#include <ATen/ops/mm_ops.h>
#include <c10/core/DeviceGuard.h>
#include <clblast.h>

#include <complex>
#include <type_traits>

#include <cstdio>
#include <cstring>

#include "backend/device_profile.h"
#include "kernels/register_op.h"
#include "backend/device_ptr.h"
#include "backend/fallback.h"
#include "backend/kernel_launch.h"
#include "backend/runtime.h"
#include "backend/scratch_buffer.h"
#include "kernels/blas.h"
#include "kernels/structured.h"

namespace torch_ocl {
namespace {

void check_clblast(clblast::StatusCode status, const char* routine) {
  const int code = static_cast<int>(status);
  TORCH_CHECK(status == clblast::StatusCode::kSuccess, "CLBlast call ", routine, " failed: ",
              code > -1024 ? cl_error_name(code) : "CLBlast error", " (", code, ")");
}

// One matrix operand as CLBlast sees it (row-major layout).
struct Operand {
  at::Tensor keep;  // the tensor whose memory is used (a copy if needed)
  cl_mem buffer = nullptr;
  size_t offset = 0;  // elements
  size_t ld = 1;
  clblast::Transpose trans = clblast::Transpose::kNo;
  int64_t batch_stride = 0;
};

// `t` is [..., rows, cols]; the last two dims must be expressible with a
// leading dimension, otherwise t is made contiguous.
Operand operand(const at::Tensor& t, bool written = false) {
  const int64_t nd = t.dim();
  const int64_t rows = t.size(nd - 2), cols = t.size(nd - 1);
  int64_t s0 = t.stride(nd - 2), s1 = t.stride(nd - 1);
  // A size-1 dim's stride is free: pick the one that avoids a copy.
  if (rows == 1) s0 = s1 == 1 ? std::max<int64_t>(cols, 1) : 1;
  if (cols == 1) s1 = 1;
  Operand op;
  if (s1 == 1 && s0 >= std::max<int64_t>(1, cols)) {
    op.keep = t;
    op.ld = static_cast<size_t>(s0);
  } else if (s0 == 1 && s1 >= std::max<int64_t>(1, rows)) {
    op.keep = t;
    op.ld = static_cast<size_t>(s1);
    op.trans = clblast::Transpose::kYes;
  } else {
    op.keep = t.contiguous();
    op.ld = static_cast<size_t>(std::max<int64_t>(1, cols));
  }
  if (nd == 3) op.batch_stride = op.keep.size(0) == 1 ? 0 : op.keep.stride(0);
  const DeviceBuffer b = resolve_device_ptr(written ? op.keep.mutable_data_ptr() : op.keep.const_data_ptr());
  op.buffer = b.buffer;
  op.offset = b.offset / op.keep.element_size();
  return op;
}

void check_same_dtype(const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), "expected m1 and m2 to have the same dtype, but got: ",
              a.scalar_type(), " != ", b.scalar_type());
}

bool real_clblast_type(c10::ScalarType t) { return t == c10::kFloat || t == c10::kDouble; }
// CLBlast's types: float32/64 and complex64/128 (CGEMM/ZGEMM, CGEMV/ZGEMV).
bool clblast_type(c10::ScalarType t) {
  return real_clblast_type(t) || t == c10::kComplexFloat || t == c10::kComplexDouble;
}
// The CPU's integer product types (not bool, not uint16/32/64): kernels/blas_integer.cl.
bool integer_product_type(c10::ScalarType t) {
  return t == c10::kByte || t == c10::kChar || t == c10::kShort || t == c10::kInt || t == c10::kLong;
}
// Computed natively: CLBlast's types, half types through float32 and the
// integer types (the others go to the CPU, which raises).
bool gemm_native(c10::ScalarType t) {
  return clblast_type(t) || t == c10::kHalf || t == c10::kBFloat16 || integer_product_type(t);
}
bool half_type(c10::ScalarType t) { return t == c10::kHalf || t == c10::kBFloat16; }

cl_command_queue blas_queue(const at::Tensor& t) {
  ensure_blas_tuning(t.device().index());
  return stream_queue(current_stream(t.device().index()));
}

// alpha and beta of a product: complex for complex products (addmm's
// Scalars), real otherwise.
using Coef = c10::complex<double>;
template <class T>
T coef(Coef c) {
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    return T(static_cast<typename T::value_type>(c.real()), static_cast<typename T::value_type>(c.imag()));
  } else {
    return static_cast<T>(c.real());
  }
}
// beta as the Scalar of out.mul_(beta): an integer for integer products, real
// unless it has an imaginary part otherwise.
c10::Scalar coef_scalar(Coef c, c10::ScalarType dtype) {
  if (integer_product_type(dtype)) return c10::Scalar(static_cast<int64_t>(c.real()));
  return c.imag() == 0 ? c10::Scalar(c.real()) : c10::Scalar(c);
}

// out[b] = alpha * a[b] @ b[b] + beta * out[b]; out must be row-major.
template <class T>
void gemm_typed(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b, Coef alpha, Coef beta) {
  const bool batched = out.dim() == 3;
  const size_t m = out.size(-2), n = out.size(-1), k = a.size(-1);
  const size_t batch = batched ? out.size(0) : 1;
  Operand A = operand(a), B = operand(b), C = operand(out, true);
  TORCH_INTERNAL_ASSERT(C.keep.is_same(out) && C.trans == clblast::Transpose::kNo);
  const c10::Stream stream = current_stream(out.device().index());
  cl_command_queue queue = blas_queue(out);
  if (!batched) {
    size_t temp = 0;
    check_clblast(clblast::GemmTempBufferSize<T>(clblast::Layout::kRowMajor, A.trans, B.trans, m, n, k,
                                                 A.offset, A.ld, B.offset, B.ld, C.offset, C.ld, &queue,
                                                 temp),
                  "GemmTempBufferSize");
    // CLBlast uses its temp buffer from offset 0: a scratch cl_mem, not an
    // allocator block (whose neighbours it would overwrite).
    const ScratchBuffer temp_buffer = temp ? stream_scratch(stream, temp) : ScratchBuffer();
    check_clblast(clblast::Gemm<T>(clblast::Layout::kRowMajor, A.trans, B.trans, m, n, k,
                                   coef<T>(alpha), A.buffer, A.offset, A.ld, B.buffer, B.offset,
                                   B.ld, coef<T>(beta), C.buffer, C.offset, C.ld, &queue,
                                   nullptr, temp_buffer.get()),
                  "Gemm");
  } else {
    check_clblast(clblast::GemmStridedBatched<T>(
                      clblast::Layout::kRowMajor, A.trans, B.trans, m, n, k, coef<T>(alpha),
                      A.buffer, A.offset, A.ld, A.batch_stride, B.buffer, B.offset, B.ld,
                      B.batch_stride, coef<T>(beta), C.buffer, C.offset, C.ld,
                      out.stride(0), batch, &queue, nullptr),
                  "GemmStridedBatched");
  }
}

// Matrix products on CPU devices (PoCL): kernels/gemm.cl, a register-tiled kernel
// that PoCL compiles well, 2-8x faster than CLBlast's tuned Xgemm there
// (bench/bench_gemm.py); the skinny kernel below keeps N <= 8. GPUs keep CLBlast.
// TORCH_OCL_OWN_GEMM=0: CLBlast (and the skinny kernel up to 16) everywhere.
bool use_own_gemm(const at::Tensor& out) {
  static const bool enabled = [] {
    const char* env = std::getenv("TORCH_OCL_OWN_GEMM");
    return !(env && std::string(env) == "0");
  }();
  return enabled && device_profile(out.device().index()).own_gemm && real_clblast_type(out.scalar_type());
}

// Skinny products on CPU devices (PoCL): CLBlast pads C to its tile width and
// runs 2-10x slower than one pass over A (measured in bench/bench_gemm.py).
constexpr int64_t kSmallN = 16;  // SMALL_N in blas_small.cl
// Where the tiled kernel runs it wins above N = 8 (a tie at 8) and for M <= 16 at any N.
constexpr int64_t kSmallNWithOwnGemm = 8;
bool use_small_n(const at::Tensor& out) {
  static const bool enabled = [] {
    const char* env = std::getenv("TORCH_OCL_SMALL_N");  // 0: no skinny kernel (for comparisons)
    return !(env && std::string(env) == "0");
  }();
  const int64_t nd = out.dim();
  return enabled && nd == 2 && out.size(1) <= (use_own_gemm(out) ? kSmallNWithOwnGemm : kSmallN) && out.size(0) >= 64 &&
         device_profile(out.device().index()).own_gemm && real_clblast_type(out.scalar_type());
}

// A kernel of blas_small.cl (one program per dtype).
CachedKernel& blas_small_kernel(c10::DeviceIndex device, c10::ScalarType dtype, const char* name) {
  return source_kernel(device, "blas_small", name, kernel_variant({static_cast<int>(dtype)}), [&] {
    return dtype_preamble(dtype) + (dtype == c10::kDouble ? "#define ACC8 double8\n#define CONVERT_ACC8(x) (x)\n"
                                                          : "#define ACC8 float8\n#define CONVERT_ACC8(x) (x)\n");
  });
}

void gemm_small_n(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b, double alpha, double beta) {
  const auto dtype = out.scalar_type();
  const auto device = out.device().index();
  auto small_kernel = [&](const char* name) -> CachedKernel& { return blas_small_kernel(device, dtype, name); };
  if (a.stride(1) == 1 && a.size(1) >= 8) {  // contiguous rows of A: dot products with B^T's rows
    const at::Tensor bt = b.t().contiguous();
    Launch l(device, small_kernel("gemm_small_n_rows"));
    l.input(a).input(bt).tensor(out);
    l.value<int64_t>(out.size(0)).value<int64_t>(out.size(1)).value<int64_t>(a.size(1));
    l.value<int64_t>(a.stride(0)).value<int64_t>(out.stride(0)).value<int64_t>(out.stride(1));
    l.scalar(alpha, dtype).scalar(beta, dtype);
    l.run(static_cast<size_t>(out.size(0)));
    return;
  }
  Launch l(device, small_kernel("gemm_small_n"));
  l.input(a).input(b).tensor(out);
  l.value<int64_t>(out.size(0)).value<int64_t>(out.size(1)).value<int64_t>(a.size(1));
  for (const at::Tensor* t : {&a, &b, &out}) l.value<int64_t>(t->stride(0)).value<int64_t>(t->stride(1));
  l.scalar(alpha, dtype).scalar(beta, dtype);
  // a few rows per work item: PoCL runs a work group's items as one vectorised loop
  l.run(static_cast<size_t>(out.size(0)));
}

// Tiny products on CPU devices: one launch of gemm_tiny (blas_small.cl; A's
// rows and B's columns contiguous, a linear layer's x @ W^T) or
// gemm_tiny_b_rows (B's rows contiguous: x @ W, W^T @ x) instead of the tiled
// kernel's two (pack B, multiply) and addmm's addend copy. Below about
// kTinyMacs multiply-adds the launches are the cost (an LSTM cell's addmm,
// 8x24 @ 24x96 plus bias: 27 -> 12 us; 16x16x16 mm 12 -> 7 us).
constexpr int64_t kTinyMacs = 1 << 16;
bool use_tiny(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b) {
  static const bool enabled = [] {
    const char* env = std::getenv("TORCH_OCL_TINY_GEMM");  // 0: no tiny kernel (for comparisons)
    return !(env && std::string(env) == "0");
  }();
  const int64_t k = a.size(-1);
  return enabled && (out.dim() == 2 || out.dim() == 3) && out.numel() * k <= kTinyMacs &&
         (((a.stride(-1) == 1 || k == 1) && (b.stride(-2) == 1 || k == 1)) || b.stride(-1) == 1) &&
         device_profile(out.device().index()).own_gemm && real_clblast_type(out.scalar_type());
}

// out = alpha * a @ b + beta * addend (the addend broadcast to out's shape; it may be out).
void gemm_tiny(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b, double alpha, double beta,
               const at::Tensor& addend) {
  const auto dtype = out.scalar_type();
  const auto device = out.device().index();
  const int64_t k = a.size(-1), n = out.size(-1);
  const bool dot = (a.stride(-1) == 1 || k == 1) && (b.stride(-2) == 1 || k == 1);  // else B's rows are contiguous
  CachedKernel& kernel = blas_small_kernel(device, dtype, dot ? "gemm_tiny" : "gemm_tiny_b_rows");
  const bool batched = out.dim() == 3;
  const at::Tensor d = addend.expand_as(out);
  const int64_t items = dot ? out.numel() : out.numel() / std::max<int64_t>(n, 1) * ((n + 7) / 8);
  Launch l(device, kernel);
  l.input(a).input(b).input(d).tensor(out);
  l.value<int64_t>(out.size(-2)).value<int64_t>(n).value<int64_t>(k).value<int64_t>(items);
  auto batch_stride = [&](const at::Tensor& t) { return batched && t.size(0) != 1 ? t.stride(0) : int64_t{0}; };
  l.value<int64_t>(batch_stride(a)).value<int64_t>(a.stride(-2));
  if (!dot) l.value<int64_t>(a.stride(-1));
  l.value<int64_t>(batch_stride(b)).value<int64_t>(dot ? b.stride(-1) : b.stride(-2));
  for (const at::Tensor* t : {&d, &out})
    l.value<int64_t>(batch_stride(*t)).value<int64_t>(t->stride(-2)).value<int64_t>(t->stride(-1));
  l.scalar(alpha, dtype).scalar(beta, dtype);
  l.run(static_cast<size_t>(items));
}

// Integer products, any strides: out = alpha * a @ b + beta * addend (the addend
// broadcast to out's shape; it may be out). 2-d or 3-d operands.
void gemm_integer(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b, Coef alpha, Coef beta,
                  const at::Tensor& addend) {
  const auto dtype = out.scalar_type();
  const auto device = out.device().index();
  CachedKernel& kernel = source_kernel(device, "blas_integer", "gemm_integer", kernel_variant({static_cast<int>(dtype)}),
                                       [&] { return dtype_preamble(dtype); });
  const bool batched = out.dim() == 3;
  const at::Tensor d = addend.expand_as(out);
  Launch l(device, kernel);
  l.input(a).input(b).input(d).tensor(out);
  l.value<int64_t>(out.size(-2)).value<int64_t>(out.size(-1)).value<int64_t>(a.size(-1)).value<int64_t>(out.numel());
  for (const at::Tensor* t : {&a, &b, &d, &out}) {
    l.value<int64_t>(batched && t->size(0) != 1 ? t->stride(0) : 0);
    l.value<int64_t>(t->stride(-2)).value<int64_t>(t->stride(-1));
  }
  l.value<int64_t>(static_cast<int64_t>(alpha.real())).value<int64_t>(static_cast<int64_t>(beta.real()));
  l.run(static_cast<size_t>(out.numel()));
}

struct TileShape {
  int tm, tn;
};
TileShape gemm_tile_shape(c10::ScalarType dtype) {
  static const TileShape dev = [] {  // TORCH_OCL_GEMM_TILE=MxN (development: tile experiments)
    const char* env = std::getenv("TORCH_OCL_GEMM_TILE");
    TileShape t{0, 0};
    if (env) std::sscanf(env, "%dx%d", &t.tm, &t.tn);
    return t;
  }();
  if (dev.tm > 0 && dev.tn > 0) return dev;
  return dtype == c10::kDouble ? TileShape{4, 8} : TileShape{6, 16};
}

// 2-d or 3-d (batched, any batch strides incl. 0) operands.
void gemm_tile(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b, double alpha, double beta) {
  const auto dtype = out.scalar_type();
  const TileShape ts = gemm_tile_shape(dtype);
  // The tile shape is a function of the dtype: the dtype keys the kernels.
  auto preamble = [&] {
    const std::string acc = dtype == c10::kDouble ? "double" : "float";
    const std::string n = std::to_string(ts.tn);
    return dtype_preamble(dtype) + "#define TM " + std::to_string(ts.tm) + "\n#define TN " + n + "\n#define ACCV " +
           acc + n + "\n#define VLOADN vload" + n + "\n#define VSTOREN vstore" + n + "\n";
  };
  const bool batched = out.dim() == 3;
  const int64_t M = out.size(-2), N = out.size(-1), K = a.size(-1);
  const int64_t batch = batched ? out.size(0) : 1;
  auto bstride = [&](const at::Tensor& t) { return batched && t.size(0) != 1 ? t.stride(0) : int64_t{0}; };
  const c10::DeviceIndex device = out.device().index();
  auto gemm_kernel = [&](const char* name) -> CachedKernel& {
    return source_kernel(device, "gemm", name, kernel_variant({static_cast<int>(dtype)}), preamble);
  };
  // B packed into column panels [batch][N/TN][K][TN]; a shared (expanded) B once.
  const int64_t pbatch = bstride(b) == 0 ? 1 : batch, nbn = (N + ts.tn - 1) / ts.tn;
  const at::Tensor packed = at::empty({pbatch, nbn, K, ts.tn}, out.options());
  Launch pack(device, gemm_kernel("gemm_pack_b"));
  pack.input(b).tensor(packed).value<int64_t>(K).value<int64_t>(N).value<int64_t>(pbatch * nbn * K);
  pack.value<int64_t>(b.stride(-2)).value<int64_t>(b.stride(-1)).value<int64_t>(bstride(b));
  pack.run(static_cast<size_t>(pbatch * nbn * K));
  Launch l(device, gemm_kernel("gemm_tile"));
  l.input(a).input(packed).tensor(out);
  l.value<int64_t>(M).value<int64_t>(N).value<int64_t>(K).value<int64_t>(batch);
  l.value<int64_t>(a.stride(-2)).value<int64_t>(a.stride(-1)).value<int64_t>(bstride(a));
  l.value<int64_t>(pbatch == 1 ? 0 : packed.stride(0));
  l.value<int64_t>(out.stride(-2)).value<int64_t>(out.stride(-1)).value<int64_t>(bstride(out));
  l.scalar(alpha, dtype).scalar(beta, dtype);
  const int64_t tiles = (M + ts.tm - 1) / ts.tm * ((N + ts.tn - 1) / ts.tn) * batch;
  l.run(static_cast<size_t>(tiles));
}

// out = alpha * a @ b + beta * out (out already holds the addend when beta != 0).
void gemm(const at::Tensor& out, const at::Tensor& a_in, const at::Tensor& b_in, Coef alpha, Coef beta) {
  if (out.numel() == 0) return;
  c10::DeviceGuard guard(out.device());
  if (a_in.size(-1) == 0 || alpha == 0.0) {  // nothing to multiply
    if (beta == 0.0) out.zero_();
    else if (beta != 1.0) out.mul_(coef_scalar(beta, out.scalar_type()));
    return;
  }
  // Conjugate views reach here (the Conjugate key passes mm, addmm_, bmm,
  // baddbmm and their out= forms through) and the kernels read and write
  // memory: the inputs are resolved first, and a conjugate result is computed
  // in a plain tensor holding its visible values, then copied back through
  // the view (copy_ conjugates).
  if (out.is_conj()) {
    const at::Tensor plain = out.resolve_conj();
    gemm(plain, a_in, b_in, alpha, beta);
    out.copy_(plain);
    return;
  }
  const at::Tensor a = a_in.resolve_conj(), b = b_in.resolve_conj();
  if (integer_product_type(out.scalar_type())) return gemm_integer(out, a, b, alpha, beta, out);
  if (!out.is_complex())
    TORCH_CHECK(alpha.imag() == 0 && beta.imag() == 0, "a complex alpha or beta for a real product of dtype ",
                out.scalar_type());
  if (half_type(out.scalar_type())) {  // in float32, like CUDA's float accumulation
    at::Tensor out32 = beta == 0.0 ? at::empty_like(out, out.options().dtype(c10::kFloat)) : out.to(c10::kFloat);
    gemm(out32, a.to(c10::kFloat), b.to(c10::kFloat), alpha, beta);
    out.copy_(out32);
    return;
  }
  if (use_tiny(out, a, b)) return gemm_tiny(out, a, b, alpha.real(), beta.real(), out);
  if (use_small_n(out)) return gemm_small_n(out, a, b, alpha.real(), beta.real());
  if (out.dim() == 2 && out.size(0) <= kSmallN && !use_own_gemm(out) && use_small_n(out.t()))  // out^T = b^T @ a^T
    return gemm_small_n(out.t(), b.t(), a.t(), alpha.real(), beta.real());
  if (use_own_gemm(out)) return gemm_tile(out, a, b, alpha.real(), beta.real());
  if (beta == 0.0) out.zero_();  // beta = 0 must ignore NaNs in out
  const int64_t nd = out.dim();
  // Row-major matrices that do not overlap: stacked, or (in views of a larger
  // matrix) side by side in the same rows.
  const bool row_major = out.stride(nd - 1) == 1 && out.stride(nd - 2) >= std::max<int64_t>(1, out.size(nd - 1)) &&
                         (nd == 2 || out.size(0) == 1 || out.stride(0) >= out.size(1) * out.stride(1) ||
                          (out.stride(0) >= out.size(2) && out.stride(1) >= out.size(0) * out.stride(0)));
  at::Tensor c = row_major ? out : out.contiguous();
  switch (out.scalar_type()) {
    case c10::kFloat: gemm_typed<float>(c, a, b, alpha, beta); break;
    case c10::kDouble: gemm_typed<double>(c, a, b, alpha, beta); break;
    case c10::kComplexFloat: gemm_typed<std::complex<float>>(c, a, b, alpha, beta); break;
    default: gemm_typed<std::complex<double>>(c, a, b, alpha, beta); break;
  }
  if (!c.is_same(out)) out.copy_(c);
}

}  // namespace

void gemm_batched(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b, double alpha,
                  double beta) {
  TORCH_INTERNAL_ASSERT(gemm_native(out.scalar_type()) && a.scalar_type() == out.scalar_type() &&
                        b.scalar_type() == out.scalar_type());
  TORCH_INTERNAL_ASSERT(out.dim() >= 2 && out.dim() <= 4 && a.dim() == out.dim() && b.dim() == out.dim());
  if (out.stride(-2) == 1 && out.stride(-1) != 1)  // column-major out: out^T = b^T @ a^T
    return gemm_batched(out.mT(), b.mT(), a.mT(), alpha, beta);
  if (out.dim() < 4) return gemm(out, a, b, alpha, beta);
  // Loop over the smaller leading dim, batch over the other.
  const bool swap = out.size(0) > out.size(1);
  const at::Tensor o = swap ? out.transpose(0, 1) : out, x = swap ? a.transpose(0, 1) : a,
                   y = swap ? b.transpose(0, 1) : b;
  for (int64_t i = 0; i < o.size(0); ++i) gemm(o[i], x[i], y[i], alpha, beta);
}

namespace {

// mm and bmm (registered for gemm_native dtypes: bool runs on the CPU).
void matmul_impl(at::impl::MetaBase&, const at::Tensor& out, const at::Tensor& self, const at::Tensor& mat2) {
  check_same_dtype(self, mat2);
  gemm(out, self, mat2, 1.0, 0.0);
}

void addmm_impl(at::impl::MetaBase&, const at::Tensor& out, const at::Tensor& self, const at::Tensor& mat1,
                const at::Tensor& mat2, const c10::Scalar& beta, const c10::Scalar& alpha) {
  const Coef b = beta.toComplexDouble();
  if (out.numel() != 0 && mat1.size(1) != 0 && alpha.toComplexDouble() != 0.0 && use_tiny(out, mat1, mat2)) {
    // the addend is read in the product's kernel (no copy into out first)
    check_same_dtype(mat1, mat2);
    c10::DeviceGuard guard(out.device());
    return gemm_tiny(out, mat1.resolve_conj(), mat2.resolve_conj(), alpha.to<double>(), b.real(), self);
  }
  if (b != 0.0 && !out.is_same(self)) out.copy_(self.expand_as(out));
  gemm(out, mat1, mat2, alpha.toComplexDouble(), b);
}

// addmm followed by relu or gelu in place (nn.Linear + activation fused by
// Inductor and the transformer fast path). gelu is the exact (erf) one, as on
// the CPU and as PyTorch's own test expects for every device but CUDA, whose
// cuBLASLt epilogue computes the tanh approximation.
void addmm_activation_impl(at::impl::MetaBase& meta, const at::Tensor& out, const at::Tensor& self,
                           const at::Tensor& mat1, const at::Tensor& mat2, const c10::Scalar& beta,
                           const c10::Scalar& alpha, bool use_gelu) {
  addmm_impl(meta, out, self, mat1, mat2, beta, alpha);
  at::Tensor result = out;
  if (use_gelu) at::gelu_(result);
  else at::relu_(result);
}

// out = beta * out + alpha * mat @ vec (out already holds the addend).
void gemv(const at::Tensor& out, const at::Tensor& mat_in, const at::Tensor& vec_in, Coef alpha, Coef beta) {
  if (out.numel() == 0) return;
  c10::DeviceGuard guard(out.device());
  if (mat_in.size(1) == 0 || alpha == 0.0) {
    if (beta == 0.0) out.zero_();
    else if (beta != 1.0) out.mul_(coef_scalar(beta, out.scalar_type()));
    return;
  }
  const at::Tensor mat = mat_in.resolve_conj(), vec = vec_in.resolve_conj();
  if (integer_product_type(out.scalar_type()))
    return gemm_integer(out.unsqueeze(1), mat, vec.unsqueeze(1), alpha, beta, out.unsqueeze(1));
  if (!out.is_complex())
    TORCH_CHECK(alpha.imag() == 0 && beta.imag() == 0, "a complex alpha or beta for a real product of dtype ",
                out.scalar_type());
  if (half_type(out.scalar_type()) || out.stride(0) < 1) {  // float32 (or a positive-stride) temp
    const auto dtype = half_type(out.scalar_type()) ? c10::kFloat : out.scalar_type();
    at::Tensor y = beta == 0.0 ? at::empty({out.size(0)}, out.options().dtype(dtype)) : out.to(dtype, false, true);
    gemv(y, mat.to(dtype), vec.to(dtype), alpha, beta);
    out.copy_(y);
    return;
  }
  if (beta == 0.0) out.zero_();  // beta = 0 must ignore NaNs in out
  const at::Tensor x = vec.stride(0) >= 1 ? vec : vec.contiguous();
  const Operand A = operand(mat);
  const DeviceBuffer xb = resolve_device_ptr(x.const_data_ptr()), yb = resolve_device_ptr(out.mutable_data_ptr());
  const size_t es = out.element_size();
  // A as stored: kNo = mat row-major [m, n]; kYes = mat^T stored row-major [n, m].
  const bool t = A.trans == clblast::Transpose::kYes;
  const size_t rows = t ? mat.size(1) : mat.size(0), cols = t ? mat.size(0) : mat.size(1);
  cl_command_queue queue = blas_queue(out);
  auto run = [&](auto zero) {
    using T = decltype(zero);
    check_clblast(clblast::Gemv<T>(clblast::Layout::kRowMajor, A.trans, rows, cols, coef<T>(alpha), A.buffer,
                                   A.offset, A.ld, xb.buffer, xb.offset / es, x.stride(0), coef<T>(beta),
                                   yb.buffer, yb.offset / es, out.stride(0), &queue, nullptr),
                  "Gemv");
  };
  switch (out.scalar_type()) {
    case c10::kFloat: run(0.0f); break;
    case c10::kDouble: run(0.0); break;
    case c10::kComplexFloat: run(std::complex<float>()); break;
    default: run(std::complex<double>()); break;
  }
}

void addmv_impl(at::impl::MetaBase&, const at::Tensor& out, const at::Tensor& self, const at::Tensor& mat,
                const at::Tensor& vec, const c10::Scalar& beta, const c10::Scalar& alpha) {
  if (mat.scalar_type() != out.scalar_type() || vec.scalar_type() != out.scalar_type()) {  // (the CPU's error)
    at::native::call_fallback_fn<&cpu_fallback_kernel, ATEN_OP2(addmv, out)>::call(
        self, mat, vec, beta, alpha, const_cast<at::Tensor&>(out));
    return;
  }
  const Coef b = beta.toComplexDouble();
  if (b != 0.0 && !out.is_same(self)) out.copy_(self.expand_as(out));
  gemv(out, mat, vec, alpha.toComplexDouble(), b);
}

void baddbmm_impl(at::impl::MetaBase&, const at::Tensor& out, const at::Tensor& self, const at::Tensor& batch1,
                  const at::Tensor& batch2, const c10::Scalar& beta, const c10::Scalar& alpha) {
  // (ATen's meta leaves this check to the kernel)
  TORCH_CHECK(batch1.scalar_type() == batch2.scalar_type(), "expected scalar type ", batch1.scalar_type(),
              " but found ", batch2.scalar_type());
  const Coef b = beta.toComplexDouble();
  if (b != 0.0 && !out.is_same(self)) out.copy_(self.expand_as(out));
  gemm(out, batch1, batch2, alpha.toComplexDouble(), b);
}

// addbmm: out = beta * self + alpha * sum_i batch1[i] @ batch2[i], one GEMM
// with K = batches * k: [m, B*k] (batch1 permuted) @ [B*k, n].
void addbmm_into(at::Tensor& result, const at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2,
                 const c10::Scalar& beta, const c10::Scalar& alpha) {
  TORCH_CHECK(batch1.dim() == 3, "batch1 must be a 3D tensor");
  TORCH_CHECK(batch2.dim() == 3, "batch2 must be a 3D tensor");
  TORCH_CHECK(batch1.size(0) == batch2.size(0), "batch1 and batch2 must have same number of batches, got ",
              batch1.size(0), " and ", batch2.size(0));
  TORCH_CHECK(batch1.size(2) == batch2.size(1), "Incompatible matrix sizes for bmm (", batch1.size(1), "x",
              batch1.size(2), " and ", batch2.size(1), "x", batch2.size(2), ")");
  const int64_t m = batch1.size(1), n = batch2.size(2);
  TORCH_CHECK(self.size(0) == m && self.size(1) == n, "self tensor does not match matmul output shape");
  TORCH_CHECK(self.scalar_type() == batch2.scalar_type(), "self and mat2 must have the same dtype, but got ",
              self.scalar_type(), " and ", batch2.scalar_type());
  TORCH_CHECK(batch1.scalar_type() == batch2.scalar_type(), "mat1 and mat2 must have the same dtype, but got ",
              batch1.scalar_type(), " and ", batch2.scalar_type());
  // an out= of another dtype: the CPU's error (its addmm_ into the result), no cast
  TORCH_CHECK(result.scalar_type() == batch2.scalar_type(), "self and mat2 must have the same dtype, but got ",
              result.scalar_type(), " and ", batch2.scalar_type());
  result.resize_as_(self);
  const Coef b = beta.toComplexDouble();
  if (b != 0.0 && !self.is_same(result)) result.copy_(self);
  const int64_t k = batch1.size(0) * batch1.size(2);
  gemm(result, batch1.permute({1, 0, 2}).reshape({m, k}), batch2.reshape({k, n}), alpha.toComplexDouble(), b);
}

at::Tensor& addbmm_out(const at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2,
                       const c10::Scalar& beta, const c10::Scalar& alpha, at::Tensor& out) {
  const auto b_self = at::expand_size(self, {batch1.size(1), batch2.size(2)}, "addbmm_out");
  addbmm_into(out, *b_self, batch1, batch2, beta, alpha);
  return out;
}

at::Tensor addbmm(const at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2, const c10::Scalar& beta,
                  const c10::Scalar& alpha) {
  at::Tensor out = at::empty({0}, self.options());
  return addbmm_out(self, batch1, batch2, beta, alpha, out);
}

at::Tensor& addbmm_(at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2, const c10::Scalar& beta,
                    const c10::Scalar& alpha) {
  addbmm_into(self, self, batch1, batch2, beta, alpha);
  return self;
}

// dot / vdot of vectors without conjugate bits (vdot conjugates its first
// argument: the same for reals).
at::Tensor dot_impl(const at::Tensor& self, const at::Tensor& other, const char* name) {
  TORCH_CHECK(self.dim() == 1 && other.dim() == 1, "1D tensors expected, but got ", self.dim(), "D and ",
              other.dim(), "D tensors");
  TORCH_CHECK(self.scalar_type() == other.scalar_type(), name,
              " : expected both vectors to have same dtype, but found ", self.scalar_type(), " and ",
              other.scalar_type());
  TORCH_CHECK(self.numel() == other.numel(), "inconsistent tensor size, expected tensor [", self.numel(),
              "] and src [", other.numel(), "] to have the same number of elements, but got ", self.numel(),
              " and ", other.numel(), " elements respectively");
  c10::DeviceGuard guard(self.device());
  const auto dtype = self.scalar_type();
  // Neither the CPU nor CUDA has a bool dot.
  TORCH_CHECK_NOT_IMPLEMENTED(dtype != c10::kBool, "\"", name, "\" not implemented for 'Bool'");
  if (!real_clblast_type(dtype)) {  // (complex: CLBlast's Dotu / Dotc would not see conjugate bits)
    if (half_type(dtype))  // accumulate in float32
      return dot_impl(self.to(c10::kFloat), other.to(c10::kFloat), name).to(dtype);
    if (self.is_complex() && std::strcmp(name, "vdot") == 0) return at::mul(self.conj_physical(), other).sum();
    return at::mul(self, other).sum(dtype);  // integers: exact; complex: the reduction engine's sum
  }
  at::Tensor out = at::empty({}, self.options());
  if (self.numel() == 0) return out.zero_();
  const at::Tensor x = self.stride(0) >= 1 ? self : self.contiguous();
  const at::Tensor y = other.stride(0) >= 1 ? other : other.contiguous();
  const size_t es = self.element_size();
  const DeviceBuffer xb = resolve_device_ptr(x.const_data_ptr()), yb = resolve_device_ptr(y.const_data_ptr()),
                     ob = resolve_device_ptr(out.mutable_data_ptr());
  cl_command_queue queue = blas_queue(out);
  auto run = [&](auto zero) {
    using T = decltype(zero);
    check_clblast(clblast::Dot<T>(self.numel(), ob.buffer, ob.offset / es, xb.buffer, xb.offset / es, x.stride(0),
                                  yb.buffer, yb.offset / es, y.stride(0), &queue, nullptr),
                  "Dot");
  };
  if (dtype == c10::kFloat) run(0.0f);
  else run(0.0);
  return out;
}

// Conjugate bits resolved as ATen's CPU and CUDA dot / vdot do (a result may
// come back with its conjugate bit set, as theirs).
at::Tensor vdot_entry(const at::Tensor& self, const at::Tensor& other);
at::Tensor dot_entry(const at::Tensor& self, const at::Tensor& other) {
  if (self.is_complex()) {
    if (self.is_conj())
      return other.is_conj() ? dot_entry(self.conj(), other.conj()).conj() : vdot_entry(self.conj(), other);
    if (other.is_conj()) return vdot_entry(other.conj(), self);
  }
  return dot_impl(self, other, "dot");
}
at::Tensor vdot_entry(const at::Tensor& self, const at::Tensor& other) {
  if (self.is_complex()) {
    if (self.is_conj()) return other.is_conj() ? vdot_entry(other.conj(), self.conj()) : dot_entry(self.conj(), other);
    if (other.is_conj()) return dot_entry(self, other.conj()).conj();
  }
  return dot_impl(self, other, "vdot");
}

// addr (outer-product update): ATen's CompositeExplicitAutograd math_addr
// serves non-CPU/CUDA backends but skips the scalar checks of the CPU's and
// CUDA's kernels (a bool beta on float tensors, a float alpha on integral
// ones ran instead of raising). Here: the same checks and shapes as theirs,
// then the same composition (beta == 0 ignores self, NaN included).
void check_addr_scalar(c10::ScalarType dtype, const c10::Scalar& scalar, const char* name) {
  TORCH_CHECK(!scalar.isBoolean() || dtype == at::kBool, "Boolean ", name, " only supported for Boolean results.");
  TORCH_CHECK(c10::isFloatingType(dtype) || c10::isComplexType(dtype) || scalar.isIntegral(true),
              "For integral input tensors, argument ", name, " must not be a floating point number.");
}

at::Tensor addr(const at::Tensor& self, const at::Tensor& vec1, const at::Tensor& vec2, const c10::Scalar& beta,
                const c10::Scalar& alpha) {
  TORCH_CHECK(vec1.dim() == 1, "addr: Expected 1-D argument vec1, but got ", vec1.dim(), "-D");
  TORCH_CHECK(vec2.dim() == 1, "addr: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  const c10::ScalarType dtype = c10::promoteTypes(c10::promoteTypes(self.scalar_type(), vec1.scalar_type()),
                                                  vec2.scalar_type());
  check_addr_scalar(dtype, beta, "beta");
  check_addr_scalar(dtype, alpha, "alpha");
  const at::Tensor base = self.expand({vec1.size(0), vec2.size(0)});  // CPU's and CUDA's shape rule
  const at::Tensor outer = at::outer(vec1, vec2);
  const at::Tensor scaled = alpha.toComplexDouble() == 1.0 ? outer : alpha * outer;
  at::Tensor out;
  if (beta.toComplexDouble() == 0.0) out = scaled;
  else if (beta.toComplexDouble() == 1.0) out = base + scaled;
  else out = beta * base + scaled;
  return out.to(dtype);
}

// addr's out= as CUDA's (a TensorIterator over out and the inputs): every
// tensor on one device, the result castable to out's dtype.
at::Tensor& addr_out(const at::Tensor& self, const at::Tensor& vec1, const at::Tensor& vec2, const c10::Scalar& beta,
                     const c10::Scalar& alpha, at::Tensor& out) {
  const at::Tensor result = torch_ocl::addr(self, vec1, vec2, beta, alpha);
  TORCH_CHECK(c10::canCast(result.scalar_type(), out.scalar_type()), "result type ", result.scalar_type(),
              " can't be cast to the desired output type ", out.scalar_type());
  at::native::resize_output(out, result.sizes());
  return out.copy_(result);
}

using TensorRef = const at::Tensor&;
using ScalarRef = const c10::Scalar&;

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using namespace at::meta;
  // The matrix products run natively for gemm_native dtypes (CLBlast's, half
  // types through float32, integers); bool runs on the CPU (which raises).
  register_structured<structured_mm, &matmul_impl, TensorRef>(m, "mm", nullptr, "mm.out", gemm_native);
  register_structured<structured_bmm, &matmul_impl, TensorRef>(m, "bmm", nullptr, "bmm.out", gemm_native);
  register_structured<structured_addmm, &addmm_impl, TensorRef, TensorRef, ScalarRef, ScalarRef>(
      m, "addmm", "addmm_", "addmm.out", gemm_native);
  register_structured<structured__addmm_activation, &addmm_activation_impl, TensorRef, TensorRef, ScalarRef,
                      ScalarRef, bool>(m, "_addmm_activation", nullptr, "_addmm_activation.out", gemm_native);
  register_structured<structured_addmv, &addmv_impl, TensorRef, TensorRef, ScalarRef, ScalarRef>(
      m, "addmv", "addmv_", "addmv.out", gemm_native);
  register_structured<structured_baddbmm, &baddbmm_impl, TensorRef, TensorRef, ScalarRef, ScalarRef>(
      m, "baddbmm", "baddbmm_", "baddbmm.out", gemm_native);
  register_op<&addbmm, gemm_native>(m, "addbmm");
  register_op<&addbmm_, gemm_native>(m, "addbmm_");
  register_op<&addbmm_out, gemm_native>(m, "addbmm.out");
  register_op<&dot_entry, takes_complex>(m, "dot");
  register_op<&vdot_entry, takes_complex>(m, "vdot");
  register_op<&addr, takes_complex>(m, "addr");  // (complex through outer and add)
  register_op<&addr_out, takes_complex>(m, "addr.out");
}

}  // namespace torch_ocl
