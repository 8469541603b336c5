// API keys come only from the environment. Each is read once and then removed
// from the environment, so that no child process (the engine's workers, the
// compilers, the generated kernels themselves) can read it; every text this
// module writes to disk or logs goes through redact(), so that a key a server
// echoes back in an error never reaches a file either. Torch-free.
#pragma once

#include <string>

namespace backendbench::llm {

// The value of environment variable `name` ("" when unset or empty), which is
// then unset and registered for redaction. Taking the same name again returns
// the value taken the first time.
std::string take_secret(const std::string& name);

// Registers `value` for redaction (values shorter than 4 characters are not:
// they would mangle ordinary text).
void register_secret(const std::string& value);

// `text` with every registered secret replaced by "[REDACTED]".
std::string redact(std::string text);

// `url` with any user:password@ part replaced by "[REDACTED]@".
std::string redact_url(const std::string& url);

}  // namespace backendbench::llm
