// Secrets taken from the environment, and their redaction from every text we write.
#include "llm/secrets.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <set>

namespace backendbench::llm {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::string> taken;  // by variable name
  std::set<std::string> values;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

std::string take_secret(const std::string& name) {
  Registry& r = registry();
  {
    std::lock_guard lock(r.mutex);
    if (auto it = r.taken.find(name); it != r.taken.end()) return it->second;
    const char* value = std::getenv(name.c_str());
    r.taken[name] = value ? value : "";
    ::unsetenv(name.c_str());
  }
  const std::string value = r.taken[name];
  register_secret(value);
  return value;
}

void register_secret(const std::string& value) {
  if (value.size() < 4) return;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.values.insert(value);
}

std::string redact(std::string text) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const std::string& secret : r.values) {
    for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at)) {
      text.replace(at, secret.size(), "[REDACTED]");
    }
  }
  return text;
}

std::string redact_url(const std::string& url) {
  const auto scheme = url.find("://");
  const size_t host_start = scheme == std::string::npos ? 0 : scheme + 3;
  const auto at = url.find('@', host_start);
  const auto slash = url.find('/', host_start);
  if (at == std::string::npos || (slash != std::string::npos && at > slash)) return redact(url);
  return redact(url.substr(0, host_start) + "[REDACTED]" + url.substr(at));
}

}  // namespace backendbench::llm
