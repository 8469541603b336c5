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

std::string share(double v) {
  if (v > 0.0 && v < 0.005) return fixed(0.01, 2);
  if (v < 1.0 && v >= 0.995) return fixed(0.99, 2);
  return fixed(v, 2);
}

}  // namespace backendbench::report::detail
