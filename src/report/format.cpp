#include "report/format.h"

#include <cmath>
#include <cstdio>

#include "spec/serialize.h"

namespace backendbench::report::detail {

std::string python_float(double v) { return spec::serialize(spec::Value(v)); }

std::string fixed(double v, int decimals) {
  if (std::isnan(v)) return "nan";
  char buf[512];  // DBL_MAX in %.Nf takes 309 digits before the point
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace backendbench::report::detail
