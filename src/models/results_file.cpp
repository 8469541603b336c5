// Reading, repairing and appending results.jsonl.
#include "models/results_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "models/experiment.h"
#include "util/log.h"

namespace backendbench::models {
namespace {

std::runtime_error file_error(const std::filesystem::path& path, const std::string& what) {
  return std::runtime_error(path.string() + ": " + what + ": " + std::strerror(errno));
}

}  // namespace

ResultsFile::ResultsFile(std::filesystem::path path) : path_(std::move(path)) {
  if (path_.has_parent_path()) std::filesystem::create_directories(path_.parent_path());
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw file_error(path_, "cannot open");

  std::ifstream in(path_, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const size_t complete = text.empty() || text.back() == '\n' ? text.size() : text.rfind('\n') + 1;
  if (complete < text.size()) {
    dropped_partial_bytes_ = text.size() - complete;
    if (::ftruncate(fd_, static_cast<off_t>(complete)) != 0) throw file_error(path_, "cannot drop its partial last line");
    BB_LOG(warning) << path_.string() << ": dropped a partial last line (" << dropped_partial_bytes_
                    << " bytes, a write cut short); its experiment runs again";
  }
  size_t number = 0, start = 0;
  while (start < complete) {
    const size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (line.empty()) continue;
    nlohmann::json parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    const auto key = parsed.is_discarded() ? std::nullopt : key_of_line(parsed);
    if (!key) {
      BB_LOG(warning) << path_.string() << ":" << number << ": not a result line; ignored";
      continue;
    }
    keys_.insert(*key);
    lines_.push_back(std::move(parsed));
  }
}

ResultsFile::~ResultsFile() {
  if (fd_ >= 0) ::close(fd_);
}

void ResultsFile::append(const nlohmann::ordered_json& line) {
  const std::string text = line.dump() + "\n";
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw file_error(path_, "cannot append a result");
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd_) != 0) throw file_error(path_, "cannot sync");
  nlohmann::json parsed = nlohmann::json::parse(text);
  if (auto key = key_of_line(parsed)) keys_.insert(*key);
  lines_.push_back(std::move(parsed));
}

}  // namespace backendbench::models
