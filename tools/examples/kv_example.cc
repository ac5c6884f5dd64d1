// kv_example: minnow's embedded key-value API in one page. Copy it and start from here.
//
//   kv_example [PATH]     (default: a new file in the temp directory, removed at the end)
//
// Every call returns a Status or a Result<T> (a value or a Status); nothing throws. The program
// exits 0 if everything behaved as the comments say.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "minnow/db.h"

namespace {

// Prints what failed and returns false, so main() can bail out with a non-zero exit code.
bool Ok(const minnow::Status& st, const char* what) {
  if (st.ok()) return true;
  std::fprintf(stderr, "%s: %s\n", what, st.ToString().c_str());
  return false;
}

bool Run(const std::string& path) {
  // 1. Open (or create) the database file and a keyspace: a named, ordered key -> value map.
  auto db = minnow::Database::Open({.path = path});
  if (!Ok(db.status(), "open")) return false;
  minnow::Status st = (*db)->CreateKeyspace("fruit");
  if (!st.ok() && st.code() != minnow::Code::kDuplicateKey) return Ok(st, "create keyspace");
  auto fruit = (*db)->OpenKeyspace("fruit");
  if (!Ok(fruit.status(), "open keyspace")) return false;

  // 2. A session per thread; transactions come from it.
  auto session = (*db)->NewSession();
  if (!Ok(session.status(), "session")) return false;

  // 3. Write in a transaction and commit.
  {
    auto txn = (*session)->Begin();
    if (!Ok(txn.status(), "begin")) return false;
    for (const char* name : {"apple", "banana", "cherry", "damson"}) {
      if (!Ok((*txn)->Put(*fruit, name, std::string(name) + " pie"), "put")) return false;
    }
    // Insert refuses to overwrite: the error is a value to inspect, not an exception.
    st = (*txn)->Insert(*fruit, "apple", "again");
    if (st.code() != minnow::Code::kDuplicateKey) return Ok(st, "insert should fail");
    if (!Ok((*txn)->Commit(), "commit")) return false;
  }

  // 4. Roll back: nothing of this transaction remains.
  {
    auto txn = (*session)->Begin();
    if (!Ok(txn.status(), "begin")) return false;
    if (!Ok((*txn)->Erase(*fruit, "banana"), "erase")) return false;
    if (!Ok((*txn)->Put(*fruit, "elderberry", "elderberry wine"), "put")) return false;
    if (!Ok((*txn)->Rollback(), "rollback")) return false;
  }

  // 5. Read: a point get, then a range scan ["b", "d") with an Iterator.
  auto txn = (*session)->Begin();
  if (!Ok(txn.status(), "begin")) return false;
  auto banana = (*txn)->Get(*fruit, "banana");
  if (!Ok(banana.status(), "get banana (the rollback restored it)")) return false;
  std::printf("banana -> %s\n", banana->c_str());
  auto missing = (*txn)->Get(*fruit, "elderberry");
  if (!missing.status().IsNotFound()) return Ok(missing.status(), "elderberry should be gone");

  auto it = (*txn)->NewIterator(*fruit);
  if (!Ok(it.status(), "iterator")) return false;
  int rows = 0;
  for (st = (*it)->Seek("b"); st.ok() && (*it)->Valid() && (*it)->key() < "d"; st = (*it)->Next()) {
    auto value = (*it)->value();
    if (!Ok(value.status(), "value")) return false;
    std::printf("  %.*s = %.*s\n", static_cast<int>((*it)->key().size()), (*it)->key().data(),
                static_cast<int>(value->size()), value->data());
    ++rows;
  }
  if (!Ok(st, "scan")) return false;
  if (rows != 2) return Ok(minnow::Status::Internal("expected banana and cherry"), "scan");
  it->reset();  // an Iterator must not outlive its Transaction
  if (!Ok((*txn)->Commit(), "commit")) return false;

  // 6. Close flushes everything to the file. Afterwards every call says kClosed.
  txn->reset();
  session->reset();
  if (!Ok((*db)->Close(), "close")) return false;
  return (*db)->NewSession().status().code() == minnow::Code::kClosed;
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const bool temp = argc < 2;
  const std::string path =
      temp ? (fs::temp_directory_path() / ("kv_example." + std::to_string(::getpid()) + ".minnow"))
                 .string()
           : argv[1];
  const bool ok = Run(path);
  if (temp) fs::remove(path);
  std::printf("%s\n", ok ? "kv_example: ok" : "kv_example: FAILED");
  return ok ? 0 : 1;
}
