// Datasets named by URL: downloaded once with libcurl into a local cache, then
// loaded from there like any file (load_inputs dispatches on the extension,
// which the cached name keeps).
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>

namespace backendbench::data {

// The card's dataset file on Hugging Face (the JSON: it loads without Arrow).
inline constexpr std::string_view kDefaultDatasetUrl =
    "https://huggingface.co/datasets/GPUMODE/backendbench_tests/resolve/main/"
    "backend_bench_problems.json";

struct FetchOptions {
  std::chrono::milliseconds connect_timeout{30'000};
  // The whole transfer, redirects included; generous because the dataset is tens of MB.
  std::chrono::milliseconds timeout{600'000};
};

// Where a dataset named by URL is cached: util::cache_dir("datasets").
std::filesystem::path dataset_cache_dir();

// Fetches `url` (http or https) into the cache unless it is already there and
// returns the local path: <cache>/<last path segment, stem>.<hash of URL>.<ext>,
// so different URLs with the same file name stay apart. Redirects are followed.
// Throws std::runtime_error with curl's message and the HTTP status on failure;
// the download goes to a temporary name and is renamed only when complete, so a
// failed or interrupted fetch never leaves a file that a later call would trust.
std::filesystem::path fetch_to_cache(const std::string& url, const FetchOptions& options = {});

// $BACKENDBENCH_DATASET_URL if set and not empty, else kDefaultDatasetUrl.
std::string dataset_url();

// Whether `text` names an http:// or https:// URL (scheme case-insensitive).
bool is_url(std::string_view text);

}  // namespace backendbench::data
