// minnow_check PATH: opens a minnow database file and runs CheckIntegrity (every B+tree's
// Check(): key order, parent keys, sibling links, heap numbers, free space, overflow chains),
// then prints what each tree holds. Exit status: 0 clean, 1 damaged or unreadable, 2 usage.
//
// The file is opened without creating anything and without the background flusher; a clean
// database is not changed (a file that has no catalog yet gets an empty one).
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "minnow/db.h"

int main(int argc, char** argv) {
  if (argc != 2 || std::string(argv[1]) == "--help") {
    std::fputs("usage: minnow_check PATH\n", stderr);
    return 2;
  }
  minnow::Options options;
  options.path = argv[1];
  options.create_if_missing = false;
  options.background_flusher = false;
  options.buffer_pool_bytes = 64u << 20;
  auto db = minnow::Database::Open(options);
  if (!db.ok()) {
    fmt::print(stderr, "minnow_check: cannot open {}: {}\n", options.path, db.status().ToString());
    return 1;
  }
  std::vector<minnow::KeyspaceCheck> reports;
  minnow::Status st = (*db)->CheckIntegrity(&reports);
  fmt::print("{:<24} {:>6} {:>12} {:>10} {:>9} {:>9} {:>7} {:>7}\n", "keyspace", "id", "records",
             "leaves", "nodes", "overflow", "height", "fill");
  for (const auto& r : reports) {
    fmt::print("{:<24} {:>6} {:>12} {:>10} {:>9} {:>9} {:>7} {:>6.1f}%\n", r.name, r.id, r.records,
               r.leaf_pages, r.node_pages, r.overflow_pages, r.height, 100.0 * r.avg_leaf_fill);
  }
  const minnow::DatabaseStats s = (*db)->stats();
  fmt::print("file: {} pages ({} free), {:.1f} MiB logical, {:.1f} MiB physical\n", s.file_pages,
             s.free_pages, s.logical_bytes / 1048576.0, s.physical_bytes / 1048576.0);
  minnow::Status close_st = (*db)->Close();
  if (!st.ok()) {
    fmt::print(stderr, "minnow_check: {}: {}\n", options.path, st.ToString());
    return 1;
  }
  if (!close_st.ok()) {
    fmt::print(stderr, "minnow_check: closing {}: {}\n", options.path, close_st.ToString());
    return 1;
  }
  fmt::print("ok\n");
  return 0;
}
