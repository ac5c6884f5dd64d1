#pragma once
// Errors of the SQL front, as MySQL reports them: a number, an SQLSTATE and a message.
//   "ERROR 1146 (42S02): Table 'sample' doesn't exist"
// A statement that returns an error has changed nothing (the session rolls the statement back;
// a deadlock rolls back the whole transaction, as InnoDB does).

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "minnow/status.h"

namespace minnow::sql {

// MySQL's error numbers (include/mysqld_error.h) that minnow returns.
enum ErrorCode : uint16_t {
  kHaErrUnsupported = 138,          // HY000 (a handler error, shown as a warning's code)
  kErDbCreateExists = 1007,         // HY000 Can't create database '%s'; database exists
  kErDbDropExists = 1008,           // HY000 Can't drop database '%s'; database doesn't exist
  kErNoDb = 1046,                   // 3D000 No database selected
  kErBadDb = 1049,                  // 42000 Unknown database '%s'
  kErTableExists = 1050,            // 42S01 Table '%s' already exists
  kErBadTable = 1051,               // 42S02 Unknown table '%s'
  kErNonUniq = 1052,                // 23000 Column '%s' in %s is ambiguous
  kErWrongFieldWithGroup = 1055,    // 42000 Expression #%u of %s is not in GROUP BY clause and ...
  kErTooLongIdent = 1059,           // 42000 Identifier name '%s' is too long
  kErDupFieldName = 1060,           // 42S21 Duplicate column name '%s'
  kErDupKeyName = 1061,             // 42000 Duplicate key name '%s'
  kErDupEntry = 1062,               // 23000 Duplicate entry '%s' for key '%s'
  kErParse = 1064,                  // 42000 You have an error in your SQL syntax; ...
  kErEmptyQuery = 1065,             // 42000 Query was empty
  kErNonUniqTable = 1066,           // 42000 Not unique table/alias: '%s'
  kErMultiplePriKey = 1068,         // 42000 Multiple primary key defined
  kErTooLongKey = 1071,             // 42000 Specified key was too long; max key length is %d bytes
  kErKeyColumnDoesNotExist = 1072,  // 42000 Key column '%s' doesn't exist in table
  kErWrongAutoKey = 1075,  // 42000 Incorrect table definition; there can be only one auto column
                           // and it must be defined as a key
  kErCantDropFieldOrKey = 1091,  // 42000 Can't DROP '%s'; check that column/key exists
  kErNoSuchThread = 1094,        // HY000 Unknown thread id: %lu
  kErNoTablesUsed = 1096,        // HY000 No tables used
  kErTableNotLockedForWrite =
      1099,                  // HY000 Table '%s' was locked with a READ lock and can't be updated
  kErTableNotLocked = 1100,  // HY000 Table '%s' was not locked with LOCK TABLES
  kErWrongDbName = 1102,     // 42000 Incorrect database name '%s'
  kErWrongTableName = 1103,  // 42000 Incorrect table name '%s'
  kErUnknownError =
      1105,  // HY000 Unknown error (minnow: an internal or I/O error, said in the message)
  kErUnknownTable = 1109,             // 42S02 Unknown table '%s' in %s
  kErFieldSpecifiedTwice = 1110,      // 42000 Column '%s' specified twice (SqlState: HY000 still)
  kErInvalidGroupFuncUse = 1111,      // HY000 Invalid use of group function
  kErTooManyKeyParts = 1070,          // 42000 Too many key parts specified; max %d parts allowed
  kErWrongValueCount = 1136,          // 21S01 Column count doesn't match value count at row %ld
  kErMixOfGroupFuncAndFields = 1140,  // 42000 In aggregated query without GROUP BY, expression ...
  kErWrongColumnName = 1166,          // 42000 Incorrect column name '%s'
  kErBlobKeyWithoutLength =
      1170,  // 42000 BLOB/TEXT column '%s' used in key specification without a key length
  kErKeyDoesNotExist = 1176,        // 42000 Key '%s' doesn't exist in table '%s'
  kErUnknownSystemVariable = 1193,  // HY000 Unknown system variable '%s'
  kErCheckread = 1020,              // HY000 Record has changed since last read in table '%s'
  kErLockWaitTimeout = 1205,        // HY000 Lock wait timeout exceeded; try restarting transaction
  kErLockTableFull = 1206,          // HY000 The total number of locks exceeds the lock table size
  kErWrongArguments = 1210,         // HY000 Incorrect arguments to %s
  kErLockDeadlock =
      1213,  // 40001 Deadlock found when trying to get lock; try restarting transaction
  kErWrongValueForVar = 1231,  // 42000 Variable '%s' can't be set to the value of '%s'
  kErWrongTypeForVar = 1232,   // 42000 Incorrect argument type to variable '%s'
  kErNotSupportedYet = 1235,   // 42000 This version of minnow doesn't yet support '%s'
  kErIncorrectGlobalLocalVar =
      1229,  // HY000 Variable '%s' is a GLOBAL variable and should be set with SET GLOBAL
  kErVariableIsReadonly = 1238,       // HY000 Variable '%s' is a read only variable
  kErOutOfRange = 1264,               // 22003 Out of range value for column '%s' at row %ld
  kErUnknownStorageEngine = 1286,     // 42000 Unknown storage engine '%s'
  kErOptionPreventsStatement = 1290,  // HY000 The MySQL server is running with the %s option so it
                                      // cannot execute this statement
  kErTruncatedWrongValue = 1292,      // 22007 Truncated incorrect %s value: '%s'
  kErWrongValue = 1525,               // HY000 Incorrect %s value: '%s'
  kErQueryInterrupted = 1317,         // 70100 Query execution was interrupted
  kErTruncatedWrongValueForField =
      1366,                     // HY000 Incorrect %s value: '%s' for column '%s' at row %ld
  kErNoDefaultForField = 1364,  // HY000 Field '%s' doesn't have a default value
  kErDataTooLong = 1406,        // 22001 Data too long for column '%s' at row %ld
  kErBadNull = 1048,            // 23000 Column '%s' cannot be null
  kErBadField = 1054,           // 42S22 Unknown column '%s' in '%s'
  kErNoSuchTable = 1146,        // 42S02 Table '%s.%s' doesn't exist
  kErCantChangeTxCharacteristics = 1568,  // 25001 Transaction characteristics can't be changed
                                          // while a transaction is in progress
  kErWarningNotCompleteRollback = 1196,   // (a warning) Some non-transactional changed tables
                                          // couldn't be rolled back
  kErLockOrActiveTransaction = 1192,      // HY000 Can't execute the given command because you have
                                          // active locked tables or an active transaction
  kErDivisionByZero = 1365,               // 22012 Division by 0
  kErWrongFieldSpec = 1063,               // 42000 Incorrect column specifier for column '%s'
  kErInvalidDefault = 1067,               // 42000 Invalid default value for '%s'
  kErWrongValueForType = 1411,            // HY000 Incorrect %s value: '%s' for function %s
  kErInvalidYearColumnLength = 1818,      // HY000 Supports only YEAR or YEAR(4) column.
  kErInvalidOnUpdate = 1294,              // HY000 Invalid ON UPDATE clause for '%s' column
  kErCantRemoveAllFields = 1090,    // 42000 You can't delete all columns with ALTER TABLE; use
                                    // DROP TABLE instead
  kErWarnUsingOtherHandler = 1266,  // (a warning) Using storage engine %s for table '%s'
  kErWarnAllowedPacketOverflowed = 1301,  // Result of %s() was larger than max_allowed_packet
                                          // (%ld) - truncated (MySQL: a warning and NULL)
  kErSpDoesNotExist = 1305,               // 42000 FUNCTION test.%s does not exist
  kErWrongParamCountToNativeFct = 1582,   // 42000 Incorrect parameter count in the call to
                                          // native function '%s'
  kErWrongParametersToNativeFct = 1583,   // 42000 Incorrect parameters in the call to native
                                          // function '%s'
  kErUnknownCharacterSet = 1115,          // 42000 Unknown character set: '%s'
  kErNetPacketTooLarge = 1153,         // 08S01 Got a packet bigger than 'max_allowed_packet' bytes
  kErCollationCharsetMismatch = 1253,  // 42000 COLLATION '%s' is not valid for CHARACTER SET '%s'
  kErCantAggregate2Collations = 1267,  // HY000 Illegal mix of collations (%s,%s) and (%s,%s) ...
  kErAlterOperationNotSupportedReason = 1846,  // 0A000 %s is not supported. Reason: %s. Try %s.
  kErTooManyRows = 1172,                       // 42000 Result consisted of more than one row
  kErWrongNumberOfColumnsInSelect = 1222,      // 21000 The used SELECT statements have a ...
  kErSpFetchNoData = 1329,                     // 02000 No data - zero rows fetched, ...
  kErWarnDeprecatedSyntax = 1287,              // HY000 '%s' is deprecated and will be ...
  kErSpUndeclaredVar = 1327,                   // 42000 Undeclared variable: %s
  kErTooBigScale = 1425,                       // 42000 Too big scale %d specified for column ...
  kErUnknownTimeZone = 1298,                   // HY000 Unknown or incorrect time zone: '%s'
  kErDatetimeFunctionOverflow = 1441,          // 22008 Datetime function: %s field overflow
  kErTooBigPrecision = 1426,                   // 42000 Too-big precision %d specified for ...
  kErMBiggerThanD = 1427,                      // 42000 For float(M,D), double(M,D) or ...
  kErInvalidArgumentForLogarithm = 3020,       // (a warning) Invalid argument for logarithm
  kErDataOutOfRange = 1690,                    // 22003 %s value is out of range in '%s'
  kErUnknownCollation = 1273,                  // HY000 Unknown collation: '%s'
  kErDuplicatedValueInType = 1291,             // HY000 Column '%s' has duplicated value '%s' in %s
  kErTooBigSet = 1097,                         // HY000 Too many strings for column %s and SET
  kErTooBigEnum = 3504,                        // HY000 Too many enumeration values for column %s.
  kErIllegalValueForType = 1367,               // 22007 Illegal %s '%s' value found during parsing
  kErWarnDataTruncated = 1265,    // 01000 Data truncated for column '%s' at row %ld (mostly a
                                  // warning; an error in strict mode)
  kErUnresolvedTableLock = 3568,  // HY000 Unresolved table name %s in locking clause.
  kErDuplicateTableLock = 3569,   // HY000 Table %s appears in multiple locking clauses.
  kErLockNowait = 3572,           // HY000 Statement aborted because lock(s) could not be acquired
                                  // immediately and NOWAIT is set.

  // SELECT DISTINCT and grouping.
  kErCutValueGroupConcat = 1260,        // (a warning) Row %u was cut by GROUP_CONCAT()
  kErWrongUsage = 1221,                 // HY000 Incorrect usage of %s and %s
  kErFieldInOrderNotSelect = 3065,      // HY000 Expression #%u of ORDER BY clause is not in ...
  kErAggregateInOrderNotSelect = 3066,  // HY000 Expression #%u of ORDER BY ... aggregate ...
  kErFieldInGroupingNotGroupBy = 3602,  // HY000 Argument #%d of GROUPING function is not in ...
  kErCantUseOptionHere = 1234,          // 42000 Incorrect usage/placement of '%s'

  // UPDATE and DELETE.
  kErUpdateTableUsed = 1093,         // HY000 You can't specify target table '%s' for update in
                                     // FROM clause
  kErNonUpdatableTable = 1288,       // HY000 The target table %s of the %s is not updatable
  kErMultiUpdateKeyConflict = 1706,  // HY000 Primary key/partition key update is not allowed
                                     // since the table is updated both as '%s' and '%s'.

  // UNION and subqueries.
  kErOperandColumns = 1241,        // 21000 Operand should contain %d column(s)
  kErSubqueryNo1Row = 1242,        // 21000 Subquery returns more than 1 row
  kErDerivedMustHaveAlias = 1248,  // 42000 Every derived table must have its own alias
  // HY000 In definition of view, derived table or common table expression, SELECT list and
  // column names list have different column counts
  kErViewWrongList = 1353,
  kErTablenameNotAllowedHere = 1250,   // 42000 Table '%s' from one of the SELECTs cannot be used
                                       // in %s
  kErCantAggregateNCollations = 1271,  // HY000 Illegal mix of collations for operation '%s'
  // Loading dump files.
  kErIllegalHa = 1031,  // HY000 Table storage engine for '%s' doesn't have this option
  // (a warning) '%s' is deprecated and will be removed in a future release.
  kErWarnDeprecatedSyntaxNoReplacement = 1681,
};

// MySQL's SQLSTATE for `code` ("HY000" for one it does not know).
const char* SqlState(ErrorCode code);

struct SqlError {
  ErrorCode code = kErUnknownError;
  std::string message;
  const char* sqlstate() const { return SqlState(code); }
  // "ERROR 1146 (42S02): Table 'test.sample' doesn't exist" (the mysql client's line)
  std::string ToString() const;
};

// A condition a statement raised without failing, as SHOW WARNINGS lists it.
struct SqlWarning {
  std::string level;  // "Warning" or "Note"
  uint16_t code = 0;
  std::string message;
};

// An engine Status as MySQL would report it: kLockWaitTimeout -> 1205, kDeadlock -> 1213,
// kRecordChanged -> 1020 (with the engine's name of the table: see the overload below),
// kLockNoWait -> 3572, kDuplicateKey -> 1062 (the caller usually builds a better 1062 message
// itself), kReadOnly -> 1290 (a write to a database opened read-only, as MySQL answers with
// --read-only), anything else -> 1105 with the Status's text. REQUIRES: !st.ok().
SqlError FromStatus(const Status& st);
// FromStatus for a call on `table`'s rows: kRecordChanged (snapshot isolation) -> 1020 naming it.
SqlError FromStatus(const Status& st, std::string_view table);

// OK, or an SqlError: the status type of SqlResult<T> (status.h's Result<T, S>).
class [[nodiscard]] SqlStatus {
 public:
  SqlStatus() = default;
  SqlStatus(SqlError e)  // NOLINT(google-explicit-constructor)
      : error_(std::move(e)), ok_(false) {}
  static SqlStatus OK() { return {}; }
  // 1105 with `message`: what a Result holds when built from an OK status (a caller bug).
  static SqlStatus Internal(std::string message) {
    return SqlError{kErUnknownError, std::move(message)};
  }
  bool ok() const { return ok_; }
  const SqlError& error() const { return error_; }

 private:
  SqlError error_;
  bool ok_ = true;
};

// A T or an SqlError: ok(), value(), error(), status(), as Result<T>.
template <typename T>
using SqlResult = Result<T, SqlStatus>;

// printf-free builder: SqlErr(kErNoSuchTable, "Table 'test.", name, "' doesn't exist")
template <typename... Parts>
SqlError SqlErr(ErrorCode code, const Parts&... parts) {
  std::string msg;
  (msg.append(std::string_view(parts)), ...);
  return SqlError{code, std::move(msg)};
}

}  // namespace minnow::sql

#define SQL_RETURN_IF_ERROR(expr)                      \
  do {                                                 \
    ::minnow::sql::SqlStatus minnow_sst_ = (expr);     \
    if (!minnow_sst_.ok()) return minnow_sst_.error(); \
  } while (0)

#define SQL_ASSIGN_OR_RETURN(decl, expr) \
  SQL_ASSIGN_OR_RETURN_IMPL_(MINNOW_CONCAT_(minnow_sres_, __LINE__), decl, expr)
#define SQL_ASSIGN_OR_RETURN_IMPL_(tmp, decl, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.error();                \
  decl = std::move(tmp).value()
