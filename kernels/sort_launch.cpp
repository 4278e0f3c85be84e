#include "kernels/sort_launch.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/full.h>

#include <limits>
#include <string>

#include "backend/kernel_launch.h"
#include "backend/runtime.h"
#include "kernels/dim_slices.h"

namespace torch_ocl {
namespace {

// KEY_KIND in kernels/sort.cl.
int key_kind(c10::ScalarType t) {
  switch (t) {
    case c10::kFloat: case c10::kHalf: case c10::kBFloat16: return 0;
    case c10::kDouble: return 1;
    case c10::kChar: case c10::kShort: case c10::kInt: case c10::kLong: return 2;
    default: return 3;
  }
}

// The program of the dtype's kernels (encode, write, pick, mode).
std::string typed_preamble(c10::ScalarType t) {
  return dtype_preamble(t) + "#define KEY_KIND " + std::to_string(key_kind(t)) + "\n#define RAW " +
         cl_type(bits_dtype(t)).storage + "\n";
}
// sort_encode_select: SEL_MAX in kernels/sort.cl, and the chunk one item
// scans (a reduction to kk / chunk of the input, at most 1/8).
constexpr int64_t kSelectMax = 128;
int64_t select_chunk(int64_t kk) { return kk <= 32 ? 256 : 1024; }
// The dtype-free network program.
const std::string kNetwork = "#define SORT_NETWORK 1\n";

// Their kernels by integer key (source_kernel: no preamble built when warm).
CachedKernel& network_kernel(c10::DeviceIndex device, const char* kernel) {
  return source_kernel(device, "sort", kernel, 0, [] { return kNetwork; });
}
CachedKernel& typed_kernel(c10::DeviceIndex device, const char* kernel, c10::ScalarType t) {
  return source_kernel(device, "sort", kernel, kernel_variant({1, static_cast<int>(t)}),
                       [&] { return typed_preamble(t); });
}

// Work items of the per-element kernels (grid-stride loops): every item
// copies the Indexer argument, so a grid far larger than the device can run
// at once only costs.
size_t grid(int64_t n) { return static_cast<size_t>(std::min<int64_t>(n, int64_t{1} << 18)); }

int64_t next_pow2(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

// Work-group size L of the local-memory kernels (a block is C = 2L pairs of
// 16 bytes): at most 512, and what the device's local memory holds.
size_t block_local(c10::DeviceIndex device) {
  size_t cap = 512;
  const uint64_t lmem = device_info(device).local_mem_size;
  while (cap > 16 && cap * 2 * 16 > lmem / 2) cap >>= 1;
  size_t l = cap;
  for (const char* k : {"sort_block", "sort_merge_block"}) {
    Launch probe(device, network_kernel(device, k));
    l = std::min(l, probe.pow2_work_group(cap));
  }
  return l;
}

void run_block(c10::DeviceIndex device, const char* kernel, const SortScratch& s, int64_t seg, int64_t k,
               size_t L) {
  const int64_t total = s.rows * s.P, C = 2 * static_cast<int64_t>(L);
  Launch l(device, network_kernel(device, kernel));
  l.tensor(s.keys).tensor(s.indices).value(total).value(seg);
  if (k > 0) l.value(k);
  l.local_memory(C * sizeof(uint64_t)).local_memory(C * sizeof(int64_t));
  const int64_t groups = (total + C - 1) / C;
  l.run(static_cast<size_t>(groups) * L, L);
}

// Sorts every segment of `seg` elements (a power of two) of the scratch.
void sort_network(c10::DeviceIndex device, const SortScratch& s, int64_t seg, size_t L) {
  const int64_t total = s.rows * s.P, C = 2 * static_cast<int64_t>(L);
  run_block(device, "sort_block", s, seg, 0, L);
  for (int64_t k = 2 * C; k <= seg; k <<= 1) {
    for (int64_t j = k / 2; j >= C; j >>= 1) {
      Launch g(device, network_kernel(device, "sort_merge_global"));
      g.tensor(s.keys).tensor(s.indices).value(total).value(seg).value(k).value(j);
      g.run(grid(total / 2));
    }
    run_block(device, "sort_merge_block", s, seg, k, L);
  }
}

// Rows of at least kRadixMin elements sort by LSD radix (radix_* in
// kernels/sort.cl): 4 passes for keys of types of up to 4 bytes, 8 for 8
// bytes, each a histogram per block, one scan and a stable scatter, instead
// of the bitonic network's log2(n)^2 / 2 steps.
constexpr int64_t kRadixMin = 65536;
constexpr int64_t kRadixBlock = 2048;  // pairs per work item

void radix_sort(c10::DeviceIndex device, SortScratch& s, int64_t n, c10::ScalarType dtype) {
  const int64_t rows = s.rows, nb = (n + kRadixBlock - 1) / kRadixBlock, m = rows * 256 * nb;
  const bool small = c10::elementSize(dtype) <= 4;
  const int passes = small ? 4 : 8;
  const uint64_t flip = small && key_kind(dtype) == 2 ? 0x80000000ull : 0;
  const auto opts = s.keys.options();
  at::Tensor keys2 = at::empty_like(s.keys), idx2 = at::empty_like(s.indices);
  at::Tensor hist = at::empty({m}, opts.dtype(at::kInt));
  at::Tensor k[2] = {s.keys, keys2}, x[2] = {s.indices, idx2};
  for (int p = 0; p < passes; ++p) {
    const cl_uint shift = static_cast<cl_uint>(8 * p);
    const at::Tensor &ki = k[p & 1], &xi = x[p & 1], &ko = k[(p + 1) & 1], &xo = x[(p + 1) & 1];
    Launch h(device, network_kernel(device, "radix_hist"));
    h.tensor(ki).tensor(hist).value<int64_t>(rows).value<int64_t>(n).value<int64_t>(nb)
        .value<int64_t>(kRadixBlock).value(shift).value<cl_ulong>(flip);
    h.run(static_cast<size_t>(rows * nb), 64);
    Launch sc(device, network_kernel(device, "radix_scan"));
    const size_t L = sc.pow2_work_group(256);
    sc.tensor(hist).value<int64_t>(m).local_memory(L * sizeof(cl_uint)).run(L, L);
    Launch w(device, network_kernel(device, "radix_scatter"));
    w.tensor(ki).tensor(xi).tensor(ko).tensor(xo).tensor(hist).value<int64_t>(rows).value<int64_t>(n)
        .value<int64_t>(nb).value<int64_t>(kRadixBlock).value(shift).value<cl_ulong>(flip);
    w.run(static_cast<size_t>(rows * nb), 64);
  }
  // An even number of passes: the result is back in s.keys / s.indices.
}

}  // namespace

SortScratch sort_slices(const at::Tensor& values, const at::Tensor& indices, const at::Tensor& self, int64_t dim,
                        bool descending, int64_t limit) {
  const auto device = self.device().index();
  const c10::ScalarType dtype = self.scalar_type();
  check_dtype_supported(dtype, device);
  const int64_t n = self.size(dim);
  SortScratch s;
  s.sl = slices_along({values, self, indices}, {dim});
  const Slices& sl = s.sl;
  s.rows = sl.count;
  s.P = next_pow2(n);
  const auto opts = self.options().dtype(at::kLong);
  const int64_t kk = std::min(limit, n);
  const int64_t chunk = select_chunk(kk);
  // (key, index) pairs of every row into scratch slices of s.P elements.
  const auto encode = [&] {
    s.keys = at::empty({s.rows * s.P}, opts);
    s.indices = at::empty({s.rows * s.P}, opts);
    Launch l(device, typed_kernel(device, "sort_encode", dtype));
    l.value(sl.ix).value<int64_t>(s.rows).value<int64_t>(n).value<int64_t>(s.P).value<int64_t>(self.stride(dim))
        .value<int64_t>(descending ? 1 : 0).device_pointer(sl.base[1]).tensor(s.keys).tensor(s.indices);
    l.run(grid(s.rows * s.P));
  };
  if (kk <= kSelectMax && n >= 2 * chunk) {
    // Fused encode + first selection round: kk candidates per chunk.
    const int64_t nchunks = (n + chunk - 1) / chunk;
    s.P = next_pow2(nchunks * kk);
    s.keys = at::full({s.rows * s.P}, -1, opts);  // PAD_KEY
    s.indices = at::full({s.rows * s.P}, std::numeric_limits<int64_t>::max(), opts);  // PAD_IDX
    Launch l(device, typed_kernel(device, "sort_encode_select", dtype));
    l.value(sl.ix).value<int64_t>(s.rows).value<int64_t>(n).value<int64_t>(self.stride(dim))
        .value<int64_t>(descending ? 1 : 0).value<int64_t>(chunk).value<int64_t>(nchunks).value<int64_t>(kk)
        .value<int64_t>(s.P).device_pointer(sl.base[1]).tensor(s.keys).tensor(s.indices);
    l.run(grid(s.rows * nchunks));
  } else if (n >= kRadixMin && kk > 2 * static_cast<int64_t>(block_local(device)) / 4 &&
             s.rows * n < (int64_t{1} << 32)) {
    // Full sort of long rows: radix, the scratch slices unpadded (P = n).
    s.P = n;
    encode();
    radix_sort(device, s, n, dtype);
    return s;
  } else {
    encode();
  }
  const size_t L = block_local(device);
  const int64_t C = 2 * static_cast<int64_t>(L);
  // Selection rounds: sort blocks of C, keep the first `limit` of each.
  while (s.P > C && kk <= C / 4) {
    sort_network(device, s, C, L);
    SortScratch t;
    t.sl = s.sl;
    t.rows = s.rows;
    t.P = next_pow2((s.P / C) * kk);
    t.keys = at::empty({t.rows * t.P}, opts);
    t.indices = at::empty({t.rows * t.P}, opts);
    Launch c(device, network_kernel(device, "sort_compact"));
    c.tensor(s.keys).tensor(s.indices).tensor(t.keys).tensor(t.indices).value<int64_t>(s.rows).value<int64_t>(s.P)
        .value<int64_t>(t.P).value<int64_t>(C).value<int64_t>(kk);
    c.run(grid(t.rows * t.P));
    s = std::move(t);
  }
  sort_network(device, s, s.P, L);
  return s;
}

void write_sorted(const at::Tensor& values, const at::Tensor& indices, const at::Tensor& self, int64_t dim,
                  const SortScratch& s, int64_t count) {
  if (count == 0 || s.rows == 0) return;
  const auto device = self.device().index();
  const Slices& sl = s.sl;
  Launch l(device, typed_kernel(device, "sort_write", self.scalar_type()));
  l.value(sl.ix).value<int64_t>(s.rows).value<int64_t>(count).value<int64_t>(s.P).value<int64_t>(values.stride(dim))
      .value<int64_t>(self.stride(dim)).value<int64_t>(indices.stride(dim)).device_pointer(sl.base[0])
      .device_pointer(sl.base[1]).device_pointer(sl.base[2]).tensor(s.indices);
  l.run(grid(s.rows * count));
}

void pick_sorted(const at::Tensor& values, const at::Tensor& indices, const at::Tensor& self, int64_t dim,
                 const SortScratch& s, Pick what, int64_t pos) {
  const auto device = self.device().index();
  const Slices& sl = s.sl;
  const int64_t n = self.size(dim);
  const bool mode = what == Pick::Mode;
  Launch l(device, typed_kernel(device, mode ? "sort_mode" : "sort_pick", self.scalar_type()));
  l.value(sl.ix).value<int64_t>(s.rows).value<int64_t>(n).value<int64_t>(s.P).value<int64_t>(self.stride(dim));
  if (!mode) l.value<int64_t>(static_cast<int64_t>(what)).value<int64_t>(pos);
  l.device_pointer(sl.base[0]).device_pointer(sl.base[1]).device_pointer(sl.base[2]).tensor(s.keys)
      .tensor(s.indices);
  l.run(static_cast<size_t>(s.rows));
}

}  // namespace torch_ocl
