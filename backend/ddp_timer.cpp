// DistributedDataParallel's runtime statistics for ocl modules (its logger's
// forward / backward-compute / backward-communication times, in
// model._get_ddp_logging_data()): DDP looks up a timer for the module's device
// type and, finding none, warns "Time stats are currently only collected for
// CPU and CUDA devices". This one reads the host clock, as DDP's CPU timer does:
// with ocl_gloo's host staging the communication is synchronous anyway.
#include <torch/csrc/distributed/c10d/reducer_timer.hpp>

namespace c10d {
namespace {

class OclDdpTimer final : public Timer {
 public:
  explicit OclDdpTimer(c10::Device /*device*/) {}

  std::optional<int64_t> measureDifference(Event start, Event end) override {
    const std::optional<int64_t> t0 = getTimestamp(start), t1 = getTimestamp(end);
    // An end not recorded in this iteration (or before its start) has no duration.
    if (!t0 || !t1 || *t1 < *t0) return std::nullopt;
    return *t1 - *t0;
  }
};

}  // namespace

C10_REGISTER_TYPED_CLASS(TimerRegistry, c10::kPrivateUse1, OclDdpTimer);

}  // namespace c10d
