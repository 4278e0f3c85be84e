// The runtime: discovery, device info, streams/queues, events via the guard,
// checked OpenCL errors.
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/Event.h>
#include <gtest/gtest.h>

#include "backend/cl_check.h"
#include "backend/runtime.h"

using namespace torch_ocl;

TEST(Runtime, DiscoversADevice) {
  ASSERT_GE(num_devices(), 1) << discovery_error();
  const DeviceInfo& d = device_info(0);
  EXPECT_FALSE(d.name.empty());
  EXPECT_GT(d.global_mem_size, 0u);
  EXPECT_GT(d.max_work_group_size, 0u);
  EXPECT_NE(d.context, nullptr);
}

TEST(Runtime, BadDeviceIndexIsAClearError) {
  try {
    device_info(99);
    FAIL() << "expected an error";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("ocl:99 is not available"), std::string::npos) << e.what();
  }
}

TEST(Runtime, StreamsAreDistinctInOrderQueues) {
  auto s0 = default_stream(0);
  auto s1 = stream_from_pool(0);
  EXPECT_EQ(s0.id(), 0);
  EXPECT_NE(s1.id(), 0);
  EXPECT_NE(stream_queue(s0), stream_queue(s1));
  EXPECT_EQ(stream_queue(s0), stream_queue(default_stream(0)));  // cached
  const auto old = current_stream(0);
  set_current_stream(s1);
  EXPECT_EQ(current_stream(0), s1);
  set_current_stream(old);
}

TEST(Runtime, GuardAndEvents) {
  c10::DeviceGuard guard(c10::Device(c10::DeviceType::PrivateUse1, 0));
  EXPECT_EQ(current_device_index(), 0);
  auto impl = c10::impl::getDeviceGuardImpl(c10::DeviceType::PrivateUse1);
  EXPECT_EQ(impl->deviceCount(), num_devices());
  c10::Event ev(c10::DeviceType::PrivateUse1);
  ev.record(impl->getStream(c10::Device(c10::DeviceType::PrivateUse1, 0)));
  ev.synchronize();
  EXPECT_TRUE(ev.query());
  auto other = stream_from_pool(0);
  ev.block(other);  // the pool stream waits on the event
  impl->synchronizeStream(other);
  EXPECT_TRUE(impl->queryStream(other));
}

TEST(Runtime, CheckedCallsNameTheCallAndCode) {
  try {
    OCL_CHECK(clFinish(nullptr));
    FAIL() << "expected an error";
  } catch (const c10::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("clFinish(nullptr)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("CL_INVALID_COMMAND_QUEUE"), std::string::npos) << msg;
  }
  EXPECT_STREQ(cl_error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
}
