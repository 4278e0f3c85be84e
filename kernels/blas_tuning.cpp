// CLBlast tuning parameters as data. `python -m torch_ocl.tune` writes
// <cache dir>/tuning/<device>__<driver>.json; the package ships such files for
// known devices in torch_ocl/tuning/. The first CLBlast call on a device applies
// the cached file, else the shipped one, with clblast::OverrideParameters.
// TORCH_OCL_TUNING=0 keeps CLBlast's defaults. File layout (other keys ignored):
//   {"parameters": {"Xgemm": {"32": {"MWG": 64, ...}, "64": {...}}, "Copy": {...}}}
#include <c10/util/Logging.h>
#include <c10/util/irange.h>
#include <clblast.h>
#include <dlfcn.h>

#include <array>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "backend/program_cache.h"
#include "backend/runtime.h"
#include "kernels/blas.h"

namespace torch_ocl {
namespace {

// A JSON value: enough of JSON for the tuning files.
struct Json {
  enum Kind { Null, Number, String, Object, Array, Bool } kind = Null;
  double number = 0;
  std::string text;
  std::map<std::string, Json> object;
};

struct Parser {
  const std::string& s;
  size_t i = 0;
  void ws() { while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i; }
  bool eat(char c) {
    ws();
    if (i < s.size() && s[i] == c) return ++i, true;
    return false;
  }
  std::string string() {
    TORCH_CHECK(eat('"'), "expected a string at ", i);
    std::string out;
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\' && i + 1 < s.size()) ++i;
      out += s[i++];
    }
    TORCH_CHECK(eat('"'), "unterminated string");
    return out;
  }
  Json value() {
    ws();
    TORCH_CHECK(i < s.size(), "unexpected end");
    Json v;
    const char c = s[i];
    if (c == '{') {
      v.kind = Json::Object;
      ++i;
      if (eat('}')) return v;
      do {
        std::string key = string();
        TORCH_CHECK(eat(':'), "expected ':' at ", i);
        v.object[key] = value();
      } while (eat(','));
      TORCH_CHECK(eat('}'), "expected '}' at ", i);
    } else if (c == '[') {
      v.kind = Json::Array;
      ++i;
      if (eat(']')) return v;
      do value(); while (eat(','));
      TORCH_CHECK(eat(']'), "expected ']' at ", i);
    } else if (c == '"') {
      v.kind = Json::String;
      v.text = string();
    } else {
      const size_t start = i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '.' || s[i] == '-' ||
                              s[i] == '+'))
        ++i;
      const std::string word = s.substr(start, i - start);
      TORCH_CHECK(!word.empty(), "unexpected '", c, "' at ", i);
      if (word == "true" || word == "false") v.kind = Json::Bool;
      else if (word != "null") v.kind = Json::Number, v.number = std::stod(word);
    }
    return v;
  }
};

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+' || c == '-';
    if (keep) out += c;
    else if (out.empty() || out.back() != '_') out += '_';
  }
  while (!out.empty() && out.front() == '_') out.erase(out.begin());
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

// The folder of libtorch_ocl.so (the Python package holds it and tuning/).
std::filesystem::path library_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&blas_tuning_file_name), &info) && info.dli_fname)
    return std::filesystem::path(info.dli_fname).parent_path();
  return {};
}

clblast::Precision precision_of(const std::string& p) {
  if (p == "16") return clblast::Precision::kHalf;
  if (p == "64") return clblast::Precision::kDouble;
  return clblast::Precision::kSingle;
}

// Applies `file`; returns how many (kernel, precision) entries CLBlast took.
int apply_file(const std::filesystem::path& file, cl_device_id device) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  Parser parser{text};
  const Json root = parser.value();
  auto params = root.object.find("parameters");
  TORCH_CHECK(params != root.object.end() && params->second.kind == Json::Object, "no \"parameters\" object");
  int applied = 0;
  for (const auto& [kernel, by_precision] : params->second.object) {
    for (const auto& [precision, values] : by_precision.object) {
      std::unordered_map<std::string, size_t> p;
      for (const auto& [name, v] : values.object)
        if (v.kind == Json::Number) p[name] = static_cast<size_t>(v.number);
      const auto status = clblast::OverrideParameters(device, kernel, precision_of(precision), p);
      if (status == clblast::StatusCode::kSuccess) ++applied;
      else
        TORCH_WARN("torch_ocl: CLBlast rejected the tuned parameters of ", kernel, "/", precision, " in ",
                   file.string(), " (status ", static_cast<int>(status), "); using its defaults for them");
    }
  }
  return applied;
}

struct DeviceTuning {
  std::once_flag once;
  std::string source;  // the file applied, or ""
};

DeviceTuning& tuning_state(c10::DeviceIndex index) {
  static std::array<DeviceTuning, 64> states;
  TORCH_INTERNAL_ASSERT(index >= 0 && index < 64);
  return states[index];
}

}  // namespace

std::string blas_tuning_file_name(const std::string& device_name, const std::string& driver_version) {
  return sanitize(device_name) + "__" + sanitize(driver_version) + ".json";
}

void ensure_blas_tuning(c10::DeviceIndex index) {
  DeviceTuning& state = tuning_state(index);
  std::call_once(state.once, [&] {
    if (const char* env = std::getenv("TORCH_OCL_TUNING"); env && std::string(env) == "0") return;
    const DeviceInfo& d = device_info(index);
    const std::string name = blas_tuning_file_name(d.name, d.driver_version);
    const std::filesystem::path candidates[] = {
        std::filesystem::path(program_cache_dir()) / "tuning" / name, library_dir() / "tuning" / name};
    for (const auto& file : candidates) {
      std::error_code ec;
      if (file.empty() || !std::filesystem::is_regular_file(file, ec)) continue;
      try {
        const int n = apply_file(file, d.id);
        state.source = file.string();
        LOG(INFO) << "torch_ocl: ocl:" << static_cast<int>(index) << " (" << d.name << ") uses the CLBlast tuning "
                  << file.string() << " (" << n << " kernel/precision entries)";
      } catch (const c10::Error& e) {
        TORCH_WARN("torch_ocl: ignoring the CLBlast tuning file ", file.string(), ": ", e.what_without_backtrace());
        continue;
      }
      return;
    }
  });
}

std::string blas_tuning_source(c10::DeviceIndex index) {
  ensure_blas_tuning(index);
  return tuning_state(index).source;
}

void clear_blas_programs() { clblast::ClearCache(); }

}  // namespace torch_ocl
