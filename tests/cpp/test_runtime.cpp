#include <gtest/gtest.h>
#include "backend/runtime.h"
TEST(Runtime, HasDevice) { EXPECT_GE(torch_ocl::num_devices(), 1); }
