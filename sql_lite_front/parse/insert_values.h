#pragma once
// The rows of INSERT ... VALUES (...), (...) and of INSERT ... SET, held compactly: a mysqldump
// statement of 64 MiB has millions of rows, nearly all of plain literals.
//
// A value written as a plain literal (a number with an optional sign, a string, a hex string,
// NULL, TRUE, FALSE) is stored already converted, as a few bytes of an encoded buffer: a tag,
// then a varint, 8 bytes of a double, or a length and the bytes of a string or of a decimal's
// text (exact: a literal shows all its digits). DEFAULT is a tag. Any other value (1+1, now(), @@x,
// VALUES(a) ...) keeps its expression tree, named by its index in a list. Rows may mix the two
// freely. The buffer grows in chunks of kChunkBytes (a value never straddles two), so it never
// copies what it holds.
//
// The parser appends values and ends rows; the executor reads the rows in order with a Reader,
// one row at a time.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql_lite_front/value.h"

namespace minnow::sql {

struct Expr;

// One value of a row as read back: an expression to evaluate, or a literal's value, or DEFAULT.
struct InsertValue {
  static constexpr size_t kNoExpr = SIZE_MAX;
  size_t expr = kNoExpr;       // else evaluate exprs()[expr]
  std::optional<Value> value;  // else the literal's value; nullopt: DEFAULT
  // The literal was a hex literal (0x41, X'41'): value holds its bytes, which a numeric column
  // reads as an unsigned integer (HexLiteralNumber, expr.h).
  bool hex = false;
};

class InsertValues {
 public:
  static constexpr size_t kChunkBytes = 64 * 1024;

  InsertValues();
  ~InsertValues();
  InsertValues(InsertValues&&) noexcept;
  InsertValues& operator=(InsertValues&&) noexcept;

  // ---- building: the values of a row, then EndRow.
  // A literal's value, read back equal (a DECIMAL with its scale).
  void AddLiteral(const Value& v);
  // A hex literal's bytes (InsertValue::hex).
  void AddHexLiteral(std::string_view bytes);
  void AddDefault();
  void AddExpr(std::unique_ptr<Expr> e);  // REQUIRES: e != nullptr
  void EndRow();

  size_t size() const { return rows_; }  // rows ended so far
  bool empty() const { return rows_ == 0; }
  // The first row (1-based) that has not `width` values, or 0 if all have.
  size_t FirstRowNotOfWidth(size_t width) const;
  // The values that are expressions, in the order of the rows (all bound before a row is
  // written, as MySQL resolves every row's names first).
  const std::vector<std::unique_ptr<Expr>>& exprs() const { return exprs_; }

  // ---- reading: the rows in order. REQUIRES: the InsertValues outlives the reader and is not
  // changed meanwhile.
  class Reader {
   public:
    explicit Reader(const InsertValues& values) : values_(&values) {}
    // The next row's values into *row (replacing what it held); false after the last row.
    bool Next(std::vector<InsertValue>* row);

   private:
    uint8_t Byte();
    uint64_t Varint();
    std::string_view Bytes(size_t n);

    const InsertValues* values_;
    size_t chunk_ = 0, offset_ = 0;
  };

 private:
  // Room for `n` more bytes in the last chunk (a new chunk if it has not).
  std::string& Room(size_t n);
  void AddVarintItem(uint8_t tag, uint64_t v);
  void AddBytesItem(uint8_t tag, std::string_view bytes);

  std::vector<std::string> chunks_;
  std::vector<std::unique_ptr<Expr>> exprs_;
  size_t rows_ = 0;
  size_t row_width_ = 0;  // values in the row being built
  // Row 1's width, and the first row of another width (1-based; 0: none).
  size_t first_width_ = 0;
  size_t first_other_row_ = 0;
};

}  // namespace minnow::sql
