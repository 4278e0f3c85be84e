// Resizing a device storage: a new block from the allocator and a device copy
// of the old bytes (used by resize_, set_ and storage.resize_()).
#pragma once

#include <c10/core/StorageImpl.h>

namespace torch_ocl {

void resize_storage_bytes(c10::StorageImpl* storage, size_t new_bytes);

}  // namespace torch_ocl
