#include "timing/gpu_environment.h"

#include <dlfcn.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>

#include "util/text.h"

namespace backendbench::timing {
namespace {

// The few NVML declarations used (from nvml.h), so that no NVML headers or
// library are needed at build time.
using nvmlReturn_t = int;  // a C enum; NVML_SUCCESS is 0
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;                  // NVML_CLOCK_SM, an nvmlClockType_t
constexpr int kNvmlClockMem = 2;                 // NVML_CLOCK_MEM
constexpr unsigned kNvmlDeviceNameSize = 96;     // NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr unsigned kNvmlDriverVersionSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE

using InitFn = nvmlReturn_t();
using HandleByIndexFn = nvmlReturn_t(unsigned, nvmlDevice_t*);
using HandleByUuidFn = nvmlReturn_t(const char*, nvmlDevice_t*);
using DeviceNameFn = nvmlReturn_t(nvmlDevice_t, char*, unsigned);
using DriverVersionFn = nvmlReturn_t(char*, unsigned);
using ClockFn = nvmlReturn_t(nvmlDevice_t, int, unsigned*);
using ReasonsFn = nvmlReturn_t(nvmlDevice_t, unsigned long long*);
using BusWidthFn = nvmlReturn_t(nvmlDevice_t, unsigned*);

// nvmlClocksEventReasons / nvmlClocksThrottleReasons bits, named as nvidia-smi -q does.
struct Reason {
  unsigned long long bit;
  const char* name;
  bool slows_clock;
};
constexpr Reason kReasons[] = {
    {0x1, "GPU Idle", false},
    {0x2, "Applications Clocks Setting", false},
    {0x4, "SW Power Cap", true},
    {0x8, "HW Slowdown", true},
    {0x10, "Sync Boost", false},
    {0x20, "SW Thermal Slowdown", true},
    {0x40, "HW Thermal Slowdown", true},
    {0x80, "HW Power Brake Slowdown", true},
    {0x100, "Display Clock Setting", false},
};

// dlsym answers an object pointer; POSIX guarantees it converts to a function pointer.
template <typename Fn>
Fn* symbol(void* library, const char* name) {
  return reinterpret_cast<Fn*>(dlsym(library, name));
}

bool is_index(const std::string& token) {
  return !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

std::vector<std::string> throttle_reason_names(unsigned long long bits) {
  std::vector<std::string> names;
  for (const Reason& reason : kReasons) {
    if (bits & reason.bit) names.emplace_back(reason.name);
    bits &= ~reason.bit;
  }
  for (int i = 0; i < 64; ++i) {
    const unsigned long long bit = 1ULL << i;
    if (!(bits & bit)) continue;
    char name[32];
    std::snprintf(name, sizeof name, "Unknown (0x%llx)", bit);
    names.emplace_back(name);
  }
  return names;
}

bool slows_clock(unsigned long long bits) {
  for (const Reason& reason : kReasons) {
    if (reason.slows_clock && (bits & reason.bit)) return true;
  }
  return false;
}

std::optional<std::string> nvml_device_for(int cuda_index, const char* visible_devices) {
  if (cuda_index < 0) return std::nullopt;
  if (visible_devices == nullptr) return std::to_string(cuda_index);
  // CUDA reads the list up to its first entry that is neither an index nor a UUID.
  std::vector<std::string> devices;
  std::istringstream list(visible_devices);
  for (std::string token; std::getline(list, token, ',');) {
    token = std::string(util::trim(token));
    if (!is_index(token) && token.rfind("GPU-", 0) != 0) break;
    devices.push_back(token);
  }
  if (static_cast<size_t>(cuda_index) >= devices.size()) return std::nullopt;
  return devices[static_cast<size_t>(cuda_index)];
}

struct GpuMonitor::Nvml {
  void* library = nullptr;
  bool initialized = false;
  nvmlDevice_t device = nullptr;
  InitFn* shutdown = nullptr;
  DeviceNameFn* device_name = nullptr;
  DriverVersionFn* driver_version = nullptr;
  ClockFn* clock = nullptr;
  ClockFn* max_clock = nullptr;
  ReasonsFn* reasons = nullptr;
  BusWidthFn* bus_width = nullptr;

  explicit Nvml(void* lib) : library(lib) {}
  ~Nvml() {
    if (initialized) shutdown();
    dlclose(library);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  // Null when the library, a function needed to open the device, or the device is missing.
  static std::unique_ptr<Nvml> open(const std::string& device) {
    void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) return nullptr;
    auto nvml = std::make_unique<Nvml>(library);

    auto* init = symbol<InitFn>(library, "nvmlInit_v2");
    nvml->shutdown = symbol<InitFn>(library, "nvmlShutdown");
    if (init == nullptr || nvml->shutdown == nullptr || init() != kNvmlSuccess) return nullptr;
    nvml->initialized = true;

    nvmlReturn_t found = -1;
    if (is_index(device)) {
      unsigned index = 0;
      auto* by_index = symbol<HandleByIndexFn>(library, "nvmlDeviceGetHandleByIndex_v2");
      const auto parsed = std::from_chars(device.data(), device.data() + device.size(), index);
      if (by_index != nullptr && parsed.ec == std::errc{}) found = by_index(index, &nvml->device);
    } else if (auto* by_uuid = symbol<HandleByUuidFn>(library, "nvmlDeviceGetHandleByUUID")) {
      found = by_uuid(device.c_str(), &nvml->device);
    }
    if (found != kNvmlSuccess) return nullptr;

    // Queries whose function is missing (an old driver) answer nullopt on their own.
    nvml->device_name = symbol<DeviceNameFn>(library, "nvmlDeviceGetName");
    nvml->driver_version = symbol<DriverVersionFn>(library, "nvmlSystemGetDriverVersion");
    nvml->clock = symbol<ClockFn>(library, "nvmlDeviceGetClockInfo");
    nvml->max_clock = symbol<ClockFn>(library, "nvmlDeviceGetMaxClockInfo");
    nvml->bus_width = symbol<BusWidthFn>(library, "nvmlDeviceGetMemoryBusWidth");
    // Renamed in CUDA 12.2's NVML; older drivers export only the throttle name.
    nvml->reasons = symbol<ReasonsFn>(library, "nvmlDeviceGetCurrentClocksEventReasons");
    if (nvml->reasons == nullptr) {
      nvml->reasons = symbol<ReasonsFn>(library, "nvmlDeviceGetCurrentClocksThrottleReasons");
    }
    return nvml;
  }

  std::optional<unsigned> read_clock(ClockFn* query, int clock_type = kNvmlClockSm) const {
    unsigned mhz = 0;
    if (query == nullptr || query(device, clock_type, &mhz) != kNvmlSuccess) return std::nullopt;
    return mhz;
  }
};

GpuMonitor::GpuMonitor(int cuda_device_index) {
  const auto device = nvml_device_for(cuda_device_index, std::getenv("CUDA_VISIBLE_DEVICES"));
  if (device) nvml_ = Nvml::open(*device);
}

GpuMonitor::~GpuMonitor() = default;

const GpuMonitor* GpuMonitor::shared(int cuda_device_index) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<GpuMonitor>> monitors;  // kept until exit
  const std::lock_guard<std::mutex> lock(mutex);
  auto& monitor = monitors[cuda_device_index];
  if (!monitor) monitor = std::make_unique<GpuMonitor>(cuda_device_index);
  return monitor->available() ? monitor.get() : nullptr;
}

bool GpuMonitor::available() const { return nvml_ != nullptr; }

std::string GpuMonitor::name() const {
  char buffer[kNvmlDeviceNameSize] = {};
  if (!nvml_ || !nvml_->device_name ||
      nvml_->device_name(nvml_->device, buffer, sizeof buffer) != kNvmlSuccess) {
    return "";
  }
  return buffer;
}

std::string GpuMonitor::driver_version() const {
  char buffer[kNvmlDriverVersionSize] = {};
  if (!nvml_ || !nvml_->driver_version ||
      nvml_->driver_version(buffer, sizeof buffer) != kNvmlSuccess) {
    return "";
  }
  return buffer;
}

std::optional<unsigned> GpuMonitor::sm_clock_mhz() const {
  return nvml_ ? nvml_->read_clock(nvml_->clock) : std::nullopt;
}

std::optional<unsigned> GpuMonitor::max_sm_clock_mhz() const {
  return nvml_ ? nvml_->read_clock(nvml_->max_clock) : std::nullopt;
}

std::optional<unsigned> GpuMonitor::max_memory_clock_mhz() const {
  return nvml_ ? nvml_->read_clock(nvml_->max_clock, kNvmlClockMem) : std::nullopt;
}

std::optional<unsigned> GpuMonitor::memory_bus_width_bits() const {
  unsigned bits = 0;
  if (!nvml_ || !nvml_->bus_width || nvml_->bus_width(nvml_->device, &bits) != kNvmlSuccess || bits == 0) {
    return std::nullopt;
  }
  return bits;
}

std::optional<unsigned long long> GpuMonitor::reason_bits() const {
  unsigned long long bits = 0;
  if (!nvml_ || !nvml_->reasons || nvml_->reasons(nvml_->device, &bits) != kNvmlSuccess) {
    return std::nullopt;
  }
  return bits;
}

std::optional<bool> GpuMonitor::throttled() const {
  const auto bits = reason_bits();
  if (!bits) return std::nullopt;
  return slows_clock(*bits);
}

std::vector<std::string> GpuMonitor::throttle_reasons() const {
  const auto bits = reason_bits();
  return bits ? throttle_reason_names(*bits) : std::vector<std::string>{};
}

}  // namespace backendbench::timing
