// Binding a join's FROM and planning its steps (join.h).

#include <algorithm>
#include <functional>
#include <numeric>

#include "sql_lite_front/execute/derived_table.h"
#include "sql_lite_front/execute/join.h"
#include "sql_lite_front/parse/ast_walk.h"
#include "sql_lite_front/parse/lexer.h"
#include "sql_lite_front/status/status_views.h"

namespace minnow::sql {
namespace {

// One table of the FROM clause, by FROM position.
struct FromTable {
  std::shared_ptr<const OpenTable> table;
  size_t first = 0;
  bool outer = false;
  size_t group = 0;  // the FROM position that starts its comma operand
  LockMode lock = LockMode::kNone;
  LockWait wait = LockWait::kWait;
};

// One conjunct of WHERE or of an ON clause, bound over the joined row.
struct Conjunct {
  const Expr* expr = nullptr;
  BoundExpr bound;
  uint64_t tables = 0;  // FROM positions it reads, as bits
  int outer_of = -1;    // an outer table's ON: that table's FROM position
};

// A way to read one table by a key from the tables before it.
struct Lookup {
  int index = -1;
  AccessType type = AccessType::kRef;
  std::vector<const Conjunct*> parts;  // per key part: `col = x`, col the table's
  std::vector<int> sides;              // which arg of the conjunct is the column
  int score() const { return type == AccessType::kEqRef ? 2 : 1; }
};

struct Planning {
  JoinPlan* plan;
  const BindScope* scope = nullptr;  // the joined row's
  const ExecContext* ctx = nullptr;
  std::vector<FromTable> from;
  std::vector<size_t> table_of;  // per joined-row column, its FROM position
  std::vector<Conjunct> conjuncts;
  uint64_t const_tables = 0;  // read first by a const plan (their columns are constants)
};

uint64_t Bit(size_t pos) { return uint64_t{1} << pos; }

SqlError NotSupported(std::string_view what) {
  return SqlErr(kErNotSupportedYet, "This version of minnow doesn't yet support '", what, "'");
}

// The FROM positions whose columns `e` reads.
uint64_t TablesOf(const BoundExpr& e, const std::vector<size_t>& table_of) {
  uint64_t s = 0;
  if (e.kind == BoundExpr::Kind::kColumn) s |= Bit(table_of[e.column]);
  for (const BoundExpr& a : e.args) s |= TablesOf(a, table_of);
  return s;
}

// A copy of `e` whose column names are unqualified (it reads one table's columns only) and
// whose outer references are constants (PlannerCopy).
ExprPtr Unqualified(const Planning& pl, const Expr& e) {
  return PlannerCopy(e, *pl.scope, *pl.ctx);
}

// A key column may be looked up by `v` when comparing them compares the key's values.
bool SameKeyType(const ColumnDef& col, const BoundExpr& v) {
  if (v.kind == BoundExpr::Kind::kLiteral) {
    if (col.type == ColumnType::kDecimal) return v.value.is_integer() || v.value.is_decimal();
    return IsIntegerType(col.type) ? v.value.is_integer()
                                   : IsStringType(col.type) && v.value.is_string();
  }
  if (IsIntegerType(col.type)) return v.type == TypeClass::kInt;
  if (col.type == ColumnType::kDecimal)
    return v.type == TypeClass::kInt || v.type == TypeClass::kDecimal;
  if (IsStringType(col.type) && col.type != ColumnType::kBlob)
    return v.type == TypeClass::kString && v.collation == col.collation;
  return false;
}

// The best lookup of table `pos` given the tables in `placed`, if any; the indexes it could
// use go to *possible.
std::optional<Lookup> FindLookup(const Planning& pl, size_t pos, uint64_t placed,
                                 std::vector<int>* possible) {
  const FromTable& ft = pl.from[pos];
  const TableDef& def = ft.table->def;
  const int outer_of = ft.outer ? static_cast<int>(pos) : -1;
  std::optional<Lookup> best;
  auto consider = [&](int index) {
    std::vector<uint32_t> key_cols = KeyColumns(def, index);
    const size_t searchable = index < 0 ? key_cols.size() : def.indexes[index].columns.size();
    Lookup l;
    l.index = index;
    bool joined = false;
    for (size_t k = 0; k < searchable; ++k) {
      const ColumnDef& col = def.columns[key_cols[k]];
      const Conjunct* found = nullptr;
      int side = 0;
      for (const Conjunct& c : pl.conjuncts) {
        if (c.outer_of != outer_of || (c.tables & Bit(pos)) == 0) continue;
        const BoundExpr& b = c.bound;
        if (b.kind != BoundExpr::Kind::kBinary || b.binary_op != BinaryOp::kEq) continue;
        for (int s = 0; s < 2 && found == nullptr; ++s) {
          const BoundExpr& a = b.args[s];
          const BoundExpr& other = b.args[1 - s];
          if (a.kind != BoundExpr::Kind::kColumn ||
              static_cast<size_t>(a.column) != ft.first + key_cols[k])
            continue;
          const uint64_t other_tables = TablesOf(other, pl.table_of);
          if ((other_tables & Bit(pos)) != 0 || (other_tables & ~placed) != 0) continue;
          if (!SameKeyType(col, other)) continue;
          found = &c;
          side = s;
        }
        if (found != nullptr) break;
      }
      if (found == nullptr) break;
      if ((found->tables & ~Bit(pos)) != 0) joined = true;
      l.parts.push_back(found);
      l.sides.push_back(side);
    }
    if (!joined) return;
    possible->push_back(index);
    bool unique = index < 0;
    if (index >= 0 && def.indexes[index].unique) {
      unique = true;
      for (uint32_t c : def.indexes[index].columns) unique = unique && !def.columns[c].nullable;
    }
    l.type = l.parts.size() == searchable && unique ? AccessType::kEqRef : AccessType::kRef;
    if (!best.has_value() || l.score() > best->score() ||
        (l.score() == best->score() && l.parts.size() > best->parts.size())) {
      best = std::move(l);
    }
  };
  if (!def.has_hidden_primary_key()) consider(-1);
  for (size_t i = 0; i < def.indexes.size(); ++i) consider(static_cast<int>(i));
  return best;
}

// The conjuncts pushed into table `pos`'s own read: an inner table's WHERE-like ones that read
// only it, an outer table's ON ones that read only it; constants go to `first_step`.
bool IsLocal(const Conjunct& c, size_t pos, const FromTable& ft, size_t first_step) {
  const int outer_of = ft.outer ? static_cast<int>(pos) : -1;
  if (c.outer_of != outer_of) return false;
  if (c.tables == 0) return ft.outer || pos == first_step;
  return c.tables == Bit(pos);
}

// A local plan's type, for ordering (const tables are read first, as MySQL does).
bool HasConstPlan(const Planning& pl, size_t pos, const std::vector<bool>& needed) {
  const FromTable& ft = pl.from[pos];
  if (ft.outer) return false;
  std::vector<ExprPtr> own;
  std::vector<const Expr*> conj;
  for (const Conjunct& c : pl.conjuncts) {
    if (c.outer_of == -1 && c.tables == Bit(pos)) {
      own.push_back(Unqualified(pl, *c.expr));
      conj.push_back(own.back().get());
    }
  }
  PlanRequest req;
  req.def = &ft.table->def;
  req.conjuncts = &conj;
  req.needed = needed;
  return ChoosePlan(req).type == AccessType::kConst;
}

// The join order for tables that are all inner-joined (join.h): const tables first, then the
// order with the most lookups (eq_ref 2, ref 1), the first such in FROM order.
std::vector<size_t> ChooseInnerOrder(Planning& pl, const std::vector<std::vector<bool>>& needed) {
  const size_t n = pl.from.size();
  std::vector<size_t> consts, rest;
  for (size_t i = 0; i < n; ++i) (HasConstPlan(pl, i, needed[i]) ? consts : rest).push_back(i);
  if (rest.size() > 7) {  // beyond 7! orders, FROM order
    consts.insert(consts.end(), rest.begin(), rest.end());
    return consts;
  }
  uint64_t const_bits = 0;
  for (size_t c : consts) const_bits |= Bit(c);
  pl.const_tables = const_bits;
  std::vector<size_t> best = rest, perm = rest;
  int best_score = -1;
  do {
    int score = 0;
    uint64_t placed = const_bits;
    for (size_t p : perm) {
      std::vector<int> unused;
      std::optional<Lookup> l = FindLookup(pl, p, placed, &unused);
      if (l.has_value()) score += l->score();
      placed |= Bit(p);
    }
    if (score > best_score) {
      best_score = score;
      best = perm;
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
  consts.insert(consts.end(), best.begin(), best.end());
  return consts;
}

// EXPLAIN's ref of a lookup part: "const", the column it reads ("test.t1.a"), or "func".
std::string RefName(const Planning& pl, const BoundExpr& v) {
  const uint64_t tables = TablesOf(v, pl.table_of);
  if ((tables & ~pl.const_tables) == 0) return "const";
  if (v.kind == BoundExpr::Kind::kColumn) {
    const size_t t = pl.table_of[v.column];
    const std::string& schema = pl.plan->from_tables[t]->def.schema;  // empty: a derived table
    return (schema.empty() ? "" : schema + ".") + pl.plan->as_named[t] + "." +
           pl.plan->columns[v.column]->name;
  }
  return "func";
}

// Plans the table at FROM position `pos` as step `step` of the order.
SqlStatus PlanStep(ExecContext& ctx, Planning& pl, size_t pos, uint64_t placed, size_t first_step,
                   const std::vector<bool>& needed, std::vector<const Conjunct*>* consumed,
                   JoinStep* s) {
  const FromTable& ft = pl.from[pos];
  const TableDef& def = ft.table->def;
  s->table = ft.table;
  s->as_named = pl.plan->as_named[pos];
  s->position = pos;
  s->first = ft.first;
  s->outer = ft.outer;
  s->lock = ft.lock;
  s->wait = ft.wait;
  std::vector<int> possible;  // as MySQL's: the keys a join condition could look up in any order
  FindLookup(pl, pos, ~Bit(pos), &possible);
  std::vector<int> unused;
  std::optional<Lookup> lookup = FindLookup(pl, pos, placed, &unused);
  std::vector<const Expr*> local;
  for (const Conjunct& c : pl.conjuncts) {
    if (!IsLocal(c, pos, ft, first_step)) continue;
    if (lookup.has_value() &&
        std::find(lookup->parts.begin(), lookup->parts.end(), &c) != lookup->parts.end())
      continue;
    s->own.push_back(Unqualified(pl, *c.expr));
    local.push_back(s->own.back().get());
  }
  PlanRequest req;
  req.def = &def;
  req.conjuncts = &local;
  req.needed = needed;
  AccessPlan own_plan = ChoosePlan(req);
  if (lookup.has_value()) {
    s->lookup = true;
    AccessPlan& plan = s->plan;
    plan.type = lookup->type;
    plan.index = lookup->index;
    plan.key_parts = static_cast<uint32_t>(lookup->parts.size());
    plan.covering = IndexCovers(def, lookup->index, needed);
    plan.unique_points = lookup->index < 0 && lookup->type == AccessType::kEqRef;
    plan.residual = local;
    plan.possible_keys = own_plan.possible_keys;
    std::vector<uint32_t> key_cols = KeyColumns(def, lookup->index);
    for (size_t k = 0; k < lookup->parts.size(); ++k) {
      const Conjunct* c = lookup->parts[k];
      consumed->push_back(c);
      JoinStep::KeyPart part;
      part.column = &def.columns[key_cols[k]];
      const BoundExpr& v = c->bound.args[1 - lookup->sides[k]];
      if (v.kind == BoundExpr::Kind::kLiteral) {
        part.constant = EncodeExact(*part.column, v.value);
        if (!part.constant.has_value()) plan.empty = true;  // no row can hold it
      } else {
        part.value = v;
      }
      part.ref = RefName(pl, v);
      s->key.push_back(std::move(part));
    }
    // A unique key from constants (literals, const tables' columns) is MySQL's const table.
    if (plan.type == AccessType::kEqRef &&
        std::all_of(s->key.begin(), s->key.end(),
                    [](const JoinStep::KeyPart& k) { return k.ref == "const"; }))
      plan.type = AccessType::kConst;
  } else {
    s->plan = std::move(own_plan);
  }
  for (int k : s->plan.possible_keys) possible.push_back(k);
  std::sort(possible.begin(), possible.end());
  possible.erase(std::unique(possible.begin(), possible.end()), possible.end());
  s->plan.possible_keys = std::move(possible);
  // InnoDB reads the whole row under FOR UPDATE (as the single-table path).
  if (s->lock == LockMode::kExclusive && !s->plan.clustered()) s->plan.covering = false;
  BindScope own_scope = ScopeForTable(def, s->as_named);
  for (const Expr* e : s->plan.residual) {
    SQL_ASSIGN_OR_RETURN(BoundExpr b, BindExpr(*e, own_scope, ctx, "where clause"));
    s->residual.push_back(std::move(b));
  }
  return SqlStatus::OK();
}

// The fixed order of a join with outer joins or STRAIGHT_JOIN: FROM order, but a RIGHT JOIN
// reads its right table first (1235 unless its left operand is one table).
SqlResult<std::vector<size_t>> FixedOrder(const SelectStmt& stmt) {
  std::vector<size_t> order{0};
  for (size_t i = 0; i < stmt.joins.size(); ++i) {
    const JoinedTable& j = stmt.joins[i];
    const size_t pos = i + 1;
    if (j.kind == JoinedTable::Kind::kRight) {
      const bool first_of_operand = i == 0 || stmt.joins[i - 1].comma;
      if (!first_of_operand || j.comma) return NotSupported("RIGHT JOIN of a join");
      order.insert(order.end() - 1, pos);
    } else {
      order.push_back(pos);
    }
  }
  return order;
}

}  // namespace

SqlStatus BindJoinFrom(ExecContext& ctx, const SelectStmt& stmt, PreparedSelect* p) {
  auto plan = std::make_shared<JoinPlan>();
  struct Source {
    const TableName* name;
    const std::string* alias;
    const std::optional<DerivedTable>* derived;
  };
  std::vector<Source> sources{{&*stmt.from, &stmt.from_alias, &stmt.from_derived}};
  for (const JoinedTable& j : stmt.joins) sources.push_back({&j.table, &j.alias, &j.derived});
  if (sources.size() > 61) return NotSupported("joins of more than 61 tables");
  // MySQL's rule: two FROM tables clash when both their names-as-known (alias or name) and
  // their databases are equal (db1.t JOIN db2.t is two tables).
  for (size_t i = 0; i < sources.size(); ++i) {
    const Source& s = sources[i];
    const std::string& as_named = s.alias->empty() ? s.name->name : *s.alias;
    for (size_t k = 0; k < i; ++k) {
      if (EqualsNoCase(plan->as_named[k], as_named) &&
          EqualsNoCase(sources[k].name->schema, s.name->schema))
        return SqlErr(kErNonUniqTable, "Not unique table/alias: '", as_named, "'");
    }
    plan->as_named.push_back(as_named);
  }
  BindScope& scope = p->scope;
  std::vector<std::shared_ptr<const OpenTable>> tables;
  for (size_t t = 0; t < sources.size(); ++t) {
    if (IsSystemSchema(sources[t].name->schema)) return NotSupported("joins of system tables");
    std::shared_ptr<const OpenTable> table;
    if (sources[t].derived->has_value()) {
      SQL_ASSIGN_OR_RETURN(table, MaterializeDerived(ctx, **sources[t].derived, *sources[t].alias));
    } else {
      SQL_ASSIGN_OR_RETURN(table, FindTable(ctx, *sources[t].name));
    }
    BindScope own = ScopeForTable(table->def);
    BindScope::JoinTable jt;
    jt.as_named = plan->as_named[t];
    jt.schema = table->def.schema;
    jt.first = scope.columns.size();
    jt.count = own.columns.size();
    scope.join_tables.push_back(jt);
    std::vector<size_t> cols(jt.count);
    std::iota(cols.begin(), cols.end(), jt.first);
    plan->tables.push_back(std::move(cols));
    for (size_t c = 0; c < own.columns.size(); ++c) {
      scope.columns.push_back(own.columns[c]);
      scope.unsigned_columns.push_back(own.unsigned_columns[c]);
      scope.collations.push_back(own.collations[c]);
      scope.column_types.push_back(own.column_types[c]);
      scope.column_scales.push_back(own.column_scales[c]);
      plan->columns.push_back(&table->def.columns[c]);
    }
    tables.push_back(std::move(table));
  }
  scope.table = tables[0]->def.name;
  scope.schema = tables[0]->def.schema;
  scope.alias = stmt.from_alias;
  scope.used.assign(scope.columns.size(), false);
  scope.merged_into.assign(scope.columns.size(), -1);

  // `*`'s columns, operand by operand; USING merges its columns (join.h).
  std::vector<size_t> operand = plan->tables[0];
  for (size_t i = 0; i < stmt.joins.size(); ++i) {
    const JoinedTable& j = stmt.joins[i];
    const std::vector<size_t>& right = plan->tables[i + 1];
    if (j.comma) {
      plan->star.insert(plan->star.end(), operand.begin(), operand.end());
      operand = right;
      continue;
    }
    if (j.using_columns.empty()) {
      operand.insert(operand.end(), right.begin(), right.end());
      continue;
    }
    std::vector<size_t> common, left_rest = operand, right_rest = right;
    for (const std::string& u : j.using_columns) {
      std::optional<size_t> l, r;
      for (size_t c : operand) {
        if (!EqualsNoCase(scope.columns[c], u) || scope.merged_into[c] >= 0) continue;
        if (l.has_value())
          return SqlErr(kErNonUniq, "Column '", u, "' in from clause is ambiguous");
        l = c;
      }
      for (size_t c : right) {
        if (EqualsNoCase(scope.columns[c], u)) r = c;
      }
      if (!l.has_value() || !r.has_value())
        return SqlErr(kErBadField, "Unknown column '", u, "' in 'from clause'");
      const bool right_join = j.kind == JoinedTable::Kind::kRight;
      scope.merged_into[right_join ? *l : *r] = static_cast<int>(right_join ? *r : *l);
      common.push_back(right_join ? *r : *l);
      left_rest.erase(std::find(left_rest.begin(), left_rest.end(), *l));
      right_rest.erase(std::find(right_rest.begin(), right_rest.end(), *r));
      auto eq = std::make_unique<Expr>();
      eq->kind = Expr::Kind::kBinary;
      eq->binary_op = BinaryOp::kEq;
      for (size_t c : {*l, *r}) {
        auto col = std::make_unique<Expr>();
        col->kind = Expr::Kind::kColumn;
        size_t t = 0;
        while (c >= scope.join_tables[t].first + scope.join_tables[t].count) ++t;
        col->table = plan->as_named[t];
        col->schema = scope.join_tables[t].schema;
        col->name = std::string(scope.columns[c]);
        col->text = col->name;
        eq->args.push_back(std::move(col));
      }
      eq->text = u;
      plan->using_conditions.push_back(std::move(eq));
      plan->using_of.push_back(i);
    }
    operand = common;
    if (j.kind == JoinedTable::Kind::kRight) {
      operand.insert(operand.end(), right_rest.begin(), right_rest.end());
      operand.insert(operand.end(), left_rest.begin(), left_rest.end());
    } else {
      operand.insert(operand.end(), left_rest.begin(), left_rest.end());
      operand.insert(operand.end(), right_rest.begin(), right_rest.end());
    }
  }
  plan->star.insert(plan->star.end(), operand.begin(), operand.end());
  plan->from_tables = std::move(tables);
  p->join = std::move(plan);
  return SqlStatus::OK();
}

SqlStatus PlanJoin(ExecContext& ctx, const SelectStmt& stmt, PreparedSelect* p) {
  JoinPlan& plan = *p->join;
  BindScope& scope = p->scope;
  Planning pl;
  pl.plan = &plan;
  pl.scope = &scope;
  pl.ctx = &ctx;
  pl.table_of.resize(plan.columns.size());
  for (size_t t = 0; t < plan.tables.size(); ++t) {
    for (size_t c : plan.tables[t]) pl.table_of[c] = t;
  }
  const size_t n = plan.tables.size();
  pl.from.resize(n);
  size_t group = 0;
  for (size_t t = 0; t < n; ++t) {
    FromTable& ft = pl.from[t];
    ft.table = plan.from_tables[t];
    ft.first = scope.join_tables[t].first;
    const JoinedTable* j = t == 0 ? nullptr : &stmt.joins[t - 1];
    if (j != nullptr && j->comma) group = t;
    ft.group = group;
    ft.lock = LockModeOf(j == nullptr ? stmt.lock : j->lock);
    ft.wait = LockWaitOf(j == nullptr ? stmt.locked_row : j->locked_row);
  }
  bool fixed = stmt.straight_join;
  scope.allow_aggregates = false;
  // ON clauses, each seeing the tables of its operand up to its own.
  for (size_t i = 0; i < stmt.joins.size(); ++i) {
    const JoinedTable& j = stmt.joins[i];
    const size_t pos = i + 1;
    int outer_of = -1;
    if (j.kind == JoinedTable::Kind::kLeft) {
      outer_of = static_cast<int>(pos);
    } else if (j.kind == JoinedTable::Kind::kRight) {
      outer_of = static_cast<int>(pl.from[pos].group);
    }
    if (j.kind != JoinedTable::Kind::kInner) fixed = true;
    if (outer_of >= 0) pl.from[outer_of].outer = true;
    std::vector<const Expr*> parts;
    SplitConjuncts(j.on.get(), &parts);
    for (size_t u = 0; u < plan.using_conditions.size(); ++u) {
      if (plan.using_of[u] == i) parts.push_back(plan.using_conditions[u].get());
    }
    for (size_t t = 0; t < n; ++t) {
      scope.join_tables[t].visible = t >= pl.from[pos].group && t <= pos;
    }
    for (const Expr* e : parts) {
      Conjunct c;
      c.expr = e;
      c.outer_of = outer_of;
      SqlResult<BoundExpr> b = BindExpr(*e, scope, ctx, "on clause");
      if (!b.ok()) {
        for (BindScope::JoinTable& t : scope.join_tables) t.visible = true;
        return b.status();
      }
      c.bound = std::move(*b);
      c.tables = TablesOf(c.bound, pl.table_of);
      pl.conjuncts.push_back(std::move(c));
    }
    for (BindScope::JoinTable& t : scope.join_tables) t.visible = true;
  }
  std::vector<const Expr*> where;
  SplitConjuncts(stmt.where.get(), &where);
  for (const Expr* e : where) {
    Conjunct c;
    c.expr = e;
    SQL_ASSIGN_OR_RETURN(c.bound, BindExpr(*e, scope, ctx, "where clause"));
    c.tables = TablesOf(c.bound, pl.table_of);
    pl.conjuncts.push_back(std::move(c));
  }
  std::vector<std::vector<bool>> needed(n);
  for (size_t t = 0; t < n; ++t) {
    const BindScope::JoinTable& jt = scope.join_tables[t];
    needed[t].assign(scope.used.begin() + jt.first, scope.used.begin() + jt.first + jt.count);
  }
  std::vector<size_t> order;
  if (fixed) {
    SQL_ASSIGN_OR_RETURN(order, FixedOrder(stmt));
  } else {
    order = ChooseInnerOrder(pl, needed);
  }
  std::vector<const Conjunct*> consumed;
  uint64_t placed = 0;
  std::vector<size_t> step_of(n);
  plan.steps.resize(n);
  for (size_t k = 0; k < n; ++k) {
    const size_t pos = order[k];
    step_of[pos] = k;
    SQL_RETURN_IF_ERROR(
        PlanStep(ctx, pl, pos, placed, order[0], needed[pos], &consumed, &plan.steps[k]));
    placed |= Bit(pos);
  }
  // The conjuncts not pushed into a read nor used by a lookup: at the step where their last
  // table is placed.
  for (const Conjunct& c : pl.conjuncts) {
    if (std::find(consumed.begin(), consumed.end(), &c) != consumed.end()) continue;
    if (c.outer_of >= 0) {
      const size_t pos = static_cast<size_t>(c.outer_of);
      if (IsLocal(c, pos, pl.from[pos], order[0])) continue;
      plan.steps[step_of[pos]].on.push_back(c.bound);
      continue;
    }
    size_t at = 0;
    for (size_t t = 0; t < n; ++t) {
      if ((c.tables & Bit(t)) != 0) at = std::max(at, step_of[t]);
    }
    if (IsLocal(c, order[at], pl.from[order[at]], order[0])) continue;  // pushed into its read
    plan.steps[at].after.push_back(c.bound);
  }
  return SqlStatus::OK();
}

}  // namespace minnow::sql
