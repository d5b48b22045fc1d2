# internals.tcl -- cairn's own guarantees beyond Redis' wire behaviour:
# single-lookup writes (DEBUG LOOKUPS), the single propagation stream
# (DEBUG PROPAGATED shows the exact bytes the AOF and replicas will read),
# CLIENT REPLY modes and output limits on the reply path.
# These use cairn-only DEBUG subcommands, so they are skipped on other servers.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]

if {[catch {r $c DEBUG LOOKUPS}]} {
    skip "internals" "server has no DEBUG LOOKUPS (not cairn)"
    finish
}

test "single lookup: SET, SETEX, GETSET and friends search the keyspace once" {
    r $c FLUSHALL
    foreach cmd {
        {SET k v} {SET k v2} {SET k v3 EX 100} {SET k v4 KEEPTTL} {SET k v5 NX}
        {SET k v6 XX GET} {SETEX k 100 v} {PSETEX k 100000 v} {SETNX k2 v}
        {GETSET k v7} {APPEND k more} {APPEND newkey x} {SETRANGE k 2 zz}
        {SETRANGE k3 5 x}
    } {
        assert_equal 1 [lookups {*}$cmd] "lookups for $cmd"
    }
}

test "single lookup: INCR family, in place and on new keys" {
    r $c FLUSHALL
    foreach cmd {
        {INCR n} {INCR n} {INCRBY n 100000} {DECR n} {DECRBY n 5} {INCRBYFLOAT f 1.5}
        {INCRBYFLOAT f 2} {INCR fresh}
    } {
        assert_equal 1 [lookups {*}$cmd] "lookups for $cmd"
    }
    assert_equal 99996 [r $c GET n]
}

test "single lookup also when the key had expired" {
    r $c FLUSHALL
    r $c DEBUG SET-ACTIVE-EXPIRE 0
    r $c SET k v PX 1
    after 20
    # The rare path: the stale key is found, unlinked, and the insert
    # position recomputed, three searches in all; the value is new.
    set n [lookups SET k fresh]
    assert {$n <= 3}
    assert_equal fresh [r $c GET k]
    assert_equal -1 [r $c TTL k]
    r $c DEBUG SET-ACTIVE-EXPIRE 1
}

test "propagation: a write is encoded once as RESP, with SELECT on db change" {
    r $c FLUSHALL
    r $c SELECT 0
    propagated
    r $c SET a 1
    r $c SELECT 3
    r $c SET b 2
    r $c GET b
    r $c SELECT 0
    set got [propagated]
    assert_equal "[resp SET a 1][resp SELECT 3][resp SET b 2]" $got
}

test "propagation: reads and failed writes are not propagated" {
    propagated
    r $c SET x 1
    r $c GET x
    catch {r $c INCR nope-not-a-number-key-is-fine}
    r $c SET y notanumber
    catch {r $c INCR y}
    r $c SET z 1 NX
    r $c SET z 2 NX
    set got [propagated]
    # The previous test left the stream in db 3, hence the SELECT.
    assert_equal "[resp SELECT 0][resp SET x 1][resp INCR nope-not-a-number-key-is-fine][resp SET y notanumber][resp SET z 1 NX]" $got
}

test "propagation: relative expires become absolute" {
    propagated
    r $c SET e v EX 100
    set when [r $c PEXPIRETIME e]
    r $c EXPIRE e 200
    set when2 [r $c PEXPIRETIME e]
    r $c SETEX e2 100 v
    set when3 [r $c PEXPIRETIME e2]
    set got [propagated]
    assert_equal "[resp SET e v PXAT $when][resp PEXPIREAT e $when2][resp SET e2 v PXAT $when3]" $got
}

test "propagation: SET with PXAT is rewritten too (capital PXAT, no NX/XX/GET)" {
    r $c DEL p
    propagated
    set at [expr {[clock milliseconds] + 100000}]
    r $c SET p v pxat $at
    r $c SET p v2 xx pxat $at get
    r $c SET q v nx pXaT $at
    set got [propagated]
    assert_equal "[resp SET p v PXAT $at][resp SET p v2 PXAT $at][resp SET q v PXAT $at]" $got
}

test "propagation: INCRBYFLOAT as SET KEEPTTL, GETDEL as DEL, GETSET as SET" {
    r $c DEL f
    propagated
    r $c INCRBYFLOAT f 0.1
    r $c SET g v
    r $c GETDEL g
    r $c GETSET h v
    set got [propagated]
    assert_equal "[resp SET f 0.1 KEEPTTL][resp SET g v][resp DEL g][resp SET h v]" $got
}

test "propagation: SET ... GET drops GET, EXPIRE in the past is a DEL" {
    r $c SET k old
    propagated
    r $c SET k new GET
    r $c EXPIRE k -1
    set got [propagated]
    assert_equal "[resp SET k new][resp DEL k]" $got
}

test "propagation: lazily expired keys propagate a DEL" {
    r $c DEBUG SET-ACTIVE-EXPIRE 0
    r $c SET gone v PX 1
    after 20
    propagated
    assert_equal {} [r $c GET gone]
    set got [propagated]
    assert_equal [resp DEL gone] $got
    r $c DEBUG SET-ACTIVE-EXPIRE 1
}

test "propagation: active expiry propagates DELs too" {
    r $c FLUSHALL
    # Held off until the SETs are drained from the stream, or a DEL could
    # go with them.
    r $c DEBUG SET-ACTIVE-EXPIRE 0
    for {set i 0} {$i < 20} {incr i} { r $c SET ak$i v PX 1 }
    propagated
    r $c DEBUG SET-ACTIVE-EXPIRE 1
    wait_for {[r $c DBSIZE] == 0}
    set got [propagated]
    for {set i 0} {$i < 20} {incr i} {
        assert {[string first [resp DEL ak$i] $got] >= 0}
    }
}

test "CLIENT REPLY OFF and SKIP suppress replies, ON restores them" {
    set x [client $srv]
    send_raw $x [resp CLIENT REPLY OFF][resp SET r1 a][resp GET r1][resp CLIENT REPLY ON]
    assert_equal "+OK\r\n" [read_raw_reply $x]
    send_raw $x [resp CLIENT REPLY SKIP][resp SET r2 b][resp GET r2]
    assert_equal "\$1\r\nb\r\n" [read_raw_reply $x]
    assert_equal a [r $x GET r1]
    close_client $x
}

test "large replies cross the static buffer into blocks intact" {
    set big [string repeat abcdefghij 100000]
    r $c SET big $big
    assert_equal $big [r $c GET big]
    # Many replies pipelined in one go exceed the 16 KB static buffer.
    set x [client $srv]
    set req ""
    for {set i 0} {$i < 2000} {incr i} { append req [resp GET big2] [resp ECHO [string repeat x 100]] }
    r $x SET big2 [string repeat y 3000]
    send_raw $x $req
    for {set i 0} {$i < 2000} {incr i} {
        assert_equal [string repeat y 3000] [read_reply $x]
        assert_equal [string repeat x 100] [read_reply $x]
    }
    close_client $x
}

test "client-output-buffer-limit normal disconnects a client that reads nothing" {
    r $c CONFIG SET client-output-buffer-limit "normal 1mb 0 0"
    r $c SET big [string repeat z 100000]
    set x [client $srv]
    set req ""
    for {set i 0} {$i < 200} {incr i} { append req [resp GET big] }
    send_raw $x $req
    wait_for {[info_field $c client_output_buffer_limit_disconnections stats] >= 1}
    r $c CONFIG SET client-output-buffer-limit "normal 0 0 0"
    assert_equal PONG [r $c PING]
    catch {close_client $x}
}

test "deferred-length replies leave no output memory behind" {
    # Each deferred header (KEYS, ZRANGEBYSCORE, SCAN, ...) used to
    # leave ~20 bytes counted in the client's output memory after it was
    # written; enough of them tripped the limit below with nothing pending.
    set x [client $srv]
    r $x ZADD dfl 1 a 2 b 3 c
    assert_equal OK [r $c CONFIG SET client-output-buffer-limit "normal 32kb 0 0"]
    set before [info_field $c client_output_buffer_limit_disconnections stats]
    for {set i 0} {$i < 1000} {incr i} { r $x ZRANGEBYSCORE dfl -inf +inf; r $x KEYS dfl* }
    r $c CONFIG SET client-output-buffer-limit "normal 0 0 0"
    assert_match "*omem=0 *" [r $x CLIENT INFO]
    assert_equal $before [info_field $c client_output_buffer_limit_disconnections stats]
    close_client $x
}

test "DEBUG PROTOCOL types in RESP2 and RESP3" {
    set x [client $srv]
    rraw $x HELLO 3
    assert_equal ",3.141\r\n" [rraw $x DEBUG PROTOCOL double]
    assert_equal "#t\r\n" [rraw $x DEBUG PROTOCOL true]
    assert_equal "_\r\n" [rraw $x DEBUG PROTOCOL null]
    assert_equal "%3\r\n:0\r\n#f\r\n:1\r\n#t\r\n:2\r\n#f\r\n" [rraw $x DEBUG PROTOCOL map]
    assert_equal "~3\r\n:0\r\n:1\r\n:2\r\n" [rraw $x DEBUG PROTOCOL set]
    assert_equal "=29\r\ntxt:This is a verbatim\nstring\r\n" [rraw $x DEBUG PROTOCOL verbatim]
    r $x HELLO 2
    assert_equal "\$5\r\n3.141\r\n" [rraw $x DEBUG PROTOCOL double]
    assert_equal ":1\r\n" [rraw $x DEBUG PROTOCOL true]
    assert_equal "\$-1\r\n" [rraw $x DEBUG PROTOCOL null]
    assert_equal "*6\r\n:0\r\n:0\r\n:1\r\n:1\r\n:2\r\n:0\r\n" [rraw $x DEBUG PROTOCOL map]
    close_client $x
}

finish
