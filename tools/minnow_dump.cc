// minnow-dump: a database's tables as a dump file in MySQL 8.0 mysqldump's format.
//
//   minnow-dump [--db PATH] [--result-file FILE] [DATABASE | --databases DB... |
//               --all-databases]
//
// Without --db the database is $MINNOW_DB, else minnow.db in the working directory (as the
// shell's). The file opens read-only (Options::read_only): nothing is written to it, and its
// shared file lock keeps every writing process out, so the dump is of one moment without
// LOCK TABLES. It dumps one database (DATABASE, else the session's current one, `test`) as
// mysqldump DATABASE does, with no CREATE DATABASE or USE; --databases DB... dumps each in
// turn as mysqldump does, each after a "Current Database" comment, its SHOW CREATE DATABASE IF
// NOT EXISTS text (CREATE DATABASE /*!32312 IF NOT EXISTS*/ ...) and USE; --all-databases
// dumps so every database SHOW DATABASES lists but the system schemas (mysql,
// information_schema, performance_schema, sys: minnow's are views of live state, not
// tables). In each database, every base table in SHOW TABLES' order:
// DROP TABLE IF EXISTS, SHOW CREATE TABLE's text, then the rows as extended INSERTs of
// up to mysqldump's default net_buffer_length (1,046,528 bytes) between LOCK TABLES ... WRITE
// and the ALTER TABLE ... DISABLE / ENABLE KEYS bracket, inside the SET lines mysqldump
// writes and restores (mysqldump --opt's output). Numbers are written as the server prints
// them, every other value as a quoted string with mysql_real_escape_string's escapes. The
// output loads with `minnow --db NEW FILE`, or into MySQL.
//
// Exit code 0, or 1 with a message on stderr (the database would not open, a statement failed).

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "minnow/db.h"
#include "sql_lite_front/parse/lexer.h"
#include "sql_lite_front/sql_engine.h"
#include "sql_lite_front/version.h"

namespace minnow::tools {
namespace {

using sql::StatementResult;

// mysqldump's default --net-buffer-length: an extended INSERT ends before it grows past this.
constexpr size_t kNetBufferLength = 1046528;

constexpr const char* kPreamble =
    "/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;\n"
    "/*!40101 SET @OLD_CHARACTER_SET_RESULTS=@@CHARACTER_SET_RESULTS */;\n"
    "/*!40101 SET @OLD_COLLATION_CONNECTION=@@COLLATION_CONNECTION */;\n"
    "/*!50503 SET NAMES utf8mb4 */;\n"
    "/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;\n"
    "/*!40103 SET TIME_ZONE='+00:00' */;\n"
    "/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */;\n"
    "/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;\n"
    "/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;\n"
    "/*!40111 SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=0 */;\n";

constexpr const char* kPostamble =
    "/*!40103 SET TIME_ZONE=@OLD_TIME_ZONE */;\n"
    "\n"
    "/*!40101 SET SQL_MODE=@OLD_SQL_MODE */;\n"
    "/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;\n"
    "/*!40014 SET UNIQUE_CHECKS=@OLD_UNIQUE_CHECKS */;\n"
    "/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;\n"
    "/*!40101 SET CHARACTER_SET_RESULTS=@OLD_CHARACTER_SET_RESULTS */;\n"
    "/*!40101 SET COLLATION_CONNECTION=@OLD_COLLATION_CONNECTION */;\n"
    "/*!40111 SET SQL_NOTES=@OLD_SQL_NOTES */;\n";

// `s` as a quoted SQL string, escaped as mysql_real_escape_string escapes it.
void AppendQuoted(std::string_view s, std::string* out) {
  out->push_back('\'');
  for (char c : s) {
    switch (c) {
      case '\0':
        out->append("\\0");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\'':
        out->append("\\'");
        break;
      case '"':
        out->append("\\\"");
        break;
      case '\032':
        out->append("\\Z");
        break;
      default:
        out->push_back(c);
    }
  }
  out->push_back('\'');
}

// One row as "(v1,v2,...)": numbers as printed, NULL, everything else quoted.
std::string RowTuple(const StatementResult& r, const std::vector<std::optional<std::string>>& row) {
  std::string out = "(";
  for (size_t i = 0; i < row.size(); ++i) {
    if (i > 0) out.push_back(',');
    if (!row[i].has_value()) {
      out.append("NULL");
      continue;
    }
    const StatementResult::ColumnType type =
        i < r.column_types.size() ? r.column_types[i] : StatementResult::ColumnType::kText;
    switch (type) {
      case StatementResult::ColumnType::kInt:
      case StatementResult::ColumnType::kUInt:
      case StatementResult::ColumnType::kDouble:
      case StatementResult::ColumnType::kDecimal:
        out.append(*row[i]);
        break;
      case StatementResult::ColumnType::kText:
      case StatementResult::ColumnType::kBinary:
      case StatementResult::ColumnType::kDate:
      case StatementResult::ColumnType::kDateTime:
      case StatementResult::ColumnType::kTimestamp:
      case StatementResult::ColumnType::kYear:
      case StatementResult::ColumnType::kTime:
        AppendQuoted(*row[i], &out);
        break;
    }
  }
  out.push_back(')');
  return out;
}

class Dumper {
 public:
  Dumper(sql::SqlSession* session, std::FILE* out) : session_(session), out_(out) {}

  // The whole file; false after printing what failed. `databases`: the databases to dump
  // with CREATE DATABASE and USE (--databases, --all-databases when `all`); empty and not
  // `all`: `database` (empty: the session's current one) without them.
  bool Run(const std::string& path, std::string database, std::vector<std::string> databases,
           bool all) {
    // TIMESTAMP values are read in UTC, the zone the file's preamble sets for loading them
    // (mysqldump's --tz-utc).
    if (!Query("SET time_zone = '+00:00'").has_value()) return false;
    if (all) {
      std::optional<StatementResult> names = Query("SHOW DATABASES");
      if (!names.has_value()) return false;
      for (const auto& row : names->rows) {
        if (!row.empty() && row[0] && !IsSystemSchema(*row[0])) databases.push_back(*row[0]);
      }
    }
    const bool with_create = all || !databases.empty();
    if (!with_create && !database.empty()) {
      if (!Query("USE " + sql::QuoteIdentifier(database)).has_value()) return false;
    }
    if (!with_create) {
      std::optional<StatementResult> db = Query("SELECT DATABASE()");
      if (!db.has_value()) return false;
      database = db->rows.empty() || !db->rows[0][0] ? "" : *db->rows[0][0];
    }
    // mysqldump's header names the first database it was given (none for --all-databases).
    const std::string named = all ? "" : with_create ? databases.front() : database;
    Write(std::string("-- minnow-dump, in MySQL mysqldump's format\n--\n-- Database: ") + named +
          "    File: " + path +
          "\n-- ------------------------------------------------------\n"
          "-- Server version\t" +
          sql::kServerVersion + "\n\n");
    Write(kPreamble);
    if (!with_create) {
      if (!DumpTables()) return false;
    }
    for (const std::string& name : databases) {
      const std::string quoted = sql::QuoteIdentifier(name);
      std::optional<std::string> create = ShowCreate("DATABASE IF NOT EXISTS", quoted);
      if (!create.has_value()) return false;
      Write("\n--\n-- Current Database: " + quoted + "\n--\n");
      Write("\n" + *create + ";\n");
      Write("\nUSE " + quoted + ";\n");
      if (!Query("USE " + quoted).has_value()) return false;
      if (!DumpTables()) return false;
    }
    Write(kPostamble);
    char when[32];
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    localtime_r(&now, &tm);
    std::strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
    Write(std::string("\n-- Dump completed on ") + when + "\n");
    if (std::fflush(out_) != 0 || std::ferror(out_)) {
      std::fprintf(stderr, "minnow-dump: writing the dump failed\n");
      return false;
    }
    return true;
  }

 private:
  // SHOW CREATE `what` `quoted`'s definition (its second column); nullopt, said, on failure.
  std::optional<std::string> ShowCreate(const std::string& what, const std::string& quoted) {
    std::optional<StatementResult> create = Query("SHOW CREATE " + what + " " + quoted);
    if (!create.has_value()) return std::nullopt;
    if (create->rows.empty() || create->rows[0].size() < 2 || !create->rows[0][1]) {
      std::fprintf(stderr, "minnow-dump: SHOW CREATE %s %s returned no definition\n", what.c_str(),
                   quoted.c_str());
      return std::nullopt;
    }
    return *create->rows[0][1];
  }

  // The current database's base tables, in SHOW TABLES' order.
  bool DumpTables() {
    std::optional<StatementResult> tables = Query("SHOW FULL TABLES");
    if (!tables.has_value()) return false;
    for (const auto& row : tables->rows) {
      if (row.size() < 2 || !row[0] || row[1].value_or("") != "BASE TABLE") continue;
      if (!DumpTable(*row[0])) return false;
    }
    return true;
  }

  static bool IsSystemSchema(const std::string& name) {
    return sql::EqualsNoCase(name, "mysql") || sql::EqualsNoCase(name, "information_schema") ||
           sql::EqualsNoCase(name, "performance_schema") || sql::EqualsNoCase(name, "sys");
  }

  bool DumpTable(const std::string& name) {
    const std::string quoted = sql::QuoteIdentifier(name);
    std::optional<std::string> create = ShowCreate("TABLE", quoted);
    if (!create.has_value()) return false;
    Write("\n--\n-- Table structure for table " + quoted + "\n--\n\n");
    Write("DROP TABLE IF EXISTS " + quoted + ";\n");
    Write("/*!40101 SET @saved_cs_client     = @@character_set_client */;\n");
    Write("/*!50503 SET character_set_client = utf8mb4 */;\n");
    Write(*create + ";\n");
    Write("/*!40101 SET character_set_client = @saved_cs_client */;\n\n");

    std::optional<StatementResult> rows = Query("SELECT * FROM " + quoted);
    if (!rows.has_value()) return false;
    Write("--\n-- Dumping data for table " + quoted + "\n--\n\n");
    Write("LOCK TABLES " + quoted + " WRITE;\n");
    Write("/*!40000 ALTER TABLE " + quoted + " DISABLE KEYS */;\n");
    const std::string insert = "INSERT INTO " + quoted + " VALUES ";
    std::string statement;
    for (const auto& row : rows->rows) {
      std::string tuple = RowTuple(*rows, row);
      // mysqldump's rule: a new statement when this row would take the current one past
      // net_buffer_length (a row longer than that alone still gets a statement of its own).
      if (!statement.empty() && statement.size() + 1 + tuple.size() + 2 > kNetBufferLength) {
        Write(statement + ";\n");
        statement.clear();
      }
      if (statement.empty()) {
        statement = insert;
      } else {
        statement.push_back(',');
      }
      statement += tuple;
    }
    if (!statement.empty()) Write(statement + ";\n");
    Write("/*!40000 ALTER TABLE " + quoted + " ENABLE KEYS */;\n");
    Write("UNLOCK TABLES;\n");
    return true;
  }

  std::optional<StatementResult> Query(const std::string& sql) {
    sql::SqlResult<StatementResult> r = session_->Execute(sql);
    if (!r.ok()) {
      std::fprintf(stderr, "minnow-dump: %s: ERROR %u: %s\n", sql.c_str(),
                   static_cast<unsigned>(r.error().code), r.error().message.c_str());
      return std::nullopt;
    }
    return std::move(r).value();
  }

  void Write(const std::string& text) { std::fwrite(text.data(), 1, text.size(), out_); }

  sql::SqlSession* session_;
  std::FILE* out_;
};

constexpr const char* kUsage =
    "usage: minnow-dump [--db PATH] [--result-file FILE] [DATABASE | --databases DB... | "
    "--all-databases]\n";

int Main(int argc, char** argv) {
  std::string db_path, result_file;
  std::vector<std::string> names;  // the non-option arguments: database names
  bool databases = false, all = false;
  if (const char* env = std::getenv("MINNOW_DB"); env != nullptr && *env != '\0') db_path = env;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if ((arg == "--db" || arg == "--result-file" || arg == "-r") && i + 1 < argc) {
      (arg == "--db" ? db_path : result_file) = argv[++i];
    } else if (arg == "--databases" || arg == "-B") {
      databases = true;
    } else if (arg == "--all-databases" || arg == "-A") {
      all = true;
    } else if (arg == "--help" || arg == "-h") {
      std::printf("%s", kUsage);
      return 0;
    } else if (!arg.empty() && arg[0] != '-') {
      names.emplace_back(arg);
    } else {
      std::fprintf(stderr, "minnow-dump: unknown argument '%s'\n%s", argv[i], kUsage);
      return 1;
    }
  }
  // mysqldump's rules: --all-databases takes no names, --databases at least one, and without
  // either one name (a database's tables by name are not dumped here).
  if ((all && !names.empty()) || (all && databases) || (databases && names.empty()) ||
      (!all && !databases && names.size() > 1)) {
    std::fprintf(stderr, "minnow-dump: %s\n%s",
                 all         ? "--all-databases takes no database names"
                 : databases ? "--databases needs at least one database name"
                             : "dumping tables by name is not supported: name one database",
                 kUsage);
    return 1;
  }
  if (db_path.empty()) db_path = "minnow.db";
  auto db = Database::Open(Options{.path = db_path, .read_only = true});
  if (!db.ok()) {
    std::fprintf(stderr, "minnow-dump: %s: %s\n", db_path.c_str(), db.status().ToString().c_str());
    return 1;
  }
  auto engine = sql::SqlEngine::Open(db->get());
  if (!engine.ok()) {
    std::fprintf(stderr, "minnow-dump: %s: %s\n", db_path.c_str(), engine.error().message.c_str());
    return 1;
  }
  std::FILE* out = stdout;
  if (!result_file.empty()) {
    out = std::fopen(result_file.c_str(), "wb");
    if (out == nullptr) {
      std::perror(("minnow-dump: " + result_file).c_str());
      return 1;
    }
  }
  bool ok;
  {
    std::unique_ptr<sql::SqlSession> session = (*engine)->NewSession();
    std::string database = !databases && !names.empty() ? names.front() : "";
    if (!databases) names.clear();
    ok = Dumper(session.get(), out).Run(db_path, std::move(database), std::move(names), all);
  }
  if (out != stdout && std::fclose(out) != 0) ok = false;
  engine->reset();
  (void)(*db)->Close();
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace minnow::tools

int main(int argc, char** argv) { return minnow::tools::Main(argc, argv); }
