// The OpInfo samples of the user's torch, exported once into the cache.
//
// python/backendbench/opinfo_export.py (run as a python3 subprocess: the
// engine itself does not link libpython) writes the samples of torch's op_db
// for one device type and dtype into
//   $BACKENDBENCH_CACHE/opinfo/<torch version>-<device type>-<dtype>-v<format>/<all | ops-HASH>/
// (manifest.json and samples/*.pt; the script's docstring has the format). A
// filtered run exports only the OpInfos its --ops select (so CI does not export
// all of them), and reuses a complete export when one is there.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <c10/core/DeviceType.h>

#include "spec/value.h"

namespace backendbench::suite {

// The export folder for `device`, `dtype` and `filters`, exporting it first
// when the cache has none. Throws std::runtime_error with the exporter's
// output when it fails (no Python torch, no `expecttest`, ...).
std::filesystem::path opinfo_export(c10::DeviceType device, spec::Dtype dtype, const std::vector<std::string>& filters);

}  // namespace backendbench::suite
