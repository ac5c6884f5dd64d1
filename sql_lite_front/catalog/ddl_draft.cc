// Table drafts: CREATE TABLE's and ALTER TABLE's edits, checked as MySQL checks them.

#include <algorithm>
#include <string>

#include "minnow/db.h"
#include "sql_lite_front/catalog/ddl_internal.h"
#include "sql_lite_front/catalog/row_codec.h"
#include "sql_lite_front/parse/lexer.h"

namespace minnow::sql {
namespace {

constexpr size_t kMaxIdentifier = 64;
constexpr size_t kMaxKeyParts = 16;

std::string Unquote(std::string_view v) {
  if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front()) {
    return std::string(v.substr(1, v.size() - 2));
  }
  return std::string(v);
}

int FindDraftColumn(const TableDraft& d, std::string_view name) {
  for (size_t i = 0; i < d.columns.size(); ++i)
    if (EqualsNoCase(d.columns[i].def.name, name)) return static_cast<int>(i);
  return -1;
}

bool IndexNameTaken(const TableDraft& d, std::string_view name) {
  if (EqualsNoCase(name, "PRIMARY")) return true;
  for (const TableDraft::Index& ix : d.indexes)
    if (EqualsNoCase(ix.name, name)) return true;
  return false;
}

SqlError MultiplePrimaryKey() { return SqlErr(kErMultiplePriKey, "Multiple primary key defined"); }

SqlError NotYet(std::string_view what) {
  return SqlErr(kErNotSupportedYet, "This version of minnow doesn't yet support '", what, "'");
}

SqlError WrongAutoKey() {
  return SqlErr(kErWrongAutoKey,
                "Incorrect table definition; there can be only one auto column and it must be "
                "defined as a key");
}

SqlStatus CheckIdentifier(std::string_view name, bool column) {
  if (name.size() > kMaxIdentifier) {
    return SqlErr(kErTooLongIdent, "Identifier name '", name, "' is too long");
  }
  if (name.empty() || name.back() == ' ') {
    if (column) return SqlErr(kErWrongColumnName, "Incorrect column name '", name, "'");
    return SqlErr(kErWrongColumnName, "Incorrect index name '", name, "'");
  }
  return SqlStatus::OK();
}

// The most bytes column `c` can take in a key (row_codec.h's encoding, strings counted at
// their declared length plus the terminator, not the escaping of NUL bytes).
uint64_t MaxKeyColumnBytes(const ColumnDef& c) {
  uint64_t n = c.nullable ? 1 : 0;
  if (IsStringType(c.type)) return n + c.MaxBytes() + 2;
  return n + c.MaxBytes();
}

}  // namespace

SqlError NoSuchTable(const TableName& name) {
  return SqlErr(kErNoSuchTable, "Table '", QualifiedName(name), "' doesn't exist");
}

std::string RecordsInfo(uint64_t records, size_t warnings) {
  return "Records: " + std::to_string(records) +
         "  Duplicates: 0  Warnings: " + std::to_string(warnings);
}

TableDraft DraftOf(const TableDef& def) {
  TableDraft d;
  d.name = def.name;
  for (size_t i = 0; i < def.columns.size(); ++i) {
    d.columns.push_back(TableDraft::Column{def.columns[i], static_cast<int>(i), false});
  }
  if (!def.primary_key.empty()) {
    std::vector<std::string> pk;
    for (uint32_t c : def.primary_key) pk.push_back(def.columns[c].name);
    d.primary_key = std::move(pk);
  }
  for (const IndexDef& ix : def.indexes) {
    TableDraft::Index di{ix.name, {}, ix.unique};
    for (uint32_t c : ix.columns) di.columns.push_back(def.columns[c].name);
    d.indexes.push_back(std::move(di));
  }
  d.options = def;
  d.options.columns.clear();
  d.options.primary_key.clear();
  d.options.indexes.clear();
  d.options.core_columns = 0;  // a rebuilt table stores every column; INSTANT sets its own
  d.options.record_format = RecordFormat::kPadTextsKept;  // and in the current format
  return d;
}

SqlStatus AddDraftColumn(TableDraft* d, const ColumnSpec& spec, size_t position) {
  position = std::min(position, d->columns.size());
  d->columns.insert(d->columns.begin() + static_cast<long>(position),
                    TableDraft::Column{spec.def, -1, true});
  if (spec.primary_key) {
    if (d->primary_key.has_value()) return MultiplePrimaryKey();
    d->primary_key = std::vector<std::string>{spec.def.name};
  } else if (spec.unique) {
    // An inline UNIQUE [KEY] is a unique index named after its column, as in MySQL.
    IndexSpec unique_key;
    unique_key.unique = true;
    unique_key.columns = {spec.def.name};
    return AddDraftIndex(d, unique_key);
  }
  return SqlStatus::OK();
}

SqlStatus AddDraftIndex(TableDraft* d, const IndexSpec& spec) {
  if (spec.primary) {
    if (d->primary_key.has_value()) return MultiplePrimaryKey();
    d->primary_key = spec.columns;
    return SqlStatus::OK();
  }
  if (spec.columns.empty()) return SqlErr(kErParse, "You have an error in your SQL syntax");
  std::string name = spec.name;
  if (name.empty()) {
    // MySQL: the first column's name, then name_2, name_3, ...
    name = spec.columns[0];
    for (int n = 2; IndexNameTaken(*d, name); ++n) name = spec.columns[0] + "_" + std::to_string(n);
  } else if (IndexNameTaken(*d, name)) {
    if (EqualsNoCase(name, "PRIMARY")) {
      return SqlErr(kErWrongColumnName, "Incorrect index name '", name, "'");
    }
    return SqlErr(kErDupKeyName, "Duplicate key name '", name, "'");
  }
  d->indexes.push_back(TableDraft::Index{name, spec.columns, spec.unique});
  return SqlStatus::OK();
}

bool SubstitutesEngine(const ExecContext& ctx) {
  return ctx.session != nullptr && !ctx.session->vars.sql_mode().no_engine_substitution;
}

SqlStatus ApplyTableOption(TableDraft* d, const std::pair<std::string, std::string>& option,
                           std::vector<SqlWarning>* warnings) {
  const std::string& name = option.first;
  std::string value = Unquote(option.second);
  auto number = [&](uint64_t* out) -> SqlStatus {
    uint64_t v = 0;
    if (value.empty()) return SqlErr(kErParse, "You have an error in your SQL syntax");
    for (char c : value) {
      if (c < '0' || c > '9' || v > (UINT64_MAX - 9) / 10) {
        return SqlErr(kErWrongArguments, "Incorrect arguments to ", name);
      }
      v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    *out = v;
    return SqlStatus::OK();
  };
  if (name == "ENGINE") {
    std::string lower = ToLowerAscii(value);
    if (lower == "innodb" || lower == "default") {
      d->options.engine = "InnoDB";
    } else if (lower == "myisam") {
      d->options.engine = "MyISAM";  // the table-locking engine (a heap table)
    } else {
      SqlError unknown = SqlErr(kErUnknownStorageEngine, "Unknown storage engine '", value, "'");
      if (!d->substitute_engine) return unknown;
      warnings->push_back(SqlWarning{"Warning", unknown.code, std::move(unknown.message)});
      if (d->creating) {
        warnings->push_back(SqlWarning{
            "Warning", kErWarnUsingOtherHandler,
            "Using storage engine " + d->options.engine + " for table '" + d->name + "'"});
      }
    }
  } else if (name == "CHARSET") {
    d->options.charset = ToLowerAscii(value);
  } else if (name == "COLLATE") {
    d->options.collation = ToLowerAscii(value);
  } else if (name == "COMPRESSION") {
    std::string lower = ToLowerAscii(value);
    if (lower == "lz4") {
      d->options.compression = Compression::kLz4;
    } else if (lower == "none" || lower.empty()) {
      d->options.compression = Compression::kNone;
    } else if (lower == "zlib") {
      return NotYet("COMPRESSION='zlib'");
    } else {
      return SqlErr(kErWrongArguments, "Incorrect arguments to COMPRESSION");
    }
  } else if (name == "MAX_ROWS") {
    SQL_RETURN_IF_ERROR(number(&d->options.max_rows));
  } else if (name == "AUTO_INCREMENT") {
    uint64_t v = 0;
    SQL_RETURN_IF_ERROR(number(&v));
    d->options.auto_increment_start = std::max<uint64_t>(v, 1);
    d->auto_increment_set = true;
  }
  // ROW_FORMAT, COMMENT, KEY_BLOCK_SIZE, STATS_*, ...: accepted, nothing to keep.
  return SqlStatus::OK();
}

namespace {

// Key columns by name -> positions in `def` (1070, 1072, 1060, 1170).
SqlStatus ResolveKeyColumns(const TableDraft& d, const TableDef& def,
                            const std::vector<std::string>& names, std::vector<uint32_t>* out) {
  if (names.size() > kMaxKeyParts) {
    return SqlErr(kErTooManyKeyParts, "Too many key parts specified; max 16 parts allowed");
  }
  for (const std::string& n : names) {
    int c = FindDraftColumn(d, n);
    if (c < 0)
      return SqlErr(kErKeyColumnDoesNotExist, "Key column '", n, "' doesn't exist in table");
    if (std::find(out->begin(), out->end(), static_cast<uint32_t>(c)) != out->end()) {
      return SqlErr(kErDupFieldName, "Duplicate column name '", n, "'");
    }
    const ColumnDef& col = def.columns[c];
    if (col.type == ColumnType::kText || col.type == ColumnType::kBlob) {
      return SqlErr(kErBlobKeyWithoutLength, "BLOB/TEXT column '", col.name,
                    "' used in key specification without a key length");
    }
    out->push_back(static_cast<uint32_t>(c));
  }
  return SqlStatus::OK();
}

// AUTO_INCREMENT: one, numeric, NOT NULL, the first column of some key, no DEFAULT (1075,
// 1063, 1067). Makes the column NOT NULL.
SqlStatus CheckAutoIncrement(TableDef* def) {
  int auto_col = -1;
  for (size_t i = 0; i < def->columns.size(); ++i) {
    ColumnDef& c = def->columns[i];
    if (!c.auto_increment) continue;
    if (auto_col >= 0) return WrongAutoKey();
    auto_col = static_cast<int>(i);
    if (!IsIntegerType(c.type) && c.type != ColumnType::kDouble) {
      return SqlErr(kErWrongFieldSpec, "Incorrect column specifier for column '", c.name, "'");
    }
    if (c.default_value.has_value()) {
      return SqlErr(kErInvalidDefault, "Invalid default value for '", c.name, "'");
    }
    c.nullable = false;
  }
  if (auto_col >= 0) {
    bool keyed =
        !def->primary_key.empty() && def->primary_key[0] == static_cast<uint32_t>(auto_col);
    for (const IndexDef& ix : def->indexes)
      if (ix.columns[0] == static_cast<uint32_t>(auto_col)) keyed = true;
    if (!keyed) return WrongAutoKey();
  }
  return SqlStatus::OK();
}

// Key sizes against the engine's limit (1071): the primary key, and each index with the
// primary key columns it appends.
SqlStatus CheckKeyLengths(const TableDef& def) {
  auto key_bytes = [&](const std::vector<uint32_t>& cols) {
    uint64_t n = 0;
    for (uint32_t c : cols) n += MaxKeyColumnBytes(def.columns[c]);
    return n;
  };
  auto too_long = [] {
    return SqlErr(kErTooLongKey, "Specified key was too long; max key length is ",
                  std::to_string(kMaxKeyBytes), " bytes");
  };
  uint64_t pk_bytes = def.primary_key.empty() ? kRowIdBytes : key_bytes(def.primary_key);
  if (pk_bytes > kMaxKeyBytes) return too_long();
  for (const IndexDef& ix : def.indexes) {
    uint64_t n = key_bytes(ix.columns);
    if (def.primary_key.empty()) {
      n += kRowIdBytes;
    } else {
      for (uint32_t c : def.primary_key)
        if (std::find(ix.columns.begin(), ix.columns.end(), c) == ix.columns.end())
          n += MaxKeyColumnBytes(def.columns[c]);
    }
    if (n > kMaxKeyBytes) return too_long();
  }
  return SqlStatus::OK();
}

}  // namespace

SqlResult<TableDef> FinishDraft(const TableDraft& d) {
  TableDef def = d.options;
  def.name = d.name;
  def.columns.clear();
  def.primary_key.clear();
  def.indexes.clear();
  if (d.columns.empty()) {
    return SqlErr(kErCantRemoveAllFields,
                  "You can't delete all columns with ALTER TABLE; use DROP TABLE instead");
  }
  for (size_t i = 0; i < d.columns.size(); ++i) {
    const ColumnDef& c = d.columns[i].def;
    SQL_RETURN_IF_ERROR(CheckIdentifier(c.name, true));
    for (size_t j = 0; j < i; ++j) {
      if (EqualsNoCase(d.columns[j].def.name, c.name)) {
        return SqlErr(kErDupFieldName, "Duplicate column name '", c.name, "'");
      }
    }
    def.columns.push_back(c);
  }
  SQL_RETURN_IF_ERROR(ResolveCollations(&def));  // before the defaults are converted
  if (d.primary_key.has_value()) {
    SQL_RETURN_IF_ERROR(ResolveKeyColumns(d, def, *d.primary_key, &def.primary_key));
    for (uint32_t c : def.primary_key) def.columns[c].nullable = false;  // as MySQL does
  }
  for (const TableDraft::Index& ix : d.indexes) {
    SQL_RETURN_IF_ERROR(CheckIdentifier(ix.name, false));
    IndexDef index;
    index.name = ix.name;
    index.unique = ix.unique;
    SQL_RETURN_IF_ERROR(ResolveKeyColumns(d, def, ix.columns, &index.columns));
    def.indexes.push_back(std::move(index));
  }
  SQL_RETURN_IF_ERROR(CheckAutoIncrement(&def));
  // Defaults, converted to the column as an INSERT would.
  // A column the ALTER copies as it was keeps its converted default (a TIMESTAMP's in UTC).
  for (size_t i = 0; i < def.columns.size(); ++i) {
    ColumnDef& c = def.columns[i];
    if (!c.default_value.has_value()) continue;
    if (d.columns[i].source >= 0 && !d.columns[i].changed) continue;
    auto v = CoerceToColumn(c, *c.default_value, 1);
    if (!v.ok()) return SqlErr(kErInvalidDefault, "Invalid default value for '", c.name, "'");
    c.default_value = std::move(v).value();
    if (c.type == ColumnType::kTimestamp && c.default_value->is_temporal() &&
        !c.default_value->as_temporal().is_zero_date()) {
      // Kept as the instant it names (MySQL shows it in each session's time_zone).
      const Temporal& local = c.default_value->as_temporal();
      const DateTimeParts p = local.parts();
      const int64_t utc = LocalToUtc(p, CurrentTimeZone()).value_or(0);
      c.default_value = Value::FromTemporal(MakeTemporal(
          Temporal::Type::kDateTime, local.fsp, UtcToLocal(utc, p.micro, TimeZone{false, 0})));
    }
  }
  SQL_RETURN_IF_ERROR(CheckKeyLengths(def));
  return def;
}

void KeepClusteredStorage(const TableDef& old, TableDef* def) {
  def->keyspace = old.keyspace;
  def->core_columns = old.core_columns;
  def->record_format = old.record_format;
}

std::string IndexKeyspaceName(const TableCatalog& catalog, const std::string& table_keyspace,
                              const std::string& index_name,
                              const std::vector<std::string>& taken) {
  // Index names are free-form; keyspace names take [A-Za-z0-9_$] (and the one '.').
  std::string part = index_name;
  for (char& c : part) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '$';
    if (!ok) c = '_';
  }
  return catalog.NewKeyspaceName(table_keyspace + "." + part, taken);
}

void NameKeyspaces(const TableCatalog& catalog, TableDef* def) {
  std::vector<std::string> taken;
  def->keyspace = catalog.NewKeyspaceName(def->name, taken);
  taken.push_back(def->keyspace);
  for (IndexDef& ix : def->indexes) {
    ix.keyspace = IndexKeyspaceName(catalog, def->keyspace, ix.name, taken);
    taken.push_back(ix.keyspace);
  }
}

TransactionOptions DdlTransactionOptions(const ExecContext& ctx) {
  TransactionOptions o;
  o.isolation = IsolationLevel::kRepeatableRead;  // next-key locks keep writers out of the copy
  if (ctx.session != nullptr) {
    uint64_t ms = uint64_t{ctx.session->vars.innodb_lock_wait_timeout_s()} * 1000;
    o.lock_wait_timeout_ms = static_cast<uint32_t>(std::min<uint64_t>(ms, UINT32_MAX));
  }
  return o;
}

}  // namespace minnow::sql
