// Column and index definitions, shared by CREATE TABLE, CREATE INDEX and ALTER TABLE: a column's
// name, type and attributes (NOT NULL, DEFAULT, AUTO_INCREMENT, ...), and an index's columns and
// options (parser_internal.h).

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

#include "sql_lite_front/parse/parser_internal.h"

namespace minnow::sql {

SqlStatus Parser::ParseColumnSpec(ColumnSpec* out) {
  SQL_ASSIGN_OR_RETURN(out->def.name, Ident());
  SQL_RETURN_IF_ERROR(ParseColumnType(&out->def));
  return ParseColumnAttributes(out);
}

namespace {

struct TypeName {
  std::string_view name;
  ColumnType type;
};

// Types whose name alone says the ColumnType.
constexpr TypeName kTypes[] = {
    {"TINYINT", ColumnType::kTinyInt},     {"SMALLINT", ColumnType::kSmallInt},
    {"MEDIUMINT", ColumnType::kMediumInt}, {"INT", ColumnType::kInt},
    {"INTEGER", ColumnType::kInt},         {"BIGINT", ColumnType::kBigInt},
    {"INT1", ColumnType::kTinyInt},        {"INT2", ColumnType::kSmallInt},
    {"INT3", ColumnType::kMediumInt},      {"INT4", ColumnType::kInt},
    {"INT8", ColumnType::kBigInt},         {"MIDDLEINT", ColumnType::kMediumInt},
    {"BOOL", ColumnType::kTinyInt},        {"BOOLEAN", ColumnType::kTinyInt},
    {"DOUBLE", ColumnType::kDouble},       {"REAL", ColumnType::kDouble},
    {"FLOAT8", ColumnType::kDouble},       {"CHAR", ColumnType::kChar},
    {"CHARACTER", ColumnType::kChar},      {"VARCHAR", ColumnType::kVarchar},
    {"TEXT", ColumnType::kText},           {"BLOB", ColumnType::kBlob},
    {"DATE", ColumnType::kDate},           {"DATETIME", ColumnType::kDateTime},
    {"TIMESTAMP", ColumnType::kTimestamp}, {"YEAR", ColumnType::kYear},
    {"DECIMAL", ColumnType::kDecimal},     {"NUMERIC", ColumnType::kDecimal},
    {"DEC", ColumnType::kDecimal},         {"FIXED", ColumnType::kDecimal},
    {"ENUM", ColumnType::kEnum},           {"SET", ColumnType::kSet},
    {"TIME", ColumnType::kTime},
};

// Types minnow does not have: refused with 1235 naming them, never stored as another type.
// (FLOAT is 4 bytes and BINARY pads with 0x00 in MySQL; the sized TEXT/BLOB types have their own
// limits: none of them is a DOUBLE, CHAR or TEXT.)
constexpr std::string_view kUnsupportedTypes[] = {
    "FLOAT",      "FLOAT4",     "BINARY",          "VARBINARY",    "TINYTEXT",
    "MEDIUMTEXT", "LONGTEXT",   "TINYBLOB",        "MEDIUMBLOB",   "LONGBLOB",
    "JSON",       "BIT",        "GEOMETRY",        "POINT",        "LINESTRING",
    "POLYGON",    "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION",
    "SERIAL",     "NATIONAL",   "NCHAR",           "NVARCHAR",     "LONG",
};

}  // namespace

SqlStatus Parser::ParseColumnType(ColumnDef* def) {
  if (Cur().kind != TokenKind::kIdent) return SyntaxError();
  std::string upper = ToUpperAscii(Cur().text);
  const TypeName* found = nullptr;
  for (const TypeName& t : kTypes) {
    if (t.name == upper) found = &t;
  }
  if (found == nullptr) {
    for (std::string_view u : kUnsupportedTypes) {
      if (u == upper) return NotSupported(upper);
    }
    return SyntaxError();
  }
  Skip();
  def->type = found->type;
  // (n) or, for DOUBLE/FLOAT/REAL, (m[,d]); n is kept for CHAR/VARCHAR and integers' width.
  auto parse_length = [&](bool allow_scale) -> SqlStatus {
    if (!AcceptOp("(")) return SqlStatus::OK();
    if (Cur().kind != TokenKind::kInteger) return SyntaxError();
    SQL_ASSIGN_OR_RETURN(uint64_t n, UnsignedInt());
    if (n > std::numeric_limits<uint32_t>::max()) return SyntaxError();
    def->length = static_cast<uint32_t>(n);
    if (allow_scale && AcceptOp(",")) {
      // DOUBLE(M,D) rounds every value to D digits in MySQL; minnow's DOUBLE does not.
      return NotSupported(upper + "(M,D)");
    }
    return ExpectOp(")");
  };
  switch (def->type) {
    case ColumnType::kTinyInt:
    case ColumnType::kSmallInt:
    case ColumnType::kMediumInt:
    case ColumnType::kInt:
    case ColumnType::kBigInt:
      if (upper == "BOOL" || upper == "BOOLEAN") {
        def->length = 1;
        return SqlStatus::OK();
      }
      SQL_RETURN_IF_ERROR(parse_length(false));
      break;
    case ColumnType::kDouble:
      if (upper == "DOUBLE") AcceptKw("PRECISION");
      SQL_RETURN_IF_ERROR(parse_length(true));
      if (def->length != 0) return NotSupported(upper + "(M)");
      break;
    case ColumnType::kChar:
      if (upper == "CHARACTER" && AcceptKw("VARYING")) {
        def->type = ColumnType::kVarchar;
        if (!IsOp("(")) return SyntaxError();
      }
      def->length = 1;
      SQL_RETURN_IF_ERROR(parse_length(false));
      break;
    case ColumnType::kVarchar:
      if (!IsOp("(")) return SyntaxError();  // VARCHAR needs its length
      SQL_RETURN_IF_ERROR(parse_length(false));
      break;
    case ColumnType::kText:
    case ColumnType::kBlob:
      SQL_RETURN_IF_ERROR(parse_length(false));
      def->length = 0;
      break;
    case ColumnType::kDate:
      break;
    case ColumnType::kYear:  // YEAR(4) is YEAR (MySQL 8.0 has no YEAR(2))
      SQL_RETURN_IF_ERROR(parse_length(false));
      if (def->length != 0 && def->length != 4) {
        return SqlErr(kErInvalidYearColumnLength, "Supports only YEAR or YEAR(4) column.");
      }
      def->length = 0;
      break;
    case ColumnType::kDecimal:
      SQL_RETURN_IF_ERROR(ParseDecimalPrecision(def));
      break;
    case ColumnType::kEnum:
    case ColumnType::kSet:
      SQL_RETURN_IF_ERROR(ParseEnumMembers(def));
      break;
    case ColumnType::kDateTime:
    case ColumnType::kTimestamp:
    case ColumnType::kTime:
      SQL_RETURN_IF_ERROR(parse_length(false));
      if (def->length > 6) {
        return SqlErr(kErTooBigPrecision, "Too-big precision ", std::to_string(def->length),
                      " specified for '", def->name, "'. Maximum is 6.");
      }
      break;
  }
  // (table_def.cc's IsIntegerType is not used: the parser links without it, for the fuzzer.)
  if (def->type == ColumnType::kTinyInt || def->type == ColumnType::kSmallInt ||
      def->type == ColumnType::kMediumInt || def->type == ColumnType::kInt ||
      def->type == ColumnType::kBigInt || def->type == ColumnType::kDouble ||
      def->type == ColumnType::kDecimal) {
    for (;;) {
      if (AcceptKw("UNSIGNED")) {
        def->is_unsigned = true;
      } else if (IsKw("ZEROFILL")) {
        return NotSupported("ZEROFILL");  // it changes how values print
      } else if (!AcceptKw("SIGNED")) {
        break;
      }
    }
  }
  return ParseCharsetClauses(def);
}

// ENUM's and SET's ('a', 'b', ...): the members without their trailing spaces (as MySQL
// keeps them); their checks wait for the column's collation (CheckEnumSetMembers).
SqlStatus Parser::ParseEnumMembers(ColumnDef* def) {
  auto members = std::make_shared<EnumMembers>();
  members->is_set = def->type == ColumnType::kSet;
  SQL_RETURN_IF_ERROR(ExpectOp("("));
  do {
    if (Cur().kind != TokenKind::kString) return SyntaxError();
    std::string name = Cur().text;
    Skip();
    while (!name.empty() && name.back() == ' ') name.pop_back();
    members->names.push_back(std::move(name));
  } while (AcceptOp(","));
  SQL_RETURN_IF_ERROR(ExpectOp(")"));
  def->members = std::move(members);
  return SqlStatus::OK();
}

// DECIMAL's [(M[,D])], checked in MySQL's order (Create_field::init): the scale (1425), then
// the precision (1426), then M >= D (1427). DECIMAL is DECIMAL(10,0); DECIMAL(M) has D 0.
SqlStatus Parser::ParseDecimalPrecision(ColumnDef* def) {
  uint64_t m = 10, d = 0;
  if (AcceptOp("(")) {
    if (Cur().kind != TokenKind::kInteger) return SyntaxError();
    SQL_ASSIGN_OR_RETURN(m, UnsignedInt());
    if (AcceptOp(",")) {
      if (Cur().kind != TokenKind::kInteger) return SyntaxError();
      SQL_ASSIGN_OR_RETURN(d, UnsignedInt());
    }
    SQL_RETURN_IF_ERROR(ExpectOp(")"));
    if (m == 0 && d == 0) m = 10;  // MySQL's my_decimal_trim
  }
  if (d > 30) {
    return SqlErr(kErTooBigScale, "Too big scale ", std::to_string(d), " specified for column '",
                  def->name, "'. Maximum is 30.");
  }
  if (m > 65) {
    return SqlErr(kErTooBigPrecision, "Too-big precision ", std::to_string(m), " specified for '",
                  def->name, "'. Maximum is 65.");
  }
  if (m < d) {
    return SqlErr(kErMBiggerThanD,
                  "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '",
                  def->name, "').");
  }
  def->length = static_cast<uint32_t>(m);
  def->scale = static_cast<uint8_t>(d);
  return SqlStatus::OK();
}

// [CHARACTER SET | CHARSET cs] [COLLATE c] [BINARY] [ASCII] [UNICODE], kept as written in
// *def (ASCII is CHARACTER SET latin1, UNICODE ucs2, as MySQL reads them); the catalog
// resolves them (ResolveCollations).
SqlStatus Parser::ParseCharsetClauses(ColumnDef* def) {
  for (;;) {
    std::string* target = &def->declared_charset;
    if (IsKw("CHARACTER") && IsKw("SET", 1)) {
      Skip();
      Skip();
    } else if (AcceptKw("COLLATE")) {
      target = &def->declared_collation;
    } else if (!AcceptKw("CHARSET")) {
      if (AcceptKw("BINARY")) {
        def->declared_binary = true;
      } else if (AcceptKw("ASCII")) {
        def->declared_charset = "latin1";
      } else if (AcceptKw("UNICODE")) {
        def->declared_charset = "ucs2";
      } else {
        return SqlStatus::OK();
      }
      continue;
    }
    SQL_ASSIGN_OR_RETURN(std::string value, OptionValue());
    if (value.size() >= 2 && (value[0] == '\'' || value[0] == '"') && value.back() == value[0]) {
      value = value.substr(1, value.size() - 2);
    }
    *target = ToLowerAscii(value);
  }
}

// NOT NULL, NULL, DEFAULT v, AUTO_INCREMENT, [PRIMARY] KEY, UNIQUE [KEY], COMMENT 's',
// COLLATE c, VISIBLE, INVISIBLE, in any order.
SqlStatus Parser::ParseColumnAttributes(ColumnSpec* out) {
  for (;;) {
    if (AcceptKw("NOT")) {
      SQL_RETURN_IF_ERROR(ExpectKw("NULL"));
      out->def.nullable = false;
    } else if (AcceptKw("NULL")) {
      out->def.nullable = true;
      out->explicit_null = true;
    } else if (AcceptKw("DEFAULT")) {
      SQL_RETURN_IF_ERROR(ParseDefaultValue(&out->def));
    } else if (AcceptKw("AUTO_INCREMENT")) {
      out->def.auto_increment = true;
    } else if (AcceptKw("PRIMARY")) {
      SQL_RETURN_IF_ERROR(ExpectKw("KEY"));
      out->primary_key = true;
    } else if (AcceptKw("KEY")) {
      out->primary_key = true;  // KEY alone in a column definition means PRIMARY KEY
    } else if (AcceptKw("UNIQUE")) {
      AcceptKw("KEY");
      out->unique = true;
    } else if (AcceptKw("COMMENT")) {
      if (Cur().kind != TokenKind::kString) return SyntaxError();
      Skip();
    } else if (IsKw("COLLATE") || IsKw("CHARSET") || (IsKw("CHARACTER") && IsKw("SET", 1))) {
      SQL_RETURN_IF_ERROR(ParseCharsetClauses(&out->def));
    } else if (AcceptKw("VISIBLE") || AcceptKw("INVISIBLE")) {
      // accepted
    } else if (IsKw("ON") && IsKw("UPDATE", 1)) {
      Skip();
      Skip();
      SQL_ASSIGN_OR_RETURN(std::optional<uint32_t> fsp, CurrentTimestampFsp());
      if (!fsp.has_value()) return SyntaxError();
      if ((out->def.type != ColumnType::kDateTime && out->def.type != ColumnType::kTimestamp) ||
          *fsp != out->def.length) {
        return SqlErr(kErInvalidOnUpdate, "Invalid ON UPDATE clause for '", out->def.name,
                      "' column");
      }
      out->def.on_update_now = true;
    } else if (IsKw("REFERENCES")) {
      return NotSupported("FOREIGN KEY");
    } else if (IsKw("CHECK") || IsKw("CONSTRAINT")) {
      return NotSupported("CHECK");
    } else if (IsKw("GENERATED") || IsKw("AS")) {
      return NotSupported("generated columns");
    } else if (IsKw("COLUMN_FORMAT") || IsKw("STORAGE") || IsKw("SRID")) {
      return NotSupported(ToUpperAscii(Cur().text));
    } else {
      return SqlStatus::OK();
    }
  }
}

// DEFAULT [+|-]number | string | NULL | TRUE | FALSE | X'..'
SqlStatus Parser::ParseDefaultValue(ColumnDef* def) {
  def->default_now = false;  // a later DEFAULT replaces an earlier one
  bool negative = false;
  if (IsOp("-") || IsOp("+")) {
    negative = IsOp("-");
    Skip();
    if (Cur().kind != TokenKind::kInteger && Cur().kind != TokenKind::kDecimal) {
      return SyntaxError();
    }
  }
  const Token& t = Cur();
  switch (t.kind) {
    case TokenKind::kInteger:
      def->default_value = IntegerLiteral(t.text, negative);
      Skip();
      return SqlStatus::OK();
    case TokenKind::kDecimal: {
      def->default_value = DecimalLiteral(t.text, negative);
      const Value& v = *def->default_value;
      if (v.is_double() && !std::isfinite(v.as_double())) return SyntaxError();
      Skip();
      return SqlStatus::OK();
    }
    case TokenKind::kString: {
      std::string s = t.text;
      Skip();
      while (Cur().kind == TokenKind::kString) {
        s += Cur().text;
        Skip();
      }
      def->default_value = Value::String(std::move(s));
      return SqlStatus::OK();
    }
    case TokenKind::kHexString:
      def->default_value = Value::String(t.text);
      Skip();
      return SqlStatus::OK();
    case TokenKind::kIdent:
      if (AcceptKw("NULL")) {
        def->default_value = Value::Null();
        return SqlStatus::OK();
      }
      if (IsKw("TRUE") || IsKw("FALSE")) {
        def->default_value = Value::Int(IsKw("TRUE") ? 1 : 0);
        Skip();
        return SqlStatus::OK();
      }
      {
        SQL_ASSIGN_OR_RETURN(std::optional<uint32_t> fsp, CurrentTimestampFsp());
        if (!fsp.has_value()) return SyntaxError();
        // Only DATETIME and TIMESTAMP of the same fsp take it (MySQL's 1067 else).
        if ((def->type != ColumnType::kDateTime && def->type != ColumnType::kTimestamp) ||
            *fsp != def->length) {
          return SqlErr(kErInvalidDefault, "Invalid default value for '", def->name, "'");
        }
        def->default_now = true;
        def->default_value.reset();
        return SqlStatus::OK();
      }
    case TokenKind::kOperator:
      if (IsOp("(")) return NotSupported("expression defaults");
      return SyntaxError();
    default:
      return SyntaxError();
  }
}

// CURRENT_TIMESTAMP [()|(n)], NOW(), NOW(n), LOCALTIME[(..)], LOCALTIMESTAMP[(..)]: the fsp
// given (0 when none); nullopt, nothing read, when the next token is none of them.
SqlResult<std::optional<uint32_t>> Parser::CurrentTimestampFsp() {
  const bool needs_parens = IsKw("NOW");
  if (!IsKw("CURRENT_TIMESTAMP") && !needs_parens && !IsKw("LOCALTIME") &&
      !IsKw("LOCALTIMESTAMP")) {
    return std::optional<uint32_t>();
  }
  Skip();
  if (!AcceptOp("(")) {
    if (needs_parens) return SyntaxError();
    return std::optional<uint32_t>(0);
  }
  uint64_t fsp = 0;
  if (Cur().kind == TokenKind::kInteger) {
    SQL_ASSIGN_OR_RETURN(fsp, UnsignedInt());
    if (fsp > 6) {
      return SqlErr(kErTooBigPrecision, "Too-big precision ", std::to_string(fsp),
                    " specified for 'now'. Maximum is 6.");
    }
  }
  SQL_RETURN_IF_ERROR(ExpectOp(")"));
  return std::optional<uint32_t>(static_cast<uint32_t>(fsp));
}

bool Parser::AtIndexDefinition() const {
  return IsKw("PRIMARY") || IsKw("KEY") || IsKw("INDEX") || IsKw("UNIQUE") || IsKw("CONSTRAINT") ||
         IsKw("FULLTEXT") || IsKw("SPATIAL") || IsKw("FOREIGN") || IsKw("CHECK");
}

// [CONSTRAINT [sym]] PRIMARY KEY [USING BTREE] (cols) | {KEY | INDEX} [name] (cols) |
// [CONSTRAINT [sym]] UNIQUE [KEY | INDEX] [name] (cols), each with index options.
SqlStatus Parser::ParseIndexDefinition(IndexSpec* out) {
  if (AcceptKw("CONSTRAINT")) {
    if (AtIdent()) {
      SQL_ASSIGN_OR_RETURN(std::string symbol, Ident());
    }
  }
  if (IsKw("FULLTEXT") || IsKw("SPATIAL")) {
    return NotSupported(ToUpperAscii(Cur().text) + " indexes");
  }
  if (IsKw("FOREIGN")) return NotSupported("FOREIGN KEY");
  if (IsKw("CHECK")) return NotSupported("CHECK");
  if (AcceptKw("PRIMARY")) {
    SQL_RETURN_IF_ERROR(ExpectKw("KEY"));
    out->primary = true;
    out->unique = true;
    out->name = "PRIMARY";
  } else {
    if (AcceptKw("UNIQUE")) {
      out->unique = true;
      if (!AcceptKw("KEY")) AcceptKw("INDEX");
    } else if (!AcceptKw("KEY") && !AcceptKw("INDEX")) {
      return SyntaxError();
    }
    if (AtIdent() && !IsKw("USING")) {
      SQL_ASSIGN_OR_RETURN(out->name, Ident());
    }
  }
  SQL_RETURN_IF_ERROR(ParseIndexOptions());
  SQL_RETURN_IF_ERROR(ParseIndexColumns(out));
  return ParseIndexOptions();
}

SqlStatus Parser::ParseIndexColumns(IndexSpec* out) {
  SQL_RETURN_IF_ERROR(ExpectOp("("));
  for (;;) {
    if (IsOp("(")) return NotSupported("functional index key parts");
    SQL_ASSIGN_OR_RETURN(std::string col, Ident());
    if (AcceptOp("(")) {  // a prefix length: accepted, not kept
      SQL_ASSIGN_OR_RETURN(uint64_t len, UnsignedInt());
      (void)len;
      SQL_RETURN_IF_ERROR(ExpectOp(")"));
    }
    if (!AcceptKw("ASC")) AcceptKw("DESC");
    out->columns.push_back(std::move(col));
    if (AcceptOp(")")) return SqlStatus::OK();
    SQL_RETURN_IF_ERROR(ExpectOp(","));
  }
}

// USING {BTREE | HASH}, COMMENT 's', KEY_BLOCK_SIZE [=] n, VISIBLE, INVISIBLE: accepted.
SqlStatus Parser::ParseIndexOptions() {
  for (;;) {
    if (AcceptKw("USING")) {
      if (!AcceptKw("BTREE") && !AcceptKw("HASH")) return SyntaxError();
    } else if (AcceptKw("COMMENT")) {
      if (Cur().kind != TokenKind::kString) return SyntaxError();
      Skip();
    } else if (AcceptKw("KEY_BLOCK_SIZE")) {
      AcceptOp("=");
      SQL_ASSIGN_OR_RETURN(uint64_t n, UnsignedInt());
      (void)n;
    } else if (!AcceptKw("VISIBLE") && !AcceptKw("INVISIBLE")) {
      return SqlStatus::OK();
    }
  }
}

}  // namespace minnow::sql
