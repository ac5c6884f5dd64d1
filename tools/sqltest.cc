// sqltest: runs SQL script tests and compares their output with .result files, as MySQL's
// mysqltest does (the language is in sqltest_script.h).
//
//   sqltest [--dir DIR] [--record] [--timeout SECONDS] [NAME...]
//
// Runs every DIR/**/*.test in sorted order (or the NAMEs: "basics/smoke", a .test path, or a
// directory under DIR), each against a fresh file database in a fresh temporary directory, and
// compares its output with the .result beside it; --record writes the .result instead. After
// the script, the database's integrity check (Database::CheckIntegrity) must find nothing. Prints
// "ok      NAME" or "FAIL    NAME" with a unified diff or the failing statement, and ends with
// "N passed, N failed". Exits 1 if a test failed.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "minnow/db.h"
#include "sql_lite_front/sql_engine.h"
#include "tests/test_temp_dir.h"
#include "tools/sqltest_integrity.h"
#include "tools/sqltest_script.h"

namespace minnow::tools {
namespace {

namespace fs = std::filesystem;

bool ReadFile(const fs::path& p, std::string* out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *out = s.str();
  return true;
}

bool WriteFile(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

// `diff -u` of expected vs actual (written to files in `tmp`).
std::string UnifiedDiff(const fs::path& tmp, const std::string& name, const std::string& expected,
                        const std::string& actual) {
  const fs::path a = tmp / "expected.result", b = tmp / "actual.result";
  if (!WriteFile(a, expected) || !WriteFile(b, actual)) return "(cannot write the diff's files)\n";
  std::string cmd = "diff -u --label '" + name + ".result' --label '" + name + " (actual)' '" +
                    a.string() + "' '" + b.string() + "' 2>&1";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
    pclose(p);
  }
  if (out.empty()) out = "--- expected\n" + expected + "+++ actual\n" + actual;
  return out;
}

struct TestRun {
  bool passed = false;
  std::string report;      // what follows the FAIL line
  bool abandoned = false;  // a thread is still inside the leaked engine
};

TestRun RunOne(const fs::path& test, const std::string& name, bool record,
               const ScriptOptions& options) {
  TestRun run;
  std::string script;
  if (!ReadFile(test, &script)) {
    run.report = "cannot read " + test.string() + "\n";
    return run;
  }
  fs::path result_path = test;
  result_path.replace_extension(".result");
  std::string expected;
  const bool have_expected = ReadFile(result_path, &expected);
  if (!record && !have_expected) {
    run.report = "no " + result_path.string() + " (sqltest --record " + name + " writes it)\n";
    return run;
  }

  testing::TempDir tmp_dir("sqltest");
  const fs::path tmp = tmp_dir.path();
  auto db = Database::Open(
      Options{.path = (tmp / "test.minnow").string(), .buffer_pool_bytes = 32u << 20});
  if (!db.ok()) {
    run.report = "cannot open a database: " + db.status().ToString() + "\n";
    return run;
  }
  auto engine = sql::SqlEngine::Open(db->get());
  if (!engine.ok()) {
    run.report = "cannot open the SQL engine: " + engine.error().ToString() + "\n";
  } else {
    ScriptOutcome outcome = RunScript(script, engine->get(), options);
    if (outcome.abandoned) {
      // A statement would not stop: its thread still uses the engine and the database, so
      // both are leaked (never freed) and the runner exits after this test.
      (void)engine->release();
      (void)db->release();
      tmp_dir.Keep();
      run.abandoned = true;
      run.report = outcome.failure + "\n(the database in " + tmp.string() + " is left behind)\n";
      return run;
    }
    engine->reset();
    // Every script ends with the database's integrity check, also a failed one (whose report
    // then says both).
    const std::string integrity = IntegrityFindings(db->get());
    if (!outcome.failure.empty()) {
      run.report = outcome.failure + "\n" + integrity;
    } else if (!integrity.empty()) {
      run.report = integrity;
    } else if (record) {
      if (WriteFile(result_path, outcome.output)) {
        run.passed = true;
      } else {
        run.report = "cannot write " + result_path.string() + "\n";
      }
    } else if (outcome.output == expected) {
      run.passed = true;
    } else {
      run.report = UnifiedDiff(tmp, name, expected, outcome.output);
    }
  }
  Status st = (*db)->Close();
  if (!st.ok() && run.passed) {
    run.passed = false;
    run.report = "closing the database: " + st.ToString() + "\n";
  }
  db->reset();
  return run;
}

void Usage() {
  std::fputs("usage: sqltest [--dir DIR] [--record] [--timeout SECONDS] [NAME...]\n", stderr);
}

int Main(int argc, char** argv) {
  fs::path dir = "tests/sql";
  bool record = false;
  ScriptOptions options;
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (a == "--record") {
      record = true;
    } else if (a == "--timeout" && i + 1 < argc) {
      double s = std::strtod(argv[++i], nullptr);
      if (s <= 0) {
        Usage();
        return 2;
      }
      options.statement_timeout = std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
    } else if (a == "--help" || a == "-h") {
      Usage();
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      Usage();
      return 2;
    } else {
      names.emplace_back(a);
    }
  }
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    std::fprintf(stderr, "sqltest: no directory %s\n", dir.string().c_str());
    return 2;
  }

  // Every DIR/**/*.test, by name ("basics/smoke").
  std::vector<std::string> all;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (!it->is_regular_file() || it->path().extension() != ".test") continue;
    fs::path rel = fs::relative(it->path(), dir);
    rel.replace_extension();
    all.push_back(rel.generic_string());
  }
  std::sort(all.begin(), all.end());
  std::vector<std::string> chosen;
  if (names.empty()) {
    chosen = all;
  } else {
    for (std::string n : names) {
      // Accept "basics/smoke", "basics/smoke.test", "DIR/basics/smoke.test" and "basics".
      if (n.ends_with(".test")) n.resize(n.size() - 5);
      std::string prefix = dir.generic_string() + "/";
      if (n.starts_with(prefix)) n = n.substr(prefix.size());
      while (!n.empty() && n.back() == '/') n.pop_back();
      size_t before = chosen.size();
      for (const auto& t : all) {
        if (t == n || t.starts_with(n + "/")) chosen.push_back(t);
      }
      if (chosen.size() == before) {
        std::fprintf(stderr, "sqltest: no test %s under %s\n", n.c_str(), dir.string().c_str());
        return 2;
      }
    }
  }

  int passed = 0, failed = 0;
  bool abandoned = false;
  for (const auto& name : chosen) {
    TestRun run = RunOne(dir / (name + ".test"), name, record, options);
    if (run.passed) {
      ++passed;
      std::printf("ok      %s%s\n", name.c_str(), record ? " (recorded)" : "");
    } else {
      ++failed;
      std::printf("FAIL    %s\n%s", name.c_str(), run.report.c_str());
    }
    std::fflush(stdout);
    if (run.abandoned) {
      abandoned = true;
      break;
    }
  }
  if (abandoned) {
    std::printf("sqltest: stopped after a test whose statement would not stop\n");
    failed += static_cast<int>(chosen.size()) - passed - failed;
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  std::fflush(stdout);
  // A leaked engine's thread may still run: leave without destructors.
  if (abandoned) std::_Exit(1);
  return failed > 0 ? 1 : 0;
}

}  // namespace
}  // namespace minnow::tools

int main(int argc, char** argv) { return minnow::tools::Main(argc, argv); }
