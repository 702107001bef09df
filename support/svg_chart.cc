#include "support/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "support/xml.h"

namespace tf {
namespace {

// A "nice" tick step (1, 2 or 5 times a power of ten) giving about `ticks` intervals.
double nice_step(double range, int ticks) {
  const double raw = range / std::max(1, ticks);
  const double mag = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-12))));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= m * mag) return m * mag;
  }
  return 10 * mag;
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::string line_chart_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                           const std::vector<ChartSeries>& series) {
  const double width = 760, height = 440, left = 70, right = 180, top = 40, bottom = 50;
  const double pw = width - left - right, ph = height - top - bottom;
  size_t max_x = 1;
  double max_y = 1e-9;
  for (const auto& s : series) {
    max_x = std::max(max_x, s.y.size());
    for (double v : s.y) max_y = std::max(max_y, v);
  }
  const double y_step = nice_step(max_y, 5), y_top = std::ceil(max_y / y_step) * y_step;
  const double x_step = nice_step(static_cast<double>(max_x), 8);
  auto px = [&](double x) { return left + (x - 1) / std::max(1.0, static_cast<double>(max_x) - 1) * pw; };
  auto py = [&](double y) { return top + ph - y / y_top * ph; };
  static const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                  "#9467bd", "#8c564b", "#e377c2", "#17becf"};

  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  o << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  o << "<text x=\"" << left << "\" y=\"24\" font-size=\"15\">" << xml_escape(title) << "</text>\n";
  for (double y = 0; y <= y_top + 1e-9; y += y_step) {
    o << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << py(y) << "\" y2=\"" << py(y)
      << "\" stroke=\"#ddd\"/>\n";
    o << "<text x=\"" << left - 6 << "\" y=\"" << py(y) + 4 << "\" text-anchor=\"end\">" << fmt(y) << "</text>\n";
  }
  for (double x = x_step; x <= static_cast<double>(max_x) + 1e-9; x += x_step) {
    o << "<text x=\"" << px(x) << "\" y=\"" << top + ph + 18 << "\" text-anchor=\"middle\">" << fmt(x) << "</text>\n";
  }
  o << "<line x1=\"" << left << "\" x2=\"" << left << "\" y1=\"" << top << "\" y2=\"" << top + ph
    << "\" stroke=\"black\"/>\n";
  o << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << top + ph << "\" y2=\"" << top + ph
    << "\" stroke=\"black\"/>\n";
  o << "<text x=\"" << left + pw / 2 << "\" y=\"" << height - 12 << "\" text-anchor=\"middle\">" << xml_escape(x_label)
    << "</text>\n";
  o << "<text transform=\"translate(18," << top + ph / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
    << xml_escape(y_label) << "</text>\n";
  for (size_t i = 0; i < series.size(); ++i) {
    const char* color = kColors[i % 8];
    o << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"2\" points=\"";
    for (size_t j = 0; j < series[i].y.size(); ++j)
      o << px(static_cast<double>(j + 1)) << "," << py(series[i].y[j]) << " ";
    o << "\"/>\n";
    const double ly = top + 16 + static_cast<double>(i) * 18;
    o << "<line x1=\"" << left + pw + 12 << "\" x2=\"" << left + pw + 32 << "\" y1=\"" << ly - 4 << "\" y2=\"" << ly - 4
      << "\" stroke=\"" << color << "\" stroke-width=\"2\"/>\n";
    o << "<text x=\"" << left + pw + 38 << "\" y=\"" << ly << "\">" << xml_escape(series[i].label) << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace tf
