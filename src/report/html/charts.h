// Charts as inline SVG, drawn here so the reports need no script library:
// strip charts (one row of dots per operator or configuration), histograms and
// the roofline plot. Labels and tooltips are escaped here.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace backendbench::report::html {

enum class Scale { linear, log };

struct ChartPoint {
  double value = 0.0;
  std::string css_class;  // "up", "down", "flag" or "" (see the page's style)
  std::string tooltip;
};

struct ChartRow {
  std::string label;
  std::vector<ChartPoint> points;
  std::optional<double> marker;  // drawn as a bar across the row (a geomean, a median)
};

struct ReferenceLine {
  double value = 0.0;
  std::string css_class;  // "ref" or "peak"
  std::string label;
};

struct StripChart {
  std::vector<ChartRow> rows;
  Scale scale = Scale::log;
  std::string axis_label;
  std::vector<ReferenceLine> lines;
  std::optional<double> min, max;  // ends the axis reaches at least (the data may widen it)
};
std::string strip_chart(const StripChart& chart);

struct Histogram {
  std::vector<double> values;
  Scale scale = Scale::log;
  std::string axis_label;
  std::vector<ReferenceLine> lines;
  size_t bins = 40;
};
std::string histogram(const Histogram& chart);

struct RooflinePoint {
  double intensity = 0.0;  // FLOP per byte
  double tflops = 0.0;     // achieved
  bool flagged = false;    // impossible: drawn in red
  std::string tooltip;
};

struct RooflineChart {
  std::vector<RooflinePoint> points;
  std::optional<double> peak_bandwidth_gbps;
  std::vector<std::pair<std::string, double>> peak_tflops;  // the compute ceilings to draw, by name
};
std::string roofline_chart(const RooflineChart& chart);

}  // namespace backendbench::report::html
