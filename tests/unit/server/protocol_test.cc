// The wire protocol's pieces without a socket: framing, basic types, handshake parsing,
// mysql_native_password and the statements minnowd answers itself.
#include "server/protocol.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "server/admin_statement.h"
#include "server/packet.h"
#include "server/prepared_statement.h"
#include "server/users.h"
#include "server/wire.h"

using namespace minnow::server;
using minnow::sql::Value;

TEST_CASE("a payload of 2^24-1 bytes or more is split, and reassembled", "[server]") {
  const std::string payload(kMaxPacketChunk * 2 + 5, 'x');
  uint8_t seq = 3;
  std::string wire;
  AppendPackets(payload, &seq, &wire);
  CHECK(seq == 6);  // three packets: two full chunks and one of 5 bytes
  CHECK(wire.size() == payload.size() + 3 * 4);

  PacketReader reader(payload.size());
  reader.Feed(wire.substr(0, wire.size() - 1));
  std::string out;
  uint8_t first = 0;
  CHECK(reader.Next(&out, &first) == PacketReader::Outcome::kNeedMore);
  reader.Feed(wire.substr(wire.size() - 1));
  REQUIRE(reader.Next(&out, &first) == PacketReader::Outcome::kPayload);
  CHECK(out == payload);
  CHECK(first == 3);
  CHECK(reader.next_seq() == 6);
  CHECK(reader.buffered() == 0);
}

TEST_CASE("a multiple of the chunk size ends with an empty packet", "[server]") {
  uint8_t seq = 0;
  std::string wire;
  AppendPackets(std::string(kMaxPacketChunk, 'y'), &seq, &wire);
  CHECK(seq == 2);
  CHECK(wire.size() == kMaxPacketChunk + 8);
}

TEST_CASE("too large and out-of-order packets are refused from their headers", "[server]") {
  PacketReader reader(10);
  reader.Feed(std::string("\x0b\x00\x00\x00", 4));  // 11 bytes announced, none sent
  std::string out;
  uint8_t first = 0;
  CHECK(reader.Next(&out, &first) == PacketReader::Outcome::kTooLarge);

  PacketReader r2(1u << 30);
  std::string wire;
  uint8_t seq = 0;
  AppendPackets(std::string(kMaxPacketChunk, 'z'), &seq, &wire);
  wire[kMaxPacketChunk + 4 + 3] = 7;  // the empty continuation's id should be 1
  r2.Feed(wire);
  CHECK(r2.Next(&out, &first) == PacketReader::Outcome::kOutOfOrder);
}

TEST_CASE("length-encoded integers round-trip and truncation is an error", "[server]") {
  for (uint64_t v : {0ull, 250ull, 251ull, 65535ull, 65536ull, 16777215ull, 16777216ull, ~0ull}) {
    WireWriter w;
    w.LenencInt(v);
    WireReader r(w.data());
    CHECK(r.LenencInt() == v);
    CHECK(r.at_end());
    WireReader cut(std::string_view(w.data()).substr(0, w.data().size() - 1));
    CHECK(!cut.LenencInt().has_value());
  }
  WireReader bad(
      std::string_view("\x05"
                       "abc",
                       4));  // says 5 bytes, has 3
  CHECK(!bad.LenencString().has_value());
  CHECK(bad.remaining() == 4);
}

TEST_CASE("mysql_native_password accepts the right token only", "[server]") {
  const std::string scramble = NewScramble();
  REQUIRE(scramble.size() == 20);
  CHECK(scramble.find('\0') == std::string::npos);
  const std::string stored = NativePasswordHash("secret");
  CHECK(CheckNativePassword(stored, scramble, NativePasswordToken("secret", scramble)));
  CHECK(!CheckNativePassword(stored, scramble, NativePasswordToken("Secret", scramble)));
  CHECK(!CheckNativePassword(stored, scramble, ""));
  CHECK(CheckNativePassword("", scramble, ""));
  CHECK(!CheckNativePassword("", scramble, NativePasswordToken("x", scramble)));
}

TEST_CASE("accounts match hosts, most specific first", "[server]") {
  UserTable users;
  CHECK(users.Lookup("root", "127.0.0.1") == std::string());
  CHECK(!users.Lookup("root", "10.0.0.5").has_value());
  CHECK(users.RemoteAccountsHavePasswords());
  CHECK(users.Create("app", "%", "").ok());
  CHECK(!users.RemoteAccountsHavePasswords());
  CHECK(users.Create("app", "%", "x").code() == minnow::Code::kDuplicateKey);
  CHECK(users.Alter("app", "%", "pw").ok());
  CHECK(users.RemoteAccountsHavePasswords());
  CHECK(users.Lookup("app", "10.0.0.5") == NativePasswordHash("pw"));
  CHECK(users.Drop("app", "%").ok());
  CHECK(!users.Lookup("app", "10.0.0.5").has_value());
  CHECK(users.Drop("app", "%").IsNotFound());
  CHECK(users.Alter("app", "%", "pw").IsNotFound());
}

TEST_CASE("a handshake response is parsed, a truncated one refused", "[server]") {
  WireWriter w;
  w.Int4(kClientProtocol41 | kClientSecureConnection | kClientPluginAuth | kClientConnectWithDb);
  w.Int4(1 << 24);
  w.Int1(kCharsetUtf8mb4);
  w.Zeros(23);
  w.NulString("bob");
  w.Int1(3);
  w.Bytes("abc");
  w.NulString("shop");
  w.NulString("caching_sha2_password");
  auto h = ParseHandshakeResponse(w.data());
  REQUIRE(h.has_value());
  CHECK(h->user == "bob");
  CHECK(h->auth_response == "abc");
  CHECK(h->database == "shop");
  CHECK(h->auth_plugin == "caching_sha2_password");
  for (size_t n = 0; n < 36; ++n) CHECK(!ParseHandshakeResponse(w.data().substr(0, n)));
}

TEST_CASE("a handshake response asks for progress reports by bit 29 or MariaDB's extension",
          "[server]") {
  auto response = [](uint32_t caps, uint32_t extended) {
    WireWriter w;
    w.Int4(caps | kClientProtocol41 | kClientSecureConnection);
    w.Int4(1 << 24);
    w.Int1(kCharsetUtf8mb4);
    w.Zeros(19);
    w.Int4(extended);  // bytes 28..31: MariaDB's extended capabilities
    w.NulString("root");
    w.Int1(0);
    return ParseHandshakeResponse(w.data());
  };
  auto plain = response(kClientLongPassword, 0);
  REQUIRE(plain.has_value());
  CHECK(!WantsProgressReports(*plain));
  auto obsolete = response(kClientLongPassword | kClientProgressObsolete, 0);
  REQUIRE(obsolete.has_value());
  CHECK(WantsProgressReports(*obsolete));
  auto extended = response(0, kMariaDbClientProgress);
  REQUIRE(extended.has_value());
  CHECK(extended->mariadb_capabilities == kMariaDbClientProgress);
  CHECK(WantsProgressReports(*extended));
  // Bit 0 set (CLIENT_MYSQL): the filler is a MySQL client's, whatever it holds.
  auto mysql = response(kClientLongPassword, kMariaDbClientProgress);
  REQUIRE(mysql.has_value());
  CHECK(mysql->mariadb_capabilities == 0);
  CHECK(!WantsProgressReports(*mysql));
}

TEST_CASE("a progress packet is MariaDB's: 0xff, 0xffff, stages, progress, name", "[server]") {
  const std::string p = BuildProgress(
      {.stage = 1, .max_stage = 2, .progress = 43210, .stage_name = "copy to tmp table"});
  const std::string want =
      std::string("\xff\xff\xff\x01\x01\x02\xca\xa8\x00\x11", 10) + "copy to tmp table";
  CHECK(p == want);
  const std::string over = BuildProgress({.progress = 200000});  // never past 100%
  CHECK(over.substr(6, 3) == std::string("\xa0\x86\x01", 3));
}

TEST_CASE("COM_CHANGE_USER's body is parsed as the capabilities say", "[server]") {
  const uint32_t caps =
      kClientProtocol41 | kClientSecureConnection | kClientPluginAuth | kClientConnectAttrs;
  WireWriter w;
  w.NulString("cu");
  w.Int1(3);
  w.Bytes("xyz");
  w.NulString("test");
  w.Int2(kCharsetUtf8mb4);
  w.NulString("mysql_native_password");
  WireWriter attrs;
  attrs.LenencString("_client_name");
  attrs.LenencString("libmariadb");
  w.LenencString(attrs.data());
  auto c = ParseChangeUser(w.data(), caps);
  REQUIRE(c.has_value());
  CHECK(c->user == "cu");
  CHECK(c->auth_response == "xyz");
  CHECK(c->database == "test");
  CHECK(c->auth_plugin == "mysql_native_password");
  // A cut is refused unless it falls after a whole field of those that are optional: after
  // the database, the character set or the plugin.
  const size_t after_db = 3 + 1 + 3 + 5;
  const size_t after_plugin = after_db + 2 + 22;
  for (size_t n = 0; n < w.data().size(); ++n) {
    const bool whole = n == after_db || n == after_db + 2 || n == after_plugin;
    CHECK(ParseChangeUser(w.data().substr(0, n), caps).has_value() == whole);
  }
  // Without CLIENT_SECURE_CONNECTION the auth response is a NUL-terminated string.
  WireWriter old;
  old.NulString("cu");
  old.NulString("tok");
  old.NulString("");
  auto o = ParseChangeUser(old.data(), kClientProtocol41);
  REQUIRE(o.has_value());
  CHECK(o->auth_response == "tok");
  CHECK(o->database.empty());
}

TEST_CASE("KILL and the account statements are the server's", "[server]") {
  auto k = ParseAdminStatement("KILL QUERY 42");
  REQUIRE(k.has_value());
  REQUIRE(k->ok());
  CHECK(k->value().kind == AdminStatement::Kind::kKillQuery);
  CHECK(k->value().thread_id == 42);
  auto c = ParseAdminStatement(" create user 'u'@'localhost' identified by 'p';");
  REQUIRE(c.has_value());
  REQUIRE(c->ok());
  REQUIRE(c->value().accounts.size() == 1);
  CHECK(c->value().accounts[0].user == "u");
  CHECK(c->value().accounts[0].host == "localhost");
  CHECK(c->value().accounts[0].password == "p");
  auto list = ParseAdminStatement("CREATE USER a IDENTIFIED BY 'x', b@h, c IDENTIFIED BY 'z'");
  REQUIRE(list.has_value());
  REQUIRE(list->ok());
  REQUIRE(list->value().accounts.size() == 3);
  CHECK(list->value().accounts[1].user == "b");
  CHECK(list->value().accounts[1].host == "h");
  CHECK(list->value().accounts[1].password.empty());
  CHECK(list->value().accounts[2].password == "z");
  CHECK(ParseAdminStatement("DROP USER a, b").value().value().accounts.size() == 2);
  CHECK(ParseAdminStatement("DROP USER a IDENTIFIED BY 'x'").value().error().code == 1064);
  CHECK(ParseAdminStatement("ALTER USER a IDENTIFIED BY 'x', b").value().error().code == 1064);
  CHECK(ParseAdminStatement("DROP USER a,").value().error().code == 1064);
  auto bad = ParseAdminStatement("ALTER USER u IDENTIFIED WITH caching_sha2_password BY 'x'");
  REQUIRE(bad.has_value());
  CHECK(!bad->ok());
  CHECK(bad->error().code == 1524);
  CHECK(ParseAdminStatement("KILL x").value().error().code == 1064);
  auto own = ParseAdminStatement("SET PASSWORD = 'new'");
  REQUIRE(own.has_value());
  REQUIRE(own->ok());
  CHECK(own->value().kind == AdminStatement::Kind::kSetPassword);
  CHECK(own->value().own_account);
  CHECK(own->value().accounts.at(0).password == "new");
  auto other = ParseAdminStatement("set password for 'u' = 'pw'");
  REQUIRE(other.has_value());
  REQUIRE(other->ok());
  CHECK(!other->value().own_account);
  CHECK(other->value().accounts.at(0).user == "u");
  CHECK(other->value().accounts.at(0).host == "%");
  CHECK(ParseAdminStatement("SET PASSWORD FOR u TO RANDOM").value().error().code == 1235);
  CHECK(ParseAdminStatement("SET PASSWORD = 'a' REPLACE 'b'").value().error().code == 1235);
  CHECK(ParseAdminStatement("SET PASSWORD = PASSWORD('a')").value().error().code == 1064);
  auto long_user = ParseAdminStatement("CREATE USER '" + std::string(33, 'u') + "'");
  CHECK(long_user.value().error().code == 1470);
  CHECK(long_user.value().error().message ==
        "String '" + std::string(33, 'u') +
            "' is too long for user name (should be no longer than 32)");
  CHECK(ParseAdminStatement("CREATE USER '" + std::string(32, 'u') + "'").value().ok());
  CHECK(ParseAdminStatement("CREATE USER 'é" + std::string(31, 'u') + "'").value().ok());
  auto long_host = ParseAdminStatement("SET PASSWORD FOR u@'" + std::string(256, 'h') + "' = 'x'");
  CHECK(long_host.value().error().message ==
        "String '" + std::string(70, 'h') +
            "' is too long for host name (should be no longer than 255)");
  CHECK(!ParseAdminStatement("SET NAMES utf8mb4").has_value());
  CHECK(!ParseAdminStatement("SET autocommit = 0").has_value());
  CHECK(!ParseAdminStatement("CREATE TABLE t (a int)").has_value());
  CHECK(!ParseAdminStatement("SELECT 1").has_value());
}

TEST_CASE("placeholders outside strings, names and comments", "[server]") {
  const std::string sql =
      "SELECT '?', \"?\", `?`, 'it''s ?', 'a\\'?' /* ? */ -- ?\n, ? # ?\n FROM t WHERE a = ? "
      "/*! AND b = ? */";
  const std::vector<size_t> p = FindPlaceholders(sql);
  REQUIRE(p.size() == 3);
  for (size_t at : p) CHECK(sql[at] == '?');
}

TEST_CASE("EXECUTE's parameters become values; types are remembered", "[server]") {
  PreparedStatement stmt;
  stmt.param_count = 3;
  WireWriter w;
  w.Int4(1);
  w.Int1(0);
  w.Int4(1);
  w.Int1(0x04);  // the third parameter is NULL
  w.Int1(1);     // new types follow
  w.Int2(kTypeTiny | 0x8000);
  w.Int2(kTypeLongLong);
  w.Int2(kTypeVarString);
  w.Int1(200);  // unsigned 200
  w.Int8(static_cast<uint64_t>(-5));
  REQUIRE(BindExecute(w.data(), &stmt).ok());
  REQUIRE(stmt.values.size() == 3);
  CHECK(stmt.values[0] == Value::Int(200));
  CHECK(stmt.values[1] == Value::Int(-5));
  CHECK(stmt.values[2].is_null());

  WireWriter again;  // no new types: the last ones are used
  again.Int4(1);
  again.Int1(0);
  again.Int4(1);
  again.Int1(0x00);
  again.Int1(0);
  again.Int1(255);
  again.Int8(2);
  again.LenencString(std::string("x'y\0z", 5));
  REQUIRE(BindExecute(again.data(), &stmt).ok());
  CHECK(stmt.values[0] == Value::Int(255));
  CHECK(stmt.values[1] == Value::Int(2));
  CHECK(stmt.values[2] == Value::String(std::string("x'y\0z", 5)));  // bytes as sent

  // Every truncation of the packet is an error, never a read past its end.
  for (size_t n = 0; n < again.data().size(); ++n) {
    PreparedStatement copy = stmt;
    CHECK(!BindExecute(again.data().substr(0, n), &copy).ok());
  }

  // A number typed as a string stays a string.
  WireWriter text;
  text.Int4(1);
  text.Int1(0);
  text.Int4(1);
  text.Int1(0x00);
  text.Int1(1);
  text.Int2(kTypeVarString);
  text.Int2(kTypeString);
  text.Int2(kTypeBlob);
  text.LenencString("1");
  text.LenencString("2.5");
  text.LenencString("-3");
  REQUIRE(BindExecute(text.data(), &stmt).ok());
  CHECK(stmt.values[0] == Value::String("1"));
  CHECK(stmt.values[1] == Value::String("2.5"));
  CHECK(stmt.values[2] == Value::String("-3"));

  // Types never sent: 1210.
  PreparedStatement untyped;
  untyped.param_count = 1;
  WireWriter none;
  none.Int4(1);
  none.Int1(0);
  none.Int4(1);
  none.Int1(0x00);
  none.Int1(0);
  const auto st = BindExecute(none.data(), &untyped);
  REQUIRE(!st.ok());
  CHECK(st.error().code == minnow::sql::kErWrongArguments);
}

TEST_CASE("a DOUBLE parameter is a DOUBLE, a DECIMAL one the number its text is", "[server]") {
  PreparedStatement stmt;
  stmt.param_count = 4;
  auto bind = [&](std::string_view decimal) {
    WireWriter w;
    w.Int4(1);
    w.Int1(0);
    w.Int4(1);
    w.Int1(0x00);
    w.Int1(1);
    w.Int2(kTypeDouble);
    w.Int2(kTypeDouble);
    w.Int2(kTypeFloat);
    w.Int2(kTypeNewDecimal);
    double d = 1.5;
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    w.Int8(bits);
    d = 1e300;
    std::memcpy(&bits, &d, 8);
    w.Int8(bits);
    const float f = -0.25f;
    uint32_t fbits;
    std::memcpy(&fbits, &f, 4);
    w.Int4(fbits);
    w.LenencString(decimal);
    return BindExecute(w.data(), &stmt);
  };
  REQUIRE(bind("-12.50").ok());
  CHECK(stmt.values[0] == Value::Double(1.5));
  CHECK(stmt.values[1] == Value::Double(1e300));
  CHECK(stmt.values[2] == Value::Double(-0.25));
  REQUIRE(stmt.values[3].is_decimal());
  CHECK(stmt.values[3].as_decimal().ToString() == "-12.50");  // its scale kept
  REQUIRE(bind("42").ok());
  CHECK(stmt.values[3] == Value::Int(42));  // no point: an integer, as the literal 42
  for (std::string_view bad : {"", "-", ".", "1.2.3", "1e5", "1; DROP TABLE t", "'1'", "0x10"}) {
    INFO(bad);
    auto r = bind(bad);
    REQUIRE(!r.ok());
    CHECK(r.error().code == minnow::sql::kErWrongArguments);
  }
  CHECK(bind("+.5").ok());
}

TEST_CASE("binary-protocol dates are as short as their value allows", "[server]") {
  using namespace std::string_literals;
  CHECK(*EncodeBinaryDateTime("0000-00-00") == "\x00"s);
  CHECK(*EncodeBinaryDateTime("0000-00-00 00:00:00") == "\x00"s);
  CHECK(*EncodeBinaryDateTime("2024-02-29") == "\x04\xe8\x07\x02\x1d"s);
  CHECK(*EncodeBinaryDateTime("2024-02-29 00:00:00.000") == "\x04\xe8\x07\x02\x1d"s);
  CHECK(*EncodeBinaryDateTime("2024-02-29 13:14:15") == "\x07\xe8\x07\x02\x1d\x0d\x0e\x0f"s);
  // .125 is 125000 microseconds (0x01e848).
  CHECK(*EncodeBinaryDateTime("2024-02-29 13:14:15.125") ==
        "\x0b\xe8\x07\x02\x1d\x0d\x0e\x0f\x48\xe8\x01\x00"s);
  CHECK_FALSE(EncodeBinaryDateTime("2024-2-29").has_value());
  CHECK_FALSE(EncodeBinaryDateTime("2024-02-29T13:14:15").has_value());
  CHECK_FALSE(EncodeBinaryDateTime("2024-02-29 13:14:15.").has_value());
  CHECK_FALSE(EncodeBinaryDateTime("2024-02-29 13:14:15.1234567").has_value());
  CHECK_FALSE(EncodeBinaryDateTime("abc").has_value());
}

TEST_CASE("binary-protocol TIMEs: sign, days, h, m, s, µs", "[server]") {
  using namespace std::string_literals;
  CHECK(*EncodeBinaryTime("00:00:00") == "\x00"s);
  CHECK(*EncodeBinaryTime("00:00:00.000") == "\x00"s);
  CHECK(*EncodeBinaryTime("10:11:12") == "\x08\x00\x00\x00\x00\x00\x0a\x0b\x0c"s);
  // 838 hours: 34 days and 22 hours.
  CHECK(*EncodeBinaryTime("-838:59:59") == "\x08\x01\x22\x00\x00\x00\x16\x3b\x3b"s);
  CHECK(*EncodeBinaryTime("-00:00:01.5") ==
        "\x0c\x01\x00\x00\x00\x00\x00\x00\x01\x20\xa1\x07\x00"s);
  CHECK_FALSE(EncodeBinaryTime("10:11").has_value());
  CHECK_FALSE(EncodeBinaryTime("1:02:03").has_value());
  CHECK_FALSE(EncodeBinaryTime("10:11:12.").has_value());
  CHECK_FALSE(EncodeBinaryTime("2024-02-29 13:14:15").has_value());
}
