// Random ops on the device (DESIGN.md decision 10). ATen's generic impls
// (at::native::uniform_, normal_, bernoulli_, random_, exponential_, ...:
// argument checks, complex via view_as_real, normal's tensor overloads) are
// registered for PrivateUse1 and call the DispatchStubs registered here, whose
// kernels are in kernels/random.cl. Each launch reserves one Philox counter
// block per element-thread from the ocl generator (backend/generator.h).
// Also native_dropout (fused mask + scale) and randperm (Feistel permutation).
// rrelu_with_noise (+ in-place / out=): training noise from Philox, eval = leaky_relu.
#include <ATen/ExpandUtils.h>
#include <ATen/TensorIterator.h>
#include <ATen/native/DistributionTemplates.h>
#include <ATen/native/TensorFactories.h>
#include <ATen/native/UnaryOps.h>
#include <ATen/ops/bernoulli_native.h>
#include <ATen/ops/cauchy_native.h>
#include <ATen/ops/_assert_async_native.h>
#include <ATen/ops/cumsum.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/leaky_relu.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/multinomial_native.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/exponential_native.h>
#include <ATen/ops/geometric_native.h>
#include <ATen/ops/log_normal_native.h>
#include <ATen/ops/native_dropout_backward_native.h>
#include <ATen/ops/normal_native.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/random_native.h>
#include <ATen/ops/uniform_native.h>

#include <cmath>

#include "kernels/register_op.h"
#include "backend/fallback.h"
#include "backend/generator.h"
#include "backend/kernel_launch.h"
#include "kernels/op_table.h"

namespace torch_ocl {
namespace {

using at::TensorIteratorBase;
using c10::ScalarType;
using Gen = std::optional<at::Generator>;

// random.cl's preamble for output dtype `dtype` (see the top of random.cl).
std::string random_preamble(ScalarType dtype) {
  std::string s = dtype_preamble(dtype);
  s += dtype == at::kDouble ? "#define FT double\n#define FT_DOUBLE 1\n" : "#define FT float\n";
  if (dtype == at::kHalf) s += "#define RND_HALF 1\n";
  if (dtype == at::kBFloat16) s += "#define RND_BF16 1\n";
  return s;
}

// Values one Philox block (4 x 32 bits) gives a continuous distribution.
int values_per_block(ScalarType dtype) { return dtype == at::kDouble ? 2 : 4; }

// Philox blocks one work item computes at once (FOR_BLOCKS / rng_block8 in
// random.cl: eight element-threads in vector registers).
constexpr int kBlocksPerItem = 8;

// Launches random.cl's `kernel` over a built iterator: (Indexer, n, tensors...,
// seed, offset, params...); `vpb` values per Philox block, kBlocksPerItem
// blocks per work item.
// A program of random.cl: the output dtype, and where an op needs them the
// dtype of bernoulli_'s probability tensor or poisson's switch. variant()
// keys its kernels (source_kernel); preamble() is built only for a new one.
struct RandomProgram {
  ScalarType dtype;
  ScalarType src = ScalarType::Undefined;  // bernoulli_(Tensor p): p's dtype
  bool poisson = false;
  std::string preamble() const {
    std::string s = random_preamble(dtype);
    if (src != ScalarType::Undefined) s += dtype_preamble(src, "SRC_") + "#define BERNOULLI_TENSOR 1\n";
    if (poisson) s += "#define RNG_POISSON 1\n";
    return s;
  }
  uint64_t variant() const { return kernel_variant({static_cast<int>(dtype), static_cast<int>(src), poisson}); }
};

template <class... P>
void launch(TensorIteratorBase& iter, const RandomProgram& program, const char* kernel, int vpb,
            const Gen& gen, const P&... params) {
  const int64_t n = iter.numel();
  if (n == 0) return;
  const auto device = iter.device(0).index();
  for (int k = 0; k < iter.ntensors(); ++k) check_dtype_supported(iter.dtype(k), device);
  const PhiloxState state = reserve_philox(gen, device);
  Launch l(device, source_kernel(device, "random", kernel, program.variant(), [&] { return program.preamble(); }));
  l.value(make_indexer(iter)).value<int64_t>(n);
  for (int k = 0; k < iter.ntensors(); ++k) l.device_pointer(iter.data_ptr(k));
  l.value<uint64_t>(state.seed).value<uint64_t>(state.offset);
  (l.value(params), ...);
  const int64_t per_item = int64_t{vpb} * kBlocksPerItem;
  l.run(static_cast<size_t>((n + per_item - 1) / per_item));
}

// A continuous distribution with parameters (a, b), computed in float (double
// for float64).
void continuous(TensorIteratorBase& iter, const char* kernel, const Gen& gen, double a, double b) {
  const auto dtype = iter.dtype();
  if (dtype == at::kDouble)
    launch(iter, RandomProgram{dtype}, kernel, 2, gen, a, b);
  else
    launch(iter, RandomProgram{dtype}, kernel, 4, gen, static_cast<float>(a),
           static_cast<float>(b));
}

void check_floating(ScalarType dtype, const char* name) {
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(dtype), "\"", name, "\" not implemented for '",
                              c10::toString(dtype), "'");
}

// The dtypes ATen's AT_DISPATCH_ALL_TYPES_AND* covers (no uint16/32/64).
bool is_all_types(ScalarType dtype) {
  return dtype != at::kUInt16 && dtype != at::kUInt32 && dtype != at::kUInt64 && dtype != at::kBool;
}
void check_all_types(ScalarType dtype, const char* name, bool with_bool) {
  TORCH_CHECK_NOT_IMPLEMENTED(is_all_types(dtype) || (with_bool && dtype == at::kBool), "\"", name,
                              "\" not implemented for '", c10::toString(dtype), "'");
}

// p in [0, 1] as a threshold on 32 random bits: P(bits < t) = t / 2^32.
uint64_t bernoulli_threshold(double p) { return static_cast<uint64_t>(std::ldexp(p, 32)); }

void uniform_kernel(TensorIteratorBase& iter, double from, double to, Gen gen) {
  check_floating(iter.dtype(), "uniform_kernel_ocl");
  continuous(iter, "rng_uniform", gen, from, to);
}

void normal_kernel(const at::TensorBase& self, double mean, double std, Gen gen) {
  check_floating(self.scalar_type(), "normal_kernel_ocl");
  auto iter = at::TensorIterator::borrowing_nullary_op(self);
  continuous(iter, "rng_normal", gen, mean, std);
}

void log_normal_kernel(TensorIteratorBase& iter, double mean, double std, Gen gen) {
  check_floating(iter.dtype(), "log_normal_ocl");
  continuous(iter, "rng_log_normal", gen, mean, std);
}

void cauchy_kernel(TensorIteratorBase& iter, double median, double sigma, Gen gen) {
  check_floating(iter.dtype(), "cauchy_ocl");
  continuous(iter, "rng_cauchy", gen, median, sigma);
}

void exponential_kernel(TensorIteratorBase& iter, double lambda, Gen gen) {
  TORCH_CHECK(at::isFloatingType(iter.dtype()),
              "Exponential distribution is a continuous probability distribution. dtype must be a "
              "floating point but you specified ",
              iter.dtype());
  continuous(iter, "rng_exponential", gen, lambda, 0);
}

void geometric_kernel(TensorIteratorBase& iter, double p, Gen gen) {
  check_all_types(iter.dtype(), "geometric_ocl", false);
  continuous(iter, "rng_geometric", gen, std::log1p(-p), 0);
}

// random_: (bits % range) + base; range 0 = the full 64 bits. From 2^28 the
// modulo of 32 bits would skew the distribution by over 5%: 64 bits, as
// CUDA's and the CPU's uniform_int_from_to (randint(0.75 * 2^32) is uniform).
void random_bits(TensorIteratorBase& iter, uint64_t range, int64_t base, const Gen& gen) {
  const bool wide = range == 0 || range >= (uint64_t{1} << 28);
  launch(iter, RandomProgram{iter.dtype()}, "rng_random", wide ? 2 : 4, gen, range, base,
         static_cast<int32_t>(wide));
}

void random_from_to_kernel(TensorIteratorBase& iter, uint64_t range, int64_t base, Gen gen) {
  random_bits(iter, range, base, gen);
}

void random_full_64_bits_range_kernel(TensorIteratorBase& iter, Gen gen) {
  const auto dtype = iter.dtype();
  check_all_types(dtype, "random_full_64_bits_range_kernel_ocl", false);
  TORCH_CHECK_NOT_IMPLEMENTED(dtype != at::kHalf, "\"random_full_64_bits_range_kernel_ocl\" not implemented for '",
                              c10::toString(dtype), "'");
  TORCH_CHECK(dtype == at::kLong || dtype == at::kDouble || dtype == at::kFloat || dtype == at::kBFloat16,
              "random_full_64_bits_range_kernel_ocl handles only int64, double, float and bfloat16");
  random_bits(iter, 0, 0, gen);
}

// random_() without bounds: [0, 2^digits] for floating types, [0, max] for
// integers, as the CPU.
void random_kernel(TensorIteratorBase& iter, Gen gen) {
  const auto dtype = iter.dtype();
  check_all_types(dtype, "random_kernel_ocl", true);
  uint64_t range = 0;
  switch (dtype) {
    case at::kBool: range = 2; break;
    case at::kHalf: range = (uint64_t{1} << 11) + 1; break;
    case at::kBFloat16: range = (uint64_t{1} << 8) + 1; break;
    case at::kFloat: range = (uint64_t{1} << 24) + 1; break;
    case at::kDouble: range = (uint64_t{1} << 53) + 1; break;
    case at::kByte: range = 256; break;
    case at::kChar: range = 128; break;
    case at::kShort: range = 32768; break;
    case at::kInt: range = uint64_t{1} << 31; break;
    case at::kLong: range = uint64_t{1} << 63; break;
    default: TORCH_CHECK(false, "random_: unexpected dtype ", dtype);
  }
  random_bits(iter, range, 0, gen);
}

void bernoulli_scalar_kernel(const at::TensorBase& self, double p, Gen gen) {
  check_all_types(self.scalar_type(), "bernoulli_scalar_ocl_", true);
  auto iter = at::TensorIterator::borrowing_nullary_op(self);
  launch(iter, RandomProgram{self.scalar_type()}, "rng_bernoulli_scalar", 4, gen, bernoulli_threshold(p));
}

void bernoulli_tensor_kernel(const at::TensorBase& self, const at::TensorBase& p_, Gen gen) {
  check_all_types(self.scalar_type(), "bernoulli_tensor_ocl_self_", true);
  check_floating(p_.scalar_type(), "bernoulli_tensor_ocl_p_");
  at::Tensor p = at::Tensor(p_).to(self.device());
  // The CPU kernel checks every p; here that costs a sync, as normal()'s
  // std >= 0 check in ATen.
  TORCH_CHECK(p.ge(0).logical_and_(p.le(1)).all().item<bool>(),
              "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be "
              "improved?  If so, please report an enhancement request to PyTorch.)");
  at::Tensor out(self);
  auto expanded = at::expand_inplace(out, p);
  auto iter = at::TensorIteratorConfig()
                  .add_output(out)
                  .add_const_input(*expanded)
                  .check_all_same_dtype(false)
                  .build();
  launch(iter, RandomProgram{self.scalar_type(), p.scalar_type()}, "rng_bernoulli_tensor", 4, gen);
}

// native_dropout: one kernel writes the bool mask (keep with probability
// 1 - p) and out = input * mask * scale, as the CPU's
// input.mul(mask).mul_(scale).
std::tuple<at::Tensor, at::Tensor> native_dropout(const at::Tensor& input, double p,
                                                 std::optional<bool> train) {
  if (input.numel() == 0) return {input, at::empty_like(input)};
  if (train.has_value() && !*train)
    return {input.clone(), at::ones_like(input, input.options().dtype(at::kBool))};
  if (!at::isFloatingType(input.scalar_type())) {
    auto stack = run_fallback("aten::native_dropout", c10::impl::boxArgs(input, p, train));
    return {stack[0].toTensor(), stack[1].toTensor()};
  }
  const double keep = 1. - p;
  TORCH_CHECK(0 <= keep && keep <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", keep);
  const double scale = keep == 0 ? 0. : 1. / keep;
  at::Tensor mask = at::empty_like(input, input.options().dtype(at::kBool));
  at::Tensor out = at::empty_like(input);
  auto iter = at::TensorIteratorConfig()
                  .add_output(out)
                  .add_output(mask)
                  .add_const_input(input)
                  .check_all_same_dtype(false)
                  .build();
  const auto dtype = input.scalar_type();
  if (dtype == at::kDouble)
    launch(iter, RandomProgram{dtype}, "rng_dropout", 4, std::nullopt, bernoulli_threshold(keep), scale);
  else
    launch(iter, RandomProgram{dtype}, "rng_dropout", 4, std::nullopt, bernoulli_threshold(keep),
           static_cast<float>(scale));
  return {out, mask};
}

// rrelu_with_noise (the CPU's checks): training draws the noise on the device
// (one Philox block per VPB elements, as the other distributions); eval is
// leaky_relu with slope (lower + upper) / 2, as the CPU.
at::Tensor& rrelu_with_noise_out(const at::Tensor& self, at::Tensor& noise, const at::Scalar& lower,
                                 const at::Scalar& upper, bool training, Gen gen, at::Tensor& output) {
  TORCH_CHECK(self.sym_sizes() == noise.sym_sizes(), "noise tensor shape must match self tensor shape. Got self.shape = ",
              self.sym_sizes(), " noise.shape = ", noise.sym_sizes());
  if (!training) {
    const double slope = (lower.toDouble() + upper.toDouble()) / 2;
    return at::leaky_relu_out(output, self, slope);
  }
  const auto dtype = self.scalar_type();
  // Every floating type, half too, as CUDA (the CPU has no half kernel).
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(dtype), "\"rrelu_with_noise_out_cpu\" not implemented for '",
                              c10::toString(dtype), "'");
  if (!output.is_same(self)) at::native::resize_output(output, self.sizes());
  auto iter = at::TensorIteratorConfig()
                  .add_output(output)
                  .add_output(noise)
                  .add_const_input(self)
                  .check_all_same_dtype(false)
                  .resize_outputs(false)
                  .set_check_mem_overlap(false)
                  .build();
  const double lo = lower.toDouble(), range = upper.toDouble() - lo;
  if (dtype == at::kDouble)
    launch(iter, RandomProgram{dtype}, "rng_rrelu", 2, gen, lo, range);
  else
    launch(iter, RandomProgram{dtype}, "rng_rrelu", 4, gen, static_cast<float>(lo), static_cast<float>(range));
  return output;
}

at::Tensor rrelu_with_noise(const at::Tensor& self, at::Tensor& noise, const at::Scalar& lower,
                            const at::Scalar& upper, bool training, Gen gen) {
  at::Tensor output = at::empty_like(self, at::MemoryFormat::Contiguous);
  return rrelu_with_noise_out(self, noise, lower, upper, training, std::move(gen), output);
}

at::Tensor& rrelu_with_noise_(at::Tensor& self, at::Tensor& noise, const at::Scalar& lower, const at::Scalar& upper,
                              bool training, Gen gen) {
  return rrelu_with_noise_out(self, noise, lower, upper, training, std::move(gen), self);
}

// randperm: out[i] = F(i) for a keyed Feistel permutation F of [0, 4^h),
// 4^h >= n, cycle-walked into [0, n) (random.cl). No sort; not every one of
// the n! permutations is reachable, as with any seeded generator.
at::Tensor& randperm_out(int64_t n, Gen gen, at::Tensor& result) {
  TORCH_CHECK(n >= 0, "n must be non-negative, got", n);
  TORCH_CHECK(!gen.has_value() || result.device() == gen->device(), "Expected a '", result.device(),
              "' generator device but found '", gen->device(), "'");
  at::native::check_supported_max_int_with_precision(n, result);
  const auto dtype = result.scalar_type();
  check_all_types(dtype, "randperm", false);
  result.resize_({n});
  if (n == 0) return result;
  const auto device = result.device().index();
  check_dtype_supported(dtype, device);
  int h = 1;
  while (h < 31 && (uint64_t{1} << (2 * h)) < static_cast<uint64_t>(n)) ++h;
  at::Tensor out = result.is_contiguous() ? result : at::empty({n}, result.options());
  const PhiloxState state = reserve_philox(gen, device);
  Launch(device, source_kernel(device, "random", "rng_randperm", kernel_variant({static_cast<int>(dtype)}),
                               [&] { return random_preamble(dtype); }))
      .value<int64_t>(n)
      .tensor(out)
      .value<uint64_t>(state.seed)
      .value<uint64_t>(state.offset)
      .value<int32_t>(h)
      .run(static_cast<size_t>(n));
  if (!out.is_same(result)) result.copy_(out);
  return result;
}

// multinomial with replacement (ATen's multinomial_out calls this stub for
// n_sample > 1; it handles no replacement and n_sample == 1 itself with
// exponential_ + argmax / topk). The rows' prefix sums come from the native
// cumsum; the CPU's per-row checks cost one host read; then one uniform per
// sample and a binary search in its row (random.cl).
void multinomial_with_replacement_kernel(at::Tensor& result, const at::Tensor& self, int64_t n_sample, Gen gen) {
  const int64_t ncat = self.size(-1);
  const int64_t rows = self.dim() == 1 ? 1 : self.size(0);
  const int64_t n = rows * n_sample;
  if (n == 0 || ncat == 0) return;
  const auto device = self.device().index();
  const ScalarType acc = self.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
  check_dtype_supported(acc, device);
  const at::Tensor p = self.reshape({rows, ncat}).to(acc);
  const at::Tensor cum = at::cumsum(p, -1).contiguous();
  const at::Tensor flags =
      at::stack({p.ge(0).logical_not().any(), p.isinf().any(), cum.select(1, ncat - 1).le(0).any()}).cpu();
  const bool* f = flags.const_data_ptr<bool>();
  TORCH_CHECK(!f[0], "invalid multinomial distribution (encountering probability entry < 0)");
  TORCH_CHECK(!f[1], "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
  TORCH_CHECK(!f[2], "invalid multinomial distribution (sum of probabilities <= 0)");
  at::Tensor out = result.is_contiguous() ? result : at::empty(result.sizes(), result.options());
  const int vpb = values_per_block(acc);
  const PhiloxState state = reserve_philox(gen, device);
  Launch(device, source_kernel(device, "random", "rng_multinomial", kernel_variant({static_cast<int>(acc)}),
                               [&] { return random_preamble(acc); }))
      .value(n)
      .input(cum)
      .value(ncat)
      .value(n_sample)
      .tensor(out)
      .value<uint64_t>(state.seed)
      .value<uint64_t>(state.offset)
      .run(static_cast<size_t>((n + vpb * kBlocksPerItem - 1) / (vpb * kBlocksPerItem)));
  if (!out.is_same(result)) result.copy_(out);
}

// poisson(rates): one Philox stream per element (random.cl), as many draws
// as the element needs; float types as the CPU.
at::Tensor poisson(const at::Tensor& self, Gen gen) {
  const auto dtype = self.scalar_type();
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(dtype), "\"poisson_cpu\" not implemented for '",
                              c10::toString(dtype), "'");
  at::Tensor out = at::empty(self.sizes(), self.options());
  auto iter = at::TensorIteratorConfig().add_output(out).add_const_input(self).build();
  launch(iter, RandomProgram{dtype, ScalarType::Undefined, true}, "rng_poisson", 1, gen);
  return out;
}

}  // namespace
}  // namespace torch_ocl

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(uniform_stub, &::torch_ocl::uniform_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(normal_stub, &::torch_ocl::normal_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(log_normal_stub, &::torch_ocl::log_normal_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(cauchy_stub, &::torch_ocl::cauchy_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(exponential_stub, &::torch_ocl::exponential_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(geometric_stub, &::torch_ocl::geometric_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(random_from_to_stub, &::torch_ocl::random_from_to_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(random_full_64_bits_range_stub, &::torch_ocl::random_full_64_bits_range_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(random_stub, &::torch_ocl::random_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(bernoulli_scalar_stub, &::torch_ocl::bernoulli_scalar_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(bernoulli_tensor_stub, &::torch_ocl::bernoulli_tensor_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(multinomial_with_replacement_stub, &::torch_ocl::multinomial_with_replacement_kernel)
}  // namespace at::native

namespace torch_ocl {
namespace {
using at::Tensor;
using NormalTF = Tensor (*)(const Tensor&, double, Gen);
using NormalFT = Tensor (*)(double, const Tensor&, Gen);
using NormalTT = Tensor (*)(const Tensor&, const Tensor&, Gen);
using NormalTFOut = Tensor& (*)(const Tensor&, double, Gen, Tensor&);
using NormalFTOut = Tensor& (*)(double, const Tensor&, Gen, Tensor&);
using NormalTTOut = Tensor& (*)(const Tensor&, const Tensor&, Gen, Tensor&);
using RandomFrom = Tensor& (*)(Tensor&, int64_t, std::optional<int64_t>, Gen);
using RandomTo = Tensor& (*)(Tensor&, int64_t, Gen);
using RandomPlain = Tensor& (*)(Tensor&, Gen);
using BernoulliF = Tensor& (*)(Tensor&, double, Gen);
using BernoulliT = Tensor& (*)(Tensor&, const Tensor&, Gen);
}  // namespace

// uniform_ / normal_ handle complex themselves (view_as_real). The others send
// complex to the counted CPU fallback (its error).
TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  ::torch_ocl::register_op<&at::native::uniform_, takes_complex>(m, "uniform_");
  ::torch_ocl::register_op<&at::native::normal_, takes_complex>(m, "normal_");
  ::torch_ocl::register_op<static_cast<NormalTF>(at::native::normal)>(m, "normal.Tensor_float");
  ::torch_ocl::register_op<static_cast<NormalFT>(at::native::normal)>(m, "normal.float_Tensor");
  ::torch_ocl::register_op<static_cast<NormalTT>(at::native::normal)>(m, "normal.Tensor_Tensor");
  ::torch_ocl::register_op<static_cast<NormalTFOut>(at::native::normal_out)>(m, "normal.Tensor_float_out");
  ::torch_ocl::register_op<static_cast<NormalFTOut>(at::native::normal_out)>(m, "normal.float_Tensor_out");
  ::torch_ocl::register_op<static_cast<NormalTTOut>(at::native::normal_out)>(m, "normal.Tensor_Tensor_out");
  ::torch_ocl::register_op<&native_dropout>(m, "native_dropout");
  ::torch_ocl::register_op<&rrelu_with_noise>(m, "rrelu_with_noise");
  ::torch_ocl::register_op<&rrelu_with_noise_>(m, "rrelu_with_noise_");
  ::torch_ocl::register_op<&rrelu_with_noise_out>(m, "rrelu_with_noise.out");
  ::torch_ocl::register_op<&at::native::native_dropout_backward>(m, "native_dropout_backward");
  ::torch_ocl::register_op<&randperm_out>(m, "randperm.generator_out");
}

}  // namespace torch_ocl

OCL_NATIVE_FN("bernoulli_.float", static_cast<torch_ocl::BernoulliF>(&at::native::bernoulli_))
OCL_NATIVE_FN("bernoulli_.Tensor", static_cast<torch_ocl::BernoulliT>(&at::native::bernoulli_))
OCL_NATIVE_FN("bernoulli.out", &at::native::bernoulli_out)
OCL_NATIVE_FN("random_.from", static_cast<torch_ocl::RandomFrom>(&at::native::random_))
OCL_NATIVE_FN("random_.to", static_cast<torch_ocl::RandomTo>(&at::native::random_))
OCL_NATIVE_FN("random_", static_cast<torch_ocl::RandomPlain>(&at::native::random_))
OCL_NATIVE_FN("exponential_", &at::native::exponential_)
OCL_NATIVE_FN("geometric_", &at::native::geometric_)
OCL_NATIVE_FN("log_normal_", &at::native::log_normal_)
OCL_NATIVE_FN("cauchy_", &at::native::cauchy_)
OCL_NATIVE_FN("multinomial", &at::native::multinomial)
OCL_NATIVE_FN("multinomial.out", &at::native::multinomial_out)
OCL_NATIVE_FN("poisson", &torch_ocl::poisson)
// _assert_async (multinomial's argument check on non-CPU devices): the CPU's
// impl, which reads the value (a sync; CUDA defers it to a device assert).
OCL_NATIVE_FN("_assert_async", &at::native::_assert_async_cpu)
OCL_NATIVE_FN("_assert_async.msg", &at::native::_assert_async_msg_cpu)
