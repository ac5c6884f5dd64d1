#include "tools/experiments/experiment_common.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace minnow::experiments {
namespace {

// Set when the program's static objects are built, i.e. at its start.
const std::chrono::steady_clock::time_point kProgramStart = std::chrono::steady_clock::now();

void PrintUsage(const char* program, const std::vector<Flag>& flags) {
  std::fprintf(stderr, "usage: %s", program);
  for (const Flag& f : flags) {
    std::fprintf(stderr, f.toggle != nullptr ? " [--%s]" : " [--%s V]", f.name.c_str());
  }
  std::fprintf(stderr, "\n");
  for (const Flag& f : flags) {
    std::string def;
    if (f.u64 != nullptr) def = std::to_string(*f.u64);
    if (f.real != nullptr) def = fmt::format("{:g}", *f.real);
    if (f.text != nullptr) def = *f.text;
    if (f.toggle != nullptr) def = *f.toggle ? "on" : "off";
    std::fprintf(stderr, "  --%-12s %s (default %s)\n", f.name.c_str(), f.help.c_str(),
                 def.c_str());
  }
}

bool ParseNumber(const char* v, bool integral, double* out) {
  if (*v == '\0') return false;
  char* end = nullptr;
  errno = 0;
  const double d =
      integral ? static_cast<double>(std::strtoull(v, &end, 10)) : std::strtod(v, &end);
  if (errno != 0 || *end != '\0' || (integral && *v == '-') || !std::isfinite(d)) return false;
  *out = d;
  return true;
}

// True if gnuplot can read `cell` as a number (so it need not be quoted).
bool IsNumber(const std::string& cell) {
  if (cell.empty()) return false;
  char* end = nullptr;
  std::strtod(cell.c_str(), &end);
  return *end == '\0';
}

// The first executable `name` on $PATH, or "".
std::string FindOnPath(std::string_view name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return {};
  std::string_view rest = path;
  while (!rest.empty()) {
    const size_t colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + std::string(name);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

// Runs `program script` with stdout and stderr going to `log`; returns its exit status, or -1
// if it could not be started or was killed.
int RunChild(const std::string& program, const std::string& script, const std::string& log) {
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    std::FILE* f = std::fopen(log.c_str(), "w");
    if (f != nullptr) {
      ::dup2(::fileno(f), STDOUT_FILENO);
      ::dup2(::fileno(f), STDERR_FILENO);
    }
    ::execl(program.c_str(), program.c_str(), script.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

}  // namespace

Flag PoolMibFlag(uint64_t* mib) {
  return {
      .name = "pool-mib", .u64 = mib, .min = 8, .max = 1 << 20, .help = "buffer pool size in MiB"};
}

Flag OutFlag(std::string* dir) {
  return {.name = "out", .text = dir, .help = "directory for the CSV and PNG files"};
}

Flag CompareMariaDbFlag(bool* on) {
  return {.name = "compare-mariadb",
          .toggle = on,
          .help = "also run it on a private MariaDB server (Debian's mariadb-server)"};
}

bool ParseFlags(int argc, char** argv, const char* program, const std::vector<Flag>& flags) {
  for (int i = 1; i < argc; i += 2) {
    const std::string_view a = argv[i];
    const Flag* flag = nullptr;
    for (const Flag& f : flags) {
      if (a.size() > 2 && a.substr(0, 2) == "--" && a.substr(2) == f.name) flag = &f;
    }
    if (flag != nullptr && flag->toggle != nullptr) {
      *flag->toggle = true;
      --i;  // a switch takes no value
      continue;
    }
    if (flag == nullptr || i + 1 >= argc) {
      std::fprintf(stderr, "%s: %s %s\n", program,
                   flag == nullptr ? "unknown flag" : "missing value for", argv[i]);
      PrintUsage(program, flags);
      return false;
    }
    const char* v = argv[i + 1];
    if (flag->text != nullptr) {
      *flag->text = v;
      continue;
    }
    double d = 0;
    if (!ParseNumber(v, flag->u64 != nullptr, &d) || d < flag->min || d > flag->max) {
      std::fprintf(stderr, "%s: --%s wants a number from %g to %g, not '%s'\n", program,
                   flag->name.c_str(), flag->min, flag->max, v);
      PrintUsage(program, flags);
      return false;
    }
    if (flag->u64 != nullptr) *flag->u64 = static_cast<uint64_t>(d);
    if (flag->real != nullptr) *flag->real = d;
  }
  return true;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  // Nearest rank: the smallest value with at least p% of the values at or below it.
  const double rank = std::ceil(p / 100.0 * static_cast<double>(v.size()));
  const size_t i = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return v[std::min(i, v.size() - 1)];
}

std::string Commas(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string Fixed(double v, int decimals, std::string_view dash) {
  if (!std::isfinite(v)) return std::string(dash);
  return fmt::format("{:.{}f}", v, decimals);
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void TextTable::Print(std::FILE* out, std::string_view title) const {
  std::vector<size_t> width(header_.size(), 0);
  for (size_t c = 0; c < header_.size(); ++c) width[c] = header_[c].size();
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) {
      width[c] = std::max(width[c], row[c].size());
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      if (c > 0) s += "  ";
      s += c == 0 ? fmt::format("{:<{}}", cell, width[c]) : fmt::format("{:>{}}", cell, width[c]);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    std::fprintf(out, "%s\n", s.c_str());
  };
  if (!title.empty()) std::fprintf(out, "%.*s\n", static_cast<int>(title.size()), title.data());
  line(header_);
  size_t total = 0;
  for (size_t w : width) total += w;
  std::fprintf(out, "%s\n", std::string(total + 2 * (width.size() - 1), '-').c_str());
  for (const auto& row : rows_) line(row);
}

std::string OutputDir::Path(std::string_view name) const {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) {
    std::fprintf(stderr, "cannot create the output directory %s: %s\n", dir_.c_str(),
                 ec.message().c_str());
    return {};
  }
  return (std::filesystem::path(dir_) / std::string(name)).string();
}

bool OutputDir::WriteCsv(std::string_view name, const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows) const {
  const std::string path = Path(name);
  if (path.empty()) return false;
  std::ofstream f(path);
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t c = 0; c < cells.size(); ++c) f << (c > 0 ? "," : "") << CsvField(cells[c]);
    f << '\n';
  };
  line(header);
  for (const auto& row : rows) line(row);
  f.close();
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  std::printf("wrote %s (%zu rows)\n", path.c_str(), rows.size());
  return true;
}

bool OutputDir::Plot(std::string_view name, int width, int height,
                     const std::string& script) const {
  const std::string png = Path(std::string(name) + ".png");
  if (png.empty()) return false;
  const std::string gp = Path(std::string(name) + ".gp");
  const std::string log = Path(std::string(name) + ".gnuplot.log");
  {
    std::ofstream f(gp);
    f << fmt::format("set terminal pngcairo size {},{} font 'sans,10'\nset output '{}'\n", width,
                     height, png)
      << script << "\nunset output\n";
    if (!f) {
      std::fprintf(stderr, "cannot write %s: PNG %s skipped\n", gp.c_str(), png.c_str());
      return false;
    }
  }
  // A PNG left from an earlier run must not pass for this run's.
  std::error_code ec;
  std::filesystem::remove(png, ec);
  const std::string gnuplot = FindOnPath("gnuplot");
  if (gnuplot.empty()) {
    std::printf(
        "gnuplot is not installed (Debian: apt-get install gnuplot): %s skipped; "
        "its script is %s\n",
        png.c_str(), gp.c_str());
    return false;
  }
  const int rc = RunChild(gnuplot, gp, log);
  const bool drawn = rc == 0 && std::filesystem::file_size(png, ec) > 0 && !ec;
  if (!drawn) {
    std::printf("gnuplot failed on %s (exit %d, see %s): %s skipped\n", gp.c_str(), rc, log.c_str(),
                png.c_str());
    return false;
  }
  std::filesystem::remove(log, ec);
  std::printf("wrote %s\n", png.c_str());
  return true;
}

std::string GnuplotData(std::string_view name, const std::vector<std::vector<std::string>>& rows) {
  std::string s = fmt::format("${} << EOD\n", name);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) s += ' ';
      if (IsNumber(row[c])) {
        s += row[c];
      } else {
        std::string cell = row[c];
        std::replace(cell.begin(), cell.end(), '"', '\'');
        s += '"' + cell + '"';
      }
    }
    s += '\n';
  }
  return s + "EOD\n";
}

void Progress(std::string_view what) {
  std::printf("  [%6.1f s] %.*s\n", SecondsSince(kProgramStart), static_cast<int>(what.size()),
              what.data());
  std::fflush(stdout);
}

bool OpenMemoryEngine(uint64_t pool_mib, const char* program, MemoryEngine* out) {
  Options opts{.path = ":memory:"};
  opts.buffer_pool_bytes = pool_mib << 20;
  Result<std::unique_ptr<Database>> db = Database::Open(opts);
  if (!db.ok()) {
    std::fprintf(stderr, "%s: %s\n", program, db.status().ToString().c_str());
    return false;
  }
  sql::SqlResult<std::unique_ptr<sql::SqlEngine>> engine = sql::SqlEngine::Open(db->get());
  if (!engine.ok()) {
    std::fprintf(stderr, "%s: %s\n", program, engine.error().ToString().c_str());
    return false;
  }
  out->db = std::move(*db);
  out->engine = std::move(*engine);
  return true;
}

}  // namespace minnow::experiments
