// The boards that registered with a tracker, as it last saw each.
#include "db/database.h"

namespace tf::db {

void Database::record_device(const DeviceRecord& d) {
  Transaction t(conn_);
  const int64_t now = d.last_seen_ms ? d.last_seen_ms : now_ms();
  Statement s(
      conn_,
      "INSERT INTO devices (device_key, hostname, target, info, first_seen_ms, last_seen_ms) VALUES (?, ?, ?, ?, ?, ?) "
      "ON CONFLICT (device_key, hostname) DO UPDATE SET target = excluded.target, info = excluded.info, "
      "last_seen_ms = excluded.last_seen_ms");
  s.bind(1, d.device_key).bind(2, d.hostname).bind(3, d.target).bind(4, d.info.dump()).bind(5, now).bind(6, now);
  s.run();
  t.commit();
}

std::vector<DeviceRecord> Database::devices() {
  Statement q(conn_,
              "SELECT device_key, hostname, target, info, first_seen_ms, last_seen_ms FROM devices "
              "ORDER BY device_key, hostname");
  std::vector<DeviceRecord> out;
  while (q.step()) {
    DeviceRecord d;
    d.device_key = q.column_text(0);
    d.hostname = q.column_text(1);
    d.target = q.column_text(2);
    try {
      d.info = parse_json(q.column_text(3));
    } catch (const JsonError&) {
      d.info = Json::object();
    }
    d.first_seen_ms = q.column_int(4);
    d.last_seen_ms = q.column_int(5);
    out.push_back(d);
  }
  return out;
}

bool Database::known_device_key(const std::string& key) {
  Statement q(conn_, "SELECT 1 FROM devices WHERE device_key = ? LIMIT 1");
  q.bind(1, key);
  return q.step();
}

}  // namespace tf::db
