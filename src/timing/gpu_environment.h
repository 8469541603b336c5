// The GPU's identity and clocks, read through NVML so that timings can be
// keyed by GPU and driver and flagged when the clock was throttled.
// NVML is loaded at run time (dlopen), so this builds and runs without it:
// on a CPU-only machine every query answers nullopt or empty.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace backendbench::timing {

// Names of the clock event ("throttle") reasons set in an NVML reason bit mask,
// lowest bit first, as nvidia-smi -q spells them ("SW Power Cap", "HW Slowdown", ...).
// Unknown bits are named "Unknown (0x...)".
std::vector<std::string> throttle_reason_names(unsigned long long bits);

// Whether a reason in `bits` holds the SM clock below what was asked: power cap,
// thermal slowdown, HW slowdown or power brake. Idle, application clock and
// display clock settings and sync boost are the asked-for state, not throttling.
bool slows_clock(unsigned long long bits);

// The NVML device that CUDA device `cuda_index` is, given CUDA_VISIBLE_DEVICES
// (`visible_devices`, null when unset): an NVML index ("3") or a GPU UUID
// ("GPU-..."); nullopt when the variable hides that device or names it in a form
// NVML cannot look up (MIG instances). Assumes CUDA and NVML order devices alike,
// true on machines with one GPU model (CUDA_DEVICE_ORDER=PCI_BUS_ID makes it always true).
std::optional<std::string> nvml_device_for(int cuda_index, const char* visible_devices);

class GpuMonitor {
 public:
  // Opens NVML for CUDA device `cuda_device_index`. Never throws: when NVML is
  // missing or fails, available() is false.
  explicit GpuMonitor(int cuda_device_index);
  ~GpuMonitor();
  GpuMonitor(const GpuMonitor&) = delete;
  GpuMonitor& operator=(const GpuMonitor&) = delete;

  // The monitor of a CUDA device, opened once for the process (opening NVML
  // takes milliseconds); null when NVML is unavailable. Thread-safe.
  static const GpuMonitor* shared(int cuda_device_index);

  bool available() const;
  std::string name() const;            // "NVIDIA H200"; empty when unavailable
  std::string driver_version() const;  // "580.159.04"; empty when unavailable
  std::optional<unsigned> sm_clock_mhz() const;
  std::optional<unsigned> max_sm_clock_mhz() const;
  // The memory's highest clock and bus width: its peak bandwidth (roofline/device_peaks.h).
  std::optional<unsigned> max_memory_clock_mhz() const;
  std::optional<unsigned> memory_bus_width_bits() const;
  // slows_clock() of the reasons active now.
  std::optional<bool> throttled() const;
  // throttle_reason_names() of the reasons active now.
  std::vector<std::string> throttle_reasons() const;

 private:
  struct Nvml;  // the loaded library, its functions and the device handle
  std::optional<unsigned long long> reason_bits() const;

  std::unique_ptr<Nvml> nvml_;  // null when unavailable
};

}  // namespace backendbench::timing
