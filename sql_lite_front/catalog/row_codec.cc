// Rows <-> keyspace records: memcomparable keys and the compact row value (row_codec.h).

#include "sql_lite_front/catalog/row_codec.h"

#include <cmath>
#include <cstring>
#include <string>

namespace minnow::sql {
namespace {

SqlError Malformed(std::string_view what) {
  return SqlErr(kErUnknownError, "Malformed record: ", what);
}

// Two's-complement `w`-byte value sign- or zero-extended to 64 bits.
int64_t Extend(uint64_t raw, size_t w, bool is_signed) {
  if (w == 8) return static_cast<int64_t>(raw);
  if (is_signed && ((raw >> (8 * w - 1)) & 1) != 0) raw |= ~uint64_t{0} << (8 * w);
  return static_cast<int64_t>(raw);
}

uint64_t DoubleKeyBits(double d) {
  if (d == 0) d = 0;  // -0 and 0 are one value in SQL, and one key
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  // Negative: all bits flipped (bigger magnitude sorts first); positive: the sign bit set.
  return (bits & (uint64_t{1} << 63)) != 0 ? ~bits : bits | (uint64_t{1} << 63);
}

double DoubleFromKeyBits(uint64_t k) {
  uint64_t bits = (k & (uint64_t{1} << 63)) != 0 ? k & ~(uint64_t{1} << 63) : ~k;
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

void AppendBE(uint64_t v, size_t w, std::string* out) {
  for (size_t i = w; i-- > 0;) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t LoadBE(std::string_view s, size_t pos, size_t w) {
  uint64_t v = 0;
  for (size_t i = 0; i < w; ++i) v = (v << 8) | static_cast<uint8_t>(s[pos + i]);
  return v;
}

void AppendEscaped(std::string_view s, std::string* out) {
  for (char c : s) {
    out->push_back(c);
    if (c == '\0') out->push_back(static_cast<char>(0xff));
  }
}

void AppendLE(uint64_t v, size_t w, std::string* out) {
  for (size_t i = 0; i < w; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t LoadLE(std::string_view s, size_t pos, size_t w) {
  uint64_t v = 0;
  for (size_t i = 0; i < w; ++i)
    v |= static_cast<uint64_t>(static_cast<uint8_t>(s[pos + i])) << (8 * i);
  return v;
}

void AppendVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

bool ReadVarint(std::string_view s, size_t* pos, uint64_t* v) {
  uint64_t r = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= s.size()) return false;
    auto b = static_cast<uint8_t>(s[(*pos)++]);
    r |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *v = r;
      return true;
    }
  }
  return false;
}

// DATE, DATETIME, TIMESTAMP and YEAR as an unsigned integer of TemporalBytes: YEAR as MySQL's
// byte (0, or the year - 1900), DATE as MySQL's 3-byte
// year * 512 + month * 32 + day, DATETIME as its packed form, TIMESTAMP as microseconds since
// 1970 UTC of its local value in the CurrentTimeZone() (0: the zero date), TIME as its signed
// microseconds + 2^47; all order-preserving.
size_t TemporalBytes(ColumnType t) {
  return t == ColumnType::kDate ? 3 : t == ColumnType::kYear ? 1 : t == ColumnType::kTime ? 6 : 8;
}

// DATE, DATETIME, TIMESTAMP, YEAR and TIME: their values are Temporals.
bool HoldsTemporal(ColumnType t) {
  return IsTemporalType(t) || t == ColumnType::kYear || t == ColumnType::kTime;
}

constexpr int64_t kTimeBias = int64_t{1} << 47;

constexpr int64_t kUsPerSecond = 1000000;

uint64_t TemporalBits(const ColumnDef& col, const Value& v) {
  const Temporal& t = v.as_temporal();
  if (col.type == ColumnType::kDateTime) return static_cast<uint64_t>(t.packed);
  if (col.type == ColumnType::kTime) return static_cast<uint64_t>(t.packed + kTimeBias);
  const DateTimeParts p = t.parts();
  if (col.type == ColumnType::kYear) return p.year == 0 ? 0 : static_cast<uint64_t>(p.year - 1900);
  if (col.type == ColumnType::kTimestamp) {
    if (t.is_zero_date()) return 0;
    const int64_t secs = LocalToUtc(p, CurrentTimeZone()).value_or(0);
    return static_cast<uint64_t>(secs * kUsPerSecond + p.micro);
  }
  return static_cast<uint64_t>(p.year) * 512 + static_cast<uint64_t>(p.month) * 32 +
         static_cast<uint64_t>(p.day);
}

Value TemporalFromBits(const ColumnDef& col, uint64_t bits) {
  const auto fsp = static_cast<uint8_t>(col.length);
  if (col.type == ColumnType::kDateTime) {
    return Value::FromTemporal(
        Temporal{Temporal::Type::kDateTime, fsp, static_cast<int64_t>(bits)});
  }
  if (col.type == ColumnType::kTime) {
    return Value::FromTemporal(
        Temporal{Temporal::Type::kTime, fsp, static_cast<int64_t>(bits) - kTimeBias});
  }
  if (col.type == ColumnType::kTimestamp) {
    if (bits == 0) return Value::FromTemporal(MakeTemporal(Temporal::Type::kDateTime, fsp, {}));
    const auto us = static_cast<int64_t>(bits);
    return Value::FromTemporal(MakeTemporal(
        Temporal::Type::kDateTime, fsp,
        UtcToLocal(us / kUsPerSecond, static_cast<int>(us % kUsPerSecond), CurrentTimeZone())));
  }
  DateTimeParts p;
  if (col.type == ColumnType::kYear) {
    p.year = bits == 0 ? 0 : static_cast<int>(bits) + 1900;
    return Value::FromTemporal(MakeTemporal(Temporal::Type::kYear, 0, p));
  }
  p.year = static_cast<int>(bits / 512);
  p.month = static_cast<int>(bits / 32 % 16);
  p.day = static_cast<int>(bits % 32);
  return Value::FromTemporal(MakeTemporal(Temporal::Type::kDate, 0, p));
}

// DECIMAL(M,D) in Decimal::AppendFixed's fixed width, in keys and row values alike.
void AppendDecimal(const ColumnDef& col, const Value& v, std::string* out) {
  v.ToDecimal().AppendFixed(static_cast<int>(col.length), col.scale, out);
}

// ENUM and SET: their number, in EnumSetBytes, in keys and row values alike.
size_t EnumBytes(const ColumnDef& col) { return EnumSetBytes(col.type, col.members->names.size()); }
uint64_t EnumNumber(const Value& v) {
  return v.is_enum() ? v.as_enum().number : static_cast<uint64_t>(v.ToInt());
}

bool Contains(const std::vector<uint32_t>& cols, uint32_t c) {
  for (uint32_t x : cols)
    if (x == c) return true;
  return false;
}

// True if column `col`'s value is read back from the clustered key (not kept in the row value).
bool InPrimaryKey(const TableDef& def, uint32_t col) {
  return def.IsPrimaryKeyColumn(col) && !TextBesideKey(def, def.columns[col]);
}

// Skips a key's weights (up to and including their terminating 0x00).
bool SkipWeights(std::string_view key, size_t* pos) {
  size_t end = key.find('\0', *pos);
  if (end == std::string_view::npos) return false;
  *pos = end + 1;
  return true;
}

// Calls fn(c) for the columns of `index`'s key in key order: its own, then the primary key's
// not among them (no allocation: the bulk builds call it per row).
template <typename Fn>
void ForEachIndexKeyColumn(const TableDef& def, const IndexDef& index, Fn&& fn) {
  for (uint32_t c : index.columns) fn(c);
  for (uint32_t c : def.primary_key)
    if (!Contains(index.columns, c)) fn(c);
}

// The columns of `index`'s key in key order (ForEachIndexKeyColumn's).
std::vector<uint32_t> IndexKeyColumns(const TableDef& def, const IndexDef& index) {
  std::vector<uint32_t> cols;
  ForEachIndexKeyColumn(def, index, [&](uint32_t c) { cols.push_back(c); });
  return cols;
}

}  // namespace

bool KeyIsWeights(const ColumnDef& col) {
  return IsStringType(col.type) && col.collation != nullptr &&
         col.collation->kind == Collation::Kind::kIcu;
}

bool KeyHoldsValue(const ColumnDef& col) {
  if (KeyIsWeights(col)) return false;
  // CHAR's trailing spaces are dropped on store: its key is its value.
  const bool padded_text = col.type == ColumnType::kVarchar || col.type == ColumnType::kText;
  return !(padded_text && col.EffectiveCollation().pad_space);
}

bool TextBesideKey(const TableDef& def, const ColumnDef& col) {
  if (KeyIsWeights(col)) return true;
  return def.record_format == RecordFormat::kPadTextsKept && !KeyHoldsValue(col);
}

bool KeyGivesValue(const TableDef& def, const ColumnDef& col) {
  return KeyHoldsValue(col) || TextBesideKey(def, col);
}

bool IndexKeepsTexts(const TableDef& def, const IndexDef& index) {
  bool texts = false;
  ForEachIndexKeyColumn(def, index,
                        [&](uint32_t c) { texts |= TextBesideKey(def, def.columns[c]); });
  return texts;
}

void AppendKeyColumn(const ColumnDef& col, const Value& v, std::string* out) {
  if (col.nullable) {
    if (v.is_null()) {
      out->push_back('\0');
      return;
    }
    out->push_back('\1');
  }
  if (IsIntegerType(col.type)) {
    size_t w = IntegerBytes(col.type);
    auto raw = static_cast<uint64_t>(v.ToInt());
    if (!col.is_unsigned) raw ^= uint64_t{1} << (8 * w - 1);  // flip the sign bit
    AppendBE(raw, w, out);
  } else if (col.type == ColumnType::kDouble) {
    AppendBE(DoubleKeyBits(v.ToDouble()), 8, out);
  } else if (HoldsTemporal(col.type)) {
    AppendBE(TemporalBits(col, v), TemporalBytes(col.type), out);
  } else if (col.type == ColumnType::kDecimal) {
    AppendDecimal(col, v, out);
  } else if (IsEnumOrSetType(col.type)) {
    AppendBE(EnumNumber(v), EnumBytes(col), out);
  } else {
    const std::string text = v.is_string() ? v.as_string() : v.ToString();
    const Collation& coll = col.EffectiveCollation();
    if (coll.kind == Collation::Kind::kIcu) {
      AppendCollationKey(coll, text, out);  // ends in its 0x00
      return;
    }
    AppendEscaped(PaddedForm(coll, text), out);
    out->push_back('\0');
    out->push_back('\0');
  }
}

void AppendKeyPrefix(const ColumnDef& col, std::string_view prefix, std::string* out) {
  if (col.nullable) out->push_back('\1');
  const Collation& coll = col.EffectiveCollation();
  if (coll.kind == Collation::Kind::kIcu) {
    out->append(CollationKeyPrefix(coll, prefix));
  } else {
    AppendEscaped(PaddedForm(coll, prefix), out);
  }
}

bool KeyPrefixIsExact(const ColumnDef& col, std::string_view prefix) {
  const Collation& coll = col.EffectiveCollation();
  if (coll.kind == Collation::Kind::kIcu) return false;
  return PaddedForm(coll, prefix).size() == prefix.size();
}

void AppendRowId(uint64_t row_id, std::string* out) { AppendBE(row_id, kRowIdBytes, out); }

std::string EncodePrimaryKey(const TableDef& def, const Row& row) {
  std::string key;
  for (uint32_t c : def.primary_key) AppendKeyColumn(def.columns[c], row[c], &key);
  return key;
}

bool AppendUniquePart(const TableDef& def, const IndexDef& index, const Row& row,
                      std::string* out) {
  bool null = false;
  for (uint32_t c : index.columns) {
    AppendKeyColumn(def.columns[c], row[c], out);
    null = null || row[c].is_null();
  }
  return !null;
}

SqlResult<size_t> UniquePartLength(const TableDef& def, const IndexDef& index, std::string_view key,
                                   bool* has_null) {
  size_t pos = 0;
  *has_null = false;
  for (uint32_t c : index.columns) {
    const ColumnDef& col = def.columns[c];
    // From the null flag: a weights column decodes as NULL whatever its text.
    if (col.nullable && pos < key.size() && key[pos] == '\0') *has_null = true;
    SQL_ASSIGN_OR_RETURN(Value skipped, DecodeKeyColumn(col, key, &pos));
    (void)skipped;
  }
  return pos;
}

void AppendIndexKey(const TableDef& def, const IndexDef& index, const Row& row,
                    std::string_view clustered_key, std::string* out) {
  AppendUniquePart(def, index, row, out);  // the index's columns, then the row's key
  if (def.has_hidden_primary_key()) {
    out->append(clustered_key);
  } else {
    for (uint32_t c : def.primary_key)
      if (!Contains(index.columns, c)) AppendKeyColumn(def.columns[c], row[c], out);
  }
}

void AppendIndexValue(const TableDef& def, const IndexDef& index, const Row& row,
                      std::string* out) {
  ForEachIndexKeyColumn(def, index, [&](uint32_t c) {
    if (!TextBesideKey(def, def.columns[c]) || row[c].is_null()) return;
    const std::string text = row[c].is_string() ? std::string() : row[c].ToString();
    const std::string& s = row[c].is_string() ? row[c].as_string() : text;
    AppendVarint(s.size(), out);
    out->append(s);
  });
}

std::string EncodeIndexValue(const TableDef& def, const IndexDef& index, const Row& row) {
  std::string out;
  AppendIndexValue(def, index, row, &out);
  return out;
}

std::string EncodeIndexKey(const TableDef& def, const IndexDef& index, const Row& row,
                           std::string_view clustered_key) {
  std::string key;
  AppendIndexKey(def, index, row, clustered_key, &key);
  return key;
}

namespace {

// The compact encoding of the non-primary-key columns [from, to) of `row` (the format in
// row_codec.h).
void EncodeCompact(const TableDef& def, const Row& row, uint32_t from, uint32_t to,
                   std::string* out) {
  // Null bitmap over the nullable non-PK columns.
  size_t nullable = 0;
  for (uint32_t c = from; c < to; ++c)
    if (!InPrimaryKey(def, c) && def.columns[c].nullable) ++nullable;
  size_t bitmap_at = out->size();
  out->append((nullable + 7) / 8, '\0');
  size_t bit = 0;
  for (uint32_t c = from; c < to; ++c) {
    if (InPrimaryKey(def, c) || !def.columns[c].nullable) continue;
    if (row[c].is_null()) (*out)[bitmap_at + bit / 8] |= static_cast<char>(1 << (bit % 8));
    ++bit;
  }
  // Lengths of the non-NULL strings, then the data.
  for (uint32_t c = from; c < to; ++c) {
    if (InPrimaryKey(def, c) || row[c].is_null() || !IsStringType(def.columns[c].type)) continue;
    AppendVarint(row[c].is_string() ? row[c].as_string().size() : row[c].ToString().size(), out);
  }
  for (uint32_t c = from; c < to; ++c) {
    if (InPrimaryKey(def, c) || row[c].is_null()) continue;
    const ColumnDef& col = def.columns[c];
    const Value& v = row[c];
    if (IsIntegerType(col.type)) {
      AppendLE(static_cast<uint64_t>(v.ToInt()), IntegerBytes(col.type), out);
    } else if (col.type == ColumnType::kDouble) {
      double d = v.ToDouble();
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      AppendLE(bits, 8, out);
    } else if (HoldsTemporal(col.type)) {
      AppendLE(TemporalBits(col, v), TemporalBytes(col.type), out);
    } else if (col.type == ColumnType::kDecimal) {
      AppendDecimal(col, v, out);
    } else if (IsEnumOrSetType(col.type)) {
      AppendLE(EnumNumber(v), EnumBytes(col), out);
    } else if (v.is_string()) {
      out->append(v.as_string());
    } else {
      out->append(v.ToString());
    }
  }
}

// Decodes the compact encoding of columns [from, to) at *pos (advancing it) into `*row`. No
// allocation but the strings' own (a column that already holds a string reuses its buffer):
// the lengths are read from their own cursor while the data is.
SqlStatus DecodeCompact(const TableDef& def, std::string_view value, size_t* pos, uint32_t from,
                        uint32_t to, Row* row) {
  size_t nullable = 0, strings = 0;
  for (uint32_t c = from; c < to; ++c) {
    if (InPrimaryKey(def, c)) continue;
    if (def.columns[c].nullable) ++nullable;
  }
  const size_t bitmap = *pos;
  size_t p = bitmap + (nullable + 7) / 8;
  if (value.size() < p) return Malformed("row value shorter than its null bitmap");
  auto is_null = [&](size_t bit) {
    return ((static_cast<uint8_t>(value[bitmap + bit / 8]) >> (bit % 8)) & 1) != 0;
  };
  if (nullable % 8 != 0 &&
      (static_cast<uint8_t>(value[bitmap + nullable / 8]) >> (nullable % 8)) != 0) {
    return Malformed("stray bits in the null bitmap");
  }
  // Skip the lengths: the data starts after them.
  size_t bit = 0;
  for (uint32_t c = from; c < to; ++c) {
    if (InPrimaryKey(def, c)) continue;
    const ColumnDef& col = def.columns[c];
    const bool null = col.nullable && is_null(bit);
    if (col.nullable) ++bit;
    if (!null && IsStringType(col.type)) ++strings;
  }
  size_t lengths = p;
  for (size_t i = 0; i < strings; ++i) {
    uint64_t n;
    if (!ReadVarint(value, &p, &n)) return Malformed("row value ends inside a length");
  }
  bit = 0;
  for (uint32_t c = from; c < to; ++c) {
    if (InPrimaryKey(def, c)) continue;
    const ColumnDef& col = def.columns[c];
    Value& out = (*row)[c];
    if (col.nullable && is_null(bit++)) {
      out = Value::Null();
      continue;
    }
    if (IsIntegerType(col.type)) {
      size_t w = IntegerBytes(col.type);
      if (value.size() - p < w) return Malformed("row value ends inside an integer");
      out = Value::Int(Extend(LoadLE(value, p, w), w, !col.is_unsigned));
      p += w;
    } else if (col.type == ColumnType::kDouble) {
      if (value.size() - p < 8) return Malformed("row value ends inside a double");
      uint64_t bits = LoadLE(value, p, 8);
      double d;
      std::memcpy(&d, &bits, 8);
      out = Value::Double(d);
      p += 8;
    } else if (HoldsTemporal(col.type)) {
      const size_t w = TemporalBytes(col.type);
      if (value.size() - p < w) return Malformed("row value ends inside a date");
      out = TemporalFromBits(col, LoadLE(value, p, w));
      p += w;
    } else if (col.type == ColumnType::kDecimal) {
      const size_t w = col.MaxBytes();
      if (value.size() - p < w) return Malformed("row value ends inside a decimal");
      out = Value::Dec(Decimal::FromFixed(value.substr(p, w), col.scale));
      p += w;
    } else if (IsEnumOrSetType(col.type)) {
      const size_t w = EnumBytes(col);
      if (value.size() - p < w) return Malformed("row value ends inside an enum or set");
      out = Value::Enum(col.members, LoadLE(value, p, w));
      p += w;
    } else {
      uint64_t n = 0;
      (void)ReadVarint(value, &lengths, &n);  // read once above
      if (value.size() - p < n) return Malformed("row value ends inside a string");
      out.SetString(value.substr(p, n));
      p += n;
    }
  }
  *pos = p;
  return SqlStatus::OK();
}

}  // namespace

void EncodeRowValue(const TableDef& def, const Row& row, std::string* out) {
  const auto ncols = static_cast<uint32_t>(def.columns.size());
  const uint32_t core = def.StoredCoreColumns();
  EncodeCompact(def, row, 0, core, out);
  if (core == ncols) return;
  // The columns added since (ALGORITHM=INSTANT): how many, then their own compact part.
  AppendVarint(ncols - core, out);
  EncodeCompact(def, row, core, ncols, out);
}

SqlResult<Value> DecodeKeyColumn(const ColumnDef& col, std::string_view key, size_t* pos) {
  size_t p = *pos;
  if (col.nullable) {
    if (p >= key.size()) return Malformed("key ends at a null flag");
    char flag = key[p++];
    if (flag == '\0') {
      *pos = p;
      return Value::Null();
    }
    if (flag != '\1') return Malformed("bad null flag in key");
  }
  if (IsIntegerType(col.type)) {
    size_t w = IntegerBytes(col.type);
    if (key.size() - p < w) return Malformed("key ends inside an integer");
    uint64_t raw = LoadBE(key, p, w);
    if (!col.is_unsigned) raw ^= uint64_t{1} << (8 * w - 1);
    *pos = p + w;
    return Value::Int(Extend(raw, w, !col.is_unsigned));
  }
  if (col.type == ColumnType::kDouble) {
    if (key.size() - p < 8) return Malformed("key ends inside a double");
    *pos = p + 8;
    return Value::Double(DoubleFromKeyBits(LoadBE(key, p, 8)));
  }
  if (HoldsTemporal(col.type)) {
    const size_t w = TemporalBytes(col.type);
    if (key.size() - p < w) return Malformed("key ends inside a date");
    *pos = p + w;
    return TemporalFromBits(col, LoadBE(key, p, w));
  }
  if (col.type == ColumnType::kDecimal) {
    const size_t w = col.MaxBytes();
    if (key.size() - p < w) return Malformed("key ends inside a decimal");
    *pos = p + w;
    return Value::Dec(Decimal::FromFixed(key.substr(p, w), col.scale));
  }
  if (IsEnumOrSetType(col.type)) {
    const size_t w = EnumBytes(col);
    if (key.size() - p < w) return Malformed("key ends inside an enum or set");
    *pos = p + w;
    return Value::Enum(col.members, LoadBE(key, p, w));
  }
  if (KeyIsWeights(col)) {
    if (!SkipWeights(key, &p)) return Malformed("key ends inside collation weights");
    *pos = p;
    return Value::Null();  // the text is kept beside the key (row value, index value)
  }
  std::string s;
  for (;;) {
    if (p >= key.size()) return Malformed("key ends inside a string");
    char c = key[p++];
    if (c != '\0') {
      s.push_back(c);
      continue;
    }
    if (p >= key.size()) return Malformed("key ends inside a string");
    char next = key[p++];
    if (next == '\0') break;  // the terminator
    if (next != static_cast<char>(0xff)) return Malformed("bad escape in key string");
    s.push_back('\0');
  }
  *pos = p;
  return Value::String(std::move(s));
}

SqlStatus DecodePrimaryKey(const TableDef& def, std::string_view key, Row* row, uint64_t* row_id) {
  if (row->size() < def.columns.size()) row->resize(def.columns.size());
  if (def.has_hidden_primary_key()) {
    if (key.size() != kRowIdBytes) return Malformed("bad DB_ROW_ID key");
    if (row_id != nullptr) *row_id = LoadBE(key, 0, kRowIdBytes);
    return SqlStatus::OK();
  }
  size_t pos = 0;
  for (uint32_t c : def.primary_key) {
    SQL_ASSIGN_OR_RETURN((*row)[c], DecodeKeyColumn(def.columns[c], key, &pos));
  }
  if (pos != key.size()) return Malformed("trailing bytes in primary key");
  return SqlStatus::OK();
}

SqlStatus DecodeRowValue(const TableDef& def, std::string_view value, Row* row) {
  const auto ncols = static_cast<uint32_t>(def.columns.size());
  if (row->size() < ncols) row->resize(ncols);
  const uint32_t core = def.StoredCoreColumns();
  size_t pos = 0;
  SQL_RETURN_IF_ERROR(DecodeCompact(def, value, &pos, 0, core, row));
  uint32_t have = core;
  if (core < ncols && pos < value.size()) {
    uint64_t n = 0;
    if (!ReadVarint(value, &pos, &n) || n == 0 || n > ncols - core) {
      return Malformed("bad count of added columns in row value");
    }
    have = core + static_cast<uint32_t>(n);
    SQL_RETURN_IF_ERROR(DecodeCompact(def, value, &pos, core, have, row));
  }
  if (pos != value.size()) return Malformed("trailing bytes in row value");
  // A row stored before a column was added instantly holds that column's value at the ADD.
  for (uint32_t c = have; c < ncols; ++c) (*row)[c] = AddedColumnValue(def.columns[c]);
  return SqlStatus::OK();
}

namespace {

// DecodeIndexKey's part that reads the key alone. *texts: the TextBesideKey columns that are
// not NULL, whose texts the entry's value holds in key order.
SqlStatus DecodeIndexKeyBytes(const TableDef& def, const IndexDef& index, std::string_view key,
                              Row* row, std::string* clustered_key, std::vector<uint32_t>* texts) {
  if (row->size() < def.columns.size()) row->resize(def.columns.size());
  // Each key column's bytes, to copy the primary key's into the clustered key (weights cannot
  // be encoded again from the row: the text is what the row has).
  const std::vector<uint32_t> cols = IndexKeyColumns(def, index);
  std::vector<std::string_view> bytes(def.columns.size());
  size_t pos = 0;
  for (uint32_t c : cols) {
    const size_t start = pos;
    SQL_ASSIGN_OR_RETURN((*row)[c], DecodeKeyColumn(def.columns[c], key, &pos));
    bytes[c] = key.substr(start, pos - start);
    const ColumnDef& col = def.columns[c];
    if (TextBesideKey(def, col) && !(col.nullable && bytes[c] == std::string_view("\0", 1))) {
      texts->push_back(c);
    }
  }
  if (def.has_hidden_primary_key()) {
    if (key.size() - pos != kRowIdBytes) return Malformed("bad DB_ROW_ID in index key");
    clustered_key->assign(key.substr(pos));
    return SqlStatus::OK();
  }
  if (pos != key.size()) return Malformed("trailing bytes in index key");
  clustered_key->clear();
  for (uint32_t c : def.primary_key) clustered_key->append(bytes[c]);
  return SqlStatus::OK();
}

}  // namespace

SqlStatus DecodeIndexKey(const TableDef& def, const IndexDef& index, std::string_view key,
                         std::string_view value, Row* row, std::string* clustered_key) {
  std::vector<uint32_t> texts;
  SQL_RETURN_IF_ERROR(DecodeIndexKeyBytes(def, index, key, row, clustered_key, &texts));
  // The texts of the TextBesideKey columns, from the entry's value (EncodeIndexValue).
  size_t vpos = 0;
  for (uint32_t c : texts) {
    uint64_t n;
    if (!ReadVarint(value, &vpos, &n) || value.size() - vpos < n) {
      return Malformed("index value ends inside a string");
    }
    (*row)[c] = Value::String(std::string(value.substr(vpos, n)));
    vpos += n;
  }
  if (vpos != value.size()) return Malformed("trailing bytes in index value");
  return SqlStatus::OK();
}

bool IndexValueText(std::string_view value, size_t n, std::string_view* text) {
  size_t pos = 0;
  for (size_t i = 0;; ++i) {
    uint64_t len;
    if (!ReadVarint(value, &pos, &len) || value.size() - pos < len) return false;
    if (i == n) {
      *text = value.substr(pos, len);
      return true;
    }
    pos += len;
  }
}

SqlStatus ClusteredKeyOfIndexKey(const TableDef& def, const IndexDef& index, std::string_view key,
                                 std::string* clustered_key) {
  Row row;
  std::vector<uint32_t> texts;
  return DecodeIndexKeyBytes(def, index, key, &row, clustered_key, &texts);
}

}  // namespace minnow::sql
