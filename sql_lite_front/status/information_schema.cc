// information_schema.TABLES / COLUMNS / SCHEMATA / STATISTICS from catalog_figures.h.

#include "sql_lite_front/status/information_schema.h"

#include <algorithm>

#include "sql_lite_front/catalog/table_catalog.h"
#include "sql_lite_front/parse/lexer.h"
#include "sql_lite_front/status/catalog_figures.h"
#include "sql_lite_front/status/status_views_internal.h"

namespace minnow::sql {
namespace {

SqlResult<SystemTable> Tables(ExecContext& ctx) {
  SQL_ASSIGN_OR_RETURN(std::vector<TableFigures> tables,
                       GatherTableFigures(ctx, [](const TableName&) { return true; }));
  SystemTable t;
  t.columns = {"TABLE_CATALOG",  "TABLE_SCHEMA",    "TABLE_NAME",      "TABLE_TYPE",
               "ENGINE",         "VERSION",         "ROW_FORMAT",      "TABLE_ROWS",
               "AVG_ROW_LENGTH", "DATA_LENGTH",     "MAX_DATA_LENGTH", "INDEX_LENGTH",
               "DATA_FREE",      "AUTO_INCREMENT",  "CREATE_TIME",     "UPDATE_TIME",
               "CHECK_TIME",     "TABLE_COLLATION", "CHECKSUM",        "CREATE_OPTIONS",
               "TABLE_COMMENT"};
  for (TableFigures& f : tables) {
    t.rows.push_back(Row{
        Str("def"),
        Str(f.schema),
        Str(f.name),
        Str("BASE TABLE"),
        Str(f.engine),
        Int(10),
        Str(f.row_format),
        Int(f.rows),
        Int(f.avg_row_length),
        Int(f.data_length),
        Int(f.max_data_length),
        Int(f.index_length),
        Int(f.data_free),
        f.auto_increment.has_value() ? Int(*f.auto_increment) : Value::Null(),
        Str(FormatLocalTime(f.create_time)),
        Value::Null(),  // UPDATE_TIME
        Value::Null(),  // CHECK_TIME
        Str(f.collation),
        Value::Null(),  // CHECKSUM
        Str(f.create_options),
        Str(""),
    });
  }
  return t;
}

bool IsCharacterType(ColumnType t) {
  return t == ColumnType::kChar || t == ColumnType::kVarchar || t == ColumnType::kText ||
         t == ColumnType::kEnum || t == ColumnType::kSet;
}

// Bytes per character of a CHAR/VARCHAR/TEXT column's charset (MySQL's mbmaxlen).
uint64_t BytesPerCharacter(const ColumnDef& col) {
  const Collation& c = col.EffectiveCollation();
  if (c.kind == Collation::Kind::kBytes) return 1;
  return c.charset == "utf8mb3" ? 3 : 4;
}

// CHARACTER_MAXIMUM_LENGTH / CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION / NUMERIC_SCALE as
// MySQL 8.0 gives them for each type (integers: the display width less the sign, BIGINT
// UNSIGNED 20; DOUBLE 22 with no scale; TEXT and BLOB 65,535 bytes).
struct TypeFigures {
  Value max_length, octet_length, precision, scale;
};

TypeFigures FiguresOf(const ColumnDef& col) {
  TypeFigures f{Value::Null(), Value::Null(), Value::Null(), Value::Null()};
  switch (col.type) {
    case ColumnType::kTinyInt:
      f.precision = Int(3);
      break;
    case ColumnType::kSmallInt:
      f.precision = Int(5);
      break;
    case ColumnType::kMediumInt:
      f.precision = Int(7);
      break;
    case ColumnType::kInt:
      f.precision = Int(10);
      break;
    case ColumnType::kBigInt:
      f.precision = Int(col.is_unsigned ? 20 : 19);
      break;
    case ColumnType::kDouble:
      f.precision = Int(22);
      return f;  // no scale without DOUBLE(M,D)
    case ColumnType::kChar:
    case ColumnType::kVarchar:
      f.max_length = Int(col.length);
      f.octet_length = Int(col.length * BytesPerCharacter(col));
      return f;
    case ColumnType::kText:
      f.max_length = Int(65535 / BytesPerCharacter(col));
      f.octet_length = Int(65535);
      return f;
    case ColumnType::kBlob:
      f.max_length = Int(65535);
      f.octet_length = Int(65535);
      return f;
    case ColumnType::kDate:
    case ColumnType::kDateTime:
    case ColumnType::kTimestamp:
    case ColumnType::kTime:
    case ColumnType::kYear:
      return f;  // DATETIME_PRECISION instead (YEAR: neither)
      return f;  // DATETIME_PRECISION instead
    case ColumnType::kDecimal:
      f.precision = Int(col.length);
      f.scale = Int(col.scale);
      return f;
    case ColumnType::kEnum:
    case ColumnType::kSet: {
      // ENUM: its longest member; SET: all of its members with their commas.
      int64_t chars = 0;
      for (const std::string& name : col.members->names) {
        const auto n = static_cast<int64_t>(Utf8Length(name));
        chars = col.type == ColumnType::kSet ? chars + n : std::max(chars, n);
      }
      if (col.type == ColumnType::kSet && !col.members->names.empty()) {
        chars += static_cast<int64_t>(col.members->names.size()) - 1;
      }
      f.max_length = Int(chars);
      f.octet_length = Int(chars * BytesPerCharacter(col));
      return f;
    }
  }
  f.scale = Int(0);
  return f;
}

SqlResult<SystemTable> Columns(ExecContext& ctx) {
  SystemTable t;
  t.columns = {"TABLE_CATALOG",
               "TABLE_SCHEMA",
               "TABLE_NAME",
               "COLUMN_NAME",
               "ORDINAL_POSITION",
               "COLUMN_DEFAULT",
               "IS_NULLABLE",
               "DATA_TYPE",
               "CHARACTER_MAXIMUM_LENGTH",
               "CHARACTER_OCTET_LENGTH",
               "NUMERIC_PRECISION",
               "NUMERIC_SCALE",
               "DATETIME_PRECISION",
               "CHARACTER_SET_NAME",
               "COLLATION_NAME",
               "COLUMN_TYPE",
               "COLUMN_KEY",
               "EXTRA",
               "PRIVILEGES",
               "COLUMN_COMMENT",
               "GENERATION_EXPRESSION",
               "SRS_ID"};
  for (const TableName& name : ctx.catalog->TableNames()) {
    auto table = ctx.catalog->Find(name);
    if (table == nullptr) continue;  // dropped meanwhile
    const TableDef& def = table->def;
    for (uint32_t c = 0; c < def.columns.size(); ++c) {
      const ColumnDef& col = def.columns[c];
      TypeFigures f = FiguresOf(col);
      t.rows.push_back(Row{
          Str("def"),
          Str(def.schema),
          Str(def.name),
          Str(col.name),
          Int(c + 1),
          OptStr(ColumnDefaultText(col)),
          Str(col.nullable ? "YES" : "NO"),
          Str(ColumnTypeName(col.type)),
          std::move(f.max_length),
          std::move(f.octet_length),
          std::move(f.precision),
          std::move(f.scale),
          col.type == ColumnType::kDateTime || col.type == ColumnType::kTimestamp ||
                  col.type == ColumnType::kTime
              ? Int(col.length)
              : Value::Null(),  // DATETIME_PRECISION
          IsCharacterType(col.type) ? Str(std::string(col.EffectiveCollation().charset))
                                    : Value::Null(),
          OptStr(ColumnCollationName(col)),
          Str(col.BaseTypeString()),
          Str(KeyFlag(def, c)),
          Str(ColumnExtra(col)),
          Str("select,insert,update,references"),
          Str(""),        // COLUMN_COMMENT
          Str(""),        // GENERATION_EXPRESSION
          Value::Null(),  // SRS_ID
      });
    }
  }
  return t;
}

SystemTable Schemata(const TableCatalog& catalog) {
  SystemTable t;
  t.columns = {"CATALOG_NAME",           "SCHEMA_NAME", "DEFAULT_CHARACTER_SET_NAME",
               "DEFAULT_COLLATION_NAME", "SQL_PATH",    "DEFAULT_ENCRYPTION"};
  for (const DatabaseDef& d : ListedDatabases(catalog)) {
    t.rows.push_back(
        Row{Str("def"), Str(d.name), Str(d.charset), Str(d.collation), Value::Null(), Str("NO")});
  }
  return t;
}

SqlResult<SystemTable> Statistics(ExecContext& ctx) {
  SystemTable t;
  t.columns = {"TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME",  "NON_UNIQUE", "INDEX_SCHEMA",
               "INDEX_NAME",    "SEQ_IN_INDEX", "COLUMN_NAME", "COLLATION",  "CARDINALITY",
               "SUB_PART",      "PACKED",       "NULLABLE",    "INDEX_TYPE", "COMMENT",
               "INDEX_COMMENT", "IS_VISIBLE",   "EXPRESSION"};
  for (const TableName& name : ctx.catalog->TableNames()) {
    auto table = ctx.catalog->Find(name);
    if (table == nullptr) continue;  // dropped meanwhile
    const TableDef& def = table->def;
    for (const IndexPart& part : IndexParts(def)) {
      const ColumnDef& col = def.columns[part.column];
      t.rows.push_back(Row{
          Str("def"), Str(def.schema), Str(def.name), Int(part.unique ? 0 : 1), Str(def.schema),
          Str(part.key_name), Int(part.seq), Str(col.name), Str("A"),
          Value::Null(),  // CARDINALITY: SHOW INDEX prints NULL (minnow keeps no estimate)
          Value::Null(),  // SUB_PART
          Value::Null(),  // PACKED
          Str(col.nullable ? "YES" : ""), Str("BTREE"), Str(""), Str(""), Str("YES"),
          Value::Null(),  // EXPRESSION
      });
    }
  }
  return t;
}

// minnow has no triggers (CREATE TRIGGER is refused): MySQL 8.0's columns, no rows. Dump tools
// ask it for each table's triggers.
SystemTable Triggers() {
  SystemTable t;
  t.columns = {"TRIGGER_CATALOG",
               "TRIGGER_SCHEMA",
               "TRIGGER_NAME",
               "EVENT_MANIPULATION",
               "EVENT_OBJECT_CATALOG",
               "EVENT_OBJECT_SCHEMA",
               "EVENT_OBJECT_TABLE",
               "ACTION_ORDER",
               "ACTION_CONDITION",
               "ACTION_STATEMENT",
               "ACTION_ORIENTATION",
               "ACTION_TIMING",
               "ACTION_REFERENCE_OLD_TABLE",
               "ACTION_REFERENCE_NEW_TABLE",
               "ACTION_REFERENCE_OLD_ROW",
               "ACTION_REFERENCE_NEW_ROW",
               "CREATED",
               "SQL_MODE",
               "DEFINER",
               "CHARACTER_SET_CLIENT",
               "COLLATION_CONNECTION",
               "DATABASE_COLLATION"};
  return t;
}

}  // namespace

std::vector<DatabaseDef> ListedDatabases(const TableCatalog& catalog) {
  std::vector<DatabaseDef> out = catalog.Databases();
  for (const char* name : kSystemDatabases) {
    DatabaseDef d{name};
    if (std::string_view(name) == "information_schema") {  // utf8mb3 in MySQL 8.0
      d.charset = "utf8mb3";
      d.collation = "utf8mb3_general_ci";
    }
    out.push_back(std::move(d));
  }
  std::sort(out.begin(), out.end(), [](const DatabaseDef& a, const DatabaseDef& b) {
    return ToLowerAscii(a.name) < ToLowerAscii(b.name);
  });
  return out;
}

SqlResult<std::optional<SystemTable>> ReadCatalogView(ExecContext& ctx, std::string_view table) {
  std::optional<SystemTable> t;
  if (table == "tables") {
    SQL_ASSIGN_OR_RETURN(t, Tables(ctx));
  } else if (table == "columns") {
    SQL_ASSIGN_OR_RETURN(t, Columns(ctx));
  } else if (table == "schemata") {
    t = Schemata(*ctx.catalog);
  } else if (table == "statistics") {
    SQL_ASSIGN_OR_RETURN(t, Statistics(ctx));
  } else if (table == "triggers") {
    t = Triggers();
  }
  if (t.has_value()) t->view_names = true;
  return t;
}

}  // namespace minnow::sql
