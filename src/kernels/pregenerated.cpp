#include "kernels/pregenerated.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <stdexcept>

#include "kernels/directory.h"
#include "kernels/python_runtime.h"
#include "util/log.h"
#include "util/text.h"

namespace backendbench::kernels {
namespace fs = std::filesystem;

namespace {

const char* const kExtensions[] = {".cpp", ".cu", ".py"};

bool is_kernel_extension(const fs::path& file) {
  return std::ranges::find(kExtensions, file.extension().string()) != std::end(kExtensions);
}

std::optional<int> as_attempt_number(const std::string& digits) {
  if (digits.empty() || digits.size() > 6 || !std::ranges::all_of(digits, [](unsigned char c) { return std::isdigit(c); })) {
    return std::nullopt;
  }
  return std::stoi(digits);
}

// N for `<stem>_attempt_N.cpp` / `.cu` / `.py`.
std::optional<int> attempt_number(const fs::path& file, const std::string& stem) {
  const std::string prefix = stem + "_attempt_";
  const std::string name = file.stem().string();
  if (!is_kernel_extension(file) || name.rfind(prefix, 0) != 0) return std::nullopt;
  return as_attempt_number(name.substr(prefix.size()));
}

}  // namespace

std::optional<int> recorded_attempt(const fs::path& folder) {
  std::ifstream in(folder / "metadata.txt");
  for (std::string line; std::getline(in, line);) {
    const auto sep = line.find_first_of(":=");
    if (sep == std::string::npos) continue;
    const std::string_view text = line;
    std::string key(util::trim(text.substr(0, sep)));
    std::ranges::transform(key, key.begin(), [](unsigned char c) { return c == ' ' ? '_' : std::tolower(c); });
    if (key == "successful_attempt" || key == "passed_attempt" || key == "final_attempt") {
      if (auto n = as_attempt_number(std::string(util::trim(text.substr(sep + 1))))) return n;
    }
  }
  return std::nullopt;
}

std::vector<fs::path> kernel_candidates(const fs::path& folder, const std::string& stem) {
  std::error_code ec;
  std::vector<std::pair<int, fs::path>> attempts;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (!entry.is_regular_file()) continue;
    if (auto n = attempt_number(entry.path(), stem)) attempts.emplace_back(*n, entry.path());
  }
  const std::optional<int> recorded = recorded_attempt(folder);
  // The recorded attempt first, then the highest number first; .cpp before .cu within one attempt.
  std::ranges::sort(attempts, [&](const auto& a, const auto& b) {
    const bool a_recorded = a.first == recorded, b_recorded = b.first == recorded;
    if (a_recorded != b_recorded) return a_recorded;
    if (a.first != b.first) return a.first > b.first;
    return a.second < b.second;
  });
  std::vector<fs::path> candidates;
  for (auto& [n, path] : attempts) candidates.push_back(std::move(path));
  for (const char* ext : kExtensions) {
    if (fs::is_regular_file(folder / (stem + ext), ec)) candidates.push_back(folder / (stem + ext));
  }
  return candidates;
}

PregeneratedBackend::PregeneratedBackend(fs::path directory, CompileSettings settings)
    : directory_(std::move(directory)), settings_(std::move(settings)) {
  std::error_code ec;
  if (directory_.empty()) throw std::invalid_argument("--backend pregenerated needs --kernels-dir DIR");
  if (!fs::is_directory(directory_, ec)) {
    throw std::invalid_argument("--kernels-dir " + directory_.string() + " is not a folder");
  }
}

LoadedKernel PregeneratedBackend::find_kernel(const c10::OperatorHandle& op) {
  const std::vector<std::string> folders = folder_spellings(op);
  for (const std::string& folder : folders) {
    const std::vector<fs::path> candidates = kernel_candidates(directory_ / folder, folder);
    if (candidates.empty()) continue;
    std::string errors;
    bool only_wrong_signatures = true;
    LoadedKernel last;
    for (const fs::path& source : candidates) {
      last = source.extension() == ".py" ? load_python_kernel(op, source, folder) : load_kernel(op, source, settings_);
      if (last.kernel) return last;
      BB_LOG(debug) << "pregenerated backend: " << last.error;
      errors += (errors.empty() ? "" : "\n") + last.error;
      only_wrong_signatures = only_wrong_signatures && last.wrong_signature;
    }
    // A bare-name folder holds kernels for some overload of the name: one whose
    // signature is another overload's is not for this one.
    const bool bare = folder != folders.front() && !folder.ends_with("__default");
    if (bare && only_wrong_signatures) {
      BB_LOG(info) << "pregenerated backend: " << folder << "/ has no kernel with the signature of "
                   << op.schema().operator_name();
      continue;
    }
    if (candidates.size() == 1) return last;  // its own failure, with its traceback if it has one
    LoadedKernel failed;
    failed.source = last.source;
    failed.error = "none of the " + std::to_string(candidates.size()) + " kernels in " +
                   (directory_ / folder).string() + " could be used:\n" + errors;
    return failed;
  }
  return {};
}

}  // namespace backendbench::kernels
