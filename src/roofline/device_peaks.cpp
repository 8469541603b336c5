#include "roofline/device_peaks.h"

#include <map>
#include <mutex>

#include "timing/gpu_environment.h"

namespace backendbench::roofline {
namespace {

// Dense FLOP per clock per SM by architecture, from NVIDIA's published peaks
// divided by SM count and boost clock (0: no such unit). Vector units for
// elementwise work, tensor cores ("matrix") for products; float32_matrix is TF32.
struct ArchRates {
  int compute_capability;
  const char* source;
  double float64, float32, float16, bfloat16;
  double float64_matrix, float32_matrix, float16_matrix, bfloat16_matrix;
};
constexpr ArchRates kArchRates[] = {
    {70, "NVIDIA Tesla V100 GPU Architecture whitepaper", 64, 128, 256, 0, 0, 0, 1024, 0},
    {75, "NVIDIA Turing GPU Architecture whitepaper (T4)", 4, 128, 256, 0, 0, 0, 1024, 0},
    {80, "NVIDIA A100 Tensor Core GPU Architecture whitepaper", 64, 128, 512, 256, 128, 1024, 2048, 2048},
    {86, "NVIDIA Ampere GA102 GPU Architecture whitepaper (A40 figures)", 4, 256, 256, 256, 0, 512, 1024, 1024},
    {89, "NVIDIA Ada GPU Architecture whitepaper (L40S figures)", 4, 256, 256, 256, 0, 512, 1024, 1024},
    {90, "NVIDIA H100 Tensor Core GPU Architecture whitepaper", 128, 256, 512, 512, 256, 2048, 4096, 4096},
    {100, "NVIDIA Blackwell B200 datasheet", 128, 256, 512, 512, 128, 4096, 8192, 8192},
};

const ArchRates* rates_of(int compute_capability) {
  for (const auto& rates : kArchRates) {
    if (rates.compute_capability == compute_capability) return &rates;
  }
  return nullptr;
}

void add_note(results::DevicePeaks& peaks, const std::string& note) {
  peaks.note += (peaks.note.empty() ? "" : "; ") + note;
}

std::string cuda_name(const GpuFacts& gpu) { return gpu.name.empty() ? "a CUDA device" : gpu.name; }

results::DevicePeaks query(c10::Device device) {
  if (!device.is_cuda()) {
    return {.device = device.str(),
            .note = "no peak bandwidth or FLOP/s is known for the " + device.str() +
                    ": achieved rates are reported, shares of a peak are not"};
  }
  const int index = device.has_index() ? device.index() : 0;
  GpuFacts facts{.shape = gpu_shape(index)};
  if (const auto* gpu = timing::GpuMonitor::shared(index)) {
    facts.name = gpu->name();
    facts.max_sm_clock_mhz = gpu->max_sm_clock_mhz();
    facts.max_memory_clock_mhz = gpu->max_memory_clock_mhz();
    facts.memory_bus_width_bits = gpu->memory_bus_width_bits();
  }
  return peaks_of(facts);
}

}  // namespace

results::DevicePeaks peaks_of(const GpuFacts& gpu) {
  results::DevicePeaks peaks{.device = cuda_name(gpu)};
  if (gpu.max_memory_clock_mhz && gpu.memory_bus_width_bits) {
    // Two transfers per clock: NVML's memory clock is half the data rate (HBM and GDDR alike).
    peaks.bandwidth_gbps = *gpu.max_memory_clock_mhz * 1e6 * 2.0 * (*gpu.memory_bus_width_bits / 8.0) / 1e9;
    peaks.bandwidth_source = "NVML: max memory clock " + std::to_string(*gpu.max_memory_clock_mhz) + " MHz x " +
                             std::to_string(*gpu.memory_bus_width_bits) + "-bit bus x 2 transfers per clock";
  } else {
    add_note(peaks, "NVML did not report the memory clock and bus width: no peak bandwidth");
  }
  const ArchRates* rates = gpu.shape ? rates_of(gpu.shape->compute_capability) : nullptr;
  if (!gpu.shape || !gpu.max_sm_clock_mhz) {
    add_note(peaks, "the SM count or clock is unknown: no peak FLOP/s");
  } else if (!rates) {
    add_note(peaks, "no FLOP-per-clock table entry for sm_" + std::to_string(gpu.shape->compute_capability) +
                        ": no peak FLOP/s");
  } else {
    const double per_rate = gpu.shape->multiprocessors * (*gpu.max_sm_clock_mhz * 1e6) / 1e12;
    const std::pair<const char*, double> by_arithmetic[] = {
        {"float64", rates->float64},
        {"float32", rates->float32},
        {"float16", rates->float16},
        {"bfloat16", rates->bfloat16},
        {"float64_matrix", rates->float64_matrix},
        {"float32_matrix", rates->float32_matrix},
        {"float16_matrix", rates->float16_matrix},
        {"bfloat16_matrix", rates->bfloat16_matrix}};
    for (const auto& [arithmetic, rate] : by_arithmetic) {
      if (rate > 0) peaks.tflops[arithmetic] = rate * per_rate;
    }
    peaks.flops_source = std::to_string(gpu.shape->multiprocessors) + " SMs x " + std::to_string(*gpu.max_sm_clock_mhz) +
                         " MHz (NVML max SM clock) x dense FLOP per clock per SM of sm_" +
                         std::to_string(gpu.shape->compute_capability) + " (" + rates->source +
                         "); float32_matrix is TF32";
  }
  return peaks;
}

const results::DevicePeaks& device_peaks(c10::Device device) {
  static std::mutex mutex;
  static std::map<std::string, results::DevicePeaks> known;  // by device, kept until exit
  const std::lock_guard<std::mutex> lock(mutex);
  const auto [it, fresh] = known.try_emplace(device.str());
  if (fresh) it->second = query(device);
  return it->second;
}

}  // namespace backendbench::roofline
