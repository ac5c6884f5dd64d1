// libFuzzer target for the SQL front's parser (tools/fuzz_parser builds and runs it): no input
// may crash Parse(), the lexer or the StatementSplitter, loop, or leak.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sql_lite_front/parse/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)minnow::sql::Parse(text);

  // The same text through the splitter, fed in two chunks, each statement parsed.
  minnow::sql::StatementSplitter splitter;
  size_t half = size / 2;
  std::string statement;
  minnow::sql::StatementSplitter::Terminator terminator;
  splitter.Feed(text.substr(0, half));
  while (splitter.Next(&statement, &terminator)) (void)minnow::sql::Parse(statement);
  splitter.Feed(text.substr(half));
  while (splitter.Next(&statement, &terminator)) (void)minnow::sql::Parse(statement);
  (void)splitter.empty();
  (void)minnow::sql::Parse(splitter.Pending());
  return 0;
}
