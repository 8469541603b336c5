#include "session/suites.h"

#include <cstdlib>
#include <filesystem>

#include "data/download.h"
#include "data/select.h"
#include "session/session.h"

namespace backendbench::session {

std::string shipped_dataset() {
  const char* env = std::getenv("BACKENDBENCH_DATA_DIR");
  const std::filesystem::path file = std::filesystem::path(env ? env : BACKENDBENCH_DATA_DIR) / "torchbench" / "dataset.json";
  if (!std::filesystem::exists(file)) {
    throw RequestError("--suite torchbench: the shipped dataset " + file.string() +
                       " is missing; pass --data PATH (a trace file, a folder of them, a dataset .json or a URL)");
  }
  return file.string();
}

namespace {

suite::Suite torchbench(const suite::SuiteSpec& spec) {
  // "remote": the published dataset, $BACKENDBENCH_DATASET_URL or the card's Hugging Face file.
  const std::string source = spec.data.empty()        ? shipped_dataset()
                             : spec.data == "remote" ? data::dataset_url()
                                                     : spec.data;
  const data::Selection selection{.op_filters = spec.op_filters,
                                  .topn_inputs = spec.topn_inputs,
                                  .overhead_dominated_only = spec.overhead_dominated_only};
  // A URL is fetched once into the cache folder; later runs read the cached file.
  const std::filesystem::path path = data::is_url(source) ? data::fetch_to_cache(source) : std::filesystem::path(source);
  return suite::torchbench_suite(path, selection);
}

}  // namespace

suite::Suite load_suite(const suite::SuiteSpec& spec, c10::Device device) {
  switch (spec.kind) {
    case suite::SuiteKind::smoke: {
      suite::Suite s = suite::smoke_suite(device);
      suite::filter_operators(s, spec.op_filters);
      return s;
    }
    case suite::SuiteKind::torchbench:
      return torchbench(spec);
    case suite::SuiteKind::opinfo:
    case suite::SuiteKind::facto:
      break;
  }
  throw RequestError("--suite " + std::string(suite::to_string(spec.kind)) +
                     " is not available yet in this build (available: smoke, torchbench)");
}

}  // namespace backendbench::session
