// Undo record encoding: round trips and malformed input.

#include "mvcc/undo_record.h"

#include <catch2/catch.hpp>
#include <string>

#include "undo_test_util.h"

namespace minnow {
namespace {

using testing::S;

TEST_CASE("undo records round-trip through their encoding", "[mvcc]") {
  const std::string key = "the key";
  const std::string value(300, 'v');
  for (UndoType type :
       {UndoType::kInsert, UndoType::kUpdate, UndoType::kDeleteMark, UndoType::kBulkLoad}) {
    UndoRecord r;
    r.type = type;
    r.undo_no = 0x0102030405060708;
    r.table_id = 42;
    r.key = AsBytes(key);
    r.old_trx_id = 0x0000a1b2c3d4e5f6;
    r.old_roll_ptr = MakeRollPtr(true, 123456, 789);
    r.old_delete_marked = true;
    r.old_value = AsBytes(value);
    std::string enc = "prefix";
    EncodeUndoRecord(r, &enc);
    UndoRecord d;
    REQUIRE(DecodeUndoRecord(AsBytes(enc).subspan(6), &d).ok());
    CHECK(d.type == type);
    CHECK(d.undo_no == r.undo_no);
    CHECK(d.table_id == 42);
    CHECK(S(d.key) == key);
    const bool old = type == UndoType::kUpdate || type == UndoType::kDeleteMark;
    CHECK(d.old_trx_id == (old ? r.old_trx_id : 0));
    CHECK(d.old_roll_ptr == (old ? r.old_roll_ptr : 0));
    CHECK(d.old_delete_marked == old);
    CHECK(S(d.old_value) == (old ? value : ""));
    CHECK(enc.size() - 6 == 17 + key.size() + (old ? 18 + value.size() : 0));
  }
}

TEST_CASE("malformed undo records are corruption", "[mvcc]") {
  UndoRecord r;
  r.type = UndoType::kUpdate;
  r.undo_no = 5;
  const std::string key = "key";
  const std::string value = "value";
  r.key = AsBytes(key);
  r.old_value = AsBytes(value);
  std::string enc;
  EncodeUndoRecord(r, &enc);
  UndoRecord d;
  REQUIRE(DecodeUndoRecord(AsBytes(enc), &d).ok());
  // Every truncation fails, and so does a trailing byte.
  for (size_t n = 0; n < enc.size(); ++n) {
    INFO("length " << n);
    CHECK(DecodeUndoRecord(AsBytes(enc).first(n), &d).code() == Code::kCorruption);
  }
  CHECK(DecodeUndoRecord(AsBytes(enc + "x"), &d).code() == Code::kCorruption);
  std::string bad = enc;
  bad[0] = 9;  // unknown type
  CHECK(DecodeUndoRecord(AsBytes(bad), &d).code() == Code::kCorruption);
  bad = enc;
  bad[13] = static_cast<char>(0xff);  // key length past the end
  CHECK(DecodeUndoRecord(AsBytes(bad), &d).code() == Code::kCorruption);
  bad = enc;
  bad[17 + key.size() + 13] = 4;  // unknown flag bit
  CHECK(DecodeUndoRecord(AsBytes(bad), &d).code() == Code::kCorruption);
}

TEST_CASE("roll pointers and system fields", "[mvcc]") {
  const RollPtr p = MakeRollPtr(true, 0xfedcba98, 16383);
  CHECK(RollPtrIsInsert(p));
  CHECK(RollPtrPage(p) == 0xfedcba98u);
  CHECK(RollPtrOffset(p) == 16383);
  std::byte sys[kSysBytes];
  EncodeSysFields(sys, 0x123456789abc, p);
  CHECK(SysTrxId(sys) == 0x123456789abc);
  CHECK(SysRollPtr(sys) == p);
}

}  // namespace
}  // namespace minnow
