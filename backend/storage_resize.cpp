#include "backend/fault_injection.h"
#include "backend/storage_resize.h"

#include <c10/core/DeviceGuard.h>

#include <algorithm>

#include "backend/device_ptr.h"
#include "backend/runtime.h"

namespace torch_ocl {

void resize_storage_bytes(c10::StorageImpl* storage, size_t new_bytes) {
  TORCH_CHECK(storage->resizable(), "Trying to resize storage that is not resizable");
  const size_t old_bytes = storage->nbytes();
  if (new_bytes == old_bytes) return;
  const c10::Device device = storage->data_ptr().device();
  c10::DeviceGuard guard(device);
  c10::DataPtr fresh = storage->allocator()->allocate(new_bytes);
  const size_t keep = std::min(old_bytes, new_bytes);
  if (keep > 0 && storage->data() != nullptr) {
    const DeviceBuffer d = resolve_device_ptr(fresh.get()), s = resolve_device_ptr(storage->data());
    OCL_CHECK_AT(EnqueueCopyBuffer, clEnqueueCopyBuffer(current_queue(device.index()), s.buffer, d.buffer,
                                                        s.offset, d.offset, keep, 0, nullptr, nullptr));
  }
  storage->set_data_ptr_noswap(std::move(fresh));
  storage->set_nbytes(new_bytes);
}

}  // namespace torch_ocl
