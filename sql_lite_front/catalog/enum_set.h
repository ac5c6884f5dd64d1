#pragma once
// ENUM and SET columns: their members' checks, their type's text and storing values into them
// (table_def.h states the rules CoerceToColumn follows).

#include <cstdint>
#include <string>

#include "sql_lite_front/catalog/table_def.h"
#include "sql_lite_front/sql_error.h"
#include "sql_lite_front/value.h"

namespace minnow::sql {

// "enum('a','b')" / "set('a','b')" as SHOW CREATE TABLE and information_schema print it.
std::string EnumSetTypeString(const ColumnDef& col);
// Checks an ENUM or SET column's members once its collation is known (MySQL's
// check_duplicates_in_interval and prepare_set_field): two members equal under the collation
// are 1291 "Column 'e' has duplicated value 'a' in ENUM"; a SET member with a ',' is 1367;
// more than 64 SET members 1097, more than 65535 ENUM members 3504.
SqlStatus CheckEnumSetMembers(const ColumnDef& col);
// The value `v` stored into ENUM or SET column `col` (CoerceToColumn's rules, table_def.h).
SqlResult<Value> CoerceToEnumOrSet(const ColumnDef& col, const Value& v, uint64_t row,
                                   const StoreRules& rules);
// An ENUM column's first member, a SET's '' (the implicit default of a NOT NULL one).
Value EnumSetImplicitDefault(const ColumnDef& col);

}  // namespace minnow::sql
