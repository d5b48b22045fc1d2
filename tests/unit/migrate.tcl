# migrate.tcl -- MIGRATE between two servers of the binary under test:
# moving and copying keys with their TTLs, REPLACE and the target's
# BUSYKEY error, several keys at once (only the acknowledged ones are
# deleted), NOKEY, AUTH/AUTH2 against a password-protected target, the
# argument errors, the connection cache (INFO migrate_cached_sockets), a
# target that does not answer in time, and (cairn only, DEBUG PROPAGATED)
# the DEL that replicas and the AOF get instead of the MIGRATE.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set src [start_server]
set dst [start_server]
set c [client $src]
set d [client $dst]
set dport [dict get $dst port]

proc stat {cl field} { return [info_field $cl $field stats] }

test "MIGRATE moves a key with its value, type and TTL" {
    r $c FLUSHALL
    r $d FLUSHALL
    r $c RPUSH l a b c
    r $c SET s v PX 100000
    assert_equal OK [r $c MIGRATE 127.0.0.1 $dport l 0 5000]
    assert_equal OK [r $c MIGRATE 127.0.0.1 $dport s 0 5000]
    assert_equal 0 [r $c EXISTS l s]
    assert_equal {a b c} [r $d LRANGE l 0 -1]
    assert_equal v [r $d GET s]
    assert_range [r $d PTTL s] 90000 100000
    assert_equal -1 [r $d TTL l]
}

test "MIGRATE to another database, COPY keeps the source key" {
    r $c FLUSHALL
    r $d FLUSHALL
    r $c HSET h f v
    assert_equal OK [r $c MIGRATE 127.0.0.1 $dport h 3 5000 COPY]
    assert_equal 1 [r $c EXISTS h]
    r $d SELECT 3
    assert_equal v [r $d HGET h f]
    r $d SELECT 0
    assert_equal 0 [r $d EXISTS h]
}

test "MIGRATE without REPLACE fails on an existing target key; REPLACE overwrites" {
    r $c FLUSHALL
    r $d FLUSHALL
    r $c SET k new
    r $d SET k old
    assert_error "ERR Target instance replied with error: BUSYKEY Target key name already exists." \
            {r $c MIGRATE 127.0.0.1 $dport k 0 5000}
    assert_equal new [r $c GET k]
    assert_equal old [r $d GET k]
    assert_equal OK [r $c MIGRATE 127.0.0.1 $dport k 0 5000 REPLACE]
    assert_equal new [r $d GET k]
    assert_equal 0 [r $c EXISTS k]
}

test "MIGRATE KEYS moves the existing keys; only acknowledged ones are deleted" {
    r $c FLUSHALL
    r $d FLUSHALL
    r $c MSET a 1 b 2 c 3 e 4
    assert_equal NOKEY [r $c MIGRATE 127.0.0.1 $dport "" 0 5000 KEYS x y]
    assert_equal NOKEY [r $c MIGRATE 127.0.0.1 $dport nokey 0 5000]
    assert_equal OK [r $c MIGRATE 127.0.0.1 $dport "" 0 5000 KEYS x a y b]
    assert_equal {1 2} [r $d MGET a b]
    r $d SET c busy
    assert_error "*BUSYKEY*" {r $c MIGRATE 127.0.0.1 $dport "" 0 5000 KEYS c e}
    assert_equal {3 {}} [r $c MGET c e]
    assert_equal {busy 4} [r $d MGET c e]
}

test "MIGRATE argument errors" {
    assert_error "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string" \
            {r $c MIGRATE 127.0.0.1 $dport k 0 5000 KEYS a}
    assert_error "ERR syntax error" {r $c MIGRATE 127.0.0.1 $dport k 0 5000 FOO}
    assert_error "ERR syntax error" {r $c MIGRATE 127.0.0.1 $dport k 0 5000 AUTH}
    assert_error "ERR syntax error" {r $c MIGRATE 127.0.0.1 $dport k 0 5000 AUTH2 user}
    assert_error "ERR value is not an integer or out of range" {r $c MIGRATE 127.0.0.1 $dport k x 5000}
    assert_error "ERR value is not an integer or out of range" {r $c MIGRATE 127.0.0.1 $dport k 0 x}
    assert_error "ERR wrong number of arguments for 'migrate' command" {r $c MIGRATE 127.0.0.1 $dport k 0}
    assert_equal {a b} [r $c COMMAND GETKEYS MIGRATE h 1 "" 0 100 KEYS a b]
    assert_equal {k} [r $c COMMAND GETKEYS MIGRATE h 1 k 0 100 COPY]
}

test "MIGRATE AUTH and AUTH2 against a target with a password" {
    r $c FLUSHALL
    r $d FLUSHALL
    r $d CONFIG SET requirepass secret
    r $d AUTH secret
    r $c SET k v
    assert_error "*WRONGPASS*" {r $c MIGRATE 127.0.0.1 $dport k 0 5000 AUTH wrong}
    # The cached connection was authenticated before the password was
    # set, so the RESTORE after the failed AUTH went through, as on Redis.
    assert_equal v [r $d GET k]
    r $d DEL k
    assert_equal OK [r $c MIGRATE 127.0.0.1 $dport k 0 5000 COPY AUTH secret]
    assert_equal OK [r $c MIGRATE 127.0.0.1 $dport k 0 5000 REPLACE AUTH2 default secret]
    assert_equal v [r $d GET k]
    assert_equal 0 [r $c EXISTS k]
    r $d CONFIG SET requirepass ""
}

test "MIGRATE caches its connection; a target that went away is an IOERR" {
    # The cache may hold connections from the tests above; a new target
    # (a second database is enough to force a SELECT, not a new socket).
    set n [stat $c migrate_cached_sockets]
    assert_range $n 1 1
    set third [start_server]
    r $c SET k v
    assert_equal OK [r $c MIGRATE 127.0.0.1 [dict get $third port] k 0 5000 COPY]
    assert_equal 2 [stat $c migrate_cached_sockets]
    assert_equal OK [r $c MIGRATE 127.0.0.1 [dict get $third port] k 1 5000 COPY]
    assert_equal 2 [stat $c migrate_cached_sockets]
    set port [dict get $third port]
    kill_server $third
    # The cached connection is dead: MIGRATE reconnects once, and that
    # fails too. Tests run in parallel, so another job's server could take
    # the freed port and answer the retry: a listener here holds it and
    # drops every connection. Whether the failure then shows when the
    # request is written or when the reply is read depends on when the
    # peer's reset arrives; either is an IOERR, and nothing moved.
    set hold ""
    catch {set hold [socket -server [list apply {{ch addr p} {close $ch}}] -myaddr 127.0.0.1 $port]}
    assert_error "IOERR error or timeout * to target instance" {r $c MIGRATE 127.0.0.1 $port k 0 1000}
    if {$hold ne ""} { close $hold }
    assert_equal 1 [stat $c migrate_cached_sockets]
    assert_equal v [r $c GET k]
}

test "MIGRATE to a target that does not answer in time is an IOERR, the key stays" {
    r $c SET k v
    r $d DEL k
    set sleeper [client $dst]
    send_cmd $sleeper DEBUG SLEEP 1
    after 100
    assert_error "IOERR error or timeout reading to target instance" {r $c MIGRATE 127.0.0.1 $dport k 0 300}
    assert_equal OK [read_reply $sleeper]
    assert_equal v [r $c GET k]
    close_client $sleeper
}

test "MIGRATE propagates as DEL of the acknowledged keys only, COPY not at all" {
    if {[catch {r $c DEBUG PROPAGATED}]} { skip_test "server has no DEBUG PROPAGATED (not cairn)" }
    r $c FLUSHALL
    r $d FLUSHALL
    r $c MSET a 1 b 2 c 3
    r $d SET b busy
    r $c DEBUG PROPAGATED
    catch {r $c MIGRATE 127.0.0.1 $dport "" 0 5000 KEYS a b c}
    r $c MIGRATE 127.0.0.1 $dport b 0 5000 COPY REPLACE
    assert_equal "[resp DEL a c]" [r $c DEBUG PROPAGATED]
}

finish
