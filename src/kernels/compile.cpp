#include "kernels/compile.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "util/hash.h"

#ifndef BACKENDBENCH_KERNEL_CXX
#define BACKENDBENCH_KERNEL_CXX "c++"
#endif
#ifndef BACKENDBENCH_KERNEL_INCLUDE_DIRS
#define BACKENDBENCH_KERNEL_INCLUDE_DIRS ""
#endif
#ifndef BACKENDBENCH_TORCH_LIB_DIR
#define BACKENDBENCH_TORCH_LIB_DIR ""
#endif

namespace backendbench::kernels {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, sep);) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

CompileSettings default_compile_settings() {
  CompileSettings s;
  const char* cxx = std::getenv("BACKENDBENCH_CXX");
  s.compiler = cxx && *cxx ? cxx : BACKENDBENCH_KERNEL_CXX;
  s.flags = {"-std=c++20", "-O2", "-fPIC", "-shared", "-D_GLIBCXX_USE_CXX11_ABI=1", "-w"};
  for (const auto& dir : split(BACKENDBENCH_KERNEL_INCLUDE_DIRS, ':')) s.flags.push_back("-isystem" + dir);
  const std::string lib = BACKENDBENCH_TORCH_LIB_DIR;
  if (!lib.empty()) {
    s.flags.push_back("-L" + lib);
    s.flags.push_back("-Wl,-rpath," + lib);
  }
  for (const char* l : {"-ltorch", "-ltorch_cpu", "-lc10"}) s.flags.push_back(l);
  if (const char* cache = std::getenv("BACKENDBENCH_CACHE"); cache && *cache) {
    s.cache_dir = fs::path(cache) / "kernels";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    s.cache_dir = fs::path(home) / ".cache" / "backendbench" / "kernels";
  } else {
    s.cache_dir = fs::temp_directory_path() / "backendbench" / "kernels";
  }
  return s;
}

CompileResult compile_kernel(const fs::path& source, const CompileSettings& settings) {
  CompileResult result;
  std::error_code ec;
  if (!fs::is_regular_file(source, ec)) {
    result.log = "no such file: " + source.string();
    return result;
  }
  std::string key_text = read_file(source);
  key_text += '\0' + settings.compiler;
  for (const auto& f : settings.flags) key_text += '\0' + f;
  const std::string key = hex(util::fnv1a(key_text)) + hex(util::fnv1a(key_text, 0x9e3779b97f4a7c15ULL));
  const fs::path library = settings.cache_dir / (source.stem().string() + "-" + key + ".so");
  result.library = library;
  if (fs::is_regular_file(library, ec)) {
    result.ok = result.cached = true;
    return result;
  }
  fs::create_directories(settings.cache_dir, ec);
  if (ec) {
    result.log = "cannot create the kernel cache " + settings.cache_dir.string() + ": " + ec.message();
    return result;
  }
  // Written under a name of its own, then renamed: concurrent runs never see a partial library.
  const std::string tag = "." + std::to_string(::getpid()) + ".tmp";
  const fs::path partial = fs::path(library.string() + tag);
  const fs::path log_path = fs::path(library.string() + tag + ".log");
  std::string command = shell_quote(settings.compiler);
  for (const auto& f : settings.flags) {
    if (f.rfind("-l", 0) == 0) continue;  // libraries go after the source
    command += " " + shell_quote(f);
  }
  command += " " + shell_quote(fs::absolute(source).string()) + " -o " + shell_quote(partial.string());
  for (const auto& f : settings.flags) {
    if (f.rfind("-l", 0) == 0) command += " " + shell_quote(f);
  }
  command += " >" + shell_quote(log_path.string()) + " 2>&1";
  const int status = std::system(command.c_str());
  const std::string log = read_file(log_path);
  fs::remove(log_path, ec);
  if (status != 0 || !fs::is_regular_file(partial, ec)) {
    fs::remove(partial, ec);
    result.log = log.empty() ? "the compiler failed (" + command + ")" : log;
    return result;
  }
  fs::rename(partial, library, ec);
  if (ec) {
    fs::remove(partial, ec);
    if (!fs::is_regular_file(library)) {
      result.log = "cannot store " + library.string();
      return result;
    }
  }
  result.ok = true;
  return result;
}

}  // namespace backendbench::kernels
