# ack_writer.py -- a client that keeps writing through a sentinel failover
# and records which writes were acknowledged (backup.tcl's failover tests).
#
#   ack_writer.py LOG STOPFILE MASTER SENTINELPORT...
#
# It asks the sentinels for MASTER's address, then loops SET w:I I followed
# by WAIT N 2000, where N is the number of replicas (with a listening port)
# the primary reported when the writer connected (1 before the failover, 0
# after, when the promoted replica has none left). A write whose SET answered OK and whose
# WAIT reached N is acknowledged: its I is appended to LOG (line-buffered,
# so the test reads what was acknowledged so far). A connection error makes
# it ask the sentinels again and retry the same I (SET is idempotent). It
# ends when STOPFILE exists, printing "wrote W acknowledged A".

import os
import sys
import time

import redis


def primary(name, ports):
    for port in ports:
        try:
            s = redis.Redis(host="127.0.0.1", port=port, socket_timeout=1)
            addr = s.execute_command("SENTINEL", "get-master-addr-by-name", name)
            s.close()
            if addr:
                return addr[0].decode(), int(addr[1])
        except redis.RedisError:
            pass
    return None


def main():
    log_path, stop_file, name = sys.argv[1:4]
    ports = [int(p) for p in sys.argv[4:]]
    log = open(log_path, "a", buffering=1)
    conn, want = None, 0
    i = acked = 0
    while not os.path.exists(stop_file):
        try:
            if conn is None:
                addr = primary(name, ports)
                if addr is None:
                    time.sleep(0.1)
                    continue
                conn = redis.Redis(host=addr[0], port=addr[1], socket_timeout=3)
                info = conn.info("replication")
                if info.get("role") != "master":
                    raise redis.ConnectionError("not a primary yet")
                # cairn-backup on a Redis primary is a slaveN line with
                # port 0 that never acknowledges: not a replica to wait for
                replicas = [v for k, v in info.items()
                            if k.startswith("slave") and isinstance(v, dict) and int(v.get("port", 0))]
                want = min(1, len(replicas))
            conn.set("w:%d" % i, i)
            if conn.execute_command("WAIT", want, 2000) >= want:
                log.write("%d\n" % i)
                acked += 1
            i += 1
        except redis.RedisError:
            conn = None
            time.sleep(0.1)
    print("wrote %d acknowledged %d" % (i, acked))


main()
