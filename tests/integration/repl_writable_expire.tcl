# repl_writable_expire.tcl -- a writable replica (replica-read-only no)
# expires the keys it gave a TTL itself, in every database, without being
# asked (no DEL from its primary will come for them), while keys with a TTL
# from its primary still wait for the primary's DEL; a write to such a key
# that already expired replaces it (INCR starts from 0). Passes against
# redis-server 7.0 too.
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]

test "A writable replica expires its own keys; the primary's keys wait for its DEL" {
    set m [start_server -config {repl-diskless-sync-delay 0}]
    set r [start_server -config {repl-diskless-sync-delay 0 replica-read-only no}]
    set mc [client $m]
    set rc [client $r]
    repl_attach $rc $m
    # From the primary, with its active expiry off: only the primary may
    # delete this key, and it will not.
    r $mc DEBUG SET-ACTIVE-EXPIRE 0
    r $mc SET from-primary 1 PX 300
    repl_wait_caught_up $mc $rc
    # The replica's own keys, in two databases.
    r $rc SET own1 1 PX 300
    r $rc SET own2 2
    r $rc PEXPIRE own2 300
    r $rc SET kept 3
    r $rc SELECT 5
    r $rc SET own5 5 PX 300
    r $rc SELECT 0
    assert_equal 4 [r $rc DBSIZE]
    # DBSIZE touches no key: only the cron can have removed them.
    wait_for {[r $rc DBSIZE] == 2} 5000 "the replica's own keys expired in db 0"
    r $rc SELECT 5
    wait_for {[r $rc DBSIZE] == 0} 5000 "the replica's own key expired in db 5"
    r $rc SELECT 0
    assert_equal 1 [r $rc EXISTS kept]
    # still there (logically expired, so reads miss it)
    assert_equal 0 [r $rc EXISTS from-primary]
    after 300
    assert_equal 2 [r $rc DBSIZE]
    r $mc DEBUG SET-ACTIVE-EXPIRE 1
    wait_for {[r $rc DBSIZE] == 1} 5000 "the primary's DEL arrived"
    assert_equal up [info_field $rc master_link_status replication]
    stop_server $r
    stop_server $m
}

test "A write on a writable replica to a key that expired replaces it, the old value gone" {
    set m [start_server -config {repl-diskless-sync-delay 0}]
    set r [start_server -config {repl-diskless-sync-delay 0 replica-read-only no}]
    set mc [client $m]
    set rc [client $r]
    repl_attach $rc $m
    r $mc DEBUG SET-ACTIVE-EXPIRE 0
    r $mc SET n 5 PX 50
    r $mc SET s old PX 50
    r $mc RPUSH l a b
    r $mc PEXPIRE l 50
    repl_wait_caught_up $mc $rc
    after 200
    assert_equal 3 [r $rc DBSIZE]
    assert_equal 1 [r $rc INCR n]
    assert_equal -1 [r $rc TTL n]
    assert_equal 3 [r $rc APPEND s new]
    assert_equal 1 [r $rc RPUSH l c]
    assert_equal {c} [r $rc LRANGE l 0 -1]
    stop_server $r
    stop_server $m
}

test "On a read-only replica a write-flagged read (PFCOUNT) leaves an expired key for the primary" {
    set m [start_server -config {repl-diskless-sync-delay 0}]
    set r [start_server -config {repl-diskless-sync-delay 0}]
    set mc [client $m]
    set rc [client $r]
    repl_attach $rc $m
    r $mc DEBUG SET-ACTIVE-EXPIRE 0
    r $mc PFADD hll a b c
    r $mc PEXPIRE hll 50
    repl_wait_caught_up $mc $rc
    after 200
    r $rc PFCOUNT hll
    assert_equal 1 [r $rc DBSIZE]
    r $mc DEBUG SET-ACTIVE-EXPIRE 1
    wait_for {[r $rc DBSIZE] == 0} 5000 "the primary's DEL arrived"
    stop_server $r
    stop_server $m
}

finish
