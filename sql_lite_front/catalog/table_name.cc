#include "sql_lite_front/catalog/table_name.h"

#include "sql_lite_front/parse/lexer.h"

namespace minnow::sql {

bool IsSystemSchema(std::string_view schema) {
  return EqualsNoCase(schema, "information_schema") || EqualsNoCase(schema, "performance_schema");
}

bool IsSystemDatabase(std::string_view name) {
  for (const char* s : kSystemDatabases)
    if (EqualsNoCase(name, s)) return true;
  return false;
}

bool SameTable(const TableName& a, const TableName& b) {
  return EqualsNoCase(a.schema, b.schema) && EqualsNoCase(a.name, b.name);
}

std::string QualifiedName(const TableName& t) { return t.schema + "." + t.name; }

std::string TableKey(const TableName& t) { return ToLowerAscii(QualifiedName(t)); }

}  // namespace minnow::sql
