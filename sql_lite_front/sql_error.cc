// SQLSTATEs and the mysql client's error line; engine Status -> MySQL error.

#include "sql_lite_front/sql_error.h"

#include <string>

namespace minnow::sql {

const char* SqlState(ErrorCode code) {
  switch (code) {
    case kErAlterOperationNotSupportedReason:
      return "0A000";
    case kErTableExists:
      return "42S01";
    case kErBadTable:
    case kErUnknownTable:
    case kErNoSuchTable:
      return "42S02";
    case kErNonUniq:
    case kErDupEntry:
    case kErBadNull:
      return "23000";
    case kErBadDb:
    case kErWrongDbName:
    case kErWrongFieldSpec:
    case kErInvalidDefault:
    case kErCantRemoveAllFields:
    case kErWrongFieldWithGroup:
    case kErTooLongIdent:
    case kErDupKeyName:
    case kErParse:
    case kErEmptyQuery:
    case kErNonUniqTable:
    case kErMultiplePriKey:
    case kErTooLongKey:
    case kErKeyColumnDoesNotExist:
    case kErWrongAutoKey:
    case kErCantDropFieldOrKey:
    case kErWrongTableName:
    case kErTooManyKeyParts:
    case kErMixOfGroupFuncAndFields:
    case kErWrongColumnName:
    case kErBlobKeyWithoutLength:
    case kErKeyDoesNotExist:
    case kErWrongValueForVar:
    case kErWrongTypeForVar:
    case kErNotSupportedYet:
    case kErUnknownCharacterSet:
    case kErCollationCharsetMismatch:
    case kErUnknownStorageEngine:
    case kErSpDoesNotExist:
    case kErWrongParamCountToNativeFct:
    case kErTooManyRows:
    case kErSpUndeclaredVar:
    case kErTooBigScale:
    case kErTooBigPrecision:
    case kErMBiggerThanD:
    case kErTablenameNotAllowedHere:
    case kErDerivedMustHaveAlias:
    case kErCantUseOptionHere:
      return "42000";
    case kErOperandColumns:
    case kErSubqueryNo1Row:
    case kErWrongNumberOfColumnsInSelect:
      return "21000";
    case kErSpFetchNoData:
      return "02000";
    case kErNoDb:
      return "3D000";
    case kErDupFieldName:
      return "42S21";
    case kErBadField:
      return "42S22";
    case kErWrongValueCount:
      return "21S01";
    case kErLockDeadlock:
      return "40001";
    case kErOutOfRange:
    case kErDataOutOfRange:
      return "22003";
    case kErTruncatedWrongValue:
      return "22007";
    case kErDataTooLong:
      return "22001";
    case kErWarnDataTruncated:
      return "01000";
    case kErDivisionByZero:
      return "22012";
    case kErQueryInterrupted:
      return "70100";
    case kErCantChangeTxCharacteristics:
      return "25001";
    case kErNetPacketTooLarge:
      return "08S01";
    default:
      return "HY000";
  }
}

std::string SqlError::ToString() const {
  std::string out = "ERROR ";
  out += std::to_string(code);
  out += " (";
  out += sqlstate();
  out += "): ";
  out += message;
  return out;
}

SqlError FromStatus(const Status& st) {
  switch (st.code()) {
    case Code::kLockWaitTimeout:
      return SqlErr(kErLockWaitTimeout, "Lock wait timeout exceeded; try restarting transaction");
    case Code::kDeadlock:
      return SqlErr(kErLockDeadlock,
                    "Deadlock found when trying to get lock; try restarting transaction");
    case Code::kLockNoWait:
      return SqlErr(kErLockNowait,
                    "Statement aborted because lock(s) could not be acquired immediately and "
                    "NOWAIT is set.");
    case Code::kDuplicateKey:
      return SqlErr(kErDupEntry, st.message());
    case Code::kAborted:
      return SqlErr(kErQueryInterrupted, "Query execution was interrupted");
    case Code::kRecordChanged:
      return SqlErr(kErCheckread, st.message());
    case Code::kReadOnly:
      return SqlErr(kErOptionPreventsStatement,
                    "The MySQL server is running with the --read-only option so it cannot "
                    "execute this statement");
    default:
      return SqlErr(kErUnknownError, st.ToString());
  }
}

SqlError FromStatus(const Status& st, std::string_view table) {
  if (st.code() == Code::kRecordChanged) {
    return SqlErr(kErCheckread, "Record has changed since last read in table '", table, "'");
  }
  return FromStatus(st);
}

}  // namespace minnow::sql
