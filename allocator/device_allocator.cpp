#include "allocator/device_allocator.h"

#include <c10/core/Allocator.h>
#include <c10/util/Exception.h>
#include <c10/util/StringUtil.h>
#include <c10/util/flat_hash_map.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>
#include <vector>

#include "backend/cl_objects.h"
#include "backend/fault_injection.h"
#include "backend/runtime.h"
#include "backend/kernel_launch.h"

namespace torch_ocl {
namespace {

using c10::CachingDeviceAllocator::DeviceStats;
using c10::CachingDeviceAllocator::StatType;

constexpr size_t kMinBlock = 512;             // every size is a multiple
constexpr size_t kSmallSize = 1 << 20;        // <= 1 MiB: small pool
constexpr size_t kSmallSegment = 2 << 20;     // small pool segment size
constexpr size_t kLargeSegment = 20 << 20;    // segment for 1..10 MiB
constexpr size_t kMinLargeAlloc = 10 << 20;   // >= 10 MiB: own segment
constexpr size_t kRoundLarge = 2 << 20;       // large segments round to 2 MiB
constexpr int kRangeBits = 44;                // 16 TiB of addresses per device

// Bumped whenever a segment is released: a thread's cached segment lookups
// (resolve_device_ptr) from an older generation are not trusted.
std::atomic<uint64_t> segment_generation{1};

struct Segment {
  cl_mem mem = nullptr;
  uintptr_t base = 0;
  size_t size = 0;
};

struct Block {
  Segment* segment = nullptr;
  uintptr_t addr = 0;
  size_t size = 0;
  size_t requested = 0;
  bool allocated = false;
  bool small = false;
  c10::StreamId stream = 0;
  Block* prev = nullptr;
  Block* next = nullptr;
  std::vector<c10::Stream> used_on;  // recordStream
};

struct BlockOrder {
  bool operator()(const Block* a, const Block* b) const {
    if (a->stream != b->stream) return a->stream < b->stream;
    if (a->size != b->size) return a->size < b->size;
    return a->addr < b->addr;
  }
};

void update_stat(c10::CachingDeviceAllocator::StatArray& s, bool small, int64_t delta) {
  for (auto idx : {static_cast<size_t>(StatType::AGGREGATE),
                   static_cast<size_t>(small ? StatType::SMALL_POOL : StatType::LARGE_POOL)}) {
    if (delta >= 0) s[idx].increase(static_cast<size_t>(delta));
    else s[idx].decrease(static_cast<size_t>(-delta));
  }
}

template <class F>
void for_each_stat(DeviceStats& s, F&& f) {
  for (auto* arr : {&s.allocation, &s.segment, &s.active, &s.inactive_split, &s.allocated_bytes,
                    &s.reserved_bytes, &s.active_bytes, &s.inactive_split_bytes, &s.requested_bytes})
    for (auto& st : *arr) f(st);
}

struct DeviceState {
  std::mutex mutex;
  c10::DeviceIndex device = 0;
  std::set<Block*, BlockOrder> free_small, free_large;
  ska::flat_hash_map<uintptr_t, Block*> active;  // open addressing: no node allocation per tensor
  std::map<uintptr_t, std::unique_ptr<Segment>> segments;  // by base address
  std::vector<std::pair<cl_event, Block*>> pending;         // frees awaiting other streams
  uintptr_t next_base = 0;
  size_t limit = 0;
  size_t reserved = 0;
  DeviceStats stats;

  std::vector<std::unique_ptr<Block>> spare;                // blocks to reuse: a split costs no allocation
  // The last small blocks freed, kept as they are (not coalesced, in no pool):
  // a request of exactly such a block's size on its stream takes it back
  // without a pool lookup, a split and a merge (a loop's output allocated
  // while the last one is freed). Any other request, empty_cache and the
  // readers of the pools (stats, snapshot, check) put them back first.
  static constexpr size_t kRecent = 4;
  std::array<Block*, kRecent> recent{};
  size_t nrecent = 0;

  std::set<Block*, BlockOrder>& pool(bool small) { return small ? free_small : free_large; }

  Block* new_block() {
    if (spare.empty()) return new Block();
    Block* b = spare.back().release();
    spare.pop_back();
    return b;
  }
  void drop_block(Block* b) {
    *b = Block{};
    if (spare.size() < 64) spare.emplace_back(b);
    else delete b;
  }

  void put_back_recent() {
    for (size_t i = 0; i < nrecent; ++i) insert_free(recent[i]);
    nrecent = 0;
  }

  Block* take_recent(size_t size, c10::StreamId stream) {
    for (size_t i = nrecent; i-- > 0;) {
      Block* b = recent[i];
      if (b->size != size || b->stream != stream) continue;
      std::copy(recent.begin() + i + 1, recent.begin() + nrecent, recent.begin() + i);
      --nrecent;
      return b;
    }
    return nullptr;
  }

  void keep_recent(Block* b) {
    if (nrecent == kRecent) {  // the oldest goes back to its pool
      insert_free(recent[0]);
      std::copy(recent.begin() + 1, recent.end(), recent.begin());
      --nrecent;
    }
    recent[nrecent++] = b;
  }

  size_t cap() const {
    const auto& d = device_info(device);
    return limit ? limit : static_cast<size_t>(d.global_mem_size);
  }

  // Creates a segment; nullptr when the device (or the cap) says no.
  Segment* create_segment(size_t size) {
    const auto& d = device_info(device);
    if (reserved + size > cap() || size > d.max_mem_alloc_size) return nullptr;
    cl_int err = injected_fault(FaultPoint::CreateBuffer);
    cl_mem mem = err == CL_SUCCESS ? track_buffer(clCreateBuffer(d.context, CL_MEM_READ_WRITE, size, nullptr, &err))
                                   : nullptr;
    if (err != CL_SUCCESS) {
      TORCH_CHECK(cl_is_out_of_memory(err), "OpenCL call clCreateBuffer(", size,
                  " bytes) failed: ", cl_error_name(err), " (", err, ")");
      return nullptr;
    }
    auto seg = std::make_unique<Segment>();
    seg->mem = mem;
    seg->size = size;
    seg->base = next_base;
    next_base += (size + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
    reserved += size;
    Segment* raw = seg.get();
    segments.emplace(raw->base, std::move(seg));
    const bool small = size == kSmallSegment;
    update_stat(stats.segment, small, 1);
    update_stat(stats.reserved_bytes, small, static_cast<int64_t>(size));
    stats.num_device_alloc++;
    return raw;
  }

  // Releases every segment that is one free block. Returns bytes released.
  size_t release_cached() {
    put_back_recent();
    size_t released = 0;
    for (auto* pl : {&free_small, &free_large}) {
      for (auto it = pl->begin(); it != pl->end();) {
        Block* b = *it;
        if (b->prev == nullptr && b->next == nullptr) {
          Segment* seg = b->segment;
          const bool small = b->small;
          forget_kernel_args();
          clReleaseMemObject(seg->mem);
          reserved -= seg->size;
          released += seg->size;
          update_stat(stats.segment, small, -1);
          update_stat(stats.reserved_bytes, small, -static_cast<int64_t>(seg->size));
          stats.num_device_free++;
          segments.erase(seg->base);
          segment_generation.fetch_add(1, std::memory_order_acq_rel);
          it = pl->erase(it);
          drop_block(b);
        } else {
          ++it;
        }
      }
    }
    return released;
  }

  void process_pending(bool wait) {
    for (auto it = pending.begin(); it != pending.end();) {
      cl_int status = CL_COMPLETE;
      if (wait) {
        clWaitForEvents(1, &it->first);
      } else {
        clGetEventInfo(it->first, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr);
      }
      if (status == CL_COMPLETE || status < 0) {
        release_event(it->first);
        Block* b = it->second;
        it = pending.erase(it);
        // The block may wait on several events: free it after the last one.
        bool more = std::any_of(pending.begin(), pending.end(),
                                [b](const auto& p) { return p.second == b; });
        if (!more) insert_free(b);
      } else {
        ++it;
      }
    }
  }

  Block* find_free(size_t size, bool small, c10::StreamId stream) {
    Block key;
    key.stream = stream;
    key.size = size;
    key.addr = 0;
    auto& pl = pool(small);
    auto it = pl.lower_bound(&key);
    if (it == pl.end() || (*it)->stream != stream) return nullptr;
    // Do not carve small requests out of huge cached blocks (those of segments made for one
    // >= 10 MiB request); a whole free kLargeSegment is what 1..10 MiB requests are for (with
    // `>=` here every such request made a new 20 MiB segment once the last one was free again:
    // a leak into the cache and fresh pages to fault in on every call).
    if (!small && (*it)->size > kLargeSegment && size < kMinLargeAlloc) return nullptr;
    Block* b = *it;
    pl.erase(it);
    return b;
  }

  Block* malloc(size_t requested, c10::StreamId stream) {
    std::lock_guard<std::mutex> lock(mutex);
    process_pending(false);
    const size_t size = std::max(kMinBlock, (requested + kMinBlock - 1) / kMinBlock * kMinBlock);
    const bool small = size <= kSmallSize;
    if (Block* b = take_recent(size, stream)) return activate(b, requested);
    put_back_recent();
    Block* b = find_free(size, small, stream);
    if (b != nullptr && (b->prev || b->next)) {
      update_stat(stats.inactive_split, small, -1);
      update_stat(stats.inactive_split_bytes, small, -static_cast<int64_t>(b->size));
    }
    if (b == nullptr) {
      const uint64_t max_buffer = device_info(device).max_mem_alloc_size;
      if (size > max_buffer) {
        // No segment can hold it: say so at once (no cache flush, no retry).
        stats.num_ooms++;
        TORCH_CHECK_WITH(OutOfMemoryError, false, "ocl:", static_cast<int>(device), " cannot allocate ", requested,
                         " bytes in one tensor: the device's largest single buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE) is ",
                         max_buffer, " bytes (", max_buffer >> 20, " MiB). Split the tensor into smaller ones.");
      }
      size_t seg_size = small ? kSmallSegment
                              : size < kMinLargeAlloc ? kLargeSegment
                                                      : (size + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
      seg_size = std::max<size_t>(size, std::min<uint64_t>(seg_size, max_buffer));  // rounding must not pass the cap
      Segment* seg = create_segment(seg_size);
      if (seg == nullptr) {
        // Free the cache and retry once before giving up.
        stats.num_alloc_retries++;
        process_pending(true);
        release_cached();
        seg = create_segment(seg_size);
      }
      if (seg == nullptr) {
        stats.num_ooms++;
        const auto& d = device_info(device);
        TORCH_CHECK_WITH(OutOfMemoryError, false, "ocl:", static_cast<int>(device),
                         " out of memory: tried to allocate ", requested, " bytes on ", d.name,
                         "; ", reserved, " bytes reserved by torch_ocl, ",
                         stats.allocated_bytes[0].current, " allocated, limit ", cap(),
                         " bytes, largest single buffer ", d.max_mem_alloc_size, " bytes");
      }
      b = new_block();
      b->segment = seg;
      b->addr = seg->base;
      b->size = seg->size;
      b->small = small;
      b->stream = stream;
    }
    // Split off the remainder when it is worth keeping.
    const size_t rest = b->size - size;
    if ((small && rest >= kMinBlock) || (!small && rest > kSmallSize)) {
      Block* r = new_block();
      r->segment = b->segment;
      r->addr = b->addr + size;
      r->size = rest;
      r->small = small;
      r->stream = stream;
      r->prev = b;
      r->next = b->next;
      if (b->next) b->next->prev = r;
      b->next = r;
      b->size = size;
      pool(small).insert(r);
      update_stat(stats.inactive_split, small, 1);
      update_stat(stats.inactive_split_bytes, small, static_cast<int64_t>(rest));
    }
    return activate(b, requested);
  }

  Block* activate(Block* b, size_t requested) {
    b->allocated = true;
    b->requested = requested;
    active[b->addr] = b;
    update_stat(stats.allocation, b->small, 1);
    update_stat(stats.active, b->small, 1);
    update_stat(stats.allocated_bytes, b->small, static_cast<int64_t>(b->size));
    update_stat(stats.active_bytes, b->small, static_cast<int64_t>(b->size));
    update_stat(stats.requested_bytes, b->small, static_cast<int64_t>(requested));
    return b;
  }

  void free(uintptr_t addr) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = active.find(addr);
    TORCH_INTERNAL_ASSERT(it != active.end(), "torch_ocl: freeing an unknown device pointer");
    Block* b = it->second;
    active.erase(it);
    b->allocated = false;
    update_stat(stats.allocation, b->small, -1);
    update_stat(stats.active, b->small, -1);
    update_stat(stats.allocated_bytes, b->small, -static_cast<int64_t>(b->size));
    update_stat(stats.active_bytes, b->small, -static_cast<int64_t>(b->size));
    update_stat(stats.requested_bytes, b->small, -static_cast<int64_t>(b->requested));
    bool deferred = false;
    for (const auto& s : b->used_on) {
      if (s.id() == b->stream) continue;
      cl_event ev = nullptr;
      if (clEnqueueMarkerWithWaitList(stream_queue(s), 0, nullptr, &ev) == CL_SUCCESS) {
        pending.emplace_back(track_event(ev), b);
        deferred = true;
      }
    }
    b->used_on.clear();
    if (deferred) return;
    if (b->small) keep_recent(b);
    else insert_free(b);
  }

  // Coalesces `b` with free neighbours and puts it in its pool.
  void insert_free(Block* b) {
    for (Block* n : {b->prev, b->next}) {
      if (n == nullptr || n->allocated || pool(n->small).count(n) == 0) continue;
      pool(n->small).erase(n);
      update_stat(stats.inactive_split, n->small, -1);
      update_stat(stats.inactive_split_bytes, n->small, -static_cast<int64_t>(n->size));
      if (n == b->prev) {
        b->addr = n->addr;
        b->prev = n->prev;
        if (b->prev) b->prev->next = b;
      } else {
        b->next = n->next;
        if (b->next) b->next->prev = b;
      }
      b->size += n->size;
      drop_block(n);
    }
    if (b->prev || b->next) {
      update_stat(stats.inactive_split, b->small, 1);
      update_stat(stats.inactive_split_bytes, b->small, static_cast<int64_t>(b->size));
    }
    pool(b->small).insert(b);
  }

  // allocator_check(): the invariants, walked under the lock.
  std::vector<std::string> check(bool after_empty_cache) {
    std::lock_guard<std::mutex> lock(mutex);
    put_back_recent();
    std::vector<std::string> bad;
    auto say = [&](const auto&... parts) { bad.push_back(c10::str(parts...)); };
    auto at = [](uintptr_t a) { return reinterpret_cast<const void*>(a); };
    enum Where { kActive, kCached, kPending };
    std::unordered_map<const Block*, Where> where;
    std::map<uintptr_t, std::vector<const Block*>> by_segment;
    auto add = [&](const Block* b, Where w) {
      if (!where.emplace(b, w).second) {
        say("block ", at(b->addr), " is listed twice (active/cached/pending)");
        return;
      }
      auto it = b->segment ? segments.find(b->segment->base) : segments.end();
      if (it == segments.end() || it->second.get() != b->segment)
        say("block ", at(b->addr), " belongs to no live segment");
      else
        by_segment[it->first].push_back(b);
    };
    for (const auto& [addr, b] : active) {
      if (addr != b->addr) say("active map key ", at(addr), " holds block ", at(b->addr));
      if (!b->allocated) say("active block ", at(b->addr), " is not marked allocated");
      add(b, kActive);
    }
    for (bool small : {true, false})
      for (const Block* b : pool(small)) {
        if (b->allocated) say("cached block ", at(b->addr), " is marked allocated");
        if (b->small != small) say("block ", at(b->addr), " is cached in the wrong pool");
        add(b, kCached);
      }
    for (const auto& [ev, b] : pending) {
      if (auto it = where.find(b); it != where.end() && it->second == kPending) continue;  // waits on several
      if (b->allocated) say("pending block ", at(b->addr), " is marked allocated");
      add(b, kPending);
    }
    if (after_empty_cache && !pending.empty())
      say(pending.size(), " freed blocks still wait on events after empty_cache");

    // Index 0: all, 1: small pool, 2: large pool (c10's StatType order).
    std::array<int64_t, 3> allocated{}, nactive{}, requested_sum{}, nsplit{}, split_bytes{}, nseg{}, seg_bytes{};
    auto count = [](std::array<int64_t, 3>& a, bool small, int64_t v) {
      a[0] += v;
      a[small ? 1 : 2] += v;
    };
    for (const auto& [base, seg] : segments) {
      const bool small_seg = seg->size == kSmallSegment;
      count(nseg, small_seg, 1);
      count(seg_bytes, small_seg, static_cast<int64_t>(seg->size));
      if (seg->base != base) say("segment map key ", at(base), " holds segment ", at(seg->base));
      auto it = by_segment.find(base);
      if (it == by_segment.end()) {
        say("segment ", at(base), " (", seg->size, " bytes) has no blocks: its memory is lost");
        continue;
      }
      auto& v = it->second;
      std::sort(v.begin(), v.end(), [](const Block* a, const Block* b) { return a->addr < b->addr; });
      uintptr_t pos = base;
      bool live = false;
      for (size_t i = 0; i < v.size(); ++i) {
        const Block* b = v[i];
        if (b->addr < pos) say("block ", at(b->addr), " overlaps the block before it (which ends at ", at(pos), ")");
        if (b->addr > pos) say("gap of ", b->addr - pos, " bytes before block ", at(b->addr));
        if (b->prev != (i ? v[i - 1] : nullptr)) say("block ", at(b->addr), ": prev link disagrees with the addresses");
        if (b->next != (i + 1 < v.size() ? v[i + 1] : nullptr))
          say("block ", at(b->addr), ": next link disagrees with the addresses");
        if (b->size == 0 || b->size % kMinBlock != 0) say("block ", at(b->addr), " has size ", b->size);
        if (b->stream != v[0]->stream) say("segment ", at(base), " holds blocks of two streams");
        if (b->small != small_seg) say("block ", at(b->addr), " is in the wrong pool for its segment");
        const Where w = where[b];
        if (w == kCached && i > 0 && where[v[i - 1]] == kCached)
          say("adjacent cached blocks ", at(v[i - 1]->addr), " and ", at(b->addr), " were not coalesced");
        if (w == kActive) {
          count(allocated, b->small, static_cast<int64_t>(b->size));
          count(nactive, b->small, 1);
          count(requested_sum, b->small, static_cast<int64_t>(b->requested));
          if (b->requested > b->size) say("block ", at(b->addr), " is smaller than its request");
        }
        if (w == kCached && (b->prev || b->next)) {
          count(nsplit, b->small, 1);
          count(split_bytes, b->small, static_cast<int64_t>(b->size));
        }
        live = live || w != kCached;
        pos = std::max(pos, b->addr + b->size);
      }
      if (pos != base + seg->size)
        say("blocks of segment ", at(base), " end at ", at(pos), ", the segment at ", at(base + seg->size));
      if (after_empty_cache && !live) say("segment ", at(base), " holds no live block after empty_cache");
    }
    const char* pools[] = {"all", "small_pool", "large_pool"};
    auto expect = [&](const char* name, const c10::CachingDeviceAllocator::StatArray& st,
                      const std::array<int64_t, 3>& walked) {
      for (size_t p = 0; p < 3; ++p)
        if (st[p].current != walked[p])
          say("stat ", name, ".", pools[p], ".current is ", st[p].current, " but the blocks sum to ", walked[p]);
    };
    expect("allocated_bytes", stats.allocated_bytes, allocated);
    expect("active_bytes", stats.active_bytes, allocated);
    expect("allocation", stats.allocation, nactive);
    expect("active", stats.active, nactive);
    expect("requested_bytes", stats.requested_bytes, requested_sum);
    expect("inactive_split", stats.inactive_split, nsplit);
    expect("inactive_split_bytes", stats.inactive_split_bytes, split_bytes);
    expect("segment", stats.segment, nseg);
    expect("reserved_bytes", stats.reserved_bytes, seg_bytes);
    if (static_cast<int64_t>(reserved) != seg_bytes[0])
      say("reserved is ", reserved, " but the segments sum to ", seg_bytes[0]);
    if (allocated[0] > seg_bytes[0]) say("allocated ", allocated[0], " exceeds reserved ", seg_bytes[0]);
    return bad;
  }
};

struct AllocatorState {
  std::vector<std::unique_ptr<DeviceState>> devices;
  AllocatorState() {
    const auto n = num_devices();
    for (c10::DeviceIndex i = 0; i < n; ++i) {
      auto s = std::make_unique<DeviceState>();
      s->device = i;
      s->next_base = static_cast<uintptr_t>(i + 1) << kRangeBits;
      devices.push_back(std::move(s));
    }
  }
};

AllocatorState& state() {
  static auto* s = new AllocatorState();  // leaked: blocks may be freed at exit
  return *s;
}

DeviceState& device_state(c10::DeviceIndex device) {
  check_device_index(device);
  return *state().devices.at(device);
}

void delete_device_ptr(void* ptr) {
  if (ptr == nullptr) return;
  const auto device = device_of_ptr(ptr);
  device_state(device).free(reinterpret_cast<uintptr_t>(ptr));
}

class OclDeviceAllocator final : public c10::DeviceAllocator {
 public:
  c10::DataPtr allocate(size_t n) override {
    const auto device = current_device_index();
    const c10::Device dev(c10::DeviceType::PrivateUse1, device);
    if (n == 0) return c10::DataPtr(nullptr, nullptr, &delete_device_ptr, dev);
    check_device_index(device);
    Block* b = device_state(device).malloc(n, current_stream(device).id());
    void* p = reinterpret_cast<void*>(b->addr);
    return c10::DataPtr(p, p, &delete_device_ptr, dev);
  }
  c10::DeleterFnPtr raw_deleter() const override { return &delete_device_ptr; }
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    if (count == 0) return;
    const DeviceBuffer d = resolve_device_ptr(dest), s = resolve_device_ptr(src);
    OCL_CHECK_AT(EnqueueCopyBuffer, clEnqueueCopyBuffer(current_queue(device_of_ptr(dest)), s.buffer, d.buffer,
                                                        s.offset, d.offset, count, 0, nullptr, nullptr));
  }
  bool initialized() override { return true; }
  void emptyCache(c10::MempoolId_t) override {
    for (auto& s : state().devices) {
      std::lock_guard<std::mutex> lock(s->mutex);
      s->process_pending(true);
      s->release_cached();
    }
  }
  void recordStream(const c10::DataPtr& ptr, c10::Stream stream) override {
    if (ptr.get() == nullptr) return;
    auto& s = device_state(device_of_ptr(ptr.get()));
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.active.find(reinterpret_cast<uintptr_t>(ptr.get()));
    if (it != s.active.end()) it->second->used_on.push_back(stream);
  }
  DeviceStats getDeviceStats(c10::DeviceIndex device) override {
    auto& s = device_state(device);
    std::lock_guard<std::mutex> lock(s.mutex);
    s.put_back_recent();  // inactive splits counted as the pools hold them
    return s.stats;
  }
  void resetAccumulatedStats(c10::DeviceIndex device) override {
    auto& s = device_state(device);
    std::lock_guard<std::mutex> lock(s.mutex);
    for_each_stat(s.stats, [](c10::CachingAllocator::Stat& st) { st.reset_accumulated(); });
    s.stats.num_alloc_retries = 0;
    s.stats.num_ooms = 0;
    s.stats.num_device_alloc = 0;
    s.stats.num_device_free = 0;
  }
  void resetPeakStats(c10::DeviceIndex device) override {
    auto& s = device_state(device);
    std::lock_guard<std::mutex> lock(s.mutex);
    for_each_stat(s.stats, [](c10::CachingAllocator::Stat& st) { st.reset_peak(); });
  }
  std::pair<size_t, size_t> getMemoryInfo(c10::DeviceIndex device) override {
    auto& s = device_state(device);
    std::lock_guard<std::mutex> lock(s.mutex);
    const size_t total = s.cap();
    return {total > s.reserved ? total - s.reserved : 0, total};
  }
};

OclDeviceAllocator g_allocator;

}  // namespace

c10::DeviceIndex device_of_ptr(const void* ptr) {
  const auto v = reinterpret_cast<uintptr_t>(ptr) >> kRangeBits;
  if (v == 0 || v > static_cast<uintptr_t>(num_devices())) return -1;
  return static_cast<c10::DeviceIndex>(v - 1);
}

namespace {
// The last segments this thread resolved pointers in: a warm kernel launch
// resolves its operands without taking the device mutex.
struct SegmentHint {
  uintptr_t base = 0, end = 0;
  cl_mem mem = nullptr;
  uint64_t generation = 0;
};
thread_local std::array<SegmentHint, 4> segment_hints;
thread_local unsigned next_hint = 0;
}  // namespace

DeviceBuffer resolve_device_ptr(const void* ptr) {
  const auto addr = reinterpret_cast<uintptr_t>(ptr);
  const uint64_t generation = segment_generation.load(std::memory_order_acquire);
  for (const auto& h : segment_hints)
    if (h.generation == generation && addr >= h.base && addr < h.end)
      return {h.mem, addr - h.base, h.end - addr};
  const auto device = device_of_ptr(ptr);
  TORCH_CHECK(device >= 0, "torch_ocl: ", ptr, " is not an ocl device pointer");
  auto& s = device_state(device);
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.segments.upper_bound(addr);
  TORCH_CHECK(it != s.segments.begin(), "torch_ocl: ", ptr, " is not in a live ocl buffer");
  --it;
  const Segment& seg = *it->second;
  TORCH_CHECK(addr < seg.base + seg.size, "torch_ocl: ", ptr, " is not in a live ocl buffer");
  segment_hints[next_hint++ % segment_hints.size()] = {seg.base, seg.base + seg.size, seg.mem, generation};
  return {seg.mem, addr - seg.base, seg.size - (addr - seg.base)};
}

c10::DeviceAllocator* device_allocator() { return &g_allocator; }

void set_memory_limit(c10::DeviceIndex device, size_t bytes) {
  auto& s = device_state(device);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.limit = bytes;
}

size_t memory_limit(c10::DeviceIndex device) {
  auto& s = device_state(device);
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.cap();
}

AllocatorSnapshot allocator_snapshot(c10::DeviceIndex device) {
  auto& s = device_state(device);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.put_back_recent();
  AllocatorSnapshot snap;
  snap.segments = s.segments.size();
  snap.free_blocks = s.free_small.size() + s.free_large.size();
  snap.active_blocks = s.active.size();
  snap.reserved_bytes = s.reserved;
  snap.allocated_bytes = static_cast<size_t>(s.stats.allocated_bytes[0].current);
  return snap;
}

std::vector<std::string> allocator_check(c10::DeviceIndex device, bool after_empty_cache) {
  return device_state(device).check(after_empty_cache);
}

REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &g_allocator);

}  // namespace torch_ocl
