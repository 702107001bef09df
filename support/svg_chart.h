// A line chart as a standalone SVG document, written by hand (no plotting dependency): the
// best-so-far curves of tuning runs.
#pragma once

#include <string>
#include <vector>

namespace tf {

struct ChartSeries {
  std::string label;
  std::vector<double> y;  // y[i] at x = i + 1
};

std::string line_chart_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                           const std::vector<ChartSeries>& series);

}  // namespace tf
