// torch_ocl._C: the thin pybind glue behind the Python package. Everything
// here forwards to libtorch_ocl.so.
#include <torch/csrc/Generator.h>
#include <torch/extension.h>

#include "allocator/device_allocator.h"
#include "backend/cl_objects.h"
#include "backend/fallback.h"
#include "backend/crash_report.h"
#include "backend/fault_injection.h"
#include "backend/generator.h"
#include "backend/kernel_launch.h"
#include "backend/program_cache.h"
#include "backend/device_checks.h"
#include "backend/device_profile.h"
#include "backend/runtime.h"
#include "backend/user_kernel.h"
#include "kernels/blas.h"
#include "kernels/pointwise_engine.h"

namespace py = pybind11;
using namespace torch_ocl;

namespace {

py::dict device_properties(int index) {
  const DeviceInfo& d = device_info(static_cast<c10::DeviceIndex>(index));
  py::dict p;
  p["name"] = d.name;
  p["vendor"] = d.vendor;
  p["type"] = d.type_name();
  p["platform"] = d.platform_name;
  p["platform_version"] = d.platform_version;
  p["version"] = d.version;
  p["driver_version"] = d.driver_version;
  p["opencl_c_version"] = d.opencl_c_version;
  p["total_memory"] = d.global_mem_size;
  p["max_alloc_size"] = d.max_mem_alloc_size;
  p["local_memory"] = d.local_mem_size;
  p["multi_processor_count"] = d.compute_units;
  p["max_work_group_size"] = d.max_work_group_size;
  p["fp64"] = d.fp64;
  p["fp16"] = d.fp16;
  p["profile"] = device_profile(static_cast<c10::DeviceIndex>(index)).name();  // backend/device_profile.h
  // Where the device sits in the OpenCL enumeration (CLBlast's tools take
  // -platform P -device D).
  cl_uint np = 0, nd = 0;
  clGetPlatformIDs(0, nullptr, &np);
  std::vector<cl_platform_id> platforms(np);
  if (np) clGetPlatformIDs(np, platforms.data(), nullptr);
  for (cl_uint i = 0; i < np; ++i) {
    if (platforms[i] != d.platform) continue;
    p["platform_index"] = i;
    clGetDeviceIDs(d.platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd);
    std::vector<cl_device_id> devices(nd);
    if (nd) clGetDeviceIDs(d.platform, CL_DEVICE_TYPE_ALL, nd, devices.data(), nullptr);
    for (cl_uint j = 0; j < nd; ++j)
      if (devices[j] == d.id) p["platform_device_index"] = j;
  }
  p["blas_tuning"] = blas_tuning_source(static_cast<c10::DeviceIndex>(index));
  return p;
}

// A Python kernel argument: a tensor, or (type code, value) for a scalar.
UserKernelArg kernel_arg(const py::handle& a) {
  if (THPVariable_Check(a.ptr())) return THPVariable_Unpack(a.ptr());
  auto t = a.cast<py::tuple>();
  const auto code = t[0].cast<std::string>();
  const py::handle v = t[1];
  if (code == "i8") return v.cast<int8_t>();
  if (code == "u8") return v.cast<uint8_t>();
  if (code == "i16") return v.cast<int16_t>();
  if (code == "u16") return v.cast<uint16_t>();
  if (code == "i32") return v.cast<int32_t>();
  if (code == "u32") return v.cast<uint32_t>();
  if (code == "i64") return v.cast<int64_t>();
  if (code == "u64") return v.cast<uint64_t>();
  if (code == "f32") return v.cast<float>();
  if (code == "f64") return v.cast<double>();
  throw py::value_error("unknown kernel argument type code " + code);
}

// The flat "name.pool.metric" dict of torch.cuda.memory_stats().
py::dict memory_stats(int index) {
  using c10::CachingDeviceAllocator::StatType;
  const auto s = device_allocator()->getDeviceStats(static_cast<c10::DeviceIndex>(index));
  py::dict out;
  const char* pools[] = {"all", "small_pool", "large_pool"};
  auto add = [&](const char* name, const c10::CachingDeviceAllocator::StatArray& arr) {
    for (size_t p = 0; p < 3; ++p) {
      const std::string prefix = std::string(name) + "." + pools[p] + ".";
      out[py::str(prefix + "current")] = arr[p].current;
      out[py::str(prefix + "peak")] = arr[p].peak;
      out[py::str(prefix + "allocated")] = arr[p].allocated;
      out[py::str(prefix + "freed")] = arr[p].freed;
    }
  };
  add("allocation", s.allocation);
  add("segment", s.segment);
  add("active", s.active);
  add("inactive_split", s.inactive_split);
  add("allocated_bytes", s.allocated_bytes);
  add("reserved_bytes", s.reserved_bytes);
  add("active_bytes", s.active_bytes);
  add("inactive_split_bytes", s.inactive_split_bytes);
  add("requested_bytes", s.requested_bytes);
  out["num_alloc_retries"] = s.num_alloc_retries;
  out["num_ooms"] = s.num_ooms;
  out["num_device_alloc"] = s.num_device_alloc;
  out["num_device_free"] = s.num_device_free;
  return out;
}

}  // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "torch_ocl native glue";
  m.def("device_count", [] { return static_cast<int>(num_devices()); });
  m.def("discovery_error", [] { return discovery_error(); });
  m.def("current_device", [] { return static_cast<int>(current_device_index()); });
  m.def("set_device", [](int i) { set_current_device(static_cast<c10::DeviceIndex>(i)); });
  m.def("synchronize", [](int i) {
    {
      py::gil_scoped_release release;
      synchronize_device(static_cast<c10::DeviceIndex>(i));
    }
    raise_device_errors(static_cast<c10::DeviceIndex>(i));
  });
  m.def("device_properties", &device_properties);
  m.def("launch_batch", [](int i) { return launch_batch(static_cast<c10::DeviceIndex>(i)); });
  m.def("set_launch_batch", [](int i, int n) { set_launch_batch(static_cast<c10::DeviceIndex>(i), n); });
  m.def("_finish_held_launches", [] {
    py::gil_scoped_release release;
    finish_held_launches();
  });
  m.def("_direct_pointwise_launches", [] { return direct_pointwise_launches(); });
  m.def("_set_direct_pointwise", [](bool enabled) { set_direct_pointwise(enabled); });
  m.def("_direct_pointwise_enabled", [] { return direct_pointwise_enabled(); });
  m.def("_one_buffer_launches", [] { return one_buffer_launches(); });
  m.def("_held_launches", [](int i) { return held_launches(static_cast<c10::DeviceIndex>(i)); });
  // streams: (stream_id, device_index, device_type) triples, as torch.Stream packs them
  auto pack = [](c10::Stream s) {
    return py::make_tuple(s.id(), static_cast<int>(s.device_index()), static_cast<int>(s.device_type()));
  };
  m.def("current_stream", [pack](int i) { return pack(current_stream(static_cast<c10::DeviceIndex>(i))); });
  m.def("default_stream", [pack](int i) {
    check_device_index(static_cast<c10::DeviceIndex>(i));
    return pack(default_stream(static_cast<c10::DeviceIndex>(i)));
  });
  m.def("set_stream", [](int64_t id, int i) {
    set_current_stream(c10::Stream(c10::Stream::UNSAFE, c10::Device(c10::DeviceType::PrivateUse1,
                                                                     static_cast<c10::DeviceIndex>(i)), id));
  });
  m.def("stream_priority", [](int64_t id) {
    return stream_priority(c10::Stream(c10::Stream::UNSAFE, c10::Device(c10::DeviceType::PrivateUse1, 0), id));
  });
  m.def("has_priority_hints", [](int i) { return has_priority_hints(static_cast<c10::DeviceIndex>(i)); });
  m.def("default_generator", [](int i) {
    return py::reinterpret_steal<py::object>(
        THPGenerator_initDefaultGenerator(default_generator(static_cast<c10::DeviceIndex>(i))));
  });
  // memory
  m.def("memory_stats", &memory_stats);
  m.def("reset_peak_memory_stats", [](int i) { device_allocator()->resetPeakStats(static_cast<c10::DeviceIndex>(i)); });
  m.def("reset_accumulated_memory_stats",
        [](int i) { device_allocator()->resetAccumulatedStats(static_cast<c10::DeviceIndex>(i)); });
  m.def("empty_cache", [] { device_allocator()->emptyCache({0, 0}); });
  m.def("mem_get_info", [](int i) { return device_allocator()->getMemoryInfo(static_cast<c10::DeviceIndex>(i)); });
  m.def("set_memory_limit", [](int i, size_t bytes) { set_memory_limit(static_cast<c10::DeviceIndex>(i), bytes); });
  m.def("memory_limit", [](int i) { return memory_limit(static_cast<c10::DeviceIndex>(i)); });
  // Debug introspection (tests): broken allocator invariants (empty list: all hold), and
  // the OpenCL objects torch_ocl created and has not released.
  m.def("_allocator_check", [](int i, bool after_empty_cache) {
    return allocator_check(static_cast<c10::DeviceIndex>(i), after_empty_cache);
  }, py::arg("device") = 0, py::arg("after_empty_cache") = false);
  m.def("_live_cl_objects", [] {
    const auto live = live_cl_objects();
    py::dict d;
    for (int k = 0; k < kClObjectKinds; ++k) d[cl_object_name(static_cast<ClObject>(k))] = live[k];
    return d;
  });
  // fallback
  m.def("fallback_stats", [] { return fallback_stats(); });
  m.def("reset_fallback_stats", [] { reset_fallback_stats(); });
  m.def("get_fallback_mode", [] { return std::string(fallback_mode_name(fallback_mode())); });
  m.def("set_fallback_mode", [](const std::string& mode) { set_fallback_mode(parse_fallback_mode(mode)); });
  // user kernels (torch_ocl.Kernel)
  py::class_<UserKernelHandle>(m, "UserKernel")
      .def(py::init<std::string, std::string>())
      .def_property_readonly("name", &UserKernelHandle::name)
      .def("launch", [](const UserKernelHandle& k, const std::vector<size_t>& global, const py::list& args,
                        const std::vector<size_t>& local) {
        std::vector<UserKernelArg> converted;
        converted.reserve(args.size());
        for (const auto& a : args) converted.push_back(kernel_arg(a));
        py::gil_scoped_release release;  // a first launch may compile for seconds
        k.launch(global, converted, local);
      })
      .def("launch_buffer_offsets", [](const UserKernelHandle& k, const std::vector<size_t>& global,
                                       const py::list& args, bool checked) {
        std::vector<UserKernelArg> converted;
        converted.reserve(args.size());
        for (const auto& a : args) converted.push_back(kernel_arg(a));
        py::gil_scoped_release release;
        k.launch_buffer_offsets(global, converted, checked);
      })
      // An Inductor-generated kernel's launch (torch_ocl._inductor.GeneratedKernel.run):
      // Python ints are int64 sizes; a CPU tensor among the inputs (a 0-dim scalar such as
      // an optimizer's step count) is copied in; the first `outputs` tensors are written.
      .def("launch_generated", [](const UserKernelHandle& k, size_t size, const py::list& args, bool checked,
                                  size_t outputs) {
        std::vector<UserKernelArg> converted;
        converted.reserve(args.size());
        for (size_t i = 0; i < args.size(); ++i) {
          const py::handle a = args[i];
          if (!THPVariable_Check(a.ptr())) {
            converted.emplace_back(a.cast<int64_t>());
            continue;
          }
          const at::Tensor& t = THPVariable_Unpack(a.ptr());
          if (t.device().is_cpu()) {
            TORCH_CHECK(i >= outputs, k.name(), ": output ", i, " is a CPU tensor; an ocl kernel cannot write it");
            converted.emplace_back(t.to(c10::Device(c10::DeviceType::PrivateUse1, current_device_index()), true));
          } else {
            converted.emplace_back(t);
          }
        }
        py::gil_scoped_release release;
        k.launch_buffer_offsets({size}, converted, checked);
      });
  // program cache
  m.def("blas_tuning_file_name", &blas_tuning_file_name);
  m.def("_clear_blas_programs", &clear_blas_programs);
  m.def("program_cache_dir", [] { return program_cache_dir(); });
  m.def("_kernel_source", [](const std::string& name) { return kernel_source(name); });
  m.def("program_cache_stats", [] {
    const auto s = program_cache_stats();
    return py::dict(py::arg("memory_hits") = s.memory_hits, py::arg("disk_hits") = s.disk_hits,
                    py::arg("compiles") = s.compiles, py::arg("disk_rejects") = s.disk_rejects,
                    py::arg("disk_write_failures") = s.disk_write_failures,
                    py::arg("background_writes") = s.background_writes);
  });
  m.def("flush_program_cache_writes", &flush_program_cache_writes, py::call_guard<py::gil_scoped_release>());
  m.def("stop_program_cache_writes", &stop_program_cache_writes, py::call_guard<py::gil_scoped_release>());
  m.def("enable_background_cache_writes", &enable_background_cache_writes);
  // fatal-signal reports with native backtraces (backend/crash_report.h)
  m.def("_install_crash_reporter", [](int fd) { install_crash_reporter(fd); });
  // fault injection (test-only; backend/fault_injection.h)
  m.def("_set_fault", [](const std::string& spec) { set_fault_spec(spec); });
  m.def("_fault_counts", [] {
    const auto counts = fault_call_counts();
    py::dict d;
    for (int i = 0; i < kFaultPoints; ++i) d[fault_point_name(static_cast<FaultPoint>(i))] = counts[i];
    d["fired"] = faults_fired();
    return d;
  });
  // Builds (or loads from the disk cache) a complete OpenCL source; for tests
  // of the program cache.
  m.def("_build_program", [](const std::string& label, const std::string& source, int device) {
    release_program(build_program(static_cast<c10::DeviceIndex>(device), label, source));
  });
}
