// Statements parsed once with placeholders, values bound into the tree (prepared_parse.h).

#include "sql_lite_front/parse/prepared_parse.h"

#include <variant>

#include "sql_lite_front/parse/ast_walk.h"
#include "sql_lite_front/parse/parser_internal.h"

namespace minnow::sql {
namespace {

// The tree is the PreparedParse's own, built mutable: the walks hand out const references.
SelectStmt& Mutable(const SelectStmt& s) { return const_cast<SelectStmt&>(s); }

template <typename Count>
void CountsOfBlocks(const SelectStmt& s, std::vector<Count>* out) {
  ForEachQueryBlock(s, [&](const SelectStmt& block) {
    SelectStmt& b = Mutable(block);
    if (b.limit_param >= 0) out->push_back({static_cast<size_t>(b.limit_param), &b.limit, nullptr});
    if (b.offset_param >= 0) {
      out->push_back({static_cast<size_t>(b.offset_param), nullptr, &b.offset});
    }
  });
}

template <typename Count, typename Write>
void CountsOfWrite(Write& w, std::vector<Count>* out) {
  if (w.limit_param >= 0) out->push_back({static_cast<size_t>(w.limit_param), &w.limit, nullptr});
  ForEachExprOf(w, [&](const Expr& e) {
    ForEachSubqueryBlock(e, [&](const SelectStmt& block) { CountsOfBlocks(block, out); });
  });
}

template <typename Count>
void CountsOf(Statement& st, std::vector<Count>* out) {
  if (auto* s = std::get_if<SelectStmt>(&st)) {
    CountsOfBlocks(*s, out);
  } else if (auto* ins = std::get_if<InsertStmt>(&st)) {
    if (ins->select != nullptr) CountsOfBlocks(*ins->select, out);
  } else if (auto* up = std::get_if<UpdateStmt>(&st)) {
    CountsOfWrite(*up, out);
  } else if (auto* del = std::get_if<DeleteStmt>(&st)) {
    CountsOfWrite(*del, out);
  } else if (auto* ex = std::get_if<std::unique_ptr<ExplainStmt>>(&st)) {
    if (*ex != nullptr) CountsOf((*ex)->statement, out);
  }
}

}  // namespace

SqlResult<std::unique_ptr<PreparedParse>> PreparedParse::Parse(std::string_view sql,
                                                               ParseOptions options) {
  if (sql.size() >= (uint64_t{1} << 32) - 1) return sql::Parse(sql, options).error();
  options.placeholders = true;
  Parser parser(sql, options);
  SQL_ASSIGN_OR_RETURN(Statement st, parser.ParseAll());
  std::unique_ptr<PreparedParse> p(new PreparedParse());
  // The expression nodes are heap-allocated and stay put; the counts live in the statement's
  // blocks, so they are found once it has its final place.
  p->statement_ = std::make_unique<Statement>(std::move(st));
  p->exprs_ = parser.placeholders();
  CountsOf(*p->statement_, &p->counts_);
  size_t counts_made = 0;
  for (const Expr* e : p->exprs_) counts_made += e == nullptr ? 1 : 0;
  if (p->counts_.size() != counts_made) {
    return SqlErr(kErNotSupportedYet, "This version of minnow doesn't yet support '",
                  "LIMIT ? in a subquery of an expression", "'");
  }
  return p;
}

SqlStatus PreparedParse::Bind(std::span<const Value> values) {
  if (values.size() != exprs_.size())
    return SqlErr(kErWrongArguments, "Incorrect arguments to mysqld_stmt_execute");
  for (size_t i = 0; i < exprs_.size(); ++i) {
    if (exprs_[i] != nullptr) exprs_[i]->value = values[i];
  }
  for (const Count& c : counts_) {
    const Value& v = values[c.param];
    uint64_t n = 0;
    if (v.is_int() && v.as_int() >= 0) {
      n = static_cast<uint64_t>(v.as_int());
    } else if (v.is_uint()) {
      n = v.as_uint();
    } else {
      return SqlErr(kErWrongArguments, "Incorrect arguments to mysqld_stmt_execute");
    }
    if (c.limit != nullptr) {
      *c.limit = n;
    } else {
      *c.offset = n;
    }
  }
  return SqlStatus::OK();
}

std::optional<Value> PreparedParse::NumberFromText(std::string_view text) {
  const bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.remove_prefix(1);
  bool digits = false, point = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      digits = true;
    } else if (c == '.' && !point) {
      point = true;
    } else {
      return std::nullopt;
    }
  }
  if (!digits) return std::nullopt;
  const std::string t(text);
  return point ? DecimalLiteral(t, negative) : IntegerLiteral(t, negative);
}

}  // namespace minnow::sql
