#include "sql_lite_front/session/variables.h"

#include <catch2/catch.hpp>

namespace minnow::sql {
namespace {

Value Str(const char* s) { return Value::String(s); }

std::string Listed(const std::vector<std::pair<std::string, std::string>>& list,
                   const std::string& name) {
  for (const auto& [n, v] : list) {
    if (n == name) return v;
  }
  return "(absent)";
}

TEST_CASE("variables: defaults come from the options", "[sql][variables]") {
  Options options;
  options.buffer_pool_bytes = 8u << 20;
  options.lock_wait_timeout_ms = 2500;
  options.deadlock_detect = false;
  options.flush_log_at_trx_commit = 2;
  SystemVariables globals(options);
  CHECK(*globals.GetGlobal("innodb_buffer_pool_size") == Value::Int(8 << 20));
  CHECK(*globals.GetGlobal("innodb_lock_wait_timeout") == Value::Int(2));
  CHECK(*globals.GetGlobal("innodb_deadlock_detect") == Value::Int(0));
  CHECK(*globals.GetGlobal("innodb_flush_log_at_trx_commit") == Value::Int(2));
  CHECK(*globals.GetGlobal("lock_wait_timeout") == Value::Int(31536000));
  CHECK(*globals.GetGlobal("version") == Str("8.0.36-minnow"));
  CHECK(*globals.GetGlobal("concurrent_insert") == Str("AUTO"));
  CHECK(*globals.GetGlobal("collation_server") == Str("utf8mb4_0900_ai_ci"));

  options.lock_wait_timeout_ms = 300;  // under a second still waits at least 1 s
  CHECK(*SystemVariables(options).GetGlobal("innodb_lock_wait_timeout") == Value::Int(1));

  SessionVariables s = globals.NewSession();
  CHECK(s.autocommit());
  CHECK(s.isolation() == IsolationLevel::kRepeatableRead);
  CHECK(s.innodb_lock_wait_timeout_s() == 2);
  CHECK(s.lock_wait_timeout_s() == 31536000);
}

TEST_CASE("variables: SET normalizes and validates as MySQL", "[sql][variables]") {
  SystemVariables globals(Options{});
  SessionVariables s = globals.NewSession();

  REQUIRE(s.Set("AutoCommit", Str("off")).ok());  // names and words in any case
  CHECK(!s.autocommit());
  CHECK(*s.Get("autocommit") == Value::Int(0));
  REQUIRE(s.Set("autocommit", Value::Int(1)).ok());
  CHECK(s.autocommit());

  REQUIRE(s.Set("transaction_isolation", Str("read-committed")).ok());
  CHECK(s.isolation() == IsolationLevel::kReadCommitted);
  CHECK(*s.Get("tx_isolation") == Str("READ-COMMITTED"));  // the alias reads the same value
  REQUIRE(s.Set("tx_isolation", Str("serializable")).ok());
  CHECK(s.isolation() == IsolationLevel::kSerializable);
  REQUIRE(s.Set("transaction_isolation", Value::Int(0)).ok());  // by number, as MySQL
  CHECK(*s.Get("transaction_isolation") == Str("READ-UNCOMMITTED"));

  REQUIRE(s.Set("innodb_lock_wait_timeout", Value::Int(7)).ok());
  CHECK(s.innodb_lock_wait_timeout_s() == 7);
  REQUIRE(s.Set("innodb_lock_wait_timeout", Value::Int(0)).ok());  // clamped to the minimum
  CHECK(s.innodb_lock_wait_timeout_s() == 1);

  CHECK(*s.Get("sql_mode") == Str("ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION"));
  CHECK(s.sql_mode().only_full_group_by);
  CHECK(!s.sql_mode().ansi_quotes);
  // Normalised to MySQL's order and case; the flags say what is in force.
  REQUIRE(s.Set("sql_mode", Str("no_engine_substitution,strict_trans_tables, ansi_quotes")).ok());
  CHECK(*s.Get("sql_mode") == Str("ANSI_QUOTES,STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION"));
  CHECK(s.sql_mode().ansi_quotes);
  CHECK(!s.sql_mode().only_full_group_by);
  CHECK(s.sql_mode().strict);
  CHECK(s.sql_mode().no_engine_substitution);
  // A mode minnow does not implement is refused by name, the value kept.
  SqlStatus bad = s.Set(
      "sql_mode", Str("STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"));
  REQUIRE(!bad.ok());
  CHECK(bad.error().message ==
        "Variable 'sql_mode' can't be set to the value of 'ERROR_FOR_DIVISION_BY_ZERO'");
  CHECK(*s.Get("sql_mode") == Str("ANSI_QUOTES,STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION"));
  // Non-strict modes, and none at all.
  REQUIRE(s.Set("sql_mode", Str("")).ok());
  CHECK(*s.Get("sql_mode") == Str(""));
  CHECK(!s.sql_mode().strict);
  CHECK(!s.sql_mode().no_engine_substitution);
  REQUIRE(s.Set("sql_mode", Str("ansi_quotes")).ok());
  CHECK(*s.Get("sql_mode") == Str("ANSI_QUOTES"));
  CHECK(!s.sql_mode().strict);
  CHECK(s.sql_mode().ansi_quotes);
  REQUIRE(s.Set("sql_mode", Str("STRICT_ALL_TABLES,NO_UNSIGNED_SUBTRACTION,NO_ENGINE_SUBSTITUTION"))
              .ok());
  CHECK(s.sql_mode().strict_all_tables);
  CHECK(s.sql_mode().strict);
  CHECK(s.sql_mode().no_unsigned_subtraction);
  CHECK(!s.sql_mode().ansi_quotes);
  REQUIRE(s.Set("sql_mode", Str("DEFAULT")).ok());
  CHECK(s.Get("sql_mode")->as_string().find("STRICT_TRANS_TABLES") != std::string::npos);
  CHECK(!s.sql_mode().strict_all_tables);  // STRICT_TRANS_TABLES alone
  CHECK(!s.sql_mode().no_unsigned_subtraction);
  CHECK(s.sql_mode().only_full_group_by);
  // A new session's flags are its sql_mode's, the global value.
  REQUIRE(
      globals.SetGlobal("sql_mode", Str("PIPES_AS_CONCAT,STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION"))
          .ok());
  SessionVariables fresh = globals.NewSession();
  CHECK(fresh.sql_mode().pipes_as_concat);
  CHECK(fresh.sql_mode().strict_all_tables);
  CHECK(!fresh.sql_mode().only_full_group_by);
}

TEST_CASE("variables: progress_report_time is MariaDB's, 0..2^32-1, default 5",
          "[sql][variables]") {
  SystemVariables globals{Options{}};
  CHECK(*globals.GetGlobal("progress_report_time") == Value::Int(5));
  SessionVariables s = globals.NewSession();
  CHECK(*s.Get("progress_report_time") == Value::Int(5));
  REQUIRE(s.Set("progress_report_time", Value::Int(-3)).ok());
  CHECK(*s.Get("progress_report_time") == Value::Int(0));
  REQUIRE(s.Set("progress_report_time", Value::Int(int64_t{1} << 40)).ok());
  CHECK(*s.Get("progress_report_time") == Value::Int(4294967295));
  CHECK(!s.Set("progress_report_time", Str("soon")).ok());
  REQUIRE(globals.SetGlobal("progress_report_time", Value::Int(1)).ok());
  CHECK(*s.Get("progress_report_time") == Value::Int(4294967295));  // the session keeps its own
  CHECK(*globals.NewSession().Get("progress_report_time") == Value::Int(1));
}

TEST_CASE("variables: MySQL's errors and messages", "[sql][variables]") {
  SystemVariables globals(Options{});
  SessionVariables s = globals.NewSession();
  auto error = [](const SqlStatus& st) {
    return std::pair<uint16_t, std::string>(st.error().code, st.error().message);
  };

  CHECK(error(s.Set("no_such_var", Value::Int(1))) ==
        std::pair<uint16_t, std::string>(1193, "Unknown system variable 'no_such_var'"));
  CHECK(s.Get("no_such_var").error().code == 1193);
  CHECK(globals.GetGlobal("nope").error().message == "Unknown system variable 'nope'");
  CHECK(error(s.Set("autocommit", Value::Int(2))) ==
        std::pair<uint16_t, std::string>(1231,
                                         "Variable 'autocommit' can't be set to the value of '2'"));
  CHECK(error(s.Set("autocommit", Str("maybe"))).second ==
        "Variable 'autocommit' can't be set to the value of 'maybe'");
  CHECK(error(s.Set("autocommit", Value::Null())).second ==
        "Variable 'autocommit' can't be set to the value of 'NULL'");
  CHECK(error(s.Set("transaction_isolation", Str("snapshot"))).second ==
        "Variable 'transaction_isolation' can't be set to the value of 'snapshot'");
  CHECK(error(s.Set("sql_mode", Str("STRICT_TRANS_TABLES,BOGUS"))).second ==
        "Variable 'sql_mode' can't be set to the value of 'BOGUS'");
  CHECK(error(s.Set("innodb_lock_wait_timeout", Str("ten"))) ==
        std::pair<uint16_t, std::string>(
            1232, "Incorrect argument type to variable 'innodb_lock_wait_timeout'"));
  CHECK(error(s.Set("autocommit", Value::Double(0.5))).first == 1232);
  CHECK(error(s.Set("concurrent_insert", Value::Int(1))) ==
        std::pair<uint16_t, std::string>(
            1229,
            "Variable 'concurrent_insert' is a GLOBAL variable and should be set with SET "
            "GLOBAL"));
  CHECK(error(s.Set("innodb_page_size", Value::Int(4096))) ==
        std::pair<uint16_t, std::string>(1238,
                                         "Variable 'innodb_page_size' is a read only variable"));
  CHECK(error(globals.SetGlobal("version", Str("9"))).first == 1238);
  CHECK(error(globals.SetGlobal("concurrent_insert", Value::Int(3))).first == 1231);
  CHECK(error(globals.SetGlobal("concurrent_insert", Str("sometimes"))).first == 1231);
  // A failed SET changed nothing.
  CHECK(s.autocommit());
  CHECK(*globals.GetGlobal("concurrent_insert") == Str("AUTO"));
}

TEST_CASE("variables: SET GLOBAL reaches new sessions, not existing ones", "[sql][variables]") {
  SystemVariables globals(Options{});
  SessionVariables before = globals.NewSession();
  REQUIRE(globals.SetGlobal("innodb_lock_wait_timeout", Value::Int(3)).ok());
  REQUIRE(globals.SetGlobal("transaction_isolation", Str("READ-COMMITTED")).ok());
  REQUIRE(globals.SetGlobal("concurrent_insert", Str("always")).ok());
  CHECK(before.innodb_lock_wait_timeout_s() == 50);
  CHECK(before.isolation() == IsolationLevel::kRepeatableRead);
  // A global-only variable has one value, seen by every session at once.
  CHECK(*before.Get("concurrent_insert") == Str("ALWAYS"));

  SessionVariables after = globals.NewSession();
  CHECK(after.innodb_lock_wait_timeout_s() == 3);
  CHECK(after.isolation() == IsolationLevel::kReadCommitted);

  REQUIRE(globals.SetGlobal("concurrent_insert", Value::Int(0)).ok());
  CHECK(*globals.GetGlobal("concurrent_insert") == Str("NEVER"));
  REQUIRE(globals.SetGlobal("concurrent_insert", Str("DEFAULT")).ok());
  CHECK(*globals.GetGlobal("concurrent_insert") == Str("AUTO"));
  // SET SESSION x = DEFAULT takes the global value.
  REQUIRE(before.Set("innodb_lock_wait_timeout", Str("DEFAULT")).ok());
  CHECK(before.innodb_lock_wait_timeout_s() == 3);
}

TEST_CASE("variables: SHOW VARIABLES lists sorted, bools as ON/OFF", "[sql][variables]") {
  SystemVariables globals(Options{});
  SessionVariables s = globals.NewSession();
  REQUIRE(s.Set("autocommit", Value::Int(0)).ok());
  REQUIRE(s.Set("innodb_lock_wait_timeout", Value::Int(9)).ok());
  const auto session = s.List();
  const auto global = globals.ListGlobal();
  CHECK(std::is_sorted(session.begin(), session.end()));
  CHECK(std::is_sorted(global.begin(), global.end()));
  CHECK(Listed(session, "autocommit") == "OFF");
  CHECK(Listed(global, "autocommit") == "ON");
  CHECK(Listed(session, "innodb_lock_wait_timeout") == "9");
  CHECK(Listed(global, "innodb_lock_wait_timeout") == "50");
  CHECK(Listed(session, "innodb_deadlock_detect") == "ON");
  CHECK(Listed(session, "transaction_isolation") == "REPEATABLE-READ");
  CHECK(Listed(session, "innodb_page_size") == "16384");
}

}  // namespace
}  // namespace minnow::sql
