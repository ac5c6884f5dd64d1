#pragma once
// W1's table built through the SQL front with W1's own statements, shared by bench_sql and
// e1_lock_memory. Header-only so that each program's build lists just its own sources.
//
//   CREATE TABLE sample (...) as W1 wrote it; 100 x INSERT INTO sample (j) VALUES (md5(rand()));
//   then INSERT INTO sample (j) SELECT md5(rand()) FROM sample, doubling, up to `rows`
//   (1,638,400 = 100 x 2^14); other sizes end with one INSERT ... SELECT ... LIMIT.

#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "sql_lite_front/sql_engine.h"
#include "tools/experiments/sql_connection.h"

namespace minnow::experiments {

// W1's row count.
inline constexpr uint64_t kW1Rows = 1'638'400;

inline constexpr std::string_view kW1CreateTable =
    "CREATE TABLE sample (i int(10) unsigned NOT NULL auto_increment, j varchar(255) default "
    "NULL, PRIMARY KEY (i), KEY j (j)) ENGINE=InnoDB DEFAULT CHARSET=utf8";

// Runs `sql` on `s`; on an error prints it, prefixed with `program`, and exits: a measurement of
// a statement that failed means nothing.
inline sql::StatementResult MustRun(sql::SqlSession* s, std::string_view sql, const char* program) {
  return MinnowConnection(s, program).Run(sql);
}

// Creates and fills W1's `sample` table with `rows` rows (REQUIRES: rows >= 100) through `c`.
// `progress`, if set, is called after each statement that added rows with the count so far.
inline void LoadW1Table(SqlConnection* c, uint64_t rows,
                        const std::function<void(uint64_t)>& progress = {}) {
  c->Run(kW1CreateTable);
  for (int k = 0; k < 100; ++k) c->Run("INSERT INTO sample (j) VALUES (md5(rand()))");
  uint64_t have = 100;
  if (progress) progress(have);
  while (have * 2 <= rows) {
    c->Run("INSERT INTO sample (j) SELECT md5(rand()) FROM sample");
    have *= 2;
    if (progress) progress(have);
  }
  if (have < rows) {
    c->Run(
        fmt::format("INSERT INTO sample (j) SELECT md5(rand()) FROM sample LIMIT {}", rows - have));
    if (progress) progress(rows);
  }
}

// The same in minnow's session `s`, exiting with `program`'s name on an error.
inline void LoadW1Table(sql::SqlSession* s, uint64_t rows, const char* program,
                        const std::function<void(uint64_t)>& progress = {}) {
  MinnowConnection c(s, program);
  LoadW1Table(&c, rows, progress);
}

}  // namespace minnow::experiments
