#include "backend/user_kernel.h"

#include <map>
#include <mutex>

#include "backend/cl_objects.h"
#include "backend/device_checks.h"
#include "backend/device_ptr.h"
#include "backend/program_cache.h"
#include "backend/runtime.h"

namespace torch_ocl {

class UserKernelImpl {
 public:
  UserKernelImpl(std::string source, std::string name) : source_(std::move(source)), name_(std::move(name)) {}
  ~UserKernelImpl() {
    for (auto& [device, k] : kernels_) release_kernel(k);
  }

  // The kernel on `device`, built on first use (the program cache keeps the
  // binary on disk). Called with mutex_ held.
  cl_kernel kernel(c10::DeviceIndex device) {
    if (auto it = kernels_.find(device); it != kernels_.end()) return it->second;
    cl_program program = build_program(device, "user_" + name_, source_);
    cl_int err = CL_SUCCESS;
    cl_kernel k = track_kernel(clCreateKernel(program, name_.c_str(), &err));
    release_program(program);  // the kernel holds the program
    TORCH_CHECK(err == CL_SUCCESS, "torch_ocl: the OpenCL source has no __kernel named '", name_, "' (",
                cl_error_name(err), ")");
    kernels_.emplace(device, k);
    return k;
  }

  std::string source_, name_;
  std::mutex mutex_;  // kernel arguments live in the cl_kernel: held from set to enqueue
  std::map<c10::DeviceIndex, cl_kernel> kernels_;
};

namespace {

// The device-side index check of generated kernels (launch_buffer_offsets).
const int kGeneratedIndexCheck = register_device_check(
    "a torch.compile kernel", DeviceCheckKind::kIndexError, "index {index} is out of bounds for dimension with size {size}");

// Checks a launch's global size and tensor arguments (ocl tensors of one
// device, contiguous where the kernel takes plain pointers); returns their
// device (the current one without tensors).
c10::DeviceIndex launch_device(const std::string& name, const std::vector<size_t>& global,
                               const std::vector<UserKernelArg>& args, bool contiguous) {
  TORCH_CHECK(!global.empty() && global.size() <= 3, "kernel '", name,
              "': the global size needs 1 to 3 dimensions, got ", global.size());
  c10::DeviceIndex device = -1;
  for (size_t i = 0; i < args.size(); ++i) {
    if (const auto* t = std::get_if<at::Tensor>(&args[i])) {
      TORCH_CHECK(t->defined() && t->device().type() == c10::DeviceType::PrivateUse1, "kernel '", name,
                  "': argument ", i, " must be an ocl tensor, got ",
                  t->defined() ? t->device().str() : std::string("an undefined tensor"));
      TORCH_CHECK(device == -1 || device == t->device().index(), "kernel '", name,
                  "': all tensors must be on the same ocl device, got ocl:", static_cast<int>(device), " and ",
                  t->device());
      TORCH_CHECK(!contiguous || t->is_contiguous(), "kernel '", name, "': argument ", i,
                  " must be contiguous (call .contiguous())");
      device = t->device().index();
    }
  }
  return device == -1 ? current_device_index() : device;
}

}  // namespace

UserKernelHandle::UserKernelHandle(std::string source, std::string name)
    : impl_(std::make_shared<UserKernelImpl>(std::move(source), std::move(name))) {}

const std::string& UserKernelHandle::name() const { return impl_->name_; }

void UserKernelHandle::launch(const std::vector<size_t>& global, const std::vector<UserKernelArg>& args,
                              const std::vector<size_t>& local) const {
  TORCH_CHECK(local.empty() || local.size() == global.size(), "kernel '", impl_->name_,
              "': the local size needs as many dimensions as the global size");
  const c10::DeviceIndex device = launch_device(impl_->name_, global, args, /*contiguous=*/true);
  for (size_t g : global)
    if (g == 0) return;  // nothing to do, as an empty launch
  const DeviceInfo& d = device_info(device);
  const size_t align = std::max<size_t>(1, d.mem_base_addr_align_bits / 8);

  std::vector<cl_mem> sub_buffers;
  auto release = [&] {
    for (cl_mem m : sub_buffers) clReleaseMemObject(m);  // deferred by OpenCL until the kernel is done
  };
  std::lock_guard<std::mutex> lock(impl_->mutex_);
  cl_kernel k = impl_->kernel(device);
  try {
    for (cl_uint i = 0; i < args.size(); ++i) {
      cl_int err = std::visit(
          [&](const auto& v) -> cl_int {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, at::Tensor>) {
              const DeviceBuffer b = resolve_device_ptr(v.data_ptr());
              cl_mem mem = b.buffer;
              if (b.offset != 0) {
                TORCH_CHECK(b.offset % align == 0, "kernel '", impl_->name_, "': argument ", i,
                            " starts at a byte offset the device cannot address as a buffer (",
                            b.offset, " is not a multiple of ", align, "); pass a copy (.clone())");
                cl_buffer_region region{b.offset, std::max<size_t>(1, std::min(b.capacity, v.nbytes()))};
                cl_int e = CL_SUCCESS;
                mem = track_buffer(clCreateSubBuffer(b.buffer, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &e));
                OCL_CHECK(e);
                sub_buffers.push_back(mem);
              }
              return clSetKernelArg(k, i, sizeof(cl_mem), &mem);
            } else {
              return clSetKernelArg(k, i, sizeof(T), &v);
            }
          },
          args[i]);
      TORCH_CHECK(err == CL_SUCCESS, "kernel '", impl_->name_, "': clSetKernelArg(", i, ") failed: ",
                  cl_error_name(err), " (does argument ", i, " have the kernel parameter's type?)");
    }
    const cl_int err = clEnqueueNDRangeKernel(current_queue(device), k, static_cast<cl_uint>(global.size()),
                                              nullptr, global.data(), local.empty() ? nullptr : local.data(),
                                              0, nullptr, nullptr);
    TORCH_CHECK(err == CL_SUCCESS, "kernel '", impl_->name_, "': clEnqueueNDRangeKernel failed: ",
                cl_error_name(err), " (", err, ")");
  } catch (...) {
    release();
    throw;
  }
  release();
}

void UserKernelHandle::launch_buffer_offsets(const std::vector<size_t>& global,
                                             const std::vector<UserKernelArg>& args, bool checked) const {
  const c10::DeviceIndex device = launch_device(impl_->name_, global, args, /*contiguous=*/false);
  for (size_t g : global)
    if (g == 0) return;
  std::lock_guard<std::mutex> lock(impl_->mutex_);
  cl_kernel k = impl_->kernel(device);
  cl_uint index = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    cl_int err = std::visit(
        [&](const auto& v) -> cl_int {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, at::Tensor>) {
            const DeviceBuffer b = v.numel() ? resolve_device_ptr(v.data_ptr()) : DeviceBuffer{};
            const cl_ulong offset = b.offset;
            cl_int e = clSetKernelArg(k, index++, sizeof(cl_mem), &b.buffer);
            return e != CL_SUCCESS ? e : clSetKernelArg(k, index++, sizeof(cl_ulong), &offset);
          } else {
            return clSetKernelArg(k, index++, sizeof(T), &v);
          }
        },
        args[i]);
    TORCH_CHECK(err == CL_SUCCESS, "kernel '", impl_->name_, "': clSetKernelArg for argument ", i, " failed: ",
                cl_error_name(err));
  }
  if (checked) {
    cl_mem flag = arm_device_check(device);
    OCL_CHECK(clSetKernelArg(k, index++, sizeof(cl_mem), &flag));
    OCL_CHECK(clSetKernelArg(k, index++, sizeof(cl_int), &kGeneratedIndexCheck));
  }
  const cl_int err = clEnqueueNDRangeKernel(current_queue(device), k, static_cast<cl_uint>(global.size()), nullptr,
                                            global.data(), nullptr, 0, nullptr, nullptr);
  TORCH_CHECK(err == CL_SUCCESS, "kernel '", impl_->name_, "': clEnqueueNDRangeKernel failed: ",
              cl_error_name(err), " (", err, ")");
}

}  // namespace torch_ocl
