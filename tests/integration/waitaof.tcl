# waitaof.tcl -- WAITAOF numlocal numreplicas timeout (Redis 7.2): the
# reply {local replicas}, argument errors in Redis' words and order, the
# wait itself under appendfsync everysec (it blocks until the background
# fsync covers the client's last write), always (answered at once: the
# write's own reply already waited), no (times out), appendonly no (an
# error when numlocal is set), inside MULTI (never blocks), CLIENT UNBLOCK,
# appendonly turned off under a waiter, and a first rewrite still running.
# The reference server (7.0) has no WAITAOF: the file runs against cairn.
source [file join [file dirname [info script]] .. helpers harness.tcl]

if {![string match *cairn* [file tail $::cairn(server)]]} {
    skip "WAITAOF" "Redis 7.0 has no WAITAOF"
    finish
}

# A slow disk (cairn's test hook): every AOF fsync takes ms longer.
proc slow_server {ms args} {
    set ::env(CAIRN_DEBUG_AOF_FSYNC_DELAY_MS) $ms
    try {
        return [start_server -config [list appendonly yes {*}$args]]
    } finally {
        unset ::env(CAIRN_DEBUG_AOF_FSYNC_DELAY_MS)
    }
}

test "WAITAOF with appendonly no: {0 0}, numlocal refused, arguments checked first" {
    set srv [start_server]
    set c [client $srv]
    r $c SET k v
    assert_equal {0 0} [r $c WAITAOF 0 0 0]
    assert_equal {0 0} [r $c WAITAOF 0 0 100]
    assert_error "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled." {r $c WAITAOF 1 0 0}
    assert_error "ERR value is out of range, value must between 0 and 1" {r $c WAITAOF 2 0 0}
    assert_error "ERR value is out of range, value must between 0 and 1" {r $c WAITAOF -1 0 0}
    assert_error "ERR value is not an integer or out of range" {r $c WAITAOF x 0 0}
    assert_error "ERR value is out of range, must be positive" {r $c WAITAOF 0 -1 0}
    assert_error "ERR value is out of range, must be positive" {r $c WAITAOF 0 x 0}
    assert_error "ERR timeout is negative" {r $c WAITAOF 1 0 -5}
    assert_error "ERR timeout is not an integer or out of range" {r $c WAITAOF 0 0 1.5}
    assert_error "ERR timeout is out of range" {r $c WAITAOF 0 0 9223372036854775807}
    assert_error "ERR wrong number of arguments for 'waitaof' command" {r $c WAITAOF 0 0}
    # numreplicas > 0 with no replicas: waits for the timeout, then [0 0]
    assert_equal {0 0} [r $c WAITAOF 0 1 50]
    kill_server $srv
}

test "WAITAOF on a replica is refused with Redis 7.2's error" {
    set primary [start_server]
    set replica [start_server -config {appendonly yes}]
    set c [client $replica]
    r $c REPLICAOF 127.0.0.1 [dict get $primary port]
    assert_error "ERR WAITAOF cannot be used with replica instances. Please also note that writes to replicas are just local and are not propagated." {r $c WAITAOF 1 0 0}
    # the arguments are checked first
    assert_error "ERR timeout is negative" {r $c WAITAOF 1 0 -1}
    r $c REPLICAOF NO ONE
    assert_equal {1 0} [r $c WAITAOF 1 0 0]
    kill_server $replica
    kill_server $primary
}

test "WAITAOF in COMMAND INFO and COMMAND DOCS has Redis 7.2's shape" {
    set srv [start_server]
    set c [client $srv]
    set info [lindex [r $c COMMAND INFO waitaof] 0]
    assert_equal {waitaof 4 noscript 0 0 0 {@slow @connection} {request_policy:all_shards response_policy:agg_min} {} {}} $info
    set docs [r $c COMMAND DOCS waitaof]
    assert_equal waitaof [lindex $docs 0]
    assert_equal 7.2.0 [dict get [lindex $docs 1] since]
    assert_equal generic [dict get [lindex $docs 1] group]
    kill_server $srv
}

test "WAITAOF under everysec blocks until the background fsync covers the last write" {
    set srv [slow_server 1500 appendfsync everysec]
    set c [client $srv]
    set other [client $srv]
    # a client that wrote nothing has nothing to wait for
    assert_equal {1 0} [r $c WAITAOF 1 0 0]
    r $c INCR n
    send_cmd $c WAITAOF 1 0 0
    wait_for {[info_field $other blocked_clients] == 1}
    # the loop keeps serving meanwhile, and other clients' waits are their own
    assert_equal {1 0} [r $other WAITAOF 1 0 0]
    assert_equal 1 [r $other GET n]
    assert_equal {1 0} [read_reply $c]
    assert_equal 0 [info_field $other blocked_clients]
    # numlocal 0: nothing to wait for locally; the local count is still told
    r $c INCR n
    set got [r $c WAITAOF 0 0 0]
    assert {$got in {{0 0} {1 0}}}
    # a timeout gives the counts as they are
    r $c INCR n
    assert_equal {0 0} [r $c WAITAOF 1 0 20]
    assert_equal {1 0} [r $c WAITAOF 1 0 0]
    # what WAITAOF confirmed survives a crash
    kill_server $srv
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal 3 [r $c GET n]
    kill_server $srv
}

test "WAITAOF under always answers at once; under no it times out" {
    set srv [start_server -config {appendonly yes appendfsync always}]
    set c [client $srv]
    r $c INCR n
    assert_equal {1 0} [r $c WAITAOF 1 0 0]
    r $c CONFIG SET appendfsync no
    r $c INCR n
    assert_equal {0 0} [r $c WAITAOF 1 0 50]
    # a policy change fsyncs what was written
    r $c CONFIG SET appendfsync always
    assert_equal {1 0} [r $c WAITAOF 1 0 0]
    kill_server $srv
}

test "WAITAOF inside MULTI never blocks" {
    set srv [start_server -config {appendonly yes appendfsync always}]
    set c [client $srv]
    r $c MULTI
    r $c INCR n
    r $c WAITAOF 1 0 0
    # the INCR of this transaction is not on disk while EXEC runs
    assert_equal {1 {0 0}} [r $c EXEC]
    assert_equal {1 0} [r $c WAITAOF 1 0 0]
    kill_server $srv
}

test "WAITAOF waiters: CLIENT UNBLOCK gives the counts, appendonly no gives the error" {
    set srv [slow_server 3000 appendfsync everysec]
    set a [client $srv]
    set b [client $srv]
    set admin [client $srv]
    set ida [r $a CLIENT ID]
    r $a SET x 1
    r $b SET y 1
    send_cmd $a WAITAOF 1 0 0
    send_cmd $b WAITAOF 1 0 0
    wait_for {[info_field $admin blocked_clients] == 2}
    assert_equal 1 [r $admin CLIENT UNBLOCK $ida]
    assert_equal {0 0} [read_reply $a]
    # the client goes on with its next command
    assert_equal PONG [r $a PING]
    r $admin CONFIG SET appendonly no
    assert_error "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled." {read_reply $b}
    assert_equal 0 [info_field $admin blocked_clients]
    kill_server $srv
}

test "WAITAOF after CONFIG SET appendonly yes waits for the first rewrite" {
    set srv [start_server -config {appendfsync everysec}]
    set c [client $srv]
    r $c SET x y
    # a BGSAVE that takes long postpones the rewrite
    r $c CONFIG SET rdb-key-save-delay 2000000
    r $c BGSAVE
    r $c CONFIG SET appendonly yes
    assert_equal 1 [info_field $c aof_rewrite_scheduled]
    r $c SET x z
    set w [client $srv]
    send_cmd $c WAITAOF 1 0 0
    wait_for {[info_field $w blocked_clients] == 1}
    r $w CONFIG SET rdb-key-save-delay 0
    exec kill -9 {*}[exec pgrep -P [dict get $srv pid]]
    assert_equal {1 0} [read_reply $c]
    assert_equal 0 [info_field $w aof_rewrite_scheduled]
    kill_server $srv
}

finish
