#include "io/simulation_plot.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

namespace schedk::io {
namespace {

using Series = std::vector<std::pair<double, double>>;  // (time in days, value), time ascending

// Keeps at most `limit` points, each the maximum of its stretch, so peaks survive.
Series Thin(const Series& s, std::size_t limit) {
  if (s.size() <= limit) return s;
  Series out;
  const double per = static_cast<double>(s.size()) / static_cast<double>(limit);
  for (std::size_t k = 0; k < limit; ++k) {
    const auto begin = static_cast<std::size_t>(static_cast<double>(k) * per);
    const auto end = std::min(s.size(), static_cast<std::size_t>(static_cast<double>(k + 1) * per));
    std::pair<double, double> best = s[begin];
    for (std::size_t i = begin; i < end; ++i) best.second = std::max(best.second, s[i].second);
    out.push_back(best);
  }
  return out;
}

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

void Panel(std::string& svg, const Series& raw, double top, const char* label, const char* color, double t_max) {
  constexpr double kLeft = 70, kWidth = 820, kHeight = 150;
  const Series s = Thin(raw, kPlotPoints);
  double v_max = 0;
  for (const auto& [t, v] : s) v_max = std::max(v_max, v);
  if (v_max <= 0) v_max = 1;
  char buffer[1024];  // the frame and its labels; a label is at most a few dozen characters
  std::snprintf(buffer, sizeof buffer,
                "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#888\"/>\n"
                "<text x=\"%.0f\" y=\"%.0f\" font-size=\"13\">%s</text>\n"
                "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" text-anchor=\"end\">%.4g</text>\n"
                "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" text-anchor=\"end\">0</text>\n",
                kLeft, top, kWidth, kHeight, kLeft, top - 6, label, kLeft - 4, top + 10, v_max, kLeft - 4,
                top + kHeight);
  svg += buffer;
  svg += "<polyline fill=\"none\" stroke=\"";
  svg += color;
  svg += "\" stroke-width=\"1\" points=\"";
  for (const auto& [t, v] : s) {
    std::snprintf(buffer, sizeof buffer, "%.1f,%.1f ", kLeft + kWidth * (t_max > 0 ? t / t_max : 0),
                  top + kHeight - kHeight * v / v_max);
    svg += buffer;
  }
  svg += "\"/>\n";
}

}  // namespace

std::string PlotSvg(const SimulationResult& result, double capacity, const std::string& title) {
  // Events: +1 queued at submit, -1 queued and +slots busy at start, -slots busy at end.
  struct Change {
    Time time;
    int queued;
    double busy;
    const SimulatedJob* started;
  };
  std::vector<Change> changes;
  Time first = 0;
  bool any = false;
  for (const SimulatedJob& j : result.jobs) {
    first = any ? std::min(first, j.submit) : j.submit;
    any = true;
    changes.push_back({j.submit, 1, 0, nullptr});
    if (j.start >= 0) {
      changes.push_back({j.start, -1, static_cast<double>(j.slots), &j});
      changes.push_back({j.start + j.runtime, 0, -static_cast<double>(j.slots), nullptr});
    }
  }
  std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) { return a.time < b.time; });
  Series queue, utilization, mean_wait;
  long queued = 0;
  double busy = 0, wait_sum = 0;
  std::size_t started = 0;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const Change& c = changes[i];
    queued += c.queued;
    busy += c.busy;
    if (c.started != nullptr) {
      wait_sum += static_cast<double>(c.started->start - c.started->submit);
      ++started;
    }
    if (i + 1 < changes.size() && changes[i + 1].time == c.time) continue;  // one point per time
    const double day = static_cast<double>(c.time - first) / 86400.0;
    queue.emplace_back(day, static_cast<double>(queued));
    utilization.emplace_back(day, capacity > 0 ? busy / capacity : 0);
    if (started > 0) mean_wait.emplace_back(day, wait_sum / static_cast<double>(started) / 3600.0);
  }
  const double t_max = queue.empty() ? 0 : queue.back().first;
  std::string svg =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"920\" height=\"640\" font-family=\"sans-serif\">\n"
      "<rect width=\"920\" height=\"640\" fill=\"white\"/>\n"
      "<text x=\"70\" y=\"22\" font-size=\"15\">" + Escape(title) + "</text>\n";
  Panel(svg, queue, 50, "queue length (jobs waiting)", "#c0392b", t_max);
  Panel(svg, utilization, 240, "utilisation (busy slots / capacity)", "#2471a3", t_max);
  Panel(svg, mean_wait, 430, "running mean of the wait (hours)", "#1e8449", t_max);
  char axis[160];
  std::snprintf(axis, sizeof axis,
                "<text x=\"70\" y=\"610\" font-size=\"11\">0</text>\n"
                "<text x=\"890\" y=\"610\" font-size=\"11\" text-anchor=\"end\">%.1f days</text>\n",
                t_max);
  svg += axis;
  return svg + "</svg>\n";
}

}  // namespace schedk::io
