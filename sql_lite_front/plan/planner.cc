// Access path choice (planner.h).

#include "sql_lite_front/plan/planner.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "sql_lite_front/catalog/row_codec.h"
#include "sql_lite_front/execute/expr.h"
#include "sql_lite_front/parse/lexer.h"

namespace minnow::sql {

std::optional<std::string> EncodeExact(const ColumnDef& col, const Value& v) {
  if (v.is_null()) return std::nullopt;
  // A number compared with a string column compares as numbers ('5a' = 5): no key range. A
  // numeric string with a numeric column is fine (CoerceToColumn refuses one that is not).
  if (IsStringType(col.type) && !v.is_string()) return std::nullopt;
  SqlResult<Value> c = CoerceToColumn(col, v, 1);
  if (!c.ok() || c->is_null() || Value::Compare(*c, v) != 0) return std::nullopt;
  std::string out;
  AppendKeyColumn(col, *c, &out);
  return out;
}

namespace {

// MySQL's binary DECIMAL(m, d) size (decimal_bin_size), which EXPLAIN's key_len counts: 4 bytes
// per 9 digits on each side of the point, fewer for the digits left over.
uint32_t DecimalBinarySize(uint32_t m, uint32_t d) {
  static constexpr uint32_t kLeftoverBytes[] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};
  const uint32_t intg = m - d;
  return intg / 9 * 4 + kLeftoverBytes[intg % 9] + d / 9 * 4 + kLeftoverBytes[d % 9];
}

// A conjunct of a shape an index may use: column op literal(s).
struct ColumnPredicate {
  enum class Kind : uint8_t { kEq, kIn, kLower, kUpper, kBetween, kLikePrefix, kOr };
  Kind kind = Kind::kEq;
  uint32_t column = 0;
  std::vector<Value> values;  // kEq/kLower/kUpper: 1; kBetween: 2; kIn: n; kLikePrefix: prefix
  bool inclusive = true;      // kLower/kUpper
  const Expr* source = nullptr;
  std::vector<ColumnPredicate> alternatives;  // kOr: the disjuncts, all on `column`
};

std::optional<Value> LiteralOf(const Expr* e) {
  if (e == nullptr) return std::nullopt;
  if (e->kind == Expr::Kind::kLiteral) return e->value;
  if (e->kind == Expr::Kind::kUnary && e->unary_op == UnaryOp::kNeg && e->args.size() == 1) {
    std::optional<Value> v = LiteralOf(e->args[0].get());
    if (!v.has_value()) return std::nullopt;
    if (v->is_int() && v->as_int() != INT64_MIN) return Value::Int(-v->as_int());
    if (v->is_double()) return Value::Double(-v->as_double());
    if (v->is_decimal()) return Value::Dec(v->as_decimal().Negated());
  }
  return std::nullopt;
}

int ColumnOf(const TableDef& def, const Expr* e) {
  if (e == nullptr || e->kind != Expr::Kind::kColumn) return -1;
  if (!e->table.empty()) {
    // A qualifier naming another table is 1054 at bind time; here it just cannot be used.
    if (!EqualsNoCase(e->table, def.name)) return -1;
  }
  return def.FindColumn(e->name);
}

BinaryOp Flip(BinaryOp op) {
  switch (op) {
    case BinaryOp::kLt:
      return BinaryOp::kGt;
    case BinaryOp::kLe:
      return BinaryOp::kGe;
    case BinaryOp::kGt:
      return BinaryOp::kLt;
    case BinaryOp::kGe:
      return BinaryOp::kLe;
    default:
      return op;
  }
}

std::optional<ColumnPredicate> Analyze(const TableDef& def, const Expr* e);

// The disjuncts of an OR tree, each analyzed; false if one is not of a usable shape.
bool AnalyzeDisjuncts(const TableDef& def, const Expr* e, std::vector<ColumnPredicate>* out) {
  if (e->kind == Expr::Kind::kBinary && e->binary_op == BinaryOp::kOr) {
    return AnalyzeDisjuncts(def, e->args[0].get(), out) &&
           AnalyzeDisjuncts(def, e->args[1].get(), out);
  }
  std::optional<ColumnPredicate> p = Analyze(def, e);
  if (!p.has_value() || p->kind == ColumnPredicate::Kind::kLikePrefix) return false;
  out->push_back(std::move(*p));
  return true;
}

std::optional<ColumnPredicate> Analyze(const TableDef& def, const Expr* e) {
  ColumnPredicate p;
  p.source = e;
  switch (e->kind) {
    case Expr::Kind::kBinary: {
      BinaryOp op = e->binary_op;
      if (op == BinaryOp::kOr) {
        // An OR of equalities, IN lists and ranges on one column: a union of ranges, as
        // MySQL's range optimizer builds it.
        if (!AnalyzeDisjuncts(def, e, &p.alternatives)) return std::nullopt;
        p.kind = ColumnPredicate::Kind::kOr;
        p.column = p.alternatives[0].column;
        for (const ColumnPredicate& a : p.alternatives) {
          if (a.column != p.column) return std::nullopt;
        }
        return p;
      }
      if (op != BinaryOp::kEq && op != BinaryOp::kLt && op != BinaryOp::kLe &&
          op != BinaryOp::kGt && op != BinaryOp::kGe)
        return std::nullopt;
      int col = ColumnOf(def, e->args[0].get());
      std::optional<Value> v = LiteralOf(e->args[1].get());
      if (col < 0 || !v.has_value()) {
        col = ColumnOf(def, e->args[1].get());
        v = LiteralOf(e->args[0].get());
        op = Flip(op);
      }
      if (col < 0 || !v.has_value()) return std::nullopt;
      p.column = static_cast<uint32_t>(col);
      p.values.push_back(*v);
      p.kind = op == BinaryOp::kEq                            ? ColumnPredicate::Kind::kEq
               : (op == BinaryOp::kGt || op == BinaryOp::kGe) ? ColumnPredicate::Kind::kLower
                                                              : ColumnPredicate::Kind::kUpper;
      p.inclusive = op == BinaryOp::kGe || op == BinaryOp::kLe || op == BinaryOp::kEq;
      return p;
    }
    case Expr::Kind::kBetween: {
      if (e->negated) return std::nullopt;
      int col = ColumnOf(def, e->args[0].get());
      std::optional<Value> lo = LiteralOf(e->args[1].get()), hi = LiteralOf(e->args[2].get());
      if (col < 0 || !lo.has_value() || !hi.has_value()) return std::nullopt;
      p.kind = ColumnPredicate::Kind::kBetween;
      p.column = static_cast<uint32_t>(col);
      p.values = {*lo, *hi};
      return p;
    }
    case Expr::Kind::kIn: {
      if (e->negated || e->subquery != nullptr) return std::nullopt;
      int col = ColumnOf(def, e->args[0].get());
      if (col < 0) return std::nullopt;
      for (size_t i = 1; i < e->args.size(); ++i) {
        std::optional<Value> v = LiteralOf(e->args[i].get());
        if (!v.has_value()) return std::nullopt;
        p.values.push_back(*v);
      }
      p.kind = p.values.size() == 1 ? ColumnPredicate::Kind::kEq : ColumnPredicate::Kind::kIn;
      p.column = static_cast<uint32_t>(col);
      return p;
    }
    case Expr::Kind::kLike: {
      if (e->negated) return std::nullopt;
      int col = ColumnOf(def, e->args[0].get());
      std::optional<Value> pat = LiteralOf(e->args[1].get());
      if (col < 0 || !pat.has_value() || !pat->is_string()) return std::nullopt;
      if (!IsStringType(def.columns[col].type)) return std::nullopt;
      bool exact = false;
      std::string prefix = LikePrefix(pat->as_string(), &exact);
      // Only 'prefix%' is exactly a key range; a pattern without '%' compares with trailing
      // spaces differently from '=' and stays a residual.
      const std::string& s = pat->as_string();
      if (!exact || prefix.empty() || s.empty() || s.back() != '%') return std::nullopt;
      p.kind = ColumnPredicate::Kind::kLikePrefix;
      p.column = static_cast<uint32_t>(col);
      p.values.push_back(Value::String(std::move(prefix)));
      return p;
    }
    default:
      return std::nullopt;
  }
}

void Intersect(KeyRange* r, const KeyRange& o) {
  r->start = std::max(r->start, o.start);
  if (!o.end_unbounded && (r->end_unbounded || o.end < r->end)) {
    r->end = o.end;
    r->end_unbounded = false;
  }
}

bool IsEmpty(const KeyRange& r) { return !r.end_unbounded && r.start >= r.end; }

struct Candidate {
  AccessPlan plan;
  std::vector<const Expr*> consumed;
  int rank = 9;
};

// The primary key columns a clustered key gives back (not those whose text is kept beside the
// key: the row value holds it).
std::vector<uint32_t> HeldPrimaryKey(const TableDef& def) {
  std::vector<uint32_t> held;
  for (uint32_t c : def.primary_key)
    if (!TextBesideKey(def, def.columns[c])) held.push_back(c);
  return held;
}

// The columns a walk of `index` gives back without reading the row: the clustered key's
// (HeldPrimaryKey), or the secondary key's whose entries give their value (KeyGivesValue: not
// a PAD SPACE text column of a table written before such texts were kept).
std::vector<uint32_t> HeldColumns(const TableDef& def, int index) {
  if (index < 0) return HeldPrimaryKey(def);
  std::vector<uint32_t> held;
  for (uint32_t c : KeyColumns(def, index))
    if (KeyGivesValue(def, def.columns[c])) held.push_back(c);
  return held;
}

// True if a walk of `key_cols` needs no row read. Never for a table-locking (MyISAM) table:
// its index entries hold only the row's position, so every index walk reads the row (which
// also holds the texts of columns whose key is collation weights).
bool Covers(const TableDef& def, const std::vector<uint32_t>& key_cols,
            const std::vector<bool>& needed) {
  if (def.table_locking()) return false;
  for (size_t c = 0; c < needed.size(); ++c) {
    if (needed[c] && std::find(key_cols.begin(), key_cols.end(), c) == key_cols.end()) return false;
  }
  return true;
}

// The leading key columns (of the first `searchable`) that equality predicates fix: appends
// their encodings to *prefix and their conjuncts to *consumed. Returns how many.
uint32_t EqualityPrefix(const TableDef& def, const std::vector<uint32_t>& key_cols,
                        size_t searchable, const std::vector<ColumnPredicate>& preds,
                        std::string* prefix, std::vector<const Expr*>* consumed) {
  uint32_t k = 0;
  for (; k < searchable; ++k) {
    const ColumnDef& col = def.columns[key_cols[k]];
    bool found = false;
    for (const ColumnPredicate& p : preds) {
      if (p.column != key_cols[k] || p.kind != ColumnPredicate::Kind::kEq) continue;
      std::optional<std::string> enc = EncodeExact(col, p.values[0]);
      if (!enc.has_value()) continue;
      *prefix += *enc;
      consumed->push_back(p.source);
      found = true;
      break;
    }
    if (!found) break;
  }
  return k;
}

// An IN list on the key column `column` after `prefix`: one point range per value, in key
// order, appended to *ranges. False if there is none usable.
bool InListRanges(const ColumnDef& col, uint32_t column, const std::string& prefix,
                  const std::vector<ColumnPredicate>& preds, std::vector<KeyRange>* ranges,
                  std::vector<const Expr*>* consumed) {
  for (const ColumnPredicate& p : preds) {
    if (p.column != column || p.kind != ColumnPredicate::Kind::kIn) continue;
    std::vector<std::string> points;
    bool ok = true;
    for (const Value& v : p.values) {
      std::optional<std::string> enc = EncodeExact(col, v);
      if (!enc.has_value()) {
        ok = false;
        break;
      }
      points.push_back(prefix + *enc);
    }
    if (!ok) continue;
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    for (const std::string& pt : points) {
      ranges->push_back(PrefixRange(pt));
      ranges->back().equality = true;
    }
    consumed->push_back(p.source);
    return true;
  }
  return false;
}

// The keys after `prefix` that one comparison, BETWEEN or LIKE 'p%' on the next key column
// allows; nullopt if the predicate cannot bound the range (its literal does not store into
// the column exactly, or it is of another kind).
std::optional<KeyRange> BoundOf(const ColumnDef& col, const std::string& prefix,
                                const ColumnPredicate& p) {
  KeyRange b = PrefixRange(prefix);
  auto lower = [&](const Value& v, bool inclusive) {
    // An ENUM or SET key is in member order, and text compares with its value as text.
    if (IsEnumOrSetType(col.type) && !v.is_integer()) return false;
    std::optional<std::string> enc = EncodeExact(col, v);
    if (!enc.has_value()) return false;
    if (inclusive) {
      b.start = prefix + *enc;
    } else {
      std::optional<std::string> s = Successor(prefix + *enc);
      if (!s.has_value()) return false;
      b.start = *s;
    }
    return true;
  };
  auto upper = [&](const Value& v, bool inclusive) {
    // An ENUM or SET key is in member order, and text compares with its value as text.
    if (IsEnumOrSetType(col.type) && !v.is_integer()) return false;
    std::optional<std::string> enc = EncodeExact(col, v);
    if (!enc.has_value()) return false;
    if (inclusive) {
      KeyRange pr = PrefixRange(prefix + *enc);
      b.end = pr.end;
      b.end_unbounded = pr.end_unbounded;
    } else {
      b.end = prefix + *enc;
      b.end_unbounded = false;
    }
    return true;
  };
  bool usable = true;
  switch (p.kind) {
    case ColumnPredicate::Kind::kLower:
      usable = lower(p.values[0], p.inclusive);
      break;
    case ColumnPredicate::Kind::kUpper:
      usable = upper(p.values[0], p.inclusive);
      break;
    case ColumnPredicate::Kind::kBetween:
      usable = lower(p.values[0], true) && upper(p.values[1], true);
      break;
    case ColumnPredicate::Kind::kLikePrefix: {
      std::string s = prefix;
      AppendKeyPrefix(col, p.values[0].as_string(), &s);
      b = PrefixRange(s);
      break;
    }
    default:
      usable = false;
  }
  if (!usable) return std::nullopt;
  return b;
}

// The comparisons on the key column `column` after `prefix`, intersected into one range
// appended to *ranges. False if none bounds it.
bool ComparisonRange(const ColumnDef& col, uint32_t column, const std::string& prefix,
                     const std::vector<ColumnPredicate>& preds, std::vector<KeyRange>* ranges,
                     std::vector<const Expr*>* consumed, std::vector<const Expr*>* rechecked) {
  KeyRange r = PrefixRange(prefix);
  // Comparisons never match NULL: an open lower end starts after the NULLs.
  if (col.nullable) r.start = prefix + '\x01';
  bool range_part = false;
  for (const ColumnPredicate& p : preds) {
    if (p.column != column) continue;
    std::optional<KeyRange> b = BoundOf(col, prefix, p);
    if (!b.has_value()) continue;
    Intersect(&r, *b);
    // A LIKE's range under a collation with weights is only a superset of its rows.
    const bool exact = p.kind != ColumnPredicate::Kind::kLikePrefix ||
                       KeyPrefixIsExact(col, p.values[0].as_string());
    if (exact) {
      consumed->push_back(p.source);
    } else {
      rechecked->push_back(p.source);
    }
    range_part = true;
  }
  if (range_part) ranges->push_back(r);
  return range_part;
}

// An OR on the key column `column` after `prefix`: each disjunct's ranges, sorted by start
// and with overlapping or adjacent ones merged, appended to *ranges. The OR is not consumed
// (it stays a residual, checked on each row, and is noted in *rechecked). False if there is none
// usable.
bool OrRanges(const ColumnDef& col, uint32_t column, const std::string& prefix,
              const std::vector<ColumnPredicate>& preds, std::vector<KeyRange>* ranges,
              std::vector<const Expr*>* rechecked) {
  for (const ColumnPredicate& p : preds) {
    if (p.column != column || p.kind != ColumnPredicate::Kind::kOr) continue;
    std::vector<KeyRange> parts;
    bool ok = true;
    for (const ColumnPredicate& a : p.alternatives) {
      std::vector<const Expr*> unused;
      std::vector<ColumnPredicate> one{a};
      // An equality is an IN list of one value: its point range.
      if (a.kind == ColumnPredicate::Kind::kEq) one[0].kind = ColumnPredicate::Kind::kIn;
      if (!InListRanges(col, column, prefix, one, &parts, &unused) &&
          !ComparisonRange(col, column, prefix, one, &parts, &unused, &unused)) {
        ok = false;
        break;
      }
    }
    if (!ok) continue;
    std::vector<KeyRange> live;
    for (KeyRange& r : parts) {
      if (!IsEmpty(r)) live.push_back(std::move(r));
    }
    std::sort(live.begin(), live.end(),
              [](const KeyRange& a, const KeyRange& b) { return a.start < b.start; });
    // Overlapping ranges merge; adjacent ones stay apart (each point is a unique search).
    std::vector<KeyRange> merged;
    for (KeyRange& r : live) {
      KeyRange* last = merged.empty() ? nullptr : &merged.back();
      if (last == nullptr || (!last->end_unbounded && r.start >= last->end)) {
        merged.push_back(std::move(r));
        continue;
      }
      const bool same =
          !last->end_unbounded && !r.end_unbounded && r.start == last->start && r.end == last->end;
      if (!last->end_unbounded && (r.end_unbounded || r.end > last->end)) {
        last->end = r.end;
        last->end_unbounded = r.end_unbounded;
      }
      last->equality = same && last->equality && r.equality;
    }
    for (KeyRange& r : merged) ranges->push_back(std::move(r));
    // The ranges are exactly the OR's rows: checking it again filters nothing more.
    rechecked->push_back(p.source);
    return true;
  }
  return false;
}

// The best use of `index`'s key by the predicates, if any: equalities on its leading columns,
// then an IN list or comparisons on the next one.
std::optional<Candidate> TryIndex(const TableDef& def, int index,
                                  const std::vector<ColumnPredicate>& preds,
                                  const std::vector<bool>& needed) {
  std::vector<uint32_t> key_cols = KeyColumns(def, index);
  // Only the index's own columns (not the appended primary key) are searched.
  size_t searchable = index < 0 ? key_cols.size() : def.indexes[index].columns.size();
  Candidate c;
  std::string prefix;
  const uint32_t k = EqualityPrefix(def, key_cols, searchable, preds, &prefix, &c.consumed);
  bool range_part = false;
  std::vector<KeyRange> ranges;
  if (k < searchable) {
    const ColumnDef& col = def.columns[key_cols[k]];
    range_part =
        InListRanges(col, key_cols[k], prefix, preds, &ranges, &c.consumed) ||
        ComparisonRange(col, key_cols[k], prefix, preds, &ranges, &c.consumed, &c.plan.rechecked) ||
        OrRanges(col, key_cols[k], prefix, preds, &ranges, &c.plan.rechecked);
  }
  if (k == 0 && !range_part) return std::nullopt;
  if (!range_part) {
    ranges.push_back(PrefixRange(prefix));
    ranges.back().equality = true;
  }
  AccessPlan& plan = c.plan;
  plan.index = index;
  plan.key_parts = k + (range_part ? 1 : 0);
  plan.covering = Covers(def, HeldColumns(def, index), needed);
  for (const KeyRange& r : ranges) {
    if (!IsEmpty(r)) plan.ranges.push_back(r);
  }
  plan.empty = plan.ranges.empty();
  // Each range one whole primary key value (const, an IN list, an OR of equalities): InnoDB
  // reads each with a unique search.
  plan.unique_points = index < 0 && plan.key_parts == searchable &&
                       std::all_of(plan.ranges.begin(), plan.ranges.end(),
                                   [](const KeyRange& r) { return r.equality; });
  if (index < 0) {
    plan.type = !range_part && k == searchable ? AccessType::kConst
                : range_part                   ? AccessType::kRange
                                               : AccessType::kRef;
    c.rank = plan.type == AccessType::kConst ? 0 : 1;
  } else {
    plan.type = range_part ? AccessType::kRange : AccessType::kRef;
    c.rank = range_part ? 3 : 2;
  }
  return c;
}

// Whether walking `plan` yields rows in `order`.
bool WalkGivesOrder(const TableDef& def, const AccessPlan& plan,
                    const std::vector<OrderColumn>& order, bool* reverse) {
  if (order.empty()) return true;
  bool desc = order[0].desc;
  for (const OrderColumn& o : order) {
    if (o.desc != desc) return false;
  }
  *reverse = desc;
  std::vector<uint32_t> key_cols = KeyColumns(def, plan.index);
  // Leading key columns fixed by equality (every range shares them).
  uint32_t fixed = plan.type == AccessType::kRange ? plan.key_parts - 1 : plan.key_parts;
  if (plan.type == AccessType::kIndex || plan.type == AccessType::kAll) fixed = 0;
  auto is_fixed = [&](uint32_t col) {
    for (uint32_t i = 0; i < fixed && i < key_cols.size(); ++i) {
      if (key_cols[i] == col) return true;
    }
    return false;
  };
  size_t pos = 0;
  for (const OrderColumn& o : order) {
    if (is_fixed(o.column)) continue;
    while (pos < key_cols.size() && is_fixed(key_cols[pos])) ++pos;
    if (pos < key_cols.size() && key_cols[pos] == o.column) {
      ++pos;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

bool IndexCovers(const TableDef& def, int index, const std::vector<bool>& needed) {
  return Covers(def, HeldColumns(def, index), needed);
}

const char* AccessTypeName(AccessType t) {
  switch (t) {
    case AccessType::kConst:
      return "const";
    case AccessType::kEqRef:
      return "eq_ref";
    case AccessType::kRef:
      return "ref";
    case AccessType::kRange:
      return "range";
    case AccessType::kIndex:
      return "index";
    case AccessType::kAll:
      return "ALL";
  }
  return "ALL";
}

std::string IndexName(const TableDef& def, int index) {
  if (index < 0) return def.has_hidden_primary_key() ? "GEN_CLUST_INDEX" : "PRIMARY";
  return def.indexes[index].name;
}

std::vector<uint32_t> KeyColumns(const TableDef& def, int index) {
  if (index < 0) return def.primary_key;
  std::vector<uint32_t> cols = def.indexes[index].columns;
  for (uint32_t pk : def.primary_key) {
    if (std::find(cols.begin(), cols.end(), pk) == cols.end()) cols.push_back(pk);
  }
  return cols;
}

uint32_t KeyLength(const TableDef& def, int index, uint32_t parts) {
  std::vector<uint32_t> cols = KeyColumns(def, index);
  uint32_t len = 0;
  for (uint32_t i = 0; i < parts && i < cols.size(); ++i) {
    const ColumnDef& c = def.columns[cols[i]];
    // The column's charset (a definition made without DDL has none: the table's).
    const std::string cs =
        c.collation != nullptr ? std::string(c.collation->charset) : CanonicalCharset(def.charset);
    const uint32_t per_char = cs == "utf8mb4" ? 4 : cs == "utf8mb3" ? 3 : 1;
    switch (c.type) {
      case ColumnType::kTinyInt:
        len += 1;
        break;
      case ColumnType::kSmallInt:
        len += 2;
        break;
      case ColumnType::kMediumInt:
        len += 3;
        break;
      case ColumnType::kInt:
        len += 4;
        break;
      case ColumnType::kBigInt:
      case ColumnType::kDouble:
        len += 8;
        break;
      case ColumnType::kDate:
        len += 3;
        break;
      case ColumnType::kDateTime:  // MySQL's DATETIME2: 5 bytes and the fraction's
        len += 5 + (c.length + 1) / 2;
        break;
      case ColumnType::kTimestamp:  // MySQL's TIMESTAMP2: 4 bytes and the fraction's
        len += 4 + (c.length + 1) / 2;
        break;
      case ColumnType::kYear:
        len += 1;
        break;
      case ColumnType::kTime:  // MySQL's TIME2: 3 bytes and the fraction's
        len += 3 + (c.length + 1) / 2;
        break;
      case ColumnType::kEnum:
      case ColumnType::kSet:
        len += EnumSetBytes(c.type, c.members->names.size());
        break;
      case ColumnType::kDecimal:
        len += DecimalBinarySize(c.length, c.scale);
        break;
      case ColumnType::kChar:
        len += c.length * per_char;
        break;
      case ColumnType::kVarchar:
        len += c.length * per_char + 2;
        break;
      case ColumnType::kText:
      case ColumnType::kBlob:
        len += 2 + c.length * per_char;
        break;
    }
    if (c.nullable) len += 1;
  }
  return len;
}

void SplitConjuncts(const Expr* e, std::vector<const Expr*>* out) {
  if (e == nullptr) return;
  if (e->kind == Expr::Kind::kBinary && e->binary_op == BinaryOp::kAnd) {
    SplitConjuncts(e->args[0].get(), out);
    SplitConjuncts(e->args[1].get(), out);
    return;
  }
  out->push_back(e);
}

namespace {

// The conjuncts of a WHERE that MIN/MAX's index read can take (MySQL's matching_cond):
// column = literal, <, <=, >, >= literal, BETWEEN literals; nullopt if one is of another shape.
std::optional<std::vector<ColumnPredicate>> MinMaxPredicates(const TableDef& def,
                                                             const Expr* where) {
  std::vector<const Expr*> conjuncts;
  SplitConjuncts(where, &conjuncts);
  std::vector<ColumnPredicate> preds;
  for (const Expr* c : conjuncts) {
    std::optional<ColumnPredicate> p = Analyze(def, c);
    if (!p.has_value()) return std::nullopt;
    using K = ColumnPredicate::Kind;
    if (p->kind != K::kEq && p->kind != K::kLower && p->kind != K::kUpper && p->kind != K::kBetween)
      return std::nullopt;
    for (const Value& v : p->values) {
      if (v.is_null()) return std::nullopt;
    }
    preds.push_back(std::move(*p));
  }
  return preds;
}

// MIN/MAX(column) through `index`, whose searchable key part `part` is the column.
std::optional<MinMaxRead> MinMaxThrough(const TableDef& def, int index, uint32_t part,
                                        uint32_t column, bool max,
                                        const std::vector<ColumnPredicate>& preds) {
  std::vector<bool> needed(def.columns.size(), false);
  needed[column] = true;
  MinMaxRead read;
  AccessPlan& plan = read.plan;
  uint32_t fixed = 0;    // leading key parts fixed by equalities
  bool bounded = false;  // the column itself has a range
  if (preds.empty()) {
    if (part != 0) return std::nullopt;
    plan.type = AccessType::kIndex;
    plan.index = index;
    plan.ranges.emplace_back();
  } else {
    std::optional<Candidate> c = TryIndex(def, index, preds, needed);
    // Every conjunct must be enforced by the range exactly.
    if (!c.has_value() || c->consumed.size() != preds.size() || !c->plan.rechecked.empty() ||
        c->plan.ranges.size() > 1)
      return std::nullopt;
    bounded = c->plan.type == AccessType::kRange;
    fixed = bounded ? c->plan.key_parts - 1 : c->plan.key_parts;
    // Equalities on the parts before the column, then a range on it or an equality.
    if (!(fixed == part || (fixed == part + 1 && !bounded))) return std::nullopt;
    plan = std::move(c->plan);
  }
  const bool open_column = fixed == part && !bounded;  // no predicate on the column
  if (!max && open_column && def.columns[column].nullable && !plan.ranges.empty()) {
    // The non-NULL keys first (a nullable column's key starts with 0x01: row_codec.h), then,
    // if there are none, the NULLs.
    const std::string prefix = plan.ranges.front().start;
    plan.ranges.front().start = prefix + '\x01';
    read.nulls = PrefixRange(prefix + '\0');
  }
  plan.reverse = max;
  plan.covering = Covers(def, HeldColumns(def, plan.index), needed);
  return read;
}

}  // namespace

std::optional<MinMaxRead> MinMaxPlan(const TableDef& def, const Expr* where, uint32_t column,
                                     bool max) {
  const ColumnDef& col = def.columns[column];
  if (col.type == ColumnType::kText || col.type == ColumnType::kBlob) return std::nullopt;
  std::optional<std::vector<ColumnPredicate>> preds = MinMaxPredicates(def, where);
  if (!preds.has_value()) return std::nullopt;
  auto try_index = [&](int index) -> std::optional<MinMaxRead> {
    std::vector<uint32_t> key_cols = KeyColumns(def, index);
    size_t searchable = index < 0 ? key_cols.size() : def.indexes[index].columns.size();
    for (uint32_t part = 0; part < searchable; ++part) {
      if (key_cols[part] == column) return MinMaxThrough(def, index, part, column, max, *preds);
    }
    return std::nullopt;
  };
  if (!def.has_hidden_primary_key()) {
    if (std::optional<MinMaxRead> r = try_index(-1)) return r;  // PRIMARY
  }
  for (size_t i = 0; i < def.indexes.size(); ++i) {
    if (std::optional<MinMaxRead> r = try_index(static_cast<int>(i))) return r;
  }
  return std::nullopt;
}

AccessPlan ChoosePlan(const PlanRequest& req) {
  const TableDef& def = *req.def;
  std::vector<const Expr*> conjuncts;
  if (req.conjuncts != nullptr) {
    conjuncts = *req.conjuncts;
  } else {
    SplitConjuncts(req.where, &conjuncts);
  }
  std::vector<ColumnPredicate> preds;
  for (const Expr* c : conjuncts) {
    std::optional<ColumnPredicate> p = Analyze(def, c);
    if (p.has_value()) preds.push_back(std::move(*p));
  }
  std::vector<bool> needed = req.needed;
  needed.resize(def.columns.size(), false);

  std::optional<Candidate> best;
  std::vector<int> possible;
  auto consider = [&](int index) {
    std::optional<Candidate> c = TryIndex(def, index, preds, needed);
    if (!c.has_value()) return;
    possible.push_back(index);
    if (!best.has_value() || c->rank < best->rank ||
        (c->rank == best->rank && c->plan.covering && !best->plan.covering) ||
        (c->rank == best->rank && c->plan.covering == best->plan.covering &&
         c->plan.key_parts > best->plan.key_parts)) {
      best = std::move(c);
    }
  };
  if (!def.has_hidden_primary_key()) consider(-1);
  for (size_t i = 0; i < def.indexes.size(); ++i) consider(static_cast<int>(i));

  AccessPlan plan;
  std::vector<const Expr*> consumed;
  if (best.has_value()) {
    plan = std::move(best->plan);
    consumed = std::move(best->consumed);
  } else {
    plan.ranges.push_back(KeyRange{});
    if (!def.has_hidden_primary_key() && Covers(def, HeldPrimaryKey(def), needed)) {
      plan.type = AccessType::kIndex;
      plan.index = -1;
      plan.covering = true;
    } else {
      plan.type = AccessType::kAll;
      plan.index = -1;
      plan.covering = Covers(def, HeldPrimaryKey(def), needed);
      for (size_t i = 0; i < def.indexes.size(); ++i) {
        if (Covers(def, HeldColumns(def, static_cast<int>(i)), needed)) {
          plan.type = AccessType::kIndex;
          plan.index = static_cast<int>(i);
          plan.covering = true;
          break;
        }
      }
    }
  }
  plan.possible_keys = std::move(possible);
  for (const Expr* c : conjuncts) {
    if (std::find(consumed.begin(), consumed.end(), c) == consumed.end())
      plan.residual.push_back(c);
  }
  if (req.order_needs_sort) {
    plan.needs_sort = true;
  } else if (plan.type != AccessType::kConst) {
    bool reverse = false;
    if (WalkGivesOrder(def, plan, req.order, &reverse)) {
      plan.reverse = reverse;
    } else {
      plan.needs_sort = true;
    }
  }
  return plan;
}

}  // namespace minnow::sql
