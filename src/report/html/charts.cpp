#include "report/html/charts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/html/html.h"

namespace backendbench::report::html {
namespace {

constexpr double kWidth = 1100.0;

std::string px(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// A value axis mapped onto [from, to] pixels.
class Axis {
 public:
  Axis(Scale scale, double lo, double hi, double from, double to) : scale_(scale), from_(from), to_(to) {
    if (scale_ == Scale::log) {
      lo = std::max(lo, 1e-12);
      hi = std::max(hi, lo * 1.0001);
      // Whole 1-2-5 steps around the data.
      lo_ = std::log10(lo);
      hi_ = std::log10(hi);
      const double pad = std::max(0.05, (hi_ - lo_) * 0.04);
      lo_ -= pad;
      hi_ += pad;
    } else {
      if (hi <= lo) hi = lo + 1.0;
      const double pad = (hi - lo) * 0.04;
      lo_ = lo - pad;
      hi_ = hi + pad;
    }
  }

  double operator()(double v) const {
    const double t = ((scale_ == Scale::log ? std::log10(std::max(v, 1e-300)) : v) - lo_) / (hi_ - lo_);
    return from_ + std::clamp(t, -0.02, 1.02) * (to_ - from_);
  }

  // The values at the ends of the axis.
  double low() const { return scale_ == Scale::log ? std::pow(10.0, lo_) : lo_; }
  double high() const { return scale_ == Scale::log ? std::pow(10.0, hi_) : hi_; }

  std::vector<double> ticks() const {
    if (scale_ == Scale::log) {
      // The coarsest of these mantissa sets that puts at least 4 ticks on the axis.
      const std::vector<std::vector<double>> sets = {{1}, {1, 2, 5}, {1, 2, 3, 5, 7}, {1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9}};
      std::vector<double> out;
      for (const auto& mantissas : sets) {
        out.clear();
        for (int e = static_cast<int>(std::floor(lo_)); e <= static_cast<int>(std::ceil(hi_)); ++e) {
          for (const double m : mantissas) {
            const double l = std::log10(m) + e;
            if (l >= lo_ && l <= hi_) out.push_back(m * std::pow(10.0, e));
          }
        }
        if (out.size() >= 4) break;
      }
      // A range narrower than that: evenly stepped values, nearly even on the axis too.
      return out.size() >= 4 ? out : linear_ticks(low(), high());
    }
    return linear_ticks(lo_, hi_);
  }

  double from() const { return from_; }
  double to() const { return to_; }

 private:
  // Values at a 1-2-5 step between lo and hi, about eight of them.
  static std::vector<double> linear_ticks(double lo, double hi) {
    std::vector<double> out;
    const double raw = (hi - lo) / 8.0;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = magnitude;
    for (const double m : {1.0, 2.0, 5.0, 10.0}) {
      if (m * magnitude >= raw) {
        step = m * magnitude;
        break;
      }
    }
    for (double v = std::ceil(lo / step) * step; v <= hi; v += step) out.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
    return out;
  }

  Scale scale_;
  double lo_ = 0, hi_ = 1, from_, to_;
};

// Values the scale can show (positive ones on a log axis).
bool drawable(double v, Scale scale) { return std::isfinite(v) && (scale == Scale::linear || v > 0.0); }

std::pair<double, double> range_of(const std::vector<double>& values, Scale scale, std::optional<double> min,
                                   std::optional<double> max) {
  double lo = min.value_or(INFINITY), hi = max.value_or(-INFINITY);
  for (double v : values) {
    if (!drawable(v, scale)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {scale == Scale::log ? 0.5 : 0.0, scale == Scale::log ? 2.0 : 1.0};
  return {lo, hi};
}

std::string vertical_axis_ticks(const Axis& x, double top, double bottom, const std::string& label) {
  std::string out;
  for (double t : x.ticks()) {
    out += "<line class=\"grid\" x1=\"" + px(x(t)) + "\" x2=\"" + px(x(t)) + "\" y1=\"" + px(top) + "\" y2=\"" +
           px(bottom) + "\"/>";
    out += "<text x=\"" + px(x(t)) + "\" y=\"" + px(bottom + 14) + "\" text-anchor=\"middle\">" + escape(number(t, 3)) +
           "</text>";
  }
  out += "<line class=\"axis\" x1=\"" + px(x.from()) + "\" x2=\"" + px(x.to()) + "\" y1=\"" + px(bottom) + "\" y2=\"" +
         px(bottom) + "\"/>";
  out += "<text class=\"muted\" x=\"" + px(kWidth / 2 + 100) + "\" y=\"" + px(bottom + 30) + "\" text-anchor=\"middle\">" +
         escape(label) + "</text>";
  return out;
}

std::string lines_of(const std::vector<ReferenceLine>& lines, const Axis& x, double top, double bottom) {
  std::string out;
  for (const auto& line : lines) {
    out += "<line class=\"" + escape(line.css_class) + "\" x1=\"" + px(x(line.value)) + "\" x2=\"" + px(x(line.value)) +
           "\" y1=\"" + px(top - 4) + "\" y2=\"" + px(bottom) + "\"/>";
    if (!line.label.empty()) {
      out += "<text class=\"muted\" x=\"" + px(x(line.value) + 3) + "\" y=\"" + px(top - 6) + "\">" + escape(line.label) +
             "</text>";
    }
  }
  return out;
}

std::string svg_open(double height) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + px(kWidth) + " " + px(height) + "\" width=\"" +
         px(kWidth) + "\" height=\"" + px(height) + "\">";
}

std::string dot(double x, double y, double r, const std::string& css_class, const std::string& tooltip) {
  std::string out = "<circle class=\"dot" + (css_class.empty() ? "" : " " + escape(css_class)) + "\" cx=\"" + px(x) +
                    "\" cy=\"" + px(y) + "\" r=\"" + px(r) + "\">";
  if (!tooltip.empty()) out += "<title>" + escape(tooltip) + "</title>";
  return out + "</circle>";
}

}  // namespace

std::string strip_chart(const StripChart& chart) {
  constexpr double kRow = 16.0, kTop = 22.0;
  size_t longest = 0;
  for (const auto& row : chart.rows) longest = std::max(longest, row.label.size());
  const double left = std::clamp(static_cast<double>(longest) * 6.4 + 12.0, 80.0, 360.0);
  const double bottom = kTop + kRow * static_cast<double>(std::max<size_t>(chart.rows.size(), 1));
  std::vector<double> values;
  for (const auto& row : chart.rows) {
    for (const auto& p : row.points) values.push_back(p.value);
    if (row.marker) values.push_back(*row.marker);
  }
  for (const auto& line : chart.lines) values.push_back(line.value);
  const auto [lo, hi] = range_of(values, chart.scale, chart.min, chart.max);
  const Axis x(chart.scale, lo, hi, left, kWidth - 20.0);

  std::string out = svg_open(bottom + 40.0);
  out += vertical_axis_ticks(x, kTop, bottom, chart.axis_label);
  for (size_t i = 0; i < chart.rows.size(); ++i) {
    const auto& row = chart.rows[i];
    const double y = kTop + kRow * (static_cast<double>(i) + 0.5);
    if (i % 2 == 1) {
      out += "<rect x=\"0\" y=\"" + px(y - kRow / 2) + "\" width=\"" + px(kWidth) + "\" height=\"" + px(kRow) +
             "\" fill=\"#f7f9fb\"/>";
    }
    out += "<text x=\"" + px(left - 8) + "\" y=\"" + px(y + 4) + "\" text-anchor=\"end\">" + escape(row.label) + "</text>";
    for (size_t j = 0; j < row.points.size(); ++j) {
      const auto& p = row.points[j];
      if (!drawable(p.value, chart.scale)) continue;
      const double jitter = (static_cast<double>((j * 7919) % 9) - 4.0) * 0.8;  // spreads equal values a little
      out += dot(x(p.value), y + jitter, 3.0, p.css_class, p.tooltip);
    }
    if (row.marker && drawable(*row.marker, chart.scale)) {
      out += "<rect class=\"mark\" x=\"" + px(x(*row.marker) - 1.5) + "\" y=\"" + px(y - 6.5) +
             "\" width=\"3\" height=\"13\"><title>" + escape(number(*row.marker, 4)) + "</title></rect>";
    }
  }
  out += lines_of(chart.lines, x, kTop, bottom);
  return out + "</svg>";
}

std::string histogram(const Histogram& chart) {
  constexpr double kTop = 22.0, kHeight = 180.0, kLeft = 60.0;
  std::vector<double> extent = chart.values;
  for (const auto& line : chart.lines) extent.push_back(line.value);
  const auto [lo, hi] = range_of(extent, chart.scale, std::nullopt, std::nullopt);
  const Axis x(chart.scale, lo, hi, kLeft, kWidth - 20.0);
  const size_t bins = std::max<size_t>(chart.bins, 1);
  std::vector<size_t> counts(bins, 0);
  const auto position = [&](double v) {
    return chart.scale == Scale::log ? std::log10(v) : v;
  };
  // Equal bins over the whole axis.
  const double first = position(x.low()), last = position(x.high());
  const double width = (last - first) / static_cast<double>(bins);
  for (double v : chart.values) {
    if (!drawable(v, chart.scale)) continue;
    const auto bin = static_cast<size_t>(std::clamp((position(v) - first) / width, 0.0, static_cast<double>(bins - 1)));
    ++counts[bin];
  }
  const size_t most = std::max<size_t>(*std::max_element(counts.begin(), counts.end()), 1);
  const auto value_at = [&](double p) { return chart.scale == Scale::log ? std::pow(10.0, p) : p; };

  std::string out = svg_open(kTop + kHeight + 40.0);
  out += vertical_axis_ticks(x, kTop, kTop + kHeight, chart.axis_label);
  for (size_t b = 0; b < bins; ++b) {
    if (counts[b] == 0) continue;
    const double x0 = x(value_at(first + width * static_cast<double>(b)));
    const double x1 = x(value_at(first + width * static_cast<double>(b + 1)));
    const double h = kHeight * static_cast<double>(counts[b]) / static_cast<double>(most);
    out += "<rect class=\"bar\" x=\"" + px(x0) + "\" y=\"" + px(kTop + kHeight - h) + "\" width=\"" +
           px(std::max(x1 - x0 - 1.0, 1.0)) + "\" height=\"" + px(h) + "\"><title>" + std::to_string(counts[b]) +
           " between " + escape(number(value_at(first + width * static_cast<double>(b)), 3)) + " and " +
           escape(number(value_at(first + width * static_cast<double>(b + 1)), 3)) + "</title></rect>";
  }
  out += "<text class=\"muted\" x=\"" + px(kLeft - 8) + "\" y=\"" + px(kTop + 8) + "\" text-anchor=\"end\">" +
         std::to_string(most) + "</text><text class=\"muted\" x=\"" + px(kLeft - 8) + "\" y=\"" + px(kTop + kHeight) +
         "\" text-anchor=\"end\">0</text>";
  out += lines_of(chart.lines, x, kTop, kTop + kHeight);
  return out + "</svg>";
}

std::string roofline_chart(const RooflineChart& chart) {
  constexpr double kTop = 20.0, kHeight = 380.0, kLeft = 70.0;
  std::vector<double> xs, ys;
  for (const auto& p : chart.points) {
    xs.push_back(p.intensity);
    ys.push_back(p.tflops);
  }
  for (const auto& [name, peak] : chart.peak_tflops) {
    ys.push_back(peak);
    if (chart.peak_bandwidth_gbps) xs.push_back(peak * 1e3 / *chart.peak_bandwidth_gbps);  // the ridge point
  }
  const auto [x_lo, x_hi] = range_of(xs, Scale::log, std::nullopt, std::nullopt);
  const auto [y_lo, y_hi] = range_of(ys, Scale::log, std::nullopt, std::nullopt);
  const Axis x(Scale::log, x_lo, x_hi, kLeft, kWidth - 140.0);
  const Axis y(Scale::log, y_lo, y_hi, kTop + kHeight, kTop);

  std::string out = svg_open(kTop + kHeight + 40.0);
  out += vertical_axis_ticks(x, kTop, kTop + kHeight, "arithmetic intensity (FLOP per byte moved)");
  for (double t : y.ticks()) {
    out += "<line class=\"grid\" x1=\"" + px(kLeft) + "\" x2=\"" + px(kWidth - 140.0) + "\" y1=\"" + px(y(t)) +
           "\" y2=\"" + px(y(t)) + "\"/><text x=\"" + px(kLeft - 6) + "\" y=\"" + px(y(t) + 4) +
           "\" text-anchor=\"end\">" + escape(number(t, 3)) + "</text>";
  }
  out += "<text class=\"muted\" x=\"14\" y=\"" + px(kTop + kHeight / 2) + "\" transform=\"rotate(-90 14 " +
         px(kTop + kHeight / 2) + ")\" text-anchor=\"middle\">achieved TFLOP/s</text>";
  // Each ceiling: the bandwidth slope up to the ridge point, then flat at the peak.
  for (const auto& [name, peak] : chart.peak_tflops) {
    std::string path = "M";
    if (chart.peak_bandwidth_gbps) {
      const double ridge = peak * 1e3 / *chart.peak_bandwidth_gbps;
      // From where the slope enters the plot (left edge or bottom), or from the ridge if it never does.
      const double from = std::min(std::max(x.low(), y.low() * 1e3 / *chart.peak_bandwidth_gbps), ridge);
      path += px(x(from)) + "," + px(y(from * *chart.peak_bandwidth_gbps / 1e3)) + " L" + px(x(ridge)) + "," +
              px(y(peak));
    } else {
      path += px(x(x.low())) + "," + px(y(peak));
    }
    path += " L" + px(x(x.high())) + "," + px(y(peak));
    out += "<path class=\"roof\" d=\"" + path + "\"/><text x=\"" + px(kWidth - 136.0) + "\" y=\"" + px(y(peak) + 4) +
           "\">" + escape(name + " " + number(peak, 3)) + "</text>";
  }
  for (const auto& p : chart.points) {
    if (!drawable(p.intensity, Scale::log) || !drawable(p.tflops, Scale::log)) continue;
    out += dot(x(p.intensity), y(p.tflops), p.flagged ? 4.0 : 3.0, p.flagged ? "flag" : "", p.tooltip);
  }
  return out + "</svg>";
}

}  // namespace backendbench::report::html
