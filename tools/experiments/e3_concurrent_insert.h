#pragma once
// Experiment E3's pieces (e3_concurrent_insert.cc states the experiment): its settings, what one
// cell measured, the write-ups' figures it is set beside, and the three steps the program runs
// (check the engine, run the cells on minnow and, with --compare-mariadb, on a private MariaDB
// server, report).

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "sql_lite_front/sql_engine.h"
#include "tools/experiments/sql_connection.h"

namespace minnow::experiments::e3 {

inline constexpr const char* kProgram = "e3_concurrent_insert";

struct Config {
  uint64_t rows = 20'000;      // rows of t before each cell
  uint64_t hole_percent = 40;  // "with holes": rows deleted first (MariaDB's 40,000 of 100,000)
  uint64_t writers = 4;        // (b): sessions looping a point SELECT + INSERT
  uint64_t oltp_sessions = 4;  // (a): sessions looping sysbench-like transactions
  double hold = 0.3;           // (b): seconds one long SELECT holds its read lock, alone
  double seconds = 2.5;        // per (b) cell
  double oltp_seconds = 1;     // per (a) cell
  uint64_t lock_wait_timeout = 60;
  uint64_t pool_mib = 256;
  std::string out = "out";
  bool compare_mariadb = false;  // also run every cell on a private MariaDB server
};

enum class Scenario { kOltp, kLongRead };  // (a), (b)

// concurrent_insert's values as SET GLOBAL takes them and SHOW VARIABLES prints them.
struct Setting {
  int value;
  const char* name;
};
inline constexpr Setting kSettings[] = {{0, "NEVER"}, {1, "AUTO"}, {2, "ALWAYS"}};

// What one scenario x setting x holes cell measured. Counts are of statements that succeeded
// within the cell's time; latencies of the statements that ended within it.
struct Cell {
  Scenario scenario = Scenario::kOltp;
  Setting setting = kSettings[0];
  bool holes = false;
  double elapsed = 0;
  uint64_t rows_deleted = 0;  // holes made before the cell
  uint64_t md5_depth = 0;     // (b): the long SELECT's md5s per row (calibrated to Config::hold)
  double hold_alone = 0;      // (b): seconds that long SELECT took with no other session
  uint64_t transactions = 0;  // (a): complete transactions
  uint64_t inserts = 0, point_selects = 0, range_selects = 0, long_selects = 0;
  std::vector<double> insert_ms;      // every INSERT's latency
  std::vector<double> long_select_s;  // (b): every long SELECT's time
  // (b): the INSERTs that ended between each two consecutive long SELECTs' ends, in order.
  // Every INSERT waits for a long SELECT at NEVER and with holes at AUTO: there the rate is
  // this count per cycle, and its spread shows how few cycles decide a cell.
  std::vector<uint64_t> inserts_per_long_select;
  uint64_t timeouts = 0;  // 1205 (a table lock wait over lock_wait_timeout)
  uint64_t other_errors = 0;
  std::string first_error;
  uint64_t table_locks_immediate = 0, table_locks_waited = 0;  // SHOW GLOBAL STATUS deltas
  uint64_t data_free_before = 0, data_free_after = 0;          // SHOW TABLE STATUS
  uint64_t rows_after = 0;

  double PerSecond(uint64_t n) const;
};

// The write-ups' figures for one cell; NaN where the write-up has none.
struct Reference {
  static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  double w2 = kNone;                  // W2: tps (a) or inserts/s (b)
  double w2_waited = kNone;           // W2: Table_locks_waited in its run (b)
  double mariadb = kNone;             // MariaDB 10.11 MyISAM (the design brief): inserts/s (b)
  double mariadb_per_insert = kNone;  // its Table_locks_waited per insert (b)
};
Reference ReferenceFor(Scenario scenario, int setting, bool holes);

// Whether ENGINE=MyISAM is the table-locking engine through the SQL front: CREATE TABLE without
// warning 1266, and on a scratch table under LOCK TABLES ... READ LOCAL another session's INSERT
// goes ahead at concurrent_insert=ALWAYS and waits at NEVER. Returns "" if so, else why not.
// Leaves concurrent_insert at AUTO and no scratch table behind.
std::string CheckTableLockingEngine(sql::SqlEngine* engine, sql::SqlSession* admin);

// Every cell of both scenarios on one engine, each session a connection from `connect`, the
// tables made and the counters read through `admin`; prints progress. Exits the program if a
// statement of the set-up fails (a figure measured on a wrong set-up would mean nothing).
std::vector<Cell> RunCells(const Connect& connect, SqlConnection* admin, const Config& c);

// The cells measured on one engine: "minnow", or the MariaDB peer's name.
struct EngineCells {
  std::string engine;
  std::vector<Cell> cells;
};

// Prints each engine's tables beside W2's and the design brief's figures, and the targets
// (minnow's: runs[0]; runs[1], if there, is MariaDB's measured in this run), writes the CSV and
// the PNG. False if the CSV could not be written.
bool Report(const Config& c, const std::vector<EngineCells>& runs);

}  // namespace minnow::experiments::e3
