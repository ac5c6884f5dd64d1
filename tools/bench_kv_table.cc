#include "tools/bench_kv_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace minnow::bench {
namespace {

const char* UnitName(Unit u) {
  switch (u) {
    case Unit::kRowsPerSec:
      return "rows/s";
    case Unit::kOpsPerSec:
      return "ops/s";
    case Unit::kMiB:
      return "MiB";
    case Unit::kCommitsPerSec:
      return "commits/s";
    case Unit::kCommitsPerSync:
      return "c/fsync";
    case Unit::kMicros:
      return "us";
  }
  return "?";
}

// 12.3 M, 845 k, 97.1 (MiB with one decimal).
std::string Num(double v, Unit u) {
  if (u == Unit::kMiB || u == Unit::kCommitsPerSync || u == Unit::kMicros) {
    return fmt::format("{:.1f}", v);
  }
  if (v >= 1e6) return fmt::format("{:.2f} M", v / 1e6);
  if (v >= 1e3) return fmt::format("{:.1f} k", v / 1e3);
  return fmt::format("{:.0f}", v);
}

const Row* FindRow(const EngineResult& e, const std::string& op) {
  for (const Row& r : e.rows) {
    if (r.op == op) return &r;
  }
  return nullptr;
}

}  // namespace

double Seconds(const std::function<Status()>& f, Status* st) {
  const auto t0 = std::chrono::steady_clock::now();
  *st = f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Row& RowFor(EngineResult* r, const std::string& op, Unit unit) {
  for (Row& row : r->rows) {
    if (row.op == op) return row;
  }
  r->rows.push_back(Row{.op = op, .unit = unit});
  return r->rows.back();
}

Row& AddRate(EngineResult* r, const std::string& op, Unit unit, double count, double secs) {
  Row& row = RowFor(r, op, unit);
  row.values.push_back(secs > 0 ? count / secs : 0);
  row.seconds.push_back(secs);
  return row;
}

Summary Summarize(std::vector<double> v) {
  Summary s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  s.min = v.front();
  s.max = v.back();
  return s;
}

std::string Commas(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string CountName(uint64_t n) {
  if (n >= 1'000'000 && n % 1'000'000 == 0) return fmt::format("{}M", n / 1'000'000);
  if (n >= 1'000 && n % 1'000 == 0) return fmt::format("{}k", n / 1'000);
  return Commas(n);
}

void PrintTable(std::FILE* out, const std::string& title,
                const std::vector<EngineResult>& engines) {
  if (engines.empty()) return;
  const EngineResult& m = engines[0];
  fmt::print(out, "{}\n", title);
  fmt::print(out, "{} = median over the runs, min / max over the runs, time = median seconds",
             m.engine);
  if (engines.size() > 1) fmt::print(out, "; other engines: median, and {} / other", m.engine);
  fmt::print(out, "\n\n");
  std::string head = fmt::format("{:<36} {:>9} {:>10} {:>10} {:>10} {:>9}", "operation", "unit",
                                 m.engine, "min", "max", "time");
  for (size_t i = 1; i < engines.size(); ++i) {
    head += fmt::format(" | {:>10} {:>9}", engines[i].engine, "ratio");
  }
  fmt::print(out, "{}\n", head);
  fmt::print(out, "{}\n", std::string(head.size(), '-'));
  std::string section;
  for (const Row& r : m.rows) {
    if (r.section != section) {
      section = r.section;
      if (!section.empty()) fmt::print(out, "{}\n", section);
    }
    std::string line = fmt::format("{:<36} {:>9}", r.op, UnitName(r.unit));
    if (r.values.empty()) {
      line += fmt::format(" {:>10} {:>10} {:>10} {:>9}", "-", "", "", "");
    } else {
      const Summary s = Summarize(r.values);
      std::string time =
          r.seconds.empty() ? std::string() : fmt::format("{:.3f} s", Summarize(r.seconds).median);
      line += fmt::format(" {:>10} {:>10} {:>10} {:>9}", Num(s.median, r.unit) + r.mark,
                          Num(s.min, r.unit), Num(s.max, r.unit), time);
    }
    const double median = Summarize(r.values).median;
    for (size_t i = 1; i < engines.size(); ++i) {
      const Row* o = FindRow(engines[i], r.op);
      if (o == nullptr || o->values.empty()) {
        line += fmt::format(" | {:>10} {:>9}", "-", "-");
        continue;
      }
      const double om = Summarize(o->values).median;
      line += fmt::format(" | {:>10} {:>9}", Num(om, r.unit) + o->mark,
                          om > 0 && median > 0 ? fmt::format("{:.2f}x", median / om) : "-");
    }
    fmt::print(out, "{}\n", line);
  }
  if (engines.size() > 1) {
    fmt::print(out, "\nratio = {} / other: above 1.00x {} is faster (rates) or bigger (sizes).\n",
               m.engine, m.engine);
  }
  for (const EngineResult& e : engines) {
    if (!e.bulk_note.empty()) fmt::print(out, "bulk load, {}\n", e.bulk_note);
  }
  for (const EngineResult& e : engines) {
    for (const std::string& note : e.notes) fmt::print(out, "{}\n", note);
  }
}

Status WriteCsv(const std::string& path, const std::vector<EngineResult>& engines) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return Status::IOError(fmt::format("{}: {}", path, std::strerror(errno)));
  fmt::print(f, "engine,operation,unit,median,min,max,median_seconds,runs,setting\n");
  for (const EngineResult& e : engines) {
    for (const Row& r : e.rows) {
      const Summary s = Summarize(r.values);
      const double t = r.seconds.empty() ? 0 : Summarize(r.seconds).median;
      if (r.values.empty()) continue;
      fmt::print(f, "{},\"{}\",{},{:.6g},{:.6g},{:.6g},{:.6f},{},\"{}\"\n", e.engine, r.op,
                 UnitName(r.unit), s.median, s.min, s.max, t, r.values.size(), r.setting);
    }
  }
  const bool ok = std::fclose(f) == 0;
  return ok ? Status::OK() : Status::IOError(fmt::format("{}: write failed", path));
}

}  // namespace minnow::bench
