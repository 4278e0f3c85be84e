#include "kernels/reduce_engine.h"

#include <ATen/ops/empty.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string>

#include "backend/device_ptr.h"
#include "backend/kernel_launch.h"
#include "backend/program_cache.h"
#include "backend/runtime.h"

namespace torch_ocl {
namespace {

constexpr int kDims = 12;  // KDIMS / RDIMS in kernels/reduce_engine.cl
// Mirrors RedIndexer in kernels/reduce_engine.cl (all fields 64-bit: no padding).
struct RedIndexer {
  int64_t n_kept = 0, n_red = 0;
  int64_t kept_sizes[kDims] = {}, kept_in[kDims] = {}, kept_out0[kDims] = {}, kept_out1[kDims] = {};
  int64_t red_sizes[kDims] = {}, red_in[kDims] = {};
  int64_t out_numel = 0, red_numel = 0, G = 1, chunk = 0;
  uint64_t io = 0, o0o = 0, o1o = 0, po = 0;
};

// The buffers of a reduction launch: the input's, the two outputs' and the
// partials' (null where a kernel has none), their byte offsets written into
// the head. `one`: every non-null one is the same cl_mem and the device has
// one-buffer kernels (one_buffer_variants: PoCL tracks each buffer argument
// of every launch).
struct RedBuffers {
  std::array<cl_mem, 4> mem{};
  bool one = false;
};
RedBuffers resolve_buffers(RedIndexer& ix, c10::DeviceIndex device, const at::TensorBase* input,
                           const at::TensorBase& o0, const at::TensorBase& o1, const at::TensorBase* partial) {
  RedBuffers b;
  std::array<uint64_t*, 4> offsets{&ix.io, &ix.o0o, &ix.o1o, &ix.po};
  std::array<const at::TensorBase*, 4> tensors{input, &o0, &o1, partial};
  cl_mem first = nullptr;
  b.one = one_buffer_variants(device);
  for (size_t k = 0; k < 4; ++k) {
    if (tensors[k] == nullptr || !tensors[k]->defined() || tensors[k]->const_data_ptr() == nullptr) continue;
    const DeviceBuffer d = resolve_device_ptr(tensors[k]->const_data_ptr());
    b.mem[k] = d.buffer;
    *offsets[k] = d.offset;
    if (first == nullptr) first = d.buffer;
    b.one &= d.buffer == first;
  }
  if (b.one) b.mem = {first};
  return b;
}

// The arguments every reduction kernel starts with: the head (index space,
// sizes and the byte offsets of the buffers), then the buffers (one when
// they share it: the kernel's _1 entry point).
void push_head(Launch& launch, const RedIndexer& ix, const RedBuffers& b) {
  launch.raw(sizeof(ix), &ix);
  for (size_t k = 0; k < (b.one ? 1 : b.mem.size()); ++k) launch.raw(sizeof(cl_mem), b.mem[k] ? &b.mem[k] : nullptr);
}

enum class Mode : int { Items = 0, Groups = 1, Partials = 2, Lanes = 3, Rows = 4, RowPartials = 5, Chunks = 6 };
const char* mode_kernel(Mode m) {
  static const char* names[] = {"reduce_items", "reduce_groups", "reduce_partials", "reduce_lanes",
                                "reduce_rows",  "reduce_row_partials", "reduce_chunks"};
  return names[static_cast<int>(m)];
}
// Whether a mode's kernel takes a local-memory scratch after its buffers.
bool mode_has_scratch(Mode m) { return m == Mode::Groups || m == Mode::Partials; }
// Results per item of Mode::Lanes (CPU devices only): each step of an item's
// loop reads 64 consecutive elements (256 bytes of float32) of one reduced
// row, so the reduction walks memory in long runs (sum over dim 0 of a 1024 x
// 1024 matrix: 0.08 -> 0.69 of the best copy kernel, measured; wider matrices
// go row by row, Mode::Rows).
constexpr int kWideLanes = 64;

// Launches `items` independent items (each kernel returns past its count):
// while they are few, one per work group so that they spread over the compute
// units; otherwise in 256-item groups (Launch::run caps its grid at 64K groups).
void run_spread(Launch& launch, int64_t items) {
  if (items <= 4096) launch.run(static_cast<size_t>(items), 1);
  else launch.run_items(static_cast<size_t>(items));
}

// Whether `op` folds in cascade (kernels/reduce_engine.cl: CASCADE_LOOP):
// floating sums and their kin (ACC or Welford accumulators over floating or
// complex input; complex sums accumulate in T). Min / max / arg / logical /
// integer reductions are exact or order-free and fold straight.
bool cascades(const ReduceOp& op, c10::ScalarType in) {
  if (!op.cascade || (!c10::isFloatingType(in) && !c10::isComplexType(in))) return false;
  const std::string a = op.acc_type;
  return a == "ACC" || a == "Welford" || (a == "T" && op.complex);
}

// The accumulators of a reduction: ACC0_T (steps) and ACC_T (combines,
// partials, projections); a cascade over a float ACC widens its upper levels
// to double where the device has fp64 (as the CPU sums its float Welford and
// batch norm statistics in double).
struct AccTypes {
  bool cascade = false, wide = false;
  size_t bytes0 = 0, bytes = 0;  // sizeof(ACC0_T), sizeof(ACC_T) (OpenCL C struct layout)
};
AccTypes acc_types(const ReduceOp& op, c10::ScalarType in, c10::DeviceIndex device) {
  AccTypes r;
  r.cascade = cascades(op, in);
  r.wide = r.cascade && std::strcmp(engine_type(in).acc, "float") == 0 && device_info(device).fp64;
  // sizeof(T) and sizeof(ACC): half types compute in float, complex32 in float2.
  const bool complex = is_complex_kernel_dtype(in);
  const size_t real = complex ? (in == c10::kComplexDouble ? 8 : 4) : 0;
  const size_t t = complex ? 2 * real : c10::isFloatingType(in) && in != c10::kDouble ? 4 : c10::elementSize(in);
  const size_t acc = complex ? real : in == c10::kDouble || !c10::isFloatingType(in) ? 8 : 4;
  auto bytes = [&](size_t acc, size_t t) -> size_t {
    const std::string a = op.acc_type;
    if (a == "ACC") return acc;
    if (a == "T") return t;
    if (a == "Welford") return 3 * acc;
    if (a == "ValueIndex") return 16;
    if (a == "MinMax") return 2 * t;
    if (a == "ulong") return 8;
    TORCH_INTERNAL_ASSERT(false, "unknown accumulator ", op.acc_type);
  };
  r.bytes0 = bytes(acc, t);
  r.bytes = r.wide ? bytes(8, 2 * t) : r.bytes0;  // wide: double, Welford of doubles, double2
  return r;
}

// `code` with the whole words ACC, Welford, T and R (the real type of a
// complex T) renamed to their wide forms ACC_W, WelfordW, T_W, R_W.
std::string widened(const char* code) {
  std::string out;
  const std::string s = code;
  for (size_t i = 0; i < s.size();) {
    if (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_') {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      const std::string w = s.substr(i, j - i);
      out += w == "ACC" ? "ACC_W" : w == "Welford" ? "WelfordW" : w == "T" ? "T_W" : w == "R" ? "R_W" : w;
      i = j;
    } else {
      out += s[i++];
    }
  }
  return out;
}

// Levels of a cascade above level 0 (CASCADE_UP in kernels/reduce_engine.cl),
// and the bytes of a Mode::Rows item's partial (ROWS_ITEM_BYTES there).
constexpr int64_t kCascadeUp = 3;
int64_t rows_item_bytes(int64_t n0, const AccTypes& a) {
  return kCascadeUp * n0 * static_cast<int64_t>(a.bytes) + (n0 * static_cast<int64_t>(a.bytes0) + 15) / 16 * 16;
}

std::string generate(const ReduceOp& op, c10::ScalarType in, c10::ScalarType out0, c10::ScalarType out1,
                     int nout, Mode mode, int lanes, bool one_buffer, const AccTypes& acct) {
  const ClType& ti = engine_type(in);
  const bool complex = is_complex_kernel_dtype(in);
  std::string s = "#define RED_MODE " + std::to_string(static_cast<int>(mode)) + "\n";
  s += "#define LANES " + std::to_string(lanes) + "\n";
  s += std::string("#define RED_CASCADE ") + (acct.cascade ? "1" : "0") + "\n";
  // Level 0's smallest block: 64 steps of a sum (a carry per 64 costs nothing
  // measurable; level 0's float error stays under the result's rounding),
  // 16 of Welford (whose float block error is larger; its steps divide anyway).
  s += std::string("#define CASCADE_MIN_LOG2 ") + (std::strcmp(op.acc_type, "Welford") == 0 ? "4" : "6") + "\n";
  auto f64 = [](c10::ScalarType t) { return t == c10::kDouble || t == c10::kComplexDouble; };
  if (f64(in) || f64(out0) || (nout == 2 && f64(out1)) || op.needs_fp64 || acct.wide)
    s += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  if (op.needs_fp64) s += "#define RED_NEEDS_FP64 1\n";
  s += std::string("#define T ") + ti.compute + "\n#define ACC " + ti.acc + "\n";
  s += std::string("#define ACC_W ") + (acct.wide ? "double" : ti.acc) + "\n";
  if (complex)
    s += std::string("#define R ") + ti.acc + "\n#define T_IS_COMPLEX 1\n#define R_W ACC_W\n#define T_W " +
         (acct.wide ? "double2" : ti.compute) + "\n";
  else
    s += "#define T_W T\n";
  s += std::string("#define T_IS_FLOAT ") + (c10::isFloatingType(in) ? "1" : "0") + "\n";
  s += std::string("#define T_LOWEST ((T)") + cl_lowest(in) + ")\n#define T_HIGHEST ((T)" + cl_highest(in) + ")\n";
  s += kernel_source("common");
  if (complex) s += kernel_source("complex_lib");
  s += std::string("#define IN_ST ") + ti.storage + "\n#define IN_LOAD(p, i) " + ti.load + "\n";
  // Steps fold into ACC0_T; everything after (combines, projections) works in
  // ACC_T, the op's strings with their types widened in a cascade.
  auto wide = [&](const char* code) { return acct.cascade ? widened(code) : std::string(code); };
  s += std::string("#define ACC0_T ") + op.acc_type + "\n#define ACC_T " + wide(op.acc_type) + "\n";
  s += std::string("#define RED_INIT0 (") + op.init + ")\n#define RED_INIT (" + wide(op.init) + ")\n";
  const std::string a = op.acc_type;
  s += std::string("#define RED_WIDEN(a) ") +
       (!acct.cascade ? "(a)" : a == "Welford" ? "welford_widen(a)" : a == "ACC" ? "((ACC_W)(a))"
                                                 : acct.wide ? "convert_double2(a)" : "(a)") + "\n";
  s += std::string("#define RED_STEP(acc, x, idx) { ") + op.step + " }\n";
  s += "#define RED_COMBINE(acc, other) { " + wide(op.combine) + " }\n";
  s += "#define NOUT " + std::to_string(nout) + "\n";
  const ClType& t0 = engine_type(out0);
  s += std::string("#define OUT0_ST ") + t0.storage + "\n#define OUT0_RAW(p, i, v) " + t0.store +
       "\n#define OUT0_STORE(p_, i_, acc) OUT0_RAW(p_, i_, (" + wide(op.project0) + "))\n";
  if (nout == 2) {
    const ClType& t1 = engine_type(out1);
    s += std::string("#define OUT1_ST ") + t1.storage + "\n#define OUT1_RAW(p, i, v) " + t1.store +
         "\n#define OUT1_STORE(p_, i_, acc) OUT1_RAW(p_, i_, (" + wide(op.project1) + "))\n";
  }
  s += "#define PARAMS_DECL";
  for (size_t p = 0; op.params[p]; ++p)
    s += std::string(op.params[p] == 'L' ? ", long p" : (std::strcmp(ti.acc, "double") == 0 ? ", double p" : ", float p")) +
         std::to_string(p);
  s += "\n#define PARAMS_ARGS";
  for (size_t p = 0; op.params[p]; ++p) s += ", p" + std::to_string(p);
  s += "\n";
  s += kernel_source("reduce_engine");
  // The entry points of the mode's body.
  const std::string name = mode_kernel(mode);
  const std::string scratch_param = mode_has_scratch(mode) ? ", __local ACC_T* scratch" : "";
  const std::string scratch_arg = mode_has_scratch(mode) ? ", scratch" : "";
  s += "__kernel void " + name + "(RedIndexer ix, __global char* ib, __global char* o0b, __global char* o1b, "
       "__global char* pb" + scratch_param + " PARAMS_DECL) { " + name + "_body(ix, ib, o0b, o1b, pb" + scratch_arg +
       " PARAMS_ARGS); }\n";
  if (one_buffer)
    s += "__kernel void " + name + "_1(RedIndexer ix, __global char* m_" + scratch_param + " PARAMS_DECL) { " + name +
         "_body(ix, m_, m_, m_, m_" + scratch_arg + " PARAMS_ARGS); }\n";
  return s;
}

void push_params(Launch& launch, const ReduceOp& op, std::initializer_list<c10::Scalar> params,
                 c10::ScalarType in) {
  size_t p = 0;
  for (const auto& v : params) {
    if (op.params[p++] == 'L') launch.value<cl_long>(v.toLong());
    else if (in == c10::kDouble || in == c10::kComplexDouble) launch.value<cl_double>(v.toDouble());
    else launch.value<cl_float>(static_cast<float>(v.toDouble()));
  }
}

}  // namespace

void run_reduction(at::TensorIteratorBase& iter, const ReduceOp& op, std::initializer_list<c10::Scalar> params) {
  const int nout = op.project1 ? 2 : 1;
  TORCH_INTERNAL_ASSERT(iter.noutputs() == nout && iter.ninputs() == 1, "reduction ", op.name,
                        ": iterator has ", iter.noutputs(), " outputs and ", iter.ninputs(), " inputs");
  TORCH_INTERNAL_ASSERT(params.size() == std::strlen(op.params));
  const c10::ScalarType in = iter.dtype(nout), out0 = iter.dtype(0), out1 = nout == 2 ? iter.dtype(1) : out0;
  // As the CPU's AT_DISPATCH (aminmax's meta, unlike max's, lets complex through).
  TORCH_CHECK_NOT_IMPLEMENTED(!c10::isComplexType(in) || op.complex, "\"", op.name, "\" not implemented for '",
                              c10::toString(in), "'");
  if (iter.tensor_base(0).numel() == 0) return;
  const auto device = iter.device().index();
  for (auto t : {in, out0, out1}) check_storable(t, device);
  if (op.needs_fp64) check_storable(c10::kDouble, device);

  RedIndexer ix;
  int64_t out_numel = 1, red_numel = 1;
  for (int d = 0; d < iter.ndim(); ++d) {
    const int64_t size = iter.shape()[d];
    auto elems = [&](int k) { return iter.strides(k)[d] / static_cast<int64_t>(iter.element_size(k)); };
    if (iter.strides(0)[d] == 0 && size != 1) {  // size 0: an empty reduction (results = projected init)
      TORCH_CHECK(ix.n_red < kDims, "torch_ocl: reductions handle at most ", kDims, " reduced dims");
      ix.red_sizes[ix.n_red] = size;
      ix.red_in[ix.n_red++] = elems(nout);
      red_numel *= size;
    } else if (size != 1) {
      TORCH_CHECK(ix.n_kept < kDims, "torch_ocl: reductions handle at most ", kDims, " kept dims");
      ix.kept_sizes[ix.n_kept] = size;
      ix.kept_in[ix.n_kept] = elems(nout);
      ix.kept_out0[ix.n_kept] = elems(0);
      ix.kept_out1[ix.n_kept++] = nout == 2 ? elems(1) : 0;
      out_numel *= size;
    }
  }
  if (out_numel == 0) return;
  // Reductions along contiguous memory: a work group per result (on CPU
  // devices, with many results, a work item per row); along strided memory
  // with many results: a work item per result.
  // On CPU devices the item-per-result reductions whose first kept dim is
  // contiguous take LANES neighbouring results per item.
  const bool contiguous_reduction = ix.n_red > 0 && ix.red_in[0] == 1;
  const int lanes = contiguous_block(device);  // 1 with the gpu profile: work-group trees, no lanes
  Mode mode = red_numel <= 16 || (out_numel >= 64 && (!contiguous_reduction || lanes > 1)) ? Mode::Items : Mode::Groups;
  if (mode == Mode::Items && lanes > 1 && ix.n_kept > 0 && ix.kept_in[0] == 1 && ix.kept_sizes[0] > 1)
    mode = Mode::Lanes;

  const AccTypes acct = acc_types(op, in, device);
  const uint64_t key_lo = static_cast<uint64_t>(in) | static_cast<uint64_t>(out0) << 8 |
                          static_cast<uint64_t>(out1) << 16;
  const bool variants = one_buffer_variants(device);
  auto kernel_for = [&](Mode m, bool one_buffer) -> CachedKernel& {
    const uint64_t lo = key_lo | static_cast<uint64_t>(m) << 24 | static_cast<uint64_t>(one_buffer) << 32 |
                        static_cast<uint64_t>(lanes) << 40;
    return cached_kernel(device, {reinterpret_cast<uint64_t>(&op), lo}, [&] {
      return GeneratedKernel{std::string("reduce_") + op.name,
                             generate(op, in, out0, out1, nout, m, m == Mode::Lanes ? kWideLanes : lanes, variants, acct),
                             std::string(mode_kernel(m)) + (one_buffer ? "_1" : "")};
    });
  };
  // CPU devices: results along a contiguous kept dim at least kWideLanes wide,
  // whose partial row stays in cache, over more than a few reduced rows: row
  // by row (sum over dim 0 of 4096 x 4096 float32: 0.22 -> 0.9 of the best
  // copy kernel, bench/HISTORY.md).
  const size_t acc = acct.bytes;
  if (mode == Mode::Lanes && ix.kept_sizes[0] >= kWideLanes && red_numel >= 16 &&
      ix.kept_sizes[0] * static_cast<int64_t>(acc) <= 64 * 1024)
    mode = Mode::Rows;
  const at::TensorBase& input = iter.tensor_base(nout);
  const at::TensorBase& o0 = iter.tensor_base(0);
  const at::TensorBase& o1 = nout == 2 ? iter.tensor_base(1) : iter.tensor_base(0);

  ix.out_numel = out_numel;
  ix.red_numel = red_numel;
  // Mode m's kernel over (input, the outputs, partial), its head and buffers set.
  auto start = [&](Mode m, const at::TensorBase* in_t, const at::TensorBase* partial) {
    RedIndexer head = ix;
    const RedBuffers b = resolve_buffers(head, device, in_t, o0, o1, partial);
    Launch launch(device, kernel_for(m, b.one));
    push_head(launch, head, b);
    if (b.one) count_one_buffer_launch();
    return launch;
  };
  if (mode == Mode::Rows) {
    const int64_t n0 = ix.kept_sizes[0], blocks = out_numel / n0;
    const int64_t units = std::max<int64_t>(1, device_info(device).compute_units);
    // Rows in G chunks: at least 4 items per compute unit, at least 16 rows per chunk.
    ix.G = std::clamp<int64_t>((4 * units + blocks - 1) / blocks, 1, std::max<int64_t>(1, red_numel / 16));
    ix.chunk = (red_numel + ix.G - 1) / ix.G;
    const at::Tensor partial = at::empty({blocks * ix.G * rows_item_bytes(n0, acct)}, input.options().dtype(at::kByte));
    Launch rows = start(Mode::Rows, &input, &partial);
    push_params(rows, op, params, in);
    run_spread(rows, blocks * ix.G);
    Launch combine = start(Mode::RowPartials, nullptr, &partial);
    push_params(combine, op, params, in);
    combine.run_items(static_cast<size_t>(out_numel));
    return;
  }
  if (mode == Mode::Items || mode == Mode::Lanes) {
    Launch launch = start(mode, &input, nullptr);
    push_params(launch, op, params, in);
    if (mode == Mode::Items) {
      launch.run_items(static_cast<size_t>(out_numel));
    } else {
      const int64_t blocks0 = (ix.kept_sizes[0] + kWideLanes - 1) / kWideLanes;
      run_spread(launch, blocks0 * (out_numel / ix.kept_sizes[0]));
    }
    return;
  }
  // Few results over long reductions: split each into G chunks, then combine.
  // CPU devices run a group's items one after another, so there an item folds
  // a whole chunk in order (LANES at a time, Mode::Chunks) and G gives each
  // compute unit a few chunks (16M float32 sum: 0.58 -> 0.8-0.96 of the best
  // copy kernel, bench/HISTORY.md); GPUs stride 256 items over 64 x 256-element chunks.
  const bool cpu = lanes > 1;
  size_t local = 1;  // GPUs: the group size of reduce_groups, which sets G
  if (!cpu) local = [&] {
    size_t l = 1;
    while (l * 2 <= std::min<size_t>(256, kernel_for(Mode::Groups, false).work_group_size)) l *= 2;
    return l;
  }();
  ix.G = out_numel >= 64 ? 1
         : cpu ? std::clamp<int64_t>(red_numel / 4096, 1, 8 * std::max<int64_t>(1, device_info(device).compute_units))
               : std::clamp<int64_t>(red_numel / static_cast<int64_t>(local * 64), 1, 1024);
  ix.chunk = (red_numel + ix.G - 1) / ix.G;
  at::Tensor partial;
  if (ix.G > 1) partial = at::empty({out_numel * ix.G * static_cast<int64_t>(acc)}, input.options().dtype(at::kByte));
  {
    Launch launch = start(cpu ? Mode::Chunks : Mode::Groups, &input, &partial);
    if (!cpu) launch.local_memory(local * acc);
    push_params(launch, op, params, in);
    if (cpu) run_spread(launch, out_numel * ix.G);  // reduce_chunks: no local memory, no barriers
    else launch.run(static_cast<size_t>(out_numel * ix.G) * local, local);
  }
  if (ix.G == 1) return;
  Launch launch = start(Mode::Partials, nullptr, &partial);
  if (cpu) local = launch.pow2_work_group(256);
  launch.local_memory(local * acc);
  push_params(launch, op, params, in);
  launch.run(static_cast<size_t>(out_numel) * local, local);
}

}  // namespace torch_ocl
